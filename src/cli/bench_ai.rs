//! `tara-bot bench ai`: the AI's strength, measured in matches on one thread. Per variant:
//! level 1 against random, each level against the one below, level 5 against the greedy
//! one-ply player and against random. Sides alternate game by game; each pairing reports wins,
//! draws and losses of the stronger side, its score with a 95% interval, the Elo difference,
//! and the AI's playouts per second.

use crate::ai::{greedy_move, random_move, think, Level, Limit};
use crate::game::playout::Rng;
use crate::game::{GameOptions, Move, Position, Side, Variant};
use serde_json::json;
use std::time::{Duration, Instant};

/// A player of a benchmark match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contestant {
    Random,
    Greedy,
    Ai(Level),
}

impl Contestant {
    fn name(self) -> String {
        match self {
            Contestant::Random => "random".into(),
            Contestant::Greedy => "greedy".into(),
            Contestant::Ai(l) => format!("level {l}"),
        }
    }
}

/// The pairings measured: (stronger, weaker).
pub fn pairings() -> Vec<(Contestant, Contestant)> {
    let l = |n| Contestant::Ai(Level::new(n).expect("1 to 5"));
    vec![
        (l(1), Contestant::Random),
        (l(2), l(1)),
        (l(3), l(2)),
        (l(4), l(3)),
        (l(5), l(4)),
        (l(5), Contestant::Greedy),
        (l(5), Contestant::Random),
    ]
}

/// Totals of one match, from the first contestant's view.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    wins: u32,
    draws: u32,
    losses: u32,
    playouts: u64,
    think: Duration,
}

/// The move of `who` (the AI searches for `ms` at level 5).
fn choose(
    who: Contestant,
    pos: &Position,
    rng: &mut Rng,
    ms: u64,
    tally: &mut Tally,
) -> Option<Move> {
    match who {
        Contestant::Random => random_move(pos, rng),
        Contestant::Greedy => greedy_move(pos, rng),
        Contestant::Ai(level) => {
            let t0 = Instant::now();
            let deadline = t0 + Duration::from_millis(ms);
            // Levels 1 to 4 make their playouts; level 5 searches until the deadline.
            let found = think(pos, level, Limit::Level, rng.next_u64(), &mut || {
                Instant::now() >= deadline
            })?;
            tally.playouts += found.playouts;
            tally.think += t0.elapsed();
            Some(found.chosen)
        }
    }
}

/// Plays `games` games of `options`' variant between `a` and `b`, `a` taking the first seat
/// in even games; the tally is `a`'s.
fn play_match(
    options: GameOptions,
    a: Contestant,
    b: Contestant,
    games: u32,
    ms: u64,
    seed: u64,
) -> Tally {
    let mut tally = Tally::default();
    let mut other = Tally::default();
    let sides = options.variant.sides();
    for g in 0..games {
        let mut rng = Rng::new(seed ^ (u64::from(g) << 32));
        let a_side: Side = sides[(g % 2) as usize];
        let mut pos = Position::new(options);
        while pos.outcome().is_none() {
            let to_move = pos.to_move().expect("in progress");
            let m = if to_move == a_side {
                choose(a, &pos, &mut rng, ms, &mut tally)
            } else {
                choose(b, &pos, &mut rng, ms, &mut other)
            }
            .expect("a game in progress has a move");
            pos.play_unchecked(m);
        }
        match pos.outcome().and_then(|o| o.winner) {
            Some(w) if w == a_side => tally.wins += 1,
            Some(_) => tally.losses += 1,
            None => tally.draws += 1,
        }
    }
    tally.playouts += other.playouts;
    tally.think += other.think;
    tally
}

/// The Wilson score interval (95%) of a score rate `p` over `n` games.
pub fn wilson(p: f64, n: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let z = 1.959_964f64;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The Elo difference a score rate implies (±∞ written as ±800, the edge of the scale).
pub fn elo(p: f64) -> f64 {
    if p >= 1.0 {
        800.0
    } else if p <= 0.0 {
        -800.0
    } else {
        (-400.0 * (1.0 / p - 1.0).log10()).clamp(-800.0, 800.0)
    }
}

/// Every pairing of every variant (or of `only`), `games` games each, level 5 thinking `ms`
/// milliseconds a move; one JSON line per pairing.
pub fn ai(games: u32, ms: u64, only: Option<Variant>) -> Vec<serde_json::Value> {
    let mut lines = Vec::new();
    for (v, variant) in Variant::ALL.into_iter().enumerate() {
        if only.is_some_and(|o| o != variant) {
            continue;
        }
        let options = GameOptions::new(variant);
        for (k, (a, b)) in pairings().into_iter().enumerate() {
            let t0 = Instant::now();
            let t = play_match(options, a, b, games, ms, 0xa1 + (v * 16 + k) as u64);
            let n = f64::from(t.wins + t.draws + t.losses);
            let score = (f64::from(t.wins) + 0.5 * f64::from(t.draws)) / n.max(1.0);
            let (lo, hi) = wilson(score, n);
            let secs = t.think.as_secs_f64();
            lines.push(json!({
                "bench": "ai",
                "variant": variant.id(),
                "player": a.name(),
                "opponent": b.name(),
                "games": n,
                "wins": t.wins,
                "draws": t.draws,
                "losses": t.losses,
                "score": (score * 1000.0).round() / 1000.0,
                "score_95": [(lo * 1000.0).round() / 1000.0, (hi * 1000.0).round() / 1000.0],
                "elo": elo(score).round(),
                "level5_ms_per_move": ms,
                "playouts_per_s": if secs > 0.0 { (t.playouts as f64 / secs).round() } else { 0.0 },
                "seconds": (t0.elapsed().as_secs_f64() * 10.0).round() / 10.0,
            }));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_and_elo_match_known_values() {
        // 15 of 20: 0.75, Wilson 95% interval 0.531..0.888; Elo +191.
        let (lo, hi) = wilson(0.75, 20.0);
        assert!(
            (lo - 0.531).abs() < 0.001 && (hi - 0.888).abs() < 0.001,
            "{lo} {hi}"
        );
        assert_eq!(elo(0.75).round(), 191.0);
        assert_eq!(elo(0.5), 0.0);
        assert_eq!(elo(1.0), 800.0);
        let (lo, hi) = wilson(1.0, 20.0);
        assert!((lo - 0.839).abs() < 0.001 && hi == 1.0, "{lo}");
    }

    #[test]
    fn a_short_match_is_tallied_from_the_first_players_view() {
        let options = GameOptions::new(Variant::Hkot1);
        let t = play_match(
            options,
            Contestant::Ai(Level::MIN),
            Contestant::Random,
            4,
            10,
            5,
        );
        assert_eq!(t.wins + t.draws + t.losses, 4);
        // Level 1 makes 40 playouts a move.
        assert_eq!(t.playouts % 40, 0);
        assert!(t.playouts > 0);
    }
}
