/**
 * The `PoolParty-Signature` header: `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`. One `v1` per secret
 * that signed the request (two while a rotation's overlap lasts). Entries of another scheme
 * (`v0=…`, or one added later) are skipped, so a receiver keeps working when the service signs
 * with a new scheme beside `v1`; anything that is not `name=value` is refused.
 */

/** The one signature scheme this SDK checks: HMAC-SHA256, hex. */
export const SIGNATURE_SCHEME = 'v1';
/** A header longer than this is refused unread: the service's carry two signatures. */
export const SIGNATURE_HEADER_CHARS_MAX = 4096;
/** Entries one header may carry, every scheme counted. */
export const SIGNATURE_ENTRIES_MAX = 16;

const ENTRY_NAME = /^[A-Za-z0-9_-]+$/;
const UNIX_SECONDS = /^\d{1,15}$/;
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/** What a well-formed header says. */
export interface SignatureHeader {
  /** `t`, unix seconds. */
  readonly timestamp: number;
  /** The `v1` signatures, lowercase hex, in header order. */
  readonly signatures: readonly string[];
}

/** Why a header cannot be read, for the error's details. */
export type HeaderProblem = { readonly problem: string };

/** Reads a header value; a problem when it is not one `t` and at least one `v1`. */
export function parseSignatureHeader(header: string): SignatureHeader | HeaderProblem {
  if (header.length > SIGNATURE_HEADER_CHARS_MAX) {
    return { problem: `longer than ${SIGNATURE_HEADER_CHARS_MAX} characters` };
  }
  const entries = header.split(',');
  if (entries.length > SIGNATURE_ENTRIES_MAX) {
    return { problem: `more than ${SIGNATURE_ENTRIES_MAX} entries` };
  }
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const entry of entries) {
    const at = entry.indexOf('=');
    const name = entry.slice(0, at).trim();
    const value = entry.slice(at + 1).trim();
    if (at < 0 || !ENTRY_NAME.test(name) || value === '') {
      return { problem: `an entry is not name=value: ${JSON.stringify(entry.slice(0, 40))}` };
    }
    if (name === 't') {
      if (timestamp !== null) return { problem: 'more than one t' };
      if (!UNIX_SECONDS.test(value)) return { problem: 't is not whole unix seconds' };
      timestamp = Number(value);
    } else if (name === SIGNATURE_SCHEME) {
      if (!HEX_SHA256.test(value)) return { problem: 'a v1 is not 64 hex digits' };
      signatures.push(value.toLowerCase());
    }
  }
  if (timestamp === null) return { problem: 'no t' };
  if (signatures.length === 0) return { problem: 'no v1 signature' };
  return { timestamp, signatures };
}

/** The header value for `timestamp` and the signatures, in order. */
export function formatSignatureHeader(timestamp: number, signatures: readonly string[]): string {
  return [`t=${timestamp}`, ...signatures.map((hex) => `${SIGNATURE_SCHEME}=${hex}`)].join(',');
}
