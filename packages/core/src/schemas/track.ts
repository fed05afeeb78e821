/**
 * A party's swaps of both kinds, newest first (docs/spec/lifecycle.md#track): the deposit flow's
 * intents as SwapStatus and the atomic swaps as AtomicSwapStatus, one list with one cursor.
 */
import { type Static, Type } from '@sinclair/typebox';
import { ATOMIC_SWAP_STATES, type AtomicSwapState } from '../atomic-swap.js';
import { SWAP_STATES, type SwapState } from '../swap-state.js';
import { AtomicSwapStatusSchema } from './atomic-swap.js';
import { enumOf, inline, PartyIdSchema } from './common.js';
import { SwapStatusSchema } from './swap.js';

export const TRACK_LIMIT_DEFAULT = 20;
const TRACK_LIMIT_MAX = 100;

/** The two kinds of swap a party's list holds: the deposit flow's and the atomic ones. */
export const SWAP_KINDS = ['deposit', 'atomic'] as const;
export type SwapKind = (typeof SWAP_KINDS)[number];

/** Every state a listed swap can be in, of either kind, each once. */
export const TRACKED_STATES: readonly (SwapState | AtomicSwapState)[] = [
  ...new Set([...SWAP_STATES, ...ATOMIC_SWAP_STATES]),
];

export const TrackQuerySchema = Type.Object(
  {
    status: Type.Optional(
      enumOf(TRACKED_STATES, {
        description: 'Only swaps in this state (a state of either kind).',
      }),
    ),
    kind: Type.Optional(
      enumOf(SWAP_KINDS, { description: 'Only swaps of this kind; both when absent.' }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: TRACK_LIMIT_MAX,
        default: TRACK_LIMIT_DEFAULT,
        description: 'Page size.',
      }),
    ),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 512, description: '`nextCursor` of the last page.' }),
    ),
  },
  {
    $id: 'TrackQuery',
    description: 'Query of `GET /v1/track/{partyId}`.',
    additionalProperties: false,
  },
);
export type TrackQuery = Static<typeof TrackQuerySchema>;

export const TrackResultSchema = Type.Object(
  {
    partyId: inline(PartyIdSchema),
    swaps: Type.Array(Type.Union([inline(SwapStatusSchema), inline(AtomicSwapStatusSchema)]), {
      description: 'Newest first; `kind` tells a SwapStatus from an AtomicSwapStatus.',
    }),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `cursor` for the next page; null on the last page.',
    }),
  },
  { $id: 'TrackResult', description: 'One page of the swaps of a party, of both kinds.' },
);
export type TrackResult = Static<typeof TrackResultSchema>;

export const TRACK_SCHEMAS = [TrackQuerySchema, TrackResultSchema] as const;
