-- tara-bot schema, version 10: running tournaments. The options a tournament is created with,
-- its players (sign-up order, rating and seed at the start, forfeits, withdrawal), the thread
-- each pairing is played in, and the round messages already posted.

ALTER TABLE tournaments ADD COLUMN is_match INTEGER NOT NULL DEFAULT 0 CHECK (is_match IN (0, 1));
ALTER TABLE tournaments ADD COLUMN double_rr INTEGER NOT NULL DEFAULT 0 CHECK (double_rr IN (0, 1));
ALTER TABLE tournaments ADD COLUMN max_players INTEGER;                 -- NULL: no limit
ALTER TABLE tournaments ADD COLUMN pace TEXT NOT NULL DEFAULT 'all-at-once'
    CHECK (pace IN ('all-at-once', 'by-round'));
ALTER TABLE tournaments ADD COLUMN total_rounds INTEGER;                -- set when it starts
ALTER TABLE tournaments ADD COLUMN winner_id TEXT REFERENCES users(id); -- set when it finishes

CREATE TABLE tournament_players (
    tournament_id  INTEGER NOT NULL REFERENCES tournaments(id),
    user_id        TEXT NOT NULL REFERENCES users(id),
    signup         INTEGER NOT NULL,            -- the order of sign-up, from 1
    rating         INTEGER NOT NULL DEFAULT 0,  -- the rating when the tournament started
    seed           INTEGER,                     -- the starting rank, set when it starts
    forfeits       INTEGER NOT NULL DEFAULT 0,
    withdrawn_at   INTEGER,                     -- NULL: still playing
    joined_at      INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, user_id),
    UNIQUE (tournament_id, signup)
);

-- The thread a pairing's games are played in: its stable key (a pseudo-channel until an
-- adapter opens the thread), and the platform's thread id once opened (recorded once).
ALTER TABLE tournament_pairings ADD COLUMN thread_key TEXT;
ALTER TABLE tournament_pairings ADD COLUMN thread_id TEXT;
CREATE UNIQUE INDEX tournament_pairings_thread ON tournament_pairings(thread_key)
    WHERE thread_key IS NOT NULL;
