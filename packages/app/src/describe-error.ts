import { PoolPartyError } from '@poolparty/sdk';

/** One sentence for people, with the service's stable code when there is one. */
export function describeError(error: unknown): string {
  if (error instanceof PoolPartyError) return `${error.message} (${error.code})`;
  if (error instanceof Error) return error.message;
  return String(error);
}
