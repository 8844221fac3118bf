-- tara-bot schema, version 15: conditional moves (`/conditional`). Each row is one line of a
-- player's tree: plies (notation, space-separated) to be played from ply `from_ply` on, the
-- opponent's expected moves alternating with the player's replies. Only their author sees
-- them; they are dropped when played out or contradicted, on a takeback and when the game ends.
CREATE TABLE conditionals (
    game_id     INTEGER NOT NULL REFERENCES games(id),
    user_id     TEXT NOT NULL REFERENCES users(id),
    seq         INTEGER NOT NULL,
    from_ply    INTEGER NOT NULL,
    line        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (game_id, user_id, seq)
) WITHOUT ROWID;
