/**
 * The shape of every route module: a table of routes, each its method, URL, schema and one
 * handler, registered with the dependencies the module's routes share. A handler gets those
 * dependencies first, then the request and the reply typed from its schema; a route's own hooks
 * (session, wallet token, rate limits) are made from the same dependencies. A route declared
 * `idempotency` takes an `Idempotency-Key` (idempotent-routes.ts): its key is claimed after the
 * route's own pre-handlers, so it is scoped by the principal they authenticated.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  ContextConfigDefault,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
  RouteShorthandOptions,
} from 'fastify';
import type { App } from './fastify.js';
import { type Idempotency, idempotentSchema } from './idempotent-routes.js';

type HandlerOf<S extends FastifySchema> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGenericInterface,
  ContextConfigDefault,
  S,
  TypeBoxTypeProvider
>;

/** The request of a route with schema `S`: its params, query, headers and body typed. */
export type RequestOf<S extends FastifySchema> = Parameters<HandlerOf<S>>[0];
/** The reply of a route with schema `S`: what it may send is typed by its responses. */
export type ReplyOf<S extends FastifySchema> = Parameters<HandlerOf<S>>[1];

/** What a route sets beside its schema and handler: its own hooks and validator. */
export type RouteHooks = Pick<
  RouteShorthandOptions<
    RawServerDefault,
    RawRequestDefaultExpression,
    RawReplyDefaultExpression,
    RouteGenericInterface,
    ContextConfigDefault,
    FastifySchema,
    TypeBoxTypeProvider
  >,
  'onRequest' | 'preValidation' | 'preHandler' | 'validatorCompiler'
>;

/** One route of a module whose routes share `Deps`. */
export interface Route<Deps, S extends FastifySchema = FastifySchema> {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly url: string;
  readonly schema: S;
  /** The route's hooks, made once when it is registered. */
  readonly hooks?: (deps: Deps) => RouteHooks;
  /** Takes an `Idempotency-Key`, scoped as this says (docs/spec/protocol.md#idempotency). */
  readonly idempotency?: Idempotency<Deps>;
  /** Reads the request, calls the domain and answers. A method, so any schema's route fits a table. */
  handler(deps: Deps, request: RequestOf<S>, reply: ReplyOf<S>): ReturnType<HandlerOf<S>>;
}

/**
 * The route builder of a module whose routes share `Deps`: each route's request and reply are
 * typed from its own schema.
 */
export function routeOf<Deps>() {
  return <S extends FastifySchema>(route: Route<Deps, S>): Route<Deps, S> => route;
}

/** Registers a module's table of routes, in its order, each handler given `deps`. */
export function registerRoutes<Deps>(app: App, deps: Deps, routes: readonly Route<Deps>[]): void {
  for (const { method, url, schema, hooks, idempotency, handler } of routes) {
    const own = hooks?.(deps) ?? {};
    app.route({
      method,
      url,
      schema,
      ...own,
      ...(idempotency && idempotentParts(app, deps, idempotency, schema, own)),
      handler: (request, reply) => handler(deps, request, reply),
    });
  }
}

/** The schema and hooks an idempotent route has beyond its own. */
function idempotentParts<Deps>(
  app: App,
  deps: Deps,
  idempotency: Idempotency<Deps>,
  schema: FastifySchema,
  own: RouteHooks,
) {
  const keys = app.idempotencyKeys;
  if (keys === undefined) throw new Error('idempotent routes need useIdempotencyKeys(app) first');
  const { claim, settle } = keys.hooksOf(deps, idempotency);
  const before = own.preHandler === undefined ? [] : [own.preHandler].flat();
  return { schema: idempotentSchema(schema), preHandler: [...before, claim], onSend: settle };
}
