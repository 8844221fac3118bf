-- tara-bot schema: challenges expire. An open challenge that nobody answers within the server's
-- `challenge_days` (7 by default) becomes 'expired'. SQLite cannot change a CHECK constraint in
-- place, so the table is rebuilt: created anew, copied, the old one dropped, the new one
-- renamed, its index recreated. No table refers to challenges by a foreign key, so dropping
-- the old table (with foreign keys on, inside the migration runner's transaction) deletes
-- nothing elsewhere; the new table keeps the old one's references to users and games.

CREATE TABLE challenges_new (
    id              INTEGER PRIMARY KEY,
    server_id       TEXT NOT NULL,
    channel_id      TEXT NOT NULL,
    challenger_id   TEXT NOT NULL REFERENCES users(id),
    opponent_id     TEXT NOT NULL REFERENCES users(id),
    variant         TEXT NOT NULL,
    scoring         TEXT NOT NULL,
    first           TEXT NOT NULL CHECK (first IN ('random', 'challenger', 'opponent')),
    is_match        INTEGER NOT NULL DEFAULT 0,
    status          TEXT NOT NULL
                    CHECK (status IN ('open', 'accepted', 'declined', 'cancelled', 'expired')),
    game_id         INTEGER REFERENCES games(id),
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    days_per_move   INTEGER,                                        -- NULL: no clock
    rated           INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1))
);

INSERT INTO challenges_new (id, server_id, channel_id, challenger_id, opponent_id, variant,
        scoring, first, is_match, status, game_id, created_at, updated_at, days_per_move, rated)
    SELECT id, server_id, channel_id, challenger_id, opponent_id, variant,
        scoring, first, is_match, status, game_id, created_at, updated_at, days_per_move, rated
    FROM challenges;

DROP TABLE challenges;
ALTER TABLE challenges_new RENAME TO challenges;

CREATE INDEX challenges_open ON challenges(channel_id, status);
-- A server's open challenges by player (the limits on open challenges).
CREATE INDEX challenges_open_players ON challenges(server_id, challenger_id, opponent_id)
    WHERE status = 'open';
-- Open challenges by age (expiry).
CREATE INDEX challenges_open_age ON challenges(created_at) WHERE status = 'open';
