/**
 * The devnet without its server: the seed kept in a data folder's `devnet.json`, and the
 * `/devnet` conveniences as operations on a local ledger with the reading of the requests that act
 * for a party. The service in devnet mode and the devnet ledger server both stand on these.
 */
export * from './operations.js';
export * from './seed-file.js';
export { keepRawJsonBodies, signedRequestOf } from './signed-requests.js';
