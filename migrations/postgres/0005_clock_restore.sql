-- PostgreSQL's text of ../0005_clock_restore.sql: the same tables, columns and constraints in PostgreSQL's types
-- (BIGINT, identity keys, DOUBLE PRECISION, BYTEA, text compared byte by byte as SQLite does).
-- tara-bot schema: the time each move's player had left on their clock when they made it, so
-- that a takeback resumes their clock with that time (RULES.md Part E).

-- Milliseconds left on the mover's clock when the move was made; NULL for a game without a
-- clock, a forced pass the bot played, or a move stored before this column existed.
ALTER TABLE moves ADD COLUMN clock_left BIGINT;
