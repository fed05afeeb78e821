/**
 * An example pointed at a service that is not there fails as a person can read it: one line
 * naming the URL it tried and why it failed, no stack trace, and a non-zero exit code.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPOSITORY = join(import.meta.dirname, '../../..');
const EXAMPLES = ['quickstart', 'two-step', 'track', 'portal-keys', 'atomic'] as const;
/** One example process: tsx compiles it, then the first request is refused at once. */
const EXAMPLE_TIMEOUT_MS = 60_000;

let port: number;
/** An empty data folder: no devnet.json, the keys come from the environment. */
let dataDir: string;

beforeAll(async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  port = address.port;
  dataDir = mkdtempSync(join(tmpdir(), 'poolparty-examples-'));
});

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function runAgainstClosedPort(name: string) {
  return promisify(execFile)(process.execPath, ['--import', 'tsx', `examples/${name}.ts`], {
    cwd: REPOSITORY,
    timeout: EXAMPLE_TIMEOUT_MS,
    env: {
      ...process.env,
      POOLPARTY_URL: `http://127.0.0.1:${port}`,
      POOLPARTY_DATA_DIR: dataDir,
      POOLPARTY_API_KEY: `pp_test_${'a'.repeat(32)}`,
      POOLPARTY_PARTY_ID: `alice::1220${'a'.repeat(64)}`,
      POOLPARTY_PRIVATE_KEY: 'ab'.repeat(32),
    },
  }).then(
    () => ({ code: 0, stdout: '', stderr: '' }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  );
}

describe('an example run against a closed port', () => {
  it.each(EXAMPLES)(
    '%s prints one line naming the URL and exits non-zero',
    async (name) => {
      const run = await runAgainstClosedPort(name);
      const output = `${run.stdout}${run.stderr}`;
      expect(run.code, output).not.toBe(0);
      const lines = output.trimEnd().split('\n');
      expect(lines, output).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^${name}: failed — No response from [A-Z]+ http://127\\.0\\.0\\.1:${port}/\\S*: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}$`,
        ),
      );
    },
    EXAMPLE_TIMEOUT_MS,
  );
});
