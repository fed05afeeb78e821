/**
 * Drawing a chart with uPlot (a small, maintained canvas chart library): time on the x axis, one
 * series as a line or as bars, axes with ticks and values, and the value under the pointer in
 * the legend. Loaded on demand with its stylesheet, so pages without a chart do not fetch it.
 * Colours come from the page's design tokens, so charts follow the light or dark scheme.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSpec {
  /** Seconds since the epoch, ascending. */
  readonly times: readonly number[];
  /** One value per time; null leaves a gap. */
  readonly values: readonly (number | null)[];
  readonly kind: 'line' | 'bars';
  /** The series' name in the legend, e.g. "Volume (USD)". */
  readonly label: string;
  /** A value as the axis and legend show it. */
  format(value: number): string;
}

export interface DrawnChart {
  resize(width: number): void;
  destroy(): void;
}

const HEIGHT = 220;

function token(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value === '' ? fallback : value;
}

function axisStyle(format?: (value: number) => string): uPlot.Axis {
  const ink = token('--muted', '#545a70');
  return {
    stroke: ink,
    grid: { stroke: token('--line', '#d5d8e4'), width: 1 },
    ticks: { stroke: token('--line', '#d5d8e4'), width: 1 },
    font: '12px system-ui, sans-serif',
    ...(format && {
      size: 64,
      values: (_chart: uPlot, ticks: number[]) => ticks.map((tick) => format(tick)),
    }),
  };
}

export function drawChart(target: HTMLElement, spec: ChartSpec, width: number): DrawnChart {
  const colour = token('--accent', '#4b2bd6');
  const series: uPlot.Series = {
    label: spec.label,
    stroke: colour,
    width: 2,
    fill: spec.kind === 'bars' ? colour : undefined,
    spanGaps: false,
    value: (_chart, value) => (value == null ? '—' : spec.format(value)),
    ...(spec.kind === 'bars' && { paths: uPlot.paths.bars?.({ size: [0.7, 48] }) }),
  };
  const chart = new uPlot(
    {
      width,
      height: HEIGHT,
      scales: { x: { time: true }, y: { range: (_u, min, max) => [Math.min(0, min), max || 1] } },
      axes: [axisStyle(), axisStyle(spec.format)],
      series: [{}, series],
      cursor: { drag: { x: false, y: false } },
    },
    [spec.times as number[], spec.values as (number | null)[]],
    target,
  );
  return {
    resize: (next) => chart.setSize({ width: next, height: HEIGHT }),
    destroy: () => chart.destroy(),
  };
}
