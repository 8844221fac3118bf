//! The platform-agnostic bot: a [`Command`] from a user in a channel goes in, [`Reply`]s come
//! out. It knows nothing of Discord or terminals; adapters turn replies into messages.
//!
//! Every command that changes anything does so in one store transaction (SQLite or
//! PostgreSQL), and a move is
//! appended only if it is legal in the position rebuilt inside that transaction. Every message
//! the change owes (each reply that is not private, with its board image) is stored in the
//! outbox in that same transaction; the adapter delivers it after the commit and reports it
//! sent, and whatever is left unsent (a crash, an outage) is delivered later from the outbox.
//!
//! Layout, bottom up (no module uses one above it; `tests/architecture.rs` checks the
//! capabilities' uses, imports and calls, against the edges it declares):
//! - the foundation: `reply`, `time`: what goes in and out (users, contexts, replies), the
//!   clock and time controls; `buttons`: what a button's press asks for, written as its id
//!   and read back; `text`: message building; `options`: typed command options; `outbox`:
//!   replies stored as owed messages and read back; `session`: the [`Bot`] (store, clock,
//!   lots), the `Session` of a change, loading and creating games, starting turns, and the
//!   types of the `GameEnded` event; `lifecycle`: a game's end stored and `GameEnded` raised,
//!   once, through the subscribers;
//! - capabilities, each a set of functions: `matches` (a game's end for its match), `clocks`
//!   (reminders, timeouts, vacations), `lobby` (challenges, rematches), `play` (moves,
//!   resign, abort, takebacks), `info` (boards, records, status, rules, autocomplete),
//!   `delivery` (what the adapters report sent or failed, and what is still owed),
//!   `moderation` (the audit log), `discussion` (analysis marks and arrows, `/position`),
//!   `archive` (replays, exported records, `/history`), `draws` (draw offers), `live` (the
//!   server's games in progress), `ratings` (Glicko-2 after each rated game, `/leaderboard`,
//!   `/profile`), `ai_games` (`/play-ai`, the games the AI is to move in, and playing the move
//!   an adapter's search found), `analysis` (`/analyse`), `tournaments` (in parts),
//!   `settings` (`/settings`), `public` (what anyone may read of a server on the web: the web
//!   companion's reads);
//! - the entry points: `commands` (the table of commands and the dispatch to their handlers)
//!   and `entry` (making a bot with the list of `GameEnded`'s subscribers, and the tick).

mod ai_games;
mod analysis;
mod archive;
mod board;
pub mod buttons;
mod clocks;
pub mod commands;
mod conditionals;
mod delivery;
mod digest;
mod discussion;
mod draws;
mod entry;
mod info;
mod ladders;
mod leagues;
mod lifecycle;
mod live;
mod lobby;
mod matches;
mod moderation;
mod notes;
pub mod options;
pub(crate) mod outbox;
mod play;
mod public;
mod ratings;
pub mod reply;
mod session;
mod settings;
pub mod text;
pub mod time;
mod tournaments;

pub use crate::store::EditTarget;
pub use ai_games::{AiTurn, DEFAULT_AI_LEVEL};
pub use analysis::{AnalysisJob, DEFAULT_ANALYSIS_LEVEL};
pub use board::BoardSpec;
pub use buttons::{Dialog, Press};
pub use clocks::Reminders;
pub use commands::{Command, CommandSpec};
pub(crate) use discussion::{read_notes, Notes};
pub use draws::DrawAnswer;
pub use info::rank_moves;
pub(crate) use ladders::ladder_view;
pub use ladders::LadderView;
pub(crate) use leagues::{division_picture, league_view};
pub use leagues::{DivisionView, LeagueView};
pub use moderation::AuditLog;
pub use outbox::{DELIVERY_LEASE_MS, IN_FLIGHT_MS};
pub use play::TakebackAnswer;
/// What anyone may read of a server that is on the web (the web companion's reads).
pub(crate) use public::{
    public_game, public_game_plies, public_ladder, public_league, public_player,
    public_server_games, public_tournament,
};
pub(crate) use ratings::rate;
pub use ratings::PlayerView;
pub(crate) use ratings::{leaderboards, shown_with_rd};
pub use reply::{
    code_block, escape_code, escape_markdown, Attachment, Button, ButtonStyle, Ctx, Document,
    LinkButton, OnTheWeb, Part, Reply, Retire, ThreadRequest, User, WebPage, OPEN_ON_THE_WEB,
};
pub use session::{console_clock_offset, Bot};
/// The names and the positions of stored games, as the bot shows them (the web companion
/// shows the same).
pub(crate) use session::{names, replay, Fail};
pub use time::{Clock, ManualClock, OffsetClock, SystemClock, TimeControl};
pub(crate) use tournaments::{
    report_error, standing_lines, tournament_picture, tournament_view, trf_text,
};
pub use tournaments::{PairingView, TournamentView};
pub use tournaments::{StandingLine, TournamentSystem};
