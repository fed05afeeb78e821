/**
 * A scripted `fetch` for unit tests: records every request and answers from a list of replies,
 * so tests see exactly what the SDK sent and control exactly what it gets back.
 */
export interface RecordedRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: unknown;
  readonly signal: AbortSignal | null;
}

/** One scripted answer: a response, a thrown error, or a function of the request. */
export type Reply =
  | Response
  | Error
  | ((request: RecordedRequest) => Response | Error | Promise<Response | Error>);

export interface FakeFetch {
  readonly fetch: (input: string, init: RequestInit) => Promise<Response>;
  readonly requests: RecordedRequest[];
}

export function fakeFetch(...replies: Reply[]): FakeFetch {
  const requests: RecordedRequest[] = [];
  const fetch = async (input: string, init: RequestInit): Promise<Response> => {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    const request = {
      url: input,
      method: init.method ?? 'GET',
      headers,
      body,
      signal: init.signal ?? null,
    };
    requests.push(request);
    const reply = replies.length > 1 ? replies.shift() : replies[0];
    if (reply === undefined) throw new Error(`no reply scripted for ${request.method} ${input}`);
    const answer = typeof reply === 'function' ? await reply(request) : reply;
    if (answer instanceof Error) throw answer;
    // A Response body can be read once; hand out a copy so a repeated last reply still works.
    return answer.clone();
  };
  return { fetch, requests };
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export function problem(
  code: string,
  status: number,
  extensions: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  return new Response(
    JSON.stringify({
      type: `urn:poolparty:error:${code}`,
      title: `title of ${code}`,
      status,
      detail: `detail of ${code}`,
      code,
      requestId: 'req-problem',
      ...extensions,
    }),
    {
      status,
      headers: { 'content-type': 'application/problem+json', 'x-request-id': 'req-1', ...headers },
    },
  );
}

/** A fetch that never answers until the request is aborted, then rejects as fetch does. */
export function hangingReply(request: RecordedRequest): Promise<Error> {
  return new Promise((resolve) => {
    if (request.signal?.aborted) resolve(new DOMException('aborted', 'AbortError'));
    request.signal?.addEventListener('abort', () =>
      resolve(new DOMException('aborted', 'AbortError')),
    );
  });
}

/** An event-stream response delivering `chunks` one by one. */
export function eventStream(chunks: readonly string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

/** A sleep that records the waits asked for and returns at once. */
export function recordingSleep(): {
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly waits: number[];
} {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms, signal) => {
      waits.push(ms);
      if (signal?.aborted) throw signal.reason;
      await Promise.resolve();
    },
  };
}
