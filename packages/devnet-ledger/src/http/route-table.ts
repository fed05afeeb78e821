/**
 * The shape of the devnet ledger server's route modules: a table of routes, each its method, URL
 * and one handler (with the schema that validates and serializes it, where the path has a wire
 * schema: `/devnet`), registered with the dependencies the module's routes share. A handler gets
 * those first, then the request typed as the route declares it, and the reply.
 */
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  onRequestHookHandler,
  RouteGenericInterface,
} from 'fastify';

/** One route of a module whose routes share `Deps`; `G` types its params, query and body. */
export interface Route<Deps, G extends RouteGenericInterface = RouteGenericInterface> {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly schema?: FastifySchema;
  /** The route's own `onRequest` hook, made once from the dependencies. */
  readonly onRequest?: (deps: Deps) => onRequestHookHandler;
  /** A method, so that a route of any request type fits a table. */
  handler(deps: Deps, request: FastifyRequest<G>, reply: FastifyReply): Promise<unknown>;
}

/** The route builder of a module whose routes share `Deps`. */
export function routeOf<Deps>() {
  return <G extends RouteGenericInterface = RouteGenericInterface>(
    route: Route<Deps, G>,
  ): Route<Deps, G> => route;
}

/** Registers a module's table of routes, in its order, each handler given `deps`. */
export function registerRoutes<Deps>(
  app: FastifyInstance,
  deps: Deps,
  routes: readonly Route<Deps>[],
): void {
  for (const { method, url, schema, onRequest, handler } of routes) {
    app.route({
      method,
      url,
      ...(schema !== undefined && { schema }),
      ...(onRequest !== undefined && { onRequest: onRequest(deps) }),
      handler: (request, reply) => handler(deps, request, reply),
    });
  }
}
