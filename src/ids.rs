//! Typed ids, the domain's names for its things: a game's, a tournament's or a user's id is
//! its own type, so one cannot be passed where another is meant.
//!
//! The numbered ids ([`GameId`], [`TournamentId`], [`ChallengeId`], [`MatchId`], [`PairingId`],
//! [`MessageId`], [`AnalysisId`], [`VacationId`], [`AuditId`])
//! are the integer primary keys of their tables. The named ids ([`UserId`], [`ServerId`],
//! [`ChannelId`]) are Discord snowflakes as text, or the console's names; the store keeps them as
//! text. Every id prints as the value it wraps (but [`GameId`], which prints as players type it,
//! `#123`), so a message that prints an id reads as it did when ids were bare numbers and strings.
//!
//! A text id is made from text only where text enters: by an adapter from what Discord or the
//! console says ([`UserId::new`]), or by the store from its column (which reads and writes
//! every id directly, `store::ids`). No conversion makes any string into any id, and an id
//! does not pass for text: [`UserId::as_str`] says when its text is wanted.

use std::borrow::Borrow;
use std::fmt;
use std::str::FromStr;

/// Declares integer ids: the newtype and its conversion to its number.
macro_rules! number_ids {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash,
            serde::Serialize, serde::Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(pub i64);

        impl From<$name> for i64 {
            fn from(id: $name) -> i64 {
                id.0
            }
        }
    )*};
}

number_ids! {
    /// The short public id of a game, which players type as `#123`.
    ///
    /// It is the integer primary key of `games`, not a separate column: that key is already
    /// short, unique, assigned in order, stable for the life of the game and never reused (games
    /// are never deleted: an abandoned game is kept as `aborted`). A second code would have to be
    /// kept unique and mapped back to the key on every lookup for nothing. Ids count across all
    /// servers; a game of another server is looked up like a missing one by the callers that
    /// show games.
    GameId;
    /// A tournament's id (the key of `tournaments`), which organisers type in `/tournament`.
    TournamentId;
    /// A challenge's id (the key of `challenges`), which `/accept` and `/decline` take.
    ChallengeId;
    /// A match's id (the key of `matches`): two games, each player starting one.
    MatchId;
    /// A tournament pairing's id (the key of `pairings`): one game or match of a round.
    PairingId;
    /// An owed message's id (the key of `outbox`), also the platform's idempotency key.
    MessageId;
    /// An analysis's id (the key of `analyses`).
    AnalysisId;
    /// A vacation's id (the key of `vacations`).
    VacationId;
    /// A moderator action's id (the key of `audit_log`).
    AuditId;
    /// A ladder's id (the key of `ladders`), which `/ladder` takes.
    LadderId;
    /// A ladder game's id (the key of `ladder_games`): one challenge, played as one game.
    LadderGameId;
    /// A league's id (the key of `leagues`), which `/league` takes.
    LeagueId;
}

/// Tournament, challenge, match and pairing ids print as their number.
macro_rules! plain_display {
    ($($name:ident),*) => {$(
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }
    )*};
}
plain_display! {
    TournamentId, ChallengeId, MatchId, PairingId, MessageId, AnalysisId, VacationId, AuditId,
    LadderId, LadderGameId, LeagueId
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Text that is not a game id.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a game number: write it as #123 or 123")]
pub struct ParseGameIdError(pub String);

impl FromStr for GameId {
    type Err = ParseGameIdError;

    /// Accepts `#123` and `123` (spaces around are ignored).
    fn from_str(s: &str) -> std::result::Result<GameId, ParseGameIdError> {
        let t = s.trim();
        let digits = t.strip_prefix('#').unwrap_or(t);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ParseGameIdError(s.to_string()));
        }
        match digits.parse::<i64>() {
            Ok(n) if n > 0 => Ok(GameId(n)),
            _ => Err(ParseGameIdError(s.to_string())),
        }
    }
}

/// Declares text ids: the newtype, made from text only by `new`, read as text only by
/// `as_str`, and displayed as the text itself.
macro_rules! text_ids {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(
            Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash,
            serde::Serialize, serde::Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// The id from its text.
            pub fn new(id: impl Into<String>) -> $name {
                $name(id.into())
            }

            /// The id's text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The id's text, owned.
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl PartialEq<&$name> for $name {
            fn eq(&self, other: &&$name) -> bool {
                self.0 == other.0
            }
        }

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                &self.0 == other
            }
        }

        impl PartialEq<$name> for str {
            fn eq(&self, other: &$name) -> bool {
                self == other.0
            }
        }

        impl PartialEq<$name> for &str {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }
    )*};
}

text_ids! {
    /// A user: a Discord user id (a snowflake, digits), a console name, or the AI's
    /// [`AI_USER_ID`](crate::store::AI_USER_ID).
    UserId;
    /// A server: a Discord guild id, or the console's server name.
    ServerId;
    /// A channel or thread: a Discord channel id, or the console's channel name.
    ChannelId;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_print_as_they_did_when_bare() {
        assert_eq!(GameId(7).to_string(), "#7");
        assert_eq!(TournamentId(7).to_string(), "7");
        assert_eq!(format!("{:>3}", PairingId(7)), "  7");
        assert_eq!(UserId::new("123").to_string(), "123");
        assert_eq!(format!("<@{}>", UserId::new("42")), "<@42>");
    }

    #[test]
    fn text_ids_compare_with_text() {
        let u = UserId::new("alice");
        assert_eq!(u, "alice");
        assert!("alice" == u);
        assert_ne!(u, "bob");
        assert_eq!(u.into_string(), "alice");
    }

    #[test]
    fn ids_serialise_as_their_value() {
        let s = serde_json::to_string(&(MatchId(3), ChannelId::new("c"))).unwrap();
        assert_eq!(s, r#"[3,"c"]"#);
    }
}
