//! The database itself: [`Store`] (opening, the migration runner, transactions), [`Tx`],
//! [`StoreError`], and the helpers every domain module uses to run SQL and read rows by column
//! name. The domain modules add their methods to [`Tx`].

use rusqlite::types::FromSql;
use rusqlite::{Connection, Params, Row, TransactionBehavior};
use std::path::Path;
use std::time::Duration;

/// The migrations, in order; `PRAGMA user_version` records how many have been applied.
const MIGRATIONS: &[(&str, &str)] = &[
    ("0001_init", include_str!("../../migrations/0001_init.sql")),
    (
        "0002_clocks",
        include_str!("../../migrations/0002_clocks.sql"),
    ),
    (
        "0003_seats_tournaments_ratings",
        include_str!("../../migrations/0003_seats_tournaments_ratings.sql"),
    ),
    (
        "0004_outbox",
        include_str!("../../migrations/0004_outbox.sql"),
    ),
    (
        "0005_clock_restore",
        include_str!("../../migrations/0005_clock_restore.sql"),
    ),
];

/// The schema version this build writes: the number of migrations it knows.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// A failure of the database itself (a locked or unreadable file, a full disk, a broken
/// constraint). Opaque, so that no SQLite type reaches the callers of the store.
#[derive(Debug)]
pub struct DbError(rusqlite::Error);

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for DbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// A storage failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be read or written.
    #[error(
        "the database could not be read or written ({0}); try again, and tell the bot's \
         operator if it keeps happening"
    )]
    Sql(DbError),
    /// A schema migration failed; nothing of it was applied.
    #[error(
        "upgrading the database with migration {name} failed ({source}); the database is \
         unchanged: restore it from a backup or tell the bot's maintainers"
    )]
    Migration {
        /// The migration's file name, without `.sql`.
        name: &'static str,
        /// What went wrong.
        source: DbError,
    },
    /// The file was written by a newer build, which this one must not touch.
    #[error(
        "the database was written by a newer tara-bot (schema {found}, this build knows \
         {known}); run the newer tara-bot"
    )]
    TooNew {
        /// The file's schema version.
        found: i64,
        /// This build's schema version.
        known: i64,
    },
    /// Stored data that cannot be what this build wrote.
    #[error("the stored data is inconsistent: {0}; tell the bot's operator")]
    Corrupt(String),
    /// A change the store refuses because it would break its own rules.
    #[error("{0}")]
    Invalid(String),
}

/// Wraps an SQLite error (private: callers of the store never see SQLite's types).
fn db(e: rusqlite::Error) -> StoreError {
    StoreError::Sql(DbError(e))
}

/// The result of a storage call.
pub type Result<T> = std::result::Result<T, StoreError>;

/// The database.
pub struct Store {
    conn: Connection,
}

impl Store {
    /// Opens (creating if needed) the database file and brings its schema up to date.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let conn = Connection::open(path).map_err(db)?;
        Store::setup(conn)
    }

    /// A private in-memory database (tests and benchmarks).
    pub fn open_in_memory() -> Result<Store> {
        Store::setup(Connection::open_in_memory().map_err(db)?)
    }

    fn setup(conn: Connection) -> Result<Store> {
        conn.busy_timeout(Duration::from_secs(10)).map_err(db)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(db)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(db)?;
        conn.pragma_update(None, "foreign_keys", "ON").map_err(db)?;
        let mut store = Store { conn };
        store.migrate()?;
        Ok(store)
    }

    /// Applies the migrations the file lacks, all in one transaction: a failed upgrade leaves
    /// the file as it was.
    fn migrate(&mut self) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(db)?;
        let version: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(db)?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::TooNew {
                found: version,
                known: SCHEMA_VERSION,
            });
        }
        let pending = usize::try_from(version)
            .map_err(|_| StoreError::Corrupt(format!("schema version {version}")))?;
        for (name, sql) in &MIGRATIONS[pending..] {
            tx.execute_batch(sql)
                .map_err(|source| StoreError::Migration {
                    name,
                    source: DbError(source),
                })?;
        }
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)
            .map_err(db)?;
        tx.commit().map_err(db)?;
        Ok(())
    }

    /// The schema version (number of migrations applied).
    pub fn schema_version(&self) -> Result<i64> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(db)
    }

    /// Runs `f` in one write transaction (`BEGIN IMMEDIATE`): committed when `f` returns
    /// `Ok`, rolled back otherwise. A busy database is waited for (busy timeout).
    pub fn write<T, E>(
        &mut self,
        f: impl FnOnce(&Tx) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E>
    where
        E: From<StoreError>,
    {
        self.transaction(TransactionBehavior::Immediate, f)
    }

    /// Runs `f` in a read transaction (a consistent snapshot).
    pub fn read<T, E>(
        &mut self,
        f: impl FnOnce(&Tx) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E>
    where
        E: From<StoreError>,
    {
        self.transaction(TransactionBehavior::Deferred, f)
    }

    fn transaction<T, E>(
        &mut self,
        behavior: TransactionBehavior,
        f: impl FnOnce(&Tx) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E>
    where
        E: From<StoreError>,
    {
        let tx = self.conn.transaction_with_behavior(behavior).map_err(db)?;
        let out = f(&Tx { tx: &tx })?;
        tx.commit().map_err(db)?;
        Ok(out)
    }
}

/// Queries and changes inside one transaction. Its methods are defined by the domain modules
/// ([`games`], [`challenges`], [`matches`], [`clocks`], [`settings`], [`users`],
/// [`tournaments`], [`outbox`]).
pub struct Tx<'a> {
    tx: &'a rusqlite::Transaction<'a>,
}

/// A type stored as text in a column, read back by `parse`.
pub(crate) trait Column: Sized {
    /// What the text should be, for messages about corrupt data ("a variant").
    const WHAT: &'static str;
    fn parse(s: &str) -> Option<Self>;
}

impl Column for crate::game::Variant {
    const WHAT: &'static str = "a variant";
    fn parse(s: &str) -> Option<Self> {
        s.parse().ok()
    }
}

impl Column for crate::game::Scoring {
    const WHAT: &'static str = "a scoring";
    fn parse(s: &str) -> Option<Self> {
        s.parse().ok()
    }
}

/// A value of a row's column: a plain SQLite value, a [`Column`] type, or either when NULL is
/// allowed.
pub(crate) trait Field: Sized {
    fn field(c: &Cols, column: &str) -> Result<Self>;
}

macro_rules! plain_fields {
    ($($t:ty),*) => {$(
        impl Field for $t {
            fn field(c: &Cols, column: &str) -> Result<$t> {
                c.get(column)
            }
        }
        impl Field for Option<$t> {
            fn field(c: &Cols, column: &str) -> Result<Option<$t>> {
                c.get(column)
            }
        }
    )*};
}
plain_fields!(i64, u32, u8, bool, String, Vec<u8>);

impl<T: Column> Field for T {
    fn field(c: &Cols, column: &str) -> Result<T> {
        c.parse(column, T::WHAT, T::parse)
    }
}

impl<T: Column> Field for Option<T> {
    fn field(c: &Cols, column: &str) -> Result<Option<T>> {
        c.parse_opt(column, T::WHAT, T::parse)
    }
}

/// One row being read, by column name, from a named table (for error messages).
pub(super) struct Cols<'r> {
    row: &'r Row<'r>,
    table: &'static str,
}

impl Cols<'_> {
    /// A field of a row type from its column.
    pub(super) fn read<T: Field>(&self, column: &str) -> Result<T> {
        T::field(self, column)
    }

    /// The value of a column; a value of the wrong type is reported as corrupt data.
    pub(super) fn get<T: FromSql>(&self, column: &str) -> Result<T> {
        self.row.get(column).map_err(|e| match e {
            rusqlite::Error::InvalidColumnType(..)
            | rusqlite::Error::FromSqlConversionFailure(..)
            | rusqlite::Error::IntegralValueOutOfRange(..) => {
                StoreError::Corrupt(format!("{}.{column} holds a bad value ({e})", self.table))
            }
            e => db(e),
        })
    }

    /// A text column parsed by `parse`; text it rejects is reported as corrupt data.
    pub(super) fn parse<T>(
        &self,
        column: &str,
        what: &str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<T> {
        let text: String = self.get(column)?;
        parse(&text).ok_or_else(|| {
            StoreError::Corrupt(format!(
                "{}.{column} holds '{text}', which is not {what}",
                self.table
            ))
        })
    }

    /// A nullable text column parsed by `parse`.
    pub(super) fn parse_opt<T>(
        &self,
        column: &str,
        what: &str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<Option<T>> {
        let text: Option<String> = self.get(column)?;
        match text {
            None => Ok(None),
            Some(text) => parse(&text).map(Some).ok_or_else(|| {
                StoreError::Corrupt(format!(
                    "{}.{column} holds '{text}', which is not {what}",
                    self.table
                ))
            }),
        }
    }
}

impl Tx<'_> {
    /// Runs a statement that returns no rows; the number of rows changed.
    pub(super) fn exec(&self, sql: &str, params: impl Params) -> Result<usize> {
        self.tx
            .prepare_cached(sql)
            .and_then(|mut st| st.execute(params))
            .map_err(db)
    }

    /// Runs an `INSERT`; the new row's id.
    pub(super) fn insert(&self, sql: &str, params: impl Params) -> Result<i64> {
        self.exec(sql, params)?;
        Ok(self.tx.last_insert_rowid())
    }

    /// Every row of a query, each read by `read`.
    pub(super) fn all<T>(
        &self,
        table: &'static str,
        sql: &str,
        params: impl Params,
        read: impl Fn(&Cols) -> Result<T>,
    ) -> Result<Vec<T>> {
        let mut st = self.tx.prepare_cached(sql).map_err(db)?;
        let mut rows = st.query(params).map_err(db)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(db)? {
            out.push(read(&Cols { row, table })?);
        }
        Ok(out)
    }

    /// The first row of a query, if any, read by `read`.
    pub(super) fn first<T>(
        &self,
        table: &'static str,
        sql: &str,
        params: impl Params,
        read: impl Fn(&Cols) -> Result<T>,
    ) -> Result<Option<T>> {
        let mut st = self.tx.prepare_cached(sql).map_err(db)?;
        let mut rows = st.query(params).map_err(db)?;
        match rows.next().map_err(db)? {
            Some(row) => Ok(Some(read(&Cols { row, table })?)),
            None => Ok(None),
        }
    }

    /// One column of the first row of a query that always returns a row (an aggregate).
    pub(super) fn value<T: FromSql>(
        &self,
        table: &'static str,
        sql: &str,
        params: impl Params,
        column: &str,
    ) -> Result<T> {
        self.first(table, sql, params, |c| c.get(column))?
            .ok_or_else(|| StoreError::Corrupt(format!("{table}: an aggregate returned no row")))
    }
}
