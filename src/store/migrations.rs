//! The schema's migrations, embedded in the binary: written once (in SQLite's dialect) and run
//! by one runner ([`migrate`]) on either backend (PostgreSQL's reads them through `pg::ddl`).

use super::error::{DbError, Result, StoreError};

/// The migrations, in order; a database records how many it has (SQLite: `PRAGMA
/// user_version`; PostgreSQL: its meta table), and [`migrate`] applies the rest.
pub(super) const MIGRATIONS: &[(&str, &str)] = &[
    ("0001_init", include_str!("../../migrations/0001_init.sql")),
    (
        "0002_clocks",
        include_str!("../../migrations/0002_clocks.sql"),
    ),
    (
        "0003_seats_tournaments_ratings",
        include_str!("../../migrations/0003_seats_tournaments_ratings.sql"),
    ),
    (
        "0004_outbox",
        include_str!("../../migrations/0004_outbox.sql"),
    ),
    (
        "0005_clock_restore",
        include_str!("../../migrations/0005_clock_restore.sql"),
    ),
    (
        "0006_challenge_expiry",
        include_str!("../../migrations/0006_challenge_expiry.sql"),
    ),
    (
        "0007_audit",
        include_str!("../../migrations/0007_audit.sql"),
    ),
    (
        "0008_ratings",
        include_str!("../../migrations/0008_ratings.sql"),
    ),
    (
        "0009_lobby",
        include_str!("../../migrations/0009_lobby.sql"),
    ),
    (
        "0010_tournament_play",
        include_str!("../../migrations/0010_tournament_play.sql"),
    ),
    (
        "0011_analyses",
        include_str!("../../migrations/0011_analyses.sql"),
    ),
    (
        "0012_audit_markdown",
        include_str!("../../migrations/0012_audit_markdown.sql"),
    ),
    (
        "0013_leases",
        include_str!("../../migrations/0013_leases.sql"),
    ),
    (
        "0014_notes",
        include_str!("../../migrations/0014_notes.sql"),
    ),
    (
        "0015_conditionals",
        include_str!("../../migrations/0015_conditionals.sql"),
    ),
    (
        "0016_leagues_ladders",
        include_str!("../../migrations/0016_leagues_ladders.sql"),
    ),
    (
        "0017_shared_threads",
        include_str!("../../migrations/0017_shared_threads.sql"),
    ),
];

/// The schema version this build writes: the number of migrations it knows.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Every table of the schema, in an order that inserts a row after the rows it refers to
/// (but a pairing's game: a pairing refers to its game and a game to its pairing), each with
/// the columns of its primary key.
pub(super) const TABLES: &[(&str, &str)] = &[
    ("users", "id"),
    ("matches", "id"),
    ("tournaments", "id"),
    ("tournament_pairings", "id"),
    ("tournament_players", "tournament_id, user_id"),
    ("games", "id"),
    ("moves", "game_id, ply"),
    ("challenges", "id"),
    ("takebacks", "game_id"),
    ("draw_offers", "game_id"),
    ("user_settings", "user_id, key"),
    ("server_settings", "server_id, key"),
    ("vacations", "id"),
    ("outbox", "id"),
    ("audit", "id"),
    ("ratings", "server_id, game, user_id"),
    ("rating_changes", "game_id, user_id"),
    ("analyses", "id"),
    ("notes", "game_id, user_id"),
    ("conditionals", "game_id, user_id, seq"),
    ("ladders", "id"),
    ("ladder_players", "ladder_id, user_id"),
    ("ladder_games", "id"),
    ("leagues", "id"),
    ("league_players", "league_id, user_id"),
    ("league_divisions", "league_id, season, division"),
    ("league_results", "league_id, season, user_id"),
];

/// A database's schema as the migration runner sees it, inside the transaction its backend
/// opened (and locked) for the upgrade: how many migrations it has, one applied in the
/// backend's own dialect, and the new count recorded.
pub(super) trait Schema {
    /// How many migrations the database has.
    fn applied(&mut self) -> Result<i64>;
    /// Applies one migration (its text as written, in SQLite's dialect).
    fn apply(&mut self, sql: &str) -> std::result::Result<(), DbError>;
    /// Records that the database has `version` migrations.
    fn record(&mut self, version: i64) -> Result<()>;
}

/// The migration runner of both backends: applies the migrations `schema` lacks, in order,
/// and records the new version, all within the backend's one transaction (a failed upgrade
/// leaves the database as it was). Refuses a database newer than this build.
pub(super) fn migrate(schema: &mut impl Schema) -> Result<()> {
    for (name, sql) in pending(schema.applied()?)? {
        schema
            .apply(sql)
            .map_err(|source| StoreError::Migration { name, source })?;
    }
    schema.record(SCHEMA_VERSION)
}

/// The migrations a database of schema `version` lacks; a newer schema is refused.
fn pending(version: i64) -> Result<&'static [(&'static str, &'static str)]> {
    if version > SCHEMA_VERSION {
        return Err(StoreError::TooNew {
            found: version,
            known: SCHEMA_VERSION,
        });
    }
    let applied = usize::try_from(version)
        .map_err(|_| StoreError::Corrupt(format!("schema version {version}")))?;
    Ok(&MIGRATIONS[applied..])
}
