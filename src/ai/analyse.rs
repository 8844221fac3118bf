//! Post-game analysis: every position of a game searched once, so that each move can be
//! weighed against the search's own choice. Pure like the search: the caller bounds each
//! search (a budget of playouts, or a `stop` check for a clock) and hears of progress through
//! a callback.

use super::levels::{think, Level, Limit};
use super::mcts::{result_for, Found};
use crate::game::{Move, Position, Side};
use serde::{Deserialize, Serialize};

/// One move of the game, weighed.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReview {
    /// The move's number in the game, from 1.
    pub ply: usize,
    /// Who played it.
    pub side: Side,
    /// The move played.
    pub played: Move,
    /// The search's choice in the position before it.
    pub best: Move,
    /// The mover's expected score (0 to 1) after the search's choice (from a search of the
    /// position it makes, as for the move played; the same as `eval_played` when the move
    /// played was the choice).
    pub eval_best: f64,
    /// The mover's expected score after the move played (from a search of the position it
    /// made, or the result where it ended the game).
    pub eval_played: f64,
    /// Whether it was the only legal move (a forced pass, say).
    pub forced: bool,
}

impl MoveReview {
    /// What the move cost its player against the search's choice, in expected score (0 when
    /// it was the choice, was forced, or scored as well).
    pub fn loss(&self) -> f64 {
        if self.forced || self.played == self.best {
            0.0
        } else {
            (self.eval_best - self.eval_played).max(0.0)
        }
    }

    /// The move as an analysis's JSON writes it (`tara-bot analyse` and the stored analyses):
    /// the side's id, both moves in notation, the evaluations to three decimals.
    pub fn record(&self) -> ReviewRecord {
        ReviewRecord {
            ply: self.ply,
            side: self.side.id().to_string(),
            played: self.played.to_string(),
            best: self.best.to_string(),
            eval_played: round3(self.eval_played),
            eval_best: round3(self.eval_best),
        }
    }
}

/// A weighed move as text and numbers to three decimals ([`MoveReview::record`]); stored as
/// JSON with these field names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReviewRecord {
    pub ply: usize,
    pub side: String,
    pub played: String,
    pub best: String,
    pub eval_played: f64,
    pub eval_best: f64,
}

/// `x` to three decimals, as an analysis's JSON writes expected scores.
pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// A whole game weighed.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// The moves in order.
    pub moves: Vec<MoveReview>,
    /// The first seat's (Red's, or the attackers') expected score in each position, from
    /// the start (index 0) to after the last move.
    pub curve: Vec<f64>,
    /// Playouts made in all (the searches of the choices' positions too).
    pub playouts: u64,
}

impl Analysis {
    /// The `n` moves that cost their player most, largest first (ties: the earlier move);
    /// moves that cost nothing are left out.
    pub fn swings(&self, n: usize) -> Vec<&MoveReview> {
        let mut v: Vec<&MoveReview> = self.moves.iter().filter(|m| m.loss() > 0.0).collect();
        v.sort_by(|a, b| b.loss().total_cmp(&a.loss()).then(a.ply.cmp(&b.ply)));
        v.truncate(n);
        v
    }

    /// [`Analysis::curve`] to three decimals, as an analysis's JSON writes it.
    pub fn curve_record(&self) -> Vec<f64> {
        self.curve.iter().map(|&v| round3(v)).collect()
    }
}

/// The lowest level whose own budget can weigh moves for an analysis (1,000 playouts a
/// position): a search of level 1's 40 or level 2's 200 playouts is mostly chance, and an
/// analysis on it would call good moves blunders.
pub const LOWEST_ANALYSIS_LEVEL: u8 = 3;

/// Why an analysis at `level`, on the level's own budget, is refused (levels 1 and 2), if it is.
pub fn too_weak_to_judge(level: Level) -> Option<String> {
    (level.number() < LOWEST_ANALYSIS_LEVEL).then(|| {
        format!(
            "Level {level} searches too little to judge moves ({} playouts a position in the \
             Tara games, {} positions in Ard Rí): its numbers would be mostly chance. Analyse \
             at level 3 (the default), 4 or 5.",
            level.playouts().unwrap_or(0),
            level.positions().unwrap_or(0)
        )
    })
}

/// The weight of the points' split in a finished game's value, as the search's levels use it.
fn margin_weight() -> f64 {
    Level::MIN.settings(0, Limit::Level).margin_weight
}

/// The value of `pos` for `side`: its result when the game is over, else the search's
/// expected score for the side to move (turned round for the other side).
fn value_for(pos: &Position, found: Option<&Found>, side: Side) -> f64 {
    match (pos.outcome(), found, pos.to_move()) {
        (Some(o), _, _) => result_for(o, side, margin_weight()).1,
        (None, Some(f), Some(mover)) if mover == side => f.eval,
        (None, Some(f), Some(_)) => 1.0 - f.eval,
        // A position in progress is always searched.
        _ => 0.5,
    }
}

/// Weighs the game `moves` (legal, played from `start`) with `search` run once on every
/// position in progress (given the index of the position, 0 for the start, and the position),
/// and once more on the position the search's choice makes wherever that is not the move
/// played (given the index `n + 1 + i` for the choice in position `i` of a game of `n` moves).
/// `progress` hears `(positions searched, positions to search)` after each.
pub fn analyse_with(
    start: &Position,
    moves: &[Move],
    search: &mut dyn FnMut(usize, &Position) -> Option<Found>,
    progress: &mut dyn FnMut(usize, usize),
) -> Analysis {
    let mut positions = Vec::with_capacity(moves.len() + 1);
    let mut pos = start.clone();
    positions.push(pos.clone());
    for &m in moves {
        pos.play_unchecked(m);
        positions.push(pos.clone());
    }
    let total = positions.iter().filter(|p| p.outcome().is_none()).count();
    let mut found: Vec<Option<Found>> = Vec::with_capacity(positions.len());
    // The mover's value after the search's choice where it differs from the move played,
    // from a search of the position it makes, like the move played: the two are weighed
    // alike (the choice's own statistics at the root would flatter it).
    let mut alternative: Vec<Option<f64>> = vec![None; moves.len()];
    let mut extra = 0;
    let mut done = 0;
    for (i, p) in positions.iter().enumerate() {
        if p.outcome().is_some() {
            found.push(None);
            continue;
        }
        let f = search(i, p);
        if let (Some(f), Some(&played), Some(mover)) = (f.as_ref(), moves.get(i), p.to_move()) {
            if f.chosen != played && f.moves.len() > 1 {
                let mut after = p.clone();
                after.play_unchecked(f.chosen);
                let searched = match after.outcome() {
                    Some(_) => None,
                    None => search(positions.len() + i, &after),
                };
                extra += searched.as_ref().map_or(0, |s| s.playouts);
                alternative[i] = Some(value_for(&after, searched.as_ref(), mover));
            }
        }
        found.push(f);
        done += 1;
        progress(done, total);
    }
    let first = start.options().variant.sides()[0];
    let curve = positions
        .iter()
        .zip(&found)
        .map(|(p, f)| value_for(p, f.as_ref(), first))
        .collect();
    let playouts = extra + found.iter().flatten().map(|f| f.playouts).sum::<u64>();
    let reviews = moves
        .iter()
        .enumerate()
        .filter_map(|(i, &played)| {
            let before = &positions[i];
            let side = before.to_move()?;
            let f = found[i].as_ref()?;
            let eval_played = value_for(&positions[i + 1], found[i + 1].as_ref(), side);
            Some(MoveReview {
                ply: i + 1,
                side,
                played,
                best: f.chosen,
                eval_best: alternative[i].unwrap_or(eval_played),
                eval_played,
                forced: f.moves.len() == 1,
            })
        })
        .collect();
    Analysis {
        moves: reviews,
        curve,
        playouts,
    }
}

/// [`analyse_with`] searching every position at `level` within `limit`, the search of
/// position `i` seeded from `seed` and `i` (so the same game, level, budget and seed give the
/// same analysis); `stop` may end each search early (a clock per position).
pub fn analyse(
    start: &Position,
    moves: &[Move],
    level: Level,
    limit: Limit,
    seed: u64,
    stop: &mut dyn FnMut(usize) -> bool,
    progress: &mut dyn FnMut(usize, usize),
) -> Analysis {
    let mut search = |i: usize, p: &Position| {
        let s = seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        think(p, level, limit, s, &mut || stop(i))
    };
    analyse_with(start, moves, &mut search, progress)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::playout::{random_game, Rng};
    use crate::game::{GameOptions, Variant};

    fn quick(start: &Position, moves: &[Move], level: u8, seed: u64) -> Analysis {
        let level = Level::new(level).unwrap();
        analyse(
            start,
            moves,
            level,
            Limit::Level,
            seed,
            &mut |_| false,
            &mut |_, _| {},
        )
    }

    fn game(variant: Variant, seed: u64) -> (Position, Vec<Move>) {
        let options = GameOptions::new(variant);
        let (_, moves) = random_game(options, &mut Rng::new(seed));
        (Position::new(options), moves)
    }

    #[test]
    fn every_move_is_weighed_and_the_curve_ends_in_the_result() {
        for variant in Variant::ALL {
            let (start, moves) = game(variant, 7);
            let mut seen = Vec::new();
            let a = analyse(
                &start,
                &moves,
                Level::MIN,
                Limit::Level,
                3,
                &mut |_| false,
                &mut |d, t| seen.push((d, t)),
            );
            assert_eq!(a.moves.len(), moves.len(), "{variant}");
            assert_eq!(a.curve.len(), moves.len() + 1);
            assert!(a.curve.iter().all(|v| (0.0..=1.0).contains(v)));
            assert_eq!(
                seen.len(),
                moves.len(),
                "one search per position in progress"
            );
            assert_eq!(seen.last().map(|&(d, t)| d == t), Some(true));
            let mut end = start.clone();
            for (r, &m) in a.moves.iter().zip(&moves) {
                assert_eq!(r.played, m);
                assert!(end.legal_moves().contains(&r.best), "{variant}: {}", r.best);
                assert!(r.loss() >= 0.0 && r.loss() <= 1.0);
                end.play_unchecked(m);
            }
            let o = end.outcome().expect("a random game ends");
            let first = variant.sides()[0];
            let last = *a.curve.last().unwrap();
            assert_eq!(last, result_for(o, first, margin_weight()).1);
            assert!(a.playouts > 0 && a.playouts <= 2 * 40 * moves.len() as u64);
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_analysis_and_swings_are_the_largest_losses() {
        let (start, moves) = game(Variant::Hkot1, 11);
        let run = |seed| quick(&start, &moves, 2, seed);
        let a = run(5);
        assert_eq!(a, run(5));
        let swings = a.swings(3);
        assert!(!swings.is_empty(), "random moves cost something");
        assert!(swings.len() <= 3);
        let worst = a.moves.iter().map(MoveReview::loss).fold(0.0, f64::max);
        assert_eq!(swings[0].loss(), worst);
        for w in swings.windows(2) {
            assert!(w[0].loss() >= w[1].loss());
        }
        assert!(swings.iter().all(|s| !s.forced && s.played != s.best));
    }

    #[test]
    fn a_move_that_ends_the_game_is_valued_by_its_result() {
        // A game whose last move wins: the winner's last move is worth the result.
        let (start, moves) = game(Variant::ArdRi, 2);
        let a = quick(&start, &moves, 1, 1);
        let last = a.moves.last().unwrap();
        let mut end = start.clone();
        for &m in &moves {
            end.play_unchecked(m);
        }
        let o = end.outcome().unwrap();
        assert_eq!(
            last.eval_played,
            result_for(o, last.side, margin_weight()).1
        );
    }
}
