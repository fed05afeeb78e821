/**
 * "Send this swap's deposit as soon as its page opens": set by the swap form when it creates the
 * intent, taken (once) by the progress page. Kept in sessionStorage, so it belongs to this tab
 * and a reload after it was taken does not send a second deposit.
 */
const PREFIX = 'poolparty.depositRequested.';

export function requestDeposit(intentId: string, storage: Storage = sessionStorage): void {
  storage.setItem(PREFIX + intentId, '1');
}

/** True once for a requested deposit: the request is removed as it is taken. */
export function takeDepositRequest(intentId: string, storage: Storage = sessionStorage): boolean {
  const key = PREFIX + intentId;
  if (storage.getItem(key) === null) return false;
  storage.removeItem(key);
  return true;
}
