import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    testTimeout: 20_000,
    // Starting a whole service (embedded database, migrations, devnet seed) on a busy two-core
    // machine can take a while; it is set-up, not the behaviour under test.
    hookTimeout: 60_000,
  },
});
