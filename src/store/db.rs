//! The database itself: [`Store`] (opening, the migration runner, transactions), [`Tx`],
//! [`StoreError`], and the helpers every domain module uses to run SQL and read rows by column
//! name. The domain modules add their methods to [`Tx`].

use super::ids::{
    AnalysisId, AuditId, ChallengeId, ChannelId, GameId, MatchId, MessageId, PairingId, ServerId,
    TournamentId, UserId, VacationId,
};
use rusqlite::types::FromSql;
use rusqlite::{Connection, ErrorCode, OpenFlags, Params, Row, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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
    (
        "0006_challenge_expiry",
        include_str!("../../migrations/0006_challenge_expiry.sql"),
    ),
    (
        "0007_audit",
        include_str!("../../migrations/0007_audit.sql"),
    ),
    (
        "0008_ratings",
        include_str!("../../migrations/0008_ratings.sql"),
    ),
    (
        "0009_lobby",
        include_str!("../../migrations/0009_lobby.sql"),
    ),
    (
        "0010_tournament_play",
        include_str!("../../migrations/0010_tournament_play.sql"),
    ),
    (
        "0011_analyses",
        include_str!("../../migrations/0011_analyses.sql"),
    ),
    (
        "0012_audit_markdown",
        include_str!("../../migrations/0012_audit_markdown.sql"),
    ),
];

/// The schema version this build writes: the number of migrations it knows.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// The `PRAGMA application_id` that marks a database file as tara-bot's: the ASCII bytes
/// "TARA" (0x54415241), stored at offset 68 of the file's header. A fresh database gets it, a
/// database of an older tara-bot (application id 0 with tara-bot's tables) is adopted, and any
/// other SQLite file is refused untouched.
pub const APPLICATION_ID: i32 = 0x5441_5241;

/// The tables of the first migration: a file whose application id is 0 but which holds all of
/// them (and a schema version) was written by a tara-bot from before [`APPLICATION_ID`].
const FIRST_TABLES: &[&str] = &[
    "users",
    "matches",
    "games",
    "moves",
    "challenges",
    "takebacks",
    "user_settings",
    "server_settings",
];

/// How to restore a database from a backup. The message names the README's "Backups" section,
/// which points to the full steps in docs/operating.md.
const RESTORE_HINT: &str =
    "stop the bot, copy your latest backup (made with `tara-bot db backup`) \
     over the database file, delete the -wal and -shm files beside it if any, and start again \
     (README, \"Backups\")";

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
         has not changed it. Point --db or TARA_BOT_DB at tara-bot's database, or at a new \
         file name to start a new one"
    )]
    Foreign(String),
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
    ///
    /// Before anything is written, the file must be tara-bot's ([`APPLICATION_ID`], or an
    /// older tara-bot's tables, or empty; otherwise [`StoreError::Foreign`] or
    /// [`StoreError::NotADatabase`]) and pass SQLite's `PRAGMA quick_check` (otherwise
    /// [`StoreError::Damaged`]).
    /// A `path` that is a folder, or in a folder that does not exist, is refused naming it
    /// ([`StoreError::File`]).
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref();
        check_place(path)?;
        let conn = Connection::open(path).map_err(db)?;
        conn.busy_timeout(Duration::from_secs(10)).map_err(db)?;
        if let Owner::Foreign(why) = owner(&conn)? {
            return Err(StoreError::Foreign(why));
        }
        quick_check(&conn)?;
        Store::setup(conn)
    }

    /// Opens an existing database to read it only (`export`, `tournament export`): when its
    /// schema is this build's, the file is opened read-only, so a file (and folder) the user
    /// may only read will do, and nothing is written. A database of an older schema is opened
    /// as by [`Store::open`], which upgrades it. Checked as [`Store::open`] checks.
    pub fn open_to_read(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref();
        let conn = open_existing(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(structure)?;
        match owner(&conn)? {
            Owner::Foreign(why) => return Err(StoreError::Foreign(why)),
            Owner::TaraBot if version == SCHEMA_VERSION => {}
            Owner::TaraBot if version > SCHEMA_VERSION => {
                return Err(StoreError::TooNew {
                    found: version,
                    known: SCHEMA_VERSION,
                })
            }
            // An older or empty database: upgraded first, as at the bot's start.
            Owner::TaraBot | Owner::OlderTaraBot | Owner::Empty => {
                drop(conn);
                return Store::open(path);
            }
        }
        quick_check(&conn)?;
        Ok(Store { conn })
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
        tx.pragma_update(None, "application_id", APPLICATION_ID)
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

/// Whose database a file is, from its header and tables (read without writing anything).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Owner {
    /// Marked with [`APPLICATION_ID`].
    TaraBot,
    /// Written by a tara-bot from before [`APPLICATION_ID`]: adopted (marked) at the next start.
    OlderTaraBot,
    /// An empty database (a new file): tara-bot's schema is created at the next start.
    Empty,
    /// Another program's database, with what shows it.
    Foreign(String),
}

/// Wraps an SQLite error met while reading a file's structure: a file that is no database, or
/// a damaged one, gets its own error.
fn structure(e: rusqlite::Error) -> StoreError {
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => StoreError::NotADatabase,
        Some(ErrorCode::DatabaseCorrupt) => StoreError::Damaged(e.to_string()),
        _ => db(e),
    }
}

/// Tells whose database the file behind `conn` is, reading only its header and schema.
fn owner(conn: &Connection) -> Result<Owner> {
    let app: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(structure)?;
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(structure)?;
    let mut st = conn
        .prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
             ORDER BY name",
        )
        .map_err(structure)?;
    let tables = st
        .query_map([], |r| r.get::<_, String>(0))
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<String>>>())
        .map_err(structure)?;
    Ok(if app == APPLICATION_ID {
        Owner::TaraBot
    } else if app != 0 {
        Owner::Foreign(format!(
            "its application id is {app:#010x}; tara-bot's is {APPLICATION_ID:#010x}"
        ))
    } else if tables.is_empty() && version == 0 {
        Owner::Empty
    } else if version >= 1 && FIRST_TABLES.iter().all(|t| tables.iter().any(|n| n == t)) {
        Owner::OlderTaraBot
    } else if tables.is_empty() {
        Owner::Foreign(format!(
            "it has no tables, but its schema version (user_version) is {version}"
        ))
    } else {
        let shown: Vec<&str> = tables.iter().take(5).map(String::as_str).collect();
        let more = tables.len().saturating_sub(shown.len());
        Owner::Foreign(format!(
            "its tables are {}{}",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ))
    })
}

/// Runs `PRAGMA quick_check` or `PRAGMA integrity_check`: the problems found (none when the
/// file is sound).
fn integrity(conn: &Connection, pragma: &str) -> Result<Vec<String>> {
    let mut st = conn
        .prepare(&format!("PRAGMA {pragma}"))
        .map_err(structure)?;
    let lines = st
        .query_map([], |r| r.get::<_, String>(0))
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<String>>>());
    match lines {
        Ok(lines) if lines.len() == 1 && lines[0] == "ok" => Ok(Vec::new()),
        Ok(lines) => Ok(lines),
        Err(e) => match structure(e) {
            StoreError::Damaged(what) => Ok(vec![what]),
            e => Err(e),
        },
    }
}

/// Refuses `path` as a database file when it is a folder or its folder does not exist, naming
/// which (SQLite's own "unable to open database file" says neither).
fn check_place(path: &Path) -> Result<()> {
    let refuse = |message: String| {
        Err(StoreError::File {
            path: path.to_path_buf(),
            message,
        })
    };
    if path.is_dir() {
        return refuse(format!(
            "this is a folder, not a database file; name a file in it, such as {}",
            path.join("tara-bot.db").display()
        ));
    }
    match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(folder) if !folder.exists() => refuse(format!(
            "the folder {} does not exist; create it first or name a file in another folder",
            folder.display()
        )),
        Some(folder) if !folder.is_dir() => refuse(format!(
            "{} is a file, not a folder, so no database can be in it",
            folder.display()
        )),
        _ => Ok(()),
    }
}

/// Runs `PRAGMA quick_check`: a damaged file is [`StoreError::Damaged`].
fn quick_check(conn: &Connection) -> Result<()> {
    let problems = integrity(conn, "quick_check")?;
    let Some(first) = problems.first() else {
        return Ok(());
    };
    let more = match problems.len() {
        1 => String::new(),
        n => format!(
            " and {} more problem{}",
            n - 1,
            if n == 2 { "" } else { "s" }
        ),
    };
    Err(StoreError::Damaged(format!(
        "SQLite's quick_check found: {first}{more}"
    )))
}

/// Opens an existing database file (a check, the source of a backup, an export), never
/// creating one, with `flags` (read-write, or read-only).
fn open_existing(path: &Path, flags: OpenFlags) -> Result<Connection> {
    check_place(path)?;
    if !path.is_file() {
        return Err(StoreError::File {
            path: path.to_path_buf(),
            message: "there is no database file here; check --db or TARA_BOT_DB".to_string(),
        });
    }
    let conn = Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(structure)?;
    conn.busy_timeout(Duration::from_secs(10)).map_err(db)?;
    // A WAL database is read with its -shm file beside it, which SQLite creates when it is
    // missing: in a folder this user may not write, reading then fails ("attempt to write a
    // readonly database", or "unable to open database file" when a -wal file is there).
    let probe = conn.query_row("SELECT COUNT(*) FROM sqlite_schema", [], |r| {
        r.get::<_, i64>(0)
    });
    match probe {
        Err(e)
            if matches!(
                e.sqlite_error_code(),
                Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen)
            ) =>
        {
            drop(conn);
            open_immutable(path)
        }
        _ => Ok(conn),
    }
}

/// Opens a WAL database in a folder this user may not write (no -shm file can be made
/// there) to read it. With no -wal and no -shm beside it, no one is writing it and all of it
/// is in the file, which is then read as unchanging (SQLite's `immutable`); otherwise the
/// error says which permission is missing.
fn open_immutable(path: &Path) -> Result<Connection> {
    let beside = |ext: &str| {
        let mut p = path.as_os_str().to_owned();
        p.push(ext);
        PathBuf::from(p)
    };
    let folder = match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(folder) => folder.to_path_buf(),
        None => PathBuf::from("."),
    };
    let refuse = || StoreError::File {
        path: path.to_path_buf(),
        message: format!(
            "reading this WAL database needs its {} file, which SQLite must create in the \
             folder {}, but this user may not write there; give this user write permission on \
             that folder (or run the command as the bot's user)",
            beside("-shm")
                .file_name()
                .unwrap_or_default()
                .to_string_lossy(),
            folder.display()
        ),
    };
    if beside("-wal").exists() || beside("-shm").exists() {
        return Err(refuse());
    }
    let Some(text) = path.to_str() else {
        return Err(refuse());
    };
    // A URI file name: `%`, `?` and `#` are escaped.
    let mut uri = String::from("file:");
    for c in text.chars() {
        match c {
            '%' => uri.push_str("%25"),
            '?' => uri.push_str("%3f"),
            '#' => uri.push_str("%23"),
            c => uri.push(c),
        }
    }
    uri.push_str("?immutable=1");
    let conn = Connection::open_with_flags(
        uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(structure)?;
    conn.busy_timeout(Duration::from_secs(10)).map_err(db)?;
    Ok(conn)
}

/// What `tara-bot db check` found in a database file.
#[derive(Clone, Debug)]
pub struct CheckReport {
    /// Whose database it is.
    pub owner: Owner,
    /// Its `PRAGMA application_id`.
    pub application_id: i32,
    /// Its schema version (`PRAGMA user_version`).
    pub schema_version: i64,
    /// The problems `PRAGMA integrity_check` found (none when the file is sound).
    pub problems: Vec<String>,
    /// The number of games and of moves stored, when they could be counted.
    pub counts: Option<(i64, i64)>,
}

impl CheckReport {
    /// Whether tara-bot can use the file as it is: sound, tara-bot's (or an older tara-bot's,
    /// or empty) and of a schema this build knows.
    pub fn is_fine(&self) -> bool {
        self.problems.is_empty()
            && !matches!(self.owner, Owner::Foreign(_))
            && self.schema_version <= SCHEMA_VERSION
    }
}

impl std::fmt::Display for CheckReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let id = self.application_id;
        match &self.owner {
            Owner::TaraBot => writeln!(f, "owner: tara-bot (application id {id:#010x})")?,
            Owner::OlderTaraBot => writeln!(
                f,
                "owner: an older tara-bot (application id 0; marked as tara-bot's at the next start)"
            )?,
            Owner::Empty => writeln!(
                f,
                "owner: none yet (an empty database; tara-bot creates its tables at the next start)"
            )?,
            Owner::Foreign(why) => writeln!(f, "owner: PROBLEM: another program ({why})")?,
        }
        let v = self.schema_version;
        if v > SCHEMA_VERSION {
            writeln!(
                f,
                "schema: PROBLEM: version {v}, newer than this build's {SCHEMA_VERSION}; use the newer tara-bot"
            )?;
        } else if v < SCHEMA_VERSION && matches!(self.owner, Owner::TaraBot | Owner::OlderTaraBot) {
            writeln!(
                f,
                "schema: version {v} (upgraded to {SCHEMA_VERSION} at the next start)"
            )?;
        } else {
            writeln!(f, "schema: version {v}")?;
        }
        if self.problems.is_empty() {
            writeln!(f, "integrity: ok")?;
        } else {
            let n = self.problems.len();
            writeln!(
                f,
                "integrity: PROBLEM: {n} problem{} found",
                if n == 1 { "" } else { "s" }
            )?;
            for p in self.problems.iter().take(20) {
                writeln!(f, "  {p}")?;
            }
            if n > 20 {
                writeln!(f, "  … and {} more", n - 20)?;
            }
        }
        if let Some((games, moves)) = self.counts {
            let plural = |n: i64| if n == 1 { "" } else { "s" };
            writeln!(
                f,
                "contents: {games} game{}, {moves} move{}",
                plural(games),
                plural(moves)
            )?;
        }
        if self.is_fine() {
            write!(f, "result: fine")
        } else if self.problems.is_empty() {
            write!(f, "result: tara-bot will not use this file")
        } else {
            write!(
                f,
                "result: damaged; to restore the database, {RESTORE_HINT}"
            )
        }
    }
}

/// What [`backup`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackupSummary {
    /// The number of games in the copy.
    pub games: i64,
    /// The number of moves in the copy.
    pub moves: i64,
    /// The copy's schema version.
    pub schema_version: i64,
    /// The copy's size in bytes.
    pub bytes: u64,
}

/// Counts the games and moves of a database that has tara-bot's tables.
fn counts(conn: &Connection) -> Result<(i64, i64)> {
    conn.query_row(
        "SELECT (SELECT COUNT(*) FROM games), (SELECT COUNT(*) FROM moves)",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .map_err(structure)
}

/// Checks a database file without changing it: whose it is, its schema version, SQLite's full
/// `PRAGMA integrity_check`, and its numbers of games and moves. Safe while the bot runs.
/// Errors only when the file is missing or not an SQLite database at all.
pub fn check(path: &Path) -> Result<CheckReport> {
    let conn = open_existing(path, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
    let application_id: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(structure)?;
    let schema_version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(structure)?;
    let (owner, mut problems) = match owner(&conn) {
        Ok(owner) => (owner, Vec::new()),
        // The schema itself cannot be read: judge by the header alone.
        Err(StoreError::Damaged(what)) => {
            let owner = match application_id {
                APPLICATION_ID => Owner::TaraBot,
                0 => Owner::OlderTaraBot,
                other => Owner::Foreign(format!("its application id is {other:#010x}")),
            };
            (owner, vec![what])
        }
        Err(e) => return Err(e),
    };
    problems.extend(integrity(&conn, "integrity_check")?);
    let counts = match owner {
        Owner::TaraBot | Owner::OlderTaraBot => counts(&conn).ok(),
        Owner::Empty | Owner::Foreign(_) => None,
    };
    Ok(CheckReport {
        owner,
        application_id,
        schema_version,
        problems,
        counts,
    })
}

/// Copies the database at `source` to `dest` with SQLite's online backup API, safe while the
/// bot runs and writes (the copy is one consistent snapshot). The copy is written beside
/// `dest` under a temporary name, checked with `PRAGMA quick_check`, and then renamed over
/// `dest`, replacing any file there: a failed backup never leaves a partial file under `dest`.
/// A missing, foreign or damaged source is refused.
pub fn backup(source: &Path, dest: &Path) -> Result<BackupSummary> {
    let src = open_existing(source, OpenFlags::SQLITE_OPEN_READ_WRITE)?;
    match owner(&src)? {
        Owner::TaraBot | Owner::OlderTaraBot => {}
        Owner::Empty => {
            return Err(StoreError::File {
                path: source.to_path_buf(),
                message: "the database is empty; there is nothing to back up".to_string(),
            })
        }
        Owner::Foreign(why) => return Err(StoreError::Foreign(why)),
    }
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| StoreError::File {
            path: dest.to_path_buf(),
            message: "the backup needs a file name".to_string(),
        })?;
    if let Some(folder) = dest.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !folder.is_dir() {
            return Err(StoreError::File {
                path: dest.to_path_buf(),
                message: format!(
                    "the folder {} does not exist; create it first or name another file",
                    folder.display()
                ),
            });
        }
    }
    let partial = dest.with_file_name(format!(".{name}.partial-{}", std::process::id()));
    let written = copy_to(&src, &partial, dest);
    drop(src);
    let summary = match written {
        Ok(summary) => summary,
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
    };
    std::fs::rename(&partial, dest).map_err(|e| {
        let _ = std::fs::remove_file(&partial);
        StoreError::File {
            path: dest.to_path_buf(),
            message: format!("cannot write the backup here ({e})"),
        }
    })?;
    Ok(summary)
}

/// Copies `src` into a new file at `to` (one snapshot) and checks the copy; errors name
/// `dest`, the file the copy is for.
fn copy_to(src: &Connection, to: &Path, dest: &Path) -> Result<BackupSummary> {
    let _ = std::fs::remove_file(to);
    let cannot_write = |e: &dyn std::fmt::Display| StoreError::File {
        path: dest.to_path_buf(),
        message: format!("cannot write the backup here ({e})"),
    };
    let mut dst = Connection::open(to).map_err(|e| cannot_write(&e))?;
    {
        use rusqlite::backup::{Backup, StepResult};
        let copy = Backup::new(src, &mut dst).map_err(db)?;
        let deadline = Instant::now() + Duration::from_secs(60);
        // All pages in one step: one read transaction, so one consistent snapshot; in WAL mode
        // it does not hold up the bot's writes.
        loop {
            match copy.step(-1).map_err(structure)? {
                StepResult::Done => break,
                StepResult::More => {}
                StepResult::Busy | StepResult::Locked if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                _ => {
                    return Err(StoreError::File {
                        path: dest.to_path_buf(),
                        message: "the database stayed locked for 60 s; try the backup again"
                            .to_string(),
                    })
                }
            }
        }
    }
    // A single self-contained file: no -wal beside it.
    dst.pragma_update(None, "journal_mode", "DELETE")
        .map_err(db)?;
    let problems = integrity(&dst, "quick_check")?;
    if let Some(first) = problems.first() {
        return Err(StoreError::Damaged(format!(
            "the copy fails SQLite's quick_check: {first}"
        )));
    }
    let (games, moves) = counts(&dst)?;
    let schema_version: i64 = dst
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(db)?;
    dst.close().map_err(|(_, e)| db(e))?;
    let bytes = std::fs::metadata(to)
        .map(|m| m.len())
        .map_err(|e| cannot_write(&e))?;
    Ok(BackupSummary {
        games,
        moves,
        schema_version,
        bytes,
    })
}

/// Queries and changes inside one transaction. Its methods are defined by the domain modules
/// ([`games`], [`challenges`], [`matches`], [`clocks`], [`settings`], [`users`],
/// [`tournaments`], [`outbox`], [`audit`]).
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
plain_fields!(i64, i32, u32, u8, bool, f64, String, Vec<u8>);
plain_fields!(MessageId, AnalysisId, VacationId, AuditId);
plain_fields!(
    GameId,
    TournamentId,
    ChallengeId,
    MatchId,
    PairingId,
    UserId,
    ServerId,
    ChannelId
);

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
