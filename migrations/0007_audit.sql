-- tara-bot schema, version 7: the moderators' audit log.

CREATE TABLE audit (
    id            INTEGER PRIMARY KEY,
    server_id     TEXT NOT NULL,
    moderator_id  TEXT NOT NULL,
    action        TEXT NOT NULL,      -- 'abort', 'settings', 'audit-log', ...
    subject       TEXT NOT NULL,      -- what it acted on ('game #12', 'server settings')
    detail        TEXT NOT NULL,      -- what changed, and the reason given
    created_at    INTEGER NOT NULL
);
CREATE INDEX audit_server ON audit(server_id, id);
