/**
 * What tests of the engine, and of the service around it, build on: a seeded local ledger and a
 * store with an engine over them, and a swap run through it to completion (engine.ts); swaps set
 * up as `POST /v1/swaps` would make them, deposits as wallets make them, and the books held
 * against the ledger (scale-out.ts); a crash at a step and a ledger that fails one way
 * (faults.ts); the harness on a fresh PostgreSQL schema that one or more processes open
 * (postgres-harness.ts); every kind of deposit to an LP party nobody asked for, and what must
 * hold after them (unasked-deposits.ts).
 */
export * from './counting-database.js';
export * from './engine.js';
export * from './faults.js';
export * from './holdings.js';
export * from './liquidity.js';
export * from './postgres-harness.js';
export * from './scale-out.js';
export * from './unasked-deposits.js';
