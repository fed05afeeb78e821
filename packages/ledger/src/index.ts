export * from './local/index.js';
export * from './port.js';
