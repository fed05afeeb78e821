-- A store belongs to one environment (docs/operations.md#a-store-belongs-to-one-environment): a mainnet service must not serve the devnet
-- portal sessions and pp_test_ keys of a devnet store, nor the other way round. One row, written
-- when a service first opens the store (store/store-environment.ts) and never changed after.
CREATE TABLE store_environment (
  singleton    BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
  environment  TEXT NOT NULL CHECK (environment IN ('devnet', 'mainnet')),
  recorded_at  TIMESTAMPTZ NOT NULL
);

-- A store made before this migration has served one environment already; its API keys say which.
-- A store with keys of both (which no service makes) or none stays unrecorded until a service
-- claims it.
INSERT INTO store_environment (environment, recorded_at)
SELECT min(environment), now()
FROM api_keys
HAVING count(DISTINCT environment) = 1;
