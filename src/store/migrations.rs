//! The schema's migrations, embedded in the binary: each in SQLite's dialect and in
//! PostgreSQL's, side by side, run by one runner ([`migrate`]) on either backend.

use super::error::{DbError, Result, StoreError};

/// One migration: its name and its text for each backend. `migrations/NNNN_name.sql` is
/// SQLite's; `migrations/postgres/NNNN_name.sql` is PostgreSQL's, the same tables, columns and
/// constraints in PostgreSQL's types (a test compares the two schemas column by column).
pub(super) struct Migration {
    pub(super) name: &'static str,
    pub(super) sqlite: &'static str,
    pub(super) postgres: &'static str,
}

/// The [`Migration`] named `$name`, both texts embedded in the binary.
macro_rules! migration {
    ($name:literal) => {
        Migration {
            name: $name,
            sqlite: include_str!(concat!("../../migrations/", $name, ".sql")),
            postgres: include_str!(concat!("../../migrations/postgres/", $name, ".sql")),
        }
    };
}

/// The migrations, in order; a database records how many it has (SQLite: `PRAGMA
/// user_version`; PostgreSQL: its meta table), and [`migrate`] applies the rest.
pub(super) const MIGRATIONS: &[Migration] = &[
    migration!("0001_init"),
    migration!("0002_clocks"),
    migration!("0003_seats_tournaments_ratings"),
    migration!("0004_outbox"),
    migration!("0005_clock_restore"),
    migration!("0006_challenge_expiry"),
    migration!("0007_audit"),
    migration!("0008_ratings"),
    migration!("0009_lobby"),
    migration!("0010_tournament_play"),
    migration!("0011_analyses"),
    migration!("0012_audit_markdown"),
    migration!("0013_leases"),
    migration!("0014_notes"),
    migration!("0015_conditionals"),
    migration!("0016_leagues_ladders"),
    migration!("0017_shared_threads"),
    migration!("0018_match_games"),
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
    /// Applies one migration (its text in this backend's dialect).
    fn apply(&mut self, migration: &Migration) -> std::result::Result<(), DbError>;
    /// Records that the database has `version` migrations.
    fn record(&mut self, version: i64) -> Result<()>;
}

/// The migration runner of both backends: applies the migrations `schema` lacks, in order,
/// and records the new version, all within the backend's one transaction (a failed upgrade
/// leaves the database as it was). Refuses a database newer than this build.
pub(super) fn migrate(schema: &mut impl Schema) -> Result<()> {
    for migration in pending(schema.applied()?)? {
        schema
            .apply(migration)
            .map_err(|source| StoreError::Migration {
                name: migration.name,
                source,
            })?;
    }
    schema.record(SCHEMA_VERSION)
}

/// The migrations a database of schema `version` lacks; a newer schema is refused.
fn pending(version: i64) -> Result<&'static [Migration]> {
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
