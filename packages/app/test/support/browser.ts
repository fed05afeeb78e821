/**
 * What the app's browser tests share: the app built from its sources (as `npm install` builds
 * it), Chromium through playwright-core, axe-core run inside a page, and screenshots written to
 * `packages/app/test-output/` (gitignored) for people to look at.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { build } from 'vite';

export const APP_DIR = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const SCREENSHOT_DIR = join(APP_DIR, 'test-output');

/**
 * Builds the app from its sources, as `npm install` does, into a folder of this test file's own
 * (test files run in parallel; one shared `dist` would be emptied under another's service).
 */
export async function buildApp(): Promise<{ dist: string; remove(): void }> {
  const dist = mkdtempSync(join(tmpdir(), 'poolparty-app-dist-'));
  await build({
    root: APP_DIR,
    configFile: join(APP_DIR, 'vite.config.ts'),
    logLevel: 'error',
    build: { outDir: dist, emptyOutDir: true },
  });
  return { dist, remove: () => rmSync(dist, { recursive: true, force: true }) };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

export interface AxeFinding {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: string[];
}

/**
 * The serious and critical accessibility violations axe finds in the page as it is now. The
 * source is evaluated through the DevTools protocol, so the page's own CSP (no inline script)
 * stays in force for everything else.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeFinding[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document) => Promise<unknown> } })
      .axe;
    const result = (await axe.run(document)) as {
      violations: {
        id: string;
        impact: string | null;
        help: string;
        nodes: { target: string[] }[];
      }[];
    };
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((node) => node.target.join(' ')),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  // The page as a visitor first sees it: no control left focused (and no tip left open).
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** Collects content security policy violations the page reports. */
export async function watchCspViolations(page: Page): Promise<string[]> {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(
        `Content Security Policy violation: ${event.violatedDirective} ${event.blockedURI}`,
      );
    });
  });
  return violations;
}
