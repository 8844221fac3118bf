//! `tara-bot bench ai`: the AI's strength, measured in matches (`--jobs` games at once). Per variant:
//! level 1 against random, each level against the one below, level 5 against the greedy
//! one-ply player and against random. Sides alternate game by game; each pairing reports wins,
//! draws and losses of the stronger side, its score with a 95% interval, the Elo difference,
//! and the AI's playouts per second.

use crate::ai::{greedy_move, random_move, think_threads, Level, Limit};
use crate::game::playout::Rng;
use crate::game::{EndReason, GameOptions, Move, Position, Side, Variant};
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

/// A pairing measured: (the player, usually the stronger; the opponent).
pub type Pairing = (Contestant, Contestant);

/// One contestant as `--pairings` names it: `l1` to `l5`, `greedy` or `random`.
fn parse_contestant(text: &str) -> Option<Contestant> {
    match text {
        "greedy" => Some(Contestant::Greedy),
        "random" => Some(Contestant::Random),
        _ => text
            .strip_prefix('l')
            .and_then(|n| n.parse().ok())
            .and_then(Level::new)
            .map(Contestant::Ai),
    }
}

/// A pairing as `--pairings` names it: `<player>-<opponent>`, e.g. `l5-greedy`.
pub fn parse_pairing(text: &str) -> Result<Pairing, String> {
    text.split_once('-')
        .and_then(|(a, b)| Some((parse_contestant(a)?, parse_contestant(b)?)))
        .ok_or_else(|| {
            format!("{text:?} is not a pairing: write two of l1..l5, greedy and random joined by '-', e.g. l5-greedy")
        })
}

/// The pairings measured: (stronger, weaker).
pub fn pairings() -> Vec<Pairing> {
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
    /// Games ended by the move limit (Ard Rí), and of those the ones where a side had taken
    /// at least two pieces more than the other.
    move_limit: u32,
    move_limit_with_lead: u32,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.wins += o.wins;
        self.draws += o.draws;
        self.losses += o.losses;
        self.playouts += o.playouts;
        self.think += o.think;
        self.move_limit += o.move_limit;
        self.move_limit_with_lead += o.move_limit_with_lead;
    }
}

/// How long level 5 thinks a move, and on how many threads.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    pub ms: u64,
    pub threads: usize,
}

/// The move of `who` (the AI searches for `clock.ms` at level 5).
fn choose(
    who: Contestant,
    pos: &Position,
    rng: &mut Rng,
    Clock { ms, threads }: Clock,
    tally: &mut Tally,
) -> Option<Move> {
    match who {
        Contestant::Random => random_move(pos, rng),
        Contestant::Greedy => greedy_move(pos, rng),
        Contestant::Ai(level) => {
            let t0 = Instant::now();
            let deadline = t0 + Duration::from_millis(ms);
            // Levels 1 to 4 make their playouts; level 5 searches until the deadline.
            let found = think_threads(
                pos,
                level,
                Limit::Level,
                rng.next_u64(),
                threads,
                &mut || Instant::now() >= deadline,
            )?;
            tally.playouts += found.playouts;
            tally.think += t0.elapsed();
            Some(found.chosen)
        }
    }
}

/// Game `g` of a match between `a` and `b`, `a` taking the first seat in even games; the
/// tally is `a`'s, with `b`'s searches added.
fn play_game(
    options: GameOptions,
    a: Contestant,
    b: Contestant,
    g: u32,
    clock: Clock,
    seed: u64,
) -> Tally {
    let mut tally = Tally::default();
    let mut other = Tally::default();
    let sides = options.variant.sides();
    let mut rng = Rng::new(seed ^ (u64::from(g) << 32));
    let a_side: Side = sides[(g % 2) as usize];
    let mut pos = Position::new(options);
    while pos.outcome().is_none() {
        let to_move = pos.to_move().expect("in progress");
        let m = if to_move == a_side {
            choose(a, &pos, &mut rng, clock, &mut tally)
        } else {
            choose(b, &pos, &mut rng, clock, &mut other)
        }
        .expect("a game in progress has a move");
        pos.play_unchecked(m);
    }
    let outcome = pos.outcome().expect("over");
    match outcome.winner {
        Some(w) if w == a_side => tally.wins += 1,
        Some(_) => tally.losses += 1,
        None => tally.draws += 1,
    }
    if outcome.reason == EndReason::MoveLimit {
        tally.move_limit += 1;
        if let Some(f) = pos.forces() {
            // Pieces taken by each side: of the defenders' 8, and of the attackers' 16.
            let taken_by_attackers = 8 - i64::from(f.defenders);
            let taken_by_defenders = 16 - i64::from(f.attackers);
            if (taken_by_attackers - taken_by_defenders).abs() >= 2 {
                tally.move_limit_with_lead += 1;
            }
        }
    }
    tally.playouts += other.playouts;
    tally.think += other.think;
    tally
}

/// Plays `games` games of `options`' variant between `a` and `b`, `a` taking the first seat
/// in even games, `jobs` at once; the tally is `a`'s.
fn play_match(
    options: GameOptions,
    (a, b): Pairing,
    games: u32,
    clock: Clock,
    seed: u64,
    jobs: usize,
) -> Tally {
    let next = std::sync::atomic::AtomicU32::new(0);
    let total = std::sync::Mutex::new(Tally::default());
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| loop {
                let g = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if g >= games {
                    break;
                }
                let t = play_game(options, a, b, g, clock, seed);
                total.lock().expect("tally").add(&t);
            });
        }
    });
    total.into_inner().expect("tally")
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

/// `pairings` in every variant (or in `only`), `games` games each, `jobs` at once, level 5
/// thinking `ms` milliseconds a move; one JSON line per pairing.
pub fn ai(
    games: u32,
    clock: Clock,
    only: Option<Variant>,
    pairings: &[Pairing],
    jobs: usize,
) -> Vec<serde_json::Value> {
    let mut lines = Vec::new();
    let all = self::pairings();
    for (v, variant) in Variant::ALL.into_iter().enumerate() {
        if only.is_some_and(|o| o != variant) {
            continue;
        }
        let options = GameOptions::new(variant);
        for &(a, b) in pairings {
            // The seed of the standard pairings stays as it was; others get their own.
            let k = all
                .iter()
                .position(|&p| p == (a, b))
                .unwrap_or(all.len() + contestant_code(a) * 8 + contestant_code(b));
            let t0 = Instant::now();
            let t = play_match(
                options,
                (a, b),
                games,
                clock,
                0xa1 + (v * 16 + k) as u64,
                jobs,
            );
            let n = f64::from(t.wins + t.draws + t.losses);
            let score = (f64::from(t.wins) + 0.5 * f64::from(t.draws)) / n.max(1.0);
            let (lo, hi) = wilson(score, n);
            let secs = t.think.as_secs_f64();
            let mut line = json!({
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
                "level5_ms_per_move": clock.ms,
                "level5_threads": clock.threads,
                "playouts_per_s": if secs > 0.0 { (t.playouts as f64 / secs).round() } else { 0.0 },
                "seconds": (t0.elapsed().as_secs_f64() * 10.0).round() / 10.0,
            });
            if variant == Variant::ArdRi {
                line["move_limit_games"] = json!(t.move_limit);
                line["move_limit_with_lead"] = json!(t.move_limit_with_lead);
            }
            lines.push(line);
        }
    }
    lines
}

/// A small number per contestant, for the seeds of pairings outside the standard ones.
fn contestant_code(c: Contestant) -> usize {
    match c {
        Contestant::Random => 0,
        Contestant::Greedy => 1,
        Contestant::Ai(l) => 1 + usize::from(l.number()),
    }
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
            (Contestant::Ai(Level::MIN), Contestant::Random),
            4,
            Clock { ms: 10, threads: 1 },
            5,
            2,
        );
        assert_eq!(t.wins + t.draws + t.losses, 4);
        // Level 1 makes 40 playouts a move.
        assert_eq!(t.playouts % 40, 0);
        assert!(t.playouts > 0);
    }
}
