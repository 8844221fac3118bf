//! `tara-bot analyse`: a game weighed move by move, as one JSON object (a contract; see
//! docs/cli.md): the first seat's expected score after every move, each move with the AI's choice
//! and both evaluations, and the three largest swings.

use super::ai::Bound;
use super::engine::{play_moves, MoveFailure};
use crate::ai::{analyse, round3, Analysis, Level, MoveReview};
use crate::game::Position;
use crate::render::{eval_chart_png, EvalChart};
use serde::Serialize;
use std::time::{Duration, Instant};

/// One move in the JSON.
#[derive(Serialize)]
struct MoveJson {
    ply: usize,
    side: String,
    #[serde(rename = "move")]
    played: String,
    best: String,
    eval_played: f64,
    eval_best: f64,
    loss: f64,
    forced: bool,
}

/// The JSON the command prints.
#[derive(Serialize)]
struct AnalysisJson {
    /// The first seat's expected score from the start to after the last move.
    curve: Vec<f64>,
    moves: Vec<MoveJson>,
    /// The three largest losses, largest first.
    swings: Vec<MoveJson>,
    playouts: u64,
    ms: u64,
}

/// The move's JSON: its [`MoveReview::record`] (`played` as `move`), its loss and whether it
/// was forced.
fn move_json(r: &MoveReview) -> MoveJson {
    let record = r.record();
    MoveJson {
        ply: record.ply,
        side: record.side,
        played: record.played,
        best: record.best,
        eval_played: record.eval_played,
        eval_best: record.eval_best,
        loss: round3(r.loss()),
        forced: r.forced,
    }
}

/// The analysis as the command's JSON line.
pub fn to_json(a: &Analysis, ms: u64) -> String {
    let json = AnalysisJson {
        curve: a.curve_record(),
        moves: a.moves.iter().map(move_json).collect(),
        swings: a.swings(3).into_iter().map(move_json).collect(),
        playouts: a.playouts,
        ms,
    };
    serde_json::to_string(&json).expect("serialisable")
}

/// Weighs the game `moves` from `start` (the JSON line, and the evaluation chart as a PNG),
/// each position searched at `level` within `bound` (a time bound is per position). A move that cannot be played is refused as `engine`
/// refuses it.
pub fn run(
    start: Position,
    moves: &str,
    level: Level,
    bound: Bound,
    seed: u64,
) -> Result<(String, Vec<u8>), MoveFailure> {
    let began = Instant::now();
    let mut list = Vec::new();
    play_moves(&mut start.clone(), moves, |_, m| list.push(m))?;
    let (limit, ms) = bound.limit(level);
    // Each position gets its own clock, started when its search starts.
    let mut current: Option<(usize, Instant)> = None;
    let mut stop = |i: usize| {
        let Some(ms) = ms else { return false };
        let started = match current {
            Some((j, t)) if j == i => t,
            _ => {
                let t = Instant::now();
                current = Some((i, t));
                t
            }
        };
        started.elapsed() >= Duration::from_micros(ms * 970)
    };
    let a = analyse(&start, &list, level, limit, seed, &mut stop, &mut |_, _| {});
    let json = to_json(&a, began.elapsed().as_millis() as u64);
    let options = start.options();
    let side = options.variant.sides()[0];
    let chart = eval_chart_png(&EvalChart {
        title: format!("{} · analysis at level {level}", options.variant.name()),
        side,
        curve: a.curve.clone(),
        swings: a.swings(3).iter().map(|m| m.ply).collect(),
    });
    Ok((json, chart))
}
