//! Settings: per user (how to be reminded) and per server (default clock, reminder delay), as
//! key and text value.

use super::db::{Result, Tx};
use rusqlite::params;

/// Whose settings: the two tables have the same shape.
#[derive(Clone, Copy)]
enum Owner {
    User,
    Server,
}

impl Owner {
    /// The table and its owner column.
    fn table(self) -> (&'static str, &'static str) {
        match self {
            Owner::User => ("user_settings", "user_id"),
            Owner::Server => ("server_settings", "server_id"),
        }
    }
}

impl Tx<'_> {
    fn setting(&self, owner: Owner, id: &str, key: &str) -> Result<Option<String>> {
        let (table, column) = owner.table();
        self.first(
            table,
            &format!("SELECT value FROM {table} WHERE {column} = ?1 AND key = ?2"),
            params![id, key],
            |c| c.get("value"),
        )
    }

    fn set_setting(&self, owner: Owner, id: &str, key: &str, value: &str) -> Result<()> {
        let (table, column) = owner.table();
        self.exec(
            &format!(
                "INSERT INTO {table} ({column}, key, value) VALUES (?1, ?2, ?3)
                 ON CONFLICT({column}, key) DO UPDATE SET value = excluded.value"
            ),
            params![id, key, value],
        )?;
        Ok(())
    }

    fn settings(&self, owner: Owner, id: &str) -> Result<Vec<(String, String)>> {
        let (table, column) = owner.table();
        self.all(
            table,
            &format!("SELECT key, value FROM {table} WHERE {column} = ?1 ORDER BY key"),
            [id],
            |c| Ok((c.get("key")?, c.get("value")?)),
        )
    }

    /// A user's setting.
    pub fn user_setting(&self, user_id: &str, key: &str) -> Result<Option<String>> {
        self.setting(Owner::User, user_id, key)
    }

    /// Sets a user's setting.
    pub fn set_user_setting(&self, user_id: &str, key: &str, value: &str) -> Result<()> {
        self.set_setting(Owner::User, user_id, key, value)
    }

    /// All of a user's settings, by key.
    pub fn user_settings(&self, user_id: &str) -> Result<Vec<(String, String)>> {
        self.settings(Owner::User, user_id)
    }

    /// A server's setting.
    pub fn server_setting(&self, server_id: &str, key: &str) -> Result<Option<String>> {
        self.setting(Owner::Server, server_id, key)
    }

    /// Sets a server's setting.
    pub fn set_server_setting(&self, server_id: &str, key: &str, value: &str) -> Result<()> {
        self.set_setting(Owner::Server, server_id, key, value)
    }

    /// All of a server's settings, by key.
    pub fn server_settings(&self, server_id: &str) -> Result<Vec<(String, String)>> {
        self.settings(Owner::Server, server_id)
    }
}
