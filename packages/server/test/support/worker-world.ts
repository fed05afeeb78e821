/**
 * What a test of killed workers runs in: a data folder, a PostgreSQL schema with its store, and
 * the seeded devnet ledger served over the network with the seed registered in the store; and the
 * worker processes started in it, ended with it after each test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerSeed } from '@poolparty/settlement/testing';
import { type Database, openStore } from '@poolparty/store';
import { createSchema, dropSchema, POSTGRES_URL, schemaUrl } from '@poolparty/store/testing';
import { afterEach } from 'vitest';
import { type ServedDevnet, serveSeededDevnet } from './devnet-ledger.js';
import { startWorkerProcess, type WorkerProcess } from './worker-process.js';

export interface WorkerWorld {
  readonly dataDir: string;
  readonly schema: string;
  readonly db: Database;
  readonly devnet: ServedDevnet;
}

/** Opens a world; `name` tells its data folder and schema from other suites'. */
export async function openWorkerWorld(name: string): Promise<WorkerWorld> {
  const dataDir = mkdtempSync(join(tmpdir(), `pp-${name}-`));
  const schema = await createSchema(`pp_${name.replaceAll('-', '_')}`);
  const devnet = await serveSeededDevnet();
  const db = await openStore({ dataDir, databaseUrl: POSTGRES_URL, schema });
  await registerSeed(db, devnet.seed, await devnet.ledger.now());
  return { dataDir, schema, db, devnet };
}

/**
 * The suite's workers and world: after each test every worker still running is killed, then the
 * world the test opened (`opened`) is closed and removed.
 */
export function useWorkerWorlds<W extends WorkerWorld>(): {
  readonly running: WorkerProcess[];
  opened: (world: W) => W;
  /** A worker on the world's store and ledger, `env` added; killed after the test if still up. */
  start: (world: W, env?: Readonly<Record<string, string>>) => WorkerProcess;
} {
  const running: WorkerProcess[] = [];
  let current: W | null = null;
  afterEach(async () => {
    for (const worker of running.splice(0)) worker.child.kill('SIGKILL');
    if (current === null) return;
    const world = current;
    current = null;
    await world.db.close();
    await world.devnet.close();
    await dropSchema(world.schema);
    rmSync(world.dataDir, { recursive: true, force: true });
  });
  return {
    running,
    opened: (world) => {
      current = world;
      return world;
    },
    start: (world, env = {}) => {
      const worker = startWorkerProcess(world.dataDir, schemaUrl(world.schema), {
        ...world.devnet.env,
        ...env,
      });
      running.push(worker);
      return worker;
    },
  };
}
