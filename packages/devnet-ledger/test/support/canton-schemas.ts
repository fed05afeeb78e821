/**
 * Checks an answer against the vendored Canton documents: a component schema of the JSON Ledger
 * API's OpenAPI document, the AsyncAPI document, or a Splice API (registry, scan proxy).
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';
import { parse } from 'yaml';

const CANTON = '/work/shared/canton';
const DOCUMENTS = {
  ledger: `${CANTON}/ledger-api-3.4.12/openapi.yaml`,
  async: `${CANTON}/ledger-api-3.4.12/asyncapi.yaml`,
  transfer: `${CANTON}/splice-0.6.1/transfer-instruction-v1.yaml`,
  metadata: `${CANTON}/splice-0.6.1/token-metadata-v1.yaml`,
  scan: `${CANTON}/splice-0.6.1/scan-proxy.yaml`,
} as const;
export type CantonDocument = keyof typeof DOCUMENTS;

const ajv = new Ajv({ strict: false, allErrors: true });
// The plugin is CommonJS: its default export arrives wrapped when imported from ESM.
const addFormats = ((formatsPlugin as unknown as { default?: unknown }).default ??
  formatsPlugin) as (ajv: Ajv) => Ajv;
addFormats(ajv);
ajv.addFormat('int8', {
  type: 'number',
  validate: (n: number) => Number.isInteger(n) && n >= -128 && n <= 127,
});
for (const [id, path] of Object.entries(DOCUMENTS)) {
  ajv.addSchema(parse(readFileSync(path, 'utf8')), id);
}
const compiled = new Map<string, ValidateFunction>();

/** The schema's errors for `value` (empty when it conforms). */
export function schemaErrors(document: CantonDocument, schema: string, value: unknown): string[] {
  const ref = `${document}#/components/schemas/${schema}`;
  let validate = compiled.get(ref);
  if (validate === undefined) {
    validate = ajv.compile({ $ref: ref });
    compiled.set(ref, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${schema}${e.instancePath} ${e.message}`);
}
