/**
 * How an entry beside the main one (`@poolparty/sdk/liquidity`) reaches what a client holds
 * privately: its request sender and its follow settings. The client records them under a
 * registered symbol, not enumerable, so a client made by any copy of the SDK (ES module, CommonJS,
 * browser bundle) is reachable from any copy of the entry, as the error brands are.
 */
import { ValidationError } from './errors.js';
import type { RequestSender } from './http/request-sender.js';
import type { SwapFollowSettings } from './resources/swaps.js';

/** What an extension builds on: the client's sender (its key, token, fetch, retries) and timing. */
export interface ClientParts {
  readonly sender: RequestSender;
  readonly follow: SwapFollowSettings;
}

const PARTS = Symbol.for('poolparty.client.parts');

/** Called once by the client's constructor. */
export function recordParts(client: object, parts: ClientParts): void {
  Object.defineProperty(client, PARTS, { value: parts });
}

/** The parts of a client; `ValidationError` for anything that is not a PoolParty client. */
export function partsOf(client: unknown): ClientParts {
  const parts =
    typeof client === 'object' && client !== null
      ? (client as { [PARTS]?: ClientParts })[PARTS]
      : undefined;
  if (parts === undefined) {
    throw new ValidationError('Expected a PoolParty client (new PoolParty(...))', {
      code: 'validation_error',
    });
  }
  return parts;
}
