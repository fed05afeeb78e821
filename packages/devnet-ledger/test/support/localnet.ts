/**
 * LocalNet's HS256 secret and token audience, and the ledger API user the devnet ledger grants
 * every internal party: what the tests serve the devnet ledger with and sign their tokens for.
 */
export const SECRET = 'unsafe';
export const AUDIENCE = 'https://canton.network.global';
export const USER = 'poolparty';
