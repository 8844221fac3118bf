-- tara-bot schema: draw offers, open challenges (the lobby of issue 12).
-- Numbered 0009: 0008 belongs to the ratings work that lands beside it.

-- Open challenges: a challenge anyone (but its challenger) may accept is stored with the
-- sentinel opponent '@open', a user that no Discord id (digits) or console name can be, as the
-- AI's '@ai' of 0003. The challenges table keeps `opponent_id NOT NULL` and its foreign key;
-- whoever accepts an open challenge is written into `opponent_id` when they accept, so an
-- accepted challenge names both players as an addressed one does. The limits read naturally:
-- one open challenge between a pair of players becomes one open challenge to anyone per
-- player (the pair challenger-'@open'), and it counts towards the player's open challenges.
INSERT INTO users (id, name, created_at, updated_at) VALUES ('@open', 'anyone', 0, 0)
    ON CONFLICT(id) DO NOTHING;

-- A game's pending draw offer (RULES.md Part E): at most one per game. It is deleted when it is
-- accepted or declined, and in the same transaction as any move, pass or takeback that makes it
-- lapse.
CREATE TABLE draw_offers (
    game_id     INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    offered_by  TEXT NOT NULL REFERENCES users(id),
    ply         INTEGER NOT NULL,          -- moves played when it was offered
    created_at  INTEGER NOT NULL
);

-- A server's games in progress by latest activity (/live).
CREATE INDEX games_live ON games(server_id, turn_started_at) WHERE status = 'active';
