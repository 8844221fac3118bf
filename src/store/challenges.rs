//! Challenges: one player's offer of a game (or a match) to another.

use super::db::{Result, Tx};
use super::value::params;
use crate::game::{Scoring, Variant};
use crate::ids::*;

stored_enum! {
    /// Who moves first in a challenged game. Values: `Random`: drawn by lot when the challenge
    /// is accepted; `Challenger`: the challenger; `Opponent`: the opponent.
    pub enum FirstChoice = "a first-move choice" {
        Random = "random", Challenger = "challenger", Opponent = "opponent",
    }
}

stored_enum! {
    /// Status of a challenge. Values: `Open`: waiting for an answer; `Accepted`: accepted: its
    /// game started; `Declined`: declined by the opponent; `Cancelled`: withdrawn by the
    /// challenger; `Expired`: left unanswered for the server's `challenge_days`.
    pub enum ChallengeStatus = "a challenge status" {
        Open = "open", Accepted = "accepted", Declined = "declined", Cancelled = "cancelled",
        Expired = "expired",
    }
}

row! {
    /// A stored challenge.
    ///
    /// Fields: `id`: its number (`#12` to players); `server_id`: the server; `channel_id`: the
    /// channel it was made in; `challenger_id`: who challenged; `opponent_id`: who was
    /// challenged ([`OPEN_OPPONENT_ID`] while an open challenge waits for anyone; whoever
    /// accepts it once it is accepted); `variant`: the game; `scoring`: the scoring; `first`: who moves first;
    /// `is_match`: a two-game match rather than one game; `rated`: rated or casual; `status`:
    /// open, accepted, declined, cancelled or expired; `game_id`: the game it started, once accepted;
    /// `created_at`: when it was made; `days_per_move`: the time control: days per move, `None`
    /// for no clock.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct ChallengeRow {
        id: ChallengeId, server_id: ServerId, channel_id: ChannelId, challenger_id: UserId,
        opponent_id: UserId, variant: Variant, scoring: Scoring, first: FirstChoice,
        is_match: bool, rated: bool, status: ChallengeStatus, game_id: Option<GameId>,
        created_at: i64, days_per_move: Option<u32>,
    }
}

/// The `opponent_id` of an open challenge, one that anyone but its challenger may accept (a
/// sentinel user of migration 0009, as [`crate::store::AI_USER_ID`] is for the AI). Whoever
/// accepts it takes its place ([`Tx::take_open_challenge`]).
pub const OPEN_OPPONENT_ID: &str = "@open";

impl ChallengeRow {
    /// Whether anyone but the challenger may accept it (still open to anyone).
    pub fn is_open_to_anyone(&self) -> bool {
        self.opponent_id == OPEN_OPPONENT_ID
    }
}

/// A new challenge.
#[derive(Clone, Debug)]
pub struct NewChallenge<'a> {
    /// The server.
    pub server_id: &'a ServerId,
    /// The channel it is made in.
    pub channel_id: &'a ChannelId,
    /// Who challenges.
    pub challenger_id: &'a UserId,
    /// Who is challenged ([`OPEN_OPPONENT_ID`]: anyone).
    pub opponent_id: &'a UserId,
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
    pub fn insert_challenge(&self, c: &NewChallenge, now: i64) -> Result<ChallengeId> {
        self.insert(
            "INSERT INTO challenges (server_id, channel_id, challenger_id, opponent_id, variant,
               scoring, first, is_match, rated, status, created_at, updated_at, days_per_move)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'open', $10, $10, $11)",
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
        .map(ChallengeId)
    }

    /// A challenge by id.
    pub fn challenge(&self, id: ChallengeId) -> Result<Option<ChallengeRow>> {
        self.first(
            "challenges",
            "SELECT * FROM challenges WHERE id = $1",
            params![id],
            ChallengeRow::from_row,
        )
    }

    /// A challenge by id, only if it was made on `server_id`: a challenge of another server is
    /// `None`, exactly like a missing one.
    pub fn challenge_on(
        &self,
        server_id: &ServerId,
        id: ChallengeId,
    ) -> Result<Option<ChallengeRow>> {
        self.first(
            "challenges",
            "SELECT * FROM challenges WHERE id = $1 AND server_id = $2",
            params![id, server_id],
            ChallengeRow::from_row,
        )
    }

    /// How many open challenges `challenger_id` has made on `server_id`.
    pub fn open_challenge_count(
        &self,
        server_id: &ServerId,
        challenger_id: &UserId,
    ) -> Result<i64> {
        self.value(
            "challenges",
            "SELECT COUNT(*) AS n FROM challenges
             WHERE server_id = $1 AND challenger_id = $2 AND status = 'open'",
            params![server_id, challenger_id],
            "n",
        )
    }

    /// The open challenge between two players on `server_id`, in either direction, if any.
    pub fn open_challenge_between(
        &self,
        server_id: &ServerId,
        a: &UserId,
        b: &UserId,
    ) -> Result<Option<ChallengeRow>> {
        self.first(
            "challenges",
            "SELECT * FROM challenges
             WHERE server_id = $1 AND status = 'open'
               AND ((challenger_id = $2 AND opponent_id = $3)
                 OR (challenger_id = $3 AND opponent_id = $2))
             ORDER BY id LIMIT 1",
            params![server_id, a, b],
            ChallengeRow::from_row,
        )
    }

    /// Open challenges made before `before`, oldest first (candidates for expiry).
    pub fn open_challenges_made_before(&self, before: i64) -> Result<Vec<ChallengeRow>> {
        self.all(
            "challenges",
            "SELECT * FROM challenges WHERE status = 'open' AND created_at < $1
             ORDER BY created_at, id",
            params![before],
            ChallengeRow::from_row,
        )
    }

    /// Open challenges in a channel, newest first.
    pub fn open_challenges(&self, channel_id: &ChannelId) -> Result<Vec<ChallengeRow>> {
        self.all(
            "challenges",
            "SELECT * FROM challenges WHERE channel_id = $1 AND status = 'open' ORDER BY id DESC",
            params![channel_id],
            ChallengeRow::from_row,
        )
    }

    /// Answers a challenge; `game_id` (when given) is the game it started.
    pub fn set_challenge_status(
        &self,
        id: ChallengeId,
        status: ChallengeStatus,
        game_id: Option<GameId>,
        now: i64,
    ) -> Result<()> {
        self.exec(
            "UPDATE challenges SET status = $2, game_id = COALESCE($3, game_id), updated_at = $4
             WHERE id = $1",
            params![id, status.id(), game_id, now],
        )?;
        Ok(())
    }

    /// Writes `acceptor` as the opponent of open challenge `id` (one open to anyone), as they
    /// accept it.
    pub fn take_open_challenge(&self, id: ChallengeId, acceptor: &UserId, now: i64) -> Result<()> {
        self.exec(
            "UPDATE challenges SET opponent_id = $2, updated_at = $3
             WHERE id = $1 AND opponent_id = $4 AND status = 'open'",
            params![id, acceptor, now, OPEN_OPPONENT_ID],
        )?;
        Ok(())
    }
}
