/**
 * Bounded caches kept as a `Map` in insertion order, the most recently kept entry last: the
 * memory of verified tokens, API keys, rate buckets, a party's active contracts.
 */

/**
 * Keeps `value` under `key` as the most recent entry of `map` and, when that takes the map past
 * `max` entries, drops the least recent one, which it answers (for what must be closed with it).
 */
export function keepRecent<K, V>(map: Map<K, V>, key: K, value: V, max: number): V | undefined {
  map.delete(key);
  map.set(key, value);
  if (map.size <= max) return undefined;
  const [oldest] = map.entries();
  if (oldest === undefined) return undefined;
  map.delete(oldest[0]);
  return oldest[1];
}
