//! `tara-bot league export`: the stored leagues with their players and each season's
//! divisions, places and movements (the machine contract in docs/cli.md).

use super::event_export::{events, json_lines};
use crate::store::{LeagueId, Store, StoreError, Tx, UserId};
use serde::Serialize;

/// One league as `league export --json` writes it (one object per line).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LeagueExport {
    pub id: i64,
    pub server: String,
    pub name: String,
    pub variant: String,
    pub scoring: String,
    pub days_per_move: Option<u32>,
    pub rated: bool,
    #[serde(rename = "match")]
    pub is_match: bool,
    pub division_size: u32,
    pub promote: u32,
    pub relegate: u32,
    pub gap_days: u32,
    /// `open`, `running` or `closed`.
    pub status: String,
    /// The latest season begun (0: none).
    pub season: u32,
    /// When the next season starts (ms since the Unix epoch), once the last has ended.
    pub next_season_at: Option<i64>,
    /// In the order they joined, those who left included.
    pub players: Vec<LeaguePlayerExport>,
    /// Oldest first.
    pub seasons: Vec<SeasonExport>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LeaguePlayerExport {
    pub id: String,
    pub name: String,
    pub joined_at: i64,
    /// Leaves at the end of the season in progress.
    pub leaving: bool,
    pub left_at: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeasonExport {
    pub season: u32,
    /// Whether every division's last game has ended.
    pub ended: bool,
    /// By level, then name.
    pub divisions: Vec<DivisionExport>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DivisionExport {
    pub division: String,
    pub level: u32,
    /// The tournament that plays it (`tara-bot tournament standings` reads it).
    pub tournament: i64,
    /// In final standings order once the season has ended, else by seed.
    pub players: Vec<DivisionPlayerExport>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DivisionPlayerExport {
    pub id: String,
    pub name: String,
    /// The final place, once the season has ended.
    pub place: Option<u32>,
    /// `up`, `stay`, `down` or `out`, once the season has ended.
    pub movement: Option<String>,
}

fn name(tx: &Tx, u: &UserId) -> Result<String, StoreError> {
    Ok(tx.user_name(u)?.unwrap_or_else(|| u.to_string()))
}

fn export_one(tx: &Tx, l: crate::store::LeagueRow) -> Result<LeagueExport, StoreError> {
    let players = tx
        .league_players(l.id)?
        .into_iter()
        .map(|p| {
            Ok(LeaguePlayerExport {
                name: name(tx, &p.user_id)?,
                id: p.user_id.to_string(),
                joined_at: p.joined_at,
                leaving: p.leaving,
                left_at: p.left_at,
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    let results = tx.league_results(l.id)?;
    let mut seasons: Vec<SeasonExport> = Vec::new();
    for d in tx.league_divisions(l.id, None)? {
        let ended: Vec<_> = results
            .iter()
            .filter(|r| r.season == d.season && r.division == d.division)
            .collect();
        let members = if ended.is_empty() {
            let mut e = tx.entrants(d.tournament_id)?;
            e.sort_by_key(|e| (e.seed.unwrap_or(u32::MAX), e.signup));
            e.into_iter()
                .map(|e| {
                    Ok(DivisionPlayerExport {
                        name: name(tx, &e.user_id)?,
                        id: e.user_id.to_string(),
                        place: None,
                        movement: None,
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()?
        } else {
            ended
                .iter()
                .map(|r| {
                    Ok(DivisionPlayerExport {
                        name: name(tx, &r.user_id)?,
                        id: r.user_id.to_string(),
                        place: Some(r.place),
                        movement: Some(r.movement.id().to_string()),
                    })
                })
                .collect::<Result<Vec<_>, StoreError>>()?
        };
        let division = DivisionExport {
            division: d.division.clone(),
            level: d.level,
            tournament: d.tournament_id.0,
            players: members,
        };
        match seasons.last_mut().filter(|s| s.season == d.season) {
            Some(s) => s.divisions.push(division),
            None => seasons.push(SeasonExport {
                season: d.season,
                ended: results.iter().any(|r| r.season == d.season),
                divisions: vec![division],
            }),
        }
    }
    Ok(LeagueExport {
        id: l.id.0,
        server: l.server_id.to_string(),
        name: l.name,
        variant: l.variant.id().to_string(),
        scoring: l.scoring.id().to_string(),
        days_per_move: l.days_per_move,
        rated: l.rated,
        is_match: l.is_match,
        division_size: l.division_size,
        promote: l.promote,
        relegate: l.relegate,
        gap_days: l.gap_days,
        status: l.status.id().to_string(),
        season: l.season,
        next_season_at: l.next_season_at,
        players,
        seasons,
    })
}

/// Every league (or only `id`), oldest first.
pub fn leagues(store: &mut Store, id: Option<LeagueId>) -> Result<Vec<LeagueExport>, String> {
    events(
        store,
        ("league", id),
        |tx, id| tx.league(id),
        |tx| tx.all_leagues(),
        export_one,
    )
}

/// `league export`: with `json`, one JSON object per league; otherwise one tab-separated line
/// per player and division: the league's number, the season, the division, the place (empty
/// while the season is played), the player's name and id, and the movement (empty likewise).
pub fn export(store: &mut Store, id: Option<LeagueId>, json: bool) -> Result<Vec<String>, String> {
    let all = leagues(store, id)?;
    if json {
        return json_lines(&all);
    }
    let mut lines = Vec::new();
    for l in &all {
        for s in &l.seasons {
            for d in &s.divisions {
                for p in &d.players {
                    lines.push(format!(
                        "{}\t{}\t{}\t{}\t{}\t{}\t{}",
                        l.id,
                        s.season,
                        d.division,
                        p.place.map_or(String::new(), |x| x.to_string()),
                        p.name,
                        p.id,
                        p.movement.clone().unwrap_or_default()
                    ));
                }
            }
        }
    }
    Ok(lines)
}
