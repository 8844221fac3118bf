//! `tara-bot tournament export|standings`: a stored tournament as a FIDE TRF-16 file, or its
//! standings as JSON lines (the machine contracts in docs/cli.md).

use crate::bot::{report_error, standing_lines, trf_text, StandingLine};
use crate::store::{Store, TournamentId};

/// A stored tournament's standings, best first.
pub fn tournament_standings(
    store: &mut Store,
    id: TournamentId,
) -> Result<Vec<StandingLine>, String> {
    store
        .read(|tx| standing_lines(tx, id))
        .map_err(|e| report_error(e, id))
}

/// A stored tournament as a FIDE TRF-16 file.
pub fn tournament_trf(store: &mut Store, id: TournamentId) -> Result<String, String> {
    store
        .read(|tx| trf_text(tx, id))
        .map_err(|e| report_error(e, id))
}

/// The tournament `id` as TRF-16 text (`XXR` gives its number of rounds).
pub fn export(store: &mut Store, id: TournamentId) -> Result<String, String> {
    tournament_trf(store, id)
}

/// The standings of tournament `id`, best first: with `json`, one JSON object per player
/// (`rank`, `player`, `id`, `score`, `buchholz_cut1`, `buchholz`, `sonneborn_berger`, `wins`,
/// `rating`); otherwise the same fields separated by tabs.
pub fn standings(store: &mut Store, id: TournamentId, json: bool) -> Result<Vec<String>, String> {
    let rows = tournament_standings(store, id)?;
    rows.iter()
        .map(|r| {
            if json {
                serde_json::to_string(r).map_err(|e| e.to_string())
            } else {
                Ok(format!(
                    "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                    r.rank,
                    r.player,
                    r.id,
                    r.score,
                    r.buchholz_cut1,
                    r.buchholz,
                    r.sonneborn_berger,
                    r.wins,
                    r.rating
                ))
            }
        })
        .collect()
}
