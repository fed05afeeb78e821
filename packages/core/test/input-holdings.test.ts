import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DisclosedHolding, inputHoldingsOf } from '../src/input-holdings.js';

const disclosed = (contractId: string, blob = `blob-of-${contractId}`): DisclosedHolding => ({
  contractId,
  templateId: '#splice-amulet:Splice.Amulet:Amulet',
  createdEventBlob: blob,
  synchronizerId: 'global-domain::1220aa',
});

describe("an atomic swap's input holdings as the request names them", () => {
  it('leaves the ids as they are, disclosing nothing, without inputHoldings', () => {
    expect(inputHoldingsOf({})).toEqual({ kind: 'named', disclosed: [] });
    expect(inputHoldingsOf({ inputHoldingIds: ['h1'] })).toEqual({
      kind: 'named',
      holdingIds: ['h1'],
      disclosed: [],
    });
    expect(inputHoldingsOf({ inputHoldingIds: ['h1'], inputHoldings: [] })).toMatchObject({
      holdingIds: ['h1'],
    });
  });

  it('names the disclosed holdings, in their order, once each', () => {
    const [a, b] = [disclosed('a'), disclosed('b')];
    expect(inputHoldingsOf({ inputHoldings: [b, a, b] })).toEqual({
      kind: 'named',
      holdingIds: ['b', 'a'],
      disclosed: [b, a],
    });
  });

  it('takes ids that name the same holdings, in any order, and refuses ids that do not', () => {
    const holdings = [disclosed('a'), disclosed('b')];
    expect(inputHoldingsOf({ inputHoldingIds: ['b', 'a'], inputHoldings: holdings })).toEqual({
      kind: 'named',
      holdingIds: ['a', 'b'],
      disclosed: holdings,
    });
    for (const ids of [['a'], ['a', 'b', 'c'], ['a', 'c']]) {
      expect(inputHoldingsOf({ inputHoldingIds: ids, inputHoldings: holdings }).kind).toBe(
        'mismatch',
      );
    }
  });

  it('refuses one id disclosed as two different contracts', () => {
    const refused = inputHoldingsOf({ inputHoldings: [disclosed('a'), disclosed('a', 'other')] });
    expect(refused).toMatchObject({ kind: 'mismatch' });
  });

  it('names exactly the distinct ids disclosed, whatever the list (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 20 }), (ids) => {
        const answer = inputHoldingsOf({ inputHoldings: ids.map((id) => disclosed(id)) });
        const expected = ids.length === 0 ? undefined : [...new Set(ids)];
        expect(answer.kind === 'named' ? answer.holdingIds : null).toEqual(expected);
      }),
    );
  });
});
