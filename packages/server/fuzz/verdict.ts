/**
 * What the fuzzer accepts as an answer. A client's mistake is a 4xx problem document with a
 * stable code and the request's id; a 5xx, an error in another shape, a missing request id, a
 * hang or a dropped connection on a well-formed request is a finding.
 */

export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body as text; `null` when not read (HEAD, event streams). */
  readonly body: string | null;
}

/**
 * What of the request the verdict looks at: a browser's GET for a page (`Accept: text/html`)
 * outside the API is answered the web app's own "not found" page, an HTML 404 by design.
 */
export interface Asked {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
}

function askedForPage(asked: Asked | undefined): boolean {
  if (asked === undefined || asked.method !== 'GET') return false;
  const accept = Object.entries(asked.headers).find(([name]) => name.toLowerCase() === 'accept');
  return accept !== undefined && /\btext\/html\b/.test(accept[1]);
}

/** Why an answer is a finding, or `null` when it is fine. */
export function findingOf(answer: Answer, asked?: Asked): string | null {
  if (answer.status >= 500) return `answered ${answer.status}`;
  if (answer.status < 400) return null;
  const type = String(answer.headers['content-type'] ?? '');
  if (answer.status === 404 && type.startsWith('text/html') && askedForPage(asked)) return null;
  if (!type.startsWith('application/problem+json')) return `error ${answer.status} as "${type}"`;
  const requestId = answer.headers['x-request-id'];
  if (typeof requestId !== 'string' || requestId.length === 0) {
    return `error ${answer.status} without X-Request-Id`;
  }
  if (answer.body === null) return null;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return `error ${answer.status} with a body that is not JSON`;
  }
  const problem = body as { code?: unknown; status?: unknown; requestId?: unknown };
  if (typeof problem.code !== 'string') return `error ${answer.status} without a code`;
  if (problem.status !== answer.status) {
    return `error ${answer.status} whose body says status ${String(problem.status)}`;
  }
  if (problem.requestId !== requestId) return `error ${answer.status} with another requestId`;
  return null;
}

/**
 * What came of a slow case (slow-cases.ts): the socket stays open after the last piece, so the
 * server has to end it, with an answer or by closing, once the request timeout has passed.
 */
export type SlowOutcome =
  | { readonly kind: 'answer'; readonly answer: Answer; readonly ms: number }
  /** The server closed the connection (or reset it) without an answer. */
  | { readonly kind: 'closed'; readonly reason: string; readonly ms: number }
  /** Still open, unanswered, when the fuzzer gave up on it. */
  | { readonly kind: 'held-open'; readonly ms: number }
  | { readonly kind: 'refused' };

/** The report's outcome label for a slow case, apart from the normal cases' statuses. */
export function slowOutcomeLabel(outcome: SlowOutcome): string {
  switch (outcome.kind) {
    case 'answer':
      return outcome.answer.status === 408 ? 'timeout-408' : `slow-${outcome.answer.status}`;
    case 'closed':
      return 'closed-by-server';
    case 'held-open':
      return 'held-open';
    case 'refused':
      return 'refused';
  }
}

/**
 * Why a slow case's outcome is a finding, or `null` when it is fine. Any answer is judged as a
 * normal one (no 5xx, errors as problems), and a 408 must say `request_timeout`; closing the
 * connection is the server's right with a client this slow. Only holding it open is not: the
 * sender gives up at the request timeout plus a margin, so `held-open` is always past it.
 */
export function slowFindingOf(outcome: SlowOutcome, requestTimeoutMs: number): string | null {
  switch (outcome.kind) {
    case 'closed':
      return null;
    case 'refused':
      return 'connection refused: the service is down';
    case 'held-open': {
      const past = Math.max(0, outcome.ms - requestTimeoutMs) / 1000;
      return `held open ${past.toFixed(1)} s past the request timeout (${requestTimeoutMs / 1000} s)`;
    }
    case 'answer': {
      const finding = findingOf(outcome.answer);
      if (finding !== null || outcome.answer.status !== 408 || outcome.answer.body === null) {
        return finding;
      }
      const { code } = JSON.parse(outcome.answer.body) as { code?: unknown };
      return code === 'request_timeout' ? null : `408 with code ${JSON.stringify(code)}`;
    }
  }
}
