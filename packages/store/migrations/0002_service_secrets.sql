-- Secrets every process of a deployment must share, such as the wallet-token signing key:
-- created once by whichever process starts first, then read by all.
CREATE TABLE service_secrets (
  name TEXT PRIMARY KEY,
  value JSONB NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);
