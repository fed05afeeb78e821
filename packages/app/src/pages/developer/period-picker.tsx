/** The period of a report: radio buttons, so the choice is one keyboard stop with arrow keys. */
import type { PortalPeriod } from '@poolparty/sdk';
import { useId } from 'preact/hooks';

/**
 * The period every report opens with: the service's own default for earnings, so Earnings and
 * Analytics show the same window until the developer picks another.
 */
export const DEFAULT_PERIOD: PortalPeriod = '30d';

const PERIOD_LABELS: Readonly<Record<PortalPeriod, string>> = {
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  all: 'All time',
};

/**
 * A window of time to show, as radio buttons: `labels` lists the choices in order. Portal reports
 * and pool histories share it, each with its own periods.
 */
export function WindowPicker<P extends string>(props: {
  legend: string;
  labels: Readonly<Record<P, string>>;
  value: P;
  onChange: (period: P) => void;
}) {
  const name = useId();
  return (
    <fieldset class="period-picker">
      <legend>{props.legend}</legend>
      {(Object.keys(props.labels) as P[]).map((period) => (
        <label key={period} class="period-option">
          <input
            type="radio"
            name={name}
            value={period}
            checked={props.value === period}
            onChange={() => props.onChange(period)}
          />
          {props.labels[period]}
        </label>
      ))}
    </fieldset>
  );
}

export function PeriodPicker(props: {
  value: PortalPeriod;
  onChange: (period: PortalPeriod) => void;
}) {
  return <WindowPicker legend="Period" labels={PERIOD_LABELS} {...props} />;
}
