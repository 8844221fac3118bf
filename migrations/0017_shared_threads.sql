-- tara-bot schema, version 17: several tournament pairings may share a thread (a league
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
