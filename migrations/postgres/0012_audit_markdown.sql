-- PostgreSQL's text of ../0012_audit_markdown.sql: the same tables, columns and constraints in PostgreSQL's types
-- (BIGINT, identity keys, DOUBLE PRECISION, BYTEA, text compared byte by byte as SQLite does).
-- tara-bot schema, version 12: an audit entry's detail is Markdown, shown as it is (so the
-- bot's channel and role mentions in it work); what a moderator wrote in it (an abort's reason) is
-- escaped when it is recorded. The reasons recorded before were kept as typed: escape them here,
-- as the bot escapes user text (a backslash before each character Discord's Markdown reads, a
-- zero-width space after @, line breaks as spaces).

UPDATE audit SET detail = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(detail, '\', '\\'), '*', '\*'), '_', '\_'), '~', '\~'), '`', '\`'), '|', '\|'), '>', '\>'), '#', '\#'), '-', '\-'), '[', '\['), ']', '\]'), '(', '\('), ')', '\)'), '<', '\<'), ':', '\:'), '@', '@' || chr(8203)), chr(10), ' '), chr(13), ' ')
WHERE action = 'abort';
