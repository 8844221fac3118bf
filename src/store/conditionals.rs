//! Conditional moves: a player's stored lines of expected moves and replies on a game, seen
//! only by that player.

use super::db::{Result, Tx};
use super::value::params;
use crate::ids::{GameId, UserId};

row! {
    /// One line of a player's conditional moves.
    ///
    /// Fields: `game_id`: the game; `user_id`: whose line; `seq`: its place among the
    /// player's lines (the first is the main line); `from_ply`: the ply its first move is
    /// played at; `line`: its plies, in notation, separated by spaces; `created_at`: when it
    /// was stored (ms).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct ConditionalRow {
        game_id: GameId, user_id: UserId, seq: u32, from_ply: u32, line: String,
        created_at: i64,
    }
}

impl ConditionalRow {
    /// The line's plies, in notation.
    pub fn plies(&self) -> Vec<&str> {
        self.line.split_whitespace().collect()
    }
}

impl Tx<'_> {
    /// Every stored line on `game`, by player and then in order.
    pub fn conditionals(&self, game: GameId) -> Result<Vec<ConditionalRow>> {
        self.all(
            "conditionals",
            "SELECT * FROM conditionals WHERE game_id = $1 ORDER BY user_id, seq",
            params![game],
            ConditionalRow::from_row,
        )
    }

    /// Replaces `user`'s lines on `game` with `lines` (each its plies from `from_ply` on,
    /// separated by spaces), in order.
    pub fn set_conditionals(
        &self,
        game: GameId,
        user: &UserId,
        from_ply: u32,
        lines: &[String],
        now: i64,
    ) -> Result<()> {
        self.clear_conditionals(game, Some(user))?;
        for (seq, line) in lines.iter().enumerate() {
            self.exec(
                "INSERT INTO conditionals (game_id, user_id, seq, from_ply, line, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6)",
                params![game, user, seq as u32, from_ply, line.as_str(), now],
            )?;
        }
        Ok(())
    }

    /// Deletes one stored line.
    pub fn delete_conditional(&self, game: GameId, user: &UserId, seq: u32) -> Result<()> {
        self.exec(
            "DELETE FROM conditionals WHERE game_id = $1 AND user_id = $2 AND seq = $3",
            params![game, user, seq],
        )?;
        Ok(())
    }

    /// Deletes `user`'s lines on `game` (everyone's with `None`); how many there were.
    pub fn clear_conditionals(&self, game: GameId, user: Option<&UserId>) -> Result<usize> {
        match user {
            Some(user) => self.exec(
                "DELETE FROM conditionals WHERE game_id = $1 AND user_id = $2",
                params![game, user],
            ),
            None => self.exec("DELETE FROM conditionals WHERE game_id = $1", params![game]),
        }
    }
}
