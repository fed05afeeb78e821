/**
 * A chart of one series over time, readable without seeing it: a text summary for screen
 * readers, the chart itself (uPlot, loaded on first use), and the figures in a table under a
 * disclosure. Values are numbers for drawing only; the table shows the exact figures as given.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { hasEnoughHistory } from './chart-history.js';
import type { ChartSpec, DrawnChart } from './uplot-chart.js';

export interface TimeChartProps extends ChartSpec {
  readonly title: string;
  /** What the chart shows, in a sentence, for those who cannot see it. */
  readonly summary: string;
  /** The figures table, shown under a disclosure. */
  readonly figures: ComponentChildren;
  readonly testId?: string;
}

export function TimeChart(props: TimeChartProps) {
  const captionId = useId();
  const { box, failed } = useDrawnChart(props);
  const enough = hasEnoughHistory(props.values);
  return (
    <figure class="chart" aria-labelledby={captionId} data-testid={props.testId}>
      <figcaption id={captionId}>{props.title}</figcaption>
      <p class="visually-hidden">{props.summary}</p>
      {props.times.length === 0 ? (
        <p class="chart-empty muted">No figures in this period yet.</p>
      ) : !enough ? (
        <p class="chart-empty muted" data-testid="chart-not-enough">
          Not enough history yet to draw a chart: the figures so far are below.
        </p>
      ) : (
        <div class="chart-canvas" ref={box} aria-hidden="true" />
      )}
      {failed && <p class="muted">The chart could not be drawn; the figures are below.</p>}
      <details>
        <summary>Figures of “{props.title}”</summary>
        {props.figures}
      </details>
    </figure>
  );
}

/**
 * Which colour scheme the system asks for, followed while the page is open: the chart's colours
 * are read from the design tokens when it is drawn, so a change of scheme draws it again.
 */
function useColourScheme(): 'light' | 'dark' {
  const query = '(prefers-color-scheme: dark)';
  const [dark, setDark] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const media = matchMedia(query);
    const follow = () => setDark(media.matches);
    media.addEventListener('change', follow);
    return () => media.removeEventListener('change', follow);
  }, []);
  return dark ? 'dark' : 'light';
}

/**
 * Draws the chart into `box` once uPlot has loaded, and again at each new width, data or colour
 * scheme.
 */
function useDrawnChart(spec: ChartSpec) {
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);
  const scheme = useColourScheme();
  useEffect(() => {
    const target = box.current;
    if (target === null || spec.times.length === 0) return;
    let drawn: DrawnChart | null = null;
    let live = true;
    const observer = new ResizeObserver(() => drawn?.resize(target.clientWidth));
    import('./uplot-chart.js').then(
      ({ drawChart }) => {
        if (!live) return;
        drawn = drawChart(target, spec, target.clientWidth);
        observer.observe(target);
      },
      () => setFailed(true),
    );
    return () => {
      live = false;
      observer.disconnect();
      drawn?.destroy();
    };
  }, [spec.times, spec.values, spec.kind, spec.label, spec.window?.[0], spec.window?.[1], scheme]);
  return { box, failed };
}
