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
import { WalletSession } from './wallet-session.js';
import { BrowserDevnetWallet, storedKeyFile } from './wallets/devnet-wallet.js';
import type { Wallet } from './wallets/wallet.js';

export interface Services {
  readonly config: AppConfig;
  /** Null when the operator gave the pages no API key. */
  readonly pp: PoolParty | null;
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
export function createClients(config: AppConfig, session: WalletSession, origin: string) {
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
  return { pp, devnet };
}

export function ServicesProvider(props: { config: AppConfig; children: ComponentChildren }) {
  const session = useMemo(() => new WalletSession(), []);
  const clients = useMemo(
    () => createClients(props.config, session, window.location.origin),
    [props.config, session],
  );
  const [wallet, setWalletState] = useState<Wallet | null>(null);
  const [walletRestoring, setWalletRestoring] = useState(
    () => clients.devnet !== null && storedKeyFile() !== null,
  );
  // The devnet party kept in this browser reconnects by itself, so a reload resumes at once.
  useEffect(() => {
    const keyFile = storedKeyFile();
    if (clients.devnet === null || keyFile === null) return;
    const restored = new BrowserDevnetWallet(clients.devnet, keyFile);
    restored.connect().then(
      () => {
        session.use(restored);
        setWalletState(restored);
        setWalletRestoring(false);
      },
      () => setWalletRestoring(false),
    );
  }, [clients.devnet, session]);
  const value = useMemo<Services>(
    () => ({
      config: props.config,
      ...clients,
      session,
      wallet,
      walletRestoring,
      setWallet(next) {
        session.use(next);
        setWalletState(next);
      },
    }),
    [props.config, clients, session, wallet, walletRestoring],
  );
  return <ServicesContext.Provider value={value}>{props.children}</ServicesContext.Provider>;
}
