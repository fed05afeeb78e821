/**
 * A token-standard instrument: the same symbol (`id`) can exist under several admins, so an
 * instrument is only ever identified by both.
 */
export interface Instrument {
  /** The instrument admin's party id, e.g. `DSO::1220…` for Amulet. */
  readonly admin: string;
  /** The symbol, e.g. `Amulet`, `USDCx`. */
  readonly id: string;
}

export function sameInstrument(a: Instrument, b: Instrument): boolean {
  return a.admin === b.admin && a.id === b.id;
}

/** A stable map key for an instrument. */
export function instrumentKey(instrument: Instrument): string {
  return `${instrument.id}@${instrument.admin}`;
}
