/**
 * The shell: header with the navigation, the routes, and the footer. Routes are the paths the
 * service answers with index.html (packages/server/src/http/web-app.ts); anything else under
 * them is this app's own "not found" page.
 */

import { useEffect, useRef } from 'preact/hooks';
import { ErrorBoundary, LocationProvider, lazy, Route, Router, useLocation } from 'preact-iso';
import type { AppConfig } from './config.js';
import { LandingPage } from './pages/landing.js';
import { NotFoundPage } from './pages/not-found.js';
import { SwapPage } from './pages/swap.js';
import { ServicesProvider } from './services.js';
import { SwapEndToasts } from './swap-end-toasts.js';

const SdkGuidePage = lazy(() => import('./pages/sdk-guide.js'));
// A swap's progress page is opened after the swap starts (or from a link): a chunk of its own.
const SwapProgressPage = lazy(() =>
  import('./pages/swap-progress.js').then((m) => m.SwapProgressPage),
);
// The pools' pages carry the charts: a chunk of their own, loaded when one is opened.
const PoolsPage = lazy(() => import('./pages/pools.js').then((m) => m.PoolsPage));
const PoolPage = lazy(() => import('./pages/pool.js').then((m) => m.PoolPage));
// The developer portal is a chunk of its own: swap users never download it.
const PortalHomePage = lazy(() =>
  import('./pages/developer/portal-home.js').then((m) => m.PortalHomePage),
);
const KeysPage = lazy(() => import('./pages/developer/keys.js').then((m) => m.KeysPage));
const WebhooksPage = lazy(() =>
  import('./pages/developer/webhooks.js').then((m) => m.WebhooksPage),
);
const EarningsPage = lazy(() =>
  import('./pages/developer/earnings.js').then((m) => m.EarningsPage),
);
const AnalyticsPage = lazy(() =>
  import('./pages/developer/analytics.js').then((m) => m.AnalyticsPage),
);

export function App(props: { config: AppConfig }) {
  return (
    <LocationProvider>
      <ServicesProvider config={props.config}>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="site-header">
          <a class="brand" href="/">
            PoolParty
          </a>
          <nav aria-label="Main">
            <ul>
              <li>
                <a href="/swap">Swap</a>
              </li>
              <li>
                <a href="/pools">Pools</a>
              </li>
              <li>
                <a href="/developer">Developers</a>
              </li>
              <li>
                <a href="/docs" target="_self">
                  API docs
                </a>
              </li>
            </ul>
          </nav>
          <span class="env-badge" title="The network this service runs on">
            {props.config.environment}
          </span>
        </header>
        <FocusOnNavigation />
        <SwapEndToasts />
        <main id="main" tabIndex={-1}>
          <ErrorBoundary>
            <Router>
              <Route path="/" component={LandingPage} />
              <Route path="/pools" component={PoolsPage} />
              <Route path="/pools/:poolId" component={PoolPage} />
              <Route path="/swap" component={SwapPage} />
              <Route path="/swaps/:intentId" component={SwapProgressPage} />
              <Route path="/developer/sdk" component={SdkGuidePage} />
              <Route path="/developer/keys" component={KeysPage} />
              <Route path="/developer/webhooks" component={WebhooksPage} />
              <Route path="/developer/earnings" component={EarningsPage} />
              <Route path="/developer/analytics" component={AnalyticsPage} />
              <Route path="/developer" component={PortalHomePage} />
              <Route path="/developer/*" component={NotFoundPage} />
              <Route default component={NotFoundPage} />
            </Router>
          </ErrorBoundary>
        </main>
        <footer class="site-footer">
          <p>
            PoolParty: non-custodial token swaps for Canton Network parties. A wallet that signs
            swaps in one transaction, both legs or neither; one that only transfers sends a deposit,
            and the output comes back to the same party.
          </p>
        </footer>
      </ServicesProvider>
    </LocationProvider>
  );
}

/**
 * After an in-app navigation, focus moves to the main content, so keyboard and screen-reader
 * users start at the new page instead of the link they left; the first load keeps the browser's
 * own focus.
 */
function FocusOnNavigation() {
  const { path } = useLocation();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    document.getElementById('main')?.focus();
  }, [path]);
  return null;
}
