/** Reading the service's answers, shared by the client's request sender and the devnet helpers. */
import { PoolPartyError } from '../errors.js';

/** The header carrying the service's id for a request, quoted in errors. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** The body as JSON when it says it is JSON, else as text; nothing for an empty body. */
export async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text.length === 0) return undefined;
  const type = response.headers.get('content-type') ?? '';
  if (!/json/i.test(type)) return text;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new PoolPartyError('The service answered with malformed JSON', {
      code: 'invalid_response',
      status: response.status,
      requestId: response.headers.get(REQUEST_ID_HEADER),
      cause: error,
    });
  }
}
