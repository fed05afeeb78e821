/**
 * Times as the participant reports them (Daml `Time`, RFC 3339), read leniently where a missing
 * or unreadable one means "not reported" rather than a broken answer.
 */
import { parseDamlTime } from './wire/index.js';

/** A Daml `Time`, or null when the value is not one. */
export function timeOrNull(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  try {
    return parseDamlTime(value);
  } catch {
    return null;
  }
}
