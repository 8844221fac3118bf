//! Matches: two games between the same players, each starting one, points added.

use super::db::{Cols, Result, Tx};
use super::games::GameRow;
use super::value::params;
use crate::game::{Points, Scoring, Variant};
use crate::ids::*;

/// The points of a match's two players, `first`'s first, added over the finished games of
/// `games` (a match's or a tournament pairing's games; unfinished ones count nothing).
pub fn match_totals<'a>(
    games: impl IntoIterator<Item = &'a GameRow>,
    first: &UserId,
) -> [Points; 2] {
    let mut totals = [Points(0); 2];
    for g in games {
        if let Some(o) = &g.outcome {
            for seat in g.sides() {
                let who = usize::from(g.seats[seat] != *first);
                totals[who] = totals[who] + o.points[seat];
            }
        }
    }
    totals
}

/// A stored match of two games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchRow {
    /// Its id.
    pub id: MatchId,
    /// The challenger and the opponent.
    pub players: [UserId; 2],
    /// The game.
    pub variant: Variant,
    /// The scoring.
    pub scoring: Scoring,
    /// Whether both games have ended.
    pub finished: bool,
}

impl MatchRow {
    fn from_row(c: &Cols) -> Result<MatchRow> {
        Ok(MatchRow {
            id: c.get("id")?,
            players: [c.get("player0_id")?, c.get("player1_id")?],
            variant: c.parse("variant", "a variant", |s| s.parse().ok())?,
            scoring: c.parse("scoring", "a scoring", |s| s.parse().ok())?,
            finished: c.parse("status", "a match status", |s| match s {
                "active" => Some(false),
                "finished" => Some(true),
                _ => None,
            })?,
        })
    }
}

impl Tx<'_> {
    /// Records a new match; its id.
    pub fn insert_match(
        &self,
        server_id: &ServerId,
        channel_id: &ChannelId,
        players: [&UserId; 2],
        variant: Variant,
        scoring: Scoring,
        now: i64,
    ) -> Result<MatchId> {
        self.insert(
            "INSERT INTO matches (server_id, channel_id, player0_id, player1_id, variant, scoring,
               status, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, 'active', $7, $7)",
            params![
                server_id,
                channel_id,
                players[0],
                players[1],
                variant.id(),
                scoring.id(),
                now
            ],
        )
        .map(MatchId)
    }

    /// A match by id.
    pub fn match_row(&self, id: MatchId) -> Result<Option<MatchRow>> {
        self.first(
            "matches",
            "SELECT * FROM matches WHERE id = $1",
            params![id],
            MatchRow::from_row,
        )
    }

    /// Marks a match as over.
    pub fn finish_match(&self, id: MatchId, now: i64) -> Result<()> {
        self.exec(
            "UPDATE matches SET status = 'finished', updated_at = $2 WHERE id = $1",
            params![id, now],
        )?;
        Ok(())
    }

    /// The games of a match, in order.
    pub fn match_games(&self, match_id: MatchId) -> Result<Vec<GameRow>> {
        self.game_where("match_id = $1 ORDER BY id", params![match_id])
    }
}
