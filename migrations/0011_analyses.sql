-- tara-bot schema, version 11: post-game analyses, and edits of posted messages.
--
-- An analysis of a finished game at one AI level: requested by `/analyse`, run in the
-- background (restarted from the first position after a restart), and kept once done, so
-- that asking again posts the stored result.
CREATE TABLE analyses (
    id            INTEGER PRIMARY KEY,
    game_id       INTEGER NOT NULL REFERENCES games(id),
    level         INTEGER NOT NULL CHECK (level BETWEEN 1 AND 5),
    status        TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
    done          INTEGER NOT NULL DEFAULT 0,  -- positions searched, as last shown
    total         INTEGER NOT NULL,            -- positions to search
    result        TEXT,                        -- JSON, once done
    channel_id    TEXT NOT NULL,               -- where it was asked for (and is posted)
    requested_by  TEXT NOT NULL,
    message_id    INTEGER,                     -- the progress message (its outbox id)
    created_at    INTEGER NOT NULL,
    finished_at   INTEGER,
    UNIQUE (game_id, level)
);
CREATE INDEX analyses_running ON analyses(id) WHERE status = 'running';

-- The platform's id of a posted message (the first part of it), so that it can be edited.
ALTER TABLE outbox ADD COLUMN platform_id TEXT;
-- An owed edit: the outbox id of the message whose text it replaces (posted first).
ALTER TABLE outbox ADD COLUMN edits INTEGER;
CREATE INDEX outbox_edits ON outbox(edits) WHERE edits IS NOT NULL;
