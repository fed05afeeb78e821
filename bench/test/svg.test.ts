/** The cost curves' SVG writer: valid markup, points where the data says, input escaped. */
import { describe, expect, it } from 'vitest';
import { escapeXml, lineChart, niceCeiling, tickLabel } from '../svg.js';

const circles = (svg: string) =>
  [...svg.matchAll(/<circle cx="([\d.]+)" cy="([\d.]+)"/g)].map((m) => [
    Number(m[1]),
    Number(m[2]),
  ]);

describe('lineChart', () => {
  it('draws one marker per point, higher values higher up, log x evenly spaced by decade', () => {
    const svg = lineChart({
      title: 'status p99',
      xLabel: 'intents',
      yLabel: 'ms',
      logX: true,
      series: [
        {
          name: 'p99',
          points: [
            { x: 10_000, y: 1 },
            { x: 100_000, y: 2 },
            { x: 1_000_000, y: 4 },
          ],
        },
      ],
    });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    const found = circles(svg);
    expect(found).toHaveLength(3);
    const [a, b, c] = found as [[number, number], [number, number], [number, number]];
    expect(b[0] - a[0]).toBeCloseTo(c[0] - b[0], 0);
    expect(a[1]).toBeGreaterThan(b[1]);
    expect(b[1]).toBeGreaterThan(c[1]);
    expect(svg).toContain('>1M</text>');
    expect(svg).toContain('<polyline');
  });

  it('skips points without a figure and escapes names', () => {
    const svg = lineChart({
      title: 'a < b & "c"',
      xLabel: 'x',
      yLabel: 'y',
      series: [
        {
          name: '<s>',
          points: [
            { x: 1, y: 3 },
            { x: 2, y: Number.NaN },
          ],
        },
      ],
    });
    expect(circles(svg)).toHaveLength(1);
    expect(svg).toContain('a &lt; b &amp; &quot;c&quot;');
    expect(svg).not.toContain('<s>');
  });

  it('refuses a log axis with an x at or below zero', () => {
    expect(() =>
      lineChart({
        title: 't',
        xLabel: 'x',
        yLabel: 'y',
        logX: true,
        series: [{ name: 's', points: [{ x: 0, y: 1 }] }],
      }),
    ).toThrow(RangeError);
  });
});

describe('axis helpers', () => {
  it('rounds the y axis up to 1, 2 or 5 of a power of ten', () => {
    expect([0.7, 3, 7, 12, 180].map(niceCeiling)).toEqual([1, 5, 10, 20, 200]);
  });

  it('labels ticks shortly', () => {
    expect([1, 100, 10_000, 1_000_000, 0.25].map(tickLabel)).toEqual([
      '1',
      '100',
      '10k',
      '1M',
      '0.25',
    ]);
  });

  it('escapes the five XML specials it can meet', () => {
    expect(escapeXml(`<a href="x">&</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;');
  });
});
