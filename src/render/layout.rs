//! Where things are on a board image, and text fitted to a width.

use super::canvas::{self, Canvas};

/// Width of a board image in pixels.
pub const WIDTH: u32 = 600;
/// Height of a board image in pixels.
pub const HEIGHT: u32 = 690;
/// Height of the header with the players and the status.
pub(crate) const HEADER: f32 = 138.0;
/// Side of one hill or square.
pub(crate) const CELL: f32 = 72.0;
/// Left edge of the board.
pub(crate) const BOARD_X: f32 = 48.0;
/// Top edge of the board.
pub(crate) const BOARD_Y: f32 = HEADER + 8.0;

/// Top-left corner of the cell at column `col`, row `row` (0 = row 1, drawn at the bottom).
pub(crate) fn cell_origin(col: u8, row: u8) -> (f32, f32) {
    (
        BOARD_X + f32::from(col) * CELL,
        BOARD_Y + f32::from(6 - row) * CELL,
    )
}

/// Centre of a cell.
pub(crate) fn cell_centre(col: u8, row: u8) -> (f32, f32) {
    let (x, y) = cell_origin(col, row);
    (x + CELL / 2.0, y + CELL / 2.0)
}

/// Shortens `text` with an ellipsis to fit `max` pixels.
pub(crate) fn fit(text: &str, weight: canvas::Weight, size: f32, max: f32) -> String {
    fit_width(text, weight, size, max).0
}

/// [`fit`], and the width of what it returns.
pub(crate) fn fit_width(text: &str, weight: canvas::Weight, size: f32, max: f32) -> (String, f32) {
    let width = Canvas::text_width(weight, size, text);
    if width <= max {
        return (text.to_string(), width);
    }
    let mut s: String = text.to_string();
    while !s.is_empty() {
        s.pop();
        let t = format!("{}…", s.trim_end());
        let width = Canvas::text_width(weight, size, &t);
        if width <= max {
            return (t, width);
        }
    }
    let t = "…".to_string();
    let width = Canvas::text_width(weight, size, &t);
    (t, width)
}
