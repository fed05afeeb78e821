/**
 * The HTTP forms of the streaming endpoints answer one JSON list, bounded as a participant bounds
 * it: by `http-list-max-elements-limit` (Canton's default, 200). A request whose `limit` is at
 * most that gets up to `limit` items; one without `limit` (or with a larger one) whose answer
 * would reach the bound is refused with JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED (413): the
 * client is to page with `limit` or use the WebSocket.
 */
import { CantonApiError } from './canton-errors.js';

const HTTP_LIST_MAX_ELEMENTS = 200;

class ListTooLong extends CantonApiError {
  override get status(): number {
    return 413;
  }
}

/** How many items are worth collecting: one past the answer's longest length. */
export function listCap(limit: number | undefined): number {
  return limit !== undefined && limit <= HTTP_LIST_MAX_ELEMENTS ? limit : HTTP_LIST_MAX_ELEMENTS;
}

/** The list to answer for these items and the request's `limit`. */
export function boundedList<T>(items: readonly T[], limit: number | undefined): T[] {
  if (limit !== undefined && limit <= HTTP_LIST_MAX_ELEMENTS) return items.slice(0, limit);
  if (items.length >= HTTP_LIST_MAX_ELEMENTS) {
    throw new ListTooLong(
      'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED',
      'ContentionOnSharedResources',
      `The number of matching elements (${items.length}) is greater than the node limit (${HTTP_LIST_MAX_ELEMENTS}).`,
    );
  }
  return [...items];
}
