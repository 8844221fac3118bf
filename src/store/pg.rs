//! The PostgreSQL backend: the connection, its schema for the migration runner, and
//! transactions. The store's statements are written once, in the SQL both databases read
//! (numbered placeholders `$1`, which SQLite binds by name), and run as written.
//!
//! # Why the synchronous `postgres` client
//! The store is blocking by design: the bot core runs each command in one transaction on a
//! blocking thread (the Discord adapter calls it through `spawn_blocking`), exactly as with
//! SQLite. The synchronous `postgres` crate (a thin blocking face over `tokio-postgres`) fits that
//! shape without making the store async or adding a pool: one connection per store, as one
//! SQLite connection per store today.
//!
//! # Writers
//! SQLite lets one writer in at a time (`BEGIN IMMEDIATE`), and the bot's rules rely on it: a
//! command reads a game, checks the move and writes it, with no other writer in between. On
//! PostgreSQL a write transaction takes a transaction-scoped advisory lock on the bot's schema
//! first, so writers of every process sharing the database are serialised the same way, and
//! released at commit or rollback, also when a process dies. Readers take no lock: a read is a
//! `REPEATABLE READ, READ ONLY` transaction, one consistent snapshot as on SQLite.

use super::error::{DbError, Result, StoreError};
use super::migrations::{self, TABLES};
use super::value::postgres::{Bind, Read};
use super::value::{Params, Value};
use postgres::types::ToSql;
use postgres::{Client, NoTls, Row, Statement};
use std::collections::HashMap;

/// The first key of the writer lock ("TARA"); the second is the schema's.
const LOCK_CLASS: i32 = 0x5441_5241;

/// The first key of a server's or a user's writer lock ("TARC"); the second is a hash of the
/// schema and the server or user.
const PART_LOCK_CLASS: i32 = 0x5441_5243;

/// The first key of the migration lock ("TARB"); the second is the schema's.
const MIGRATION_LOCK_CLASS: i32 = 0x5441_5242;

/// The table that marks a database (schema) as tara-bot's, holding its schema version.
const META_TABLE: &str = "tara_bot_meta";

/// Whether `target` (a `--db` value) names a PostgreSQL database rather than a file.
pub fn is_url(target: &str) -> bool {
    target.starts_with("postgres://") || target.starts_with("postgresql://")
}

/// `url` with its password replaced by `***`, for messages.
pub fn redacted(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else {
        return url.to_string();
    };
    let rest = &url[scheme_end + 3..];
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    match (authority.rfind('@'), authority.find(':')) {
        (Some(at), Some(colon)) if colon < at => format!(
            "{}{}:***{}",
            &url[..scheme_end + 3],
            &authority[..colon],
            &url[scheme_end + 3 + at..]
        ),
        _ => url.to_string(),
    }
}

fn db(e: postgres::Error) -> StoreError {
    StoreError::Sql(DbError::postgres(e))
}

/// What a transaction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// Reads one snapshot.
    Read,
    /// Changes the bot's data: one writer at a time.
    Write,
    /// Claims work (leases) only: on PostgreSQL, row locks instead of the writer lock.
    Claim,
}

/// An open connection and the statements prepared on it.
pub(super) struct PgConn {
    client: Client,
    statements: HashMap<String, Statement>,
    /// A transaction is open on the connection.
    open: bool,
    /// A statement of the open transaction failed (PostgreSQL then refuses the rest of it).
    failed: bool,
}

impl PgConn {
    /// Connects to the database at `url` and brings its schema up to date.
    pub(super) fn open(url: &str) -> Result<PgConn> {
        let mut conn = PgConn {
            client: connect(url)?,
            statements: HashMap::new(),
            open: false,
            failed: false,
        };
        conn.migrate()?;
        Ok(conn)
    }

    /// Applies the migrations the database lacks, in one transaction under the schema's
    /// migration lock (two processes starting at once: the second waits, then finds nothing
    /// to do). A schema that holds other tables and no tara-bot mark is refused untouched.
    fn migrate(&mut self) -> Result<()> {
        let mut tx = self.client.transaction().map_err(db)?;
        tx.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))",
            &[&MIGRATION_LOCK_CLASS],
        )
        .map_err(db)?;
        let tables = tables(&mut tx)?;
        if tables.is_empty() {
            tx.batch_execute(&format!(
                "CREATE TABLE {META_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL); \
                 INSERT INTO {META_TABLE} VALUES ('application', 'tara-bot'), \
                 ('schema_version', '0')"
            ))
            .map_err(db)?;
        } else if !tables.iter().any(|t| t == META_TABLE) {
            let shown: Vec<&str> = tables.iter().take(5).map(String::as_str).collect();
            let more = tables.len().saturating_sub(shown.len());
            return Err(StoreError::ForeignSchema(format!(
                "the schema holds tables {}{} and no {META_TABLE}",
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            )));
        }
        migrations::migrate(&mut PgSchema(&mut tx))?;
        tx.commit().map_err(db)
    }

    /// The schema version (number of migrations applied).
    pub(super) fn schema_version(&mut self) -> Result<i64> {
        let mut tx = self.client.transaction().map_err(db)?;
        let v = schema_version(&mut tx)?;
        tx.commit().map_err(db)?;
        Ok(v)
    }

    /// Starts a transaction: a write takes the schema's writer lock first (exclusive), or,
    /// for a change within one server by one user (`part`: the server and the user), that
    /// lock shared and then the server's and the user's own, so that changes on different
    /// servers by different users run side by side while anything else waits for them all; a
    /// read is one read-only snapshot. The locks are always taken in this order (schema,
    /// server, user), so two writers never wait on each other in a circle. A transaction
    /// left open (its caller panicked) is rolled back first.
    pub(super) fn begin(&mut self, mode: Mode, part: Option<(&str, &str)>) -> Result<()> {
        let write = mode != Mode::Read;
        if self.open {
            self.open = false;
            self.client.batch_execute("ROLLBACK").map_err(db)?;
        }
        self.client
            .batch_execute(if write {
                "BEGIN ISOLATION LEVEL READ COMMITTED"
            } else {
                "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
            })
            .map_err(db)?;
        self.open = true;
        self.failed = false;
        if mode == Mode::Write {
            let locked = match part {
                None => self.client.execute(
                    "SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))",
                    &[&LOCK_CLASS],
                ),
                Some((server, user)) => self.client.execute(
                    "SELECT pg_advisory_xact_lock_shared($1, hashtext(current_schema())), \
                     pg_advisory_xact_lock($2, hashtext(current_schema() || ' server ' || $3)), \
                     pg_advisory_xact_lock($2, hashtext(current_schema() || ' user ' || $4))",
                    &[&LOCK_CLASS, &PART_LOCK_CLASS, &server, &user],
                ),
            };
            if let Err(e) = locked {
                self.rollback();
                return Err(db(e));
            }
        }
        Ok(())
    }

    /// Commits the open transaction; one in which a statement failed is rolled back instead
    /// (PostgreSQL has already abandoned it) and reported.
    pub(super) fn commit(&mut self) -> Result<()> {
        if self.failed {
            self.rollback();
            return Err(StoreError::Invalid(
                "a statement of this change failed, so none of it was saved".to_string(),
            ));
        }
        self.open = false;
        self.client.batch_execute("COMMIT").map_err(db)
    }

    /// Rolls the open transaction back (a failure to is left for the next `begin`).
    pub(super) fn rollback(&mut self) {
        if self.client.batch_execute("ROLLBACK").is_ok() {
            self.open = false;
        }
    }

    /// The prepared statement for `sql`, prepared once per connection.
    fn statement(&mut self, sql: &str) -> std::result::Result<Statement, postgres::Error> {
        if let Some(st) = self.statements.get(sql) {
            return Ok(st.clone());
        }
        let st = self.client.prepare(sql)?;
        self.statements.insert(sql.to_string(), st.clone());
        Ok(st)
    }

    fn run<T>(
        &mut self,
        sql: &str,
        params: Params,
        f: impl FnOnce(
            &mut Client,
            &Statement,
            &[&(dyn ToSql + Sync)],
        ) -> std::result::Result<T, postgres::Error>,
    ) -> Result<T> {
        let binds: Vec<Bind> = params.iter().map(|p| Bind::of(*p)).collect();
        let refs: Vec<&(dyn ToSql + Sync)> = binds.iter().map(|b| b as _).collect();
        let out = self
            .statement(sql)
            .and_then(|st| f(&mut self.client, &st, &refs));
        if out.is_err() {
            self.failed = true;
        }
        out.map_err(db)
    }

    pub(super) fn execute(&mut self, sql: &str, params: Params) -> Result<usize> {
        let n = self.run(sql, params, |c, st, p| c.execute(st, p))?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    pub(super) fn query(&mut self, sql: &str, params: Params) -> Result<Vec<Row>> {
        self.run(sql, params, |c, st, p| c.query(st, p))
    }

    /// The column names and every row of a query (no parameters), as values.
    pub(super) fn rows(&mut self, sql: &str) -> Result<(Vec<String>, Vec<Vec<Value>>)> {
        let rows = self.query(sql, &[])?;
        let st = self.statement(sql).map_err(db)?;
        let columns: Vec<String> = st.columns().iter().map(|c| c.name().to_string()).collect();
        let values = rows
            .iter()
            .map(|row| {
                (0..columns.len())
                    .map(|i| row.try_get::<_, Read>(i).map(|r| r.0).map_err(db))
                    .collect::<Result<Vec<Value>>>()
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((columns, values))
    }

    /// Sets each identity column's sequence past the largest id in its table.
    pub(super) fn restart_ids(&mut self) -> Result<()> {
        let identities = self.query(
            "SELECT table_name::text AS t, column_name::text AS c FROM information_schema.columns \
             WHERE table_schema = current_schema() AND is_identity = 'YES'",
            &[],
        )?;
        for row in identities {
            let (table, column): (String, String) = (row.get("t"), row.get("c"));
            self.query(
                &format!(
                    "SELECT setval(pg_get_serial_sequence('{table}', '{column}'), \
                     COALESCE((SELECT MAX({column}) FROM {table}), 0) + 1, false)"
                ),
                &[],
            )?;
        }
        Ok(())
    }

    /// Runs an `INSERT` and returns the new row's `id`.
    pub(super) fn insert(&mut self, sql: &str, params: Params) -> Result<i64> {
        let rows = self.query(&format!("{sql} RETURNING id"), params)?;
        match rows.first().map(|r| read(r, "id")) {
            Some(Ok(Value::Int(id))) => Ok(id),
            Some(Err(e)) => Err(e),
            _ => Err(StoreError::Corrupt("an insert returned no id".to_string())),
        }
    }
}

/// The tables of the connection's schema, by name: its tables, views and foreign tables,
/// what `information_schema.tables` lists, read from the catalog directly (the view checks
/// privileges on every table of every schema, about 9 ms with a few hundred schemas, and
/// every process start and `db check` asks).
fn tables(tx: &mut postgres::Transaction<'_>) -> Result<Vec<String>> {
    Ok(tx
        .query(
            "SELECT c.relname::text FROM pg_catalog.pg_class c \
             WHERE c.relnamespace = current_schema()::regnamespace \
             AND c.relkind IN ('r', 'p', 'v', 'f') ORDER BY c.relname",
            &[],
        )
        .map_err(db)?
        .iter()
        .map(|r| r.get(0))
        .collect())
}

fn schema_version(tx: &mut postgres::Transaction<'_>) -> Result<i64> {
    let row = tx
        .query_opt(
            &format!("SELECT value FROM {META_TABLE} WHERE key = 'schema_version'"),
            &[],
        )
        .map_err(db)?
        .ok_or_else(|| StoreError::Corrupt(format!("{META_TABLE} has no schema version")))?;
    let text: String = row.get(0);
    text.parse()
        .map_err(|_| StoreError::Corrupt(format!("schema version '{text}'")))
}

/// What `db check` finds in a PostgreSQL database, read without changing anything.
pub(super) struct Inspection {
    /// The tables of the connection's schema.
    pub(super) tables: Vec<String>,
    /// Whether the schema is marked as tara-bot's.
    pub(super) marked: bool,
    /// The schema version (0 when unmarked).
    pub(super) version: i64,
    /// Problems found: missing tables, moves out of order.
    pub(super) problems: Vec<String>,
    /// The numbers of games and moves, when tara-bot's tables are there.
    pub(super) counts: Option<(i64, i64)>,
}

/// Connects to `url` without creating or upgrading anything.
fn connect(url: &str) -> Result<Client> {
    Client::connect(url, NoTls).map_err(|e| StoreError::Unreachable {
        url: redacted(url),
        // The server's own words ("database \"x\" does not exist"), not the client's "db
        // error".
        message: DbError::postgres(e).to_string(),
    })
}

/// Inspects the database at `url` in one read-only snapshot: whose schema it is, its version,
/// that every table is there, and that every game's moves are numbered from 0 without a gap
/// (PostgreSQL itself keeps keys, references and pages consistent; `pg_amcheck` checks the
/// pages on disk).
pub(super) fn inspect(url: &str) -> Result<Inspection> {
    let mut client = connect(url)?;
    let mut tx = client
        .build_transaction()
        .isolation_level(postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .map_err(db)?;
    let tables = tables(&mut tx)?;
    let marked = tables.iter().any(|t| t == META_TABLE);
    let version = if marked { schema_version(&mut tx)? } else { 0 };
    let mut problems = Vec::new();
    let mut counts = None;
    if marked && version > 0 {
        for (table, _) in TABLES {
            if !tables.iter().any(|t| t == table) {
                problems.push(format!("table {table} is missing"));
            }
        }
        if problems.is_empty() {
            for row in tx
                .query(
                    "SELECT game_id, COUNT(*) AS n, MAX(ply) AS last FROM moves GROUP BY game_id \
                     HAVING MIN(ply) <> 0 OR MAX(ply) + 1 <> COUNT(*) ORDER BY game_id LIMIT 50",
                    &[],
                )
                .map_err(db)?
            {
                let (game, n, last): (i64, i64, i64) = (row.get(0), row.get(1), row.get(2));
                problems.push(format!(
                    "game #{game} has {n} moves numbered up to ply {last}: plies are missing"
                ));
            }
            let row = tx
                .query_one(
                    "SELECT (SELECT COUNT(*) FROM games), (SELECT COUNT(*) FROM moves)",
                    &[],
                )
                .map_err(db)?;
            counts = Some((row.get(0), row.get(1)));
        }
    }
    tx.commit().map_err(db)?;
    Ok(Inspection {
        tables,
        marked,
        version,
        problems,
        counts,
    })
}

/// Dumps the database at `url` (its tara-bot schema) to `to` with `pg_dump`'s custom format,
/// which `pg_restore` reads. `None` when `pg_dump` is not installed.
pub(super) fn dump(url: &str, to: &std::path::Path) -> Result<Option<std::process::Output>> {
    let mut client = connect(url)?;
    let schema: String = client
        .query_one("SELECT current_schema()::text", &[])
        .map_err(db)?
        .get(0);
    let Some(pg_dump) = find_program("pg_dump") else {
        return Ok(None);
    };
    let out = std::process::Command::new(pg_dump)
        .arg("--format=custom")
        .arg("--no-owner")
        .arg(format!("--schema={schema}"))
        .arg(format!("--file={}", to.display()))
        .arg(format!("--dbname={url}"))
        .output()
        .map_err(|e| StoreError::File {
            path: to.to_path_buf(),
            message: format!("cannot run pg_dump ({e})"),
        })?;
    Ok(Some(out))
}

/// A program on the `PATH`, or in the newest PostgreSQL of Debian's layout.
fn find_program(name: &str) -> Option<std::path::PathBuf> {
    let on_path = std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(name))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let mut debian: Vec<std::path::PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| {
            d.flatten()
                .map(|e| e.path().join("bin").join(name))
                .collect()
        })
        .unwrap_or_default();
    debian.sort();
    on_path
        .into_iter()
        .chain(debian.into_iter().rev())
        .find(|p| p.is_file())
}

/// A column of a row, by name.
pub(super) fn read(row: &Row, column: &str) -> Result<Value> {
    row.try_get::<_, Read>(column).map(|r| r.0).map_err(db)
}

/// A PostgreSQL schema, its version in its meta table; a migration is applied in its
/// PostgreSQL text.
struct PgSchema<'a, 'b>(&'a mut postgres::Transaction<'b>);

impl migrations::Schema for PgSchema<'_, '_> {
    fn applied(&mut self) -> Result<i64> {
        schema_version(self.0)
    }

    fn apply(&mut self, migration: &migrations::Migration) -> std::result::Result<(), DbError> {
        self.0
            .batch_execute(migration.postgres)
            .map_err(DbError::postgres)
    }

    fn record(&mut self, version: i64) -> Result<()> {
        self.0
            .execute(
                &format!("UPDATE {META_TABLE} SET value = $1 WHERE key = 'schema_version'"),
                &[&version.to_string()],
            )
            .map_err(db)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_not_shown() {
        assert_eq!(
            redacted("postgres://bot:secret@db.example/tara"),
            "postgres://bot:***@db.example/tara"
        );
        assert_eq!(
            redacted("postgres://bot@localhost/tara"),
            "postgres://bot@localhost/tara"
        );
    }
}
