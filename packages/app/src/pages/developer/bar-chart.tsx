/**
 * A portal report's series as a bar chart (the app's one chart component, charts/time-chart.tsx):
 * every bucket of the period a bar, the axes with their values, a text summary, and the figures
 * in a table. Heights are display only (decimal strings become numbers for drawing, never sums).
 */

import type { PortalBucket } from '@poolparty/sdk';
import { useMemo } from 'preact/hooks';
import { TimeChart } from '../../charts/time-chart.js';
import { formatAxisNumber } from '../../format.js';
import { ScrollBox } from './scroll-box.js';

export interface ChartPoint {
  readonly start: string;
  /** The figure as shown, e.g. "1.25 Amulet". */
  readonly label: string;
  /** The figure as a number, for the bar's height. */
  readonly value: number;
}

function bucketLabel(start: string, bucket: PortalBucket): string {
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
  const { points, bucket, title } = props;
  const times = useMemo(() => points.map((point) => Date.parse(point.start) / 1000), [points]);
  const values = useMemo(() => points.map((point) => point.value), [points]);
  const active = points.filter((point) => point.value > 0).length;
  const summary =
    points.length === 0
      ? `${title}: nothing in this period.`
      : `${title}: ${points.length} ${bucket}s, ${active} with activity.`;
  return (
    <TimeChart
      title={title}
      summary={summary}
      times={times}
      values={values}
      kind="bars"
      fromZero
      label={title}
      format={formatAxisNumber}
      testId={props.testId}
      figures={<Figures title={title} points={points} bucket={bucket} />}
    />
  );
}

/** The figures as a table. */
function Figures(props: { title: string; points: readonly ChartPoint[]; bucket: PortalBucket }) {
  const { points, bucket } = props;
  return (
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
  );
}
