/**
 * A page whose service answers an atomic swap's prepare as a service on a ledger without
 * interactive submission does (501, `atomic_swaps_unavailable`, the catalogue's problem): the
 * card then swaps by deposit. For the tests of the deposit flow with the devnet wallet, which
 * the card would otherwise swap atomically.
 */
import { problemBody } from '@poolparty/core/problems';
import type { Page } from 'playwright-core';

export async function swapByDeposit(page: Page): Promise<void> {
  await page.route('**/v1/atomic-swaps', async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    const body = problemBody(
      'atomic_swaps_unavailable',
      'The ledger prepares no transaction for a wallet to sign.',
      {},
      'test-deposit-only',
    );
    await route.fulfill({
      status: 501,
      contentType: 'application/problem+json',
      body: JSON.stringify(body),
    });
  });
}

/**
 * A page's console errors but the browser's own line for the 501 above, which is the answer the
 * page is meant to get (Chromium logs every response of an error status).
 */
export function besidesDepositOnlyAnswer(errors: readonly string[]): string[] {
  return errors.filter((error) => !/status of 501 \(Not Implemented\)/.test(error));
}
