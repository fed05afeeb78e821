/**
 * An endpoint's delivery log (webhooks.tsx): each event sent to it, newest first, with its state,
 * its attempts (answer, time taken, error) and when it is tried next; a delivery can be sent again.
 * Pages of 20, "Show older" for the next, at most `DELIVERY_PAGES_MAX` pages held. While a
 * delivery shown is pending, the log reads itself again every second, so a test event's outcome
 * shows without a reload.
 */
import type { WebhookDelivery, WithWebhooks } from '@poolparty/sdk/webhooks';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ColumnHeads } from '../../components/column-heads.js';
import { formatTime } from '../../format.js';
import { ActionOutcome } from './action-outcome.js';
import { usePortalAction } from './portal-action.js';
import { ScrollBox } from './scroll-box.js';

const DELIVERY_PAGE = 20;
/** Pages the log holds: older deliveries than that are not worth a page's memory. */
const DELIVERY_PAGES_MAX = 10;
/** While a delivery shown is pending, the log is read again this often… */
const PENDING_REREAD_MS = 1_000;
/** …at most this many times after a load: a receiver that never answers is not asked about forever. */
const PENDING_REREADS_MAX = 30;

export function DeliveriesLog(props: {
  portal: WithWebhooks;
  endpointId: string;
  refresh: number;
}) {
  const { portal, endpointId } = props;
  const { busy, error, fail, run } = usePortalAction(portal);
  const [deliveries, setDeliveries] = useState<WebhookDelivery[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  /** Re-reads since the last load asked for: a load (a test event, a resend) starts again. */
  const [rereads, setRereads] = useState(0);

  const read = useCallback(async () => {
    const page = await portal.webhooks.deliveries(endpointId, { limit: DELIVERY_PAGE });
    setDeliveries(page.deliveries);
    setNext(page.next);
  }, [portal, endpointId]);
  const load = useCallback(async () => {
    setRereads(0);
    await read();
  }, [read]);

  // `refresh` counts the test events sent: the log is read again after each.
  const { refresh } = props;
  useEffect(() => {
    if (refresh >= 0) load().catch(fail);
  }, [load, fail, refresh]);

  const pending = deliveries?.some((delivery) => delivery.state === 'pending') ?? false;
  useEffect(() => {
    if (!pending || rereads >= PENDING_REREADS_MAX) return;
    const timer = setTimeout(() => {
      setRereads((n) => n + 1);
      read().catch(fail);
    }, PENDING_REREAD_MS);
    return () => clearTimeout(timer);
  }, [pending, rereads, read, fail]);

  const older = () =>
    run(async (p) => {
      if (next === null) return;
      const page = await p.webhooks.deliveries(endpointId, { limit: DELIVERY_PAGE, before: next });
      setDeliveries((shown) => [...(shown ?? []), ...page.deliveries]);
      setNext(page.next);
    });

  const resend = (delivery: WebhookDelivery) =>
    run(async (p) => {
      await p.webhooks.resend(endpointId, delivery.id);
      setNotice(`${delivery.eventType} (${delivery.eventId}) is sent again.`);
      await load();
    });

  const full = (deliveries?.length ?? 0) >= DELIVERY_PAGE * DELIVERY_PAGES_MAX;
  return (
    <section aria-label="Deliveries" data-testid="deliveries">
      <h3>Deliveries</h3>
      {deliveries === null && <p role="status">Loading the deliveries…</p>}
      {deliveries !== null && deliveries.length === 0 && (
        <p>Nothing sent yet. Send a test event to try the endpoint.</p>
      )}
      {deliveries !== null && deliveries.length > 0 && (
        <DeliveriesTable deliveries={deliveries} busy={busy} onResend={(d) => void resend(d)} />
      )}
      {next !== null && !full && (
        <button type="button" disabled={busy} onClick={() => void older()}>
          Show older deliveries
        </button>
      )}
      <ActionOutcome notice={notice} error={error} />
    </section>
  );
}

function DeliveriesTable(props: {
  deliveries: readonly WebhookDelivery[];
  busy: boolean;
  onResend: (delivery: WebhookDelivery) => void;
}) {
  return (
    <ScrollBox label="Deliveries of this endpoint">
      <table class="stack-on-phone">
        <caption class="visually-hidden">Deliveries, newest first</caption>
        <ColumnHeads
          names={['Queued', 'Event', 'State', 'Last attempt', 'Next attempt']}
          actions="Actions"
        />
        <tbody>
          {props.deliveries.map((delivery) => (
            <tr key={delivery.id} data-delivery={delivery.id}>
              <td data-label="Queued">{formatTime(delivery.createdAt)}</td>
              <td data-label="Event">
                <code>{delivery.eventType}</code>
              </td>
              <td data-label="State" data-testid="delivery-state">
                {delivery.state}
              </td>
              <td data-label="Last attempt">{lastAttempt(delivery)}</td>
              <td data-label="Next attempt">
                {delivery.nextAttemptAt === null ? '—' : formatTime(delivery.nextAttemptAt)}
              </td>
              <td class="key-actions">
                <button
                  type="button"
                  disabled={props.busy}
                  aria-label={`Resend ${delivery.eventType} ${delivery.eventId}`}
                  onClick={() => props.onResend(delivery)}
                >
                  Resend
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

/** The newest attempt in words: its answer or error, and how long it took; how many there were. */
function lastAttempt(delivery: WebhookDelivery): string {
  const attempt = delivery.attempts.at(-1);
  if (attempt === undefined) return 'not yet';
  const answer =
    attempt.statusCode === null ? (attempt.error ?? 'no answer') : `HTTP ${attempt.statusCode}`;
  const count = delivery.attempts.length === 1 ? '' : ` (attempt ${delivery.attempts.length})`;
  return `${answer}, ${attempt.latencyMs} ms${count}`;
}
