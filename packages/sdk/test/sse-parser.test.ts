/** The Server-Sent Events parser: events come out the same however the bytes were chunked. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type SseEvent, SseParser } from '../src/swap/sse-parser.js';

const STREAM = [
  ': connected',
  '',
  'event: matched',
  'id: 1',
  'data: {"status":"matched"}',
  '',
  ': heartbeat',
  '',
  'event: completed',
  'id: 2',
  'data: {"status":',
  'data: "completed"}',
  '',
  '',
].join('\n');

const EXPECTED: SseEvent[] = [
  { event: 'matched', id: '1', data: '{"status":"matched"}' },
  { event: 'completed', id: '2', data: '{"status":\n"completed"}' },
];

function parseAll(chunks: string[]): SseEvent[] {
  const parser = new SseParser();
  return chunks.flatMap((chunk) => parser.push(chunk));
}

describe('SseParser', () => {
  it('reads events, multi-line data and ids, and skips comments', () => {
    expect(parseAll([STREAM])).toEqual(EXPECTED);
  });

  it('accepts CRLF and CR line ends, even when CRLF is split across chunks', () => {
    expect(parseAll([STREAM.replaceAll('\n', '\r\n')])).toEqual(EXPECTED);
    expect(parseAll([STREAM.replaceAll('\n', '\r')])).toEqual(EXPECTED);
    const crlf = STREAM.replaceAll('\n', '\r\n');
    const split = crlf.indexOf('\r\n') + 1;
    expect(parseAll([crlf.slice(0, split), crlf.slice(split)])).toEqual(EXPECTED);
  });

  it('gives the same events for any chunking', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.array(fc.nat(), { maxLength: 12 }),
        (eol, cuts) => {
          const text = STREAM.replaceAll('\n', eol);
          const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort(
            (a, b) => a - b,
          );
          const chunks = [0, ...points].map((start, index) =>
            text.slice(start, points[index] ?? text.length),
          );
          expect(parseAll(chunks)).toEqual(EXPECTED);
        },
      ),
    );
  });

  it('does not dispatch an event without data, nor one left unfinished', () => {
    expect(parseAll(['event: matched\n\n', 'data: half'])).toEqual([]);
  });

  it('remembers the retry interval the server asks for', () => {
    const parser = new SseParser();
    parser.push('retry: 2500\n\n');
    expect(parser.retryMs).toBe(2500);
  });
});
