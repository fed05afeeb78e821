/**
 * A pool's history as three charts over the chosen window (24 h, 7 d, 30 d): the spot price
 * (tokenB per tokenA), the hourly USD volume, and the TVL, each from the hourly snapshots
 * (`GET /v1/pools/{poolId}/history`). Hours the service did not see are gaps, not lines.
 */
import type { PoolHistory, PoolHistoryPeriod, PoolHistoryPoint } from '@poolparty/core';
import type { Pool } from '@poolparty/sdk';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { TimeChart } from '../charts/time-chart.js';
import { describeError } from '../describe-error.js';
import { formatAmount, formatAxisNumber, formatTime, formatUsd } from '../format.js';
import { WindowPicker } from '../pages/developer/period-picker.js';
import { ScrollBox } from '../pages/developer/scroll-box.js';
import { useServices } from '../services.js';

const HISTORY_PERIODS: Readonly<Record<PoolHistoryPeriod, string>> = {
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
};

export function HistoryPeriodPicker(props: {
  value: PoolHistoryPeriod;
  onChange: (period: PoolHistoryPeriod) => void;
}) {
  return <WindowPicker legend="Window" labels={HISTORY_PERIODS} {...props} />;
}

interface Column {
  readonly title: string;
  readonly kind: 'line' | 'bars';
  readonly fromZero: boolean;
  readonly testId: string;
  value(point: PoolHistoryPoint): string | null;
  shown(value: string): string;
}

function columnsOf(pool: Pool): Column[] {
  const pair = `${pool.tokenB.name} per ${pool.tokenA.name}`;
  return [
    {
      title: `Price (${pair})`,
      kind: 'line',
      fromZero: false,
      testId: 'price-chart',
      value: (point) => point.price,
      shown: (value) => `${formatAmount(value)} ${pool.tokenB.name}`,
    },
    {
      title: 'Volume per hour (USD)',
      kind: 'bars',
      fromZero: true,
      testId: 'volume-chart',
      value: (point) => point.volume,
      shown: formatUsd,
    },
    {
      title: 'Total value locked (USD)',
      kind: 'line',
      fromZero: true,
      testId: 'tvl-chart',
      value: (point) => point.tvl,
      shown: formatUsd,
    },
  ];
}

/** A pool's hourly history over `period`, read again when the pool or the period changes. */
export function usePoolHistory(poolId: string, period: PoolHistoryPeriod) {
  const { reads } = useServices();
  const [history, setHistory] = useState<PoolHistory | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (reads === null) return;
    let live = true;
    setError(null);
    reads.poolHistory(poolId, period).then(
      (answer) => live && setHistory(answer),
      (caught: unknown) => live && setError(describeError(caught)),
    );
    return () => {
      live = false;
    };
  }, [reads, poolId, period]);
  // A history of another pool or period is not shown while the new one is read.
  const current = history?.poolId === poolId && history.period === period ? history : null;
  return { history: current, error };
}

/** The hours of a history as the chart's times, and its window, in seconds since the epoch. */
function useHistoryAxes(history: PoolHistory) {
  const times = useMemo(
    () => history.points.map((point) => Date.parse(point.hour) / 1000),
    [history],
  );
  const window = useMemo(
    () => [Date.parse(history.from) / 1000, Date.parse(history.to) / 1000] as const,
    [history],
  );
  return { times, window };
}

/** The pool's price alone (tokenB per tokenA), as the swap card shows it beside itself. */
export function PoolPriceChart(props: { pool: Pool; history: PoolHistory }) {
  const { times, window } = useHistoryAxes(props.history);
  const [price] = columnsOf(props.pool);
  if (price === undefined) return null;
  return <HistoryChart column={price} history={props.history} times={times} window={window} />;
}

export function PoolCharts(props: { pool: Pool; history: PoolHistory }) {
  const { pool, history } = props;
  const { times, window } = useHistoryAxes(history);
  return (
    <div class="charts">
      {columnsOf(pool).map((column) => (
        <HistoryChart
          key={column.testId}
          column={column}
          history={history}
          times={times}
          window={window}
        />
      ))}
    </div>
  );
}

function HistoryChart(props: {
  column: Column;
  history: PoolHistory;
  times: readonly number[];
  window: readonly [number, number];
}) {
  const { column, history, times } = props;
  const values = useMemo(
    () =>
      history.points.map((point) => {
        const value = column.value(point);
        return value === null ? null : Number(value);
      }),
    [history, column.testId],
  );
  const summary = `${column.title}: ${history.points.length} hourly points, ${HISTORY_PERIODS[history.period].toLowerCase()}.`;
  return (
    <TimeChart
      title={column.title}
      summary={summary}
      times={times}
      values={values}
      kind={column.kind}
      fromZero={column.fromZero}
      window={props.window}
      label={column.title}
      format={formatAxisNumber}
      testId={column.testId}
      figures={<HistoryFigures column={column} points={history.points} />}
    />
  );
}

function HistoryFigures(props: { column: Column; points: readonly PoolHistoryPoint[] }) {
  const { column } = props;
  return (
    <ScrollBox label={`Figures of ${column.title}`}>
      <table>
        <thead>
          <tr>
            <th scope="col">Hour</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {props.points.map((point) => {
            const value = column.value(point);
            return (
              <tr key={point.hour}>
                <td>{formatTime(point.hour)}</td>
                <td>{value === null ? '—' : column.shown(value)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollBox>
  );
}
