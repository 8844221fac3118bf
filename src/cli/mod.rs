//! The command line: its arguments (`args.rs`) and entry (`run.rs`, which `src/main.rs`
//! calls), the commands run from it (`run_game.rs`, `run_store.rs`, `run_bot.rs`, with the
//! log set up in `logging.rs`), and the tools on top of the engine: the `engine` and `ai` JSON
//! contracts, `export`, `pair` (tournament pairings) and benchmarks.

#[macro_use]
mod output;

pub mod ai;
pub mod analyse;
mod args;
pub mod bench;
pub mod bench_ai;
pub mod bench_discord;
pub mod bench_pair;
pub mod bench_processes;
pub mod bench_web;
pub mod engine;
mod event_export;
pub mod export;
pub mod ladder;
pub mod league;
mod logging;
pub mod pair;
pub mod run;
mod run_bot;
mod run_game;
mod run_store;
pub mod tournament;
