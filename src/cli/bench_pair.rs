//! `tara-bot bench pair`: the FIDE Dutch pairing of round 5 for 100, 500 and 2,000 players.
//!
//! The four rounds before are made quickly here (not by the Dutch system, which would cost
//! more than the round measured): players in score order, each paired with the next one they
//! have not met, the one with fewer Whites taking White; results random (40 % White wins,
//! 20 % draws, 40 % Black wins). Round 5 is then paired by `dutch_pair::pair` several times; the
//! line gives the median and maximum time and the process's peak resident memory (`VmHWM`
//! from /proc/self/status, Linux) after the runs.

use crate::game::playout::Rng;
use crate::tournament::{dutch, dutch_pair};
use crate::tournament::{Code, Colour, Points, RoundEntry, Trf, TrfPlayer};
use serde_json::json;
use std::time::{Duration, Instant};

/// A tournament of `players` with `rounds` rounds played, for a Swiss of `total` rounds.
pub fn random_swiss(players: u32, rounds: u32, total: u32, seed: u64) -> Trf {
    let mut rng = Rng::new(seed);
    let mut trf = Trf {
        total_rounds: Some(total),
        first_colour: Some(Colour::White),
        ..Trf::default()
    };
    for rank in 1..=players {
        trf.players.push(TrfPlayer {
            rank,
            name: format!("Player {rank}"),
            rating: 2600 - rank,
            points: Points::ZERO,
            place: None,
            rounds: Vec::new(),
        });
    }
    for _ in 0..rounds {
        let mut order: Vec<usize> = (0..trf.players.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(trf.players[i].points), i));
        let mut free = vec![true; order.len()];
        for a in 0..order.len() {
            if !free[a] {
                continue;
            }
            free[a] = false;
            let pa = order[a];
            let met = |b: usize| {
                trf.players[pa]
                    .rounds
                    .iter()
                    .any(|e| e.opponent == Some(trf.players[order[b]].rank))
            };
            let pick = (a + 1..order.len())
                .find(|&b| free[b] && !met(b))
                .or_else(|| (a + 1..order.len()).find(|&b| free[b]));
            let Some(b) = pick else {
                let p = &mut trf.players[pa];
                p.rounds.push(RoundEntry {
                    opponent: None,
                    colour: None,
                    code: Code::PairingBye,
                });
                p.points += Points::ONE;
                continue;
            };
            free[b] = false;
            let pb = order[b];
            let whites = |i: usize| {
                trf.players[i]
                    .rounds
                    .iter()
                    .filter(|e| e.colour == Some(Colour::White))
                    .count()
            };
            let (w, bl) = if whites(pa) <= whites(pb) {
                (pa, pb)
            } else {
                (pb, pa)
            };
            let roll = rng.below(10);
            let (cw, cb, pw, pbl) = match roll {
                0..=3 => (Code::Win, Code::Loss, Points::ONE, Points::ZERO),
                4..=5 => (Code::Draw, Code::Draw, Points::HALF, Points::HALF),
                _ => (Code::Loss, Code::Win, Points::ZERO, Points::ONE),
            };
            let (rw, rb) = (trf.players[w].rank, trf.players[bl].rank);
            let pw_ = &mut trf.players[w];
            pw_.rounds.push(RoundEntry {
                opponent: Some(rb),
                colour: Some(Colour::White),
                code: cw,
            });
            pw_.points += pw;
            let pb_ = &mut trf.players[bl];
            pb_.rounds.push(RoundEntry {
                opponent: Some(rw),
                colour: Some(Colour::Black),
                code: cb,
            });
            pb_.points += pbl;
        }
    }
    trf
}

/// Peak resident memory of this process in KiB, where the system says it.
fn peak_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Pairs round 5 for `players` players: at least 3 runs, more while within `seconds`.
pub fn pair_one(players: u32, seconds: f64) -> serde_json::Value {
    let trf = random_swiss(players, 4, 9, 0x5e5e + u64::from(players));
    let next = dutch::NextRound::from_trf(&trf).ok();
    let bits = next.as_ref().map_or(0, dutch_pair::layout_bits);
    let budget = Duration::from_secs_f64(seconds);
    let t0 = Instant::now();
    let mut times = Vec::new();
    let mut boards = 0;
    let mut stats = None;
    let mut error = None;
    while times.len() < 3 || (t0.elapsed() < budget && times.len() < 20) {
        let t = Instant::now();
        match dutch_pair::pair_counted(&trf) {
            Ok((b, s)) => {
                boards = b.len();
                stats = Some(s);
            }
            Err(e) => {
                error = Some(e.to_string());
                break;
            }
        }
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    let ms = |x: f64| (x * 10.0).round() / 10.0;
    json!({
        "bench": "pair",
        "system": "dutch",
        "players": players,
        "round": 5,
        "runs": times.len(),
        "boards": boards,
        "weight_bits": bits,
        "ms_median": times.get(times.len() / 2).copied().map(ms),
        "ms_max": times.last().copied().map(ms),
        "peak_rss_kib": peak_kib(),
        "matchings": stats.map(|s| s.computes),
        "from_scratch": stats.map(|s| s.from_scratch),
        "reopened": stats.map(|s| s.reopened),
        "augmentations": stats.map(|s| s.stages),
        "paired_at_once": stats.map(|s| s.paired_at_once),
        "fixed_at_once": stats.map(|s| s.fixed_at_once),
        "scans": stats.map(|s| s.scans),
        "dual_updates": stats.map(|s| s.dual_updates),
        "error": error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_random_history_is_four_full_rounds_without_rematches() {
        let trf = random_swiss(20, 4, 9, 7);
        for p in &trf.players {
            assert_eq!(p.rounds.len(), 4);
            let mut met: Vec<u32> = p.rounds.iter().filter_map(|e| e.opponent).collect();
            met.sort_unstable();
            met.dedup();
            assert_eq!(met.len(), 4, "player {} met someone twice", p.rank);
            let sum: Points = p.rounds.iter().map(|e| e.code.points()).sum();
            assert_eq!(sum, p.points);
        }
        let boards = dutch_pair::pair(&trf).unwrap();
        assert_eq!(boards.len(), 10);
    }
}
