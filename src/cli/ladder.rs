//! `tara-bot ladder export`: the stored ladders with their players in rank order and their
//! games (the machine contract in docs/cli.md).

use super::event_export::{events, json_lines};
use crate::store::{LadderId, Store, StoreError, Tx};
use serde::Serialize;

/// One ladder as `ladder export --json` writes it (one object per line).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LadderExport {
    pub id: i64,
    pub server: String,
    pub name: String,
    pub variant: String,
    /// As `engine` and `export` give it: `null` for Ard Rí, which has no scoring.
    pub scoring: Option<String>,
    /// Days per move; `null` for no clock.
    pub days_per_move: Option<u32>,
    pub rated: bool,
    /// `open` or `closed`.
    pub status: String,
    /// Top first.
    pub players: Vec<LadderPlayerExport>,
    /// Oldest first.
    pub games: Vec<LadderGameExport>,
}

/// A ladder's player.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LadderPlayerExport {
    pub rank: u32,
    pub id: String,
    pub name: String,
    /// When they joined (ms since the Unix epoch).
    pub joined_at: i64,
}

/// A ladder game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LadderGameExport {
    /// The game's number (`#123`), `null` only if its creation failed.
    pub game: Option<i64>,
    pub challenger: String,
    pub defender: String,
    /// `challenger`, `defender`, `draw`, `aborted`; `null` while in progress.
    pub result: Option<String>,
    pub started_at: i64,
    pub ended_at: Option<i64>,
}

fn export_one(tx: &Tx, l: crate::store::LadderRow) -> Result<LadderExport, StoreError> {
    let name = |u: &crate::store::UserId| -> Result<String, StoreError> {
        Ok(tx.user_name(u)?.unwrap_or_else(|| u.to_string()))
    };
    let players = tx
        .ladder_players(l.id)?
        .into_iter()
        .map(|p| {
            Ok(LadderPlayerExport {
                rank: p.rank,
                name: name(&p.user_id)?,
                id: p.user_id.to_string(),
                joined_at: p.joined_at,
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    let games = tx
        .ladder_games(l.id, false)?
        .into_iter()
        .map(|g| LadderGameExport {
            game: g.game_id.map(|id| id.0),
            challenger: g.challenger_id.to_string(),
            defender: g.defender_id.to_string(),
            result: g.result.map(|r| r.id().to_string()),
            started_at: g.created_at,
            ended_at: g.ended_at,
        })
        .collect();
    Ok(LadderExport {
        id: l.id.0,
        server: l.server_id.to_string(),
        name: l.name,
        variant: l.variant.id().to_string(),
        scoring: l.variant.is_tara().then(|| l.scoring.id().to_string()),
        days_per_move: l.days_per_move,
        rated: l.rated,
        status: l.status.id().to_string(),
        players,
        games,
    })
}

/// Every ladder (or only `id`), oldest first.
pub fn ladders(store: &mut Store, id: Option<LadderId>) -> Result<Vec<LadderExport>, String> {
    events(
        store,
        ("ladder", id),
        |tx, id| tx.ladder(id),
        |tx| tx.all_ladders(),
        export_one,
    )
}

/// `ladder export`: with `json`, one JSON object per ladder; otherwise one tab-separated line
/// per player: the ladder's number, its name, the rank, the player's name and id.
pub fn export(store: &mut Store, id: Option<LadderId>, json: bool) -> Result<Vec<String>, String> {
    let all = ladders(store, id)?;
    if json {
        return json_lines(&all);
    }
    Ok(all
        .iter()
        .flat_map(|l| {
            l.players
                .iter()
                .map(move |p| format!("{}\t{}\t{}\t{}\t{}", l.id, l.name, p.rank, p.name, p.id))
        })
        .collect())
}
