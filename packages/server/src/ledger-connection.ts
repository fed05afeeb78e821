/**
 * The ledger a process works against, as `LEDGER` says: the embedded devnet ledger in the data
 * folder (`local`), or a participant's JSON Ledger API with its registries and validator
 * (`canton`) — the same on a real Canton network and on `poolparty devnet-ledger`. The embedded
 * ledger comes with its atomic swaps (the devnet ledger's interactive submission, in process), as
 * a participant has them.
 */
import { join } from 'node:path';
import { BaseError } from '@poolparty/core';
import {
  type AtomicSwapPort,
  LedgerError,
  type LedgerPort,
  type LocalLedger,
  openCantonLedger,
  openLocalLedger,
  withAtomicSwapPort,
} from '@poolparty/ledger';
import { cantonLedgerOptionsOf } from './canton-options.js';
import type { LedgerLocation, Settings } from './config.js';
import { loadPartyKeys, signersOfKeys } from './party-keys-file.js';

export interface LedgerConnection {
  readonly ledger: LedgerPort;
  /** The embedded ledger's controls (devnet seed, `/devnet` routes); null on a participant. */
  readonly local: LocalLedger | null;
  close(): Promise<void>;
}

export class LedgerUnavailable extends BaseError<'ledger_unreachable'> {
  override readonly name = 'LedgerUnavailable';
  constructor(message: string) {
    super('ledger_unreachable', message);
  }
}

/** Which ledger (`LEDGER`, `CANTON_*`) and where the embedded one lives (the data folder). */
export type LedgerSettings = LedgerLocation & Pick<Settings, 'dataDir'>;

export async function openLedgerConnection(settings: LedgerSettings): Promise<LedgerConnection> {
  if (settings.ledger === 'canton') {
    const keysFile = settings.cantonPartyKeysFile;
    const options = {
      ...cantonLedgerOptionsOf(settings),
      ...(keysFile !== null && { externalSigners: signersOfKeys(await loadPartyKeys(keysFile)) }),
    };
    try {
      const canton = await openCantonLedger(options);
      return { ledger: canton, local: null, close: () => canton.close() };
    } catch (error) {
      if (!(error instanceof LedgerError)) throw error;
      // The participant is the first thing reached: a wrong URL, user or token shows here.
      throw new LedgerUnavailable(
        `cannot use the participant at CANTON_LEDGER_API_URL ${options.ledgerApiUrl} as user ${options.userId}: ${error.message} (${error.code})`,
      );
    }
  }
  const local = await openLocalLedger({ dataDir: join(settings.dataDir, 'ledger') });
  const ledger = withAtomicSwapPort(local, embeddedAtomicSwapsOf(local));
  return { ledger, local, close: () => local.close() };
}

/**
 * The embedded ledger's atomic swaps, loaded at the first swap: the devnet ledger's interactive
 * submission (its protobuf and its server's modules) is no part of a start.
 */
function embeddedAtomicSwapsOf(local: LocalLedger): AtomicSwapPort {
  let port: Promise<AtomicSwapPort> | null = null;
  const loaded = () => {
    port ??= import('@poolparty/devnet-ledger').then((m) => m.embeddedAtomicSwaps(local));
    return port;
  };
  return {
    prepareAtomicSwap: async (command) => (await loaded()).prepareAtomicSwap(command),
    executeAtomicSwap: async (command) => (await loaded()).executeAtomicSwap(command),
  };
}
