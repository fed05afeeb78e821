/**
 * Prices from the validator's scan proxy: the Amulet price of the open mining round and the
 * price of extra traffic from the AmuletRules configuration. Neither is on a party's update
 * stream, so the adapter reads them when asked.
 */
import type { Amount } from '@poolparty/core';
import { LedgerError, type MiningRound, type TrafficParameters } from '../port.js';
import { TYPICAL_TRANSFER_BYTES } from '../rules.js';
import { type JsonHttpClient, joinUrl } from './http.js';
import { timeOrNull } from './time.js';
import { parseDamlDecimal } from './wire/index.js';

/** A `ContractWithState` of the scan proxy: only what is read here. */
interface ScanContract {
  readonly contract?: { readonly payload?: unknown };
}

function invalid(what: string): LedgerError {
  return new LedgerError('rejected', `the scan proxy answered an unreadable ${what}`);
}

function decimal(value: unknown, what: string): Amount {
  if (typeof value !== 'string') throw invalid(what);
  try {
    return parseDamlDecimal(value);
  } catch {
    throw invalid(what);
  }
}

function time(value: unknown, what: string): Date {
  const date = timeOrNull(value);
  if (date === null) throw invalid(what);
  return date;
}

function miningRoundOf(contract: ScanContract): MiningRound {
  const payload = (contract.contract?.payload ?? {}) as Record<string, unknown>;
  const number = Number((payload.round as { number?: unknown } | undefined)?.number);
  if (!Number.isSafeInteger(number) || number < 0) throw invalid('mining round number');
  return {
    round: number,
    amuletPriceUsd: decimal(payload.amuletPrice, 'amulet price'),
    opensAt: time(payload.opensAt, 'mining round opensAt'),
  };
}

/**
 * The round transfers use at `now`: the highest-numbered open round that has opened. Scan lists
 * the next rounds too (they open later); when none has opened yet, the first to open.
 */
export function currentOpenRound(openRounds: readonly unknown[], now: Date): MiningRound {
  const rounds = openRounds.map((round) => miningRoundOf(round as ScanContract));
  const opened = rounds.filter((round) => round.opensAt.getTime() <= now.getTime());
  const [pick] =
    opened.length > 0
      ? opened.sort((a, b) => b.round - a.round)
      : rounds.sort((a, b) => a.opensAt.getTime() - b.opensAt.getTime());
  if (pick === undefined) {
    throw new LedgerError('rejected', 'the scan proxy lists no open mining round');
  }
  return pick;
}

/**
 * The extra traffic price (USD per MB) of the AmuletRules configuration in force at `now`: the
 * latest scheduled value that has taken effect, else the initial one.
 */
export function extraTrafficPriceOf(amuletRules: unknown, now: Date): Amount {
  const payload = ((amuletRules as ScanContract | undefined)?.contract?.payload ?? {}) as {
    configSchedule?: { initialValue?: unknown; futureValues?: unknown };
  };
  const schedule = payload.configSchedule;
  let config = schedule?.initialValue;
  const future = Array.isArray(schedule?.futureValues) ? schedule.futureValues : [];
  let latestMs = Number.NEGATIVE_INFINITY;
  for (const entry of future as { _1?: unknown; _2?: unknown }[]) {
    const at = time(entry._1, 'AmuletRules schedule time').getTime();
    if (at <= now.getTime() && at > latestMs) {
      latestMs = at;
      config = entry._2;
    }
  }
  const fees = (
    config as { decentralizedSynchronizer?: { fees?: { extraTrafficPrice?: unknown } } }
  )?.decentralizedSynchronizer?.fees;
  return decimal(fees?.extraTrafficPrice, 'extra traffic price');
}

export class ScanProxyClient {
  constructor(
    private readonly http: JsonHttpClient,
    private readonly baseUrl: string,
  ) {}

  async openMiningRound(now: Date): Promise<MiningRound> {
    const answer = await this.http.get<{ open_mining_rounds?: unknown }>(
      joinUrl(this.baseUrl, '/v0/scan-proxy/open-and-issuing-mining-rounds'),
    );
    if (!Array.isArray(answer.open_mining_rounds)) throw invalid('list of open mining rounds');
    return currentOpenRound(answer.open_mining_rounds, now);
  }

  async trafficParameters(now: Date): Promise<TrafficParameters> {
    const answer = await this.http.get<{ amulet_rules?: unknown }>(
      joinUrl(this.baseUrl, '/v0/scan-proxy/amulet-rules'),
    );
    return {
      extraTrafficPriceUsdPerMb: extraTrafficPriceOf(answer.amulet_rules, now),
      transferBytes: TYPICAL_TRANSFER_BYTES,
    };
  }
}
