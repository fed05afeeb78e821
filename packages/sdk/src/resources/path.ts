/** Path segments from caller input, escaped so an id cannot reach another route. */
import { checkText } from '../validation.js';

/** `value` as one path segment; a missing or empty id is a `ValidationError`. */
export function segment(field: string, value: unknown): string {
  checkText(field, value);
  return encodeURIComponent(value as string);
}
