import type { ServiceContext } from '../../context.js';
import type { App } from '../fastify.js';

export async function marketRoutes(_app: App, _ctx: ServiceContext): Promise<void> {}
