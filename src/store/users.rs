//! Users: a platform's user id and the latest display name seen.

use super::db::{Cols, Result, Tx};
use rusqlite::params;

/// A stored user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserRow {
    /// The platform's user id (a Discord snowflake, a console name, or
    /// [`AI_USER_ID`](super::games::AI_USER_ID)).
    pub id: String,
    /// The latest display name.
    pub name: String,
    /// When first seen.
    pub created_at: i64,
    /// When the name last changed.
    pub updated_at: i64,
}

impl UserRow {
    fn from_row(c: &Cols) -> Result<UserRow> {
        Ok(UserRow {
            id: c.get("id")?,
            name: c.get("name")?,
            created_at: c.get("created_at")?,
            updated_at: c.get("updated_at")?,
        })
    }
}

impl Tx<'_> {
    /// Records a user's latest display name.
    pub fn upsert_user(&self, id: &str, name: &str, now: i64) -> Result<()> {
        self.exec(
            "INSERT INTO users (id, name, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)
             ON CONFLICT(id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at
             WHERE users.name <> excluded.name",
            params![id, name, now],
        )?;
        Ok(())
    }

    /// A user's stored display name.
    pub fn user_name(&self, id: &str) -> Result<Option<String>> {
        self.first("users", "SELECT name FROM users WHERE id = ?1", [id], |c| {
            c.get("name")
        })
    }

    /// A stored user.
    pub fn user(&self, id: &str) -> Result<Option<UserRow>> {
        self.first(
            "users",
            "SELECT * FROM users WHERE id = ?1",
            [id],
            UserRow::from_row,
        )
    }
}
