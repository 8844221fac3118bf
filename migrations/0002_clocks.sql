-- tara-bot schema, version 2: correspondence clocks, reminders and vacations.

ALTER TABLE challenges ADD COLUMN days_per_move INTEGER;  -- NULL: no clock
ALTER TABLE games ADD COLUMN days_per_move INTEGER;       -- NULL: no clock
ALTER TABLE games ADD COLUMN clock_start_at INTEGER;      -- when the mover's clock started (after any vacation)
ALTER TABLE games ADD COLUMN deadline_at INTEGER;         -- when the mover runs out of time
ALTER TABLE games ADD COLUMN reminders_sent INTEGER NOT NULL DEFAULT 0;  -- this turn: 0, 1 or 2
ALTER TABLE games ADD COLUMN reminded_at INTEGER;         -- the last reminder for this game
CREATE INDEX games_clock ON games(deadline_at) WHERE status = 'active' AND deadline_at IS NOT NULL;

CREATE TABLE vacations (
    id        INTEGER PRIMARY KEY,
    user_id   TEXT NOT NULL REFERENCES users(id),
    start_at  INTEGER NOT NULL,
    end_at    INTEGER NOT NULL
);
CREATE INDEX vacations_user ON vacations(user_id, end_at);
