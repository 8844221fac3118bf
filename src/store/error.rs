//! The store's errors: [`StoreError`] and the opaque [`DbError`] of either backend.

use std::path::PathBuf;

/// How to restore a database from a backup. The message names the README's "Backups" section,
/// which points to the full steps in docs/operating.md.
pub(crate) const RESTORE_HINT: &str =
    "stop the bot, copy your latest backup (made with `tara-bot db backup`) \
     over the database file, delete the -wal and -shm files beside it if any, and start again \
     (README, \"Backups\")";

/// A failure of the database itself (a locked or unreadable file, a full disk, a broken
/// constraint, a lost connection). Opaque, so that no SQLite or PostgreSQL type reaches the
/// callers of the store.
#[derive(Debug)]
pub struct DbError(Backend);

#[derive(Debug)]
enum Backend {
    Sqlite(rusqlite::Error),
    Postgres(postgres::Error),
}

/// Why a database file could not be used, where the file system says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// The file may be read but not written.
    ReadOnly,
    /// The file cannot be opened or created (a missing or unwritable folder).
    CannotOpen,
}

impl DbError {
    pub(crate) fn sqlite(e: rusqlite::Error) -> DbError {
        DbError(Backend::Sqlite(e))
    }

    /// Whether SQLite refused the file for want of access to it.
    pub fn access(&self) -> Option<Access> {
        match &self.0 {
            Backend::Sqlite(rusqlite::Error::SqliteFailure(f, _)) => match f.code {
                rusqlite::ErrorCode::ReadOnly => Some(Access::ReadOnly),
                rusqlite::ErrorCode::CannotOpen => Some(Access::CannotOpen),
                _ => None,
            },
            _ => None,
        }
    }

    pub(super) fn postgres(e: postgres::Error) -> DbError {
        DbError(Backend::Postgres(e))
    }
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Backend::Sqlite(e) => e.fmt(f),
            Backend::Postgres(e) => match e.as_db_error() {
                // The server's own message (the client's Display says only "db error").
                Some(d) => write!(f, "{}: {}", d.severity(), d.message()),
                None => e.fmt(f),
            },
        }
    }
}

impl std::error::Error for DbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0 {
            Backend::Sqlite(e) => Some(e),
            Backend::Postgres(e) => Some(e),
        }
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
    /// SQLite's own check found the file damaged; tara-bot does not use it.
    #[error(
        "the database file is damaged ({0}), so tara-bot will not use it. To restore it, \
         {RESTORE_HINT}; `tara-bot db check` lists every problem it finds"
    )]
    Damaged(String),
    /// The file is not an SQLite database at all.
    #[error(
        "the file is not an SQLite database (another kind of file, or one damaged beyond \
         reading), so tara-bot will not use it. Check that --db or TARA_BOT_DB names \
         tara-bot's database; to restore it, {RESTORE_HINT}"
    )]
    NotADatabase,
    /// The file is another program's SQLite database; nothing was written to it.
    #[error(
        "the file is another program's SQLite database ({0}), not tara-bot's, and tara-bot \
         has not changed it. Name tara-bot's database instead, or a new file name to start a \
         new one"
    )]
    Foreign(String),
    /// The PostgreSQL database (its schema) is another program's; nothing was written to it.
    #[error(
        "the PostgreSQL schema is another program's ({0}), not tara-bot's, and tara-bot has \
         not changed it. Name tara-bot's database instead (or a schema of its own: \
         ?options=-csearch_path%3Dname), or an empty one to start a new one"
    )]
    ForeignSchema(String),
    /// A database named by an option (`db copy`'s `--from` or `--to`) cannot be used: which
    /// one, and why.
    #[error("{option} {db}: {source}")]
    Named {
        /// The option, as typed.
        option: &'static str,
        /// The database as shown (a URL's password hidden).
        db: String,
        #[source]
        source: Box<StoreError>,
    },
    /// A file named for a check or a backup is missing or cannot be written.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong, as a sentence.
        message: String,
    },
    /// A change the store refuses because it would break its own rules.
    #[error("{0}")]
    Invalid(String),
    /// The PostgreSQL server named by `--db` or `TARA_BOT_DATABASE_URL` cannot be reached or
    /// refused the connection.
    #[error(
        "cannot connect to the PostgreSQL database {url} ({message}); check that the server \
         runs, and the URL's host, port, user, password and database name (tara-bot connects \
         without TLS: use a local or private network, or sslmode=disable)"
    )]
    Unreachable {
        /// The URL, its password hidden.
        url: String,
        /// What the client said.
        message: String,
    },
}

/// The result of a storage call.
pub type Result<T> = std::result::Result<T, StoreError>;
