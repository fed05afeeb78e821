export * from './local/index.js';
export * from './port.js';
export * from './canton/index.js';
