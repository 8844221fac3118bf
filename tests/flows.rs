//! Whole flows through the bot core on SQLite, the ten files of `tests/flows/` as modules
//! (`postgres_suite.rs` runs the same files on PostgreSQL): games and commands
//! (`bot_flows`), conditional moves, ladders, leagues, leases, notes, ratings, reliability
//! (kills and concurrency), the store's tables, and tournaments.

// Each file declares `mod common;` for itself (`postgres_suite` includes them too): the
// helpers are compiled once a file, which is what lets the files stay as they are.
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
