/**
 * The devnet without its server: the `/devnet` conveniences as operations on a local ledger, and
 * the reading of the requests that act for a party. The service's devnet routes and the devnet
 * ledger server's both stand on these.
 */
export * from './operations.js';
export { keepRawJsonBodies, signedRequestOf } from './signed-requests.js';
