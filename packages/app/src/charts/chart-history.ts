/**
 * Whether a series can be drawn: a young pool has one hourly figure, and one figure draws a lone
 * dot over empty axes, which reads as a broken chart. Below `CHART_POINTS_MIN` the page says
 * "not enough history yet" and shows the figures instead. Pure.
 */

/** The fewest figures (non-empty hours) a chart is drawn from. */
export const CHART_POINTS_MIN = 2;

export function hasEnoughHistory(values: readonly (number | null)[]): boolean {
  let seen = 0;
  for (const value of values) if (value !== null && Number.isFinite(value)) seen += 1;
  return seen >= CHART_POINTS_MIN;
}
