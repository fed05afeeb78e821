/**
 * Developer API keys (docs/spec/auth.md#developer-keys): `pp_test_…` on devnet, `pp_live_…` on
 * mainnet. The full key is shown once; the store keeps only its SHA-256 hash and the first 12
 * characters for display.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Environment } from '../config.js';

const KEY_PREFIX: Readonly<Record<Environment, string>> = {
  devnet: 'pp_test_',
  mainnet: 'pp_live_',
};
/** 32 random bytes: far beyond guessing, and 43 characters of base64url. */
const KEY_SECRET_BYTES = 32;
const KEY_DISPLAY_PREFIX_CHARS = 12;
const KEY_SHAPE = /^pp_(test|live)_[A-Za-z0-9_-]{24,128}$/;

export function generateApiKey(environment: Environment): string {
  return KEY_PREFIX[environment] + randomBytes(KEY_SECRET_BYTES).toString('base64url');
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function displayPrefix(key: string): string {
  return key.slice(0, KEY_DISPLAY_PREFIX_CHARS);
}

export type KeyShape = { readonly environment: Environment } | 'malformed';

/** What a presented key claims to be, before any look-up. */
export function classifyApiKey(key: string): KeyShape {
  const match = KEY_SHAPE.exec(key);
  if (!match) return 'malformed';
  return { environment: match[1] === 'test' ? 'devnet' : 'mainnet' };
}
