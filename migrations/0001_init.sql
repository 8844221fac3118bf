-- tara-bot schema, version 1.
-- A game's truth is its move list; everything about a position is rebuilt by replaying it.

CREATE TABLE users (
    id          TEXT PRIMARY KEY,          -- the platform's user id (Discord snowflake, console name)
    name        TEXT NOT NULL,             -- latest display name
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

CREATE TABLE matches (
    id          INTEGER PRIMARY KEY,
    server_id   TEXT NOT NULL,
    channel_id  TEXT NOT NULL,
    player0_id  TEXT NOT NULL REFERENCES users(id),   -- the challenger
    player1_id  TEXT NOT NULL REFERENCES users(id),
    variant     TEXT NOT NULL,
    scoring     TEXT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('active', 'finished')),
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

CREATE TABLE games (
    id              INTEGER PRIMARY KEY,
    server_id       TEXT NOT NULL,
    channel_id      TEXT NOT NULL,
    variant         TEXT NOT NULL,
    scoring         TEXT NOT NULL,
    first_side      TEXT NOT NULL,                     -- red / blue / attackers
    seat0_id        TEXT NOT NULL REFERENCES users(id), -- Red, or the attackers
    seat1_id        TEXT NOT NULL REFERENCES users(id), -- Blue, or the defenders
    status          TEXT NOT NULL CHECK (status IN ('active', 'finished', 'aborted')),
    winner          TEXT,                              -- side id, NULL for a draw or unfinished
    reason          TEXT,
    points0         INTEGER,                           -- half points of seat 0
    points1         INTEGER,
    match_id        INTEGER REFERENCES matches(id),
    match_game      INTEGER,                           -- 1 or 2 (a replayed game keeps its number)
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    turn_started_at INTEGER NOT NULL                   -- since when the player to move is on move
);
-- One active game per channel (threads are channels).
CREATE UNIQUE INDEX games_one_active_per_channel ON games(channel_id) WHERE status = 'active';
CREATE INDEX games_seat0 ON games(seat0_id, status);
CREATE INDEX games_seat1 ON games(seat1_id, status);
CREATE INDEX games_channel ON games(channel_id, id);

CREATE TABLE moves (
    game_id     INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    ply         INTEGER NOT NULL,
    notation    TEXT NOT NULL,                 -- canonical move
    user_id     TEXT REFERENCES users(id),     -- NULL for a pass the bot played (forced)
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;

CREATE TABLE challenges (
    id              INTEGER PRIMARY KEY,
    server_id       TEXT NOT NULL,
    channel_id      TEXT NOT NULL,
    challenger_id   TEXT NOT NULL REFERENCES users(id),
    opponent_id     TEXT NOT NULL REFERENCES users(id),
    variant         TEXT NOT NULL,
    scoring         TEXT NOT NULL,
    first           TEXT NOT NULL CHECK (first IN ('random', 'challenger', 'opponent')),
    is_match        INTEGER NOT NULL DEFAULT 0,
    status          TEXT NOT NULL CHECK (status IN ('open', 'accepted', 'declined', 'cancelled')),
    game_id         INTEGER REFERENCES games(id),
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);
CREATE INDEX challenges_open ON challenges(channel_id, status);

CREATE TABLE takebacks (
    game_id       INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    ply           INTEGER NOT NULL,              -- the move to undo (and everything after it)
    requested_by  TEXT NOT NULL REFERENCES users(id),
    created_at    INTEGER NOT NULL
);

CREATE TABLE user_settings (
    user_id  TEXT NOT NULL REFERENCES users(id),
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (user_id, key)
) WITHOUT ROWID;

CREATE TABLE server_settings (
    server_id  TEXT NOT NULL,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    PRIMARY KEY (server_id, key)
) WITHOUT ROWID;
