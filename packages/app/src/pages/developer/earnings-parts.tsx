/**
 * The earnings page's parts (earnings.tsx puts them together): the table of earnings per pool and
 * token with a Collect button each, a line's chart over time, the collection under way, and the
 * collections made.
 */
import type { Collection, Earnings, EarningsLine } from '@poolparty/sdk';
import { ColumnHeads } from '../../components/column-heads.js';
import { formatAmount, formatTime, shortParty } from '../../format.js';
import { BarChart } from './bar-chart.js';
import { ScrollBox } from './scroll-box.js';
import { bucketStarts } from './series.js';

/** A line of the report: one pool and token. */
export const lineKey = (line: { poolId: string; token: string; tokenAdmin: string }) =>
  `${line.poolId}|${line.token}|${line.tokenAdmin}`;

export function EarningsTable(props: {
  lines: readonly EarningsLine[];
  busy: boolean;
  onCollect: (line: EarningsLine) => void;
}) {
  return (
    <ScrollBox label="Earnings per pool and token">
      <table class="stack-on-phone" data-testid="earnings">
        <caption class="visually-hidden">Earnings per pool and token</caption>
        <ColumnHeads
          names={[
            'Pool',
            'Token',
            'Earned',
            'Swaps',
            'Not yet settled',
            'Collected',
            'On its way',
            'To collect',
          ]}
          actions="Collect"
        />
        <tbody>
          {props.lines.map((line) => (
            <EarningsRow
              key={lineKey(line)}
              line={line}
              busy={props.busy}
              onCollect={props.onCollect}
            />
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

function EarningsRow(props: {
  line: EarningsLine;
  busy: boolean;
  onCollect: (line: EarningsLine) => void;
}) {
  const { line } = props;
  return (
    <tr data-line={`${line.poolId}|${line.token}`}>
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
      <td data-label="Collected" data-testid="collected" data-value={line.collected}>
        {formatAmount(line.collected, 10)}
      </td>
      <td data-label="On its way">{formatAmount(line.collecting, 10)}</td>
      <td data-label="To collect" data-testid="collectable" data-value={line.collectable}>
        {formatAmount(line.collectable, 10)}
      </td>
      <td>
        <button
          type="button"
          class="primary"
          disabled={props.busy || line.collectable === '0'}
          aria-label={`Collect ${formatAmount(line.collectable, 10)} ${line.token} from ${line.poolId}`}
          onClick={() => void props.onCollect(line)}
        >
          Collect
        </button>
      </td>
    </tr>
  );
}

export function EarningsChart(props: { report: Earnings; line: EarningsLine }) {
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

export function CollectionProgress(props: {
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

export function CollectionHistory(props: { collections: Collection[] | null }) {
  const { collections } = props;
  if (collections === null || collections.length === 0) return null;
  return (
    <section aria-labelledby="collections-heading">
      <h2 id="collections-heading">Your collections</h2>
      <ScrollBox label="Your collections">
        <table class="stack-on-phone" data-testid="collections">
          <ColumnHeads names={['Requested', 'Pool', 'Amount', 'Status', 'Ledger update']} />
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
