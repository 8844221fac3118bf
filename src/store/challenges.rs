//! Challenges: one player's offer of a game (or a match) to another.

use super::db::{Cols, Result, Tx};
use crate::game::{Scoring, Variant};
use rusqlite::params;

stored_enum! {
    /// Who moves first in a challenged game.
    pub enum FirstChoice {
        /// Drawn by lot when the challenge is accepted.
        Random = "random",
        /// The challenger.
        Challenger = "challenger",
        /// The opponent.
        Opponent = "opponent",
    }
}

stored_enum! {
    /// Status of a challenge.
    pub enum ChallengeStatus {
        /// Waiting for an answer.
        Open = "open",
        /// Accepted: its game started.
        Accepted = "accepted",
        /// Declined by the opponent.
        Declined = "declined",
        /// Withdrawn by the challenger.
        Cancelled = "cancelled",
    }
}

/// A stored challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChallengeRow {
    /// Its number (`#12` to players).
    pub id: i64,
    /// The server.
    pub server_id: String,
    /// The channel it was made in.
    pub channel_id: String,
    /// Who challenged.
    pub challenger_id: String,
    /// Who was challenged.
    pub opponent_id: String,
    /// The game.
    pub variant: Variant,
    /// The scoring.
    pub scoring: Scoring,
    /// Who moves first.
    pub first: FirstChoice,
    /// A two-game match rather than one game.
    pub is_match: bool,
    /// Rated or casual.
    pub rated: bool,
    /// Open, accepted, declined or cancelled.
    pub status: ChallengeStatus,
    /// The game it started, once accepted.
    pub game_id: Option<i64>,
    /// When it was made.
    pub created_at: i64,
    /// The time control: days per move, `None` for no clock.
    pub days_per_move: Option<u32>,
}

impl ChallengeRow {
    fn from_row(c: &Cols) -> Result<ChallengeRow> {
        Ok(ChallengeRow {
            id: c.get("id")?,
            server_id: c.get("server_id")?,
            channel_id: c.get("channel_id")?,
            challenger_id: c.get("challenger_id")?,
            opponent_id: c.get("opponent_id")?,
            variant: c.parse("variant", "a variant", |s| s.parse().ok())?,
            scoring: c.parse("scoring", "a scoring", |s| s.parse().ok())?,
            first: c.parse("first", "a first-move choice", FirstChoice::from_id)?,
            is_match: c.get("is_match")?,
            rated: c.get("rated")?,
            status: c.parse("status", "a challenge status", ChallengeStatus::from_id)?,
            game_id: c.get("game_id")?,
            created_at: c.get("created_at")?,
            days_per_move: c.get("days_per_move")?,
        })
    }
}

/// A new challenge.
#[derive(Clone, Debug)]
pub struct NewChallenge<'a> {
    /// The server.
    pub server_id: &'a str,
    /// The channel it is made in.
    pub channel_id: &'a str,
    /// Who challenges.
    pub challenger_id: &'a str,
    /// Who is challenged.
    pub opponent_id: &'a str,
    /// The game.
    pub variant: Variant,
    /// The scoring.
    pub scoring: Scoring,
    /// Who moves first.
    pub first: FirstChoice,
    /// A two-game match rather than one game.
    pub is_match: bool,
    /// Rated or casual.
    pub rated: bool,
    /// The time control: days per move, `None` for no clock.
    pub days_per_move: Option<u32>,
}

impl Tx<'_> {
    /// Records an open challenge; its id.
    pub fn insert_challenge(&self, c: &NewChallenge, now: i64) -> Result<i64> {
        self.insert(
            "INSERT INTO challenges (server_id, channel_id, challenger_id, opponent_id, variant,
               scoring, first, is_match, rated, status, created_at, updated_at, days_per_move)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'open', ?10, ?10, ?11)",
            params![
                c.server_id,
                c.channel_id,
                c.challenger_id,
                c.opponent_id,
                c.variant.id(),
                c.scoring.id(),
                c.first.id(),
                c.is_match,
                c.rated,
                now,
                c.days_per_move
            ],
        )
    }

    /// A challenge by id.
    pub fn challenge(&self, id: i64) -> Result<Option<ChallengeRow>> {
        self.first(
            "challenges",
            "SELECT * FROM challenges WHERE id = ?1",
            [id],
            ChallengeRow::from_row,
        )
    }

    /// Open challenges in a channel, newest first.
    pub fn open_challenges(&self, channel_id: &str) -> Result<Vec<ChallengeRow>> {
        self.all(
            "challenges",
            "SELECT * FROM challenges WHERE channel_id = ?1 AND status = 'open' ORDER BY id DESC",
            [channel_id],
            ChallengeRow::from_row,
        )
    }

    /// Answers a challenge; `game_id` (when given) is the game it started.
    pub fn set_challenge_status(
        &self,
        id: i64,
        status: ChallengeStatus,
        game_id: Option<i64>,
        now: i64,
    ) -> Result<()> {
        self.exec(
            "UPDATE challenges SET status = ?2, game_id = COALESCE(?3, game_id), updated_at = ?4
             WHERE id = ?1",
            params![id, status.id(), game_id, now],
        )?;
        Ok(())
    }
}
