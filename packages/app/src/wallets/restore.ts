/**
 * Reconnecting the wallet of an earlier visit, so a reload (of a swap's progress page above all)
 * resumes without asking: the devnet party kept in this browser, or a Canton wallet the page
 * still has a provider for (`window.canton`). Which one was last used is remembered here.
 */
import type { Devnet } from '@poolparty/sdk/devnet';
import type { AppConfig } from '../config.js';
import { BrowserDevnetWallet, storedKeyFile } from './devnet-wallet.js';
import type { Wallet } from './wallet.js';

const LAST_WALLET_KEY = 'poolparty.lastWallet';

export function rememberWallet(wallet: Wallet | null, storage: Storage = localStorage): void {
  if (wallet === null) storage.removeItem(LAST_WALLET_KEY);
  else storage.setItem(LAST_WALLET_KEY, wallet.kind);
}

/** Whether there is a wallet to reconnect (so the page can say it is reconnecting). */
export function hasWalletToRestore(
  devnet: Devnet | null,
  storage: Storage = localStorage,
): boolean {
  const last = storage.getItem(LAST_WALLET_KEY);
  if (last === 'canton') return window.canton !== undefined;
  return devnet !== null && storedKeyFile(storage) !== null;
}

/** The wallet of the earlier visit, connected; null when there is none or it cannot connect. */
export async function restoreWallet(
  config: AppConfig,
  devnet: Devnet | null,
  storage: Storage = localStorage,
): Promise<Wallet | null> {
  const last = storage.getItem(LAST_WALLET_KEY);
  if (last === 'canton') {
    if (window.canton === undefined) return null;
    const { connectCantonWallet } = await import('./canton-wallet.js');
    return connectCantonWallet(config.cantonRegistries, { timeoutMs: 20_000 });
  }
  const keyFile = storedKeyFile(storage);
  if (devnet === null || keyFile === null) return null;
  const wallet = new BrowserDevnetWallet(devnet, keyFile, storage);
  await wallet.connect();
  return wallet;
}
