//! The tests of `leagues.rs`, run on PostgreSQL (`common::on_postgres`): skipped, saying so,
//! when `TARA_BOT_TEST_POSTGRES` is not set.

#[path = "leagues.rs"]
mod tests;
