/**
 * The wire schemas: one source for server validation and serialization, the OpenAPI document
 * and the SDK's types. Conventions are described in common.ts.
 */
import type { TSchema } from '@sinclair/typebox';
import { ATOMIC_SWAP_SCHEMAS } from './atomic-swap.js';
import { AUTH_SCHEMAS } from './auth.js';
import { COMMON_SCHEMAS } from './common.js';
import { DEVNET_SCHEMAS } from './devnet.js';
import { LIQUIDITY_SCHEMAS } from './liquidity.js';
import { MARKET_SCHEMAS } from './market.js';
import { PORTAL_SCHEMAS } from './portal.js';
import { PROBLEM_SCHEMAS } from './problem.js';
import { QUOTE_SCHEMAS } from './quote.js';
import { SWAP_SCHEMAS } from './swap.js';
import { TRACK_SCHEMAS } from './track.js';
import { WEBHOOK_SCHEMAS } from './webhooks.js';

export * from './atomic-swap.js';
export * from './auth.js';
export * from './common.js';
export * from './devnet.js';
export * from './liquidity.js';
export * from './market.js';
export * from './portal.js';
export * from './problem.js';
export * from './quote.js';
export * from './swap.js';
export * from './track.js';
export * from './webhooks.js';

/** A named wire schema: what an OpenAPI `components.schemas` entry is made from. */
export type WireSchema = TSchema & { readonly $id: string; readonly description: string };

/** Every named wire schema, each self-contained (nested schemas are inlined, not referenced). */
export const WIRE_SCHEMAS: readonly WireSchema[] = [
  ...COMMON_SCHEMAS,
  ...MARKET_SCHEMAS,
  ...QUOTE_SCHEMAS,
  ...SWAP_SCHEMAS,
  ...ATOMIC_SWAP_SCHEMAS,
  ...TRACK_SCHEMAS,
  ...LIQUIDITY_SCHEMAS,
  ...AUTH_SCHEMAS,
  ...PORTAL_SCHEMAS,
  ...WEBHOOK_SCHEMAS,
  ...PROBLEM_SCHEMAS,
  ...DEVNET_SCHEMAS,
] as readonly WireSchema[];
