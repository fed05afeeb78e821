import type { ServiceContext } from '../../context.js';
import type { HttpDeps } from '../app.js';
import type { App } from '../fastify.js';

export async function portalRoutes(
  _app: App,
  _ctx: ServiceContext,
  _deps: HttpDeps,
): Promise<void> {}
