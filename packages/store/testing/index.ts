/** What the tests of the store and of the packages built on it share. */
export * from './backends.js';
export * from './intents.js';
export * from './pglite.js';
export * from './postgres.js';
export * from './seed.js';
