/**
 * What `serve` checks before it touches anything: that it can listen where it was told to. A
 * port in use found only after the store was created and the devnet seeded would leave a seeded
 * folder behind and cost the operator the whole start to learn one setting was wrong.
 *
 * The check binds HOST:PORT and lets go at once; another process could still take the port in
 * between, which the real listen then reports the same way.
 */
import { createServer } from 'node:net';

/** Why the service cannot listen at `host:port`, naming the settings; null when it can. */
function listenProblem(error: unknown, host: string, port: number): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EADDRINUSE':
      return `PORT ${port} on HOST ${host} is already in use by another process; stop it or choose another PORT (--port)`;
    case 'EACCES':
      return `PORT ${port} on HOST ${host} needs privileges this process lacks; choose a PORT above 1023 (--port)`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST ${host} is not an address of this machine (${code}); set HOST (--host) to one, e.g. 127.0.0.1`;
    default:
      return `cannot listen on HOST ${host} PORT ${port}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Binds and releases `host:port`; resolves null when free, else the one-line problem. */
export function probeListen(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', (error) => resolve(listenProblem(error, host, port)));
    server.listen({ host, port, exclusive: true }, () => {
      server.close(() => resolve(null));
    });
  });
}
