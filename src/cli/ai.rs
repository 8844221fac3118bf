//! `tara-bot ai`: the AI's move for a position, as one JSON object (a contract; see
//! docs/cli.md): `{"move":"D4","eval":0.62,"playouts":5000,"ms":41}`.

use super::engine::{replay_from, MoveFailure};
use crate::ai::{think_threads, Level, Limit};
use crate::game::Position;
use serde::Serialize;
use std::time::{Duration, Instant};

/// How long a search may run, or how many playouts it makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The level's own budget (level 5: [`LEVEL5_DEFAULT_MS`]).
    Level,
    /// Exactly this many playouts (the same move for the same seed, on any machine).
    Playouts(u64),
    /// Until this many milliseconds have passed (within 10%).
    Millis(u64),
}

impl Bound {
    /// The search's limit at `level`, and its time limit in milliseconds if it has one
    /// (level 5 has no budget of its own: its default time bounds it).
    pub fn limit(self, level: Level) -> (Limit, Option<u64>) {
        match self {
            Bound::Level => (
                Limit::Level,
                level.playouts().is_none().then_some(LEVEL5_DEFAULT_MS),
            ),
            Bound::Playouts(n) => (Limit::Playouts(n.max(1)), None),
            Bound::Millis(ms) => (Limit::Clock, Some(ms)),
        }
    }
}

/// Level 5's time limit when no bound is given, in milliseconds.
pub const LEVEL5_DEFAULT_MS: u64 = 1_000;

/// The JSON the command prints.
#[derive(Serialize)]
pub struct AiJson {
    #[serde(rename = "move")]
    pub mv: String,
    pub eval: f64,
    pub playouts: u64,
    pub ms: u64,
}

/// Why no move was given.
#[derive(Debug)]
pub enum AiError {
    /// A move of the list could not be played (as `engine` reports it).
    Move(MoveFailure),
    /// The game is already over.
    Finished(String),
}

impl std::fmt::Display for AiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AiError::Move(m) => write!(f, "{m}"),
            AiError::Finished(why) => write!(f, "{why}"),
        }
    }
}

/// Searches until `deadline` (checked every few playouts).
fn stop_at(deadline: Option<Instant>) -> impl FnMut() -> bool {
    move || deadline.is_some_and(|d| Instant::now() >= d)
}

/// The AI's move after `moves` from `start`, as the command's JSON line.
pub fn run(
    start: Position,
    moves: &str,
    level: Level,
    bound: Bound,
    seed: u64,
    threads: usize,
) -> Result<String, AiError> {
    let began = Instant::now();
    let pos = replay_from(start, moves, |_| {}).map_err(AiError::Move)?;
    if let Some(o) = pos.outcome() {
        let winner = o
            .winner
            .map_or("a draw".to_string(), |w| format!("{} won", w.id()));
        return Err(AiError::Finished(format!(
            "the game is over ({winner}, {}): there is no move to choose",
            o.reason.id()
        )));
    }
    let (limit, ms) = bound.limit(level);
    // Leave a little of the time for choosing and printing.
    let deadline = ms.map(|ms| began + Duration::from_micros(ms * 970));
    let found = think_threads(&pos, level, limit, seed, threads, &mut stop_at(deadline))
        .expect("a game in progress has a legal move");
    let json = AiJson {
        mv: found.chosen.to_string(),
        eval: (found.eval * 1000.0).round() / 1000.0,
        playouts: found.playouts,
        ms: began.elapsed().as_millis() as u64,
    };
    Ok(serde_json::to_string(&json).expect("serialisable"))
}
