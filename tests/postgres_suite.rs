//! The ten files of `tests/flows/` (`flows.rs` runs them on SQLite) run again on PostgreSQL
//! (`common::on_postgres`: this module is in the `postgres` test binary): skipped, saying so,
//! when `TARA_BOT_TEST_POSTGRES` is not set. Each test has a schema of its own
//! (`common::new_db`).

#[path = "flows.rs"]
mod flows;
