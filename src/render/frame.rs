//! [`Frame`]: what an image shows besides the position itself.

use crate::game::{Move, Outcome};

/// A cell of the 7x7 grid: column (0 = `A`/`a`) and row (0 = row 1). Which cells exist is the
/// caller's business (the renderer draws whatever it is given on the grid).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    pub col: u8,
    pub row: u8,
}

/// What to draw besides the position itself.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Frame {
    /// The players' display names in seat order (Red or the attackers first).
    pub names: [String; 2],
    /// The move that led to this position (highlighted).
    pub last_move: Option<Move>,
    /// A result decided outside the rules (resignation, timeout): shown as the result of the
    /// game in this position.
    pub result: Option<Outcome>,
    /// Hills or squares highlighted for analysis (`/board marks:"D4 E5"`).
    pub marks: Vec<Cell>,
    /// Arrows drawn for analysis, from the first cell to the second (`arrows:"G2-E3"`).
    pub arrows: Vec<(Cell, Cell)>,
    /// A frame of a replay, drawn for animation: whose turn it is shown by a small disc
    /// rather than a badge and a gold edge, and the status line names the move shown
    /// ("Move 12") rather than whose turn it is, so that little changes from frame to frame.
    pub replay: bool,
}

impl Frame {
    /// A frame naming the players of the first and second seat (an array or a `BySide`).
    pub fn new(names: impl Into<[String; 2]>, last_move: Option<Move>) -> Frame {
        Frame {
            names: names.into(),
            last_move,
            ..Frame::default()
        }
    }

    /// The same frame showing a result the position itself does not hold.
    pub fn with_result(mut self, result: Outcome) -> Frame {
        self.result = Some(result);
        self
    }

    /// The same frame as a frame of a replay.
    pub fn in_replay(mut self) -> Frame {
        self.replay = true;
        self
    }

    /// The same frame with analysis marks and arrows.
    pub fn with_annotations(mut self, marks: Vec<Cell>, arrows: Vec<(Cell, Cell)>) -> Frame {
        self.marks = marks;
        self.arrows = arrows;
        self
    }
}
