//! Private notes: one per player and game, seen only by the player who wrote it.

use super::db::{Result, Tx};
use super::value::params;
use crate::ids::{GameId, ServerId, UserId};

row! {
    /// A player's note on a game.
    ///
    /// Fields: `game_id`: the game; `user_id`: whose note; `text`: the note; `updated_at`:
    /// when it was last written (ms).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct NoteRow {
        game_id: GameId, user_id: UserId, text: String, updated_at: i64,
    }
}

impl Tx<'_> {
    /// Writes `user`'s note on `game`, replacing the one before.
    pub fn set_note(&self, game: GameId, user: &UserId, text: &str, now: i64) -> Result<()> {
        self.exec(
            "INSERT INTO notes (game_id, user_id, text, updated_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (game_id, user_id) DO UPDATE
                SET text = excluded.text, updated_at = excluded.updated_at",
            params![game, user, text, now],
        )?;
        Ok(())
    }

    /// Deletes `user`'s note on `game`; whether there was one.
    pub fn delete_note(&self, game: GameId, user: &UserId) -> Result<bool> {
        let n = self.exec(
            "DELETE FROM notes WHERE game_id = $1 AND user_id = $2",
            params![game, user],
        )?;
        Ok(n > 0)
    }

    /// `user`'s note on `game`, if any.
    pub fn note(&self, game: GameId, user: &UserId) -> Result<Option<NoteRow>> {
        self.first(
            "notes",
            "SELECT * FROM notes WHERE game_id = $1 AND user_id = $2",
            params![game, user],
            NoteRow::from_row,
        )
    }

    /// `user`'s notes on games of `server`, the latest written first, at most `limit`.
    pub fn notes_of(&self, user: &UserId, server: &ServerId, limit: u32) -> Result<Vec<NoteRow>> {
        self.all(
            "notes",
            "SELECT n.* FROM notes n JOIN games g ON g.id = n.game_id
              WHERE n.user_id = $1 AND g.server_id = $2
              ORDER BY n.updated_at DESC, n.game_id DESC LIMIT $3",
            params![user, server, limit],
            NoteRow::from_row,
        )
    }
}
