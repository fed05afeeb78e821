/**
 * The validator's public API that wallets read beside the scan proxy:
 * `GET /api/validator/v0/validator-user`, the validator operator's party and ledger user. The
 * wallet SDK's Amulet namespace reads it before it uses the scan proxy, and names that party as
 * the provider of the transfer pre-approvals it proposes.
 *
 * Devnet choices: the Amulet admin plays the validator operator, as it plays the DSO (the fixed
 * DSO party before Amulet exists); its user is the devnet's default user, who acts for it; the
 * devnet grants no featured-app rights. Like a validator's, the answer needs no token.
 */
import type { LocalLedger } from '@poolparty/ledger';
import type { FastifyInstance } from 'fastify';
import { registerRoutes, routeOf } from './http/route-table.js';
import { dsoOf } from './scan-proxy.js';
import { DEFAULT_USER } from './users.js';

export const VALIDATOR_USER_PATH = '/api/validator/v0/validator-user';

/** What the validator answers: its operator's party, its user's name, its featured status. */
export interface ValidatorUserInfo {
  readonly party_id: string;
  readonly user_name: string;
  readonly featured: boolean;
}

export async function validatorUserInfo(ledger: LocalLedger): Promise<ValidatorUserInfo> {
  return { party_id: await dsoOf(ledger), user_name: DEFAULT_USER, featured: false };
}

const getValidatorUser = routeOf<LocalLedger>()({
  method: 'GET',
  url: VALIDATOR_USER_PATH,
  handler: (ledger) => validatorUserInfo(ledger),
});

export async function validatorUserRoutes(app: FastifyInstance, ledger: LocalLedger) {
  registerRoutes(app, ledger, [getValidatorUser]);
}
