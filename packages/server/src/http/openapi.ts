/**
 * `GET /openapi.json` (OpenAPI 3.1) and `/docs`, generated from the routes' schemas, which come
 * from the one wire-schema source in core.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { App } from './fastify.js';

export async function registerOpenApi(app: App): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'PoolParty API',
        version: '1.0.0',
        description:
          'Non-custodial token swaps for Canton Network parties. Errors are RFC 9457 problem documents with a stable `code`.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          walletToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          developerSession: { type: 'http', scheme: 'bearer' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
