/**
 * The ledger conformance suite's harness for the `canton` adapter: an in-memory local ledger
 * served by the devnet ledger server, the wire proxy in front of it, and the adapter pointed at
 * the proxy. Every port method goes over HTTP/WebSocket through the proxy; the ledger's
 * administration (parties, instruments, minting, the clock, submission faults) is the local
 * ledger's, as a participant's administration is outside the Ledger API.
 *
 * Stream faults are the network's, not the participant's: `dropStreamRate` and
 * `duplicateDeliveryRate` become proxy faults on the frames that carry transactions.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import {
  type DevnetLedgerServer,
  PARTICIPANT_ID,
  startDevnetLedgerServer,
} from '@poolparty/devnet-ledger';
import {
  type AllocationPort,
  type CantonLedger,
  type CantonLedgerOptions,
  type ExternalSigner,
  type LedgerFaults,
  type LocalLedger,
  openCantonLedger,
  openLocalLedger,
  seededRandom,
} from '@poolparty/ledger';
import type { HarnessLedger } from '@poolparty/ledger/testing';
import { AUDIENCE, SECRET, USER } from '../../support/localnet.js';
import { startWireProxy, type WireProxy } from './wire-proxy.js';

/** The ledger, server and proxy behind one harness ledger; they outlive adapter restarts. */
export interface CantonWorld {
  readonly local: LocalLedger;
  readonly server: DevnetLedgerServer;
  readonly proxy: WireProxy;
  /** Signers of the external parties created with a key the world knows the secret of. */
  readonly signers: Map<string, ExternalSigner>;
  /** Registry bases by instrument admin, through the proxy; filled as instruments are created. */
  readonly registriesByAdmin: Record<string, string>;
  /** Adapter options pointed at the proxy. */
  options(overrides?: Partial<CantonLedgerOptions>): CantonLedgerOptions;
  close(): Promise<void>;
}

export interface CantonHarnessLedger extends HarnessLedger, AllocationPort {
  readonly world: CantonWorld;
  readonly canton: CantonLedger;
}

/**
 * The Ed25519 secrets the world can sign with: the conformance suite's keys are
 * `publicKeyFor(seed)`, the key of 32 bytes all equal to `seed`.
 */
function secretFor(publicKey: Uint8Array): Uint8Array | null {
  for (let seed = 0; seed < 256; seed++) {
    const secret = new Uint8Array(32).fill(seed);
    const candidate = ed25519.getPublicKey(secret);
    if (candidate.length === publicKey.length && candidate.every((b, i) => b === publicKey[i])) {
      return secret;
    }
  }
  return null;
}

function signerOf(secret: Uint8Array): ExternalSigner {
  return {
    publicKey: ed25519.getPublicKey(secret),
    sign: async (message) => ed25519.sign(message, secret),
  };
}

function carriesTransaction(message: unknown): boolean {
  const update = (message as { update?: Record<string, unknown> } | null)?.update;
  return update !== undefined && update !== null && 'Transaction' in update;
}

export interface CantonWorldOptions {
  /** Adapter options for every adapter this world opens (e.g. a short submit timeout). */
  readonly adapter?: Partial<CantonLedgerOptions>;
}

export async function startCantonWorld(
  worldOptions: CantonWorldOptions = {},
): Promise<CantonWorld> {
  // Internal parties live in the participant's namespace, as on Canton.
  const operatorNamespace = PARTICIPANT_ID.slice(PARTICIPANT_ID.lastIndexOf('::') + 2);
  const local = await openLocalLedger({ operatorNamespace });
  const server = await startDevnetLedgerServer({ ledger: local, port: 0, authSecret: SECRET });
  const proxy = await startWireProxy({ target: server.url });
  const signers = new Map<string, ExternalSigner>();
  const registriesByAdmin: Record<string, string> = {};
  return {
    local,
    server,
    proxy,
    signers,
    registriesByAdmin,
    options: (overrides = {}) => ({
      ledgerApiUrl: proxy.proxied(server.ledgerApiUrl),
      userId: USER,
      auth: { kind: 'hs256', secret: SECRET, audience: AUDIENCE },
      registries: { defaultUrl: proxy.proxied(server.registryUrl), byAdmin: registriesByAdmin },
      scanProxyUrl: proxy.proxied(server.scanProxyUrl),
      externalSigners: (partyId) => signers.get(partyId),
      ...worldOptions.adapter,
      ...overrides,
    }),
    async close() {
      await proxy.close();
      await server.close();
      await local.close();
    },
  };
}

/** The port over the wire, the controls on the local ledger. */
export async function openCantonHarnessLedger(
  world: CantonWorld,
  overrides: Partial<CantonLedgerOptions> = {},
): Promise<CantonHarnessLedger> {
  const { local, proxy, server, signers, registriesByAdmin } = world;
  const canton = await openCantonLedger(world.options(overrides));
  return {
    world,
    canton,
    // ---- the port, over the wire
    getParty: (partyId) => canton.getParty(partyId),
    canActAs: (partyId) => canton.canActAs(partyId),
    isSigningKeyOf: (partyId, key) => canton.isSigningKeyOf(partyId, key),
    listInstruments: () => canton.listInstruments(),
    getHoldings: (partyId) => canton.getHoldings(partyId),
    getPendingOffers: (partyId) => canton.getPendingOffers(partyId),
    submitTransfer: (command) => canton.submitTransfer(command),
    splitHolding: (command) => canton.splitHolding(command),
    acceptOffer: (command) => canton.acceptOffer(command),
    rejectOffer: (command) => canton.rejectOffer(command),
    withdrawOffer: (command) => canton.withdrawOffer(command),
    lookupCommand: (commandId) => canton.lookupCommand(commandId),
    ledgerEnd: () => canton.ledgerEnd(),
    updates: (fromOffset, subscription) => canton.updates(fromOffset, subscription),
    now: () => canton.now(),
    openMiningRound: () => canton.openMiningRound(),
    trafficParameters: () => canton.trafficParameters(),
    allocate: (command) => canton.allocate(command),
    executeSettlement: (command) => canton.executeSettlement(command),
    cancelAllocation: (command) => canton.cancelAllocation(command),
    withdrawAllocation: (command) => canton.withdrawAllocation(command),
    getAllocations: (partyId) => canton.getAllocations(partyId),
    // ---- the participant's administration
    async createParty(request) {
      const created = await local.createParty(request);
      const secret = request.publicKey ? secretFor(request.publicKey) : null;
      if (secret) signers.set(created.partyId, signerOf(secret));
      return created;
    },
    listParties: () => local.listParties(),
    preapproves: (receiver, instrument) => local.preapproves(receiver, instrument),
    signingKeysOf: (partyId) => local.signingKeysOf(partyId),
    addSigningKey: (partyId, key) => local.addSigningKey(partyId, key),
    async createInstrument(instrument) {
      await local.createInstrument(instrument);
      registriesByAdmin[instrument.admin] = proxy.proxied(server.registryUrlOf(instrument.admin));
    },
    setPreapproval: (receiver, instrument, enabled) =>
      local.setPreapproval(receiver, instrument, enabled),
    submitPreapproval: (command) => local.submitPreapproval(command),
    submitTransfers: (command) => local.submitTransfers(command),
    operatorNamespace: () => local.operatorNamespace(),
    mint: (request) => local.mint(request),
    burn: (request) => local.burn(request),
    advanceClock: (ms) => local.advanceClock(ms),
    setAmuletPrice: (price) => local.setAmuletPrice(price),
    setFaults(faults: LedgerFaults) {
      const { dropStreamRate = 0, duplicateDeliveryRate = 0, ...participant } = faults;
      local.setFaults(participant);
      proxy.clearStreamFaults();
      // A reproducible stream of numbers, so injected faults repeat.
      const random = seededRandom(faults.seed ?? 0);
      if (dropStreamRate > 0) {
        proxy.dropStreamsAfter(
          (message) => carriesTransaction(message) && random() < dropStreamRate,
        );
      }
      if (duplicateDeliveryRate > 0) {
        proxy.duplicateServerFrames(
          Number.POSITIVE_INFINITY,
          (message) => carriesTransaction(message) && random() < duplicateDeliveryRate,
        );
      }
    },
    deliveryFaults: () => local.deliveryFaults(),
    faultsInjected: () => local.faultsInjected(),
    updateAt: (offset) => local.updateAt(offset),
    holdingChangesAt: (offset) => local.holdingChangesAt(offset),
    nextChange: (signal) => local.nextChange(signal),
    isClosed: () => local.isClosed(),
    // Closing the harness ledger is an adapter restart: the participant stays up.
    close: () => canton.close(),
  };
}
