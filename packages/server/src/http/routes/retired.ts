/**
 * Retired developer endpoints (seed §4.1, §9): they answer 410 Gone with a problem body, so old
 * integrations fail loudly with a pointer to what replaced them.
 */
import type { App } from '../fastify.js';
import { ApiError } from '../problem.js';

const RETIRED = {
  '/api/sdk/register':
    'Developer registration is retired: sign in with your wallet at POST /api/sdk/wallet-login.',
  '/api/sdk/login':
    'Password login is retired: sign in with your wallet at POST /api/sdk/wallet-login.',
} as const;

export async function retiredRoutes(app: App): Promise<void> {
  for (const [path, detail] of Object.entries(RETIRED)) {
    app.post(path, { schema: { hide: true } }, async () => {
      throw new ApiError('gone', detail);
    });
  }
}
