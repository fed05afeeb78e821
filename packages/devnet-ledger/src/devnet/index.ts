/**
 * The devnet without its server: the seed kept in a data folder's `devnet.json`, the `/devnet`
 * conveniences as operations on a local ledger with the reading of the requests that act for a
 * party, and the `/devnet` endpoints over them (each its schema and handler). The service in
 * devnet mode and the devnet ledger server both stand on these.
 */
export * from './endpoints.js';
export * from './operations.js';
export * from './seed-file.js';
export { keepRawJsonBodies, signedRequestOf } from './signed-requests.js';
