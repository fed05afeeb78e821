/**
 * HMAC-SHA256 over WebCrypto (`globalThis.crypto.subtle`), present in Node ≥ 20, browsers, Deno,
 * Bun and edge runtimes, so verifying needs no `node:crypto` and no dependency.
 */

const encoder = new TextEncoder();

/** The bytes the service signs: `"<t>."` then the raw body, exactly as received. */
export function signedBytes(timestamp: number, payload: string | Uint8Array): Uint8Array {
  const head = encoder.encode(`${timestamp}.`);
  const body = typeof payload === 'string' ? encoder.encode(payload) : payload;
  const bytes = new Uint8Array(head.length + body.length);
  bytes.set(head, 0);
  bytes.set(body, head.length);
  return bytes;
}

/** The HMAC-SHA256 of `message` keyed by the secret string's UTF-8 bytes. */
export async function hmacSha256(secret: string, message: Uint8Array): Promise<Uint8Array> {
  const subtle = globalThis.crypto?.subtle;
  if (subtle === undefined) {
    throw new TypeError('WebCrypto (globalThis.crypto.subtle) is not available on this platform');
  }
  const key = await subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return new Uint8Array(await subtle.sign('HMAC', key, message as Uint8Array<ArrayBuffer>));
}

export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/**
 * Whether two hex strings of the same length are equal, reading every character whatever differs
 * first: how long the comparison takes tells an attacker nothing about how much of a forged
 * signature is right.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index += 1) {
    difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  }
  return difference === 0;
}
