import type { LedgerPort } from '@poolparty/ledger';
import type { ServiceClock } from '../clock.js';
import { ApiError } from '../http/problem.js';
import type { Database } from '../store/database.js';
import type { Quoter } from './quoter.js';

export interface LiveQuoterDeps {
  readonly db: Database;
  readonly ledger: LedgerPort;
  readonly clock: ServiceClock;
}

export async function createLiveQuoter(_deps: LiveQuoterDeps): Promise<Quoter> {
  return {
    quote: async () => {
      throw new ApiError('not_implemented', 'Quotes are not available yet.');
    },
    invalidate: () => {},
    close: async () => {},
  };
}
