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

/** The first number member of `values` (by `schema`) whose text reads as a non-finite number. */
export function nonFiniteMember(schema: unknown, values: unknown): string | null {
  const properties = (schema as ObjectSchema | undefined)?.properties;
  if (properties === undefined || values === null || typeof values !== 'object') return null;
  for (const [name, member] of Object.entries(properties)) {
    if (!isNumeric(member.type)) continue;
    const raw = (values as Record<string, unknown>)[name];
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      if (typeof value === 'number' && !Number.isFinite(value)) return name;
    }
  }
  return null;
}

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
  for (const [part, values, partSchema] of [
    ['querystring', request.query, schema.querystring],
    ['params', request.params, schema.params],
    ['body', request.body, schema.body],
  ] as const) {
    const name = nonFiniteMember(partSchema, values);
    if (name !== null) {
      sendProblem(request, reply, 'validation_error', `/${part}/${name} must be a finite number`, {
        errors: [{ path: `/${part}/${name}`, message: 'must be a finite number' }],
      });
      return;
    }
  }
  done();
}
