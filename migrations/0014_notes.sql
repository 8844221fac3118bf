-- tara-bot schema, version 14: private notes, one per player and game (`/note`). Only the
-- note's author ever sees it: privately, and in their own `/export` once the game has ended.
CREATE TABLE notes (
    game_id     INTEGER NOT NULL REFERENCES games(id),
    user_id     TEXT NOT NULL REFERENCES users(id),
    text        TEXT NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (game_id, user_id)
) WITHOUT ROWID;
CREATE INDEX notes_by_user ON notes (user_id, updated_at);
