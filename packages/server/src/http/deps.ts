/**
 * What the HTTP routes share beyond the service context: the API-key look-ups, the rate-limit
 * buckets and the event-stream slots. Built once per app (app.ts) and handed to the route modules,
 * which import this type from here rather than from app.ts, which imports them.
 */
import type { ApiKeyDirectory } from '../auth/api-key-directory.js';
import type { StreamCaps } from './stream-caps.js';
import type { BucketStore } from './token-bucket.js';

export interface HttpDeps {
  readonly apiKeys: ApiKeyDirectory;
  readonly buckets: BucketStore;
  /** The event streams each wallet party and API key holds, against their caps. */
  readonly streamCaps: StreamCaps;
}
