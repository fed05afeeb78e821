/**
 * Request validation without type coercion, for the swap-creation route.
 *
 * The service's Ajv coerces scalar types (right for query strings, where everything arrives as
 * text). In a JSON body that would turn `"slippageTolerance": "0.01"` into a number and
 * `"amount": 100` into a string, silently accepting requests the API refuses: amounts are
 * decimal strings and the slippage tolerance is a number
 * (docs/spec/protocol.md#transport-and-encoding). This compiler
 * checks the exact JSON types and hands Fastify the failures in the shape its error handler
 * reports as `validation_error`.
 */
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';

type RouteSchemaDef<S> = Parameters<FastifySchemaCompiler<S>>[0];
type ValidationFunction = ReturnType<FastifySchemaCompiler<unknown>>;

/** Enough issues to fix a request at once without echoing an attacker's whole body back. */
const VALIDATION_ISSUES_MAX = 10;

/** A Fastify `validatorCompiler` for TypeBox schemas that never coerces. */
export function strictValidatorCompiler<S>({ schema }: RouteSchemaDef<S>): ValidationFunction {
  const compiled = TypeCompiler.Compile(schema as TSchema);
  const validate: ValidationFunction = (data: unknown) => {
    if (compiled.Check(data)) return true;
    const issues: FastifySchemaValidationError[] = [];
    for (const error of compiled.Errors(data)) {
      if (issues.length === VALIDATION_ISSUES_MAX) break;
      issues.push({
        keyword: 'type',
        instancePath: error.path,
        schemaPath: '',
        params: {},
        message: error.message.toLowerCase(),
      });
    }
    validate.errors = issues;
    return false;
  };
  return validate;
}
