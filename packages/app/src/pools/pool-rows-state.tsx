/**
 * What a list of pools says while it has none to show: no key for the service's pages, the read
 * refused, loading, or no pools yet; `children` once there are rows.
 */
import type { ComponentChildren } from 'preact';
import type { PoolRow } from './pool-rows.js';

export function PoolRowsState(props: {
  readonly hasClient: boolean;
  readonly rows: readonly PoolRow[] | null;
  readonly error: string | null;
  readonly children: ComponentChildren;
}) {
  const { hasClient, rows, error } = props;
  return (
    <>
      {!hasClient && <p role="status">This service has no API key configured for its pages.</p>}
      {error && (
        <p role="alert" class="error">
          Could not load the pools: {error}
        </p>
      )}
      {rows === null && hasClient && !error && <p role="status">Loading pools…</p>}
      {rows !== null && rows.length === 0 && <p>No pools yet.</p>}
      {rows !== null && rows.length > 0 && props.children}
    </>
  );
}
