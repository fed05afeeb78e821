/**
 * The error `webhooks.verify` rejects with. It lives in the webhooks entry, not in the main
 * catalogue module: a receiver imports only this entry, and the main browser bundle, which never
 * verifies, does not carry it. Like every SDK error it answers `instanceof` by brand, so it is a
 * `PoolPartyError` of any copy of the SDK.
 */
import type { SdkErrorClassName } from '../errors.js';
import { PoolPartyError, type PoolPartyErrorOptions } from '../errors.js';

/**
 * Why `webhooks.verify` refused a request: no `PoolParty-Signature` header, a header that is not
 * `t=<seconds>,v1=<hex>…`, a `t` too far from the receiver's clock (either way), no `v1` made with
 * any of the secrets, or a body that is no PoolParty event.
 */
export type WebhookSignatureErrorCode =
  | 'webhook_signature_missing'
  | 'webhook_signature_malformed'
  | 'webhook_timestamp_out_of_tolerance'
  | 'webhook_signature_mismatch'
  | 'webhook_payload_invalid';

/**
 * A webhook request failed verification: answer it 400 and do not act on it. `code` says why;
 * `timestamp` is the header's `t` when it could be read.
 */
export class WebhookSignatureError extends PoolPartyError {
  static override readonly errorName: SdkErrorClassName = 'WebhookSignatureError';
  declare readonly code: WebhookSignatureErrorCode;
  /** The header's `t` (unix seconds); null when the header had none that could be read. */
  readonly timestamp: number | null;

  /**
   * @param shortMessage - One line saying what went wrong.
   * @param options - The reason's code, the header's timestamp, details and cause.
   */
  constructor(
    shortMessage: string,
    options: Omit<PoolPartyErrorOptions, 'code' | 'status' | 'requestId' | 'body'> & {
      readonly code: WebhookSignatureErrorCode;
      readonly timestamp?: number | null;
    },
  ) {
    super(shortMessage, options);
    this.timestamp = options.timestamp ?? null;
  }
}
