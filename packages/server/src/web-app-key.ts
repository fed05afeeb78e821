/**
 * The key the service's own web pages call `/v1` with (docs/spec/protocol.md#base-paths).
 * Every visitor's browser sends it, so it must not be a key a developer can revoke by accident:
 * revoking it took the pages down for everyone.
 *
 * Choices made here:
 * - On devnet, without a configured key, the pages get a key of their own, owned by the
 *   treasury party (the operator's, which signs nothing in the portal: devnet.json keeps no key
 *   of it). It is listed among no developer's keys, so no portal can revoke or rotate it, and the
 *   developer key the banner prints is the developer's alone. It is kept as a service secret so
 *   every start serves the same one; found revoked (by hand in the store), it is replaced and the
 *   start says so.
 * - A configured key (`POOLPARTY_APP_API_KEY`, the only way outside devnet) is the operator's
 *   choice: it is looked up at start, and one this service does not know or that no longer works
 *   is reported with the fix, rather than leaving every page to say "API key revoked".
 */
import type { Database, Queryable } from '@poolparty/store';
import {
  ensureServiceSecret,
  findApiKeyByHash,
  insertApiKey,
  isApiKeyUsable,
  replaceServiceSecret,
  upsertDeveloper,
} from '@poolparty/store';
import { displayPrefix, generateApiKey, hashApiKey } from './auth/api-keys.js';
import type { DevnetWelcome } from './devnet-bootstrap.js';

/** The service secret that keeps the devnet web app's key. */
const DEVNET_WEB_APP_KEY_SECRET = 'devnet_web_app_api_key';
const WEB_APP_KEY_NAME = "web app (the service's own)";

export interface WebAppKey {
  /** The key the pages are served with; null when there is none (pages say so). */
  readonly key: string | null;
  /** Whose it is, for the banner: `the service's own` or `configured`. */
  readonly source: 'service' | 'configured' | 'none';
  /** What the operator should know at start (a replaced or unusable key and the fix); null if nothing. */
  readonly notice: string | null;
}

/** The pages' key: the configured one, checked, or on devnet the service's own. */
export async function webAppKeyOf(
  db: Database,
  configured: string | null,
  welcome: DevnetWelcome | null,
  now: Date,
): Promise<WebAppKey> {
  if (configured !== null) return checkedConfiguredKey(db, configured, now);
  if (welcome !== null) return devnetWebAppKey(db, welcome, now);
  return {
    key: null,
    source: 'none',
    notice:
      'No key for the web pages: they cannot read pools. Fix: create a key in the developer portal and set POOLPARTY_APP_API_KEY (or --app-api-key) to it.',
  };
}

async function checkedConfiguredKey(db: Database, key: string, now: Date): Promise<WebAppKey> {
  const record = await findApiKeyByHash(db, hashApiKey(key));
  const state = record === null ? 'unknown' : isApiKeyUsable(record, now) ? 'working' : 'revoked';
  if (state === 'working') return { key, source: 'configured', notice: null };
  const what =
    state === 'unknown' ? 'is not a key of this service' : 'was revoked or its rotation ended';
  return {
    key,
    source: 'configured',
    notice: `The web pages' key (POOLPARTY_APP_API_KEY, ${displayPrefix(key)}…) ${what}: every page will answer "Could not load the pools". Fix: create a key in the developer portal and set POOLPARTY_APP_API_KEY (or --app-api-key) to it, then restart.`,
  };
}

/** The devnet pages' own key, registered to the treasury; a revoked one is replaced. */
async function devnetWebAppKey(
  db: Database,
  welcome: DevnetWelcome,
  now: Date,
): Promise<WebAppKey> {
  const owner = welcome.treasury?.partyId ?? welcome.developer.partyId;
  const stored = await ensureServiceSecret(
    db,
    DEVNET_WEB_APP_KEY_SECRET,
    async () => generateApiKey('devnet'),
    now,
  );
  const record = await findApiKeyByHash(db, hashApiKey(stored));
  if (record === null || isApiKeyUsable(record, now)) {
    if (record === null) await registerWebAppKey(db, stored, owner, now);
    return { key: stored, source: 'service', notice: null };
  }
  const fresh = generateApiKey('devnet');
  await db.transaction(async (tx) => {
    await registerWebAppKey(tx, fresh, owner, now);
    await replaceServiceSecret(tx, DEVNET_WEB_APP_KEY_SECRET, fresh, now);
  });
  return {
    key: fresh,
    source: 'service',
    notice: `The web pages' own key (${displayPrefix(stored)}…) had been revoked; the service issued a new one (${displayPrefix(fresh)}…), and the pages use it.`,
  };
}

async function registerWebAppKey(
  q: Queryable,
  key: string,
  owner: string,
  now: Date,
): Promise<void> {
  const keyHash = hashApiKey(key);
  await upsertDeveloper(q, owner, now);
  await insertApiKey(q, {
    keyId: `key_webapp_${keyHash.slice(0, 16)}`,
    developerParty: owner,
    name: WEB_APP_KEY_NAME,
    keyHash,
    prefix: displayPrefix(key),
    environment: 'devnet',
    createdAt: now,
  });
}

/** Whether the devnet developer key (devnet.json's, the banner's) still works. */
export async function developerKeyWorks(db: Database, key: string, now: Date): Promise<boolean> {
  const record = await findApiKeyByHash(db, hashApiKey(key));
  return record !== null && isApiKeyUsable(record, now);
}
