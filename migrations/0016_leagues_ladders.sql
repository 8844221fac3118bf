-- tara-bot schema, version 16: ladders and leagues (docs/rules.md §11).
--
-- A ladder: its players in rank order (1 the top), and its games (a challenge is accepted at
-- once: each row is one game, played in a thread named by its stable key).
CREATE TABLE ladders (
    id             INTEGER PRIMARY KEY,
    server_id      TEXT NOT NULL,
    channel_id     TEXT NOT NULL,                     -- where its games' threads open
    creator_id     TEXT NOT NULL REFERENCES users(id),
    name           TEXT NOT NULL,
    variant        TEXT NOT NULL,
    scoring        TEXT NOT NULL,
    days_per_move  INTEGER,                           -- NULL: no clock
    rated          INTEGER NOT NULL CHECK (rated IN (0, 1)),
    status         TEXT NOT NULL CHECK (status IN ('open', 'closed')),
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);
CREATE INDEX ladders_server ON ladders(server_id, status, id);

CREATE TABLE ladder_players (
    ladder_id      INTEGER NOT NULL REFERENCES ladders(id),
    user_id        TEXT NOT NULL REFERENCES users(id),
    rank           INTEGER NOT NULL CHECK (rank >= 1), -- 1: the top; kept 1..n without gaps
    joined_at      INTEGER NOT NULL,
    PRIMARY KEY (ladder_id, user_id)
) WITHOUT ROWID;

CREATE TABLE ladder_games (
    id             INTEGER PRIMARY KEY,
    ladder_id      INTEGER NOT NULL REFERENCES ladders(id),
    challenger_id  TEXT NOT NULL REFERENCES users(id),
    defender_id    TEXT NOT NULL REFERENCES users(id),
    game_id        INTEGER REFERENCES games(id),      -- set once the game is created
    thread_key     TEXT NOT NULL,                     -- the thread's stable key (`l2-g7`)
    thread_id      TEXT,                              -- the platform's thread, once opened
    result         TEXT CHECK (result IN ('challenger', 'defender', 'draw', 'aborted')),
    created_at     INTEGER NOT NULL,
    ended_at       INTEGER                            -- NULL: in progress
);
CREATE UNIQUE INDEX ladder_games_thread ON ladder_games(thread_key);
CREATE UNIQUE INDEX ladder_games_game ON ladder_games(game_id) WHERE game_id IS NOT NULL;
CREATE INDEX ladder_games_ladder ON ladder_games(ladder_id, ended_at);

-- A league: players who join at any time, and seasons, each a set of divisions played as
-- round-robin tournaments. A season starts by itself `gap_days` after the last game of the
-- one before ends (`next_season_at`, set when it ends).
CREATE TABLE leagues (
    id             INTEGER PRIMARY KEY,
    server_id      TEXT NOT NULL,
    channel_id     TEXT NOT NULL,
    creator_id     TEXT NOT NULL REFERENCES users(id),
    name           TEXT NOT NULL,
    variant        TEXT NOT NULL,
    scoring        TEXT NOT NULL,
    days_per_move  INTEGER,
    rated          INTEGER NOT NULL CHECK (rated IN (0, 1)),
    is_match       INTEGER NOT NULL CHECK (is_match IN (0, 1)),
    division_size  INTEGER NOT NULL,
    promote        INTEGER NOT NULL,
    relegate       INTEGER NOT NULL,
    gap_days       INTEGER NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('open', 'running', 'closed')),
    season         INTEGER NOT NULL DEFAULT 0,        -- the latest season begun (0: none yet)
    next_season_at INTEGER,                           -- when the next season starts by itself
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);
CREATE INDEX leagues_server ON leagues(server_id, status, id);

CREATE TABLE league_players (
    league_id      INTEGER NOT NULL REFERENCES leagues(id),
    user_id        TEXT NOT NULL REFERENCES users(id),
    joined_at      INTEGER NOT NULL,
    leaving        INTEGER NOT NULL DEFAULT 0 CHECK (leaving IN (0, 1)), -- leaves at the season's end
    left_at        INTEGER,                           -- NULL: in the league
    PRIMARY KEY (league_id, user_id)
) WITHOUT ROWID;

-- Each division of each season: its level and the tournament that plays it.
CREATE TABLE league_divisions (
    league_id      INTEGER NOT NULL REFERENCES leagues(id),
    season         INTEGER NOT NULL CHECK (season >= 1),
    division       TEXT NOT NULL,                     -- '1', '2a', '2b', …
    level          INTEGER NOT NULL CHECK (level >= 1),
    tournament_id  INTEGER NOT NULL REFERENCES tournaments(id),
    PRIMARY KEY (league_id, season, division)
) WITHOUT ROWID;
CREATE UNIQUE INDEX league_divisions_tournament ON league_divisions(tournament_id);

-- Each player's season when it ended: the division, the place, and where it took them.
CREATE TABLE league_results (
    league_id      INTEGER NOT NULL REFERENCES leagues(id),
    season         INTEGER NOT NULL,
    user_id        TEXT NOT NULL REFERENCES users(id),
    division       TEXT NOT NULL,
    place          INTEGER NOT NULL,
    movement       TEXT NOT NULL CHECK (movement IN ('up', 'stay', 'down', 'out')),
    PRIMARY KEY (league_id, season, user_id)
) WITHOUT ROWID;

-- A league division withdraws a player after this many forfeits (NULL: 2, as tournaments do).
ALTER TABLE tournaments ADD COLUMN forfeit_limit INTEGER;
