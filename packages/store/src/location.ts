/** Where a store is, as the commands that open one are told it. */
import type { Environment } from '@poolparty/core';

export interface StoreLocation {
  /** The data folder: the embedded store lives in its `db/` when `databaseUrl` is null. */
  readonly dataDir: string;
  /** `postgres://…`; null: the embedded store. */
  readonly databaseUrl: string | null;
  /**
   * The environment the operator says the store belongs to, only when given: then a store of
   * the other environment is refused. Absent, a command works on whichever store it is pointed at.
   */
  readonly environment?: Environment;
}

/**
 * A PostgreSQL URL fit to print: the password replaced by `****`, so an error message or a
 * log line naming `DATABASE_URL` never leaks it.
 */
export function maskDatabaseUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password !== '') url.password = '****';
    return url.toString();
  } catch {
    return '(unparsable URL)';
  }
}
