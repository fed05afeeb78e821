/** Tokens: what the service can swap, each by symbol and admin. */
import type { CallOptions, RequestSender } from '../http/request-sender.js';
import type { TokenList } from '../types.js';

/** `client.tokens`. */
export class Tokens {
  readonly #sender: RequestSender;

  /** @param sender - The client's request sender. */
  constructor(sender: RequestSender) {
    this.#sender = sender;
  }

  /** The tokens that can be swapped, each with `name` and `admin`. */
  async list(options?: CallOptions): Promise<TokenList> {
    return this.#sender.send({ method: 'GET', path: '/v1/tokens', retrySafe: true, options });
  }
}
