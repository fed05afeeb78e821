export * from './canton/index.js';
export * from './local/index.js';
export * from './port.js';
