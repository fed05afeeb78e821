/**
 * A bar chart of one series over time, readable without seeing it: the SVG has a text summary,
 * every bar a tooltip title, and the figures are in a table under a disclosure. Heights are
 * display only (decimal strings become numbers for drawing, never for sums).
 */

import type { PortalBucket } from '@poolparty/sdk';
import { useId } from 'preact/hooks';
import { ScrollBox } from './scroll-box.js';

export interface ChartPoint {
  readonly start: string;
  /** The figure as shown, e.g. "1.25 Amulet". */
  readonly label: string;
  /** The figure as a number, for the bar's height. */
  readonly value: number;
}

const WIDTH = 600;
const HEIGHT = 160;
const GAP = 2;

export function bucketLabel(start: string, bucket: PortalBucket): string {
  const date = new Date(start);
  if (bucket === 'hour') {
    return date.toLocaleString(undefined, { day: 'numeric', month: 'short', hour: '2-digit' });
  }
  if (bucket === 'day')
    return date.toLocaleDateString(undefined, { day: 'numeric', month: 'short' });
  return date.toLocaleDateString(undefined, { month: 'short', year: 'numeric' });
}

export function BarChart(props: {
  title: string;
  points: readonly ChartPoint[];
  bucket: PortalBucket;
  testId?: string;
}) {
  const captionId = useId();
  const { points, bucket } = props;
  const total = points.filter((point) => point.value > 0).length;
  const summary =
    points.length === 0
      ? `${props.title}: nothing in this period.`
      : `${props.title}: ${points.length} ${bucket}s, ${total} with activity.`;
  return (
    <figure class="chart" aria-labelledby={captionId} data-testid={props.testId}>
      <figcaption id={captionId}>{props.title}</figcaption>
      <Bars points={points} bucket={bucket} summary={summary} />
      {points.length > 0 && (
        <p class="chart-range muted">
          <span>{bucketLabel(points[0]?.start ?? '', bucket)}</span>
          <span>{bucketLabel(points.at(-1)?.start ?? '', bucket)}</span>
        </p>
      )}
      <Figures title={props.title} points={points} bucket={bucket} />
    </figure>
  );
}

/** The bars, scaled to the largest; one with any activity at least 2 units tall. */
function Bars(props: { points: readonly ChartPoint[]; bucket: PortalBucket; summary: string }) {
  const { points, bucket } = props;
  const max = Math.max(0, ...points.map((point) => point.value));
  const slot = points.length > 0 ? WIDTH / points.length : WIDTH;
  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      preserveAspectRatio="none"
      role="img"
      aria-label={props.summary}
    >
      <line x1="0" y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} class="chart-axis" />
      {points.map((point, index) => {
        const height =
          max > 0 ? Math.max((point.value / max) * (HEIGHT - 8), point.value > 0 ? 2 : 0) : 0;
        return (
          <rect
            key={point.start}
            class="chart-bar"
            x={index * slot + GAP / 2}
            y={HEIGHT - height}
            width={Math.max(slot - GAP, 1)}
            height={height}
          >
            <title>{`${bucketLabel(point.start, bucket)}: ${point.label}`}</title>
          </rect>
        );
      })}
    </svg>
  );
}

/** The figures as a table, under a disclosure. */
function Figures(props: { title: string; points: readonly ChartPoint[]; bucket: PortalBucket }) {
  const { points, bucket } = props;
  return (
    <details>
      <summary>Figures of “{props.title}”</summary>
      <ScrollBox label={`Figures of ${props.title}`}>
        <table>
          <thead>
            <tr>
              <th scope="col">{bucket === 'hour' ? 'Hour' : bucket === 'day' ? 'Day' : 'Month'}</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {points.map((point) => (
              <tr key={point.start}>
                <td>{bucketLabel(point.start, bucket)}</td>
                <td>{point.label}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </details>
  );
}
