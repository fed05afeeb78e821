/**
 * An example of `examples/` run as an integrator runs it: a process of its own on the SDK's
 * sources, pointed at a service, with the keys of one party from the environment (and no
 * devnet.json in its data folder, an empty one of its own); its exit code and both of its streams.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const REPOSITORY = join(import.meta.dirname, '../../../../..');

export interface ExampleRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface ExampleTarget {
  readonly url: string;
  readonly apiKey: string;
  readonly party: { readonly partyId: string; readonly privateKey: string };
  /** A guard against a hung process, not a timing assertion. */
  readonly timeoutMs: number;
}

export async function runExampleAs(name: string, target: ExampleTarget): Promise<ExampleRun> {
  // An empty data folder: no devnet.json, so the keys come from the environment.
  const dataDir = mkdtempSync(join(tmpdir(), `pp-example-${name}-`));
  try {
    return await runIn(dataDir, name, target);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function runIn(dataDir: string, name: string, target: ExampleTarget): Promise<ExampleRun> {
  return promisify(execFile)(
    process.execPath,
    // The SDK's sources, as the repository's tests run them, not the last build of them.
    ['--conditions=source', '--import', 'tsx', `examples/${name}.ts`],
    {
      cwd: REPOSITORY,
      timeout: target.timeoutMs,
      env: {
        ...process.env,
        POOLPARTY_URL: target.url,
        POOLPARTY_DATA_DIR: dataDir,
        POOLPARTY_API_KEY: target.apiKey,
        POOLPARTY_PARTY_ID: target.party.partyId,
        POOLPARTY_PRIVATE_KEY: target.party.privateKey,
      },
    },
  ).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  );
}
