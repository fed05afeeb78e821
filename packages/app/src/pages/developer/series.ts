/** Time buckets of a report's series, so a chart shows the quiet hours and days as well. */
import type { PortalBucket } from '@poolparty/sdk';

const STEP_MS: Readonly<Record<'hour' | 'day', number>> = {
  hour: 60 * 60 * 1000,
  day: 24 * 60 * 60 * 1000,
};

function truncate(ms: number, step: number): number {
  return Math.floor(ms / step) * step;
}

/**
 * Every bucket start (UTC, as the service buckets) from `from` to `to`; for months, only the
 * starts given, since a month has no fixed length.
 */
export function bucketStarts(
  bucket: PortalBucket,
  from: string | null,
  to: string,
  given: readonly string[],
): string[] {
  if (bucket === 'month' || from === null) {
    return [...new Set(given.map((start) => new Date(start).toISOString()))].sort();
  }
  const step = STEP_MS[bucket];
  const starts: string[] = [];
  for (let at = truncate(Date.parse(from), step); at <= Date.parse(to); at += step) {
    starts.push(new Date(at).toISOString());
  }
  return starts;
}
