/**
 * The settlement-safety verdict shared by quotes, swap creation and execution
 * (docs/spec/guard.md#verdict). The codes are a closed set: clients switch on them.
 */
export const SETTLEMENT_SAFETY_CODES = [
  'output_reserve_share_exceeded',
  'output_velocity_exceeded',
  'reserve_price_deviation_exceeded',
  'reference_price_deviation_exceeded',
  'incomplete_completed_accounting',
  'invalid_output_reserve',
  'invalid_execution_price',
  'settlement_safety_guard_unavailable',
] as const;

export type SettlementSafetyCode = (typeof SETTLEMENT_SAFETY_CODES)[number];

/** Why a swap would be blocked: `reason` is machine-readable (`share=0.1432 limit=0.1`). */
export interface SettlementSafety {
  readonly code: SettlementSafetyCode;
  readonly reason: string;
  readonly message: string;
  /**
   * With the two price-deviation codes: the deviation the pool's price would end at and the
   * limit, decimal fractions (`0.0763`, `0.05`), the same figures as in `reason`.
   */
  readonly deviation?: string;
  readonly limit?: string;
}
