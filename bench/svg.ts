/**
 * A small line-chart writer for the cost curves: one or more series of (x, y) points, axes with
 * tick labels, optional log-scaled x (the curves step by factors of 10). Pure: data in, SVG text
 * out, so the bench writes files and the tests read strings.
 */

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface Series {
  readonly name: string;
  readonly points: readonly Point[];
}

export interface Chart {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly Series[];
  /** Log-scaled x axis (base 10); every x must then be > 0. */
  readonly logX?: boolean;
}

const WIDTH = 640;
const HEIGHT = 400;
const MARGIN = { top: 40, right: 150, bottom: 50, left: 70 };
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];
const Y_TICKS = 5;

/** Text safe inside SVG elements and attribute values. */
export function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

/** A short tick label: 1 000 000 → "1M", 10 000 → "10k", 0.5 → "0.5". */
export function tickLabel(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${trim(value / 1e6)}M`;
  if (abs >= 1e4) return `${trim(value / 1e3)}k`;
  return trim(value);
}

function trim(value: number): string {
  return Number(value.toPrecision(3)).toString();
}

/** Rounds `max` up to a 1, 2 or 5 step multiple, so y ticks fall on readable numbers. */
export function niceCeiling(max: number): number {
  if (!(max > 0)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) {
    if (step * magnitude >= max) return step * magnitude;
  }
  return 10 * magnitude;
}

export function lineChart(chart: Chart): string {
  const points = chart.series.flatMap((s) => s.points).filter((p) => Number.isFinite(p.y));
  if (chart.logX && points.some((p) => p.x <= 0)) {
    throw new RangeError('a log-scaled x axis needs every x above 0');
  }
  const fx = (x: number) => (chart.logX ? Math.log10(x) : x);
  const xs = points.map((p) => fx(p.x));
  const xMin = xs.length > 0 ? Math.min(...xs) : 0;
  const xMaxRaw = xs.length > 0 ? Math.max(...xs) : 1;
  const xMax = xMaxRaw === xMin ? xMin + 1 : xMaxRaw;
  const yMax = niceCeiling(points.length > 0 ? Math.max(...points.map((p) => p.y)) : 1);
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const px = (x: number) => MARGIN.left + ((fx(x) - xMin) / (xMax - xMin)) * plotW;
  const py = (y: number) => MARGIN.top + plotH - (y / yMax) * plotH;
  const round = (n: number) => Number(n.toFixed(1));
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15">${escapeXml(chart.title)}</text>`,
  ];
  const bottom = MARGIN.top + plotH;
  parts.push(
    `<line x1="${MARGIN.left}" y1="${bottom}" x2="${MARGIN.left + plotW}" y2="${bottom}" stroke="black"/>`,
    `<line x1="${MARGIN.left}" y1="${MARGIN.top}" x2="${MARGIN.left}" y2="${bottom}" stroke="black"/>`,
  );
  for (let i = 0; i <= Y_TICKS; i++) {
    const value = (yMax * i) / Y_TICKS;
    const y = round(py(value));
    parts.push(
      `<line x1="${MARGIN.left}" y1="${y}" x2="${MARGIN.left + plotW}" y2="${y}" stroke="#ddd"/>`,
      `<text x="${MARGIN.left - 6}" y="${y + 4}" text-anchor="end">${tickLabel(value)}</text>`,
    );
  }
  const xTicks = [...new Set(points.map((p) => p.x))].sort((a, b) => a - b);
  for (const x of xTicks) {
    const at = round(px(x));
    parts.push(
      `<line x1="${at}" y1="${bottom}" x2="${at}" y2="${bottom + 5}" stroke="black"/>`,
      `<text x="${at}" y="${bottom + 18}" text-anchor="middle">${tickLabel(x)}</text>`,
    );
  }
  parts.push(
    `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 10}" text-anchor="middle">${escapeXml(chart.xLabel)}</text>`,
    `<text transform="translate(16 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(chart.yLabel)}</text>`,
  );
  chart.series.forEach((series, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const drawn = series.points.filter((p) => Number.isFinite(p.y));
    const path = drawn.map((p) => `${round(px(p.x))},${round(py(p.y))}`).join(' ');
    if (drawn.length > 1) {
      parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${path}"/>`);
    }
    for (const p of drawn) {
      parts.push(`<circle cx="${round(px(p.x))}" cy="${round(py(p.y))}" r="3" fill="${colour}"/>`);
    }
    const legendY = MARGIN.top + 10 + i * 18;
    const legendX = MARGIN.left + plotW + 12;
    parts.push(
      `<line x1="${legendX}" y1="${legendY - 4}" x2="${legendX + 18}" y2="${legendY - 4}" stroke="${colour}" stroke-width="2"/>`,
      `<text x="${legendX + 24}" y="${legendY}">${escapeXml(series.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
