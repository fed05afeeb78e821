/**
 * The browser bundle in Chromium, from a page on another origin than the service (so CORS is
 * part of the test): wallet authentication signed in the page with WebCrypto Ed25519, a full swap
 * whose deposit the wallet (here Node, through the devnet ledger) sends, and a cancelled one.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type * as Sdk from '@poolparty/sdk';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaled } from './support/amounts.js';
import { type DevnetParty, type Live, startLive } from './support/live.js';

const CHROMIUM = '/usr/bin/chromium';
const REPOSITORY = join(import.meta.dirname, '../../../..');
/** The SDK's build: esbuild's bundles and tsc's declarations, slower on a busy machine. */
const BUILD_TIMEOUT_MS = 120_000;

let live: Live;
let site: Server;
let siteUrl: string;
let browser: Browser;
let page: Page;

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>PoolParty SDK</title>
<script type="module">
  import * as sdk from './poolparty.browser.js';
  window.sdk = sdk;
  window.sdkReady = true;
</script>`;

/**
 * The browser bundle as the SDK's sources make it now: the package's own build (which replaces
 * each file of dist/ in one rename, so a test reading dist/ meanwhile sees whole files), then
 * the file its `@poolparty/sdk/browser` entry names.
 */
async function buildBrowserBundle(): Promise<string> {
  await promisify(execFile)('npm', ['run', 'build', '-w', '@poolparty/sdk'], {
    cwd: REPOSITORY,
    timeout: BUILD_TIMEOUT_MS,
  });
  return createRequire(import.meta.url).resolve('@poolparty/sdk/browser');
}

function serveStatic(file: string): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.url === '/poolparty.browser.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' });
      response.end(readFileSync(file));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(PAGE);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  let bundle: string;
  [live, bundle] = await Promise.all([startLive(), buildBrowserBundle()]);
  site = await serveStatic(bundle);
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  page = await browser.newPage();
  await page.goto(siteUrl);
  await page.waitForFunction(() => (window as unknown as { sdkReady?: boolean }).sdkReady === true);
}, BUILD_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => site?.close(resolve));
  await live?.close();
});

const base64url = (hex: string) => Buffer.from(hex, 'hex').toString('base64url');

/** What the page needs to act as the app and the user's wallet. */
function pageConfig(party: DevnetParty) {
  return {
    apiKey: live.t.apiKey,
    baseUrl: live.t.url,
    poolId: live.canonical.poolId,
    partyId: party.partyId,
    // The wallet's key as a JWK, for WebCrypto.
    jwk: {
      kty: 'OKP',
      crv: 'Ed25519',
      d: base64url(party.privateKey),
      x: base64url(party.publicKey),
    },
  };
}

type PageConfig = ReturnType<typeof pageConfig>;
type WindowWithSdk = Window & { sdk: typeof Sdk; deposit: (intent: unknown) => Promise<void> };

describe('the browser bundle', () => {
  it('loads from another origin than the service and answers a quote', async () => {
    expect(new URL(siteUrl).origin).not.toBe(new URL(live.t.url).origin);
    const quote = await page.evaluate(
      async (config) => {
        const { sdk } = window as unknown as WindowWithSdk;
        const pp = new sdk.PoolParty({
          apiKey: config.apiKey,
          environment: 'devnet',
          baseUrl: config.baseUrl,
        });
        return pp.quotes.get({ from: 'Amulet', to: 'USDCx', amount: '100', poolId: config.poolId });
      },
      pageConfig(await live.newParty('browser-quote', '0')),
    );
    expect(quote.totalInputAmount).toBe('100');
  });

  it('runs a whole swap: WebCrypto wallet auth, create, deposit, events, wait()', async () => {
    const user = await live.newParty('browser-swap');
    await page.exposeFunction('deposit', (intent: Sdk.SwapIntent) => live.deposit(user, intent));
    const outcome = await page.evaluate(async (config: PageConfig) => {
      const { sdk, deposit } = window as unknown as WindowWithSdk;
      let token: string | undefined;
      const pp = new sdk.PoolParty({
        apiKey: config.apiKey,
        environment: 'devnet',
        baseUrl: config.baseUrl,
        walletToken: () => token,
      });
      const challenge = await pp.walletAuth.requestChallenge(config.partyId);
      const key = await crypto.subtle.importKey('jwk', config.jwk, { name: 'Ed25519' }, false, [
        'sign',
      ]);
      const signature = await crypto.subtle.sign(
        'Ed25519',
        key,
        new TextEncoder().encode(challenge.message),
      );
      const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
      const rawPublicKey = Uint8Array.from(
        atob(config.jwk.x.replace(/-/g, '+').replace(/_/g, '/')),
        (c) => c.charCodeAt(0),
      );
      ({ token } = await pp.walletAuth.verifyChallenge({
        partyId: config.partyId,
        nonce: challenge.nonce,
        signature: toBase64(new Uint8Array(signature)),
        publicKey: toBase64(rawPublicKey),
      }));
      const swap = await pp.swaps.create({
        fromToken: 'Amulet',
        toToken: 'USDCx',
        amount: '100',
        poolId: config.poolId,
      });
      const fired: string[] = [];
      for (const name of sdk.SWAP_EVENT_NAMES) swap.on(name, () => fired.push(name));
      await deposit({ ...swap });
      const result = await swap.wait({ timeout: 30_000 });
      return {
        fired,
        actualOutput: result.actualOutput,
        outputToken: result.outputToken,
        minOutput: swap.minOutput,
      };
    }, pageConfig(user));
    expect(outcome.outputToken).toBe('USDCx');
    expect(scaled(outcome.actualOutput)).toBeGreaterThanOrEqual(scaled(outcome.minOutput));
    expect(outcome.fired.at(-1)).toBe('completed');
  });

  it('cancels a swap: wait() rejects with a CancelledError the page recognises', async () => {
    const user = await live.newParty('browser-cancel');
    const token = await live.walletToken(user);
    const outcome = await page.evaluate(
      async ({ config, token }) => {
        const { sdk } = window as unknown as WindowWithSdk;
        const pp = new sdk.PoolParty({
          apiKey: config.apiKey,
          environment: 'devnet',
          baseUrl: config.baseUrl,
          walletToken: token,
        });
        const swap = await pp.swaps.create({
          fromToken: 'Amulet',
          toToken: 'USDCx',
          amount: '100',
          poolId: config.poolId,
        });
        await swap.cancel();
        const error = await swap.wait().catch((e: unknown) => e);
        return {
          cancelled: error instanceof sdk.CancelledError,
          outcome: error instanceof sdk.SwapOutcomeError,
          state: (error as Sdk.CancelledError).swapStatus.status,
        };
      },
      { config: pageConfig(user), token },
    );
    expect(outcome).toEqual({ cancelled: true, outcome: true, state: 'cancelled' });
  });
});
