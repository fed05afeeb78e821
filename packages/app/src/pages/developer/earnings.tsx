/**
 * `/developer/earnings`: half of the platform fee of every swap made with your keys, per pool and
 * token over a period, with a chart; collecting what accrued to your party, and each collection
 * with the ledger update that paid it. The page's parts are in earnings-parts.tsx.
 */
import type {
  Collection,
  DeveloperPortal,
  Earnings,
  EarningsLine,
  PortalPeriod,
} from '@poolparty/sdk';
import { useCallback, useEffect, useId, useState } from 'preact/hooks';
import { describeError } from '../../describe-error.js';
import { useServices } from '../../services.js';
import {
  CollectionHistory,
  CollectionProgress,
  EarningsChart,
  EarningsTable,
  lineKey,
} from './earnings-parts.js';
import { DEFAULT_PERIOD, PeriodPicker } from './period-picker.js';
import { PortalPage } from './portal-layout.js';
import { markSignedOut, sessionEnded, usePortal } from './portal-session.js';

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

function EarningsReport() {
  const { config, wallet } = useServices();
  const { portal } = usePortal(config.environment);
  const [period, setPeriod] = useState<PortalPeriod>(DEFAULT_PERIOD);
  const [charted, setCharted] = useState('');
  const [error, setError] = useState<string | null>(null);

  const fail = useCallback((caught: unknown) => {
    if (sessionEnded(caught)) markSignedOut();
    else setError(describeError(caught));
  }, []);

  const { report, collections, load } = useEarningsReport(portal, period, fail);
  const { following, busy, collect, acceptOffered } = useCollecting(portal, load, fail, () =>
    setError(null),
  );
  const canAccept =
    following !== null && wallet !== null && wallet.partyId === following.receiverParty;

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
        <ReportBody
          report={report}
          busy={busy}
          onCollect={collect}
          charted={charted}
          onChart={setCharted}
        />
      )}
      <CollectionHistory collections={collections} />
    </>
  );
}

/** The period's earnings and every collection, read again by `load`. */
function useEarningsReport(
  portal: DeveloperPortal,
  period: PortalPeriod,
  fail: (caught: unknown) => void,
) {
  const [report, setReport] = useState<Earnings | null>(null);
  const [collections, setCollections] = useState<Collection[] | null>(null);

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

  return { report, collections, load };
}

/**
 * Collecting a line's earnings, and accepting a collection offered to the party; the collection
 * started last is followed until the ledger confirmed it or it came back.
 */
function useCollecting(
  portal: DeveloperPortal,
  load: () => Promise<void>,
  fail: (caught: unknown) => void,
  clearError: () => void,
) {
  const { wallet } = useServices();
  const [following, setFollowing] = useState<Collection | null>(null);
  const [busy, setBusy] = useState(false);

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

  const busyWith = async (work: () => Promise<void>) => {
    setBusy(true);
    clearError();
    try {
      await work();
    } catch (caught) {
      fail(caught);
    } finally {
      setBusy(false);
    }
  };

  const collect = (line: EarningsLine) =>
    busyWith(async () => {
      const { poolId, token, tokenAdmin } = line;
      setFollowing(await portal.collections.create({ poolId, token, tokenAdmin }));
      await load();
    });

  // An offered collection is accepted with the wallet of the party it is offered to.
  const acceptOffered = async (offered: Collection) => {
    if (wallet === null || offered.offerId === null) return;
    const offerId = offered.offerId;
    await busyWith(async () => {
      await wallet.acceptOffer(offerId, offered.tokenAdmin);
      setFollowing(await portal.collections.get(offered.collectionId));
      await load();
    });
  };

  return { following, busy, collect, acceptOffered };
}

/** Whom collections pay, the table of lines, and the chart of one line (`charted`, else the first). */
function ReportBody(props: {
  report: Earnings;
  busy: boolean;
  onCollect: (line: EarningsLine) => void;
  charted: string;
  onChart: (key: string) => void;
}) {
  const { report } = props;
  const lines = report.lines;
  return (
    <>
      <p class="muted">
        Collections are paid to <span class="party">{report.receiverParty}</span>.
      </p>
      {lines.length === 0 ? (
        <p data-testid="no-earnings">
          No earnings yet: they appear once a swap made with one of your keys completes.
        </p>
      ) : (
        <EarningsTable lines={lines} busy={props.busy} onCollect={props.onCollect} />
      )}
      <ChartSection report={report} charted={props.charted} onChart={props.onChart} />
    </>
  );
}

function ChartSection(props: {
  report: Earnings;
  charted: string;
  onChart: (key: string) => void;
}) {
  const chartId = useId();
  const lines = props.report.lines;
  const chartedLine = lines.find((line) => lineKey(line) === props.charted) ?? lines[0];
  if (chartedLine === undefined) return null;
  return (
    <section class="card" aria-labelledby={`${chartId}-heading`}>
      <h2 id={`${chartId}-heading`}>Over time</h2>
      {lines.length > 1 && (
        <>
          <label for={chartId}>Chart of</label>
          <select
            id={chartId}
            value={lineKey(chartedLine)}
            onChange={(event) => props.onChart(event.currentTarget.value)}
          >
            {lines.map((line) => (
              <option key={lineKey(line)} value={lineKey(line)}>
                {line.token} in {line.poolId}
              </option>
            ))}
          </select>
        </>
      )}
      <EarningsChart report={props.report} line={chartedLine} />
    </section>
  );
}
