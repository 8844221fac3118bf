-- tara-bot schema, version 4: the outbox. Every message the bot owes is written here in the
-- same transaction as the change that causes it, delivered after the commit and marked sent.

CREATE TABLE outbox (
    id               INTEGER PRIMARY KEY,
    created_at       INTEGER NOT NULL,
    channel_id       TEXT,              -- where it is posted (with dm_user_id: the fallback)
    dm_user_id       TEXT,              -- sent privately to this user instead
    answers_command  INTEGER NOT NULL,  -- 1: the answer to a command (may go as its reply)
    body             TEXT NOT NULL,     -- the message (JSON: text parts, mentions, buttons)
    image_name       TEXT,
    image            BLOB,              -- dropped once sent
    sent_at          INTEGER,
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  INTEGER NOT NULL,
    last_error       TEXT,
    given_up_at      INTEGER            -- refused for good (e.g. the channel is gone)
);
CREATE INDEX outbox_unsent ON outbox(next_attempt_at)
    WHERE sent_at IS NULL AND given_up_at IS NULL;
