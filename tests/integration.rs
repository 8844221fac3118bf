//! The integration tests, one module a file of `tests/`, in one test binary (one link of the
//! library instead of one a file; `cargo test --release --test integration NAME` runs some).
//! The PostgreSQL tests (`postgres_suite`: the files of `tests/flows/` again on PostgreSQL;
//! `postgres_storage`; `postgres_processes`) are in it when `TARA_BOT_TEST_POSTGRES` names a
//! database at build time (`build.rs` turns on `cfg(postgres_tests)`), and run beside the rest.

// Several files declare `mod common;` for themselves: the helpers are compiled once a file,
// which is what lets the files stay as they are.
#![allow(clippy::duplicate_mod)]

#[path = "ai.rs"]
mod ai;
#[path = "ai_games.rs"]
mod ai_games;
#[path = "analysis.rs"]
mod analysis;
#[path = "architecture.rs"]
mod architecture;
#[path = "archive.rs"]
mod archive;
#[path = "browser.rs"]
mod browser;
#[path = "cards.rs"]
mod cards;
#[path = "cdp.rs"]
mod cdp;
#[path = "clocks.rs"]
mod clocks;
#[path = "digest.rs"]
mod digest;
#[path = "discord.rs"]
mod discord;
#[path = "engine_cli.rs"]
mod engine_cli;
#[path = "flows.rs"]
mod flows;
#[path = "hostile_names.rs"]
mod hostile_names;
#[path = "lifecycle.rs"]
mod lifecycle;
#[path = "lobby.rs"]
mod lobby;
#[path = "pairing.rs"]
mod pairing;
#[path = "perft.rs"]
mod perft;
#[path = "render.rs"]
mod render;
#[path = "rules_pages.rs"]
mod rules_pages;
#[path = "script_names.rs"]
mod script_names;
#[path = "stepping.rs"]
mod stepping;
#[path = "storage.rs"]
mod storage;
#[path = "tara_properties.rs"]
mod tara_properties;
#[path = "web.rs"]
mod web;
#[path = "web_links.rs"]
mod web_links;

#[cfg(postgres_tests)]
#[path = "postgres_processes.rs"]
mod postgres_processes;
#[cfg(postgres_tests)]
#[path = "postgres_storage.rs"]
mod postgres_storage;
#[cfg(postgres_tests)]
#[path = "postgres_suite.rs"]
mod postgres_suite;

/// Without `TARA_BOT_TEST_POSTGRES` the PostgreSQL tests are not built: said here, and an
/// error under CI, where `.ci/run` starts a server and sets it.
#[cfg(not(postgres_tests))]
#[test]
fn the_postgresql_tests_need_tara_bot_test_postgres() {
    use std::io::Write;
    assert!(
        std::env::var_os("CI").is_none(),
        "TARA_BOT_TEST_POSTGRES is not set under CI: .ci/run starts a PostgreSQL server and sets it"
    );
    // Straight to the process's stderr: the test harness captures `eprintln!`.
    let _ = writeln!(
        std::io::stderr(),
        "\nthe PostgreSQL tests: SKIPPED, they run on PostgreSQL and TARA_BOT_TEST_POSTGRES is \
         not set (.ci/run starts a throwaway server and sets it; or set it to \
         postgres://user@host:port/database of an empty database)"
    );
}
