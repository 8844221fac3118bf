//! Settings: per user (how to be reminded, the digest) and per server (default clock, reminder
//! delay, limits, where the audit log goes, …), each a key and a text value. Every setting is
//! declared once, below, as a [`UserSetting`] or a [`ServerSetting`]: the store takes nothing
//! else as a key, so a setting is never misspelt in one place or read from the wrong table.

use super::db::{Result, Tx};
use super::value::params;
use crate::ids::{ServerId, UserId};

/// Declares the settings of one owner: a type whose values are its keys, and a constant each.
macro_rules! settings {
    ($(#[$tdoc:meta])* $ty:ident { $($(#[$doc:meta])* $name:ident = $key:literal;)* }) => {
        $(#[$tdoc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $ty(&'static str);

        impl $ty {
            $($(#[$doc])* pub const $name: $ty = $ty($key);)*

            /// Every setting of this kind.
            pub const ALL: &'static [$ty] = &[$($ty::$name),*];

            /// The key it is stored under.
            pub fn key(self) -> &'static str {
                self.0
            }
        }
    };
}

settings! {
    /// A user's setting (the table `user_settings`).
    UserSetting {
        /// Where move reminders reach the user: `channel`, `dm` or `off` (`/settings`).
        REMINDERS = "reminders";
        /// The daily digest's time, `HH:MM`, or `off`.
        DIGEST_TIME = "digest";
        /// The digest's time zone (an IANA name).
        DIGEST_ZONE = "digest_tz";
        /// The day the last digest was sent, in the user's zone.
        DIGEST_SENT = "digest_sent";
        /// The id of the last digest's message, which its buttons edit.
        DIGEST_MESSAGE = "digest_message";
        /// Why digests are paused (`dm-closed`), or empty.
        DIGEST_PAUSED = "digest_paused";
    }
}

settings! {
    /// A server's setting (the table `server_settings`).
    ServerSetting {
        /// The default time control of a new game (days per move, or none).
        DEFAULT_DAYS = "default_days";
        /// Hours before the first reminder of a move.
        REMINDER_HOURS = "reminder_hours";
        /// Days an open challenge waits before it expires.
        CHALLENGE_DAYS = "challenge_days";
        /// Open challenges a user may have at once.
        MAX_CHALLENGES = "max_challenges";
        /// Commands per user per 10 seconds.
        RATE_LIMIT = "rate_limit";
        /// Games against the AI a user may have at once.
        MAX_AI_GAMES = "max_ai_games";
        /// The server's own house-rules page, linked from `/rules`.
        RULES_URL = "rules_url";
        /// The channel the audit log is posted in.
        LOG_CHANNEL = "audit_channel";
        /// The role that may create tournaments, leagues and ladders.
        CREATOR_ROLE = "tournament_role";
        /// How far a console's `/time` has moved this server's clock, in milliseconds.
        CONSOLE_CLOCK = "console_clock_offset";
        /// `on` when the server's games are on the web companion (`tara-bot web`); off by
        /// default.
        WEB = "web";
    }
}

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
            &format!("SELECT value FROM {table} WHERE {column} = $1 AND key = $2"),
            params![id, key],
            |c| c.get("value"),
        )
    }

    fn set_setting(&self, owner: Owner, id: &str, key: &str, value: &str) -> Result<()> {
        let (table, column) = owner.table();
        self.exec(
            &format!(
                "INSERT INTO {table} ({column}, key, value) VALUES ($1, $2, $3)
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
            &format!("SELECT key, value FROM {table} WHERE {column} = $1 ORDER BY key"),
            params![id],
            |c| Ok((c.get("key")?, c.get("value")?)),
        )
    }
}

/// The public methods of one owner's settings: get one, set one, list all.
macro_rules! owner_settings {
    ($owner:expr, $who:literal, $id:ty, $setting:ty, $get:ident, $set:ident, $all:ident) => {
        impl Tx<'_> {
            #[doc = concat!("A ", $who, "'s setting.")]
            pub fn $get(&self, id: &$id, setting: $setting) -> Result<Option<String>> {
                self.setting($owner, id.as_str(), setting.key())
            }
            #[doc = concat!("Sets a ", $who, "'s setting.")]
            pub fn $set(&self, id: &$id, setting: $setting, value: &str) -> Result<()> {
                self.set_setting($owner, id.as_str(), setting.key(), value)
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
    UserSetting,
    user_setting,
    set_user_setting,
    user_settings
);
owner_settings!(
    Owner::Server,
    "server",
    ServerId,
    ServerSetting,
    server_setting,
    set_server_setting,
    server_settings
);

impl Tx<'_> {
    /// Every user with `setting`, with its value, by user.
    pub fn users_with_setting(&self, setting: UserSetting) -> Result<Vec<(UserId, String)>> {
        self.all(
            "user_settings",
            "SELECT user_id, value FROM user_settings WHERE key = $1 ORDER BY user_id",
            params![setting.key()],
            |c| Ok((c.get("user_id")?, c.get("value")?)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Two settings never share a key: each would overwrite the other.
    #[test]
    fn every_setting_has_its_own_key() {
        let users: HashSet<&str> = UserSetting::ALL.iter().map(|s| s.key()).collect();
        let servers: HashSet<&str> = ServerSetting::ALL.iter().map(|s| s.key()).collect();
        assert_eq!(users.len(), UserSetting::ALL.len());
        assert_eq!(servers.len(), ServerSetting::ALL.len());
    }
}
