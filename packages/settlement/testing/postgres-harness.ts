/**
 * An engine harness on PostgreSQL: a fresh schema of the test server, opened by one pool per
 * process that shares it (as separate workers of a deployment each open their own), with the
 * harness on the first. Closing it stops the harness, closes every pool and drops the schema.
 */
import type { Database } from '@poolparty/store';
import { openFreshSchema } from '@poolparty/store/testing';
import { EngineHarness } from './engine.js';

export interface PostgresHarness {
  readonly harness: EngineHarness;
  readonly schema: string;
  /** One pool per process, in the order asked for; the harness runs on the first. */
  readonly databases: readonly Database[];
  close(): Promise<void>;
}

export async function openPostgresHarness(prefix: string, processes = 1): Promise<PostgresHarness> {
  // The harness migrates the schema itself (EngineHarness.createIn).
  const store = await openFreshSchema(prefix, { processes, migrated: false });
  let harness: EngineHarness;
  try {
    harness = await EngineHarness.createIn(store.databases[0] as Database);
  } catch (error) {
    await store.close();
    throw error;
  }
  return {
    harness,
    schema: store.schema,
    databases: store.databases,
    close: async () => {
      await harness.close();
      await store.close();
    },
  };
}
