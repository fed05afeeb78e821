export * from './amount.js';
export * from './fingerprint.js';
export * from './instrument.js';
export * from './pricing.js';
export * from './ratio.js';
export * from './settlement-safety.js';
export * from './swap-state.js';
