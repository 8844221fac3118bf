-- PostgreSQL's text of ../0015_conditionals.sql: the same tables, columns and constraints in PostgreSQL's types
-- (BIGINT, identity keys, DOUBLE PRECISION, BYTEA, text compared byte by byte as SQLite does).
-- tara-bot schema, version 15: conditional moves (`/conditional`). Each row is one line of a
-- player's tree: plies (notation, space-separated) to be played from ply `from_ply` on, the
-- opponent's expected moves alternating with the player's replies. Only their author sees
-- them; they are dropped when played out or contradicted, on a takeback and when the game ends.
CREATE TABLE conditionals (
    game_id     BIGINT NOT NULL REFERENCES games(id),
    user_id     TEXT COLLATE "C" NOT NULL REFERENCES users(id),
    seq         BIGINT NOT NULL,
    from_ply    BIGINT NOT NULL,
    line        TEXT COLLATE "C" NOT NULL,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (game_id, user_id, seq)
);
