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

/// Times board PNGs of positions from random games, and a 60-move replay, for one variant.
pub fn render_one(variant: Variant, seconds: f64) -> serde_json::Value {
    use crate::game::playout::random_game;
    use crate::render::{board_png, replay_gif, warm_up, Frame};
    warm_up();
    let options = GameOptions::new(variant);
    let mut rng = Rng::new(0xb0a4d);
    let (_, moves) = random_game(options, &mut rng);
    // Positions along the game: start, middle and end, cycled.
    let mut positions = Vec::new();
    let mut pos = Position::new(options);
    positions.push((pos.clone(), None));
    for m in &moves {
        pos.play_unchecked(*m);
        positions.push((pos.clone(), Some(*m)));
    }
    let names = ["Aoife".to_string(), "Brian".to_string()];
    let budget = Duration::from_secs_f64(seconds);
    let t0 = Instant::now();
    let mut times = Vec::new();
    let mut bytes = Vec::new();
    let mut i = 0;
    while t0.elapsed() < budget || times.len() < 20 {
        let (p, last) = &positions[(i * 7) % positions.len()];
        let t = Instant::now();
        let png = board_png(p, &Frame::new(names.clone(), *last));
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        bytes.push(png.len());
        i += 1;
    }
    times.sort_by(f64::total_cmp);
    bytes.sort_unstable();
    // A replay of (at most) 60 moves.
    let replay_moves = &moves[..moves.len().min(60)];
    let t = Instant::now();
    let gif = replay_gif(options, replay_moves, &names);
    let replay_ms = t.elapsed().as_secs_f64() * 1000.0;
    json!({
        "bench": "render",
        "variant": variant.id(),
        "png_ms_median": (times[times.len() / 2] * 100.0).round() / 100.0,
        "png_ms_max": (times[times.len() - 1] * 100.0).round() / 100.0,
        "png_bytes": bytes[bytes.len() / 2],
        "png_bytes_max": bytes[bytes.len() - 1],
        "replay_moves": replay_moves.len(),
        "replay_ms": replay_ms.round(),
        "replay_bytes": gif.len(),
    })
}
