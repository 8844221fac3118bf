-- tara-bot schema, version 8: Glicko-2 ratings (RULES.md Part F.6), one per server, rating id
-- (the variant id: kingdoms and knots share one) and player, and each rated game's change.

-- A player's current rating in one server and game.
CREATE TABLE ratings (
    server_id      TEXT NOT NULL,
    game           TEXT NOT NULL,                      -- 'hkot-1', 'hkot-2', 'sacred-hill-1', ...
    user_id        TEXT NOT NULL REFERENCES users(id),
    rating         REAL NOT NULL,
    rd             REAL NOT NULL,
    volatility     REAL NOT NULL,
    games          INTEGER NOT NULL CHECK (games >= 0),
    wins           INTEGER NOT NULL CHECK (wins >= 0),
    draws          INTEGER NOT NULL CHECK (draws >= 0),
    losses         INTEGER NOT NULL CHECK (losses >= 0),
    last_game_at   INTEGER NOT NULL,                   -- when their latest rated game ended (ms)
    PRIMARY KEY (server_id, game, user_id)
) WITHOUT ROWID;
-- A leaderboard: a server's players of one game, by rating.
CREATE INDEX ratings_board ON ratings(server_id, game, rating DESC);

-- One player's rating change by one rated game: the values the game was rated from (after the
-- idle weeks' RD growth) and after it.
CREATE TABLE rating_changes (
    game_id            INTEGER NOT NULL REFERENCES games(id),
    user_id            TEXT NOT NULL REFERENCES users(id),
    server_id          TEXT NOT NULL,
    game               TEXT NOT NULL,
    score              REAL NOT NULL CHECK (score IN (0, 0.5, 1)),
    before_rating      REAL NOT NULL,
    before_rd          REAL NOT NULL,
    before_volatility  REAL NOT NULL,
    after_rating       REAL NOT NULL,
    after_rd           REAL NOT NULL,
    after_volatility   REAL NOT NULL,
    at                 INTEGER NOT NULL,               -- when the game ended (ms)
    PRIMARY KEY (game_id, user_id)
) WITHOUT ROWID;
-- A player's rating history in one server and game, oldest first.
CREATE INDEX rating_changes_player ON rating_changes(server_id, user_id, game, at);
