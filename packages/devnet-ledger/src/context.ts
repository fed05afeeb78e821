/**
 * What every route module of the devnet ledger server shares: the ledger it serves, its users,
 * the authentication settings, and the user a request was authenticated as.
 */
import type { LocalLedger } from '@poolparty/ledger';
import type { FastifyRequest } from 'fastify';
import { type AuthSettings, authenticatedUser, bearerToken, subprotocolToken } from './auth.js';
import { permissionDenied } from './canton-errors.js';
import type { ContractHistory } from './contract-history.js';
import type { PartyHosting } from './party-hosting.js';
import type { PreparedHashes } from './prepared-transaction.js';
import type { CommandRunner } from './token-standard-commands.js';
import type { UserDirectory } from './users.js';

export interface ServerContext {
  readonly ledger: LocalLedger;
  /** The participant's id, in the ledger's operator namespace. */
  readonly participantId: string;
  readonly users: UserDirectory;
  readonly auth: AuthSettings;
  readonly history: ContractHistory;
  readonly commands: CommandRunner;
  /** The hashes of the prepared transactions handed out, for their execution. */
  readonly preparedHashes: PreparedHashes;
  /** Which parties this participant hosts: the others' holdings it neither reads nor finds. */
  readonly hosting: PartyHosting;
  /** How often a live update stream reports an offset checkpoint while nothing commits. */
  readonly checkpointIntervalMs: number;
}

const requestUsers = new WeakMap<FastifyRequest, string>();

/** The onRequest hook of the participant paths: every request is some user's. */
export async function authenticate(ctx: ServerContext, request: FastifyRequest): Promise<void> {
  const protocols = request.headers['sec-websocket-protocol'];
  // A WebSocket carries its token as a subprotocol; everything else in the Authorization header.
  const token =
    bearerToken(request.headers.authorization) ??
    (typeof protocols === 'string'
      ? subprotocolToken(protocols.split(',').map((p) => p.trim()))
      : null);
  const user = await authenticatedUser(ctx.auth, token);
  requestUsers.set(request, user);
}

export function userOf(request: FastifyRequest): string {
  const user = requestUsers.get(request);
  if (user === undefined) throw new Error('the request was not authenticated');
  return user;
}

/**
 * The user a request acts as, given the `userId` it names. With auth, a named user must be the
 * token's (Canton refuses acting for another user); without auth every request is the default
 * user, whatever it names, as a participant without auth checks no rights.
 */
export function actingUser(ctx: ServerContext, user: string, named: string | undefined) {
  if (ctx.auth.secret !== null && named !== undefined && named !== user) {
    throw permissionDenied(`the request names user ${named}, the token user ${user}`);
  }
  return user;
}
