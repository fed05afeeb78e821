/**
 * The official wallet SDK 0.20.0 configured for the devnet ledger, as its tests connect it: the
 * devnet's user with self-signed tokens (the SDK's unsafe auth controller), its controllers at
 * the given base (the wire proxy), and the validator's scan proxy as the registry.
 */
import {
  type AuthTokenProvider,
  LedgerController,
  TokenStandardController,
  TopologyController,
  UnsafeAuthController,
  ValidatorController,
  type WalletSDK,
  WalletSDKImpl,
} from '@canton-network/wallet-sdk';
import { type Logger, pino } from 'pino';
import { AUDIENCE, SECRET, USER } from '../../support/localnet.js';

function unsafeAuth(): UnsafeAuthController {
  const controller = new UnsafeAuthController(pino({ level: 'silent' }));
  controller.userId = USER;
  controller.adminId = USER;
  controller.audience = AUDIENCE;
  controller.unsafeSecret = SECRET;
  return controller;
}

/**
 * The SDK's ledger and Token Standard controllers at `base`; with `externalParties`, also the
 * topology and validator controllers that onboard external parties.
 */
export function walletSdk(
  base: string,
  options: { readonly logger: Logger; readonly externalParties: boolean },
): WalletSDK {
  const validator = new URL(`${base}/api/validator`);
  const onboarding = {
    topologyFactory: (userId: string, provider: AuthTokenProvider, synchronizerId: string) =>
      new TopologyController(
        '127.0.0.1:1',
        new URL(base),
        userId,
        synchronizerId,
        undefined,
        provider,
      ),
    validatorFactory: (userId: string, provider: AuthTokenProvider) =>
      new ValidatorController(userId, validator, provider),
  };
  return new WalletSDKImpl().configure({
    logger: options.logger,
    authFactory: unsafeAuth,
    ledgerFactory: (userId: string, provider: AuthTokenProvider, isAdmin: boolean) =>
      new LedgerController(userId, new URL(base), undefined, isAdmin, provider),
    tokenStandardFactory: (userId: string, provider: AuthTokenProvider, isAdmin: boolean) =>
      new TokenStandardController(userId, new URL(base), validator, undefined, provider, isAdmin),
    ...(options.externalParties && onboarding),
  });
}
