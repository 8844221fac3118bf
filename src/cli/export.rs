//! `tara-bot export`: every finished game as one JSON line, oldest first (the data portability
//! contract in docs/cli.md).

use super::engine::{result_json, ResultJson};
use crate::game::{Position, Side};
use crate::store::{GameId, GameRow, ServerId, Store, StoreError};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use std::io::Write;

/// Games read per transaction.
const PAGE: u32 = 500;

/// One exported game.
#[derive(Serialize)]
struct GameJson {
    id: i64,
    server: String,
    variant: &'static str,
    /// As `engine` prints it: `null` for Ard Rí, which has no scoring.
    scoring: Option<&'static str>,
    first: &'static str,
    players: Sides<String>,
    moves: String,
    result: ResultJson,
    rated: bool,
    ended_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    ratings: Option<Sides<Change>>,
}

/// A value per side, written as a JSON object keyed by side in seat order (`red` before `blue`,
/// `attackers` before `defenders`), as docs/cli.md shows it.
struct Sides<T>(Vec<(&'static str, T)>);

impl<T: Serialize> Serialize for Sides<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (side, value) in &self.0 {
            map.serialize_entry(side, value)?;
        }
        map.end()
    }
}

/// A player's rating, deviation and volatility before and after a rated game.
#[derive(Serialize)]
struct Change {
    before: [f64; 3],
    after: [f64; 3],
}

/// A time in ms as RFC 3339 in UTC, to the second: `2026-11-30T18:32:05Z`.
pub fn rfc3339(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
}

/// Writes every finished game (of `server`, or all) to `out`, one JSON object per line, in
/// the order they ended; the number written.
pub fn export(
    store: &mut Store,
    server: Option<&ServerId>,
    out: &mut dyn Write,
) -> anyhow::Result<u64> {
    let mut after = (i64::MIN, GameId(i64::MIN));
    let mut written = 0;
    loop {
        let page = store.read(|tx| -> Result<Vec<String>, anyhow::Error> {
            let games = tx.finished_games_after(server, after, PAGE)?;
            let mut lines = Vec::with_capacity(games.len());
            for g in &games {
                let moves = tx.moves(g.id)?;
                let changes = tx.rating_changes_of_game(g.id)?;
                lines.push(serde_json::to_string(&game_json(g, &moves, &changes)?)?);
                after = (g.ended_at.unwrap_or(0), g.id);
            }
            Ok(lines)
        })?;
        if page.is_empty() {
            return Ok(written);
        }
        for l in &page {
            writeln!(out, "{l}")?;
        }
        written += page.len() as u64;
    }
}

/// A game as its export object.
fn game_json(
    g: &GameRow,
    moves: &[crate::store::MoveRow],
    changes: &[crate::store::RatingChangeRow],
) -> anyhow::Result<GameJson> {
    let corrupt = |what: String| StoreError::Corrupt(format!("game {}: {what}", g.id.0));
    let mut pos = Position::new(g.options);
    let mut played = Vec::with_capacity(moves.len());
    for m in moves {
        let mv = pos
            .play_text(&m.notation)
            .map_err(|e| corrupt(format!("ply {} ({}): {e}", m.ply, m.notation)))?;
        played.push(mv.to_string());
    }
    let sides: [Side; 2] = g.options.variant.sides();
    let outcome = g
        .outcome
        .as_ref()
        .ok_or_else(|| corrupt("finished without a result".into()))?;
    let players = Sides(
        sides
            .iter()
            .map(|&side| (side.id(), g.seats[side].to_string()))
            .collect(),
    );
    // In seat order, whatever order the changes were stored in.
    let ratings = (!changes.is_empty()).then(|| {
        Sides(
            sides
                .iter()
                .filter_map(|&side| {
                    let c = changes
                        .iter()
                        .find(|c| g.seat_of(&c.user_id) == Some(side))?;
                    Some((
                        side.id(),
                        Change {
                            before: [c.before_rating, c.before_rd, c.before_volatility],
                            after: [c.after_rating, c.after_rd, c.after_volatility],
                        },
                    ))
                })
                .collect(),
        )
    });
    Ok(GameJson {
        id: g.id.0,
        server: g.server_id.to_string(),
        variant: g.options.variant.id(),
        scoring: g.options.variant.is_tara().then(|| g.options.scoring.id()),
        first: g.options.first.id(),
        players,
        moves: played.join(" "),
        result: result_json(sides, outcome),
        rated: g.rated,
        ended_at: rfc3339(g.ended_at.unwrap_or(g.updated_at)),
        ratings,
    })
}
