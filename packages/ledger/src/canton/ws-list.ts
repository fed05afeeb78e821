/**
 * A finite list read over one of the JSON API's WebSocket channels: send the one request, collect
 * every message until the participant closes normally. Used where the HTTP list endpoint refuses
 * a result larger than the participant's list limit (413), e.g. a party with many holdings.
 */
import WebSocket from 'ws';
import { LedgerError } from '../port.js';
import { isCantonErrorBody, ledgerErrorOf } from './errors.js';
import { READ_TIMEOUT_MS } from './http.js';
import { webSocketProtocols, webSocketUrl } from './update-stream.js';

/** The items of the channel at `path` for `request`; nothing on the ledger changes. */
export function webSocketList<T>(input: {
  readonly ledgerApiUrl: string;
  readonly path: string;
  readonly token: string | null;
  readonly request: unknown;
  readonly timeoutMs?: number;
}): Promise<T[]> {
  const what = `${input.path} over WebSocket`;
  return new Promise<T[]>((resolve, reject) => {
    const items: T[] = [];
    const socket = new WebSocket(
      webSocketUrl(input.ledgerApiUrl, input.path),
      webSocketProtocols(input.token),
      { handshakeTimeout: input.timeoutMs ?? READ_TIMEOUT_MS },
    );
    const timer = setTimeout(
      () => fail(new LedgerError('rejected', `${what}: no end in time`)),
      input.timeoutMs ?? READ_TIMEOUT_MS,
    );
    let settled = false;
    function fail(error: LedgerError) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.terminate();
      reject(error);
    }
    socket.on('open', () => socket.send(JSON.stringify(input.request)));
    socket.on('message', (data) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(data.toString());
      } catch {
        return fail(new LedgerError('rejected', `${what}: a message that is not JSON`));
      }
      if (isCantonErrorBody(parsed)) {
        return fail(ledgerErrorOf({ kind: 'status', status: 200, body: parsed }, 'read', what));
      }
      items.push(parsed as T);
    });
    socket.on('unexpected-response', (_request, response) => {
      const status = response.statusCode ?? 0;
      response.resume();
      fail(ledgerErrorOf({ kind: 'status', status, body: undefined }, 'read', what));
    });
    socket.on('error', (error) => fail(new LedgerError('rejected', `${what}: ${error.message}`)));
    socket.on('close', (code, reason) => {
      if (code !== 1000) {
        return fail(
          new LedgerError('rejected', `${what}: closed with ${code} ${reason.toString()}`),
        );
      }
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(items);
    });
  });
}
