/**
 * What every route module of the devnet ledger server shares: the ledger it serves, its users,
 * the authentication settings, and the user a request was authenticated as.
 */
import type { LocalLedger } from '@poolparty/ledger';
import type { FastifyRequest } from 'fastify';
import { type AuthSettings, authenticatedUser, bearerToken } from './auth.js';
import type { ContractHistory } from './contract-history.js';
import type { UserDirectory } from './users.js';

export interface ServerContext {
  readonly ledger: LocalLedger;
  readonly users: UserDirectory;
  readonly auth: AuthSettings;
  readonly history: ContractHistory;
  /** How often a live update stream reports an offset checkpoint while nothing commits. */
  readonly checkpointIntervalMs: number;
}

const requestUsers = new WeakMap<FastifyRequest, string>();

/** The onRequest hook of the participant paths: every request is some user's. */
export async function authenticate(ctx: ServerContext, request: FastifyRequest): Promise<void> {
  const user = await authenticatedUser(ctx.auth, bearerToken(request.headers.authorization));
  requestUsers.set(request, user);
}

export function remember(request: FastifyRequest, user: string): void {
  requestUsers.set(request, user);
}

export function userOf(request: FastifyRequest): string {
  const user = requestUsers.get(request);
  if (user === undefined) throw new Error('the request was not authenticated');
  return user;
}
