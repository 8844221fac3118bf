-- PostgreSQL's text of ../0010_tournament_play.sql: the same tables, columns and constraints in PostgreSQL's types
-- (BIGINT, identity keys, DOUBLE PRECISION, BYTEA, text compared byte by byte as SQLite does).
-- tara-bot schema, version 10: running tournaments. The options a tournament is created with,
-- its players (sign-up order, rating and seed at the start, forfeits, withdrawal), the thread
-- each pairing is played in, and the round messages already posted.

ALTER TABLE tournaments ADD COLUMN is_match BIGINT NOT NULL DEFAULT 0 CHECK (is_match IN (0, 1));
ALTER TABLE tournaments ADD COLUMN double_rr BIGINT NOT NULL DEFAULT 0 CHECK (double_rr IN (0, 1));
ALTER TABLE tournaments ADD COLUMN max_players BIGINT;                 -- NULL: no limit
ALTER TABLE tournaments ADD COLUMN pace TEXT COLLATE "C" NOT NULL DEFAULT 'all-at-once'
    CHECK (pace IN ('all-at-once', 'by-round'));
ALTER TABLE tournaments ADD COLUMN total_rounds BIGINT;                -- set when it starts
ALTER TABLE tournaments ADD COLUMN winner_id TEXT COLLATE "C" REFERENCES users(id); -- set when it finishes

CREATE TABLE tournament_players (
    tournament_id  BIGINT NOT NULL REFERENCES tournaments(id),
    user_id        TEXT COLLATE "C" NOT NULL REFERENCES users(id),
    signup         BIGINT NOT NULL,            -- the order of sign-up, from 1
    rating         BIGINT NOT NULL DEFAULT 0,  -- the rating when the tournament started
    seed           BIGINT,                     -- the starting rank, set when it starts
    forfeits       BIGINT NOT NULL DEFAULT 0,
    withdrawn_at   BIGINT,                     -- NULL: still playing
    joined_at      BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, user_id),
    UNIQUE (tournament_id, signup)
);

-- The thread a pairing's games are played in: its stable key (a pseudo-channel until an
-- adapter opens the thread), and the platform's thread id once opened (recorded once).
ALTER TABLE tournament_pairings ADD COLUMN thread_key TEXT COLLATE "C";
ALTER TABLE tournament_pairings ADD COLUMN thread_id TEXT COLLATE "C";
CREATE UNIQUE INDEX tournament_pairings_thread ON tournament_pairings(thread_key)
    WHERE thread_key IS NOT NULL;
