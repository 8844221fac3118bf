-- PostgreSQL's text of ../0008_ratings.sql: the same tables, columns and constraints in PostgreSQL's types
-- (BIGINT, identity keys, DOUBLE PRECISION, BYTEA, text compared byte by byte as SQLite does).
-- tara-bot schema, version 8: Glicko-2 ratings (RULES.md Part F.6), one per server, rating id
-- (the variant id: kingdoms and knots share one) and player, and each rated game's change.

-- A player's current rating in one server and game.
CREATE TABLE ratings (
    server_id      TEXT COLLATE "C" NOT NULL,
    game           TEXT COLLATE "C" NOT NULL,                      -- 'hkot-1', 'hkot-2', 'sacred-hill-1', ...
    user_id        TEXT COLLATE "C" NOT NULL REFERENCES users(id),
    rating         DOUBLE PRECISION NOT NULL,
    rd             DOUBLE PRECISION NOT NULL,
    volatility     DOUBLE PRECISION NOT NULL,
    games          BIGINT NOT NULL CHECK (games >= 0),
    wins           BIGINT NOT NULL CHECK (wins >= 0),
    draws          BIGINT NOT NULL CHECK (draws >= 0),
    losses         BIGINT NOT NULL CHECK (losses >= 0),
    last_game_at   BIGINT NOT NULL,                   -- when their latest rated game ended (ms)
    PRIMARY KEY (server_id, game, user_id)
);
-- A leaderboard: a server's players of one game, by rating.
CREATE INDEX ratings_board ON ratings(server_id, game, rating DESC);

-- One player's rating change by one rated game: the values the game was rated from (after the
-- idle weeks' RD growth) and after it.
CREATE TABLE rating_changes (
    game_id            BIGINT NOT NULL REFERENCES games(id),
    user_id            TEXT COLLATE "C" NOT NULL REFERENCES users(id),
    server_id          TEXT COLLATE "C" NOT NULL,
    game               TEXT COLLATE "C" NOT NULL,
    score              DOUBLE PRECISION NOT NULL CHECK (score IN (0, 0.5, 1)),
    before_rating      DOUBLE PRECISION NOT NULL,
    before_rd          DOUBLE PRECISION NOT NULL,
    before_volatility  DOUBLE PRECISION NOT NULL,
    after_rating       DOUBLE PRECISION NOT NULL,
    after_rd           DOUBLE PRECISION NOT NULL,
    after_volatility   DOUBLE PRECISION NOT NULL,
    at                 BIGINT NOT NULL,               -- when the game ended (ms)
    PRIMARY KEY (game_id, user_id)
);
-- A player's rating history in one server and game, oldest first.
CREATE INDEX rating_changes_player ON rating_changes(server_id, user_id, game, at);
