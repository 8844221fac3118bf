//! `tara-bot bench engine`: random complete games on one thread, per variant.

use crate::game::playout::{random_playout, Rng};
use crate::game::{GameOptions, MoveList, Position, Scoring, Variant};
use serde_json::json;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The engine benchmark configurations: every variant, plus knots scoring where allowed.
pub fn engine_configs() -> Vec<GameOptions> {
    let mut v = Vec::new();
    for variant in Variant::ALL {
        v.push(GameOptions::new(variant));
        if variant.allows_knots() {
            let mut o = GameOptions::new(variant);
            o.scoring = Scoring::Knots;
            v.push(o);
        }
    }
    v
}

/// Plays random games of one configuration for about `seconds`; returns the JSON line.
pub fn engine_one(options: GameOptions, seconds: f64, seed: u64) -> serde_json::Value {
    let mut rng = Rng::new(seed);
    let start_pos = Position::new(options);
    let mut list = MoveList::new();
    let budget = Duration::from_secs_f64(seconds);
    let t0 = Instant::now();
    let (mut games, mut plies) = (0u64, 0u64);
    // Positions met along the way, to time move generation alone afterwards.
    let mut samples: Vec<Position> = Vec::new();
    loop {
        for _ in 0..64 {
            let mut pos = start_pos.clone();
            plies += u64::from(random_playout(&mut pos, &mut rng, &mut list));
            games += 1;
            black_box(pos.outcome());
        }
        if samples.len() < 2000 {
            let mut pos = start_pos.clone();
            while pos.outcome().is_none() {
                samples.push(pos.clone());
                let moves = pos.legal_moves();
                pos.play_unchecked(moves[rng.below(moves.len())]);
            }
        }
        if t0.elapsed() >= budget {
            break;
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    // Move generation alone, averaged over the sampled positions.
    let rounds = 200;
    let t1 = Instant::now();
    let mut total = 0usize;
    for _ in 0..rounds {
        for p in &samples {
            total += black_box(p).legal_moves().len();
        }
    }
    black_box(total);
    let movegen_ns = t1.elapsed().as_secs_f64() * 1e9 / (rounds * samples.len()) as f64;
    let mut line = json!({
        "bench": "engine",
        "variant": options.variant.id(),
        "games_per_s": (games as f64 / secs).round(),
        "plies_per_s": (plies as f64 / secs).round(),
        "plies_per_game": ((plies as f64 / games as f64) * 10.0).round() / 10.0,
        "movegen_ns": (movegen_ns * 10.0).round() / 10.0,
    });
    if options.variant.is_tara() {
        line["scoring"] = json!(options.scoring.id());
    }
    line
}
