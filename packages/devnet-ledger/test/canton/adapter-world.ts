/**
 * The canton adapter against a real devnet ledger server on port 0: a local ledger with two
 * instrument admins, parties with and without pre-approvals and an external (key-identified)
 * party, served over HTTP/WebSocket with HS256 bearer auth.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { Amount, type Instrument } from '@poolparty/core';
import {
  type DevnetLedgerServer,
  PARTICIPANT_ID,
  startDevnetLedgerServer,
} from '@poolparty/devnet-ledger';
import {
  type CantonLedger,
  type CantonLedgerOptions,
  type LocalLedger,
  openCantonLedger,
  openLocalLedger,
} from '@poolparty/ledger';
import { SignJWT } from 'jose';
import { cantonOptionsFor } from '../support/canton-options.js';
import { AUDIENCE, SECRET } from '../support/localnet.js';

export interface AdapterWorld {
  readonly local: LocalLedger;
  readonly server: DevnetLedgerServer;
  readonly canton: CantonLedger;
  readonly usd: Instrument;
  readonly eur: Instrument;
  /** Internal, holds USD and EUR. */
  readonly alice: string;
  /** Internal, pre-approves USD: transfers of USD to bob settle directly. */
  readonly bob: string;
  /** Internal, pre-approves nothing: transfers to carol are offers. */
  readonly carol: string;
  /** External: submits only with its own signature. */
  readonly wallet: string;
  readonly walletSecret: Uint8Array;
  /** Another adapter on the same participant (a restarted process: no memory of commands). */
  open(overrides?: Partial<CantonLedgerOptions>): Promise<CantonLedger>;
  options(overrides?: Partial<CantonLedgerOptions>): CantonLedgerOptions;
  close(): Promise<void>;
}

export async function startAdapterWorld(
  overrides: Partial<CantonLedgerOptions> = {},
): Promise<AdapterWorld> {
  // Internal parties live in the participant's namespace, as on Canton.
  const operatorNamespace = PARTICIPANT_ID.slice(PARTICIPANT_ID.lastIndexOf('::') + 2);
  const local = await openLocalLedger({ operatorNamespace });
  const party = async (hint: string, extra: { preapprovals?: Instrument[] } = {}) =>
    (await local.createParty({ hint, ...extra })).partyId;
  const usd = { admin: await party('bank'), id: 'USD' };
  const eur = { admin: await party('ecb'), id: 'EUR' };
  await local.createInstrument(usd);
  await local.createInstrument(eur);
  const alice = await party('alice');
  const bob = await party('bob', { preapprovals: [usd] });
  const carol = await party('carol');
  const walletSecret = new Uint8Array(32).fill(9);
  const wallet = (
    await local.createParty({ hint: 'wallet', publicKey: ed25519.getPublicKey(walletSecret) })
  ).partyId;
  await local.mint({ owner: alice, instrument: usd, amount: Amount.of(100) });
  await local.mint({ owner: alice, instrument: eur, amount: Amount.of(50) });
  await local.mint({ owner: wallet, instrument: usd, amount: Amount.of(20) });
  const server = await startDevnetLedgerServer({ ledger: local, port: 0, authSecret: SECRET });
  const opened: CantonLedger[] = [];
  const options = (more: Partial<CantonLedgerOptions> = {}): CantonLedgerOptions => ({
    ...cantonOptionsFor(server, { secret: SECRET, audience: AUDIENCE }, [usd.admin, eur.admin]),
    ...overrides,
    ...more,
  });
  const open = async (more: Partial<CantonLedgerOptions> = {}) => {
    const ledger = await openCantonLedger(options(more));
    opened.push(ledger);
    return ledger;
  };
  const canton = await open();
  return {
    local,
    server,
    canton,
    usd,
    eur,
    alice,
    bob,
    carol,
    wallet,
    walletSecret,
    open,
    options,
    close: async () => {
      await Promise.all(opened.map((ledger) => ledger.close()));
      await server.close();
      await local.close();
    },
  };
}

/** A user token of the participant, as the HS256 auth mode mints it. */
export function tokenOf(userId: string): Promise<string> {
  return new SignJWT({ scope: 'daml_ledger_api' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(userId)
    .setAudience(AUDIENCE)
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(SECRET));
}

export function amount(text: string): Amount {
  return Amount.parse(text);
}

/**
 * Alice's transfer of EUR to carol, who pre-approves nothing: an offer (anything else fails the
 * test), its amount locked until carol accepts or rejects it or alice withdraws it.
 */
export async function offerToCarol(
  w: AdapterWorld,
  commandId: string,
  eur: string,
  more: { readonly executeBefore?: Date } = {},
) {
  const outcome = await w.canton.submitTransfer({
    commandId,
    sender: w.alice,
    receiver: w.carol,
    instrument: w.eur,
    amount: amount(eur),
    ...more,
  });
  if (outcome.kind !== 'offer') throw new Error(`expected an offer, got ${outcome.kind}`);
  return outcome;
}

/** Total and locked amounts of what `party` holds of `instrument`, as wire strings. */
export async function balance(ledger: CantonLedger, party: string, instrument: Instrument) {
  let total = Amount.ZERO;
  let locked = Amount.ZERO;
  for (const holding of await ledger.getHoldings(party)) {
    if (holding.instrument.admin !== instrument.admin || holding.instrument.id !== instrument.id) {
      continue;
    }
    total = total.add(holding.amount);
    if (holding.lock !== null) locked = locked.add(holding.amount);
  }
  return { total: total.toString(), locked: locked.toString() };
}
