import { describe, expect, it } from 'vitest';
import { BaseError, causeChain, findCause } from '../src/base-error.js';
import { DomainError } from '../src/domain-error.js';
import { assert, InvariantError } from '../src/invariant.js';

describe('BaseError', () => {
  it('carries its code, its details and its cause, and leaves the name to its class', () => {
    const cause = new Error('socket hang up');
    const error = new BaseError('ledger_unreachable', 'no ledger', { details: { port: 1 }, cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('ledger_unreachable');
    expect(error.message).toBe('no ledger');
    expect(error.details).toEqual({ port: 1 });
    expect(error.cause).toBe(cause);
    expect(error.name).toBe('Error');
  });

  it('has no own cause unless one is given, as a plain Error', () => {
    const error = new BaseError('x', 'no cause');
    expect(Object.hasOwn(error, 'cause')).toBe(false);
    expect(error.details).toBeUndefined();
    expect(Object.hasOwn(new BaseError('x', 'given', { cause: undefined }), 'cause')).toBe(true);
  });

  it('yields itself and its causes in order, and walks them as a domain error does', () => {
    const root = Object.assign(new Error('terminated'), { code: '57P01' });
    const middle = new Error('query failed', { cause: root });
    const error = new BaseError('store_unavailable', 'lost', { cause: middle });
    expect([...error.chain()]).toEqual([error, middle, root]);
    expect(error.walk()).toBe(root);
    expect(error.walk((e) => e === middle)).toBe(middle);
    expect(error.walk(() => false)).toBeNull();
  });

  it('stops a chain of causes that loops', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect([...causeChain(a)]).toHaveLength(16);
    expect([...causeChain(a, 3)]).toEqual([a, b, a]);
    expect(findCause(a, () => false)).toBeNull();
    expect([a, b]).toContain(new BaseError('x', 'loop', { cause: a }).walk());
  });

  it('follows a cause that is no Error, and stops there', () => {
    expect([...causeChain(new Error('top', { cause: 'text' }))]).toHaveLength(2);
    expect([...causeChain('text')]).toEqual(['text']);
  });

  it('is the base of a domain error, whose details are its problem extensions', () => {
    const error = new DomainError('amount_below_minimum', 'Too small.', { minimumAmount: '1' });
    expect(error).toBeInstanceOf(BaseError);
    expect(error.details).toEqual({ minimumAmount: '1' });
    expect([...error.chain()]).toEqual([error]);
  });
});

describe('assert', () => {
  it('passes when the condition holds', () => {
    expect(() => assert(true, 'never')).not.toThrow();
  });

  it('throws an InvariantError with the message and details otherwise', () => {
    let thrown: unknown;
    try {
      assert(false, 'pool p1 went away under its lock', { poolId: 'p1' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvariantError);
    expect(thrown).toBeInstanceOf(BaseError);
    expect(thrown).toMatchObject({
      name: 'InvariantError',
      code: 'invariant_violated',
      message: 'pool p1 went away under its lock',
      details: { poolId: 'p1' },
    });
  });

  it('narrows what it asserts', () => {
    const found = ['a'].find((x) => x === 'a');
    assert(found !== undefined, 'a is there');
    expect(found.toUpperCase()).toBe('A');
  });
});
