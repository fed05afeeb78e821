/**
 * An atomic swap whose api process dies executing it: `poolparty serve` with
 * `POOLPARTY_ROLE=api` on PostgreSQL executes a trader's signed swap against the devnet ledger
 * served over the network (`LEDGER=canton`), through a proxy that holds the execute request, and
 * is SIGKILLed there — once before the ledger has the request, once after the ledger committed it
 * and before the api recorded it. A worker's expiry round finds the swap `executing` and finishes
 * it by its command id: executed again in the first case; in the second, recorded as committed
 * although another swap moved the pool since, past what the swap's signed output allows. Either
 * way the ledger executed it exactly once (one update under its command id, holding its two
 * legs, and no other between the trader and the pool), the swap is `completed` as the restarted
 * api answers it, and the pool's books equal its swap party's holdings. The service's own
 * reconciliation finds no mismatch on the way: it defers the pool while the swap is `executing`,
 * and counts the completed swap's update with the books it is in, wherever the checkpoint is.
 */
import { join } from 'node:path';
import { Amount, fingerprint, sign } from '@poolparty/core';
import type { DevnetKeyParty, LedgerUpdate } from '@poolparty/ledger';
import { DEFAULT_ENGINE_SETTINGS, EXECUTION_GRACE_MS, reconcile } from '@poolparty/settlement';
import { allUpdates, balanceOf, booksAndHoldings, waitFor } from '@poolparty/settlement/testing';
import { getAtomicSwap, getPool, setLedgerOffset } from '@poolparty/store';
import { postgresSkipReason } from '@poolparty/store/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { issueApiKey } from './support/devnet-ledger.js';
import { type Body, request, walletTokenFor } from './support/service.js';
import { type HoldPoint, type LedgerProxy, startLedgerProxy } from './support/tcp-proxy.js';
import { openWorkerWorld, useWorkerWorlds, type WorkerWorld } from './support/worker-world.js';

const POOL_ID = 'amulet-usdcx';
const EXECUTE_PATH = '/v2/interactive-submission/executeAndWaitForTransaction';
/** The least tolerance a trader may sign: a small trade before the recovery is past it. */
const TIGHT_SLIPPAGE = 0.001;
/** Amulet of the swap that moves the pool: well past 0.1 % of the output on a 1 000 000 pool. */
const MOVING_AMOUNT = '5000';
const WAIT_MS = 30_000;
const skipReason = await postgresSkipReason('atomic-swap kill suite');

const hexBytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/**
 * The updates the swap's command made, and every update moving tokens between its two parties
 * (a party's self-transfer, such as the pool's holdings being split, moves nothing between them).
 */
function executionsOf(updates: readonly LedgerUpdate[], commandId: string, parties: string[]) {
  const between = (update: LedgerUpdate) =>
    update.events.some(
      (e) =>
        e.kind === 'transfer' &&
        e.sender !== e.receiver &&
        parties.includes(e.sender) &&
        parties.includes(e.receiver),
    );
  return {
    byCommand: updates.filter((u) => u.commandId === commandId),
    between: updates.filter(between),
  };
}

/**
 * The service's reconciliation of the pool as it would run with the update stream's checkpoint
 * at `offset` (a stream of the test's own, `name`): `ok`, `mismatch`, or why it was deferred.
 */
async function reconciledAt(w: WorkerWorld, name: string, offset: number): Promise<string> {
  const stream = `probe-${name}`;
  await setLedgerOffset(w.db, stream, offset, new Date());
  const report = await reconcile({
    db: w.db,
    ledger: w.devnet.ledger,
    clock: { now: () => new Date() },
    quoter: { invalidate: () => {} },
    log: { warn: () => {}, error: () => {} },
    settings: { ...DEFAULT_ENGINE_SETTINGS, stream },
    step: () => {},
  });
  const run = report.runs.find((r) => r.poolId === POOL_ID);
  if (run !== undefined) return run.ok ? 'ok' : 'mismatch';
  return report.deferred.find((d) => d.poolId === POOL_ID)?.reason ?? 'not compared';
}

/** A trader's calls to an api process, with the developer's key and the trader's wallet token. */
async function traderOf(url: string, apiKey: string, user: DevnetKeyParty) {
  const token = await walletTokenFor({ url, apiKey }, user);
  const call = (base: string, method: string, path: string, body?: unknown) =>
    request<Body>(base, method, path, { apiKey, walletToken: token, body });
  return {
    user,
    call,
    /** An Amulet → USDCx swap prepared through `base`, and the trader's signature of it. */
    async prepared(base: string, amount: string, slippageTolerance?: number) {
      const answer = await call(base, 'POST', '/v1/atomic-swaps', {
        fromToken: 'Amulet',
        toToken: 'USDCx',
        amount,
        poolId: POOL_ID,
        keyFingerprint: fingerprint(hexBytes(user.publicKey)),
        ...(slippageTolerance !== undefined && { slippageTolerance }),
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      const swap = answer.body;
      const hash = Buffer.from(swap.preparedTransactionHash, 'base64');
      const signed = {
        signature: base64(sign(hash, hexBytes(user.privateKey))),
        publicKey: base64(hexBytes(user.publicKey)),
      };
      return { swap, execute: () => call(base, 'POST', `${pathOf(swap)}/execute`, signed) };
    },
  };
}

const pathOf = (swap: Body) => `/v1/atomic-swaps/${swap.atomicSwapId}`;

describe.skipIf(skipReason !== null)('an atomic swap whose api is killed executing it', () => {
  const { opened, start } = useWorkerWorlds();
  let proxy: LedgerProxy | null = null;
  afterEach(async () => {
    await proxy?.close();
    proxy = null;
  });

  /** The world, a worker, and an api process reaching the ledger through the proxy. */
  async function setUp(name: string) {
    const w: WorkerWorld = opened(await openWorkerWorld(name));
    const through = await startLedgerProxy(w.devnet.server.ledgerApiUrl);
    proxy = through;
    const api = (dir: string) =>
      start(w, {
        POOLPARTY_ROLE: 'api',
        POOLPARTY_DATA_DIR: join(w.dataDir, dir),
        CANTON_LEDGER_API_URL: through.url,
      });
    const victim = api('api-1');
    const worker = start(w);
    const apiKey = await issueApiKey(w.db, w.devnet.seed.developer.partyId, new Date());
    const [alice, bob] = w.devnet.seed.users;
    const pool = w.devnet.seed.pools.find((p) => p.poolId === POOL_ID);
    if (alice === undefined || bob === undefined || pool === undefined) {
      throw new Error('no seeded users or pool');
    }
    const url = await victim.url;
    await worker.url;
    return { w, proxy: through, api, victim, url, apiKey, alice, bob, pool };
  }

  /**
   * Prepares and signs a swap through the api, holds its execution at `point` and kills the api
   * there; then lets the worker finish it (`between` runs first, through a restarted api), and
   * checks the swap completed, executed once, the books equal to the holdings.
   */
  async function killedExecuting(
    point: HoldPoint,
    between: (scene: Awaited<ReturnType<typeof setUp>>, successor: string) => Promise<void>,
  ) {
    const scene = await setUp(`atomic-kill-${point}`);
    const { w, url, pool } = scene;
    const trader = await traderOf(url, scene.apiKey, scene.alice);
    const { swap, execute } = await trader.prepared(url, '100', TIGHT_SLIPPAGE);
    const booksBefore = (await getPool(w.db, POOL_ID))?.accounting;
    const usdcxBefore = await balanceOf(w.devnet.ledger, trader.user.partyId, pool.tokenB);
    const held = scene.proxy.holdNext(EXECUTE_PATH, point);
    // The trader's request dies with the api: it gets no answer.
    const executing = execute().then(
      (answer) => answer.status,
      () => 'no answer',
    );
    await held;
    scene.victim.child.kill('SIGKILL');
    expect(await scene.victim.exited).toBeNull();
    expect(await executing).toBe('no answer');

    // Killed in the middle: signed and executing, the books as they were; on the ledger or not.
    const atKill = await getAtomicSwap(w.db, swap.atomicSwapId);
    const commandId = atKill?.preparation.commandId ?? '';
    expect(atKill?.status).toBe('executing');
    const committed = (await w.devnet.ledger.lookupCommand(commandId)) !== null;
    expect(committed).toBe(point === 'answer');
    expect((await getPool(w.db, POOL_ID))?.accounting).toEqual(booksBefore);
    // Reconciliation does not take the ledger's commit, not yet in the books, for a mismatch.
    const end = await w.devnet.ledger.ledgerEnd();
    expect(await reconciledAt(w, 'at-kill', end)).toBe('an atomic swap of it is executing');

    // The worker looks at an executing swap once its request has had its time: the ledger's
    // clock moves past that, and the restarted api answers the swap as the worker ends it.
    const successor = await scene.api('api-2').url;
    await between(scene, successor);
    await w.devnet.ledger.advanceClock(EXECUTION_GRACE_MS + 1_000);
    const done = await waitFor(
      async () => {
        const answer = await trader.call(successor, 'GET', pathOf(swap));
        return answer.body.status === 'completed' ? answer.body : null;
      },
      'the swap to complete',
      WAIT_MS,
    );

    const parties = [trader.user.partyId, pool.swapParty];
    const updates = await allUpdates(w.devnet.ledger);
    const { byCommand, between: moves } = executionsOf(updates, commandId, parties);
    expect(byCommand.map((u) => u.updateId)).toEqual([done.updateId]);
    expect(moves.map((u) => u.updateId)).toEqual([done.updateId]);
    const legs = byCommand[0]?.events.filter((e) => e.kind === 'transfer') ?? [];
    expect(legs.map((e) => [e.sender, e.receiver, e.amount.toString()])).toEqual([
      [trader.user.partyId, pool.swapParty, Amount.parse(swap.input.amount).toString()],
      [pool.swapParty, trader.user.partyId, Amount.parse(swap.output.amount).toString()],
    ]);
    // Nor the swap in the books, its update after the checkpoint, for one.
    const at = byCommand[0]?.offset ?? 0;
    expect(await reconciledAt(w, 'before-swap', at - 1)).toBe('ok');
    const usdcx = await balanceOf(w.devnet.ledger, trader.user.partyId, pool.tokenB);
    expect(usdcx.sub(usdcxBefore).toString()).toBe(Amount.parse(swap.output.amount).toString());
    const { books, holdings } = await booksAndHoldings(w.db, w.devnet.ledger, POOL_ID);
    expect(holdings).toEqual(books);
  }

  it('before the ledger has the request: the worker executes it, once', async () => {
    await killedExecuting('request', async () => {});
  }, 60_000);

  it('after the ledger committed it, before the api recorded it: recorded, executed once', async () => {
    await killedExecuting('answer', async (scene, successor) => {
      // Another trader's swap moves the pool first: a new curve check would refuse the killed
      // swap's signed output, but what the ledger committed is recorded as committed.
      const mover = await traderOf(successor, scene.apiKey, scene.bob);
      const moving = await mover.prepared(successor, MOVING_AMOUNT);
      expect((await moving.execute()).body).toMatchObject({ status: 'completed' });
    });
  }, 60_000);
});
