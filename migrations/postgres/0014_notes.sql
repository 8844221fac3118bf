-- PostgreSQL's text of ../0014_notes.sql: the same tables, columns and constraints in PostgreSQL's types
-- (BIGINT, identity keys, DOUBLE PRECISION, BYTEA, text compared byte by byte as SQLite does).
-- tara-bot schema, version 14: private notes, one per player and game (`/note`). Only the
-- note's author ever sees it: privately, and in their own `/export` once the game has ended.
CREATE TABLE notes (
    game_id     BIGINT NOT NULL REFERENCES games(id),
    user_id     TEXT COLLATE "C" NOT NULL REFERENCES users(id),
    text        TEXT COLLATE "C" NOT NULL,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (game_id, user_id)
);
CREATE INDEX notes_by_user ON notes (user_id, updated_at);
