/**
 * Choosing a side's token on the swap card as a user does: open the side's token dialog, search,
 * and pick the option. `token` is a symbol (the first option with exactly that symbol) or a
 * `symbol|admin` key (that very token).
 */
import type { Page } from 'playwright-core';

export type SwapSide = 'You send' | 'You receive';

export function tokenButton(page: Page, side: SwapSide) {
  return page.getByRole('button', { name: new RegExp(`^${side}`) });
}

/** The `symbol|admin` key of the side's chosen token. */
export async function chosenToken(page: Page, side: SwapSide): Promise<string> {
  return (await tokenButton(page, side).getAttribute('data-token')) ?? '';
}

export async function chooseToken(page: Page, side: SwapSide, token: string): Promise<void> {
  const [symbol = token] = token.split('|');
  await tokenButton(page, side).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('combobox').fill(symbol);
  const option = token.includes('|')
    ? dialog.locator(`[role="option"][data-token="${token}"]`)
    : dialog.locator(`[role="option"][data-token^="${symbol}|"]`).first();
  await option.click();
  await dialog.waitFor({ state: 'detached' });
}
