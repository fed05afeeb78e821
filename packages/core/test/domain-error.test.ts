import { describe, expect, it } from 'vitest';
import { DomainError, isDomainError } from '../src/domain-error.js';

describe('DomainError', () => {
  it('carries its code, the sentence a client is shown and the members it acts on', () => {
    const error = new DomainError('amount_below_minimum', 'The amount is below the minimum.', {
      minimumAmount: '1.5',
    });
    expect(error.code).toBe('amount_below_minimum');
    expect(error.shortMessage).toBe('The amount is below the minimum.');
    expect(error.message).toBe('The amount is below the minimum.');
    expect(error.extensions).toEqual({ minimumAmount: '1.5' });
    expect(error.retryAfterSeconds).toBeUndefined();
    expect(isDomainError(error)).toBe(true);
    expect(isDomainError(new Error('plain'))).toBe(false);
  });

  it('keeps its cause apart from the short message, and names it in the log message', () => {
    const cause = new Error('connection reset');
    const error = new DomainError(
      'ledger_unavailable',
      'The ledger cannot be read yet.',
      {},
      {
        cause,
        retryAfterSeconds: 2,
      },
    );
    expect(error.shortMessage).toBe('The ledger cannot be read yet.');
    expect(error.message).toBe('The ledger cannot be read yet. (caused by: connection reset)');
    expect(error.cause).toBe(cause);
    expect(error.retryAfterSeconds).toBe(2);
  });

  it('walks its causes to the deepest, or to the first one picked', () => {
    const root = Object.assign(new Error('terminated'), { code: '57P01' });
    const middle = new Error('query failed', { cause: root });
    const error = new DomainError('internal_error', 'Failed.', {}, { cause: middle });
    expect(error.walk()).toBe(root);
    expect(error.walk((e) => (e as { code?: string }).code === '57P01')).toBe(root);
    expect(error.walk((e) => e === middle)).toBe(middle);
    expect(error.walk((e) => e === 'nothing')).toBeNull();
    expect(new DomainError('not_found', 'Nothing here.').walk()).toBeInstanceOf(DomainError);
  });

  it('stops walking a chain of causes that loops', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    const error = new DomainError('internal_error', 'Failed.', {}, { cause: a });
    expect([a, b]).toContain(error.walk());
    expect(error.walk(() => false)).toBeNull();
  });
});
