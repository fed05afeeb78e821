/**
 * A pool no PostgreSQL server could give a process stops the start with one line saying what
 * to change; any pool that fits starts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSchema, dropSchema, postgresSkipReason, schemaUrl } from '@poolparty/store/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { readSettings } from '../src/config.js';
import { connectionBudgetProblem, OWN_SESSIONS } from '../src/database-connections.js';
import { StartupError, startService } from '../src/service.js';

describe('the database connection budget', () => {
  const server = { maxConnections: 100, superuserReserved: 3 };

  it('lets a pool that fits beside the process’s own sessions', () => {
    expect(connectionBudgetProblem(40, server)).toBeNull();
    expect(connectionBudgetProblem(97 - OWN_SESSIONS, server)).toBeNull();
  });

  it('names the setting, the server’s figures and what fits, one over', () => {
    expect(connectionBudgetProblem(98 - OWN_SESSIONS, server)).toBe(
      'POOLPARTY_DATABASE_CONNECTIONS is 95, but PostgreSQL lets this service open 97 sessions in all (max_connections 100, 3 reserved) and a process needs 3 of its own besides: lower it to 94 or less, or raise max_connections',
    );
  });

  it('refuses a setting that is no whole number in range, naming it', () => {
    const read = readSettings({ POOLPARTY_DATABASE_CONNECTIONS: '0' });
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.errors.join('\n')).toMatch(/POOLPARTY_DATABASE_CONNECTIONS/);
  });
});

const skipReason = await postgresSkipReason('the database connection budget at start');

describe.skipIf(skipReason !== null)('a start on PostgreSQL', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-connections-'));
  const schemas: string[] = [];
  afterAll(async () => {
    for (const schema of schemas) await dropSchema(schema);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops with the line when the pool cannot fit the server', async () => {
    const schema = await createSchema('pp_connections');
    schemas.push(schema);
    const read = readSettings({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      POOLPARTY_DATA_DIR: dataDir,
      DATABASE_URL: schemaUrl(schema),
      POOLPARTY_DATABASE_CONNECTIONS: '1000',
    });
    if (!read.ok) throw new Error(read.errors.join('\n'));
    const start = startService(read.settings);
    await expect(start).rejects.toBeInstanceOf(StartupError);
    await expect(start).rejects.toThrow(
      /^POOLPARTY_DATABASE_CONNECTIONS is 1000, but PostgreSQL lets this service open \d+ sessions in all/,
    );
  });
});
