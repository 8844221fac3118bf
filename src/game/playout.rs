//! Random legal games and move-tree counts: for property tests, benchmarks and perft.

use super::moves::{Move, MoveList};
use super::position::GamePosition;
use super::variant::GameOptions;
use super::variant_position::Position;

/// A small, fast pseudo-random generator (xorshift64*), seeded for reproducible games.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // SplitMix64 scrambles the seed so that 0 and small seeds work.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Rng((z ^ (z >> 31)) | 1)
    }
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// A number below `n` (`n > 0`).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// Safety bound on the length of one random game; no legal game comes near it.
pub const MAX_PLIES: u32 = 100_000;

/// Plays one random legal game from the start; returns the final position and the moves.
pub fn random_game(options: GameOptions, rng: &mut Rng) -> (Position, Vec<Move>) {
    let mut pos = Position::new(options);
    let mut moves = Vec::new();
    let mut list = MoveList::new();
    while pos.outcome().is_none() && pos.ply() < MAX_PLIES {
        list.clear();
        pos.legal_moves_into(&mut list);
        let m = list[rng.below(list.len())];
        pos.play_unchecked(m);
        moves.push(m);
    }
    (pos, moves)
}

/// Plays random games to the end without recording them; returns the plies played.
pub fn random_playout(pos: &mut Position, rng: &mut Rng, list: &mut MoveList) -> u32 {
    playout_preferring(pos, rng, list, |_, _| None)
}

/// Plays the game to the end without recording it, each move the one `prefer` names among
/// the legal ones, else one at random; returns the plies played.
pub fn playout_preferring(
    pos: &mut Position,
    rng: &mut Rng,
    list: &mut MoveList,
    prefer: impl Fn(&Position, &MoveList) -> Option<Move>,
) -> u32 {
    let start = pos.ply();
    while pos.outcome().is_none() && pos.ply() < MAX_PLIES {
        list.clear();
        pos.legal_moves_into(list);
        let m = prefer(pos, list).unwrap_or_else(|| list[rng.below(list.len())]);
        pos.play_unchecked(m);
    }
    pos.ply() - start
}

/// The number of legal move sequences of length `depth` from `pos`; finished positions are
/// not expanded.
pub fn perft<P: GamePosition + Clone>(pos: &P, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if pos.outcome().is_some() {
        return 0;
    }
    let list = pos.legal_moves();
    if depth == 1 {
        return list.len() as u64;
    }
    list.iter()
        .map(|m| {
            let mut next = pos.clone();
            next.play_unchecked(*m);
            perft(&next, depth - 1)
        })
        .sum()
}

/// An estimate of the work of [`perft`] to `depth` from `pos`: the number of positions whose
/// legal moves it would generate (Knuth's estimate: the mean over random lines of the
/// products of the numbers of legal moves along them). Cheap: 256 random lines of at most
/// `depth` moves.
pub fn perft_work<P: GamePosition + Clone>(pos: &P, depth: u32) -> f64 {
    const LINES: u32 = 256;
    let mut rng = Rng::new(0x0070_6572_6674);
    let mut total = 0.0;
    for _ in 0..LINES {
        let mut p = pos.clone();
        // Positions at this depth along the line, as an estimate of their number.
        let mut width = 1.0;
        for _ in 0..depth {
            if p.outcome().is_some() {
                break;
            }
            total += width;
            let list = p.legal_moves();
            if list.is_empty() {
                break;
            }
            width *= list.len() as f64;
            p.play_unchecked(list[rng.below(list.len())]);
        }
    }
    total / f64::from(LINES)
}

#[cfg(test)]
mod alternation {
    use super::*;
    use crate::game::{Scoring, Side, Variant};

    /// Every ply of random games of every variant hands the move to the other side, forced
    /// passes included: what [`GameOptions::side_after`] relies on.
    #[test]
    fn the_side_to_move_alternates_every_ply() {
        let configs = [
            (Variant::Hkot1, Scoring::Kingdoms, Side::Red),
            (Variant::Hkot1, Scoring::Knots, Side::Blue),
            (Variant::Hkot2, Scoring::Kingdoms, Side::Blue),
            (Variant::SacredHill1, Scoring::Knots, Side::Red),
            (Variant::SacredHill2, Scoring::Kingdoms, Side::Blue),
            (Variant::ArdRi, Scoring::Kingdoms, Side::Attackers),
        ];
        let mut rng = Rng::new(11);
        for (variant, scoring, first) in configs {
            let options = GameOptions::with(variant, Some(scoring), Some(first)).unwrap();
            for _ in 0..40 {
                let (_, moves) = random_game(options, &mut rng);
                let mut pos = Position::new(options);
                for (ply, m) in moves.iter().enumerate() {
                    assert_eq!(
                        pos.to_move(),
                        Some(options.side_after(ply)),
                        "{variant:?} ply {ply}"
                    );
                    pos.play_unchecked(*m);
                }
            }
        }
    }
}
