/**
 * The rate limits a developer key and a client address get when nothing else is set: an operator
 * raises or lowers a key's own (`poolparty admin keys limits`), which take precedence. The HTTP
 * layer enforces them (http/authenticate.ts).
 */
/** The defaults; a key's own stored limits take precedence. */
export const DEFAULT_RATE_LIMITS = {
  readsPerMin: 1_200,
  swapsPerMin: 60,
  /** Per client address on the wallet-challenge and portal-login steps. */
  loginAttemptsPerMin: 30,
  /**
   * Per client address on the devnet faucet. Every mint is a ledger write and a journal line
   * kept for good; a person, a demo or a test suite funds a few parties at a time, so a burst of
   * 30 and then one every 2 s is room enough, while a loop minting without end is stopped.
   */
  faucetMintsPerMin: 30,
} as const;
