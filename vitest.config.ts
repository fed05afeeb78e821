import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // A workspace package is read from its TypeScript wherever it offers that: the SDK's `source`
  // condition points into src/, as it does for the web app's build, so a test of the service
  // through the SDK runs the SDK as it is now, not the last build of it in dist/.
  ssr: { resolve: { conditions: ['source', ...defaultServerConditions] } },
  test: {
    // bench/test holds unit tests of the benchmarks' pure helpers; the benchmarks never run here.
    include: ['packages/*/test/**/*.test.ts', 'bench/test/**/*.test.ts'],
    // Tests that start the service as a process of its own (`poolparty serve`, `npm start`) do that
    // inside the test, twice in the restart test; on a loaded two-core machine one start alone can
    // take 20 s.
    testTimeout: 60_000,
    // Starting a whole service (embedded database, migrations, devnet seed) on a busy two-core
    // machine can take a while; it is set-up, not the behaviour under test.
    hookTimeout: 60_000,
    // Two files at once on a two-core machine (Vitest's default is one fewer than the cores: one).
    // Most files wait on processes, sockets and the database more than they compute: the suite took
    // 854 s this way against 1 198 s one at a time, on a day the machine ran at half speed.
    maxWorkers: 2,
  },
});
