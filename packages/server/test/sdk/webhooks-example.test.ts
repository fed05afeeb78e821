/**
 * `npm run example:webhooks` as a developer runs it against a devnet service: its receiver gets
 * the events of its swap, each verified with the SDK's `webhooks.verify`, through `completed`.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';

const REPOSITORY = join(import.meta.dirname, '../../../..');
/** One example process: tsx compiles it and the SDK's sources, a swap, its events. */
const EXAMPLE_TIMEOUT_MS = 120_000;

let t: TestService;

beforeAll(async () => {
  t = await startTestService();
});

afterAll(() => t?.close());

describe('the webhooks example', () => {
  it(
    'registers an endpoint, swaps, and prints every event of the swap verified, in order',
    async () => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--conditions=source', '--import', 'tsx', 'examples/webhooks.ts'],
        {
          cwd: REPOSITORY,
          timeout: EXAMPLE_TIMEOUT_MS,
          env: { ...process.env, POOLPARTY_URL: t.url, POOLPARTY_DATA_DIR: t.settings.dataDir },
        },
      );
      const last = stdout.trim().split('\n').at(-1) ?? '';
      expect(last).toMatch(/^webhooks: \d+ events of \S+, each verified: swap\.pending → /);
      expect(last).toMatch(/ → swap\.completed$/);
      expect(stdout).toMatch(/verified evt_\S+: swap\.deposit_received/);
    },
    EXAMPLE_TIMEOUT_MS + 10_000,
  );
});
