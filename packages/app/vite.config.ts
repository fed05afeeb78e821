import { defaultClientConditions, defineConfig } from 'vite';
import { guidePlugin } from './scripts/guide-html.js';

/**
 * The app is served by the PoolParty service from `dist/` (packages/server/src/http/web-app.ts):
 * hashed file names under `assets/` so they can be cached for ever, and no inline script or style
 * so the pages run under a strict content security policy.
 */
export default defineConfig({
  base: '/',
  // The SDK is a workspace package: its TypeScript sources are used directly, so the app builds
  // whether or not the SDK's own `dist` exists yet when npm runs the workspaces' `prepare`.
  resolve: { conditions: ['source', ...defaultClientConditions] },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // The SDK guide page's HTML, rendered from the SDK's README at build time.
  plugins: [guidePlugin()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // A module preload polyfill would be an inline script; every browser the app supports has it.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    // The dApp SDK's chunk (~580 kB, loaded only when a Canton wallet connects) is over Vite's
    // default warning; `npm run size:app` holds the real budgets.
    chunkSizeWarningLimit: 700,
    target: 'es2022',
  },
});
