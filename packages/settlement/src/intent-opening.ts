/**
 * Opening an intent of any kind (docs/spec/lifecycle.md#intents, docs/spec/liquidity.md#intents):
 * fresh identifiers, the intent and its first event in one statement, and — when the request came
 * with an `Idempotency-Key` — its answer stored in the same transaction, so the intent exists
 * exactly when its answer is kept (docs/spec/protocol.md#idempotency). A fresh identifier that
 * collides is drawn again; the kind's own one-open-intent guard becomes its domain error.
 *
 * A kind brings its planner (what its intent holds, decided before this runs), its insert, its
 * view and its guard's refusal; this is the same for every kind.
 */
import type { DomainError } from '@poolparty/core';
import { type Database, isUniqueViolation, type Queryable } from '@poolparty/store';
import { newDepositReference } from './identifiers.js';

/** Inserts tried with fresh identifiers before a collision is reported as a failure. */
export const IDENTIFIER_ATTEMPTS_MAX = 3;

/** Stores the answer under the request's idempotency key, inside the intent's transaction. */
export type OpeningAnswer = (
  tx: Queryable,
  response: { readonly status: number; readonly body: unknown },
) => Promise<void>;

export interface IntentIdentifiers {
  readonly intentId: string;
  readonly depositReference: string;
}

export interface IntentOpening<R, V> {
  /** The unique constraints a fresh random identifier can (astronomically rarely) collide with. */
  readonly identifierConstraints: readonly string[];
  readonly newIntentId: () => string;
  /** Writes the intent and its first event in one statement. */
  readonly insert: (q: Queryable, ids: IntentIdentifiers) => Promise<R>;
  /** What the route answers for the new intent (201). */
  readonly view: (record: R) => V;
  /** The kind's guard refusing a second open intent, as its domain error; null for others. */
  readonly refusal: (error: unknown) => DomainError | null;
}

/** Opens the intent, answering its view; stores that answer with it when `answer` is given. */
export async function openIntent<R, V>(
  db: Database,
  opening: IntentOpening<R, V>,
  answer: OpeningAnswer | null = null,
): Promise<V> {
  try {
    return await retryingCollisions(opening.identifierConstraints, async () => {
      const ids = { intentId: opening.newIntentId(), depositReference: newDepositReference() };
      if (answer === null) return opening.view(await opening.insert(db, ids));
      return db.transaction(async (tx) => {
        const view = opening.view(await opening.insert(tx, ids));
        await answer(tx, { status: 201, body: view });
        return view;
      });
    });
  } catch (error) {
    throw opening.refusal(error) ?? error;
  }
}

export function isIdentifierCollision(constraints: readonly string[], error: unknown): boolean {
  return constraints.some((constraint) => isUniqueViolation(error, constraint));
}

/**
 * Runs `attempt` again, with whatever fresh identifiers it draws, while it collides with an
 * existing intent id or deposit reference; at most `IDENTIFIER_ATTEMPTS_MAX` times.
 */
export async function retryingCollisions<T>(
  constraints: readonly string[],
  attempt: () => Promise<T>,
): Promise<T> {
  for (let attemptNo = 1; ; attemptNo++) {
    try {
      return await attempt();
    } catch (error) {
      if (attemptNo >= IDENTIFIER_ATTEMPTS_MAX || !isIdentifierCollision(constraints, error)) {
        throw error;
      }
    }
  }
}
