/**
 * What a page asked of one kind of object (a liquidity intent, a withdrawal): how many event
 * streams it opened and how many plain reads it made, so a test can tell following by stream
 * from polling.
 */
import type { Page } from 'playwright-core';

export interface FollowedRequests {
  streams: number;
  reads: number;
}

export function countFollowRequests(page: Page, stream: RegExp, read: RegExp): FollowedRequests {
  const seen = { streams: 0, reads: 0 };
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (stream.test(path)) seen.streams += 1;
    else if (read.test(path) && request.method() === 'GET') seen.reads += 1;
  });
  return seen;
}
