/**
 * `GET /openapi.json` (OpenAPI 3.1) and `/docs`, generated from the routes' schemas, which come
 * from the one wire-schema source in core, and from what each route declares through
 * route-docs.ts (operation id, tag, security, problem responses, examples).
 *
 * - `servers` is the relative URL `/`: the document is served by the service it describes, so
 *   its own origin is the base URL whatever host name, port or proxy a client reached it through.
 * - The tags are listed with their descriptions, but only those some operation uses: the devnet
 *   tag disappears with the devnet operations outside devnet mode.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { ProblemSchema } from '@poolparty/core';
import type { FastifySchema } from 'fastify';
import { DOCS_UI_BRANDING } from './docs-theme.js';
import type { App } from './fastify.js';
import {
  PROBLEM_SCHEMA_ID,
  SECURITY_SCHEMES,
  TAG,
  TAG_DESCRIPTIONS,
  type Tag,
} from './route-docs.js';
import { DOCS_CONTENT_SECURITY_POLICY } from './security-headers.js';

const DESCRIPTION = [
  'Non-custodial token swaps for Canton Network parties.',
  '',
  '- The client API is under `/v1`: every call sends the developer key as `X-API-Key`; swap ' +
    'calls also send a wallet token as `Authorization: Bearer <token>` (see Wallet auth).',
  '- Errors are RFC 9457 `application/problem+json` documents with a stable `code`; switch on ' +
    'it, not on `detail`.',
  '- Every response carries `X-Request-Id`; send your own to correlate logs.',
  '- Rate limits are per API key (reads, swap creations) and per client address on the login ' +
    'steps; a 429 says when to retry in `Retry-After` and `RateLimit-*` headers.',
  '- Amounts are decimal strings; fields are only added within `/v1`.',
  '- The behaviour behind these operations is specified in the PoolParty repository, under ' +
    '`docs/spec/` (start at `docs/spec/README.md`). A path such as ' +
    '`docs/spec/lifecycle.md#events` in a description below names the section of that ' +
    'specification it follows.',
].join('\n');

interface OpenApiDocument {
  readonly tags?: readonly { readonly name: string }[];
  readonly paths?: Record<string, Record<string, { readonly tags?: readonly string[] }>>;
}

/** The document's tags, in `TAG` order, limited to those its operations use. */
function usedTags(document: OpenApiDocument): { name: Tag; description: string }[] {
  const used = new Set<string>();
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const tag of operation.tags ?? []) used.add(tag);
    }
  }
  return Object.values(TAG)
    .filter((tag) => used.has(tag))
    .map((tag) => ({ name: tag, description: TAG_DESCRIPTIONS[tag] }));
}

/**
 * The problem schema every documented error refers to, explicitly open: RFC 9457 extension
 * members (such as `intentStatus` or `ledgerError`) are part of the contract.
 */
const SharedProblemSchema = {
  ...ProblemSchema,
  $id: PROBLEM_SCHEMA_ID,
  additionalProperties: true,
};

/** A route's schema as documented: its `problems` (route-docs.ts) among its responses. */
function documentedSchema(schema: FastifySchema | undefined): FastifySchema | undefined {
  if (schema?.problems === undefined) return schema;
  const { problems, response, ...rest } = schema;
  return { ...rest, response: { ...(response as object | undefined), ...problems } };
}

export async function registerOpenApi(app: App): Promise<void> {
  // Referenced by the document only; no route validates or serializes with it.
  app.addSchema(SharedProblemSchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'PoolParty API',
        version: '1.0.0',
        description: DESCRIPTION,
        // The project has no licence file: it is not published for reuse.
        license: { name: 'Proprietary' },
      },
      servers: [{ url: '/', description: 'The service that serves this document.' }],
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    // Shared schemas (the problem document) keep their own names under `components.schemas`.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    transform: ({ schema, url }) => ({ schema: documentedSchema(schema) as never, url }),
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject;
      const { openapi, info, servers, tags: _unused, ...rest } = document.openapiObject;
      const tags = usedTags(document.openapiObject as OpenApiDocument);
      return { openapi, info, servers, tags, ...rest } as typeof document.openapiObject;
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // The pages' own policy replaces the API's (security-headers.ts) on everything under /docs.
    staticCSP: DOCS_CONTENT_SECURITY_POLICY,
    // No badge from the public validator: the page talks to this origin only.
    uiConfig: { validatorUrl: null },
    // PoolParty's title, colours and logo, and a header linking back to the web pages.
    ...DOCS_UI_BRANDING,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
