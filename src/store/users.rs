//! Users: a platform's user id and the latest display name seen.

use super::db::{Result, Tx};
use super::value::params;
use crate::ids::UserId;

row! {
    /// A stored user.
    ///
    /// Fields: `id`: the platform's user id (a Discord snowflake, a console name, or
    /// [`AI_USER_ID`](super::games::AI_USER_ID)); `name`: the latest display name;
    /// `created_at`: when first seen; `updated_at`: when the name last changed.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct UserRow {
        id: UserId, name: String, created_at: i64, updated_at: i64,
    }
}

impl Tx<'_> {
    /// Records a user's latest display name.
    pub fn upsert_user(&self, id: &UserId, name: &str, now: i64) -> Result<()> {
        self.exec(
            "INSERT INTO users (id, name, created_at, updated_at) VALUES ($1, $2, $3, $3)
             ON CONFLICT(id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at
             WHERE users.name <> excluded.name",
            params![id, name, now],
        )?;
        Ok(())
    }

    /// A user's stored display name.
    pub fn user_name(&self, id: &UserId) -> Result<Option<String>> {
        self.first(
            "users",
            "SELECT name FROM users WHERE id = $1",
            params![id],
            |c| c.get("name"),
        )
    }

    /// A user's stored display name, or their id for a user never stored (shown rather than
    /// nothing).
    pub fn name_or_id(&self, id: &UserId) -> Result<String> {
        Ok(self.user_name(id)?.unwrap_or_else(|| id.to_string()))
    }

    /// A stored user.
    pub fn user(&self, id: &UserId) -> Result<Option<UserRow>> {
        self.first(
            "users",
            "SELECT * FROM users WHERE id = $1",
            params![id],
            UserRow::from_row,
        )
    }
}
