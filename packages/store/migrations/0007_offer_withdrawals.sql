-- Canton does not end a transfer offer at its deadline: an offer past `executeBefore` stays
-- pending (it can no longer be accepted) until its sender withdraws it or its receiver rejects it.
-- So the service withdraws its own payout and refund offers once their deadline has passed, with
-- a recorded `withdraw` command like every other ledger command.
ALTER TABLE ledger_commands DROP CONSTRAINT ledger_commands_leg_check;
ALTER TABLE ledger_commands ADD CONSTRAINT ledger_commands_leg_check
  CHECK (leg IN ('accept', 'payout', 'refund', 'reject', 'withdraw'));

-- On a payout or refund that became an offer: when the service withdraws that offer. Cleared
-- once the offer ended (accepted, rejected, withdrawn) or its withdrawal was recorded.
ALTER TABLE ledger_commands ADD COLUMN offer_withdraw_due_at TIMESTAMPTZ;
CREATE INDEX ledger_commands_withdrawals_due ON ledger_commands (offer_withdraw_due_at)
  WHERE offer_withdraw_due_at IS NOT NULL;

-- Offers pending when this migration runs are withdrawn at their deadline too.
UPDATE ledger_commands c SET offer_withdraw_due_at = i.payout_offer_expires_at
FROM intents i
WHERE c.leg = 'payout' AND c.intent_id = i.intent_id AND c.offer_id = i.payout_offer_id
  AND i.payout_offer_state = 'offered';
UPDATE ledger_commands c SET offer_withdraw_due_at = i.refund_offer_expires_at
FROM intents i
WHERE c.leg = 'refund' AND c.intent_id = i.intent_id AND c.offer_id = i.refund_offer_id
  AND i.refund_offer_state = 'offered';
