//! Tournaments (docs/rules.md §10) in the bot: the subcommands of `/tournament`, and the runner
//! that opens each round's games in their threads, records every result in the transaction
//! that ends the game, and pairs or starts the next round there, exactly once.
//!
//! The runner is written per system around one question, "which pairings come next, given the
//! results so far": a round robin reads its Berger table (stored whole at the start), a
//! knockout its bracket, a Swiss the FIDE Dutch system on the tournament as a TRF-16 file
//! ([`model::swiss_trf`]).
//!
//! The parts use each other one way, top down: the commands ([`commands`], [`views`]), the
//! runner ([`results`], [`runner`]), the presentation ([`presentation`]) and the model read
//! from the store with its TRF-16 mapping ([`model`]).

pub(crate) mod commands;
pub(crate) mod model;
pub(crate) mod presentation;
pub(crate) mod results;
pub(crate) mod runner;
pub(crate) mod views;

pub(crate) use commands::{
    creating, creator_role_text, event_name, event_scoring, organiser_only, parse_role,
    set_creator_role, start_division,
};
pub use commands::{CreateOptions, TournamentSystem};
pub use model::StandingLine;
pub(crate) use model::{report_error, standing_lines, trf_text, THREADS_AT_ONCE};
pub(crate) use presentation::{division_standings, tournament_picture, tournament_view};
pub use presentation::{PairingView, TournamentView};
pub(crate) use results::game_ended;
pub(crate) use runner::thread_request_of;
