//! Correspondence clocks: each game's deadline and reminders, and players' vacations.

use super::db::{Result, Tx};
use super::value::params;
use crate::ids::*;

row! {
    /// A stored vacation: the clocks of the user's games stop from `start_at` to `end_at`.
    ///
    /// Fields: `id`: its id; `user_id`: whose; `start_at`: when it starts (ms); `end_at`: when
    /// it ends (ms).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct VacationRow {
        id: VacationId, user_id: UserId, start_at: i64, end_at: i64,
    }
}

impl Tx<'_> {
    /// Notes that the turn changed hands at `now`, with the new mover's clock (start,
    /// deadline) when the game has one; this turn's reminders start again.
    pub fn start_turn(&self, game_id: GameId, now: i64, clock: Option<(i64, i64)>) -> Result<()> {
        self.exec(
            "UPDATE games SET updated_at = $2, turn_started_at = $2, clock_start_at = $3,
               deadline_at = $4, reminders_sent = 0 WHERE id = $1",
            params![game_id, now, clock.map(|c| c.0), clock.map(|c| c.1)],
        )?;
        Ok(())
    }

    /// Starts again, at `now`, the clocks of the active games in `channel` that nobody has
    /// moved in yet (a game whose thread opens only now, or cannot open yet): each keeps its
    /// whole first turn from `now`, reminders included. How many.
    pub fn restart_unplayed_clocks(&self, channel: &ChannelId, now: i64) -> Result<usize> {
        self.exec(
            "UPDATE games SET deadline_at = deadline_at + ($2 - clock_start_at),
               clock_start_at = $2, turn_started_at = $2, reminders_sent = 0
             WHERE channel_id = $1 AND status = 'active' AND deadline_at IS NOT NULL
               AND clock_start_at < $2
               AND NOT EXISTS (SELECT 1 FROM moves WHERE moves.game_id = games.id)",
            params![channel, now],
        )
    }

    /// Records that this turn's reminder number `sent` (1 or 2) went out at `now`.
    pub fn set_reminded(&self, game_id: GameId, sent: u32, now: i64) -> Result<()> {
        self.exec(
            "UPDATE games SET reminders_sent = $2, reminded_at = $3 WHERE id = $1",
            params![game_id, sent, now],
        )?;
        Ok(())
    }

    /// Moves a game's clock later by `ms` (a vacation of the player to move).
    pub fn shift_clock(&self, game_id: GameId, ms: i64) -> Result<()> {
        self.exec(
            "UPDATE games SET clock_start_at = clock_start_at + $2, deadline_at = deadline_at + $2
             WHERE id = $1 AND deadline_at IS NOT NULL",
            params![game_id, ms],
        )?;
        Ok(())
    }

    /// Ids of the active games that have a clock.
    pub fn clocked_games(&self) -> Result<Vec<GameId>> {
        self.all(
            "games",
            "SELECT id FROM games WHERE status = 'active' AND deadline_at IS NOT NULL ORDER BY id",
            params![],
            |c| c.get("id"),
        )
    }

    /// Records the time (ms) the player who made move `ply` had left on their clock then.
    pub fn set_clock_left(&self, game_id: GameId, ply: u32, left: i64) -> Result<()> {
        self.exec(
            "UPDATE moves SET clock_left = $3 WHERE game_id = $1 AND ply = $2",
            params![game_id, ply, left],
        )?;
        Ok(())
    }

    /// The time (ms) the player who made move `ply` had left on their clock then; `None` for
    /// a game without a clock, a forced pass, or a move stored before this was recorded.
    pub fn clock_left(&self, game_id: GameId, ply: u32) -> Result<Option<i64>> {
        Ok(self
            .first(
                "moves",
                "SELECT clock_left FROM moves WHERE game_id = $1 AND ply = $2",
                params![game_id, ply],
                |c| c.get::<Option<i64>>("clock_left"),
            )?
            .flatten())
    }

    /// Records a vacation.
    pub fn insert_vacation(&self, user_id: &UserId, start: i64, end: i64) -> Result<()> {
        self.exec(
            "INSERT INTO vacations (user_id, start_at, end_at) VALUES ($1, $2, $3)",
            params![user_id, start, end],
        )?;
        Ok(())
    }

    /// A user's vacations, earliest first.
    pub fn vacations(&self, user_id: &UserId) -> Result<Vec<VacationRow>> {
        self.all(
            "vacations",
            "SELECT * FROM vacations WHERE user_id = $1 ORDER BY start_at, id",
            params![user_id],
            VacationRow::from_row,
        )
    }

    /// The user's vacation running at `now`, if any.
    pub fn current_vacation(&self, user_id: &UserId, now: i64) -> Result<Option<VacationRow>> {
        self.first(
            "vacations",
            "SELECT * FROM vacations WHERE user_id = $1 AND start_at <= $2 AND end_at > $2
             ORDER BY end_at DESC, id DESC",
            params![user_id, now],
            VacationRow::from_row,
        )
    }

    /// Ends a vacation at `end` (earlier than planned).
    pub fn end_vacation(&self, id: VacationId, end: i64) -> Result<()> {
        self.exec(
            "UPDATE vacations SET end_at = $2 WHERE id = $1",
            params![id, end],
        )?;
        Ok(())
    }

    /// The user's vacations that end after `since`, earliest first.
    pub fn vacations_since(&self, user_id: &UserId, since: i64) -> Result<Vec<VacationRow>> {
        self.all(
            "vacations",
            "SELECT * FROM vacations WHERE user_id = $1 AND end_at > $2 ORDER BY start_at, id",
            params![user_id, since],
            VacationRow::from_row,
        )
    }

    /// The end of the user's vacation running at `now`, if any.
    pub fn vacation_end(&self, user_id: &UserId, now: i64) -> Result<Option<i64>> {
        self.value(
            "vacations",
            "SELECT MAX(end_at) AS end_at FROM vacations
             WHERE user_id = $1 AND start_at <= $2 AND end_at > $2",
            params![user_id, now],
            "end_at",
        )
    }

    /// Vacation time (ms) the user started in `[from, to)`.
    pub fn vacation_taken(&self, user_id: &UserId, from: i64, to: i64) -> Result<i64> {
        self.value(
            "vacations",
            "SELECT COALESCE(SUM(end_at - start_at), 0) AS taken FROM vacations
             WHERE user_id = $1 AND start_at >= $2 AND start_at < $3",
            params![user_id, from, to],
            "taken",
        )
    }
}
