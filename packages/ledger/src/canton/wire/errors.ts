import { BaseError } from '@poolparty/core';

/** Why a Canton JSON value could not be read; stable, for callers that map it to their errors. */
export type CantonWireErrorCode =
  /** Not a Daml `Numeric` the port can hold (malformed, negative, more than 10 decimals). */
  | 'invalid_decimal'
  /** Not an RFC 3339 timestamp. */
  | 'invalid_time'
  /** A required field is missing or has the wrong JSON type. */
  | 'malformed'
  /**
   * A transaction accepts, rejects or withdraws a transfer instruction whose details are not
   * in the transaction and that the caller could not supply (see `OfferLookup`).
   */
  | 'unknown_offer';

export class CantonWireError extends BaseError<CantonWireErrorCode> {
  override readonly name = 'CantonWireError';
  constructor(code: CantonWireErrorCode, message: string) {
    super(code, message);
  }
}
