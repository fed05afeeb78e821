/**
 * `/developer/earnings`: half of the platform fee of every swap made with your keys, per pool and
 * token over a period, with a chart; collecting what accrued to your party, and each collection
 * with the ledger update that paid it.
 */
import type { Collection, Earnings, EarningsLine, PortalPeriod } from '@poolparty/sdk';
import { useCallback, useEffect, useId, useState } from 'preact/hooks';
import { describeError } from '../../describe-error.js';
import { formatAmount, formatTime, shortParty } from '../../format.js';
import { useServices } from '../../services.js';
import { BarChart } from './bar-chart.js';
import { PeriodPicker } from './period-picker.js';
import { PortalPage } from './portal-layout.js';
import { markSignedOut, sessionEnded, usePortal } from './portal-session.js';
import { ScrollBox } from './scroll-box.js';
import { bucketStarts } from './series.js';

/** How often a collection on its way is read again. */
const FOLLOW_MS = 1_000;

export function EarningsPage() {
  return (
    <PortalPage
      title="Earnings"
      intro="You earn half of the platform fee of every swap made with your keys, in the token the swap paid in. Earnings of a swap count once it completed; collect them to your party at any time."
    >
      {() => <EarningsReport />}
    </PortalPage>
  );
}

const lineKey = (line: { poolId: string; token: string; tokenAdmin: string }) =>
  `${line.poolId}|${line.token}|${line.tokenAdmin}`;

function EarningsReport() {
  const { config, wallet } = useServices();
  const { portal } = usePortal(config.environment);
  const chartId = useId();
  const [period, setPeriod] = useState<PortalPeriod>('30d');
  const [report, setReport] = useState<Earnings | null>(null);
  const [collections, setCollections] = useState<Collection[] | null>(null);
  const [charted, setCharted] = useState('');
  const [following, setFollowing] = useState<Collection | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const fail = useCallback((caught: unknown) => {
    if (sessionEnded(caught)) markSignedOut();
    else setError(describeError(caught));
  }, []);

  const load = useCallback(async () => {
    try {
      const [earnings, listed] = await Promise.all([
        portal.earnings({ period }),
        portal.collections.list(),
      ]);
      setReport(earnings);
      setCollections(listed.collections);
    } catch (caught) {
      fail(caught);
    }
  }, [portal, period, fail]);

  useEffect(() => {
    void load();
  }, [load]);

  // A collection on its way (or offered) is read until the ledger confirmed it or it came back.
  useEffect(() => {
    if (following === null) return;
    if (following.status !== 'pending' && following.status !== 'offered') return;
    const timer = setTimeout(() => {
      portal.collections.get(following.collectionId).then((next) => {
        if (next.status !== following.status) void load();
        setFollowing(next);
      }, fail);
    }, FOLLOW_MS);
    return () => clearTimeout(timer);
  }, [following, portal, load, fail]);

  const collect = async (line: EarningsLine) => {
    setBusy(true);
    setError(null);
    try {
      const started = await portal.collections.create({
        poolId: line.poolId,
        token: line.token,
        tokenAdmin: line.tokenAdmin,
      });
      setFollowing(started);
      await load();
    } catch (caught) {
      fail(caught);
    } finally {
      setBusy(false);
    }
  };

  // An offered collection is accepted with the wallet of the party it is offered to.
  const acceptOffered = async (offered: Collection) => {
    if (wallet === null || offered.offerId === null) return;
    setBusy(true);
    setError(null);
    try {
      await wallet.acceptOffer(offered.offerId, offered.tokenAdmin);
      setFollowing(await portal.collections.get(offered.collectionId));
      await load();
    } catch (caught) {
      fail(caught);
    } finally {
      setBusy(false);
    }
  };
  const canAccept =
    following !== null && wallet !== null && wallet.partyId === following.receiverParty;

  const lines = report?.lines ?? [];
  const chartedLine = lines.find((line) => lineKey(line) === charted) ?? lines[0];

  return (
    <>
      <PeriodPicker value={period} onChange={setPeriod} />
      {error !== null && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <CollectionProgress
        collection={following}
        onAccept={canAccept ? acceptOffered : null}
        busy={busy}
      />
      {report === null && error === null && <p role="status">Loading your earnings…</p>}
      {report !== null && (
        <>
          <p class="muted">
            Collections are paid to <span class="party">{report.receiverParty}</span>.
          </p>
          {lines.length === 0 ? (
            <p data-testid="no-earnings">
              No earnings yet: they appear once a swap made with one of your keys completes.
            </p>
          ) : (
            <ScrollBox label="Earnings per pool and token">
              <table class="stack-on-phone" data-testid="earnings">
                <caption class="visually-hidden">Earnings per pool and token</caption>
                <thead>
                  <tr>
                    <th scope="col">Pool</th>
                    <th scope="col">Token</th>
                    <th scope="col">Earned</th>
                    <th scope="col">Swaps</th>
                    <th scope="col">Not yet settled</th>
                    <th scope="col">Collected</th>
                    <th scope="col">On its way</th>
                    <th scope="col">To collect</th>
                    <th scope="col">
                      <span class="visually-hidden">Collect</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {lines.map((line) => (
                    <tr key={lineKey(line)} data-line={`${line.poolId}|${line.token}`}>
                      <th scope="row">{line.poolId}</th>
                      <td data-label="Token">
                        <span>
                          {line.token} <span class="muted">{shortParty(line.tokenAdmin)}</span>
                        </span>
                      </td>
                      <td data-label="Earned" data-testid="earned" data-value={line.earned}>
                        {formatAmount(line.earned, 10)}
                      </td>
                      <td data-label="Swaps">{line.swapCount}</td>
                      <td data-label="Not yet settled">{formatAmount(line.unsettled, 10)}</td>
                      <td
                        data-label="Collected"
                        data-testid="collected"
                        data-value={line.collected}
                      >
                        {formatAmount(line.collected, 10)}
                      </td>
                      <td data-label="On its way">{formatAmount(line.collecting, 10)}</td>
                      <td
                        data-label="To collect"
                        data-testid="collectable"
                        data-value={line.collectable}
                      >
                        {formatAmount(line.collectable, 10)}
                      </td>
                      <td>
                        <button
                          type="button"
                          class="primary"
                          disabled={busy || line.collectable === '0'}
                          aria-label={`Collect ${formatAmount(line.collectable, 10)} ${line.token} from ${line.poolId}`}
                          onClick={() => void collect(line)}
                        >
                          Collect
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollBox>
          )}
          {chartedLine !== undefined && (
            <section class="card" aria-labelledby={`${chartId}-heading`}>
              <h2 id={`${chartId}-heading`}>Over time</h2>
              {lines.length > 1 && (
                <>
                  <label for={chartId}>Chart of</label>
                  <select
                    id={chartId}
                    value={lineKey(chartedLine)}
                    onChange={(event) => setCharted(event.currentTarget.value)}
                  >
                    {lines.map((line) => (
                      <option key={lineKey(line)} value={lineKey(line)}>
                        {line.token} in {line.poolId}
                      </option>
                    ))}
                  </select>
                </>
              )}
              <EarningsChart report={report} line={chartedLine} />
            </section>
          )}
        </>
      )}
      <CollectionHistory collections={collections} />
    </>
  );
}

function EarningsChart(props: { report: Earnings; line: EarningsLine }) {
  const { report, line } = props;
  const mine = report.series.filter((point) => lineKey(point) === lineKey(line));
  const byStart = new Map(mine.map((point) => [new Date(point.start).toISOString(), point]));
  const starts = bucketStarts(
    report.bucket,
    report.from,
    report.to,
    mine.map((point) => point.start),
  );
  const points = starts.map((start) => {
    const earned = byStart.get(start)?.earned ?? '0';
    return { start, label: `${formatAmount(earned, 10)} ${line.token}`, value: Number(earned) };
  });
  return (
    <BarChart
      title={`Earnings in ${line.token} from ${line.poolId}`}
      points={points}
      bucket={report.bucket}
      testId="earnings-chart"
    />
  );
}

function CollectionProgress(props: {
  collection: Collection | null;
  /** Null when the connected wallet is not the receiving party's. */
  onAccept: ((collection: Collection) => void) | null;
  busy: boolean;
}) {
  const { collection, onAccept, busy } = props;
  if (collection === null) return null;
  const amount = `${formatAmount(collection.amount, 10)} ${collection.token}`;
  return (
    <div
      class={`collection-note ${collection.status === 'returned' ? 'warning' : 'card'}`}
      role="status"
      data-testid="collection-progress"
      data-status={collection.status}
    >
      {collection.status === 'pending' && <p>Collecting {amount} to your party…</p>}
      {collection.status === 'offered' && (
        <>
          <p>
            Your party does not accept transfers automatically, so {amount} is offered to it. Accept
            transfer offer <code>{collection.offerId}</code>
            {collection.offerExpiresAt !== null && ` by ${formatTime(collection.offerExpiresAt)}`}.
            Unanswered, the offer lapses and the amount is collectable again.
          </p>
          <button
            type="button"
            class="primary"
            disabled={onAccept === null || busy}
            onClick={() => onAccept?.(collection)}
          >
            Accept {amount}
          </button>
          {onAccept === null && (
            <p class="muted">Connect the wallet of the receiving party to accept it here.</p>
          )}
        </>
      )}
      {collection.status === 'collected' && (
        <p class="success">
          Collected {amount} to your party in ledger update{' '}
          <code data-testid="collection-update-id">{collection.updateId}</code>.
        </p>
      )}
      {collection.status === 'returned' && (
        <p>
          The collection of {amount} could not be paid ({collection.error}); it is collectable
          again.
        </p>
      )}
    </div>
  );
}

const STATUS_LABELS: Readonly<Record<Collection['status'], string>> = {
  pending: 'On its way',
  offered: 'Offered: accept it to receive it',
  collected: 'Collected',
  returned: 'Returned: collectable again',
};

function CollectionHistory(props: { collections: Collection[] | null }) {
  const { collections } = props;
  if (collections === null || collections.length === 0) return null;
  return (
    <section aria-labelledby="collections-heading">
      <h2 id="collections-heading">Your collections</h2>
      <ScrollBox label="Your collections">
        <table class="stack-on-phone" data-testid="collections">
          <thead>
            <tr>
              <th scope="col">Requested</th>
              <th scope="col">Pool</th>
              <th scope="col">Amount</th>
              <th scope="col">Status</th>
              <th scope="col">Ledger update</th>
            </tr>
          </thead>
          <tbody>
            {collections.map((collection) => (
              <tr key={collection.collectionId}>
                <td data-label="Requested">{formatTime(collection.createdAt)}</td>
                <td data-label="Pool">{collection.poolId}</td>
                <td data-label="Amount">
                  {formatAmount(collection.amount, 10)} {collection.token}
                </td>
                <td data-label="Status">{STATUS_LABELS[collection.status]}</td>
                <td data-label="Ledger update" class="update-id">
                  {collection.updateId === null ? '—' : <code>{collection.updateId}</code>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </section>
  );
}
