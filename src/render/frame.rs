//! [`Frame`]: what an image shows besides the position itself.

use crate::game::{Move, Outcome};

/// What to draw besides the position itself.
#[derive(Clone, Debug, Default)]
pub struct Frame {
    /// The players' display names in seat order (Red or the attackers first).
    pub names: [String; 2],
    /// The move that led to this position (highlighted).
    pub last_move: Option<Move>,
    /// A result decided outside the rules (resignation, timeout): shown as the result of the
    /// game in this position.
    pub result: Option<Outcome>,
}

impl Frame {
    pub fn new(names: [String; 2], last_move: Option<Move>) -> Frame {
        Frame {
            names,
            last_move,
            result: None,
        }
    }

    /// The same frame showing a result the position itself does not hold.
    pub fn with_result(mut self, result: Outcome) -> Frame {
        self.result = Some(result);
        self
    }
}
