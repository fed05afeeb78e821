/**
 * The app's connection to the service, made once at start: the SDK client (`/v1` through the
 * operator's app key, swap calls with the connected wallet's token), the devnet helpers when the
 * service runs devnet, and the connected wallet, shared by every page through context.
 */
import { PoolParty } from '@poolparty/sdk';
import { Devnet } from '@poolparty/sdk/devnet';
import { type ComponentChildren, createContext } from 'preact';
import { useContext, useEffect, useMemo, useState } from 'preact/hooks';
import type { AppConfig } from './config.js';
import { ServiceReads } from './service-reads.js';
import { WalletSession } from './wallet-session.js';
import { hasWalletToRestore, rememberWallet, restoreWallet } from './wallets/restore.js';
import type { Wallet } from './wallets/wallet.js';

export interface Services {
  readonly config: AppConfig;
  /** Null when the operator gave the pages no API key. */
  readonly pp: PoolParty | null;
  /** The reads the SDK leaves out (pool history, any swap's progress); null like `pp`. */
  readonly reads: ServiceReads | null;
  /** Null outside devnet mode. */
  readonly devnet: Devnet | null;
  readonly session: WalletSession;
  readonly wallet: Wallet | null;
  /** True while a wallet kept from an earlier visit is being reconnected. */
  readonly walletRestoring: boolean;
  /** Connects (or, with null, forgets) the wallet the swap app uses. */
  setWallet(wallet: Wallet | null): void;
}

const ServicesContext = createContext<Services | null>(null);

export function useServices(): Services {
  const services = useContext(ServicesContext);
  if (services === null) throw new Error('useServices outside ServicesProvider');
  return services;
}

/** The client for this origin: the pages are served by the service they call. */
function createClients(config: AppConfig, session: WalletSession, origin: string) {
  const pp =
    config.apiKey === null
      ? null
      : new PoolParty({
          apiKey: config.apiKey,
          environment: config.environment,
          baseUrl: origin,
          walletToken: () => session.token(),
        });
  if (pp) session.bind(pp);
  const devnet = config.devnet ? new Devnet(origin) : null;
  const reads = config.apiKey === null ? null : new ServiceReads(config.apiKey);
  return { pp, reads, devnet };
}

export function ServicesProvider(props: { config: AppConfig; children: ComponentChildren }) {
  const session = useMemo(() => new WalletSession(), []);
  const clients = useMemo(
    () => createClients(props.config, session, window.location.origin),
    [props.config, session],
  );
  const [wallet, setWalletState] = useState<Wallet | null>(null);
  const [walletRestoring, setWalletRestoring] = useState(() => hasWalletToRestore(clients.devnet));
  // The wallet of an earlier visit reconnects by itself, so a reload resumes at once.
  useEffect(() => {
    restoreWallet(props.config, clients.devnet).then(
      (restored) => {
        if (restored !== null) {
          session.use(restored);
          setWalletState(restored);
        }
        setWalletRestoring(false);
      },
      () => setWalletRestoring(false),
    );
  }, [props.config, clients.devnet, session]);
  const value = useMemo<Services>(
    () => ({
      config: props.config,
      ...clients,
      session,
      wallet,
      walletRestoring,
      setWallet(next) {
        session.use(next);
        rememberWallet(next);
        setWalletState(next);
      },
    }),
    [props.config, clients, session, wallet, walletRestoring],
  );
  return <ServicesContext.Provider value={value}>{props.children}</ServicesContext.Provider>;
}
