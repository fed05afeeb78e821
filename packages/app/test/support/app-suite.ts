/**
 * What a browser suite runs against: the app built from its sources now, a service serving it,
 * and Chromium — started before the suite's tests, closed after them (the pages' contexts
 * first). The service and the browser are handed out before they exist, as stand-ins that read
 * the started ones, so a suite names them once at the top and uses them as it would the real
 * ones; a stand-in read before the suite's `beforeAll` ran fails the test with a plain message.
 */
import { startTestService, type TestService } from '@poolparty/server/testing';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { buildApp, launchChromium } from './browser.js';

export interface AppSuite {
  readonly t: TestService;
  readonly browser: Browser;
  /** The contexts the suite opens (newWatchedPage adds to it); closed after the suite. */
  readonly contexts: BrowserContext[];
}

/** Starts the app, a service serving it with `env` added to its settings, and Chromium. */
export function appSuite(env: Readonly<Record<string, string>> = {}): AppSuite {
  let started: { t: TestService; browser: Browser } | undefined;
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    app = await buildApp();
    const [t, browser] = await Promise.all([
      startTestService(env, { webAppDist: app.dist }),
      launchChromium(),
    ]);
    started = { t, browser };
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await started?.browser.close();
    await started?.t.close();
    app?.remove();
  });
  const standIn = <K extends keyof NonNullable<typeof started>>(key: K) =>
    new Proxy({} as NonNullable<typeof started>[K], {
      get(_, member) {
        if (started === undefined) throw new Error(`the suite's ${key} is read before it started`);
        const real = started[key];
        const value = Reflect.get(real, member);
        return typeof value === 'function' ? value.bind(real) : value;
      },
    });
  return { t: standIn('t'), browser: standIn('browser'), contexts };
}
