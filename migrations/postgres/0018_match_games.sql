-- PostgreSQL's text of ../0018_match_games.sql: the same index.
-- tara-bot schema, version 18: a match's games are found through an index (they were found by
-- reading every game: each end of a match's game, and `/game` on one, read the whole table).
CREATE INDEX IF NOT EXISTS games_match ON games(match_id, id) WHERE match_id IS NOT NULL;
