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
import { keepRecent } from '@poolparty/core';

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
    const agent = this.agents.get(url.origin) ?? this.newAgent(url);
    keepRecent(this.agents, url.origin, agent, KEPT_ORIGINS_MAX)?.destroy();
    return agent;
  }

  private newAgent(url: URL): http.Agent {
    const options: http.AgentOptions = {
      keepAlive: true,
      maxFreeSockets: this.socketsPerOrigin,
      timeout: IDLE_CONNECTION_MS,
      scheduling: 'lifo',
    };
    return url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
  }

  /** Closes every kept connection; requests in flight end with an error. */
  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
