/**
 * Deployment-wide secrets. `ensureServiceSecret` is safe when several processes start at once:
 * the first insert wins and everyone reads the winner's value.
 */
import type { Queryable } from './database.js';

export async function ensureServiceSecret<T>(
  q: Queryable,
  name: string,
  create: () => Promise<T>,
  now: Date,
): Promise<T> {
  const existing = await q.query<{ value: T }>(
    'SELECT value FROM service_secrets WHERE name = $1',
    [name],
  );
  if (existing[0]) return existing[0].value;
  const candidate = await create();
  await q.query(
    `INSERT INTO service_secrets (name, value, created_at) VALUES ($1, $2::jsonb, $3)
     ON CONFLICT (name) DO NOTHING`,
    [name, JSON.stringify(candidate), now],
  );
  const stored = await q.query<{ value: T }>('SELECT value FROM service_secrets WHERE name = $1', [
    name,
  ]);
  if (!stored[0]) throw new Error(`service secret ${name} could not be stored`);
  return stored[0].value;
}

/** Sets a secret whatever it held: for a value found unusable and replaced (the web app's key). */
export async function replaceServiceSecret<T>(
  q: Queryable,
  name: string,
  value: T,
  now: Date,
): Promise<void> {
  await q.query(
    `INSERT INTO service_secrets (name, value, created_at) VALUES ($1, $2::jsonb, $3)
     ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, created_at = EXCLUDED.created_at`,
    [name, JSON.stringify(value), now],
  );
}
