//! The integration tests, one module a file of `tests/`, in one test binary (one link of the
//! library instead of one a file; `cargo test --release --test integration NAME` runs some).
//! The PostgreSQL tests are the other binary, `tests/postgres.rs`.

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
