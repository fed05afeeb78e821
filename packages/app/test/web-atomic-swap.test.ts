/**
 * The swap card's atomic swaps in Chromium against a running service: with the devnet wallet the
 * card prepares the swap, shows both legs and the time left to sign before anything is signed,
 * signs with Enter and shows the swap completed with its ledger update, the trader's and the
 * pool's holdings and books moved by exactly the signed amounts, and the party's swaps listing
 * it; a swap the price moved under ends with nothing moved and "Get a new price" prepares it
 * anew; a swap that ends while the user is elsewhere is toasted, its link opening the swap's page
 * (for anyone with it); Cancel lets a prepared swap go; and a service that prepares no atomic
 * swaps (so configured, or answering 501) has the card swap by deposit, saying so. At 1280 and
 * 390 px, with no console error and no serious axe finding.
 */
import { Amount } from '@poolparty/core/amount';
import { PoolParty } from '@poolparty/sdk';
import type { AtomicSwap } from '@poolparty/sdk/atomic';
import { Devnet } from '@poolparty/sdk/devnet';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DEPOSIT_ONLY_SERVICE } from '../src/swap-path.js';
import { appSuite } from './support/app-suite.js';
import {
  answerAtomicSwapsUnavailable,
  besidesUnavailableAnswer,
  swapByDeposit,
} from './support/deposit-only.js';
import { createDevnetParty, fundAmulet } from './support/devnet-party.js';
import { holdRequests, toastAfterLeaving } from './support/held-requests.js';
import { checkPage, newWatchedPage } from './support/page-checks.js';
import { signedInWallet } from './support/signed-in-wallet.js';

const SETTLE_MS = 45_000;
/** The pool of the card's default pair, Amulet → CBTC. */
const POOL = 'amulet-cbtc';

describe('atomic swaps on the swap card', () => {
  const { t, browser, contexts } = appSuite();
  const devnet = () => new Devnet(t.url);
  const pools = () => new PoolParty({ apiKey: t.apiKey, environment: 'devnet', baseUrl: t.url });

  /** A funded newcomer on `/swap` with `amount` Amulet entered and quoted. */
  async function readyToSwap(width: number, name: string, amount = '100') {
    const watched = await newWatchedPage(browser, contexts, width);
    const { page } = watched;
    await page.goto(`${t.url}/swap`);
    const partyId = await createDevnetParty(page, name);
    await fundAmulet(page);
    await page.getByLabel(/^Amount/).fill(amount);
    await page.getByTestId('output-amount').waitFor();
    await expect.poll(() => page.getByTestId('swap-button').textContent()).toBe('Swap');
    return { ...watched, partyId };
  }

  /** The prepared swap as the service answered it, once the review shows it. */
  async function review(page: Page): Promise<AtomicSwap> {
    const prepared = page.waitForResponse(
      (r) => r.url().endsWith('/v1/atomic-swaps') && r.request().method() === 'POST',
    );
    await page.getByTestId('swap-button').click();
    const swap = (await (await prepared).json()) as AtomicSwap;
    await page.locator('[data-testid="atomic-swap"][data-stage="review"]').waitFor();
    return swap;
  }

  function holdingOf(balances: { token: string; amount: string }[], token: string): Amount {
    return Amount.parse(balances.find((b) => b.token === token)?.amount ?? '0');
  }
  const reserve = (side: { reserve: string }) => Amount.parse(side.reserve);
  const hundred = Amount.parse('100');
  const expectAmount = (actual: Amount, expected: Amount) =>
    expect(actual.toString()).toBe(expected.toString());

  it('shows both legs and the time left, signs with Enter, and completes with the exact amounts moved', async () => {
    for (const width of [1280, 390]) {
      const { page, errors, csp, partyId } = await readyToSwap(width, `atomic${width}`);
      expect(await page.getByTestId('swap-path-note').count()).toBe(0);
      const poolBefore = await pools().pools.get(POOL);
      const ledgerBefore = await devnet().holdings(poolBefore.swapAddress);
      const swap = await review(page);

      expect(await page.getByTestId('atomic-send').textContent()).toBe(
        'You send exactly 100 Amulet to the pool',
      );
      const receive = await page.getByTestId('atomic-receive').textContent();
      expect(receive).toMatch(/^You receive [\d.]+ CBTC$/);
      expectAmount(Amount.parse(receive?.split(' ')[2] ?? ''), Amount.parse(swap.output.amount));
      expect(await page.getByTestId('atomic-expiry').textContent()).toMatch(
        /^Sign within [01]:\d\d: after that/,
      );
      await checkPage(page, width, 'atomic-review');

      // The one button has the focus: Enter signs.
      await page.getByTestId('atomic-sign').focus();
      await page.keyboard.press('Enter');
      const outcome = page.locator('[data-testid="atomic-outcome"][data-state="completed"]');
      await outcome.waitFor({ timeout: SETTLE_MS });
      expect(await page.getByTestId('atomic-update').textContent()).not.toBe('');
      // The party's swaps list it, linking its page.
      const listed = page.getByTestId('history').locator('li[data-kind="atomic"]');
      await listed.waitFor();
      expect(await listed.locator('[data-state="completed"]').count()).toBe(1);
      expect(await listed.locator('a').getAttribute('href')).toBe(`/swaps/${swap.atomicSwapId}`);
      // The list and the result say the same received amount, to every decimal.
      const received = (await page.getByTestId('atomic-moved').textContent())?.match(
        /received ([\d.,]+) CBTC/,
      )?.[1];
      expect(received).toBeDefined();
      expect(await listed.textContent()).toContain(`received ${received} CBTC`);
      await checkPage(page, width, 'atomic-completed');

      // The trader's holdings moved by exactly the signed legs…
      const trader = await devnet().holdings(partyId);
      const output = Amount.parse(swap.output.amount);
      expectAmount(holdingOf(trader, 'Amulet'), Amount.parse('900'));
      expectAmount(holdingOf(trader, 'CBTC'), output);
      // …and so did the pool's swap party on the ledger and the pool's books.
      const ledgerAfter = await devnet().holdings(poolBefore.swapAddress);
      expectAmount(
        holdingOf(ledgerAfter, 'Amulet'),
        holdingOf(ledgerBefore, 'Amulet').add(hundred),
      );
      expectAmount(holdingOf(ledgerAfter, 'CBTC').add(output), holdingOf(ledgerBefore, 'CBTC'));
      const poolAfter = await pools().pools.get(POOL);
      const { inputAmountAfterPoolFee, lpFeeAmount } = swap.fees;
      const kept = Amount.parse(inputAmountAfterPoolFee).add(Amount.parse(lpFeeAmount));
      expectAmount(reserve(poolAfter.tokenA), reserve(poolBefore.tokenA).add(kept));
      expectAmount(reserve(poolAfter.tokenB).add(output), reserve(poolBefore.tokenB));
      expect(errors).toEqual([]);
      expect(csp).toEqual([]);
    }
  });

  it('ends with nothing moved when the price moved before signing, and "Get a new price" prepares again', async () => {
    const { page, errors, partyId } = await readyToSwap(1280, 'atomic-moved');
    await page.getByTestId('slippage-toggle').click();
    await page.getByLabel('Slippage limit (%)').fill('0.1');
    const first = await review(page);
    // Another trader's large swap in the same direction commits first.
    const other = await signedInWallet(t, 'atomic-mover');
    await other.wallet.fund('Amulet', '20000');
    const theirs = await other.pp.swaps.create({
      fromToken: 'Amulet',
      toToken: 'CBTC',
      amount: '10000',
      poolId: POOL,
      slippageTolerance: 0.05,
    });
    await other.wallet.deposit(theirs);
    // Resolves once it completed (a refund would reject).
    await theirs.wait();
    await page.getByTestId('atomic-sign').focus();
    await page.keyboard.press('Enter');
    const moved = page.locator('[data-testid="atomic-outcome"][data-state="price_moved"]');
    await moved.waitFor({ timeout: SETTLE_MS });
    expectAmount(holdingOf(await devnet().holdings(partyId), 'Amulet'), Amount.parse('1000'));
    await checkPage(page, 1280, 'atomic-price-moved');

    const again = page.waitForResponse(
      (r) => r.url().endsWith('/v1/atomic-swaps') && r.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Get a new price' }).click();
    const second = (await (await again).json()) as AtomicSwap;
    await page.locator('[data-testid="atomic-swap"][data-stage="review"]').waitFor();
    expect(second.atomicSwapId).not.toBe(first.atomicSwapId);
    expect(Amount.parse(second.output.amount).lt(Amount.parse(first.output.amount))).toBe(true);
    expect(errors).toEqual([]);
  });

  it('toasts a swap that ends while the user is on another page; its link opens the swap, for anyone', async () => {
    const { page, errors } = await readyToSwap(390, 'atomic-toast');
    const swap = await review(page);
    // The signature is held until the user has gone to another page, so the swap ends there.
    const release = await holdRequests(page, '**/execute');
    await page.getByTestId('atomic-sign').click();
    const toast = await toastAfterLeaving(page, t.url, release, SETTLE_MS);
    expect(await toast.textContent()).toMatch(/^Swap completed: 100 Amulet → CBTC/);
    await toast.getByRole('link').click();
    await page.waitForURL(`${t.url}/swaps/${swap.atomicSwapId}`);
    await page.locator('[data-testid="atomic-outcome"][data-state="completed"]').waitFor();
    const update = await page.getByTestId('atomic-update').textContent();
    expect(update).not.toBe('');
    await checkPage(page, 390, 'atomic-swap-page');
    // Its link shows the same swap to someone without its wallet.
    const other = await newWatchedPage(browser, contexts, 390);
    await other.page.goto(page.url());
    await other.page.locator('[data-testid="atomic-outcome"][data-state="completed"]').waitFor();
    expect(await other.page.getByTestId('atomic-update').textContent()).toBe(update);
    expect(errors).toEqual([]);
    expect(other.errors).toEqual([]);
  });

  it('lets a prepared swap go with Cancel, back to the card, and nothing moved', async () => {
    const { page, errors, partyId } = await readyToSwap(390, 'atomic-cancel');
    const swap = await review(page);
    const cancelled = page.waitForResponse((r) =>
      r.url().endsWith(`/v1/atomic-swaps/${swap.atomicSwapId}/cancel`),
    );
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    expect(((await (await cancelled).json()) as AtomicSwap).status).toBe('cancelled');
    await page.getByTestId('swap-button').waitFor();
    expect(await page.getByTestId('swap-button').textContent()).toBe('Swap');
    expectAmount(holdingOf(await devnet().holdings(partyId), 'Amulet'), Amount.parse('1000'));
    expect(errors).toEqual([]);
  });

  it('swaps by deposit when the service answers that it prepares no atomic swaps, and says so on the card', async () => {
    for (const width of [1280, 390]) {
      const watched = await newWatchedPage(browser, contexts, width);
      const { page, errors } = watched;
      await answerAtomicSwapsUnavailable(page);
      await page.goto(`${t.url}/swap`);
      await createDevnetParty(page, `by-deposit${width}`);
      await fundAmulet(page);
      await page.getByLabel(/^Amount/).fill('100');
      await page.getByTestId('output-amount').waitFor();
      expect(await page.getByTestId('swap-path-note').count()).toBe(0);
      await page.getByTestId('swap-button').click();
      await page.waitForURL(/\/swaps\/[^/]+$/, { timeout: SETTLE_MS });
      await page
        .locator('[data-testid="swap-status"][data-state="completed"]')
        .waitFor({ timeout: SETTLE_MS });
      // Back on the card, it says the swap goes by deposit before the next one.
      await page.getByRole('link', { name: 'Swap', exact: true }).click();
      await expect
        .poll(() => page.getByTestId('swap-path-note').textContent())
        .toBe(DEPOSIT_ONLY_SERVICE);
      await checkPage(page, width, 'swap-by-deposit');
      expect(besidesUnavailableAnswer(errors)).toEqual([]);
    }
  });

  it('says the swap goes by deposit before the first one where the service has no atomic swaps', async () => {
    const { page, errors } = await newWatchedPage(browser, contexts, 390);
    await swapByDeposit(page);
    await page.goto(`${t.url}/swap`);
    await createDevnetParty(page, 'told-deposit');
    expect(await page.getByTestId('swap-path-note').textContent()).toBe(DEPOSIT_ONLY_SERVICE);
    expect(errors).toEqual([]);
  });
});
