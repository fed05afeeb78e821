/**
 * The fuzzer's verdict on one answer: a client's mistake is a problem document with a request id;
 * the one other error a client may get is the web app's own "not found" page, an HTML 404, and
 * only for a browser's GET of a page.
 */
import { describe, expect, it } from 'vitest';
import { findingOf } from '../../fuzz/verdict.js';

const htmlNotFound = {
  status: 404,
  headers: { 'content-type': 'text/html; charset=utf-8', 'x-request-id': 'r1' },
  body: '<!doctype html>',
};

describe('the fuzzer verdict on an HTML 404', () => {
  it('accepts it for a GET that asks for a page', () => {
    const asked = { method: 'GET', headers: { Accept: 'text/html,application/xhtml+xml' } };
    expect(findingOf(htmlNotFound, asked)).toBeNull();
  });

  it('finds it for any other request', () => {
    const finding = 'error 404 as "text/html; charset=utf-8"';
    expect(findingOf(htmlNotFound)).toBe(finding);
    expect(findingOf(htmlNotFound, { method: 'GET', headers: { accept: '*/*' } })).toBe(finding);
    const post = { method: 'POST', headers: { accept: 'text/html' } };
    expect(findingOf(htmlNotFound, post)).toBe(finding);
    expect(
      findingOf({ ...htmlNotFound, status: 400 }, { method: 'GET', headers: post.headers }),
    ).toBe('error 400 as "text/html; charset=utf-8"');
  });
});
