/**
 * Idempotency keys for the POSTs the service deduplicates (docs/spec/protocol.md#idempotency):
 * one per call, the caller's or a new one, reused by every retry of that call, so that a retry
 * after a lost response replays the first answer instead of acting twice.
 */
import { ValidationError } from '../errors.js';

/**
 * What the service accepts: 1 to 255 printable ASCII characters, no spaces (core's
 * `IdempotencyKeySchema`, which a test holds this to).
 */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;

/** The caller's key, checked before anything is sent, or a new one. */
export function idempotencyKeyOf(given: string | undefined): string {
  if (given === undefined) return newIdempotencyKey();
  if (IDEMPOTENCY_KEY_PATTERN.test(given)) return given;
  throw new ValidationError('Invalid idempotencyKey: 1 to 255 printable ASCII characters', {
    code: 'validation_error',
  });
}

/** A random UUID v4. `crypto.randomUUID` exists only in secure contexts; `getRandomValues` always. */
function newIdempotencyKey(): string {
  const webCrypto = globalThis.crypto;
  if (typeof webCrypto.randomUUID === 'function') return webCrypto.randomUUID();
  const bytes = webCrypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
