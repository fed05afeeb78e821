/**
 * Bounded caches kept as a `Map` in insertion order, the most recently kept entry last: the
 * memory of verified tokens, API keys, rate buckets, a party's active contracts.
 */

/**
 * Keeps `value` under `key` as the most recent entry of `map` and, when that takes the map past
 * `max` entries, drops the least recent one.
 */
export function keepRecent<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
