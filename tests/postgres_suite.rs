//! The ten files of `tests/flows/` (`flows.rs` runs them on SQLite) run again on PostgreSQL
//! (`common::on_postgres`: this binary's name begins with `postgres_`), all in this one test
//! binary: skipped, saying so, when `TARA_BOT_TEST_POSTGRES` is not set. Each test has a
//! schema of its own (`common::new_db`).

// Each file declares `mod common;` for itself: the helpers are compiled once a file here,
// which is what lets the files stay as they are.
#![allow(clippy::duplicate_mod)]

#[path = "flows/bot_flows.rs"]
mod bot_flows;
#[path = "flows/conditionals.rs"]
mod conditionals;
#[path = "flows/ladders.rs"]
mod ladders;
#[path = "flows/leagues.rs"]
mod leagues;
#[path = "flows/leases.rs"]
mod leases;
#[path = "flows/notes.rs"]
mod notes;
#[path = "flows/ratings.rs"]
mod ratings;
#[path = "flows/reliability.rs"]
mod reliability;
#[path = "flows/store_tables.rs"]
mod store_tables;
#[path = "flows/tournaments.rs"]
mod tournaments;
