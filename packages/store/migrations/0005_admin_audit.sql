-- What operators changed through `poolparty admin`: who, when, what. Every change a command makes
-- is written in the same transaction as its audit row, so the record and the change stand or
-- fall together.
CREATE TABLE admin_audit (
  id       BIGSERIAL PRIMARY KEY,
  at       TIMESTAMPTZ NOT NULL,
  actor    TEXT NOT NULL CHECK (actor <> ''),
  action   TEXT NOT NULL CHECK (action <> ''),
  subject  TEXT NOT NULL,
  details  JSONB NOT NULL DEFAULT '{}'
);
CREATE INDEX admin_audit_by_at ON admin_audit (at, id);

-- Running processes re-read what operators change (discounts, key limits, pool status) when
-- told on this channel; a notification is a hint, the periodic re-reads remain the guarantee.
CREATE FUNCTION notify_admin_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('admin_changes', json_build_object(
    'id', NEW.id, 'action', NEW.action, 'subject', NEW.subject)::text);
  RETURN NEW;
END
$$;
CREATE TRIGGER admin_audit_notify AFTER INSERT ON admin_audit
  FOR EACH ROW EXECUTE FUNCTION notify_admin_change();
