//! Storage: SQLite (the default) or PostgreSQL (`pg.rs`), with numbered migrations embedded in
//! the binary, behind typed rows and methods. Every command's writes happen inside one
//! [`Store::write`] (or [`Store::write_within`]) transaction.
//!
//! # The interface
//! The rest of the bot sees only [`Store`] (open, [`Store::write`], [`Store::read`]), [`Tx`] (one
//! method per query or change, added by the domain modules below), the row types and
//! [`StoreError`]. No SQLite or PostgreSQL type appears in any of them: the connections and
//! transactions live in private fields, and the backends' errors are wrapped in the opaque
//! [`DbError`]. Another backend (an in-memory one for tests, say) therefore replaces only the
//! internals of `store/`: the bodies of these methods and the migration runner, not their
//! callers.
//!
//! # Layout
//! - `db`: [`Store`], the migration runner, transactions, [`StoreError`], [`Tx`] and the
//!   private helpers every domain module uses to run SQL and read rows by column name (this file
//!   only declares the modules and re-exports their public items);
//! - [`games`]: games, their moves and takeback requests, seats (a person or the AI), public ids;
//! - [`challenges`]: challenges; [`matches`]: two-game matches;
//! - [`clocks`]: deadlines, reminders and vacations;
//! - [`settings`]: user and server settings; [`users`]: users and their display names;
//! - [`tournaments`]: tournaments and their pairings;
//! - [`outbox`]: the messages the bot owes, stored with the change that causes them until sent;
//! - [`audit`]: the moderators' audit log;
//! - [`analyses`]: post-game analyses, kept once done;
//! - [`ratings`]: Glicko-2 ratings per server and game, and each rated game's change.

/// Declares an enum stored as text: each variant with its stored form, and `ALL`, `id`,
/// `from_id` and its reading from a column (`what` names it in messages about corrupt data)
/// generated from that one list.
macro_rules! stored_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident = $what:literal {
            $($(#[$vmeta:meta])* $variant:ident = $id:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
        }

        impl $name {
            /// Every value, in order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The stored form.
            pub fn id(self) -> &'static str {
                match self {
                    $($name::$variant => $id,)+
                }
            }

            /// Parses the stored form.
            pub fn from_id(s: &str) -> Option<$name> {
                match s {
                    $($id => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl $crate::store::db::Column for $name {
            const WHAT: &'static str = $what;
            fn parse(s: &str) -> Option<$name> {
                $name::from_id(s)
            }
        }
    };
}

/// Declares a row type and how it is read: each field from the column of the same name (or
/// the one given after `=`), through [`db::Field`]. The fields are public.
macro_rules! row {
    (
        $(#[$meta:meta])*
        pub struct $t:ident { $($f:ident : $ty:ty $(= $col:literal)?),* $(,)? }
    ) => {
        $(#[$meta])*
        pub struct $t {
            $(pub $f: $ty,)*
        }

        impl $t {
            fn from_row(c: &$crate::store::db::Cols) -> $crate::store::db::Result<$t> {
                Ok($t { $( $f: c.read(row!(@col $f $($col)?))?, )* })
            }
        }
    };
    (@col $f:ident) => { stringify!($f) };
    (@col $f:ident $col:literal) => { $col };
}

pub mod analyses;
pub mod audit;
pub mod challenges;
pub mod clocks;
pub mod conditionals;
pub mod copy;
mod db;
mod error;
pub mod games;
mod ids;
pub mod ladders;
pub mod leagues;
pub mod matches;
mod migrations;
pub mod notes;
pub mod outbox;
mod pg;
pub mod ratings;
pub mod settings;
pub mod tournaments;
pub mod users;
pub(crate) mod value;

/// The domain's ids, which the store's rows and methods speak (see [`crate::ids`]).
pub use crate::ids::{
    AnalysisId, AuditId, ChallengeId, ChannelId, LadderGameId, LadderId, LeagueId, MatchId,
    MessageId, PairingId, ServerId, TournamentId, UserId, VacationId,
};
pub use analyses::{AnalysisRow, AnalysisStatus, NewAnalysis};
pub use audit::AuditRow;
pub use challenges::{ChallengeRow, ChallengeStatus, FirstChoice, NewChallenge, OPEN_OPPONENT_ID};
pub use clocks::VacationRow;
pub use conditionals::ConditionalRow;
pub use games::{
    DrawOfferRow, GameId, GameRow, GameStatus, MoveRow, NewGame, ParseGameIdError, Seat,
    TakebackRow, AI_LEVELS, AI_USER_ID,
};
pub use ladders::{
    LadderGameRow, LadderPlayerRow, LadderResult, LadderRow, LadderStatus, NewLadder,
};
pub use leagues::{
    LeagueDivisionRow, LeagueMove, LeaguePlayerRow, LeagueResultRow, LeagueRow, LeagueStatus,
    NewLeague,
};
pub use matches::{match_totals, MatchRow};
pub use notes::NoteRow;
pub use outbox::{EditTarget, NewMessage, OutboxRow};
pub use ratings::{RatingChangeRow, RatingRow};
pub use tournaments::{
    EntrantRow, NewPairing, NewTournament, Pace, PairingResult, PairingRow, TournamentFormat,
    TournamentRow, TournamentStatus,
};
pub use users::UserRow;

pub use copy::{copy, CopySummary};
pub use db::{backup, check, shown, BackupSummary, CheckReport, Owner, Store, Tx, APPLICATION_ID};
pub(crate) use error::RESTORE_HINT;
pub use error::{Access, DbError, Result, StoreError};
pub use migrations::SCHEMA_VERSION;
pub use pg::is_url;
pub use settings::{ServerSetting, UserSetting};
