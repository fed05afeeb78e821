/** Quotes: what a swap of an amount would pay out, and its fees, before it is made. */
import type { CallOptions, RequestSender } from '../http/request-sender.js';
import type { Quote } from '../types.js';
import { checkAmount, checkOptionalText, checkText } from '../validation.js';

/** Parameters of `quotes.get`. */
export interface QuoteParams {
  /** Input token symbol. */
  readonly from: string;
  /** Output token symbol. */
  readonly to: string;
  /** Exact deposit amount the user plans to send, as a decimal string. */
  readonly amount: string;
  /** Receiving party; enables wallet-party discounts. */
  readonly receiverParty?: string;
  /** Picks the pool when a symbol exists under several admins. */
  readonly poolId?: string;
  /** Admin of the input token (pass with `toAdmin`). */
  readonly fromAdmin?: string;
  /** Admin of the output token (pass with `fromAdmin`). */
  readonly toAdmin?: string;
}

/** `client.quotes`. */
export class Quotes {
  readonly #sender: RequestSender;

  /** @param sender - The client's request sender. */
  constructor(sender: RequestSender) {
    this.#sender = sender;
  }

  /**
   * Prices a swap. Check `settlementSafety` before creating it: non-null means a swap of this
   * size or timing would be blocked. Throws `AmbiguousPoolPairError` when the pair matches
   * several pools, and `ValidationError` for a malformed amount before any request.
   */
  async get(params: QuoteParams, options?: CallOptions): Promise<Quote> {
    checkText('from', params.from);
    checkText('to', params.to);
    checkAmount('amount', params.amount);
    for (const field of ['receiverParty', 'poolId', 'fromAdmin', 'toAdmin'] as const) {
      checkOptionalText(field, params[field]);
    }
    const { from, to, amount, receiverParty, poolId, fromAdmin, toAdmin } = params;
    const query = { from, to, amount, receiverParty, poolId, fromAdmin, toAdmin };
    return this.#sender.send({
      method: 'GET',
      path: '/v1/quotes',
      query,
      retrySafe: true,
      options,
    });
  }
}
