/**
 * Retired developer endpoints (docs/spec/protocol.md#versioning): they answer 410 Gone with a
 * problem body, so old integrations fail loudly with a pointer to what replaced them.
 */
import { type App, anyQueryString } from '../fastify.js';
import { ApiError } from '../problem.js';
import { errorResponses, SECURITY, TAG } from '../route-docs.js';
import { type Route, registerRoutes, routeOf } from '../route-table.js';

interface RetiredEndpoint {
  readonly operationId: string;
  readonly summary: string;
  readonly detail: string;
}

const RETIRED: Readonly<Record<string, RetiredEndpoint>> = {
  '/api/sdk/register': {
    operationId: 'registerDeveloper',
    summary: 'Developer registration (retired)',
    detail:
      'Developer registration is retired: sign in with your wallet at POST /api/sdk/wallet-login.',
  },
  '/api/sdk/login': {
    operationId: 'loginDeveloperWithPassword',
    summary: 'Password login (retired)',
    detail: 'Password login is retired: sign in with your wallet at POST /api/sdk/wallet-login.',
  },
};

/** A retired endpoint's route: it needs nothing, and always answers 410. */
function goneRoute(url: string, { operationId, summary, detail }: RetiredEndpoint): Route<null> {
  return routeOf<null>()({
    method: 'POST',
    url,
    schema: {
      operationId,
      summary,
      description: `Always answers 410 \`gone\`: ${detail}`,
      tags: [TAG.portal],
      deprecated: true,
      security: SECURITY.none,
      // Whatever an old integration sends, it is told what replaced the endpoint.
      querystring: anyQueryString(),
      problems: errorResponses(['gone']),
    },
    handler: async () => {
      throw new ApiError('gone', detail);
    },
  });
}

const RETIRED_ROUTES = Object.entries(RETIRED).map(([url, endpoint]) => goneRoute(url, endpoint));

export async function retiredRoutes(app: App): Promise<void> {
  registerRoutes(app, null, RETIRED_ROUTES);
}
