/**
 * A newcomer's devnet party as the wallet panel makes it: a name typed, "Create a devnet party",
 * and 1000 Amulet from the faucet button, each waited for on the page.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** Creates the party on the page open; its party id. */
export async function createDevnetParty(page: Page, name: string): Promise<string> {
  await page.getByLabel('Party name').fill(name);
  await page.getByRole('button', { name: 'Create a devnet party' }).click();
  const party = page.getByTestId('party-id');
  await party.waitFor();
  return (await party.textContent()) ?? '';
}

export async function fundAmulet(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Get 1000 Amulet' }).click();
  await expect.poll(() => page.getByTestId('balance-Amulet').textContent()).toBe('1,000');
}
