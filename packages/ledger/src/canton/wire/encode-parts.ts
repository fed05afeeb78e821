/**
 * The pieces every rendering of a devnet contract or choice is made of: metadata, instrument ids,
 * created events, the annotations a node's result carries, and how a renderer picks the holdings
 * it accounts for.
 */
import { Amount, type Instrument, sameInstrument } from '@poolparty/core';
import type { Holding, Meta, Offset } from '../../port.js';
import { damlTime } from './daml.js';
import {
  BURNED_META_KEY,
  DEVNET_PACKAGE_ID,
  DEVNET_PACKAGE_NAME,
  SENDER_META_KEY,
  TX_KIND_META_KEY,
  type TxKind,
} from './ids.js';
import type { CreatedEvent, JsInterfaceView } from './types.js';

export const VIEW_OK = { code: 0, message: '', details: [] };
export const NO_EXTRA_ARGS = { context: { values: {} }, meta: { values: {} } };

export function unique(parties: readonly string[]): string[] {
  return [...new Set(parties)];
}

export function metadata(values: Meta): { values: Record<string, string> } {
  return { values: { ...values } };
}

export function instrumentIdOf(instrument: Instrument) {
  return { admin: instrument.admin, id: instrument.id };
}

export function createdEvent(
  fields: {
    readonly contractId: string;
    readonly templateId: string;
    readonly createArgument: unknown;
    readonly interfaceViews: JsInterfaceView[];
    readonly signatories: readonly string[];
    readonly observers: readonly string[];
  },
  offset: Offset,
  nodeId: number,
  createdAt: Date,
): CreatedEvent {
  return {
    offset,
    nodeId,
    contractId: fields.contractId,
    templateId: fields.templateId,
    createArgument: fields.createArgument,
    createdEventBlob: '',
    interfaceViews: fields.interfaceViews,
    witnessParties: unique([...fields.signatories, ...fields.observers]),
    signatories: unique(fields.signatories),
    observers: unique(fields.observers),
    createdAt: damlTime(createdAt),
    packageName: DEVNET_PACKAGE_NAME,
    representativePackageId: DEVNET_PACKAGE_ID,
    acsDelta: true,
  };
}

export function annotations(kind: TxKind, sender: string, burned: Amount = Amount.ZERO): Meta {
  return {
    [TX_KIND_META_KEY]: kind,
    [SENDER_META_KEY]: sender,
    ...(burned.isZero() ? {} : { [BURNED_META_KEY]: burned.toString() }),
  };
}

export function ids(holdings: readonly Holding[]): string[] {
  return holdings.map((holding) => holding.holdingId);
}

export const unlockedOf =
  (owner: string, instrument: Instrument) =>
  (holding: Holding): boolean =>
    holding.owner === owner &&
    holding.lock === null &&
    sameInstrument(holding.instrument, instrument);
