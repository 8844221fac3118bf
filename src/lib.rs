//! tara-bot: a referee for High Kings of Tara, Tara: Sacred Hill and Ard Rí.
//!
//! Layers (see `docs/architecture.md`): [`game`] is the pure rules engine; [`tournament`] the pure
//! tournament rules (tables, brackets, tiebreaks, TRF, the Dutch system's parts); [`cli`] holds
//! the command-line tools built on them (`engine`, `export`, `pair`, `bench`).

pub mod ai;
pub mod ai_runner;
pub mod bot;
pub mod cli;
pub mod config;
pub mod console;
pub mod discord;
pub mod fake_discord;
pub mod game;
pub mod ids;
pub mod render;
pub mod store;
pub mod tournament;
pub mod web;
