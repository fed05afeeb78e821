/**
 * Refuses `Infinity`, `-Infinity` and `1e400` as strings in number members of the query string,
 * the path and a JSON body's top level. Ajv coerces those strings to ±Infinity and, with
 * `strictNumbers`, then skips the range checks for a non-finite value, so `?days=Infinity` would
 * reach the route and break its date arithmetic. A non-finite JSON number (`1e400` unquoted)
 * already fails the type check.
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { sendProblem } from './problem.js';

interface ObjectSchema {
  readonly properties?: Readonly<Record<string, { readonly type?: unknown }>>;
}

const isNumeric = (type: unknown) =>
  type === 'integer' || type === 'number' || (Array.isArray(type) && type.some(isNumeric));

/** The names of the number members of an object schema. */
function numberMembersOf(schema: unknown): readonly string[] {
  const properties = (schema as ObjectSchema | undefined)?.properties;
  if (properties === undefined) return [];
  return Object.entries(properties)
    .filter(([, member]) => isNumeric(member.type))
    .map(([name]) => name);
}

/** The first of `names` whose value in `values` is a non-finite number (or holds one). */
function firstNonFinite(names: readonly string[], values: unknown): string | null {
  if (values === null || typeof values !== 'object') return null;
  for (const name of names) {
    const raw = (values as Record<string, unknown>)[name];
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      if (typeof value === 'number' && !Number.isFinite(value)) return name;
    }
  }
  return null;
}

type Part = 'querystring' | 'params' | 'body';

/** Which members of which parts of a route's request can hold a number; empty for most routes. */
type NumberMembers = readonly (readonly [Part, readonly string[]])[];

interface RouteSchema {
  readonly querystring?: unknown;
  readonly params?: unknown;
  readonly body?: unknown;
}

/** Worked out once per route schema, not on every request: schemas do not change once routed. */
const membersBySchema = new WeakMap<RouteSchema, NumberMembers>();

function numberMembersOfRoute(schema: RouteSchema): NumberMembers {
  let members = membersBySchema.get(schema);
  if (members === undefined) {
    members = (['querystring', 'params', 'body'] as const)
      .map((part) => [part, numberMembersOf(schema[part])] as const)
      .filter(([, names]) => names.length > 0);
    membersBySchema.set(schema, members);
  }
  return members;
}

const valuesOf = (request: FastifyRequest, part: Part): unknown =>
  part === 'querystring' ? request.query : part === 'params' ? request.params : request.body;

/** A `preHandler` hook: runs after validation, on the coerced values. */
export function refuseNonFiniteNumbers(
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  const schema = request.routeOptions.schema;
  if (schema === undefined) {
    done();
    return;
  }
  for (const [part, names] of numberMembersOfRoute(schema)) {
    const name = firstNonFinite(names, valuesOf(request, part));
    if (name !== null) {
      sendProblem(request, reply, 'validation_error', `/${part}/${name} must be a finite number`, {
        errors: [{ path: `/${part}/${name}`, message: 'must be a finite number' }],
      });
      return;
    }
  }
  done();
}
