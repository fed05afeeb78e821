/**
 * How an entry beside the main one (`@poolparty/sdk/liquidity`, `@poolparty/sdk/webhooks`) reaches
 * what a client or a developer portal holds privately: its request sender and its follow settings.
 * The constructor records them under a registered symbol, not enumerable, so a client made by any copy of the SDK (ES module, CommonJS,
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

/**
 * What a developer portal records under the same symbol: its sender alone. Having no `follow` is
 * what tells a portal's parts from a client's.
 */
export interface PortalParts {
  readonly sender: RequestSender;
  readonly follow?: undefined;
}

/** Called once by the constructor of a client, or of a developer portal. */
export function recordParts(owner: object, parts: ClientParts | PortalParts): void {
  Object.defineProperty(owner, PARTS, { value: parts });
}

function recorded(owner: unknown): ClientParts | PortalParts | undefined {
  return typeof owner === 'object' && owner !== null
    ? (owner as { [PARTS]?: ClientParts | PortalParts })[PARTS]
    : undefined;
}

/** The parts of a client; `ValidationError` for anything that is not a PoolParty client. */
export function partsOf(client: unknown): ClientParts {
  const parts = recorded(client);
  if (parts?.follow === undefined) {
    throw new ValidationError('Expected a PoolParty client (new PoolParty(...))', {
      code: 'validation_error',
    });
  }
  return parts as ClientParts;
}

/** The request sender of a developer portal; `ValidationError` for anything else. */
export function portalSenderOf(portal: unknown): RequestSender {
  const parts = recorded(portal);
  if (parts === undefined || parts.follow !== undefined) {
    throw new ValidationError('Expected a developer portal (new DeveloperPortal(...))', {
      code: 'validation_error',
    });
  }
  return parts.sender;
}

/**
 * Gives `client` the property `name`, made once from the client's parts by `make`, and returns
 * the same client: what `withLiquidity` and `withAtomicSwaps` do. Calling it again returns the
 * client unchanged; anything that is not a PoolParty client is a `ValidationError`.
 */
export function withEntry<Client extends object, Name extends string, Entry>(
  client: Client,
  name: Name,
  make: (parts: ClientParts) => Entry,
): Client & { readonly [K in Name]: Entry } {
  const parts = partsOf(client);
  if (!Object.hasOwn(client, name)) {
    Object.defineProperty(client, name, { value: make(parts), enumerable: true });
  }
  return client as Client & { readonly [K in Name]: Entry };
}
