/**
 * Open operator flags on `/metrics`, per kind — among them the updates and swaps the engine set
 * aside (`update_set_aside`, `execution_set_aside`): read from the store at each scrape, so every
 * process of a deployment reports the same figures, and an alert on any of them finds a person.
 */
import { countOpenFlagsByKind, type Database } from '@poolparty/store';
import { Gauge, type Registry } from 'prom-client';

export function registerFlagMetrics(registry: Registry, db: Database): void {
  new Gauge({
    name: 'poolparty_operator_flags_open',
    help: 'Operator flags not yet resolved, by kind (update_set_aside, execution_set_aside, …)',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const { kind, open } of await countOpenFlagsByKind(db)) this.set({ kind }, open);
    },
  });
}
