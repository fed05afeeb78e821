/** The swaps of a party under the API key: the deposit flow's and the atomic ones. */
import type { CallOptions, RequestSender } from '../http/request-sender.js';
import type { AnySwapStatus, AtomicSwapState, SwapKind, SwapState, TrackResult } from '../types.js';
import { segment } from './path.js';

/** Options of `track`. */
export interface TrackParams {
  /** Only swaps in this state (a state of either kind). */
  readonly status?: SwapState | AtomicSwapState;
  /** Only swaps of this kind (`deposit`: `SwapStatus`, `atomic`: `AtomicSwapStatus`); both when absent. */
  readonly kind?: SwapKind;
  /** Page size, 1 to 100; the service's default is 20. */
  readonly limit?: number;
  /** Start after this page (`nextCursor` of an earlier one). */
  readonly cursor?: string;
}

/** Bounds iteration should a service ever hand out a cursor loop. */
export const TRACK_PAGES_MAX = 10_000;

/**
 * What `track()` returns: `await` it for the first page (`{partyId, swaps, nextCursor}`), or
 * iterate it with `for await` for every swap across all pages, newest first. Its swaps are of
 * both kinds unless `kind` asked for one (`T` is then that kind's status).
 */
export class TrackList<T extends AnySwapStatus = AnySwapStatus>
  implements PromiseLike<TrackResult<T>>, AsyncIterable<T>
{
  readonly #sender: RequestSender;
  readonly #partyId: string;
  readonly #params: TrackParams;
  readonly #options: CallOptions | undefined;
  #firstPage: Promise<TrackResult<T>> | null = null;

  /**
   * @param sender - The client's request sender.
   * @param partyId - The wallet token's party.
   * @param params - Filter, page size, starting cursor.
   * @param options - Signal and timeout for each page.
   */
  constructor(
    sender: RequestSender,
    partyId: string,
    params: TrackParams = {},
    options?: CallOptions,
  ) {
    this.#sender = sender;
    this.#partyId = partyId;
    this.#params = params;
    this.#options = options;
  }

  /** Fetches the first page (once) and settles with it. */
  // biome-ignore lint/suspicious/noThenProperty: awaiting a TrackList gives its first page.
  then<R1 = TrackResult<T>, R2 = never>(
    onFulfilled?: ((page: TrackResult<T>) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    this.#firstPage ??= this.#page(this.#params.cursor);
    return this.#firstPage.then(onFulfilled, onRejected);
  }

  /** Every swap on every page, fetching pages as iteration reaches them. */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let cursor = this.#params.cursor;
    const seen = new Set<string>();
    for (let pages = 0; pages < TRACK_PAGES_MAX; pages += 1) {
      const page = await this.#page(cursor);
      yield* page.swaps;
      if (page.nextCursor === null || seen.has(page.nextCursor)) return;
      seen.add(page.nextCursor);
      cursor = page.nextCursor;
    }
  }

  async #page(cursor: string | undefined): Promise<TrackResult<T>> {
    const path = `/v1/track/${segment('partyId', this.#partyId)}`;
    const { status, kind, limit } = this.#params;
    const query = { status, kind, limit, cursor };
    return this.#sender.send({
      method: 'GET',
      path,
      query,
      wallet: true,
      retrySafe: true,
      ...(this.#options !== undefined && { options: this.#options }),
    });
  }
}
