//! SQLite storage: numbered migrations embedded in the binary, and typed access to games,
//! moves, challenges, matches, takebacks and settings. Every command's writes happen inside one
//! [`Store::write`] transaction.

use crate::game::{BySide, EndReason, GameOptions, Outcome, Points, Scoring, Side, Variant};
use rusqlite::{params, Connection, OptionalExtension, Row, TransactionBehavior};
use std::path::Path;
use std::time::Duration;

/// The migrations, in order; `PRAGMA user_version` records how many have been applied.
const MIGRATIONS: &[(&str, &str)] = &[
    ("0001_init", include_str!("../../migrations/0001_init.sql")),
    (
        "0002_clocks",
        include_str!("../../migrations/0002_clocks.sql"),
    ),
];

/// A storage failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("migration {name} failed: {source}")]
    Migration {
        name: &'static str,
        source: rusqlite::Error,
    },
    #[error(
        "the database was written by a newer tara-bot (schema {found}, this build knows {known})"
    )]
    TooNew { found: i64, known: i64 },
    #[error("stored data is inconsistent: {0}")]
    Corrupt(String),
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// The database.
pub struct Store {
    conn: Connection,
}

/// Status of a stored game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameStatus {
    Active,
    Finished,
    Aborted,
}

impl GameStatus {
    fn from_id(s: &str) -> Result<GameStatus> {
        match s {
            "active" => Ok(GameStatus::Active),
            "finished" => Ok(GameStatus::Finished),
            "aborted" => Ok(GameStatus::Aborted),
            _ => Err(StoreError::Corrupt(format!("game status '{s}'"))),
        }
    }
}

/// A stored game (without its moves).
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    pub id: i64,
    pub server_id: String,
    pub channel_id: String,
    pub options: GameOptions,
    /// User ids of seat 0 (Red / attackers) and seat 1 (Blue / defenders).
    pub seats: [String; 2],
    pub status: GameStatus,
    pub outcome: Option<Outcome>,
    pub match_id: Option<i64>,
    pub match_game: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
    pub turn_started_at: i64,
    /// The time control: days per move, `None` for no clock.
    pub days_per_move: Option<u32>,
    /// When the clock of the player to move started (after any vacation of theirs).
    pub clock_start_at: Option<i64>,
    /// When the player to move runs out of time.
    pub deadline_at: Option<i64>,
    /// Reminders sent to the player to move this turn (0, 1 or 2).
    pub reminders_sent: u32,
    /// When the last reminder of this game was sent.
    pub reminded_at: Option<i64>,
}

impl GameRow {
    /// The seat (0 or 1) a user plays, if any.
    pub fn seat_of(&self, user: &str) -> Option<usize> {
        self.seats.iter().position(|s| s == user)
    }
}

/// A stored move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRow {
    pub ply: u32,
    pub notation: String,
    /// Who played it; `None` for a pass the bot played.
    pub user_id: Option<String>,
    pub created_at: i64,
}

/// Who moves first in a challenged game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstChoice {
    Random,
    Challenger,
    Opponent,
}

impl FirstChoice {
    pub fn id(self) -> &'static str {
        match self {
            FirstChoice::Random => "random",
            FirstChoice::Challenger => "challenger",
            FirstChoice::Opponent => "opponent",
        }
    }
    fn from_id(s: &str) -> Result<FirstChoice> {
        match s {
            "random" => Ok(FirstChoice::Random),
            "challenger" => Ok(FirstChoice::Challenger),
            "opponent" => Ok(FirstChoice::Opponent),
            _ => Err(StoreError::Corrupt(format!("first choice '{s}'"))),
        }
    }
}

/// Status of a challenge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChallengeStatus {
    Open,
    Accepted,
    Declined,
    Cancelled,
}

impl ChallengeStatus {
    fn id(self) -> &'static str {
        match self {
            ChallengeStatus::Open => "open",
            ChallengeStatus::Accepted => "accepted",
            ChallengeStatus::Declined => "declined",
            ChallengeStatus::Cancelled => "cancelled",
        }
    }
    fn from_id(s: &str) -> Result<ChallengeStatus> {
        match s {
            "open" => Ok(ChallengeStatus::Open),
            "accepted" => Ok(ChallengeStatus::Accepted),
            "declined" => Ok(ChallengeStatus::Declined),
            "cancelled" => Ok(ChallengeStatus::Cancelled),
            _ => Err(StoreError::Corrupt(format!("challenge status '{s}'"))),
        }
    }
}

/// A stored challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChallengeRow {
    pub id: i64,
    pub server_id: String,
    pub channel_id: String,
    pub challenger_id: String,
    pub opponent_id: String,
    pub variant: Variant,
    pub scoring: Scoring,
    pub first: FirstChoice,
    pub is_match: bool,
    pub status: ChallengeStatus,
    pub game_id: Option<i64>,
    pub created_at: i64,
    pub days_per_move: Option<u32>,
}

/// A new challenge.
#[derive(Clone, Debug)]
pub struct NewChallenge<'a> {
    pub server_id: &'a str,
    pub channel_id: &'a str,
    pub challenger_id: &'a str,
    pub opponent_id: &'a str,
    pub variant: Variant,
    pub scoring: Scoring,
    pub first: FirstChoice,
    pub is_match: bool,
    pub days_per_move: Option<u32>,
}

/// A stored match of two games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchRow {
    pub id: i64,
    /// The challenger and the opponent.
    pub players: [String; 2],
    pub variant: Variant,
    pub scoring: Scoring,
    pub finished: bool,
}

/// A new game.
#[derive(Clone, Debug)]
pub struct NewGame<'a> {
    pub server_id: &'a str,
    pub channel_id: &'a str,
    pub options: GameOptions,
    pub seats: [&'a str; 2],
    pub match_id: Option<i64>,
    pub match_game: Option<i64>,
    pub days_per_move: Option<u32>,
}

/// A pending takeback request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TakebackRow {
    pub game_id: i64,
    pub ply: u32,
    pub requested_by: String,
}

impl Store {
    /// Opens (creating if needed) the database file and brings its schema up to date.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let conn = Connection::open(path)?;
        Store::setup(conn)
    }

    /// A private in-memory database (tests and benchmarks).
    pub fn open_in_memory() -> Result<Store> {
        Store::setup(Connection::open_in_memory()?)
    }

    fn setup(conn: Connection) -> Result<Store> {
        conn.busy_timeout(Duration::from_secs(10))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let mut store = Store { conn };
        store.migrate()?;
        Ok(store)
    }

    fn migrate(&mut self) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let known = MIGRATIONS.len() as i64;
        if version > known {
            return Err(StoreError::TooNew {
                found: version,
                known,
            });
        }
        for (name, sql) in &MIGRATIONS[version as usize..] {
            tx.execute_batch(sql)
                .map_err(|source| StoreError::Migration { name, source })?;
        }
        tx.pragma_update(None, "user_version", known)?;
        tx.commit()?;
        Ok(())
    }

    /// The schema version (number of migrations applied).
    pub fn schema_version(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?)
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
        let tx = self
            .conn
            .transaction_with_behavior(behavior)
            .map_err(StoreError::from)?;
        let out = f(&Tx { tx: &tx })?;
        tx.commit().map_err(StoreError::from)?;
        Ok(out)
    }
}

/// Queries and changes inside one transaction.
pub struct Tx<'a> {
    tx: &'a rusqlite::Transaction<'a>,
}

const GAME_COLUMNS: &str = "id, server_id, channel_id, variant, scoring, first_side, seat0_id, \
     seat1_id, status, winner, reason, points0, points1, match_id, match_game, created_at, \
     updated_at, turn_started_at, days_per_move, clock_start_at, deadline_at, reminders_sent, \
     reminded_at";

fn corrupt(what: String) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, what.into())
}

fn game_from_row(r: &Row) -> rusqlite::Result<GameRow> {
    let variant: String = r.get(3)?;
    let variant: Variant = variant.parse().map_err(|e| corrupt(format!("{e}")))?;
    let scoring: String = r.get(4)?;
    let scoring: Scoring = scoring.parse().map_err(corrupt)?;
    let first: String = r.get(5)?;
    let first = Side::from_id(&first).ok_or_else(|| corrupt(format!("side '{first}'")))?;
    let options = GameOptions::with(variant, Some(scoring), Some(first))
        .map_err(|e| corrupt(e.to_string()))?;
    let status: String = r.get(8)?;
    let status = GameStatus::from_id(&status).map_err(|e| corrupt(e.to_string()))?;
    let winner: Option<String> = r.get(9)?;
    let reason: Option<String> = r.get(10)?;
    let points: (Option<i64>, Option<i64>) = (r.get(11)?, r.get(12)?);
    let outcome = match (reason, points) {
        (Some(reason), (Some(p0), Some(p1))) => Some(Outcome {
            winner: match winner {
                Some(w) => Some(Side::from_id(&w).ok_or_else(|| corrupt(format!("winner '{w}'")))?),
                None => None,
            },
            reason: EndReason::from_id(&reason)
                .ok_or_else(|| corrupt(format!("reason '{reason}'")))?,
            points: BySide::new(Points(p0 as u32), Points(p1 as u32)),
        }),
        _ => None,
    };
    Ok(GameRow {
        id: r.get(0)?,
        server_id: r.get(1)?,
        channel_id: r.get(2)?,
        options,
        seats: [r.get(6)?, r.get(7)?],
        status,
        outcome,
        match_id: r.get(13)?,
        match_game: r.get(14)?,
        created_at: r.get(15)?,
        updated_at: r.get(16)?,
        turn_started_at: r.get(17)?,
        days_per_move: r.get(18)?,
        clock_start_at: r.get(19)?,
        deadline_at: r.get(20)?,
        reminders_sent: r.get(21)?,
        reminded_at: r.get(22)?,
    })
}

fn challenge_from_row(r: &Row) -> rusqlite::Result<ChallengeRow> {
    let variant: String = r.get(5)?;
    let scoring: String = r.get(6)?;
    let first: String = r.get(7)?;
    let status: String = r.get(9)?;
    Ok(ChallengeRow {
        id: r.get(0)?,
        server_id: r.get(1)?,
        channel_id: r.get(2)?,
        challenger_id: r.get(3)?,
        opponent_id: r.get(4)?,
        variant: variant.parse().map_err(|e| corrupt(format!("{e}")))?,
        scoring: scoring.parse().map_err(corrupt)?,
        first: FirstChoice::from_id(&first).map_err(|e| corrupt(e.to_string()))?,
        is_match: r.get(8)?,
        status: ChallengeStatus::from_id(&status).map_err(|e| corrupt(e.to_string()))?,
        game_id: r.get(10)?,
        created_at: r.get(11)?,
        days_per_move: r.get(12)?,
    })
}

const CHALLENGE_COLUMNS: &str = "id, server_id, channel_id, challenger_id, opponent_id, variant, \
     scoring, first, is_match, status, game_id, created_at, days_per_move";

impl Tx<'_> {
    /// Records a user's latest display name.
    pub fn upsert_user(&self, id: &str, name: &str, now: i64) -> Result<()> {
        self.tx.execute(
            "INSERT INTO users (id, name, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)
             ON CONFLICT(id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at
             WHERE users.name <> excluded.name",
            params![id, name, now],
        )?;
        Ok(())
    }

    /// A user's stored display name.
    pub fn user_name(&self, id: &str) -> Result<Option<String>> {
        Ok(self
            .tx
            .query_row("SELECT name FROM users WHERE id = ?1", [id], |r| r.get(0))
            .optional()?)
    }

    /// The active game in a channel.
    pub fn active_game(&self, channel_id: &str) -> Result<Option<GameRow>> {
        Ok(self
            .tx
            .query_row(
                &format!(
                    "SELECT {GAME_COLUMNS} FROM games WHERE channel_id = ?1 AND status = 'active'"
                ),
                [channel_id],
                game_from_row,
            )
            .optional()?)
    }

    /// The most recent game in a channel, whatever its status.
    pub fn latest_game(&self, channel_id: &str) -> Result<Option<GameRow>> {
        Ok(self
            .tx
            .query_row(
                &format!("SELECT {GAME_COLUMNS} FROM games WHERE channel_id = ?1 ORDER BY id DESC LIMIT 1"),
                [channel_id],
                game_from_row,
            )
            .optional()?)
    }

    pub fn game(&self, id: i64) -> Result<Option<GameRow>> {
        Ok(self
            .tx
            .query_row(
                &format!("SELECT {GAME_COLUMNS} FROM games WHERE id = ?1"),
                [id],
                game_from_row,
            )
            .optional()?)
    }

    /// Active games a user plays in, oldest first.
    pub fn active_games_of(&self, user_id: &str) -> Result<Vec<GameRow>> {
        let mut st = self.tx.prepare_cached(&format!(
            "SELECT {GAME_COLUMNS} FROM games WHERE status = 'active' AND (seat0_id = ?1 OR seat1_id = ?1) ORDER BY id"
        ))?;
        let rows = st.query_map([user_id], game_from_row)?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    /// The games of a match, in order.
    pub fn match_games(&self, match_id: i64) -> Result<Vec<GameRow>> {
        let mut st = self.tx.prepare_cached(&format!(
            "SELECT {GAME_COLUMNS} FROM games WHERE match_id = ?1 ORDER BY id"
        ))?;
        let rows = st.query_map([match_id], game_from_row)?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    /// Creates a game; fails if the channel already has an active one.
    pub fn insert_game(&self, g: &NewGame, now: i64) -> Result<i64> {
        self.tx.execute(
            "INSERT INTO games (server_id, channel_id, variant, scoring, first_side, seat0_id,
               seat1_id, status, match_id, match_game, created_at, updated_at, turn_started_at,
               days_per_move)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'active', ?8, ?9, ?10, ?10, ?10, ?11)",
            params![
                g.server_id,
                g.channel_id,
                g.options.variant.id(),
                g.options.scoring.id(),
                g.options.first.id(),
                g.seats[0],
                g.seats[1],
                g.match_id,
                g.match_game,
                now,
                g.days_per_move
            ],
        )?;
        Ok(self.tx.last_insert_rowid())
    }

    /// The moves of a game in order.
    pub fn moves(&self, game_id: i64) -> Result<Vec<MoveRow>> {
        let mut st = self.tx.prepare_cached(
            "SELECT ply, notation, user_id, created_at FROM moves WHERE game_id = ?1 ORDER BY ply",
        )?;
        let rows = st.query_map([game_id], |r| {
            Ok(MoveRow {
                ply: r.get(0)?,
                notation: r.get(1)?,
                user_id: r.get(2)?,
                created_at: r.get(3)?,
            })
        })?;
        let moves = rows.collect::<rusqlite::Result<Vec<_>>>()?;
        for (i, m) in moves.iter().enumerate() {
            if m.ply as usize != i {
                return Err(StoreError::Corrupt(format!(
                    "game {game_id} is missing ply {i}"
                )));
            }
        }
        Ok(moves)
    }

    /// Appends a move (the primary key rejects a second move for the same ply).
    pub fn insert_move(&self, game_id: i64, m: &MoveRow) -> Result<()> {
        self.tx.execute(
            "INSERT INTO moves (game_id, ply, notation, user_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![game_id, m.ply, m.notation, m.user_id, m.created_at],
        )?;
        Ok(())
    }

    /// Removes the moves from `ply` on (a takeback).
    pub fn delete_moves_from(&self, game_id: i64, ply: u32) -> Result<usize> {
        Ok(self.tx.execute(
            "DELETE FROM moves WHERE game_id = ?1 AND ply >= ?2",
            params![game_id, ply],
        )?)
    }

    /// Notes that the turn changed hands at `now`, with the new mover's clock (start,
    /// deadline) when the game has one; this turn's reminders start again.
    pub fn start_turn(&self, game_id: i64, now: i64, clock: Option<(i64, i64)>) -> Result<()> {
        self.tx.execute(
            "UPDATE games SET updated_at = ?2, turn_started_at = ?2, clock_start_at = ?3,
               deadline_at = ?4, reminders_sent = 0 WHERE id = ?1",
            params![game_id, now, clock.map(|c| c.0), clock.map(|c| c.1)],
        )?;
        Ok(())
    }

    /// Records that this turn's reminder number `sent` (1 or 2) went out at `now`.
    pub fn set_reminded(&self, game_id: i64, sent: u32, now: i64) -> Result<()> {
        self.tx.execute(
            "UPDATE games SET reminders_sent = ?2, reminded_at = ?3 WHERE id = ?1",
            params![game_id, sent, now],
        )?;
        Ok(())
    }

    /// Moves a game's clock later by `ms` (a vacation of the player to move).
    pub fn shift_clock(&self, game_id: i64, ms: i64) -> Result<()> {
        self.tx.execute(
            "UPDATE games SET clock_start_at = clock_start_at + ?2, deadline_at = deadline_at + ?2
             WHERE id = ?1 AND deadline_at IS NOT NULL",
            params![game_id, ms],
        )?;
        Ok(())
    }

    /// Ids of the active games that have a clock.
    pub fn clocked_games(&self) -> Result<Vec<i64>> {
        let mut st = self.tx.prepare_cached(
            "SELECT id FROM games WHERE status = 'active' AND deadline_at IS NOT NULL ORDER BY id",
        )?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    /// Records a vacation.
    pub fn insert_vacation(&self, user_id: &str, start: i64, end: i64) -> Result<()> {
        self.tx.execute(
            "INSERT INTO vacations (user_id, start_at, end_at) VALUES (?1, ?2, ?3)",
            params![user_id, start, end],
        )?;
        Ok(())
    }

    /// The end of the user's vacation running at `now`, if any.
    pub fn vacation_end(&self, user_id: &str, now: i64) -> Result<Option<i64>> {
        Ok(self.tx.query_row(
            "SELECT MAX(end_at) FROM vacations WHERE user_id = ?1 AND start_at <= ?2 AND end_at > ?2",
            params![user_id, now],
            |r| r.get(0),
        )?)
    }

    /// Vacation time (ms) the user started in `[from, to)`.
    pub fn vacation_taken(&self, user_id: &str, from: i64, to: i64) -> Result<i64> {
        Ok(self.tx.query_row(
            "SELECT COALESCE(SUM(end_at - start_at), 0) FROM vacations
             WHERE user_id = ?1 AND start_at >= ?2 AND start_at < ?3",
            params![user_id, from, to],
            |r| r.get(0),
        )?)
    }

    pub fn user_setting(&self, user_id: &str, key: &str) -> Result<Option<String>> {
        Ok(self
            .tx
            .query_row(
                "SELECT value FROM user_settings WHERE user_id = ?1 AND key = ?2",
                params![user_id, key],
                |r| r.get(0),
            )
            .optional()?)
    }

    pub fn set_user_setting(&self, user_id: &str, key: &str, value: &str) -> Result<()> {
        self.tx.execute(
            "INSERT INTO user_settings (user_id, key, value) VALUES (?1, ?2, ?3)
             ON CONFLICT(user_id, key) DO UPDATE SET value = excluded.value",
            params![user_id, key, value],
        )?;
        Ok(())
    }

    pub fn server_setting(&self, server_id: &str, key: &str) -> Result<Option<String>> {
        Ok(self
            .tx
            .query_row(
                "SELECT value FROM server_settings WHERE server_id = ?1 AND key = ?2",
                params![server_id, key],
                |r| r.get(0),
            )
            .optional()?)
    }

    pub fn set_server_setting(&self, server_id: &str, key: &str, value: &str) -> Result<()> {
        self.tx.execute(
            "INSERT INTO server_settings (server_id, key, value) VALUES (?1, ?2, ?3)
             ON CONFLICT(server_id, key) DO UPDATE SET value = excluded.value",
            params![server_id, key, value],
        )?;
        Ok(())
    }

    /// Ends a game with a result.
    pub fn finish_game(&self, game_id: i64, o: &Outcome, now: i64) -> Result<()> {
        self.tx.execute(
            "UPDATE games SET status = 'finished', winner = ?2, reason = ?3, points0 = ?4,
               points1 = ?5, updated_at = ?6 WHERE id = ?1",
            params![
                game_id,
                o.winner.map(Side::id),
                o.reason.id(),
                o.points.first().0,
                o.points.second().0,
                now
            ],
        )?;
        Ok(())
    }

    /// Ends a game without a result.
    pub fn abort_game(&self, game_id: i64, now: i64) -> Result<()> {
        self.tx.execute(
            "UPDATE games SET status = 'aborted', updated_at = ?2 WHERE id = ?1",
            params![game_id, now],
        )?;
        Ok(())
    }

    pub fn insert_challenge(&self, c: &NewChallenge, now: i64) -> Result<i64> {
        self.tx.execute(
            "INSERT INTO challenges (server_id, channel_id, challenger_id, opponent_id, variant,
               scoring, first, is_match, status, created_at, updated_at, days_per_move)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'open', ?9, ?9, ?10)",
            params![
                c.server_id,
                c.channel_id,
                c.challenger_id,
                c.opponent_id,
                c.variant.id(),
                c.scoring.id(),
                c.first.id(),
                c.is_match,
                now,
                c.days_per_move
            ],
        )?;
        Ok(self.tx.last_insert_rowid())
    }

    pub fn challenge(&self, id: i64) -> Result<Option<ChallengeRow>> {
        Ok(self
            .tx
            .query_row(
                &format!("SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE id = ?1"),
                [id],
                challenge_from_row,
            )
            .optional()?)
    }

    /// Open challenges in a channel, newest first.
    pub fn open_challenges(&self, channel_id: &str) -> Result<Vec<ChallengeRow>> {
        let mut st = self.tx.prepare_cached(&format!(
            "SELECT {CHALLENGE_COLUMNS} FROM challenges WHERE channel_id = ?1 AND status = 'open' ORDER BY id DESC"
        ))?;
        let rows = st.query_map([channel_id], challenge_from_row)?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    pub fn set_challenge_status(
        &self,
        id: i64,
        status: ChallengeStatus,
        game_id: Option<i64>,
        now: i64,
    ) -> Result<()> {
        self.tx.execute(
            "UPDATE challenges SET status = ?2, game_id = COALESCE(?3, game_id), updated_at = ?4 WHERE id = ?1",
            params![id, status.id(), game_id, now],
        )?;
        Ok(())
    }

    pub fn insert_match(
        &self,
        server_id: &str,
        channel_id: &str,
        players: [&str; 2],
        variant: Variant,
        scoring: Scoring,
        now: i64,
    ) -> Result<i64> {
        self.tx.execute(
            "INSERT INTO matches (server_id, channel_id, player0_id, player1_id, variant, scoring,
               status, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'active', ?7, ?7)",
            params![
                server_id,
                channel_id,
                players[0],
                players[1],
                variant.id(),
                scoring.id(),
                now
            ],
        )?;
        Ok(self.tx.last_insert_rowid())
    }

    pub fn match_row(&self, id: i64) -> Result<Option<MatchRow>> {
        Ok(self
            .tx
            .query_row(
                "SELECT id, player0_id, player1_id, variant, scoring, status FROM matches WHERE id = ?1",
                [id],
                |r| {
                    let variant: String = r.get(3)?;
                    let scoring: String = r.get(4)?;
                    let status: String = r.get(5)?;
                    Ok(MatchRow {
                        id: r.get(0)?,
                        players: [r.get(1)?, r.get(2)?],
                        variant: variant.parse().map_err(|e| corrupt(format!("{e}")))?,
                        scoring: scoring.parse().map_err(corrupt)?,
                        finished: status == "finished",
                    })
                },
            )
            .optional()?)
    }

    pub fn finish_match(&self, id: i64, now: i64) -> Result<()> {
        self.tx.execute(
            "UPDATE matches SET status = 'finished', updated_at = ?2 WHERE id = ?1",
            params![id, now],
        )?;
        Ok(())
    }

    pub fn takeback(&self, game_id: i64) -> Result<Option<TakebackRow>> {
        Ok(self
            .tx
            .query_row(
                "SELECT game_id, ply, requested_by FROM takebacks WHERE game_id = ?1",
                [game_id],
                |r| {
                    Ok(TakebackRow {
                        game_id: r.get(0)?,
                        ply: r.get(1)?,
                        requested_by: r.get(2)?,
                    })
                },
            )
            .optional()?)
    }

    pub fn set_takeback(&self, t: &TakebackRow, now: i64) -> Result<()> {
        self.tx.execute(
            "INSERT INTO takebacks (game_id, ply, requested_by, created_at) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT(game_id) DO UPDATE SET ply = excluded.ply,
               requested_by = excluded.requested_by, created_at = excluded.created_at",
            params![t.game_id, t.ply, t.requested_by, now],
        )?;
        Ok(())
    }

    pub fn clear_takeback(&self, game_id: i64) -> Result<()> {
        self.tx
            .execute("DELETE FROM takebacks WHERE game_id = ?1", [game_id])?;
        Ok(())
    }

    /// Number of games stored (all statuses).
    pub fn game_count(&self) -> Result<i64> {
        Ok(self
            .tx
            .query_row("SELECT COUNT(*) FROM games", [], |r| r.get(0))?)
    }
}
