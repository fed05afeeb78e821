/**
 * The web pages (packages/app, built to `packages/app/dist` by `npm install`): the landing page,
 * the swap app and the developer portal, one single-page app.
 *
 * - `index.html` answers the app's own paths (`/`, `/pools` and one pool's page, `/swap`,
 *   `/swaps/:intentId`, `/developer` and below). Any other path a browser asks for as a page
 *   (`Accept: text/html`) outside the API's prefixes gets `index.html` with status 404, so the
 *   app shows its own "not found" page; API paths and non-browser clients still get the JSON
 *   404 problem.
 * - `index.html` is `no-cache` (revalidated with its ETag), so a new build is picked up at once;
 *   the files under `/assets/` have content hashes in their names and are `immutable` for a year.
 * - The files are read once at start-up, with a gzip copy of each: nothing on disk is looked up
 *   per request, so no request path can reach outside the build.
 * - `/app-config.json` tells the pages the environment and the key they call `/v1` with.
 * - The pages' content security policy allows only this origin's scripts, styles, images and
 *   connections (and the token registries' origins, which a Canton wallet's deposit is built
 *   from): the build has no inline script or style.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { AppConfig } from '@poolparty/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import helmet from 'helmet';
import { serverPackagePath } from '../package-dir.js';
import type { App } from './fastify.js';
import { ApiError, answerUnknownPathsWith, requestPath } from './problem.js';
import { PAGE_DIRECTIVES } from './security-headers.js';

/** Where `npm install` builds the app. */
const WEB_APP_DIST = serverPackagePath('..', 'app', 'dist');

/** The paths that are pages of the app (the router's routes, packages/app/src/app.tsx). */
const WEB_APP_PAGE_PATHS = [
  '/',
  '/pools',
  '/pools/:poolId',
  '/swap',
  '/swaps/:intentId',
  '/developer',
  '/developer/*',
] as const;

/** Paths whose unknown children stay JSON problems: the API, its documents and the assets. */
const API_PREFIXES = ['/v1', '/api', '/devnet', '/assets', '/docs', '/openapi'];

function isApiPath(path: string): boolean {
  return API_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** A browser asking for a page (a navigation) sends `text/html` in its Accept header. */
function wantsPage(request: FastifyRequest): boolean {
  const accepted = request.headers.accept;
  return typeof accepted === 'string' && /\btext\/html\b/.test(accepted);
}

/** What `/app-config.json` tells the pages (declared in core, beside the wire schemas). */
export type WebAppConfig = AppConfig;

interface BuiltFile {
  readonly body: Buffer;
  readonly gzipped: Buffer;
  readonly type: string;
  readonly etag: string;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

/** The pages' content security policy, for a service whose pages may call `connectTo` too. */
export function webAppContentSecurityPolicy(connectTo: readonly string[] = []): string {
  let policy = '';
  const sink = {
    setHeader(name: string, value: string) {
      if (name === 'Content-Security-Policy') policy = value;
    },
    removeHeader() {},
  };
  const directives = { ...PAGE_DIRECTIVES, 'connect-src': ["'self'", ...connectTo] };
  helmet({ contentSecurityPolicy: { useDefaults: false, directives } })(
    {} as never,
    sink as never,
    () => {},
  );
  return policy;
}

function builtFile(path: string): BuiltFile {
  const body = readFileSync(path);
  return {
    body,
    gzipped: gzipSync(body, { level: 9 }),
    type: CONTENT_TYPES[extname(path)] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  };
}

/** The build, or null when the app has not been built. */
function loadWebApp(dist: string = WEB_APP_DIST): {
  index: BuiltFile;
  assets: ReadonlyMap<string, BuiltFile>;
} | null {
  const indexPath = join(dist, 'index.html');
  if (!existsSync(indexPath)) return null;
  const assets = new Map<string, BuiltFile>();
  const assetsDir = join(dist, 'assets');
  if (existsSync(assetsDir)) {
    for (const name of readdirSync(assetsDir)) assets.set(name, builtFile(join(assetsDir, name)));
  }
  return { index: builtFile(indexPath), assets };
}

function acceptsGzip(request: FastifyRequest): boolean {
  const accepted = request.headers['accept-encoding'];
  return typeof accepted === 'string' && /\bgzip\b/.test(accepted);
}

function send(
  request: FastifyRequest,
  reply: FastifyReply,
  file: BuiltFile,
  cacheControl: string,
): FastifyReply {
  reply.header('Cache-Control', cacheControl);
  reply.header('ETag', file.etag);
  reply.header('Vary', 'Accept-Encoding');
  reply.type(file.type);
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  if (acceptsGzip(request)) {
    reply.header('Content-Encoding', 'gzip');
    return reply.send(file.gzipped);
  }
  return reply.send(file.body);
}

/**
 * Serves the built app. Without a build the page paths answer 503 with how to build it, so a
 * checkout that skipped `npm install`'s scripts says so instead of showing a blank page.
 */
export async function webAppRoutes(
  app: App,
  { config, dist = WEB_APP_DIST }: { readonly config: WebAppConfig; readonly dist?: string },
): Promise<void> {
  const build = loadWebApp(dist);
  const { defaultUrl, byAdmin } = config.cantonRegistries;
  const registryOrigins = [
    ...new Set(
      [...(defaultUrl === null ? [] : [defaultUrl]), ...Object.values(byAdmin)].map(
        (url) => new URL(url).origin,
      ),
    ),
  ];
  const policy = webAppContentSecurityPolicy(registryOrigins);
  const hide = { schema: { hide: true } };
  app.get('/app-config.json', hide, async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return config;
  });
  for (const path of WEB_APP_PAGE_PATHS) {
    app.get(path, hide, async (request, reply) => {
      if (build === null) {
        throw new ApiError(
          'not_implemented',
          'The web app is not built: run `npm install` (or `npm run build -w @poolparty/app`).',
        );
      }
      reply.header('Content-Security-Policy', policy);
      return send(request, reply, build.index, REVALIDATE);
    });
  }
  // Every other path: the app's "not found" page for a browser, the API's problem otherwise.
  answerUnknownPathsWith(app, (request, reply) => {
    if (build === null || request.method !== 'GET' || isApiPath(requestPath(request))) {
      return false;
    }
    if (!wantsPage(request)) return false;
    reply.header('Content-Security-Policy', policy);
    void send(request, reply.code(404), build.index, REVALIDATE);
    return true;
  });
  app.get<{ Params: { file: string } }>('/assets/:file', hide, async (request, reply) => {
    const file = build?.assets.get(request.params.file);
    if (file === undefined) throw new ApiError('not_found', 'No such file.');
    return send(request, reply, file, IMMUTABLE);
  });
}
