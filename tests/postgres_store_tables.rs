//! The tests of `store_tables.rs`, run on PostgreSQL (`common::on_postgres`): skipped, saying so,
//! when `TARA_BOT_TEST_POSTGRES` is not set.

#[path = "store_tables.rs"]
mod tests;
