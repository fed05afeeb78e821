import { describe, expect, it } from 'vitest';
import {
  assertTransition,
  canTakeOfferOutcome,
  canTransition,
  EDGES,
  IllegalTransitionError,
  isLegEventName,
  LEG_EVENT_NAMES,
  LEG_EVENTS,
  LEG_STATES,
  legEventName,
  nextStates,
  refundPolicy,
  stateAfter,
  TRANSITIONS,
  TRIGGERS,
  transitionBetween,
} from '../src/lifecycle.js';
import type { SwapState } from '../src/swap-state.js';
import { IN_PROGRESS_STATES, isTerminal, SWAP_STATES, TERMINAL_STATES } from '../src/swap-state.js';

const allPairs = SWAP_STATES.flatMap((from) => SWAP_STATES.map((to) => [from, to] as const));

function reachableFrom(start: SwapState): Set<SwapState> {
  const seen = new Set<SwapState>([start]);
  const queue: SwapState[] = [start];
  for (let state = queue.shift(); state !== undefined; state = queue.shift()) {
    for (const next of nextStates(state)) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return seen;
}

describe('transition table', () => {
  it('allows exactly the pairs the table lists, for every pair of states', () => {
    for (const [from, to] of allPairs) {
      const listed = TRANSITIONS[from].includes(to);
      expect(canTransition(from, to), `${from} → ${to}`).toBe(listed);
      expect(transitionBetween(from, to) !== undefined, `${from} → ${to}`).toBe(listed);
    }
  });

  it('has an entry for every state and lists each edge once', () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...SWAP_STATES].sort());
    for (const state of SWAP_STATES) {
      expect(new Set(TRANSITIONS[state]).size).toBe(TRANSITIONS[state].length);
    }
    expect(EDGES.length).toBe(SWAP_STATES.reduce((n, s) => n + TRANSITIONS[s].length, 0));
  });

  it.each([
    ['pending', 'matched'],
    ['pending', 'cancelled'],
    ['pending', 'expired'],
    ['matched', 'deposit_received'],
    ['matched', 'failed'],
    ['deposit_received', 'forwarded'],
    ['forwarded', 'processing'],
    ['processing', 'sending_output'],
    ['processing', 'slippage_failed'],
    ['processing', 'price_impact_exceeded'],
    ['processing', 'insufficient_amount'],
    ['processing', 'insufficient_liquidity'],
    ['processing', 'no_output_holdings'],
    ['processing', 'failed'],
    ['processing', 'refund_failed'],
    ['sending_output', 'completed'],
    ['sending_output', 'output_failed'],
    ['sending_output', 'refund_failed'],
  ] as const)('allows %s → %s', (from, to) => {
    expect(canTransition(from, to)).toBe(true);
  });

  it.each([
    ['pending', 'completed'],
    ['pending', 'deposit_received'],
    ['pending', 'processing'],
    ['pending', 'refund_failed'],
    ['matched', 'cancelled'],
    ['matched', 'expired'],
    ['processing', 'cancelled'],
    ['processing', 'expired'],
    ['processing', 'completed'],
    ['processing', 'output_failed'],
    ['sending_output', 'cancelled'],
    ['sending_output', 'slippage_failed'],
    ['sending_output', 'processing'],
    ['forwarded', 'deposit_received'],
    ['deposit_received', 'refund_failed'],
  ] as const)('refuses %s → %s', (from, to) => {
    expect(canTransition(from, to)).toBe(false);
  });

  it('gives terminal states no way out', () => {
    for (const from of TERMINAL_STATES) {
      expect(nextStates(from)).toEqual([]);
      for (const to of SWAP_STATES) expect(canTransition(from, to)).toBe(false);
    }
  });

  it('never returns to pending or to the same state', () => {
    for (const [from, to] of allPairs) {
      if (to === 'pending' || to === from) expect(canTransition(from, to)).toBe(false);
    }
  });

  it('cannot be mutated by a caller', () => {
    expect(Object.isFrozen(TRANSITIONS)).toBe(true);
    expect(Object.isFrozen(TRANSITIONS.pending)).toBe(true);
    expect(Object.isFrozen(EDGES)).toBe(true);
    expect(EDGES.every((edge) => Object.isFrozen(edge))).toBe(true);
  });
});

describe('reachability', () => {
  it('reaches every terminal state from pending', () => {
    const reachable = reachableFrom('pending');
    for (const state of TERMINAL_STATES) expect(reachable.has(state), state).toBe(true);
  });

  it('reaches every in-progress state from pending', () => {
    const reachable = reachableFrom('pending');
    for (const state of IN_PROGRESS_STATES) expect(reachable.has(state), state).toBe(true);
  });

  it('lets every in-progress state reach a terminal state', () => {
    for (const state of IN_PROGRESS_STATES) {
      expect([...reachableFrom(state)].some(isTerminal), state).toBe(true);
    }
  });

  it('has no cycles, so every intent ends', () => {
    const visiting = new Set<SwapState>();
    const done = new Set<SwapState>();
    const acyclicFrom = (state: SwapState): boolean => {
      if (done.has(state)) return true;
      if (visiting.has(state)) return false;
      visiting.add(state);
      const ok = nextStates(state).every(acyclicFrom);
      visiting.delete(state);
      done.add(state);
      return ok;
    };
    expect(SWAP_STATES.every(acyclicFrom)).toBe(true);
  });
});

describe('assertTransition', () => {
  it('passes on a listed edge', () => {
    expect(() => assertTransition('pending', 'cancelled')).not.toThrow();
  });

  it('throws IllegalTransitionError carrying from and to', () => {
    let caught: unknown;
    try {
      assertTransition('processing', 'cancelled');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(IllegalTransitionError);
    expect(caught).toBeInstanceOf(Error);
    expect(caught).toMatchObject({
      from: 'processing',
      to: 'cancelled',
      code: 'illegal_transition',
      name: 'IllegalTransitionError',
    });
  });

  it('throws for every refused pair', () => {
    for (const [from, to] of allPairs) {
      if (!canTransition(from, to)) {
        expect(() => assertTransition(from, to)).toThrow(IllegalTransitionError);
      }
    }
  });
});

describe('triggers', () => {
  it('pick at most one edge from each state, so an observation decides the next state', () => {
    for (const from of SWAP_STATES) {
      const triggers = EDGES.filter((edge) => edge.from === from).map((edge) => edge.trigger);
      expect(new Set(triggers).size, from).toBe(triggers.length);
    }
  });

  it('map a state and a trigger to the edge it takes', () => {
    for (const edge of EDGES) expect(stateAfter(edge.from, edge.trigger)).toBe(edge.to);
    expect(stateAfter('pending', 'deposit_attributed')).toBe('matched');
    expect(stateAfter('processing', 'slippage_exceeded')).toBe('slippage_failed');
    expect(stateAfter('sending_output', 'payout_failed')).toBe('output_failed');
  });

  it('do not apply where the table has no edge for them', () => {
    expect(stateAfter('processing', 'cancel')).toBeUndefined();
    expect(stateAfter('completed', 'payout_committed')).toBeUndefined();
    expect(stateAfter('pending', 'payout_committed')).toBeUndefined();
  });

  it('are each used by some edge, and every edge says why', () => {
    for (const trigger of TRIGGERS) {
      expect(
        EDGES.some((edge) => edge.trigger === trigger),
        trigger,
      ).toBe(true);
    }
    for (const edge of EDGES) expect(edge.why.length).toBeGreaterThan(0);
  });
});

describe('refundPolicy', () => {
  it('owes nothing on the way to completion, cancellation or expiry', () => {
    expect(refundPolicy('sending_output', 'completed')).toBe('none');
    expect(refundPolicy('pending', 'cancelled')).toBe('none');
    expect(refundPolicy('pending', 'expired')).toBe('none');
    for (const edge of EDGES) {
      if (!isTerminal(edge.to)) expect(refundPolicy(edge.from, edge.to)).toBe('none');
    }
  });

  it('refunds deposit minus network fee for every failure decided in processing', () => {
    for (const to of [
      'slippage_failed',
      'price_impact_exceeded',
      'insufficient_amount',
      'insufficient_liquidity',
      'no_output_holdings',
      'failed',
    ] as const) {
      expect(refundPolicy('processing', to), to).toBe('deposit_minus_network_fee');
    }
  });

  it('reverses the trade when the payout fails', () => {
    expect(refundPolicy('sending_output', 'output_failed')).toBe('reversal');
  });

  it('hands to an operator when a refund cannot commit', () => {
    expect(refundPolicy('processing', 'refund_failed')).toBe('operator');
    expect(refundPolicy('sending_output', 'refund_failed')).toBe('operator');
  });

  it('depends on the edge: failing before custody returns the offer instead', () => {
    expect(refundPolicy('matched', 'failed')).toBe('offer_returned');
  });

  it('refunds on every failing edge out of a state where the deposit is in custody', () => {
    for (const edge of EDGES) {
      const inCustody = edge.from === 'processing' || edge.from === 'sending_output';
      if (inCustody && edge.to !== 'completed' && edge.to !== 'sending_output') {
        expect(['deposit_minus_network_fee', 'reversal', 'operator']).toContain(edge.refund);
      }
    }
  });

  it('rejects a pair that is not an edge', () => {
    expect(() => refundPolicy('pending', 'completed')).toThrow(IllegalTransitionError);
  });
});

describe('leg events', () => {
  it('names every event <leg>_<outcome>, payout first, each offer before its outcomes', () => {
    const outcomes = ['offered', 'accepted', 'rejected', 'expired'];
    const named = ['payout', 'refund'].flatMap((leg) => outcomes.map((o) => `${leg}_${o}`));
    expect(LEG_EVENT_NAMES).toEqual(named);
    for (const event of LEG_EVENTS) {
      expect(legEventName(event.leg, event.outcome)).toBe(event.name);
      expect(isLegEventName(event.name)).toBe(true);
      // A leg event is never a state name, so one stream can carry both.
      expect((SWAP_STATES as readonly string[]).includes(event.name)).toBe(false);
    }
    expect(isLegEventName('completed')).toBe(false);
  });

  it('leaves the leg in the state its outcome names: accepted is committed', () => {
    const states = Object.fromEntries(LEG_EVENTS.map((event) => [event.name, event.legState]));
    expect(states).toMatchObject({
      payout_offered: 'offered',
      payout_accepted: 'committed',
      refund_rejected: 'rejected',
      refund_expired: 'expired',
    });
    for (const event of LEG_EVENTS) expect(LEG_STATES).toContain(event.legState);
  });

  it('happens only while the intent waits in a state that sent the leg', () => {
    for (const event of LEG_EVENTS) {
      for (const state of event.during) expect(isTerminal(state)).toBe(false);
    }
    const during = (name: string) => LEG_EVENTS.find((event) => event.name === name)?.during;
    expect(during('payout_offered')).toEqual(['sending_output']);
    expect(during('refund_offered')).toEqual(['processing', 'sending_output']);
    // The payout leg's outcomes lead out of sending_output along listed edges.
    expect(stateAfter('sending_output', 'payout_committed')).toBe('completed');
    expect(stateAfter('sending_output', 'payout_failed')).toBe('output_failed');
  });

  it('takes an offer once and one outcome after it, never another', () => {
    expect(canTakeOfferOutcome(null, 'offered')).toBe(true);
    for (const outcome of ['accepted', 'rejected', 'expired'] as const) {
      expect(canTakeOfferOutcome(null, outcome)).toBe(false);
      expect(canTakeOfferOutcome('offered', outcome)).toBe(true);
      for (const ended of ['committed', 'rejected', 'expired'] as const) {
        expect(canTakeOfferOutcome(ended, outcome)).toBe(false);
        expect(canTakeOfferOutcome(ended, 'offered')).toBe(false);
      }
    }
    expect(canTakeOfferOutcome('offered', 'offered')).toBe(false);
  });
});
