/**
 * `/developer/analytics`: the swaps made with your keys, their USD volume and the failed ones,
 * over time, for all keys or one; and each key's request count.
 */
import type { ApiKeyListEntry, DeveloperPortal, PortalPeriod, Usage } from '@poolparty/sdk';
import { useCallback, useEffect, useId, useState } from 'preact/hooks';
import { ColumnHeads } from '../../components/column-heads.js';
import { describeError } from '../../describe-error.js';
import { formatTime, formatUsd } from '../../format.js';
import { useServices } from '../../services.js';
import { BarChart } from './bar-chart.js';
import { DEFAULT_PERIOD, PeriodPicker } from './period-picker.js';
import { PortalPage } from './portal-layout.js';
import { markSignedOut, sessionEnded, usePortal } from './portal-session.js';
import { ScrollBox } from './scroll-box.js';

export function AnalyticsPage() {
  return (
    <PortalPage
      title="Analytics"
      intro="The swaps your app made with your keys: how many executed, their volume in USD, and how many failed (refunded), over time."
    >
      {() => <UsageReport />}
    </PortalPage>
  );
}

function UsageReport() {
  const { config } = useServices();
  const { portal } = usePortal(config.environment);
  const { period, setPeriod, keyId, setKeyId, keys, usage, error } = useUsage(portal);
  return (
    <>
      <div class="report-controls">
        <PeriodPicker value={period} onChange={setPeriod} />
        <KeyFilter keys={keys} value={keyId} onChange={setKeyId} />
      </div>
      {error !== null && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {usage === null && error === null && <p role="status">Loading your usage…</p>}
      {usage !== null && (
        <>
          <UsageCharts usage={usage} />
          <section aria-labelledby="requests-heading">
            <h2 id="requests-heading">Requests per key</h2>
            <KeyRequests usage={usage} />
          </section>
        </>
      )}
    </>
  );
}

/** The usage over the chosen period, for all keys or the chosen one, and the keys to choose from. */
function useUsage(portal: DeveloperPortal) {
  const [period, setPeriod] = useState<PortalPeriod>(DEFAULT_PERIOD);
  const [keyId, setKeyId] = useState('');
  const [keys, setKeys] = useState<ApiKeyListEntry[]>([]);
  const [usage, setUsage] = useState<Usage | null>(null);
  const [error, setError] = useState<string | null>(null);

  const fail = useCallback((caught: unknown) => {
    if (sessionEnded(caught)) markSignedOut();
    else setError(describeError(caught));
  }, []);

  useEffect(() => {
    portal.keys.list().then(({ keys: listed }) => setKeys(listed), fail);
  }, [portal, fail]);

  useEffect(() => {
    setError(null);
    portal.usage({ period, ...(keyId !== '' && { keyId }) }).then(setUsage, fail);
  }, [portal, period, keyId, fail]);

  return { period, setPeriod, keyId, setKeyId, keys, usage, error };
}

function KeyFilter(props: {
  keys: readonly ApiKeyListEntry[];
  value: string;
  onChange: (keyId: string) => void;
}) {
  const id = useId();
  return (
    <div>
      <label for={id}>Key</label>
      <select
        id={id}
        value={props.value}
        onChange={(event) => props.onChange(event.currentTarget.value)}
      >
        <option value="">All your keys</option>
        {props.keys.map((key) => (
          <option key={key.keyId} value={key.keyId}>
            {key.name ?? 'unnamed'} ({key.prefix}…)
          </option>
        ))}
      </select>
    </div>
  );
}

/** The totals of the period, and a chart each of swaps, volume and failures. */
function UsageCharts(props: { usage: Usage }) {
  const { usage } = props;
  const points = (pick: (point: Usage['series'][number]) => { label: string; value: number }) =>
    usage.series.map((point) => ({ start: point.start, ...pick(point) }));
  const totals = usage.series.reduce(
    (sum, point) => ({ swaps: sum.swaps + point.swaps, failures: sum.failures + point.failures }),
    { swaps: 0, failures: 0 },
  );
  return (
    <>
      <p data-testid="usage-totals">
        {totals.swaps} {totals.swaps === 1 ? 'swap' : 'swaps'} executed, {totals.failures} failed,
        from {formatTime(usage.from)} to {formatTime(usage.to)}.
      </p>
      <div class="charts">
        <BarChart
          title="Swaps executed"
          bucket={usage.bucket}
          testId="swaps-chart"
          points={points((p) => ({ label: String(p.swaps), value: p.swaps }))}
        />
        <BarChart
          title="Volume (USD)"
          bucket={usage.bucket}
          testId="volume-chart"
          points={points((p) => ({ label: formatUsd(p.volumeUsd), value: Number(p.volumeUsd) }))}
        />
        <BarChart
          title="Failed swaps"
          bucket={usage.bucket}
          testId="failures-chart"
          points={points((p) => ({ label: String(p.failures), value: p.failures }))}
        />
      </div>
    </>
  );
}

function KeyRequests(props: { usage: Usage }) {
  return (
    <ScrollBox label="Requests per key">
      <table data-testid="key-usage">
        <ColumnHeads names={['Key', 'Requests', 'Last used', 'Status']} />
        <tbody>
          {props.usage.keys.map((key) => (
            <tr key={key.keyId}>
              <th scope="row">
                {key.name ?? 'unnamed'} <code>{key.prefix}…</code>
              </th>
              <td>{key.requestCount}</td>
              <td>{key.lastUsedAt === null ? 'never' : formatTime(key.lastUsedAt)}</td>
              <td>
                {/* The service's verdict: the browser's clock may be far off the service's. */}
                {key.revokedAt === null
                  ? 'Active'
                  : key.working
                    ? `Until ${formatTime(key.revokedAt)}`
                    : 'Revoked'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}
