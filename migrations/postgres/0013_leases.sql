-- PostgreSQL's text of ../0013_leases.sql: the same tables, columns and constraints in PostgreSQL's types
-- (BIGINT, identity keys, DOUBLE PRECISION, BYTEA, text compared byte by byte as SQLite does).
-- tara-bot schema, version 13: work that any process sharing the database may take, held for
-- a while by the process that took it (a lease). A process that dies loses its leases when
-- they run out, and another one finishes the work. `claimed_by` names the process (its worker
-- name), `lease_until` when the claim runs out (ms); NULL: nobody holds it.

-- An owed message being delivered.
ALTER TABLE outbox ADD COLUMN claimed_by TEXT COLLATE "C";
ALTER TABLE outbox ADD COLUMN lease_until BIGINT;
-- The AI's move being searched in a game.
ALTER TABLE games ADD COLUMN ai_claimed_by TEXT COLLATE "C";
ALTER TABLE games ADD COLUMN ai_lease_until BIGINT;
-- An analysis being run.
ALTER TABLE analyses ADD COLUMN claimed_by TEXT COLLATE "C";
ALTER TABLE analyses ADD COLUMN lease_until BIGINT;
