/** The service's configuration for its own pages, read at start (the shape is declared in core). */
import type { AppConfig } from '@poolparty/core';

export type { AppConfig };

export async function loadAppConfig(): Promise<AppConfig> {
  const response = await fetch('/app-config.json', { headers: { accept: 'application/json' } });
  if (!response.ok)
    throw new Error(`The service did not give its configuration (${response.status}).`);
  return (await response.json()) as AppConfig;
}
