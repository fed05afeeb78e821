/**
 * The devnet ledger as the wallet SDK tests meet it: a local ledger under the participant's
 * namespace (so the SDK's topology calls find the parties it hosts) with Amulet made by its DSO
 * party, served with LocalNet's HS256 secret behind the wire proxy, which checks every request
 * and answer against Canton's documents.
 */
import type { Instrument } from '@poolparty/core';
import { type LocalLedger, openLocalLedger } from '@poolparty/ledger';
import { PARTICIPANT_ID } from '../../../src/identity.js';
import { type DevnetLedgerServer, startDevnetLedgerServer } from '../../../src/server.js';
import { startWireProxy, type WireProxy } from '../../canton/support/wire-proxy.js';
import { SECRET } from '../../support/localnet.js';

export interface WalletSdkWorld {
  readonly ledger: LocalLedger;
  readonly server: DevnetLedgerServer;
  readonly proxy: WireProxy;
  readonly amulet: Instrument;
  close(): Promise<void>;
}

export interface WalletSdkWorldOptions {
  /** Parties, instruments and holdings made on the ledger before it is served. */
  readonly populate: (ledger: LocalLedger, amulet: Instrument) => Promise<void>;
  /** Paths the proxy passes unchecked: the devnet's own, and any in none of the documents. */
  readonly uncheckedPrefixes: readonly string[];
}

export async function openWalletSdkWorld(options: WalletSdkWorldOptions): Promise<WalletSdkWorld> {
  const operatorNamespace = PARTICIPANT_ID.slice(PARTICIPANT_ID.lastIndexOf('::') + 2);
  const ledger = await openLocalLedger({ operatorNamespace });
  const amulet = { admin: (await ledger.createParty({ hint: 'DSO' })).partyId, id: 'Amulet' };
  await ledger.createInstrument(amulet);
  await options.populate(ledger, amulet);
  const server = await startDevnetLedgerServer({ ledger, port: 0, authSecret: SECRET });
  const proxy = await startWireProxy({
    target: server.url,
    uncheckedPrefixes: [...options.uncheckedPrefixes],
  });
  return {
    ledger,
    server,
    proxy,
    amulet,
    close: async () => {
      await proxy.close();
      await server.close();
      await ledger.close();
    },
  };
}
