//! `tara-bot engine`: the position after a list of moves as one JSON object (a contract other
//! tools rely on; see docs/cli.md).

use crate::game::Counts;
use crate::game::{
    playout, GameOptions, GamePosition, Outcome, PlayError, Player, Points, Position, Side,
};
use serde::Serialize;
use serde_json::{Map, Value};

/// Counts of one Tara player in the JSON.
#[derive(Serialize)]
struct CountsJson {
    kingdoms: u32,
    knots: u32,
    territory: u32,
    kings_captured: u32,
}

impl From<Counts> for CountsJson {
    fn from(c: Counts) -> Self {
        CountsJson {
            kingdoms: c.kingdoms,
            knots: c.knots,
            territory: c.territory,
            kings_captured: c.kings_captured,
        }
    }
}

#[derive(Serialize)]
struct BothCounts {
    red: CountsJson,
    blue: CountsJson,
}

#[derive(Serialize)]
pub struct ResultJson {
    winner: Option<&'static str>,
    reason: &'static str,
    points: Map<String, Value>,
}

/// The engine's JSON object for a position.
#[derive(Serialize)]
pub struct PositionJson {
    variant: &'static str,
    scoring: Option<&'static str>,
    ply: u32,
    status: &'static str,
    to_move: Option<&'static str>,
    phase: Option<&'static str>,
    legal: Vec<String>,
    counts: Option<BothCounts>,
    result: Option<ResultJson>,
    /// The position in its game's notation (Ard Rí), `null` for the Tara games.
    position: Option<String>,
}

/// A number of points as JSON: an integer when whole, else a fraction (0.5).
pub fn points_json(p: Points) -> Value {
    if p.0.is_multiple_of(2) {
        Value::from(p.0 / 2)
    } else {
        Value::from(p.value())
    }
}

pub fn result_json(variant_sides: [Side; 2], o: &Outcome) -> ResultJson {
    let mut points = Map::new();
    for side in variant_sides {
        points.insert(side.id().to_string(), points_json(o.points[side]));
    }
    ResultJson {
        winner: o.winner.map(Side::id),
        reason: o.reason.id(),
        points,
    }
}

impl PositionJson {
    pub fn new(pos: &Position) -> PositionJson {
        let options = pos.options();
        let variant = options.variant;
        PositionJson {
            variant: variant.id(),
            scoring: variant.is_tara().then(|| options.scoring.id()),
            ply: pos.ply(),
            status: if pos.outcome().is_some() {
                "finished"
            } else {
                "ongoing"
            },
            to_move: pos.to_move().map(Side::id),
            phase: pos.phase().map(|p| p.id()),
            legal: pos.legal_notation(),
            counts: pos.side_counts().map(|c| BothCounts {
                red: c[Player::Red].into(),
                blue: c[Player::Blue].into(),
            }),
            result: pos.outcome().map(|o| result_json(variant.sides(), o)),
            position: pos.notation(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("serialisable")
    }
}

/// A move that could not be played, with its 1-based number and its text.
#[derive(Debug)]
pub struct MoveFailure {
    pub number: usize,
    pub text: String,
    pub error: PlayError,
}

impl std::fmt::Display for MoveFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "move {} ({}): {}", self.number, self.text, self.error)
    }
}

pub use crate::game::notation::split_moves;

/// Plays `moves` from the start, calling `each` with the position before any move and after
/// every move. Stops at the first move that cannot be played.
pub fn replay(
    options: GameOptions,
    moves: &str,
    each: impl FnMut(&Position),
) -> Result<Position, MoveFailure> {
    replay_from(Position::new(options), moves, each)
}

/// Plays `moves` from `start` (a start position or one read from a position notation), like
/// [`replay`].
pub fn replay_from(
    start: Position,
    moves: &str,
    mut each: impl FnMut(&Position),
) -> Result<Position, MoveFailure> {
    let mut pos = start;
    each(&pos);
    play_moves(&mut pos, moves, |pos, _| each(pos))?;
    Ok(pos)
}

/// Plays the space-separated `moves` on `pos`, calling `each` with the position after each and
/// the move that made it; the first move that cannot be played is the error (`pos` is then the
/// position before it).
pub fn play_moves(
    pos: &mut Position,
    moves: &str,
    mut each: impl FnMut(&Position, crate::game::Move),
) -> Result<(), MoveFailure> {
    for (i, text) in split_moves(moves).enumerate() {
        let m = pos.play_text(text).map_err(|error| MoveFailure {
            number: i + 1,
            text: text.to_string(),
            error,
        })?;
        each(pos, m);
    }
    Ok(())
}

/// The most positions whose moves `--perft` generates (an estimate, [`playout::perft_work`]):
/// about a minute's counting.
pub const PERFT_WORK_LIMIT: f64 = 1e9;

/// Why the `engine` command stopped.
#[derive(Debug)]
pub enum RunError {
    /// A move could not be played: the lines printed before it, and the failure (exit 1).
    Move(Vec<String>, MoveFailure),
    /// `--perft` asks for more counting than [`PERFT_WORK_LIMIT`] (a usage error, exit 2).
    PerftTooDeep { depth: u32, work: f64 },
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Move(_, failure) => failure.fmt(f),
            RunError::PerftTooDeep { depth, work } => write!(
                f,
                "--perft {depth} would generate the moves of about {work:.1e} positions \
                 (estimated), more than the {PERFT_WORK_LIMIT:.0e} this command counts \
                 (about a minute): give a smaller depth"
            ),
        }
    }
}

/// Runs the `engine` command from `start` (the start of a game, or a position given by its
/// notation): returns the lines for stdout, or why it stopped. A `perft` whose work is
/// estimated above [`PERFT_WORK_LIMIT`] is refused before counting.
pub fn run(
    start: Position,
    moves: &str,
    trace: bool,
    perft: Option<u32>,
) -> Result<Vec<String>, RunError> {
    let mut lines = Vec::new();
    let result = replay_from(start, moves, |pos| {
        if trace && perft.is_none() {
            lines.push(PositionJson::new(pos).to_json());
        }
    });
    let pos = match result {
        Ok(pos) => pos,
        Err(f) => return Err(RunError::Move(lines, f)),
    };
    if let Some(depth) = perft {
        let work = playout::perft_work(&pos, depth);
        if work > PERFT_WORK_LIMIT {
            return Err(RunError::PerftTooDeep { depth, work });
        }
        lines.push(format!("{{\"perft\":{}}}", playout::perft(&pos, depth)));
    } else if !trace {
        lines.push(PositionJson::new(&pos).to_json());
    }
    Ok(lines)
}
