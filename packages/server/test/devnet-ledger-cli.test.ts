/**
 * `poolparty devnet-ledger` as an operator runs it: a separate process on a data folder, seeded on
 * first start, serving the JSON Ledger API, closed by SIGTERM, and the same ledger on restart.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, expectSchema } from '@poolparty/devnet-ledger/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, runCli } from './support/cli.js';

/** Starting loads the whole server in a fresh process; the first start also seeds. */
const PROCESS_TIMEOUT_MS = 120_000;

interface Running {
  readonly child: ChildProcess;
  readonly url: string;
  readonly output: () => string;
}

function start(dataDir: string): Promise<Running> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CLI, 'devnet-ledger', '--port', '0', '--data-dir', dataDir],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
    const check = () => {
      const url = /devnet ledger listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url !== undefined && output.includes('Seeded parties:'))
        resolve({ child, url, output: () => output });
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
  });
}

function stop(running: Running): Promise<number | null> {
  return new Promise((resolve) => {
    running.child.removeAllListeners('exit');
    running.child.on('exit', (code) => resolve(code));
    running.child.kill('SIGTERM');
  });
}

describe('poolparty devnet-ledger', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-devnet-ledger-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it(
    'seeds and serves the ledger, stops on SIGTERM and serves the same ledger again',
    async () => {
      const first = await start(dataDir);
      const end = await call(first.url, 'GET', '/v2/state/ledger-end');
      expectSchema('ledger', 'GetLedgerEndResponse', end.body);
      expect(end.body.offset).toBeGreaterThan(0);
      const seed = JSON.parse(readFileSync(join(dataDir, 'devnet.json'), 'utf8'));
      expect(first.output()).toContain(seed.users[0].partyId);
      expect(first.output()).toContain(`${first.url}/api/validator`);
      // One process per data folder: a second one would append to the same journal.
      const second = await runCli(['devnet-ledger', '--port', '0', '--data-dir', dataDir]);
      expect(second.code).toBe(1);
      expect(second.stderr).toContain('in use by `poolparty devnet-ledger`');
      expect(await stop(first)).toBe(0);

      const again = await start(dataDir);
      expect((await call(again.url, 'GET', '/v2/state/ledger-end')).body).toEqual(end.body);
      const party = await call(
        again.url,
        'GET',
        `/v2/parties/${encodeURIComponent(seed.users[0].partyId)}`,
      );
      expect(party.body.partyDetails).toHaveLength(1);
      expect(await stop(again)).toBe(0);
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    'refuses a malformed port before loading anything',
    async () => {
      const run = await runCli(['devnet-ledger', '--port', 'eighty']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('POOLPARTY_DEVNET_LEDGER_PORT');
    },
    PROCESS_TIMEOUT_MS,
  );
});
