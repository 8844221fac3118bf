//! Ten files' tests run again on PostgreSQL (`common::on_postgres`: this binary's name begins
//! with `postgres_`), all in this one test binary: skipped, saying so, when
//! `TARA_BOT_TEST_POSTGRES` is not set. Each test has a schema of its own (`common::new_db`).

// Each file declares `mod common;` as it does in its own SQLite binary: the helpers are
// compiled once a file here, which is what lets the files stay as they are.
#![allow(clippy::duplicate_mod)]

#[path = "bot_flows.rs"]
mod bot_flows;
#[path = "conditionals.rs"]
mod conditionals;
#[path = "ladders.rs"]
mod ladders;
#[path = "leagues.rs"]
mod leagues;
#[path = "leases.rs"]
mod leases;
#[path = "notes.rs"]
mod notes;
#[path = "ratings.rs"]
mod ratings;
#[path = "reliability.rs"]
mod reliability;
#[path = "store_tables.rs"]
mod store_tables;
#[path = "tournaments.rs"]
mod tournaments;
