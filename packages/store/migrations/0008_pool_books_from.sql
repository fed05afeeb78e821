-- A pool added to a running ledger (`poolparty admin pools add`) takes its reserves from the swap
-- party's holdings at one ledger offset: its books begin there. Updates at or before that offset
-- (the transfers that funded the pool) are already in the reserves, so ingestion must not take
-- them for deposits, and reconciliation compares the pool only once its checkpoint has passed
-- that offset. NULL: the books begin with the ledger (the devnet seed funds pools by minting).
ALTER TABLE pools ADD COLUMN books_from_offset BIGINT CHECK (books_from_offset >= 0);
