/**
 * Kept-alive connections to webhook receivers, one agent per origin (docs/spec/webhooks.md#requests).
 * Opening a connection for every request costs both sides more than the request itself; a kept
 * socket stays connected to the address that was checked when it was opened (the sender's lookup
 * checks every new connection), so keeping it skips no check.
 *
 * A receiver may close an idle connection just as a request is written on it: such a request
 * (on a reused socket, refused before any answer) is sent once more on a new connection by the
 * sender, rather than counted as a failed attempt an hour of backoff would follow.
 */
import http from 'node:http';
import https from 'node:https';

/** Origins whose agents are kept at most; the least recently used one is closed beyond it. */
export const KEPT_ORIGINS_MAX = 1_024;
/**
 * An idle connection is closed after this: below the 5 s after which common servers (Node's
 * among them) close theirs, so the receiver's close rarely meets a request.
 */
export const IDLE_CONNECTION_MS = 2_000;

export class WebhookConnections {
  /** By origin, least recently used first (a `Map` keeps insertion order). */
  private readonly agents = new Map<string, http.Agent>();

  /** @param socketsPerOrigin idle sockets kept per origin at most (the dispatcher's concurrency). */
  constructor(private readonly socketsPerOrigin: number) {}

  agentFor(url: URL): http.Agent {
    const origin = url.origin;
    const kept = this.agents.get(origin);
    if (kept !== undefined) {
      this.agents.delete(origin);
      this.agents.set(origin, kept);
      return kept;
    }
    const options: http.AgentOptions = {
      keepAlive: true,
      maxFreeSockets: this.socketsPerOrigin,
      timeout: IDLE_CONNECTION_MS,
      scheduling: 'lifo',
    };
    const agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    this.agents.set(origin, agent);
    if (this.agents.size > KEPT_ORIGINS_MAX) {
      const [oldest, dropped] = this.agents.entries().next().value as [string, http.Agent];
      this.agents.delete(oldest);
      dropped.destroy();
    }
    return agent;
  }

  /** Closes every kept connection; requests in flight end with an error. */
  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
