//! How a game ends: [`EndReason`], [`Points`], [`Outcome`], and the Tara [`Counts`] scoring
//! looks at.

use super::by_side::BySide;
use super::side::Side;
use std::fmt;

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// High Kings: a player captured two (or three) enemy kings.
    DoubleCapture,
    /// Tara: scored by kingdoms or knots, then territory.
    Score,
    /// Ard Rí: the king reached a corner.
    KingEscaped,
    /// Ard Rí: the king was surrounded on four sides.
    KingCaptured,
    /// Ard Rí: the side to move had no legal move.
    NoMoves,
    /// Ard Rí: 100 plies without a capture.
    MoveLimit,
    /// The bot's own ending (docs/rules.md §9): a player resigned.
    Resigned,
    /// The bot's own ending (docs/rules.md §9): a player's clock ran out.
    Timeout,
    /// The bot's own ending (docs/rules.md §9): the players agreed to a draw.
    Agreed,
}

impl EndReason {
    /// The reason's id in the engine's JSON (`double-capture`, …).
    pub const fn id(self) -> &'static str {
        match self {
            EndReason::DoubleCapture => "double-capture",
            EndReason::Score => "score",
            EndReason::KingEscaped => "king-escaped",
            EndReason::KingCaptured => "king-captured",
            EndReason::NoMoves => "no-moves",
            EndReason::MoveLimit => "move-limit",
            EndReason::Resigned => "resigned",
            EndReason::Timeout => "timeout",
            EndReason::Agreed => "agreed",
        }
    }

    /// The reason with this id.
    pub fn from_id(id: &str) -> Option<EndReason> {
        [
            EndReason::DoubleCapture,
            EndReason::Score,
            EndReason::KingEscaped,
            EndReason::KingCaptured,
            EndReason::NoMoves,
            EndReason::MoveLimit,
            EndReason::Resigned,
            EndReason::Timeout,
            EndReason::Agreed,
        ]
        .into_iter()
        .find(|r| r.id() == id)
    }
}

/// Points in half-point units, so Ard Rí's ½ is exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Points(pub u32);

impl Points {
    /// Whole points.
    pub const fn whole(n: u32) -> Points {
        Points(2 * n)
    }
    /// Half a point.
    pub const HALF: Points = Points(1);
    /// The value as a number (1, 0.5, 3, …).
    pub fn value(self) -> f64 {
        f64::from(self.0) / 2.0
    }
}

impl std::ops::Add for Points {
    type Output = Points;
    fn add(self, o: Points) -> Points {
        Points(self.0 + o.0)
    }
}

impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_multiple_of(2) {
            write!(f, "{}", self.0 / 2)
        } else {
            write!(f, "{}.5", self.0 / 2)
        }
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The winner, or `None` for a draw (Tara: equal kingdoms and territory).
    pub winner: Option<Side>,
    pub reason: EndReason,
    /// Points of each side.
    pub points: BySide<Points>,
}

/// Counts for one player: what scoring looks at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Counts {
    pub kingdoms: u32,
    pub knots: u32,
    pub territory: u32,
    /// Enemy kings this player captured (High Kings).
    pub kings_captured: u32,
}
