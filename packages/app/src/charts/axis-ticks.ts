/**
 * A value axis' labels: a price that moves little (0.00000131 to 0.00000133 CBTC per Amulet)
 * read with three significant digits gives the same label to several ticks, so each tick gets
 * the fewest digits from three on that tell the ticks apart; and the axis is as wide as its
 * longest label, so none is cut at the chart's edge. Pure.
 */

/** The most significant digits a tick is given to tell it from its neighbours. */
export const TICK_DIGITS_MAX = 8;
const TICK_DIGITS_MIN = 3;
/** An axis label's width per character and the room beside it, in CSS pixels (12 px font). */
const CHAR_PX = 7.5;
const AXIS_PADDING_PX = 18;
const AXIS_PX_MIN = 40;

export function tickLabels(
  ticks: readonly number[],
  format: (value: number, digits?: number) => string,
): string[] {
  for (let digits = TICK_DIGITS_MIN; digits < TICK_DIGITS_MAX; digits++) {
    const labels = ticks.map((tick) => format(tick, digits));
    if (new Set(labels).size === labels.length) return labels;
  }
  return ticks.map((tick) => format(tick, TICK_DIGITS_MAX));
}

/** The axis' width for its labels: the longest one, and room for the ticks. */
export function axisWidth(labels: readonly string[] | null | undefined): number {
  const longest = Math.max(0, ...(labels ?? []).map((label) => label.length));
  return Math.max(AXIS_PX_MIN, Math.ceil(longest * CHAR_PX + AXIS_PADDING_PX));
}
