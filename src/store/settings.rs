//! Settings: per user (how to be reminded) and per server (default clock, reminder delay), as
//! key and text value.

use super::db::{Result, Tx};
use rusqlite::params;

impl Tx<'_> {
    /// A user's setting.
    pub fn user_setting(&self, user_id: &str, key: &str) -> Result<Option<String>> {
        self.first(
            "user_settings",
            "SELECT value FROM user_settings WHERE user_id = ?1 AND key = ?2",
            params![user_id, key],
            |c| c.get("value"),
        )
    }

    /// Sets a user's setting.
    pub fn set_user_setting(&self, user_id: &str, key: &str, value: &str) -> Result<()> {
        self.exec(
            "INSERT INTO user_settings (user_id, key, value) VALUES (?1, ?2, ?3)
             ON CONFLICT(user_id, key) DO UPDATE SET value = excluded.value",
            params![user_id, key, value],
        )?;
        Ok(())
    }

    /// All of a user's settings, by key.
    pub fn user_settings(&self, user_id: &str) -> Result<Vec<(String, String)>> {
        self.all(
            "user_settings",
            "SELECT key, value FROM user_settings WHERE user_id = ?1 ORDER BY key",
            [user_id],
            |c| Ok((c.get("key")?, c.get("value")?)),
        )
    }

    /// A server's setting.
    pub fn server_setting(&self, server_id: &str, key: &str) -> Result<Option<String>> {
        self.first(
            "server_settings",
            "SELECT value FROM server_settings WHERE server_id = ?1 AND key = ?2",
            params![server_id, key],
            |c| c.get("value"),
        )
    }

    /// Sets a server's setting.
    pub fn set_server_setting(&self, server_id: &str, key: &str, value: &str) -> Result<()> {
        self.exec(
            "INSERT INTO server_settings (server_id, key, value) VALUES (?1, ?2, ?3)
             ON CONFLICT(server_id, key) DO UPDATE SET value = excluded.value",
            params![server_id, key, value],
        )?;
        Ok(())
    }

    /// All of a server's settings, by key.
    pub fn server_settings(&self, server_id: &str) -> Result<Vec<(String, String)>> {
        self.all(
            "server_settings",
            "SELECT key, value FROM server_settings WHERE server_id = ?1 ORDER BY key",
            [server_id],
            |c| Ok((c.get("key")?, c.get("value")?)),
        )
    }
}
