//! The database itself: [`Store`] (opening, the migration runner, transactions), [`Tx`],
//! [`StoreError`], and the helpers every domain module uses to run SQL and read rows by column
//! name. The domain modules add their methods to [`Tx`].

use super::error::{DbError, RESTORE_HINT};
pub(super) use super::error::{Result, StoreError};
use super::migrations::{self, SCHEMA_VERSION};
use super::pg::{self, Mode, PgConn};
use super::value::{sqlite::Bind, FromValue, Params, ToValue, Value};
use crate::ids::{
    AnalysisId, AuditId, ChallengeId, ChannelId, GameId, LadderGameId, LadderId, LeagueId, MatchId,
    MessageId, PairingId, ServerId, TournamentId, UserId, VacationId,
};
use rusqlite::{Connection, ErrorCode, OpenFlags, Row, TransactionBehavior};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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

/// Wraps an SQLite error (private: callers of the store never see SQLite's types).
fn db(e: rusqlite::Error) -> StoreError {
    StoreError::Sql(DbError::sqlite(e))
}

/// The database: an SQLite file (the default) or a PostgreSQL database.
pub struct Store {
    conn: Conn,
}

enum Conn {
    Sqlite(Connection),
    Postgres(Box<RefCell<PgConn>>),
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
    ///
    /// A `path` that reads as a PostgreSQL URL (`postgres://…` or `postgresql://…`) opens that
    /// database instead, creating tara-bot's tables in its schema (or upgrading them) as for a
    /// file.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref();
        if let Some(url) = as_url(path) {
            return Store::open_postgres(url);
        }
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
        if let Some(url) = as_url(path) {
            return Store::open_postgres(url);
        }
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
        Ok(Store {
            conn: Conn::Sqlite(conn),
        })
    }

    /// Opens the PostgreSQL database at `url` and brings its schema up to date.
    pub fn open_postgres(url: &str) -> Result<Store> {
        Ok(Store {
            conn: Conn::Postgres(Box::new(RefCell::new(PgConn::open(url)?))),
        })
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
        let mut conn = conn;
        migrate(&mut conn)?;
        Ok(Store {
            conn: Conn::Sqlite(conn),
        })
    }

    /// The schema version (number of migrations applied).
    pub fn schema_version(&mut self) -> Result<i64> {
        match &mut self.conn {
            Conn::Sqlite(c) => c
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .map_err(db),
            Conn::Postgres(c) => c.get_mut().schema_version(),
        }
    }

    /// Runs `f` in one write transaction: committed when `f` returns `Ok`, rolled back
    /// otherwise. One writer at a time (SQLite's `BEGIN IMMEDIATE`, waiting out a busy
    /// database; on PostgreSQL the schema's writer lock, across every process, which also
    /// waits for every [`Store::write_within`]).
    pub fn write<T, E>(
        &mut self,
        f: impl FnOnce(&Tx) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E>
    where
        E: From<StoreError>,
    {
        self.transaction(Mode::Write, f)
    }

    /// Runs `f` in one write transaction that changes only what belongs to `server` and to
    /// `user` (a command's change: its server's games, tournaments, settings and ratings, and
    /// the user's own settings and notes). On SQLite it is [`Store::write`]. On PostgreSQL,
    /// such changes on different servers by different users run side by side, each under its
    /// server's and its user's lock; a change of one server or by one user waits for the
    /// others, and [`Store::write`] for them all.
    pub fn write_within<T, E>(
        &mut self,
        server: &str,
        user: &str,
        f: impl FnOnce(&Tx) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E>
    where
        E: From<StoreError>,
    {
        self.transaction_in(Mode::Write, Some((server, user)), f)
    }

    /// Runs `f` in one write transaction that only claims work (leases on rows: owed
    /// messages, the AI's moves, analyses). On SQLite it is [`Store::write`]. On PostgreSQL it
    /// takes no writer lock: claimers of several processes lock only the rows they claim,
    /// skipping rows another one has locked (`FOR UPDATE SKIP LOCKED`, [`Tx::skip_locked`]).
    pub fn claim<T, E>(
        &mut self,
        f: impl FnOnce(&Tx) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E>
    where
        E: From<StoreError>,
    {
        self.transaction(Mode::Claim, f)
    }

    /// Runs `f` in a read transaction (a consistent snapshot).
    pub fn read<T, E>(
        &mut self,
        f: impl FnOnce(&Tx) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E>
    where
        E: From<StoreError>,
    {
        self.transaction(Mode::Read, f)
    }

    fn transaction<T, E>(
        &mut self,
        mode: Mode,
        f: impl FnOnce(&Tx) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E>
    where
        E: From<StoreError>,
    {
        self.transaction_in(mode, None, f)
    }

    fn transaction_in<T, E>(
        &mut self,
        mode: Mode,
        part: Option<(&str, &str)>,
        f: impl FnOnce(&Tx) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E>
    where
        E: From<StoreError>,
    {
        match &mut self.conn {
            Conn::Sqlite(conn) => {
                let behavior = match mode {
                    Mode::Write | Mode::Claim => TransactionBehavior::Immediate,
                    Mode::Read => TransactionBehavior::Deferred,
                };
                let tx = conn.transaction_with_behavior(behavior).map_err(db)?;
                let out = f(&Tx {
                    tx: TxInner::Sqlite(&tx),
                })?;
                tx.commit().map_err(db)?;
                Ok(out)
            }
            Conn::Postgres(conn) => {
                conn.get_mut().begin(mode, part)?;
                let out = f(&Tx {
                    tx: TxInner::Postgres(conn),
                });
                let conn = conn.get_mut();
                match out {
                    Ok(out) => {
                        conn.commit()?;
                        Ok(out)
                    }
                    Err(e) => {
                        conn.rollback();
                        Err(e)
                    }
                }
            }
        }
    }
}

/// Applies the migrations the file lacks ([`migrations::migrate`]), all in one transaction: a
/// failed upgrade leaves the file as it was.
fn migrate(conn: &mut Connection) -> Result<()> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(db)?;
    migrations::migrate(&mut SqliteSchema(&tx))?;
    tx.commit().map_err(db)
}

/// An SQLite file's schema: its version is `PRAGMA user_version`, and the file is marked as
/// tara-bot's (`application_id`) with it.
struct SqliteSchema<'a>(&'a rusqlite::Transaction<'a>);

impl migrations::Schema for SqliteSchema<'_> {
    fn applied(&mut self) -> Result<i64> {
        self.0
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(db)
    }

    fn apply(&mut self, migration: &migrations::Migration) -> std::result::Result<(), DbError> {
        self.0
            .execute_batch(migration.sqlite)
            .map_err(DbError::sqlite)
    }

    fn record(&mut self, version: i64) -> Result<()> {
        self.0
            .pragma_update(None, "user_version", version)
            .map_err(db)?;
        self.0
            .pragma_update(None, "application_id", APPLICATION_ID)
            .map_err(db)
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
    /// A PostgreSQL database (its schema marked by a `tara_bot_meta` table, not an
    /// application id; its integrity kept by the server, and checked here as tara-bot's data).
    pub postgres: bool,
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
            Owner::TaraBot if self.postgres => {
                writeln!(f, "owner: tara-bot (its schema holds tara_bot_meta)")?
            }
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
        if matches!(self.owner, Owner::Foreign(_)) {
            writeln!(
                f,
                "integrity: not checked (not tara-bot's {})",
                if self.postgres { "schema" } else { "file" }
            )?;
        } else if self.problems.is_empty() && self.postgres {
            writeln!(
                f,
                "integrity: ok (every table is there and every game's moves are in order; \
                 PostgreSQL keeps keys and references itself, and pg_amcheck checks its pages)"
            )?;
        } else if self.problems.is_empty() {
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
            write!(
                f,
                "result: tara-bot will not use this {}",
                if self.postgres { "database" } else { "file" }
            )
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
///
/// A PostgreSQL URL is inspected in one read-only snapshot: whose schema it is, its version,
/// that every table is there and every game's moves are numbered without a gap.
pub fn check(path: &Path) -> Result<CheckReport> {
    if let Some(url) = as_url(path) {
        let found = pg::inspect(url)?;
        let owner = if found.marked {
            Owner::TaraBot
        } else if found.tables.is_empty() {
            Owner::Empty
        } else {
            Owner::Foreign(format!(
                "its schema holds {} and no tara_bot_meta",
                found
                    .tables
                    .iter()
                    .take(5)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        };
        return Ok(CheckReport {
            owner,
            application_id: if found.marked { APPLICATION_ID } else { 0 },
            schema_version: found.version,
            problems: found.problems,
            counts: found.counts,
            postgres: true,
        });
    }
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
        postgres: false,
    })
}

/// Copies the database at `source` to `dest` with SQLite's online backup API, safe while the
/// bot runs and writes (the copy is one consistent snapshot). The copy is written beside
/// `dest` under a temporary name, checked with `PRAGMA quick_check`, and then renamed over
/// `dest`, replacing any file there: a failed backup never leaves a partial file under `dest`.
/// A missing, foreign or damaged source is refused.
///
/// A PostgreSQL source is dumped with `pg_dump` (its custom format, which `pg_restore`
/// reads), under a temporary name renamed over `dest` when it is complete; without `pg_dump`
/// the error says what to install, or to copy the database into an SQLite file instead.
pub fn backup(source: &Path, dest: &Path) -> Result<BackupSummary> {
    if let Some(url) = as_url(source) {
        return backup_postgres(url, dest);
    }
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
    let partial = partial_of(dest)?;
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

/// The temporary name a backup to `dest` is written under, beside it.
fn partial_of(dest: &Path) -> Result<PathBuf> {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| StoreError::File {
            path: dest.to_path_buf(),
            message: "the backup needs a file name".to_string(),
        })?;
    Ok(dest.with_file_name(format!(".{name}.partial-{}", std::process::id())))
}

/// `db backup` of a PostgreSQL database: `pg_dump` to a partial file, renamed when complete.
fn backup_postgres(url: &str, dest: &Path) -> Result<BackupSummary> {
    let found = pg::inspect(url)?;
    if !found.marked {
        return Err(StoreError::Invalid(format!(
            "{} holds no tara-bot database; there is nothing to back up",
            pg::redacted(url)
        )));
    }
    let partial = partial_of(dest)?;
    let fail = |message: String| {
        let _ = std::fs::remove_file(&partial);
        StoreError::File {
            path: dest.to_path_buf(),
            message,
        }
    };
    match pg::dump(url, &partial)? {
        None => {
            return Err(fail(
                "backing up a PostgreSQL database needs pg_dump, which is not installed \
                 (Debian: apt install postgresql-client, of the server's version or newer); \
                 or copy the database into an SQLite file with \
                 `tara-bot db copy --from <the URL> --to backup.db`"
                    .to_string(),
            ))
        }
        Some(out) if !out.status.success() => {
            return Err(fail(format!(
                "pg_dump failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )))
        }
        Some(_) => {}
    }
    std::fs::rename(&partial, dest)
        .map_err(|e| fail(format!("cannot write the backup here ({e})")))?;
    let (games, moves) = found.counts.unwrap_or_default();
    Ok(BackupSummary {
        games,
        moves,
        schema_version: found.version,
        bytes: std::fs::metadata(dest).map(|m| m.len()).unwrap_or_default(),
    })
}

/// How a database is named in messages and logs: a file's path, or a PostgreSQL URL with its
/// password hidden.
pub fn shown(path: &Path) -> String {
    match as_url(path) {
        Some(url) => pg::redacted(url),
        None => path.display().to_string(),
    }
}

/// `path` as a PostgreSQL URL, when it is one.
fn as_url(path: &Path) -> Option<&str> {
    path.to_str().filter(|p| pg::is_url(p))
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
    tx: TxInner<'a>,
}

enum TxInner<'a> {
    Sqlite(&'a rusqlite::Transaction<'a>),
    Postgres(&'a RefCell<PgConn>),
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

/// A value of a row's column: a plain value ([`FromValue`]), a [`Column`] type, or either when
/// NULL is allowed.
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
plain_fields!(
    MessageId,
    AnalysisId,
    VacationId,
    AuditId,
    LadderId,
    LadderGameId,
    LeagueId
);
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
    row: RowRef<'r>,
    table: &'static str,
}

enum RowRef<'r> {
    /// A row of SQLite, with its query's column names when they were read once for all rows.
    Sqlite(&'r Row<'r>, Option<&'r Columns>),
    Postgres(&'r postgres::Row),
}

/// A query's column names, read once for all its rows: SQLite finds a column by name by asking
/// for the name of each column in turn, for every field of every row. Rows are read field by
/// field in the order of their columns, so the column after the last one read is tried first.
struct Columns {
    names: Vec<String>,
    /// Whether each name is the first column of that name (a name is the first column so
    /// called, as SQLite's lookup finds it).
    first: Vec<bool>,
    next: std::cell::Cell<usize>,
}

impl Columns {
    fn of(st: &rusqlite::Statement) -> Columns {
        let names: Vec<String> = st.column_names().into_iter().map(String::from).collect();
        let first = (0..names.len())
            .map(|i| !names[..i].iter().any(|n| n.eq_ignore_ascii_case(&names[i])))
            .collect();
        Columns {
            names,
            first,
            next: std::cell::Cell::new(0),
        }
    }

    /// The index of the first column called `column` (ASCII case ignored, as SQLite's lookup).
    fn index(&self, column: &str) -> Option<usize> {
        let hint = self.next.get();
        let i = if self.first.get(hint) == Some(&true)
            && self.names[hint].eq_ignore_ascii_case(column)
        {
            hint
        } else {
            self.names
                .iter()
                .position(|n| n.eq_ignore_ascii_case(column))?
        };
        self.next.set(i + 1);
        Some(i)
    }
}

impl Cols<'_> {
    /// A field of a row type from its column.
    pub(super) fn read<T: Field>(&self, column: &str) -> Result<T> {
        T::field(self, column)
    }

    /// The value of a column; a value of the wrong type is reported as corrupt data.
    pub(super) fn get<T: FromValue>(&self, column: &str) -> Result<T> {
        let corrupt = |e: String| {
            StoreError::Corrupt(format!("{}.{column} holds a bad value ({e})", self.table))
        };
        let value = match self.row {
            RowRef::Sqlite(row, columns) => {
                let value = match columns.and_then(|c| c.index(column)) {
                    Some(i) => row.get_ref(i),
                    None => row.get_ref(column),
                };
                super::value::sqlite::read(value.map_err(db)?).map_err(corrupt)?
            }
            RowRef::Postgres(row) => pg::read(row, column)?,
        };
        T::from_value(value).map_err(corrupt)
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
    pub(super) fn exec(&self, sql: &str, params: Params) -> Result<usize> {
        match &self.tx {
            TxInner::Sqlite(tx) => tx
                .prepare_cached(sql)
                .and_then(|mut st| {
                    bind(&mut st, params)?;
                    st.raw_execute()
                })
                .map_err(db),
            TxInner::Postgres(tx) => tx.borrow_mut().execute(sql, params),
        }
    }

    /// Runs an `INSERT` into a table keyed by `id`; the new row's id.
    pub(super) fn insert(&self, sql: &str, params: Params) -> Result<i64> {
        match &self.tx {
            TxInner::Sqlite(tx) => {
                self.exec(sql, params)?;
                Ok(tx.last_insert_rowid())
            }
            TxInner::Postgres(tx) => tx.borrow_mut().insert(sql, params),
        }
    }

    /// Every row of a query, each read by `read`.
    pub(super) fn all<T>(
        &self,
        table: &'static str,
        sql: &str,
        params: Params,
        read: impl Fn(&Cols) -> Result<T>,
    ) -> Result<Vec<T>> {
        match &self.tx {
            TxInner::Sqlite(tx) => {
                let mut st = tx.prepare_cached(sql).map_err(db)?;
                bind(&mut st, params).map_err(db)?;
                let mut rows = st.raw_query();
                let mut out = Vec::new();
                let mut columns = None;
                while let Some(row) = rows.next().map_err(db)? {
                    let columns = columns.get_or_insert_with(|| Columns::of(row.as_ref()));
                    columns.next.set(0);
                    out.push(read(&Cols {
                        row: RowRef::Sqlite(row, Some(columns)),
                        table,
                    })?);
                }
                Ok(out)
            }
            TxInner::Postgres(tx) => {
                let rows = tx.borrow_mut().query(sql, params)?;
                rows.iter()
                    .map(|row| {
                        read(&Cols {
                            row: RowRef::Postgres(row),
                            table,
                        })
                    })
                    .collect()
            }
        }
    }

    /// The first row of a query, if any, read by `read`.
    pub(super) fn first<T>(
        &self,
        table: &'static str,
        sql: &str,
        params: Params,
        read: impl Fn(&Cols) -> Result<T>,
    ) -> Result<Option<T>> {
        match &self.tx {
            TxInner::Sqlite(tx) => {
                let mut st = tx.prepare_cached(sql).map_err(db)?;
                bind(&mut st, params).map_err(db)?;
                let mut rows = st.raw_query();
                match rows.next().map_err(db)? {
                    Some(row) => Ok(Some(read(&Cols {
                        row: RowRef::Sqlite(row, None),
                        table,
                    })?)),
                    None => Ok(None),
                }
            }
            TxInner::Postgres(tx) => {
                let rows = tx.borrow_mut().query(sql, params)?;
                rows.first()
                    .map(|row| {
                        read(&Cols {
                            row: RowRef::Postgres(row),
                            table,
                        })
                    })
                    .transpose()
            }
        }
    }

    /// One column of the first row of a query that always returns a row (an aggregate).
    pub(super) fn value<T: FromValue>(
        &self,
        table: &'static str,
        sql: &str,
        params: Params,
        column: &str,
    ) -> Result<T> {
        self.first(table, sql, params, |c| c.get(column))?
            .ok_or_else(|| StoreError::Corrupt(format!("{table}: an aggregate returned no row")))
    }

    /// What ends a query that claims the rows it selects: on PostgreSQL ` FOR UPDATE SKIP
    /// LOCKED` (rows another transaction has locked are left out, not waited for); nothing on
    /// SQLite, where the one writer at a time already has every row to itself.
    pub(super) fn skip_locked(&self) -> &'static str {
        match self.tx {
            TxInner::Sqlite(_) => "",
            TxInner::Postgres(_) => " FOR UPDATE SKIP LOCKED",
        }
    }

    /// Claims the row `id` of `table` (keyed by `id`) for `worker` until `until`, when it
    /// meets `condition` and no other worker holds it: its lease column (`cols.1`) is empty or
    /// past `now`, or its claimer column (`cols.0`) names `worker` already. Whether it did.
    pub(super) fn claim_row(
        &self,
        table: &'static str,
        cols: (&str, &str),
        condition: &str,
        id: &dyn ToValue,
        lease: (&str, i64, i64),
    ) -> Result<bool> {
        let (claimed, until_col) = cols;
        let (worker, now, until) = lease;
        let free = self.first(
            table,
            &format!(
                "SELECT id FROM {table} WHERE id = $1 AND {condition}
                   AND ({until_col} IS NULL OR {until_col} <= $3 OR {claimed} = $2){}",
                self.skip_locked()
            ),
            &[id, &worker, &now],
            |c| c.get::<i64>("id"),
        )?;
        if free.is_none() {
            return Ok(false);
        }
        self.exec(
            &format!("UPDATE {table} SET {claimed} = $2, {until_col} = $3 WHERE id = $1"),
            &[id, &worker, &until],
        )?;
        Ok(true)
    }

    /// Whether this transaction runs on SQLite (a few statements exist only there, such as
    /// `EXPLAIN QUERY PLAN`).
    pub(super) fn is_sqlite(&self) -> bool {
        matches!(self.tx, TxInner::Sqlite(_))
    }

    /// The column names and every row of a query, as values of any kind (copying tables).
    pub(super) fn rows(&self, sql: &str) -> Result<(Vec<String>, Vec<Vec<Value>>)> {
        match &self.tx {
            TxInner::Sqlite(tx) => {
                let mut st = tx.prepare(sql).map_err(db)?;
                let columns: Vec<String> =
                    st.column_names().iter().map(|c| c.to_string()).collect();
                let mut rows = st.query([]).map_err(db)?;
                let mut out = Vec::new();
                while let Some(row) = rows.next().map_err(db)? {
                    let mut values = Vec::with_capacity(columns.len());
                    for i in 0..columns.len() {
                        let v = row.get_ref(i).map_err(db)?;
                        values.push(super::value::sqlite::read(v).map_err(StoreError::Corrupt)?);
                    }
                    out.push(values);
                }
                Ok((columns, out))
            }
            TxInner::Postgres(conn) => conn.borrow_mut().rows(sql),
        }
    }

    /// After rows were inserted with their ids (a copy), makes the next ids follow the
    /// largest: PostgreSQL's identity sequences do not see ids given explicitly; SQLite's
    /// integer keys always follow the largest one.
    pub(super) fn restart_ids(&self) -> Result<()> {
        match &self.tx {
            TxInner::Sqlite(_) => Ok(()),
            TxInner::Postgres(conn) => conn.borrow_mut().restart_ids(),
        }
    }
}

/// Binds `params` to the statement's placeholders by their numbers. The store writes each
/// statement once, with PostgreSQL's numbered placeholders (`$1`), which SQLite reads as
/// parameters *named* `$1`, numbered in the order they first appear: `$3` before `$2` would
/// take the second value if bound by position, so each is bound by its name's number.
fn bind(st: &mut rusqlite::Statement<'_>, params: Params) -> rusqlite::Result<()> {
    for index in 1..=st.parameter_count() {
        let name = st.parameter_name(index).unwrap_or("?").to_string();
        let value = name
            .strip_prefix('$')
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| n.checked_sub(1))
            .and_then(|n| params.get(n))
            .ok_or(rusqlite::Error::InvalidParameterName(name))?;
        st.raw_bind_parameter(index, Bind(*value))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::migrations::MIGRATIONS;

    fn user_version(conn: &Connection) -> i64 {
        conn.query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap()
    }

    /// The store's numbered placeholders take the value of their number on SQLite, in
    /// whatever order they appear and however often; one without a value is named.
    #[test]
    fn placeholders_are_bound_by_their_numbers() {
        let conn = Connection::open_in_memory().unwrap();
        let mut st = conn.prepare("SELECT $3 || $1 || $2 || $1").unwrap();
        bind(&mut st, &[&"a", &"b", &"c"]).unwrap();
        let got: String = st.raw_query().next().unwrap().unwrap().get(0).unwrap();
        assert_eq!(got, "caba");
        let mut st = conn.prepare("SELECT $1, $3").unwrap();
        match bind(&mut st, &[&"a", &"b"]) {
            Err(rusqlite::Error::InvalidParameterName(name)) => assert_eq!(name, "$3"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_migration_runner_upgrades_a_file_in_one_transaction_or_not_at_all() {
        // A file at version 6 with a table in the way of migration 7 (`audit`).
        let mut conn = Connection::open_in_memory().unwrap();
        for migration in &MIGRATIONS[..6] {
            conn.execute_batch(migration.sqlite).unwrap();
        }
        conn.pragma_update(None, "user_version", 6).unwrap();
        conn.execute_batch("CREATE TABLE audit (x TEXT)").unwrap();
        match migrate(&mut conn) {
            Err(StoreError::Migration { name, .. }) => assert_eq!(name, "0007_audit"),
            other => panic!("{other:?}"),
        }
        // Nothing of it stayed: the version, and no table of the later migrations.
        assert_eq!(user_version(&conn), 6);
        let later: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'analyses'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(later, 0);
        // Out of the way, the same runner brings it to this build's version.
        conn.execute_batch("DROP TABLE audit").unwrap();
        migrate(&mut conn).unwrap();
        assert_eq!(user_version(&conn), SCHEMA_VERSION);
        // A file from a newer build is refused untouched.
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
        assert!(matches!(migrate(&mut conn), Err(StoreError::TooNew { .. })));
        assert_eq!(user_version(&conn), SCHEMA_VERSION + 1);
    }

    /// A match's games (`Tx::match_games`, at every end of a match's game) are found through
    /// an index, not by reading every game.
    #[test]
    fn a_matchs_games_are_read_through_an_index() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        let mut st = conn
            .prepare("EXPLAIN QUERY PLAN SELECT * FROM games WHERE match_id = $1 ORDER BY id")
            .unwrap();
        let plan: Vec<String> = st
            .query_map([1], |r| r.get::<_, String>(3))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(plan, ["SEARCH games USING INDEX games_match (match_id=?)"]);
    }

    #[test]
    fn a_column_is_found_by_name_as_sqlite_finds_it() {
        let conn = Connection::open_in_memory().unwrap();
        let st = conn
            .prepare("SELECT 1 AS id, 2 AS name, 3 AS ID, 4 AS other")
            .unwrap();
        let c = Columns::of(&st);
        // In the order of the columns, each found where the last one ended.
        assert_eq!(c.index("id"), Some(0));
        assert_eq!(c.index("name"), Some(1));
        // The column after "name" is a second "ID": the first is the one found.
        assert_eq!(c.index("id"), Some(0));
        c.next.set(2);
        assert_eq!(c.index("Id"), Some(0));
        assert_eq!(c.index("OTHER"), Some(3));
        assert_eq!(c.index("missing"), None);
        // The same as SQLite's own lookup, from any place.
        for at in 0..5 {
            for name in ["id", "ID", "name", "NAME", "other"] {
                c.next.set(at);
                assert_eq!(c.index(name), Some(st.column_index(name).unwrap()));
            }
        }
    }
}
