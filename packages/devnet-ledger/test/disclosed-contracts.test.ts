/**
 * The `disclosedContracts` of a prepare request as the devnet participant reads them: each with a
 * blob it can decode, and ids beside it that are the blob's, or INVALID_ARGUMENT.
 */
import { describe, expect, it } from 'vitest';
import { CantonApiError } from '../src/canton-errors.js';
import { parseDisclosures } from '../src/disclosed-contracts.js';
import { SYNCHRONIZER_ID } from '../src/identity.js';

const blobOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
const contract = { templateId: 'pkg:Mod:Holding', contractId: '00ab', createArgument: {} };
const disclosed = {
  ...contract,
  createdEventBlob: blobOf(contract),
  synchronizerId: SYNCHRONIZER_ID,
};

function refusal(value: unknown): { code: string; message: string } {
  try {
    parseDisclosures(value);
  } catch (error) {
    if (error instanceof CantonApiError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('not refused');
}

describe('disclosed contracts of a prepare request', () => {
  it('are read by the contract id their blob carries', () => {
    expect([...parseDisclosures([disclosed]).keys()]).toEqual(['00ab']);
    expect(parseDisclosures(undefined).size).toBe(0);
    // The ids beside the blob are optional, as on Canton.
    expect(parseDisclosures([{ createdEventBlob: disclosed.createdEventBlob }]).has('00ab')).toBe(
      true,
    );
  });

  it('are refused, INVALID_ARGUMENT, when the blob is missing, unreadable or says otherwise', () => {
    const cases: [unknown, RegExp][] = [
      [[{ ...disclosed, createdEventBlob: '' }], /createdEventBlob must be non-empty/],
      [[{ ...disclosed, createdEventBlob: 'bm90IGpzb24=' }], /cannot be decoded/],
      [[{ ...disclosed, contractId: '00cd' }], /Mismatch between .*contractId \(00cd\)/],
      [[{ ...disclosed, templateId: 'pkg:Mod:Other' }], /Mismatch between .*templateId/],
      [[{ ...disclosed, synchronizerId: 'other::1220' }], /synchronizerId/],
      [['not an object'], /disclosedContracts\[0\]/],
    ];
    for (const [value, message] of cases) {
      const { code, message: said } = refusal(value);
      expect(code).toBe('INVALID_ARGUMENT');
      expect(said).toMatch(message);
    }
  });
});
