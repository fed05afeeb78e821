/**
 * The packages the devnet participant answers for (`/v2/packages`, their status, and
 * `/v2/interactive-submission/preferred-package-version`): the Token Standard interface packages
 * a wallet's commands name, and the devnet's own package of templates that implement them. The
 * devnet runs no Daml, so nothing can be uploaded and no archive downloaded.
 */

import { createHash } from 'node:crypto';
import {
  DEVNET_PACKAGE_ID,
  DEVNET_PACKAGE_NAME,
  HOLDING_INTERFACE_PACKAGE_ID,
  TRANSFER_INSTRUCTION_INTERFACE_PACKAGE_ID,
} from '@poolparty/ledger/canton/wire';
import type { FastifyInstance } from 'fastify';
import { CantonApiError, invalidArgument } from './canton-errors.js';
import type { ServerContext } from './context.js';
import { SPLICE_WALLET_PACKAGE_NAME } from './create-commands.js';
import { registerRoutes, routeOf } from './http/route-table.js';
import { SYNCHRONIZER_ID } from './identity.js';

/** A package id for a package the devnet only names: fixed, derived from its name. */
const namedPackageId = (name: string) =>
  createHash('sha256').update(`poolparty-devnet/package/${name}`).digest('hex');

/**
 * The packages a wallet may name, by name: their id and version. splice-wallet's version is one
 * whose pre-approval proposal names the expected DSO (0.1.11 on), as a wallet then sends it.
 */
const DEVNET_PACKAGES: ReadonlyMap<string, { readonly id: string; readonly version: string }> =
  new Map([
    [DEVNET_PACKAGE_NAME, { id: DEVNET_PACKAGE_ID, version: '1.0.0' }],
    ['splice-api-token-holding-v1', { id: HOLDING_INTERFACE_PACKAGE_ID, version: '1.0.0' }],
    [
      'splice-api-token-transfer-instruction-v1',
      { id: TRANSFER_INSTRUCTION_INTERFACE_PACKAGE_ID, version: '1.0.0' },
    ],
    [
      SPLICE_WALLET_PACKAGE_NAME,
      { id: namedPackageId(SPLICE_WALLET_PACKAGE_NAME), version: '0.1.11' },
    ],
  ]);

/** The names of the packages the devnet participant has. */
export const DEVNET_PACKAGE_NAMES: ReadonlySet<string> = new Set(DEVNET_PACKAGES.keys());

const packageRoute = routeOf<ServerContext>();

const listPackages = packageRoute({
  method: 'GET',
  url: '/v2/packages',
  handler: async () => ({ packageIds: [...DEVNET_PACKAGES.values()].map((p) => p.id) }),
});

const getPackageStatus = packageRoute<{ Params: { packageId: string } }>({
  method: 'GET',
  url: '/v2/packages/:packageId/status',
  handler: async (_ctx, request) => {
    const known = [...DEVNET_PACKAGES.values()].some((p) => p.id === request.params.packageId);
    return { packageStatus: known ? 'PACKAGE_STATUS_REGISTERED' : 'PACKAGE_STATUS_UNSPECIFIED' };
  },
});

/**
 * The package a command naming `package-name` runs with. A name the devnet has no package of is
 * answered without a preference, as a participant answers for a package no party has vetted.
 */
const getPreferredPackageVersion = packageRoute<{
  Querystring: { 'package-name'?: string; 'synchronizer-id'?: string };
}>({
  method: 'GET',
  url: '/v2/interactive-submission/preferred-package-version',
  handler: async (_ctx, request) => {
    const name = request.query['package-name'];
    if (typeof name !== 'string' || name === '') {
      throw invalidArgument('package-name names no package', { field: 'package-name' });
    }
    const synchronizerId = request.query['synchronizer-id'] ?? SYNCHRONIZER_ID;
    if (synchronizerId !== SYNCHRONIZER_ID) {
      throw new CantonApiError(
        'INVALID_SYNCHRONIZER_ID',
        'InvalidIndependentOfSystemState',
        `the devnet participant is connected to ${SYNCHRONIZER_ID} only`,
      );
    }
    const found = DEVNET_PACKAGES.get(name);
    if (found === undefined) return {};
    return {
      packagePreference: {
        packageReference: { packageId: found.id, packageName: name, packageVersion: found.version },
        synchronizerId,
      },
    };
  },
});

export async function packageRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  registerRoutes(app, ctx, [listPackages, getPackageStatus, getPreferredPackageVersion]);
}
