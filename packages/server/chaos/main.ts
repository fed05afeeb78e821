/**
 * The entry of `npm run chaos` (run.ts says what a run does). It reads the command line first and
 * loads the run only when there is one to do, so `--help` and a refused option answer at once.
 */
import { pathToFileURL } from 'node:url';
import {
  CHAOS_USAGE,
  type ChaosOptions,
  ChaosUsageError,
  parseChaosArgs,
  wantsChaosHelp,
} from './options.js';

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (wantsChaosHelp(argv)) {
    console.log(CHAOS_USAGE);
    return 0;
  }
  let options: ChaosOptions;
  try {
    options = parseChaosArgs(argv);
  } catch (error) {
    if (!(error instanceof ChaosUsageError)) throw error;
    console.error(`chaos: ${error.message}`);
    console.error(CHAOS_USAGE.split('\n')[0]);
    return 2;
  }
  const { runChaos, runPassed } = await import('./run.js');
  const { markdownReport, writeReport } = await import('./report.js');
  const report = await runChaos(options);
  console.log(markdownReport(report));
  if (options.out !== null) {
    const written = writeReport(options.out, report);
    console.log(`chaos: report written to ${written.json} and ${written.markdown}`);
  }
  const passed = runPassed(report);
  console.log(`chaos: ${passed ? 'PASSED' : 'FAILED'}`);
  return passed ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error('chaos: the run failed:', error);
      process.exit(1);
    },
  );
}
