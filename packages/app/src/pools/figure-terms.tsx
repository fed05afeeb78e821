/**
 * The pool figures' names with what they mean, shown on hover and on keyboard focus: a button
 * (so it takes focus) described by a tooltip. APR and APY are explained with the window and the
 * token they rest on, and a figure the service leaves empty says why instead of a bare dash.
 */

import type { PoolStats } from '@poolparty/sdk';
import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';
import { formatPercent } from '../format.js';

/** The tip's width in CSS: 18rem, at most 80 % of the screen. */
const TIP_REM = 18;
const TIP_SCREEN_SHARE = 0.8;
const EDGE_PX = 8;

export function Term(props: { children: ComponentChildren; meaning: string }) {
  const id = useId();
  const [shift, setShift] = useState(0);
  // Shifted left when it would run past the screen's right edge, so it never widens the page.
  const place = (event: { currentTarget: HTMLElement }) => {
    const left = event.currentTarget.getBoundingClientRect().left;
    const rem = Number.parseFloat(getComputedStyle(document.documentElement).fontSize);
    const width = Math.min(TIP_REM * rem, window.innerWidth * TIP_SCREEN_SHARE);
    setShift(Math.min(0, window.innerWidth - EDGE_PX - (left + width)));
  };
  return (
    <span class="term">
      <button
        type="button"
        class="term-name"
        aria-describedby={id}
        onMouseEnter={place}
        onFocus={place}
      >
        {props.children}
      </button>
      <span role="tooltip" id={id} class="term-tip" style={{ left: `${shift}px` }}>
        {props.meaning}
      </span>
    </span>
  );
}

export const APR_MEANING =
  "Yearly rate of the fees liquidity providers earned over the last 7 days, against the pool's value (TVL). It is past earnings, not a promise; 0 % means no swaps in that window.";
export const TVL_MEANING = "Total value locked: both reserves at today's USD prices.";
export const VOLUME_MEANING = 'USD value of the deposits swapped in the last 24 hours.';
export const FEES_MEANING =
  'Pool, platform and network fees charged on the last 24 hours of swaps, in USD.';

/** The APR as shown: the rate, or why there is none. */
export function aprText(stats: PoolStats | null): string {
  if (stats === null) return '—';
  if (stats.apr !== null) return formatPercent(stats.apr);
  return stats.aprMeta.supported ? 'no liquidity yet' : 'no USD price';
}
