/**
 * Drawing a chart with uPlot (a small, maintained canvas chart library): time on the x axis, one
 * series as a line or as bars, axes with ticks and values, and the value under the pointer in
 * the legend. Loaded on demand with its stylesheet, so pages without a chart do not fetch it.
 * Colours come from the page's design tokens, so charts follow the light or dark scheme.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { axisWidth, tickLabels } from './axis-ticks.js';

export interface ChartSpec {
  /** Seconds since the epoch, ascending. */
  readonly times: readonly number[];
  /** One value per time; null leaves a gap. */
  readonly values: readonly (number | null)[];
  readonly kind: 'line' | 'bars';
  /** The series' name in the legend, e.g. "Volume (USD)". */
  readonly label: string;
  /** The window shown, seconds since the epoch; the data's own span when absent. */
  readonly window?: readonly [number, number];
  /** Whether the value axis starts at zero (amounts, counts) or fits the data (prices). */
  readonly fromZero: boolean;
  /** A value as the axis and legend show it; `digits` significant digits where the axis asks. */
  format(value: number, digits?: number): string;
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

function axisStyle(format?: (value: number, digits?: number) => string): uPlot.Axis {
  const ink = token('--muted', '#545a70');
  return {
    stroke: ink,
    grid: { stroke: token('--line', '#d5d8e4'), width: 1 },
    ticks: { stroke: token('--line', '#d5d8e4'), width: 1 },
    font: '12px system-ui, sans-serif',
    ...(format && {
      size: (_chart: uPlot, labels: string[]) => axisWidth(labels),
      values: (_chart: uPlot, ticks: number[]) => tickLabels(ticks, format),
    }),
  };
}

/** The value axis' span: from zero, or the data's span with a margin (a flat line mid-height). */
function yRange(fromZero: boolean, min: number, max: number): uPlot.Range.MinMax {
  if (fromZero) return [Math.min(0, min), max > 0 ? max : 1];
  const margin = max > min ? (max - min) * 0.1 : Math.abs(max) * 0.05 || 1;
  return [min - margin, max + margin];
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
  const { window } = spec;
  const chart = new uPlot(
    {
      width,
      height: HEIGHT,
      scales: {
        x: {
          time: true,
          ...(window && { range: (): uPlot.Range.MinMax => [window[0], window[1]] }),
        },
        y: { range: (_u, min, max) => yRange(spec.fromZero, min, max) },
      },
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
