/** A wide table's box: it scrolls sideways on a narrow screen, also from the keyboard. */
import type { ComponentChildren } from 'preact';

export function ScrollBox(props: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take keyboard focus to be scrolled without a mouse (WCAG 2.1.1)
    <section class="table-scroll" aria-label={props.label} tabIndex={0}>
      {props.children}
    </section>
  );
}
