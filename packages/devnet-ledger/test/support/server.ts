/**
 * A devnet ledger server on an in-memory local ledger with a small world: three instruments, an
 * internal pool party pre-approving Amulet, an internal treasury and an external wallet party.
 */
import { Amount, generateKeyPair, type Instrument } from '@poolparty/core';
import { type LocalLedger, openLocalLedger } from '@poolparty/ledger';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, expect } from 'vitest';
import { type DevnetLedgerServer, startDevnetLedgerServer } from '../../src/server.js';
import { type CantonDocument, schemaErrors } from './canton-schemas.js';
import { AUDIENCE, SECRET } from './localnet.js';

export interface World {
  readonly ledger: LocalLedger;
  readonly server: DevnetLedgerServer;
  readonly amulet: Instrument;
  readonly usdcx: Instrument;
  /** Internal, pre-approves Amulet only. */
  readonly pool: string;
  /** Internal, pre-approves nothing. */
  readonly treasury: string;
  /** External (key-identified), pre-approves nothing. */
  readonly wallet: {
    readonly partyId: string;
    readonly publicKey: Uint8Array;
    readonly privateKey: Uint8Array;
  };
  /** A bearer token of the default user (when the server requires auth). */
  readonly token: string;
  /** `call` to this world's server: what nearly every test asks it. */
  get(path: string, token?: string): Promise<Answer>;
  post(path: string, body: unknown, token?: string): Promise<Answer>;
  close(): Promise<void>;
}

export async function tokenFor(
  sub: string,
  options: { secret?: string; audience?: string; expiresAt?: Date } = {},
) {
  return new SignJWT({ scope: 'daml_ledger_api' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setAudience(options.audience ?? AUDIENCE)
    .setExpirationTime(options.expiresAt ?? '1h')
    .sign(new TextEncoder().encode(options.secret ?? SECRET));
}

export async function startWorld(options: { auth?: boolean } = {}): Promise<World> {
  const ledger = await openLocalLedger();
  const admin = async (hint: string) => (await ledger.createParty({ hint })).partyId;
  const amulet = { admin: await admin('DSO'), id: 'Amulet' };
  const usdcx = { admin: await admin('circle'), id: 'USDCx' };
  await ledger.createInstrument(amulet);
  await ledger.createInstrument(usdcx);
  const pool = (await ledger.createParty({ hint: 'pool', preapprovals: [amulet] })).partyId;
  const treasury = (await ledger.createParty({ hint: 'treasury' })).partyId;
  const keys = generateKeyPair();
  const wallet = {
    partyId: (await ledger.createParty({ hint: 'wallet', publicKey: keys.publicKey })).partyId,
    ...keys,
  };
  await ledger.mint({ owner: treasury, instrument: amulet, amount: Amount.of(1000) });
  await ledger.mint({ owner: treasury, instrument: usdcx, amount: Amount.of(500) });
  await ledger.mint({ owner: wallet.partyId, instrument: amulet, amount: Amount.of(100) });
  const server = await startDevnetLedgerServer({
    ledger,
    port: 0,
    authSecret: options.auth ? SECRET : null,
  });
  return {
    ledger,
    server,
    amulet,
    usdcx,
    pool,
    treasury,
    wallet,
    token: await tokenFor('poolparty'),
    get: (path, token) => call(server.url, 'GET', path, undefined, token),
    post: (path, body, token) => call(server.url, 'POST', path, body, token),
    close: async () => {
      await server.close();
      await ledger.close();
    },
  };
}

/**
 * The world the tests of a suite (or of a file, called at its top) share: started before the
 * first of them, closed after the last. Its members are read once it has started, that is in a
 * hook or a test, never in the suite's body (which runs before any hook).
 */
export function sharedWorld(options: { auth?: boolean } = {}): World {
  let started: World | undefined;
  beforeAll(async () => {
    started = await startWorld(options);
  });
  afterAll(() => started?.close());
  return new Proxy({} as World, {
    get(_, member) {
      if (started === undefined) throw new Error('the shared world is read before it started');
      return Reflect.get(started, member);
    },
  });
}

export interface Answer {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field and by schema.
  readonly body: any;
}

export async function call(
  base: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  token?: string,
): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(token !== undefined && { authorization: `Bearer ${token}` }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** Asserts the value conforms to the named schema of a Canton document. */
export function expectSchema(document: CantonDocument, schema: string, value: unknown): void {
  expect(schemaErrors(document, schema, value)).toEqual([]);
}

/** Asserts a JsCantonError answer with this status and code, valid per the schema. */
export function expectCantonError(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body?.code }).toEqual({ status, code });
  expectSchema('ledger', 'JsCantonError', answer.body);
}
