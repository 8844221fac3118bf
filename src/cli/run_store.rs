//! The commands on a database: `db backup`, `db check`, `export`, `tournament`, `ladder` and
//! `league`.

use super::args::{DbCommand, LadderCommand, LeagueCommand, TournamentCommand};
use super::output::is_broken_pipe;
use std::process::ExitCode;

/// The database file: `--db`, else the configuration's; a configuration problem is reported
/// (exit status 2).
pub(crate) fn database(db: Option<std::path::PathBuf>) -> Result<std::path::PathBuf, ExitCode> {
    if let Some(db) = db {
        return Ok(db);
    }
    match crate::config::Config::load() {
        Ok(c) => Ok(c.database),
        Err(e) => {
            say!("error: {e}");
            Err(ExitCode::from(2))
        }
    }
}

/// A database command's error as a sentence: one about a named file already names it; any
/// other is about the database.
pub(crate) fn about_file(
    doing: &str,
    db: &std::path::Path,
    e: &crate::store::StoreError,
) -> String {
    use crate::store::{Access, StoreError};
    let shown = crate::store::shown(db);
    match e {
        StoreError::File { .. } => e.to_string(),
        // On the command line the operator is the one reading: what is wrong with the file,
        // and what to change, rather than "tell the bot's operator".
        StoreError::Sql(d) => match d.access() {
            Some(Access::ReadOnly) => format!(
                "{doing} the database {shown}: the file may be read but not written by this \
                 user (SQLite: {d}); make it writable (and its folder, where SQLite keeps the \
                 -wal and -shm files beside it), or run tara-bot as a user who may write it"
            ),
            Some(Access::CannotOpen) => format!(
                "{doing} the database {shown}: the file cannot be opened or created (SQLite: \
                 {d}); check that its folder exists and that this user may write in it, or \
                 name another file"
            ),
            None => format!("{doing} the database {shown}: {e}"),
        },
        _ => format!("{doing} the database {shown}: {e}"),
    }
}

/// The database (`--db`, else the configuration's) opened to read; a configuration problem
/// (exit status 2) or a database that cannot be opened (exit status 1) is reported.
fn open_to_read(db: Option<std::path::PathBuf>) -> Result<crate::store::Store, ExitCode> {
    let db = database(db)?;
    crate::store::Store::open_to_read(&db).map_err(|e| {
        say!("error: {}", about_file("opening", &db, &e));
        ExitCode::from(1)
    })
}

pub(crate) fn run_tournament(command: TournamentCommand) -> ExitCode {
    let (db, id) = match &command {
        TournamentCommand::Export { db, id } | TournamentCommand::Standings { db, id, .. } => {
            (db.clone(), crate::store::TournamentId(*id))
        }
    };
    let mut store = match open_to_read(db) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let lines = match command {
        TournamentCommand::Export { .. } => {
            super::tournament::export(&mut store, id).map(|t| vec![t])
        }
        TournamentCommand::Standings { json, .. } => {
            super::tournament::standings(&mut store, id, json)
        }
    };
    match lines {
        Ok(lines) => {
            for l in lines {
                out!("{}", l.trim_end_matches('\n'));
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            say!("error: {e}");
            ExitCode::from(1)
        }
    }
}

pub(crate) fn run_ladder(command: LadderCommand) -> ExitCode {
    let LadderCommand::Export { db, id, json } = command;
    let mut store = match open_to_read(db) {
        Ok(s) => s,
        Err(code) => return code,
    };
    print_or_fail(super::ladder::export(
        &mut store,
        id.map(crate::store::LadderId),
        json,
    ))
}

pub(crate) fn run_league(command: LeagueCommand) -> ExitCode {
    let LeagueCommand::Export { db, id, json } = command;
    let mut store = match open_to_read(db) {
        Ok(s) => s,
        Err(code) => return code,
    };
    print_or_fail(super::league::export(
        &mut store,
        id.map(crate::store::LeagueId),
        json,
    ))
}

/// Prints the lines of an export, or its error (exit status 1).
fn print_or_fail(lines: Result<Vec<String>, String>) -> ExitCode {
    match lines {
        Ok(lines) => {
            for l in lines {
                out!("{l}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            say!("error: {e}");
            ExitCode::from(1)
        }
    }
}

pub(crate) fn run_export(db: Option<std::path::PathBuf>, server: Option<String>) -> ExitCode {
    let mut store = match open_to_read(db) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let server = server.map(crate::store::ServerId::new);
    let result = super::export::export(&mut store, server.as_ref(), &mut out).and_then(|n| {
        use std::io::Write as _;
        out.flush()?;
        Ok(n)
    });
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            say!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

pub(crate) fn run_db(command: DbCommand) -> ExitCode {
    match command {
        DbCommand::Backup { file, force, db } => backup(&file, force, db),
        DbCommand::Check { db } => check(db),
        DbCommand::Copy { from, to, force } => copy(&from, &to, force),
    }
}

/// `db backup FILE [--force]`: the database copied to `file`, checked.
fn backup(file: &std::path::Path, force: bool, db: Option<std::path::PathBuf>) -> ExitCode {
    let db = match database(db) {
        Ok(db) => db,
        Err(code) => return code,
    };
    if file.is_dir() {
        say!(
            "error: {} is a folder; name a file in it for the backup (`{}`)",
            file.display(),
            file.join("tara-bot-backup.db").display()
        );
        return ExitCode::from(2);
    }
    if file.exists() {
        let same = match (std::fs::canonicalize(file), std::fs::canonicalize(&db)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if same {
            say!(
                "error: {} is the database itself; name another file for the backup",
                file.display()
            );
            return ExitCode::from(2);
        }
        if !force {
            say!(
                "error: {} already exists; name another file, or add --force to replace it",
                file.display()
            );
            return ExitCode::from(1);
        }
    }
    match crate::store::backup(&db, file) {
        Ok(s) => {
            let count = |n: i64, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
            out!(
                "backed up {} to {}: {}, {}, schema {}, {} bytes",
                crate::store::shown(&db),
                file.display(),
                count(s.games, "game"),
                count(s.moves, "move"),
                s.schema_version,
                s.bytes
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            say!("error: {}", about_file("backing up", &db, &e));
            ExitCode::from(1)
        }
    }
}

/// `db check`: the database's report.
fn check(db: Option<std::path::PathBuf>) -> ExitCode {
    let db = match database(db) {
        Ok(db) => db,
        Err(code) => return code,
    };
    match crate::store::check(&db) {
        Ok(report) => {
            out!("database: {}", crate::store::shown(&db));
            out!("{report}");
            if report.is_fine() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        // Damaged where the check itself starts (the header, the list of tables):
        // the one problem it can name, as a report, not "db check lists every
        // problem" from db check itself.
        Err(crate::store::StoreError::Damaged(what)) => {
            out!("database: {}", crate::store::shown(&db));
            out!(
                "integrity: PROBLEM: {what}; the file's first page (its header and list \
                 of tables) cannot be read, so nothing further can be checked"
            );
            out!(
                "result: damaged; to restore the database, {}",
                crate::store::RESTORE_HINT
            );
            ExitCode::from(1)
        }
        Err(e) => {
            say!("error: {}", about_file("checking", &db, &e));
            ExitCode::from(1)
        }
    }
}

/// `db copy --from A --to B [--force]`: every row copied, each table checked.
fn copy(from: &std::path::Path, to: &std::path::Path, force: bool) -> ExitCode {
    if from == to {
        say!("error: --from and --to name the same database");
        return ExitCode::from(2);
    }
    match crate::store::copy(from, to, force) {
        Ok(summary) => {
            out!("{summary}");
            let rows: usize = summary.tables.iter().map(|t| t.1).sum();
            out!(
                "copied {} to {}: {rows} rows in {} tables, each checked by its row count and checksum",
                crate::store::shown(from),
                crate::store::shown(to),
                summary.tables.len()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            say!(
                "error: copying {} to {}: {e}",
                crate::store::shown(from),
                crate::store::shown(to)
            );
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{DbError, StoreError};

    fn sqlite_failure(code: std::ffi::c_int, message: &str) -> StoreError {
        StoreError::Sql(DbError::sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(code),
            Some(message.into()),
        )))
    }

    /// Issue 45: a read-only file, or one that cannot be created, is said as what it is, with
    /// what to change, not "try again, and tell the bot's operator".
    #[test]
    fn a_file_that_cannot_be_written_or_opened_says_what_to_change() {
        let db = std::path::Path::new("ro.db");
        let ro = sqlite_failure(
            rusqlite::ffi::SQLITE_READONLY,
            "attempt to write a readonly database",
        );
        let said = about_file("opening", db, &ro);
        assert!(
            said.starts_with("opening the database ro.db: the file may be read but not written")
                && said.contains("make it writable")
                && !said.contains("tell the bot's operator"),
            "{said}"
        );
        let gone = sqlite_failure(
            rusqlite::ffi::SQLITE_CANTOPEN,
            "unable to open database file",
        );
        let said = about_file("opening", db, &gone);
        assert!(
            said.contains("cannot be opened or created") && said.contains("folder exists"),
            "{said}"
        );
        // Anything else keeps the general message.
        let busy = sqlite_failure(rusqlite::ffi::SQLITE_BUSY, "database is locked");
        assert!(about_file("opening", db, &busy).contains("could not be read or written"));
    }
}
