/**
 * The liquidity steps a newcomer takes on a pool page: a devnet party made in the page, funded
 * from the faucet, 100 Amulet (and its USDCx) added and the intent followed to `completed`.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** How long a liquidity intent may take to settle on a busy machine. */
export const LIQUIDITY_SETTLE_MS = 45_000;

export async function addLiquidityOnPoolPage(
  page: Page,
  poolUrl: string,
  partyName: string,
  options: { readonly preapproval?: boolean } = {},
): Promise<void> {
  await page.goto(poolUrl);
  await page.getByLabel('Party name').fill(partyName);
  if (options.preapproval === false) {
    await page.getByRole('checkbox', { name: /pre-approval/ }).uncheck();
  }
  await page.getByRole('button', { name: 'Create a devnet party' }).click();
  await page.getByTestId('party-id').waitFor();
  await page.getByRole('button', { name: 'Get 1000 Amulet' }).click();
  await expect.poll(() => page.getByTestId('balance-Amulet').textContent()).toBe('1,000');
  await page.getByRole('button', { name: 'Get 1000 USDCx (circle)' }).click();
  await page.getByLabel('Amulet', { exact: true }).fill('100');
  await page.getByRole('button', { name: 'Add liquidity', exact: true }).click();
  await page
    .locator('[data-testid="liquidity-intent"][data-state="completed"]')
    .waitFor({ timeout: LIQUIDITY_SETTLE_MS });
}
