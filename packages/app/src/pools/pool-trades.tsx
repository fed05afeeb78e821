/**
 * A pool's latest executed swaps, newest first, without the parties (none are published). On a
 * phone each swap is a card of labelled lines, so no column is cut off (styles.css).
 */
import type { PoolTrade } from '@poolparty/core';
import { ColumnHeads } from '../components/column-heads.js';
import { formatAmount, formatTime, formatUsd } from '../format.js';
import { ScrollBox } from '../pages/developer/scroll-box.js';

export function PoolTrades(props: { trades: readonly PoolTrade[] | null; error: string | null }) {
  const { trades, error } = props;
  return (
    <section class="card" aria-labelledby="trades-heading">
      <h2 id="trades-heading">Recent swaps</h2>
      {error && (
        <p role="alert" class="error">
          Could not load the recent swaps: {error}
        </p>
      )}
      {trades === null && !error && <p role="status">Loading the recent swaps…</p>}
      {trades !== null && trades.length === 0 && <p>No swaps in this pool yet.</p>}
      {trades !== null && trades.length > 0 && (
        <ScrollBox label="Recent swaps">
          <table class="trades" data-testid="trades">
            <ColumnHeads names={['When', 'Sent', 'Received', 'Value']} />
            <tbody>
              {trades.map((trade, index) => (
                <tr key={`${trade.at}-${index}`}>
                  <td data-label="When">{formatTime(trade.at)}</td>
                  <td data-label="Sent">
                    {formatAmount(trade.inputAmount)} {trade.inputToken}
                  </td>
                  <td data-label="Received">
                    {formatAmount(trade.outputAmount)} {trade.outputToken}
                  </td>
                  <td data-label="Value">
                    {trade.volume === null ? '—' : formatUsd(trade.volume)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
    </section>
  );
}
