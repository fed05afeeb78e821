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

/** Why an answer is a finding, or `null` when it is fine. */
export function findingOf(answer: Answer): string | null {
  if (answer.status >= 500) return `answered ${answer.status}`;
  if (answer.status < 400) return null;
  const type = String(answer.headers['content-type'] ?? '');
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
