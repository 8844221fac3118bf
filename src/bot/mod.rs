//! The platform-agnostic bot: a [`Command`] from a user in a channel goes in, [`Reply`]s come
//! out. It knows nothing of Discord or terminals; adapters turn replies into messages.
//!
//! Every command that changes anything does so in one SQLite transaction, and a move is
//! appended only if it is legal in the position rebuilt inside that transaction. Board images
//! are drawn after the transaction has committed.
//!
//! Layout, bottom up (no module uses one above it):
//! - `reply`, `time`: what goes in and out (users, contexts, replies), the clock and time
//!   controls; `text`: message building; `options`: typed command options;
//! - `session`: the [`Bot`], loading games, creating games and starting turns;
//! - capabilities: `matches` (a game's end and its match), `clocks` (reminders, timeouts,
//!   vacations, settings), `lobby` (challenges), `play` (moves, resign, abort, takebacks),
//!   `info` (boards, records, status, rules, autocomplete);
//! - `commands`: the table of commands and the dispatch to their handlers.

mod clocks;
pub mod commands;
mod info;
mod lobby;
mod matches;
pub mod options;
mod play;
pub mod reply;
mod session;
pub mod text;
pub mod time;

pub use clocks::Reminders;
pub use commands::{Command, CommandSpec};
pub use info::rank_moves;
pub use play::TakebackAnswer;
pub use reply::{Attachment, Button, ButtonStyle, Ctx, Part, Reply, User};
pub use session::Bot;
pub use time::{Clock, ManualClock, OffsetClock, SystemClock, TimeControl};
