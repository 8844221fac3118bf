-- tara-bot schema, version 3: seats for the bot's AI, tournaments and their pairings, rated and
-- casual games, when a game ended, and indexes for the archive, leaderboards and tournaments.

-- The bot's AI as a user, so that an AI seat keeps the seat columns' foreign keys. Its id
-- starts with '@', which no Discord id (digits) or console name (the '@' is stripped) can.
INSERT INTO users (id, name, created_at, updated_at) VALUES ('@ai', 'Tara-bot AI', 0, 0)
    ON CONFLICT(id) DO NOTHING;

CREATE TABLE tournaments (
    id             INTEGER PRIMARY KEY,
    server_id      TEXT NOT NULL,
    channel_id     TEXT NOT NULL,                     -- where round messages go
    creator_id     TEXT NOT NULL REFERENCES users(id),
    name           TEXT NOT NULL,
    format         TEXT NOT NULL CHECK (format IN ('swiss', 'round-robin', 'knockout')),
    variant        TEXT NOT NULL,
    scoring        TEXT NOT NULL,
    days_per_move  INTEGER,                           -- NULL: no clock
    rated          INTEGER NOT NULL CHECK (rated IN (0, 1)),
    status         TEXT NOT NULL CHECK (status IN ('open', 'running', 'finished', 'cancelled')),
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);
CREATE INDEX tournaments_server ON tournaments(server_id, status, id);

CREATE TABLE tournament_pairings (
    id             INTEGER PRIMARY KEY,
    tournament_id  INTEGER NOT NULL REFERENCES tournaments(id),
    round          INTEGER NOT NULL CHECK (round >= 1),
    board          INTEGER NOT NULL CHECK (board >= 1),
    player0_id     TEXT NOT NULL REFERENCES users(id), -- moves first (FIDE's White), or has the bye
    player1_id     TEXT REFERENCES users(id),          -- NULL: a bye
    result         TEXT CHECK (result IN ('win0', 'win1', 'draw', 'forfeit0', 'forfeit1', 'bye')),
    game_id        INTEGER REFERENCES games(id),       -- the game (of a match: the latest)
    match_id       INTEGER REFERENCES matches(id),
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    UNIQUE (tournament_id, round, board)
);
CREATE INDEX tournament_pairings_player0 ON tournament_pairings(player0_id, tournament_id);
CREATE INDEX tournament_pairings_player1 ON tournament_pairings(player1_id, tournament_id);

-- A seat is a person (NULL) or the AI at a level (its seat id is then '@ai').
ALTER TABLE games ADD COLUMN seat0_ai_level INTEGER CHECK (seat0_ai_level BETWEEN 1 AND 5);
ALTER TABLE games ADD COLUMN seat1_ai_level INTEGER CHECK (seat1_ai_level BETWEEN 1 AND 5);
-- Games and challenges made before ratings existed were casual.
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1));
ALTER TABLE challenges ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1));
ALTER TABLE games ADD COLUMN pairing_id INTEGER REFERENCES tournament_pairings(id);
ALTER TABLE games ADD COLUMN ended_at INTEGER;             -- when it finished or was aborted
-- A game's last change was its end: nothing updates a game once it has ended.
UPDATE games SET ended_at = updated_at WHERE status IN ('finished', 'aborted');

-- A server's games by status (live games, the archive), newest first.
CREATE INDEX games_server_status ON games(server_id, status, id);
-- A player's finished games of a variant by end time (history, profiles, ratings).
CREATE INDEX games_seat0_finished ON games(seat0_id, variant, ended_at) WHERE status = 'finished';
CREATE INDEX games_seat1_finished ON games(seat1_id, variant, ended_at) WHERE status = 'finished';
-- A server's rated games of a variant in the order they ended (rating replays, leaderboards).
CREATE INDEX games_rated ON games(server_id, variant, ended_at) WHERE status = 'finished' AND rated = 1;
-- The games of a tournament pairing.
CREATE INDEX games_pairing ON games(pairing_id) WHERE pairing_id IS NOT NULL;
