-- PostgreSQL's text of ../0017_shared_threads.sql: the same tables, columns and constraints in PostgreSQL's types
-- (BIGINT, identity keys, DOUBLE PRECISION, BYTEA, text compared byte by byte as SQLite does).
-- tara-bot schema, version 17: the order players joined a league in; several tournament
-- pairings may share a thread (a league
-- division's, or a round's: docs/operating.md, "Discord's limits"), so a pairing's thread
-- key is no longer unique; it is still looked up by key.
DROP INDEX tournament_pairings_thread;
CREATE INDEX tournament_pairings_thread ON tournament_pairings(thread_key)
    WHERE thread_key IS NOT NULL;
-- A channel still holds one game in progress at most, but for a tournament's games (a
-- pairing's, created with it by the runner once): they may share their thread.
DROP INDEX games_one_active_per_channel;
CREATE UNIQUE INDEX games_one_active_per_channel ON games(channel_id)
    WHERE status = 'active' AND pairing_id IS NULL;

-- The order players joined a league in (docs/rules.md §11.2 places unrated players by it): two
-- joins in the same millisecond keep their order. Rows from before keep 0 (and their order by
-- time, then id, as before).
ALTER TABLE league_players ADD COLUMN join_seq BIGINT NOT NULL DEFAULT 0;

-- A league closed by its organiser during a season closes when that season ends
-- (`/league close`): the season is played out, and none starts after it.
ALTER TABLE leagues ADD COLUMN closing BIGINT NOT NULL DEFAULT 0 CHECK (closing IN (0, 1));
