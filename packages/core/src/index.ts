export * from './amount.js';
export * from './pricing.js';
export * from './ratio.js';
