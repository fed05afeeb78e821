/**
 * Verifying a webhook request: the `PoolParty-Signature` header against the raw body and your
 * endpoint's secret(s), the timestamp against your clock, then the body as an event. Signing is
 * here too, for your own tests: it makes the header the service would send.
 */
import { ValidationError } from '../errors.js';
import { envelopeProblem, type WebhookEvent } from './events.js';
import { constantTimeEqual, hmacSha256, signedBytes, toHex } from './hmac.js';
import { WebhookSignatureError, type WebhookSignatureErrorCode } from './signature-error.js';
import { formatSignatureHeader, parseSignatureHeader } from './signature-header.js';

/** How far a request's `t` may be from your clock, either way, unless you say: five minutes. */
export const WEBHOOK_TOLERANCE_SECONDS_DEFAULT = 300;
/** Secrets one call may try: the current one and those of overlapping rotations. */
export const WEBHOOK_SECRETS_MAX = 8;

/** The raw request body, exactly the bytes received: never JSON parsed and serialised again. */
export type WebhookPayload = string | Uint8Array;
/** An endpoint's secret (`whsec_…`), or several while a rotation overlaps. */
export type WebhookSecret = string | readonly string[];

/** Options of `webhooks.verify`. */
export interface VerifyWebhookOptions {
  /** Seconds a request's `t` may be before or after `now`. Default 300; 0 demands the same second. */
  readonly toleranceSeconds?: number;
  /** The current time in milliseconds since the epoch, as `Date.now()` gives. Default `Date.now()`. */
  readonly now?: number;
}

/** Options of `webhooks.sign`. */
export interface SignWebhookOptions {
  /** The `t` to sign, whole unix seconds. Default: now. */
  readonly timestamp?: number;
}

/**
 * Checks a webhook request and returns its event. Resolves only when the header's `t` is within
 * `toleranceSeconds` of now and one of its `v1` signatures is the HMAC-SHA256 of `"<t>.<payload>"`
 * under one of `secret`; rejects with a `WebhookSignatureError` otherwise, and with a
 * `ValidationError` for a call that cannot be checked (no secret, a negative tolerance).
 *
 * @param payload - The raw body as received (string or bytes), not the body parsed and serialised again.
 * @param header - The `PoolParty-Signature` header's value; null or undefined when it is absent.
 * @param secret - The endpoint's secret, or its secrets during a rotation.
 */
export async function verify(
  payload: WebhookPayload,
  header: string | null | undefined,
  secret: WebhookSecret,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const secrets = checkSecrets(secret);
  checkPayload(payload);
  const tolerance = checkTolerance(options.toleranceSeconds);
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  if (typeof header !== 'string' || header.trim() === '') {
    throw refusal('webhook_signature_missing', 'No PoolParty-Signature header');
  }
  const parsed = parseSignatureHeader(header);
  if ('problem' in parsed) {
    throw refusal('webhook_signature_malformed', 'Malformed PoolParty-Signature header', {
      details: parsed.problem,
    });
  }
  const { timestamp, signatures } = parsed;
  if (Math.abs(nowSeconds - timestamp) > tolerance) {
    const direction = timestamp < nowSeconds ? 'ago' : 'ahead';
    throw refusal('webhook_timestamp_out_of_tolerance', 'Webhook timestamp outside the tolerance', {
      timestamp,
      details: `t is ${Math.abs(nowSeconds - timestamp)} s ${direction}; the tolerance is ${tolerance} s`,
    });
  }
  const message = signedBytes(timestamp, payload);
  let matched = false;
  for (const candidate of secrets) {
    const expected = toHex(await hmacSha256(candidate, message));
    // Every pair is compared, a match or not, so the time taken does not say which one matched.
    for (const signature of signatures) matched = constantTimeEqual(expected, signature) || matched;
  }
  if (!matched) {
    throw refusal('webhook_signature_mismatch', 'No webhook signature matches the secret', {
      timestamp,
      details: `${signatures.length} v1 signature(s) checked against ${secrets.length} secret(s)`,
    });
  }
  return parseEvent(payload, timestamp);
}

/**
 * The `PoolParty-Signature` header the service would send with `payload`: one `v1` per secret.
 * For tests of your own handler; the service signs its requests itself.
 */
export async function sign(
  payload: WebhookPayload,
  secret: WebhookSecret,
  options: SignWebhookOptions = {},
): Promise<string> {
  const secrets = checkSecrets(secret);
  checkPayload(payload);
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw invalid('timestamp must be whole unix seconds ≥ 0');
  }
  const message = signedBytes(timestamp, payload);
  const signatures: string[] = [];
  for (const candidate of secrets) signatures.push(toHex(await hmacSha256(candidate, message)));
  return formatSignatureHeader(timestamp, signatures);
}

function parseEvent(payload: WebhookPayload, timestamp: number): WebhookEvent {
  let value: unknown;
  try {
    const text = typeof payload === 'string' ? payload : utf8.decode(payload);
    value = JSON.parse(text);
  } catch (cause) {
    throw refusal('webhook_payload_invalid', 'The webhook body is not JSON', { timestamp, cause });
  }
  const problem = envelopeProblem(value);
  if (problem !== null) {
    throw refusal('webhook_payload_invalid', 'The webhook body is not a PoolParty event', {
      timestamp,
      details: problem,
    });
  }
  return value as WebhookEvent;
}

/** Decodes strictly: a body that is not UTF-8 is not JSON. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function checkSecrets(secret: WebhookSecret): readonly string[] {
  const secrets: readonly unknown[] = typeof secret === 'string' ? [secret] : secret;
  if (!Array.isArray(secrets) || secrets.length === 0 || secrets.length > WEBHOOK_SECRETS_MAX) {
    throw invalid(`secret must be a string or 1 to ${WEBHOOK_SECRETS_MAX} strings`);
  }
  if (secrets.some((one) => typeof one !== 'string' || one === '')) {
    throw invalid('every secret must be a non-empty string');
  }
  return secrets as readonly string[];
}

function checkPayload(payload: unknown): void {
  if (typeof payload !== 'string' && !(payload instanceof Uint8Array)) {
    throw invalid('payload must be the raw body: a string or a Uint8Array (a Buffer is one)');
  }
}

function checkTolerance(toleranceSeconds: number | undefined): number {
  const tolerance = toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS_DEFAULT;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw invalid('toleranceSeconds must be a finite number ≥ 0');
  }
  return tolerance;
}

function refusal(
  code: WebhookSignatureErrorCode,
  shortMessage: string,
  extra: { timestamp?: number; details?: string; cause?: unknown } = {},
): WebhookSignatureError {
  return new WebhookSignatureError(shortMessage, { code, ...extra });
}

function invalid(message: string): ValidationError {
  return new ValidationError(`webhooks: ${message}`, { code: 'validation_error' });
}
