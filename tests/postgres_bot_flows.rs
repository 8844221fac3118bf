//! The tests of `bot_flows.rs`, run on PostgreSQL (`common::on_postgres`): skipped, saying so, when
//! `TARA_BOT_TEST_POSTGRES` is not set.

#[path = "bot_flows.rs"]
mod tests;
