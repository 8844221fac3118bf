//! The tests that run on PostgreSQL, in one test binary: the files of `tests/flows/` again
//! (`postgres_suite.rs`), the store's own PostgreSQL tests and several processes on one
//! database. Skipped, saying so, when `TARA_BOT_TEST_POSTGRES` is not set (outside CI).

#![allow(clippy::duplicate_mod)]

#[path = "postgres_processes.rs"]
mod postgres_processes;
#[path = "postgres_storage.rs"]
mod postgres_storage;
#[path = "postgres_suite.rs"]
mod postgres_suite;
