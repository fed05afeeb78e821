/**
 * The official transaction visualizer (`@canton-network/core-tx-visualizer`) on the devnet's
 * prepared transactions: what a wallet shows its user before signing, and the hash it
 * recomputes from the same bytes.
 */
import {
  hashPreparedTransaction,
  parsePreparedTransaction,
} from '@canton-network/core-tx-visualizer';
import { transferFactoryContractId } from '@poolparty/ledger/canton/wire';
import { beforeAll, describe, expect, it } from 'vitest';
import { transferCommand } from './support/commands.js';
import { sharedWorld } from './support/server.js';
import { shownLegs } from './support/visualizer.js';

describe('core-tx-visualizer on a prepared Token Standard transfer', () => {
  const world = sharedWorld();
  let prepared: { preparedTransaction: string; preparedTransactionHash: string };
  beforeAll(async () => {
    const answer = await world.post('/v2/interactive-submission/prepare', {
      commandId: 'shown-1',
      commands: [
        transferCommand({
          sender: world.wallet.partyId,
          receiver: world.treasury,
          instrument: world.amulet,
          amount: '12.25',
        }),
      ],
      actAs: [world.wallet.partyId],
    });
    expect(answer.status).toBe(200);
    prepared = answer.body;
  });

  it('shows the choice and the amount', () => {
    const parsed = parsePreparedTransaction(prepared.preparedTransaction);
    expect(parsed.isExercise).toBe(true);
    expect(parsed.choiceId).toBe('TransferFactory_Transfer');
    expect(parsed.amount).toBe('12.2500000000');
  });

  it('shows the sender, the receiver, the instrument and the amount, typed', () => {
    expect(shownLegs(prepared.preparedTransaction)).toEqual([
      {
        choiceId: 'TransferFactory_Transfer',
        contractId: transferFactoryContractId(world.amulet.admin),
        actingParties: [world.wallet.partyId],
        sender: `party:${world.wallet.partyId}`,
        receiver: `party:${world.treasury}`,
        instrument: `party:${world.amulet.admin} text:Amulet`,
        amount: 'numeric:12.2500000000',
        // The treasury pre-approves nothing: the sender's holding is locked for the offer.
        creates: { owner: `party:${world.wallet.partyId}`, amount: 'numeric:12.2500000000' },
      },
    ]);
  });

  it('recomputes the devnet’s hash', async () => {
    expect(await hashPreparedTransaction(prepared.preparedTransaction)).toBe(
      prepared.preparedTransactionHash,
    );
  });
});
