//! The store's side of the domain's ids ([`crate::ids`]): each reads and writes its column
//! directly. A text id is made from a column's text here and nowhere else in the store.

use super::value::{FromValue, ToValue, Value, ValueRef};
use crate::ids::*;

/// Integer ids: their column is the integer key.
macro_rules! number_columns {
    ($($name:ident),*) => {$(
        impl ToValue for $name {
            fn to_value(&self) -> ValueRef<'_> {
                ValueRef::Int(self.0)
            }
        }

        impl FromValue for $name {
            fn from_value(v: Value) -> Result<$name, String> {
                i64::from_value(v).map($name)
            }
        }
    )*};
}

number_columns! {
    GameId, TournamentId, ChallengeId, MatchId, PairingId, MessageId, AnalysisId, VacationId,
    AuditId, LadderId, LadderGameId, LeagueId
}

/// Text ids: their column is the text.
macro_rules! text_columns {
    ($($name:ident),*) => {$(
        impl ToValue for $name {
            fn to_value(&self) -> ValueRef<'_> {
                ValueRef::Text(self.as_str())
            }
        }

        impl FromValue for $name {
            fn from_value(v: Value) -> Result<$name, String> {
                String::from_value(v).map($name::new)
            }
        }
    )*};
}

text_columns!(UserId, ServerId, ChannelId);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_read_and_write_their_columns() {
        assert_eq!(GameId(5).to_value(), ValueRef::Int(5));
        assert_eq!(UserId::new("u").to_value(), ValueRef::Text("u"));
        assert_eq!(GameId::from_value(Value::Int(5)), Ok(GameId(5)));
        assert_eq!(
            UserId::from_value(Value::Text("u".into())),
            Ok(UserId::new("u"))
        );
    }
}
