//! Settings: per user (how to be reminded) and per server (default clock, reminder delay), as
//! key and text value.

use super::db::{Result, Tx};
use super::ids::{ServerId, UserId};
use super::value::params;

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
            params![id],
            |c| Ok((c.get("key")?, c.get("value")?)),
        )
    }
}

/// The public methods of one owner's settings: get one, set one, list all.
macro_rules! owner_settings {
    ($owner:expr, $who:literal, $id:ty, $get:ident, $set:ident, $all:ident) => {
        impl Tx<'_> {
            #[doc = concat!("A ", $who, "'s setting.")]
            pub fn $get(&self, id: &$id, key: &str) -> Result<Option<String>> {
                self.setting($owner, id.as_str(), key)
            }
            #[doc = concat!("Sets a ", $who, "'s setting.")]
            pub fn $set(&self, id: &$id, key: &str, value: &str) -> Result<()> {
                self.set_setting($owner, id.as_str(), key, value)
            }
            #[doc = concat!("All of a ", $who, "'s settings, by key.")]
            pub fn $all(&self, id: &$id) -> Result<Vec<(String, String)>> {
                self.settings($owner, id.as_str())
            }
        }
    };
}

owner_settings!(
    Owner::User,
    "user",
    UserId,
    user_setting,
    set_user_setting,
    user_settings
);
owner_settings!(
    Owner::Server,
    "server",
    ServerId,
    server_setting,
    set_server_setting,
    server_settings
);

impl Tx<'_> {
    /// Every user with a setting `key`, with its value, by user.
    pub fn users_with_setting(&self, key: &str) -> Result<Vec<(UserId, String)>> {
        self.all(
            "user_settings",
            "SELECT user_id, value FROM user_settings WHERE key = ?1 ORDER BY user_id",
            params![key],
            |c| Ok((c.get("user_id")?, c.get("value")?)),
        )
    }
}
