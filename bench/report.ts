/** Small helpers the benchmarks share for their printed reports. */
import { pathToFileURL } from 'node:url';

/** Whether the module at `moduleUrl` is the script node was started with. */
export function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && pathToFileURL(script).href === moduleUrl;
}

export function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(1)} %`;
}

export function ratioLine(name: string, ratio: number, target: number, meets: boolean): string {
  return `${name} = ${percent(ratio)} (target ≥ ${percent(target)}: ${meets ? 'met' : 'NOT met'})`;
}

/** The nearest-rank percentile of `values` (0 < p ≤ 100); NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? Number.NaN;
}

/** A plain-text table, columns padded to their widest cell. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
