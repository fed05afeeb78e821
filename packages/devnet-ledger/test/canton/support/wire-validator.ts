/**
 * Checks traffic against Canton's own documents: the JSON Ledger API 3.4.12 (OpenAPI for HTTP,
 * AsyncAPI for the WebSocket streams), the Token Standard registry (transfer instruction and token
 * metadata) and the validator's scan proxy, as vendored under /work/shared/canton. A devnet ledger
 * that passes here answers in the shapes a real participant and validator answer in, and an
 * adapter that passes sends what they accept.
 *
 * Reading rules beyond plain JSON Schema (see docs/decisions.md, "Canton wire conformance"):
 * - `null` for an optional member counts as absent: participants write it for absent optionals
 *   (`interfaceId`, `traceContext.tracestate`) while the OpenAPI 3.0 documents declare no `nullable`.
 *   A required member that is `null` is still a mismatch.
 * - Members the schema does not name are allowed (the documents never forbid them).
 * - Canton's tagged unions (`oneOf` of single-key objects, e.g. `{"CreatedEvent": {...}}`) are read
 *   by their tag, so a mismatch names the member inside the chosen variant instead of every variant.
 * - `Either_JsCantonError_X` stream messages are errors when they carry `code` (no success message
 *   has one) and `X` otherwise: an error matches `X` too (it has no required members), so the
 *   document's plain `oneOf` would refuse every error.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { parse } from 'yaml';

/** Where the vendored documents live; overridable for a checkout elsewhere. */
export const CANTON_SPEC_DIR = process.env.CANTON_SPEC_DIR ?? '/work/shared/canton';

/** The document families a participant and a validator serve. */
export type WireDocument = 'ledger-api' | 'registry' | 'scan-proxy';

export type StreamDirection = 'fromClient' | 'fromServer';

export interface WireMismatch {
  /** What was checked, e.g. `POST /v2/updates response 200` or `ws /v2/updates fromServer`. */
  readonly subject: string;
  /** JSON pointer into the body (`''` for the body itself); `text` shows it as `body/...`. */
  readonly location: string;
  readonly message: string;
  /** `subject: location message`, for assertion output. */
  readonly text: string;
}

interface SchemaObject {
  [keyword: string]: unknown;
}

interface MediaType {
  readonly schema?: SchemaObject;
}

interface RequestBody {
  readonly $ref?: string;
  readonly required?: boolean;
  readonly content?: Record<string, MediaType>;
}

interface ResponseObject {
  readonly $ref?: string;
  readonly content?: Record<string, MediaType>;
}

interface Parameter {
  readonly $ref?: string;
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly schema?: SchemaObject;
}

interface Operation {
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: RequestBody;
  readonly responses?: Record<string, ResponseObject>;
}

interface OpenApiDocument {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly servers?: readonly { readonly url: string }[];
  readonly components?: {
    readonly schemas?: Record<string, SchemaObject>;
    readonly responses?: Record<string, ResponseObject>;
    readonly requestBodies?: Record<string, RequestBody>;
    readonly parameters?: Record<string, Parameter>;
  };
}

interface AsyncApiDocument {
  readonly channels: Record<
    string,
    {
      readonly publish?: { readonly message: { readonly $ref: string } };
      readonly subscribe?: { readonly message: { readonly $ref: string } };
    }
  >;
  readonly components: {
    readonly schemas: Record<string, SchemaObject>;
    readonly messages: Record<string, { readonly payload: { readonly $ref: string } }>;
  };
}

/** One OpenAPI operation reachable under a path template, with the schema registry it lives in. */
interface Route {
  readonly schemaId: string;
  readonly template: string;
  readonly segments: readonly string[];
  readonly operations: Record<string, Operation>;
  readonly document: OpenApiDocument;
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
/** Marks a rewritten tagged union with its tags, so a missing tag gets a readable message. */
const TAGS_KEYWORD = 'x-union-tags';

const SOURCES: Record<WireDocument, readonly string[]> = {
  'ledger-api': ['ledger-api-3.4.12/openapi.yaml'],
  registry: [
    'splice-0.6.1/transfer-instruction-v1.yaml',
    'splice-0.6.1/token-metadata-v1.yaml',
    'splice-0.6.1/allocation-instruction-v1.yaml',
    'splice-0.6.1/allocation-v1.yaml',
  ],
  'scan-proxy': ['splice-0.6.1/scan-proxy.yaml'],
};
const ASYNC_SOURCE = 'ledger-api-3.4.12/asyncapi.yaml';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The single key a Canton tagged-union variant requires, or null when `branch` is not one. */
function unionTag(branch: unknown): string | null {
  if (!isObject(branch)) return null;
  const required = branch.required;
  const properties = branch.properties;
  if (!Array.isArray(required) || required.length !== 1 || !isObject(properties)) return null;
  const [tag] = required;
  if (typeof tag !== 'string' || Object.keys(properties).length !== 1 || !(tag in properties)) {
    return null;
  }
  return tag;
}

function refName(ref: unknown): string | null {
  return typeof ref === 'string' ? (ref.split('/').pop() ?? null) : null;
}

/**
 * Rewrites a schema for Ajv as the module comment describes: tagged unions and `Either` errors
 * dispatch on a member instead of `oneOf`, and a `discriminator` with a mapping dispatches on the
 * discriminator's value (scan proxy). Everything else is kept as written.
 */
function prepare(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(prepare);
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = prepare(value);
  const oneOf = out.oneOf;
  if (!Array.isArray(oneOf)) return out;

  const discriminator = out.discriminator;
  if (isObject(discriminator) && isObject(discriminator.mapping)) {
    const property = String(discriminator.propertyName);
    const mapping = discriminator.mapping as Record<string, string>;
    delete out.oneOf;
    delete out.discriminator;
    out.required = [property];
    out.properties = { [property]: { enum: Object.keys(mapping) } };
    out.allOf = Object.entries(mapping).map(([value, ref]) => ({
      if: { properties: { [property]: { const: value } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keywords
      then: { $ref: ref },
    }));
    return out;
  }

  const tags = oneOf.map(unionTag);
  if (tags.every((tag): tag is string => tag !== null) && new Set(tags).size === tags.length) {
    delete out.oneOf;
    out.type = 'object';
    out[TAGS_KEYWORD] = tags;
    out.oneOf = tags.map((tag) => ({ required: [tag] }));
    out.allOf = oneOf.map((branch, index) => ({
      if: { required: [tags[index]] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keywords
      then: branch,
    }));
    return out;
  }

  const names = oneOf.map((branch) => (isObject(branch) ? refName(branch.$ref) : null));
  const errorIndex = names.indexOf('JsCantonError');
  if (oneOf.length === 2 && errorIndex >= 0) {
    delete out.oneOf;
    out.if = { type: 'object', required: ['code'] };
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keywords
    out.then = oneOf[errorIndex];
    out.else = oneOf[1 - errorIndex];
  }
  return out;
}

/**
 * The requests whose legacy members the documents keep "for backwards compatibility" while
 * still requiring their replacement: the member descriptions say the legacy one is used *instead*
 * (`filter` (+ `verbose`): "if defined update_format must be unset"), and Canton's own
 * core-asyncapi-client 1.8.0 sends exactly that. So either the replacement or the legacy member,
 * never both.
 */
const LEGACY_ALTERNATIVES: Record<string, { readonly legacy: string; readonly current: string }> = {
  GetUpdatesRequest: { legacy: 'filter', current: 'updateFormat' },
  GetActiveContractsRequest: { legacy: 'filter', current: 'eventFormat' },
};
const MESSAGE_KEYWORD = 'x-mismatch-message';

function withErrata(schemas: Record<string, SchemaObject>): Record<string, SchemaObject> {
  const out = { ...schemas };
  for (const [name, { legacy, current }] of Object.entries(LEGACY_ALTERNATIVES)) {
    const schema = out[name];
    const required = schema?.required;
    if (!schema || !Array.isArray(required) || !required.includes(current)) continue;
    out[name] = {
      ...schema,
      required: required.filter((member) => member !== current),
      if: { required: [legacy] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keywords
      then: {
        not: { required: [current] },
        [MESSAGE_KEYWORD]: `must not have '${current}' together with the legacy '${legacy}'`,
      },
      else: { required: [current] },
    };
  }
  return out;
}

/**
 * A copy of `value` without the object members that are `null`, and the pointers of those
 * members (so a required one can be reported as null rather than missing).
 */
function withoutNulls(value: unknown, pointer = '', nulls: Set<string> = new Set()): unknown {
  if (Array.isArray(value))
    return value.map((item, i) => withoutNulls(item, `${pointer}/${i}`, nulls));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    const at = `${pointer}/${escapePointer(key)}`;
    if (member === null) nulls.add(at);
    else out[key] = withoutNulls(member, at, nulls);
  }
  return out;
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The `$id` a document's schemas are registered under. */
function schemaIdOf(file: string): string {
  return `https://canton-documents.invalid/${file}`;
}

function absoluteRefs(schema: unknown, id: string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => absoluteRefs(item, id));
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] =
      key === '$ref' && typeof value === 'string' && value.startsWith('#')
        ? `${id}${value}`
        : absoluteRefs(value, id);
  }
  return out;
}

function loadYaml<T>(relative: string): T {
  return parse(readFileSync(`${CANTON_SPEC_DIR}/${relative}`, 'utf8')) as T;
}

/** The path of a URL or path, without query, as literal segments. */
function pathSegments(path: string): string[] {
  const pathname = new URL(path, 'http://wire.invalid').pathname;
  return pathname
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => decodeURIComponent(segment));
}

function isParameter(segment: string): boolean {
  return segment.startsWith('{') && segment.endsWith('}');
}

/** How well `route` matches the tail of `segments`: literal segments matched, or -1. */
function matchScore(route: Route, segments: readonly string[]): number {
  const offset = segments.length - route.segments.length;
  if (offset < 0) return -1;
  let literals = 0;
  for (let i = 0; i < route.segments.length; i++) {
    const expected = route.segments[i] as string;
    const actual = segments[offset + i] as string;
    if (isParameter(expected)) continue;
    if (expected !== actual) return -1;
    literals++;
  }
  return literals;
}

export class WireValidator {
  readonly #ajv: Ajv;
  readonly #routes: Record<WireDocument, Route[]>;
  readonly #async: AsyncApiDocument;
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor() {
    // strict: false because the documents carry OpenAPI's own keywords (example, discriminator
    // leftovers, xml) that are not JSON Schema; they say nothing about validity.
    this.#ajv = new Ajv({ strict: false, allErrors: true, verbose: true });
    addFormatsPlugin.default(this.#ajv);
    // Integer widths OpenAPI names that ajv-formats does not know.
    this.#ajv.addFormat('int8', { type: 'number', validate: (n: number) => n >= -128 && n <= 127 });
    this.#ajv.addFormat('int16', {
      type: 'number',
      validate: (n: number) => n >= -32768 && n <= 32767,
    });
    this.#routes = { 'ledger-api': [], registry: [], 'scan-proxy': [] };
    for (const [document, files] of Object.entries(SOURCES) as [WireDocument, string[]][]) {
      for (const file of files) {
        const doc = loadYaml<OpenApiDocument>(file);
        this.#addSchemas(file, doc.components?.schemas ?? {});
        // A server URL's path (the scan proxy's /api/validator) is where the document's paths
        // hang; matching by tail covers it and any other base a deployment puts in front.
        for (const [template, item] of Object.entries(doc.paths)) {
          this.#routes[document].push({
            schemaId: file,
            template,
            segments: pathSegments(template),
            operations: item,
            document: doc,
          });
        }
      }
    }
    this.#async = loadYaml<AsyncApiDocument>(ASYNC_SOURCE);
    this.#addSchemas(ASYNC_SOURCE, this.#async.components.schemas);
  }

  #addSchemas(file: string, schemas: Record<string, SchemaObject>): void {
    const id = schemaIdOf(file);
    this.#ajv.addSchema({ $id: id, components: { schemas: prepare(withErrata(schemas)) } });
  }

  /** A validator for `schema` as written in document `schemaId` (its `$ref`s resolve there). */
  #validatorFor(schemaId: string, schema: SchemaObject): ValidateFunction {
    const key = `${schemaId}\n${JSON.stringify(schema)}`;
    let validate = this.#compiled.get(key);
    if (!validate) {
      // The operation's schema is compiled on its own, so its document-local `$ref`s are made
      // absolute to the document it came from.
      validate = this.#ajv.compile(absoluteRefs(prepare(schema), schemaIdOf(schemaId)) as object);
      this.#compiled.set(key, validate);
    }
    return validate;
  }

  /** The document a path belongs to, by the prefixes a participant and a validator serve. */
  documentFor(path: string): WireDocument | null {
    const segments = pathSegments(path);
    if (segments[0] === 'v2') return 'ledger-api';
    const scanProxy = segments.indexOf('scan-proxy');
    if (scanProxy > 0 && segments[scanProxy - 1] === 'v0') {
      // The Canton Coin registry is served under the scan proxy (NOTES.md "Token Standard").
      return segments[scanProxy + 1] === 'registry' ? 'registry' : 'scan-proxy';
    }
    if (segments.includes('registry')) return 'registry';
    return null;
  }

  #route(
    document: WireDocument,
    method: string,
    path: string,
  ): { route: Route; operation: Operation } | string {
    const segments = pathSegments(path);
    let best: Route | null = null;
    let bestScore = -1;
    for (const route of this.#routes[document]) {
      const score = matchScore(route, segments);
      if (
        score > bestScore ||
        (score === bestScore && best && route.segments.length > best.segments.length)
      ) {
        best = route;
        bestScore = score;
      }
    }
    if (!best || bestScore < 0) return `no path of the ${document} document matches ${path}`;
    const operation = best.operations[method.toLowerCase()];
    if (!operation || !HTTP_METHODS.has(method.toLowerCase())) {
      return `${best.template} has no ${method.toUpperCase()} operation in the ${document} document`;
    }
    return { route: best, operation };
  }

  validateRequest(
    document: WireDocument,
    method: string,
    path: string,
    body: unknown,
  ): WireMismatch[] {
    const subject = `${method.toUpperCase()} ${stripQuery(path)} request`;
    const found = this.#route(document, method, path);
    if (typeof found === 'string') return [mismatch(subject, '', found)];
    const { route, operation } = found;
    return [
      ...this.#checkParameters(subject, route, operation, path),
      ...this.#checkRequestBody(subject, route, operation, body),
    ];
  }

  #checkRequestBody(
    subject: string,
    route: Route,
    operation: Operation,
    body: unknown,
  ): WireMismatch[] {
    const requestBody = resolved(route.document, 'requestBodies', operation.requestBody);
    if (!requestBody) {
      return body === undefined
        ? []
        : [mismatch(subject, '', 'has a body; the operation takes none')];
    }
    if (body === undefined) {
      return requestBody.required ? [mismatch(subject, '', 'needs a body and has none')] : [];
    }
    const schema = requestBody.content?.['application/json']?.schema;
    if (!schema)
      return [mismatch(subject, '', 'has a JSON body; the operation takes another type')];
    return this.#check(subject, route.schemaId, schema, body);
  }

  /**
   * The path and query parameters: each documented one present has its type (query strings
   * read as the schema's type, repeated names as an array), required ones are there, and the
   * query names nothing the operation does not document (a typo a participant would ignore).
   */
  #checkParameters(
    subject: string,
    route: Route,
    operation: Operation,
    path: string,
  ): WireMismatch[] {
    const shared = (route.operations as { parameters?: readonly Parameter[] }).parameters ?? [];
    const parameters = [...shared, ...(operation.parameters ?? [])].map(
      (parameter) => resolved(route.document, 'parameters', parameter) as Parameter,
    );
    const url = new URL(path, 'http://wire.invalid');
    const segments = pathSegments(path);
    const offset = segments.length - route.segments.length;
    const found: WireMismatch[] = [];
    const check = (parameter: Parameter, raw: string | string[]) => {
      const part = `${parameter.in} parameter '${parameter.name}'`;
      const schema = parameter.schema ?? {};
      const value = Array.isArray(raw)
        ? schema.type === 'array'
          ? raw.map((item) => asTyped(item, (schema.items as SchemaObject | undefined)?.type))
          : asTyped(raw[0] ?? '', schema.type)
        : asTyped(raw, schema.type);
      for (const m of this.#check(subject, route.schemaId, schema, value)) {
        found.push(mismatch(subject, m.location, m.message, part));
      }
    };
    for (const parameter of parameters) {
      if (parameter.in === 'path') {
        const index = route.segments.indexOf(`{${parameter.name}}`);
        const actual = index < 0 ? undefined : segments[offset + index];
        if (actual !== undefined) check(parameter, actual);
      } else if (parameter.in === 'query') {
        const values = url.searchParams.getAll(parameter.name);
        if (values.length > 0) check(parameter, values);
        else if (parameter.required) {
          found.push(
            mismatch(subject, '', 'is required and missing', `query parameter '${parameter.name}'`),
          );
        }
      }
    }
    const documented = new Set(parameters.filter((p) => p.in === 'query').map((p) => p.name));
    for (const name of new Set(url.searchParams.keys())) {
      if (!documented.has(name)) {
        found.push(
          mismatch(subject, '', 'is not a parameter of the operation', `query parameter '${name}'`),
        );
      }
    }
    return found;
  }

  validateResponse(
    document: WireDocument,
    method: string,
    path: string,
    status: number,
    body: unknown,
  ): WireMismatch[] {
    const subject = `${method.toUpperCase()} ${stripQuery(path)} response ${status}`;
    const found = this.#route(document, method, path);
    if (typeof found === 'string') return [mismatch(subject, '', found)];
    const { route, operation } = found;
    const responses = operation.responses ?? {};
    const response = resolved(
      route.document,
      'responses',
      responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default,
    );
    if (!response) return [mismatch(subject, '', `status ${status} is not documented`)];
    const content = response.content;
    if (!content) {
      return body === undefined
        ? []
        : [mismatch(subject, '', 'has a body; the document gives none')];
    }
    const json = content['application/json']?.schema;
    if (json) {
      if (body === undefined) return [mismatch(subject, '', 'has no JSON body')];
      return this.#check(subject, route.schemaId, json, body);
    }
    const text = content['text/plain']?.schema;
    if (text && typeof body !== 'string') {
      // The text/plain 400 is the answer to a body the participant could not decode; a request
      // it decoded and refuses (INVALID_ARGUMENT) gets a JsCantonError under the same status,
      // which the document lists only as the default answer.
      const fallback = resolved(route.document, 'responses', responses.default)?.content?.[
        'application/json'
      ]?.schema;
      if (fallback && body !== undefined) {
        return this.#check(subject, route.schemaId, fallback, body);
      }
      return [mismatch(subject, '', 'must be text/plain')];
    }
    return [];
  }

  /**
   * One WebSocket frame of an AsyncAPI channel: `fromClient` is what the client publishes (the
   * request), `fromServer` what it subscribes to (the stream items or an error).
   */
  validateStreamMessage(
    channel: string,
    direction: StreamDirection,
    message: unknown,
  ): WireMismatch[] {
    const name = stripQuery(channel);
    const subject = `ws ${name} ${direction}`;
    const entry = this.#async.channels[name];
    if (!entry)
      return [mismatch(subject, '', `no channel ${name} in the ledger API's AsyncAPI document`)];
    const operation = direction === 'fromClient' ? entry.publish : entry.subscribe;
    const messageName = refName(operation?.message.$ref);
    const payload = messageName ? this.#async.components.messages[messageName]?.payload : undefined;
    if (!payload) return [mismatch(subject, '', `the channel has no ${direction} message`)];
    return this.#check(subject, ASYNC_SOURCE, payload as SchemaObject, message);
  }

  #check(subject: string, schemaId: string, schema: SchemaObject, body: unknown): WireMismatch[] {
    const validate = this.#validatorFor(schemaId, schema);
    const nulls = new Set<string>();
    const data = withoutNulls(body, '', nulls);
    if (validate(data)) return [];
    return readableErrors(validate.errors ?? [], nulls).map(({ location, message }) =>
      mismatch(subject, location, message),
    );
  }
}

/** A response or request body the operation names by `$ref` into the document's components. */
function resolved<T extends { readonly $ref?: string }>(
  document: OpenApiDocument,
  kind: 'responses' | 'requestBodies' | 'parameters',
  value: T | undefined,
): T | undefined {
  if (!value?.$ref) return value;
  const name = refName(value.$ref);
  const target = name ? (document.components?.[kind]?.[name] as T | undefined) : undefined;
  if (!target) throw new Error(`unresolvable ${kind} reference ${value.$ref}`);
  return target;
}

function stripQuery(path: string): string {
  const index = path.indexOf('?');
  return index < 0 ? path : path.slice(0, index);
}

/** `part` names what was checked: the body (with `location` into it) or a parameter. */
function mismatch(subject: string, location: string, message: string, part = 'body'): WireMismatch {
  const where = part === 'body' ? `body${location}` : `${part}${location}`;
  return { subject, location, message, text: `${subject}: ${where} ${message}` };
}

/** A path or query string as the schema's type reads it; left a string when it is not one. */
function asTyped(text: string, type: unknown): unknown {
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(text))
    return Number(text);
  if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/**
 * Ajv's errors as a reader wants them: the bookkeeping of the rewritten unions (`if`, the
 * per-tag `required`) dropped, a missing tag said once with the tags allowed, a required member
 * sent as `null` called null, and each message said once.
 */
function readableErrors(
  errors: readonly ErrorObject[],
  nulls: ReadonlySet<string>,
): { location: string; message: string }[] {
  const out = new Map<string, { location: string; message: string }>();
  for (const error of errors) {
    if (error.keyword === 'if') continue;
    const parent = error.parentSchema as Record<string, unknown> | undefined;
    if (error.keyword === 'required' && /\/oneOf\/\d+\/required$/.test(error.schemaPath)) continue;
    let location = error.instancePath;
    let message = error.message ?? error.keyword;
    if (error.keyword === 'oneOf' && parent && Array.isArray(parent[TAGS_KEYWORD])) {
      const tags = parent[TAGS_KEYWORD] as string[];
      message = `must have exactly one of the members ${tags.join(', ')}`;
    } else if (error.keyword === 'required') {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      const at = `${location}/${escapePointer(missing)}`;
      message = nulls.has(at)
        ? `member '${missing}' is null; it is required`
        : `must have required member '${missing}'`;
    } else if (error.keyword === 'not' && parent && typeof parent[MESSAGE_KEYWORD] === 'string') {
      message = parent[MESSAGE_KEYWORD] as string;
    } else if (error.keyword === 'enum') {
      const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
      message = `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
    } else if (error.keyword === 'additionalProperties') {
      const extra = (error.params as { additionalProperty: string }).additionalProperty;
      location = `${location}/${escapePointer(extra)}`;
      message = 'is not allowed here';
    }
    out.set(`${location}\n${message}`, { location, message });
  }
  return [...out.values()];
}

let shared: WireValidator | undefined;

/** One validator per process: compiling the documents' schemas is the costly part. */
export function wireValidator(): WireValidator {
  shared ??= new WireValidator();
  return shared;
}

export function validateRequest(
  document: WireDocument,
  method: string,
  path: string,
  body: unknown,
): WireMismatch[] {
  return wireValidator().validateRequest(document, method, path, body);
}

export function validateResponse(
  document: WireDocument,
  method: string,
  path: string,
  status: number,
  body: unknown,
): WireMismatch[] {
  return wireValidator().validateResponse(document, method, path, status, body);
}

export function validateStreamMessage(
  channel: string,
  direction: StreamDirection,
  message: unknown,
): WireMismatch[] {
  return wireValidator().validateStreamMessage(channel, direction, message);
}
