//! The ten files of `tests/flows/` (`flows.rs` runs them on SQLite) run again on PostgreSQL
//! (`common::on_postgres`: their helpers are inside this module): built only when
//! `TARA_BOT_TEST_POSTGRES` is set (`build.rs`). Each test has a schema of its own
//! (`common::new_db`).

#[path = "flows.rs"]
mod flows;
