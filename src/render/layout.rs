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

/// How [`fit_lines`] fits a text to a width.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Fitted<'a> {
    /// Whole on one line at `size`.
    One { size: f32, text: &'a str },
    /// On two lines at `size` (the smallest allowed); `second` may still need [`fit`].
    Two {
        size: f32,
        first: &'a str,
        second: &'a str,
    },
}

/// A text too long for its line goes smaller, then onto two lines, as the board header's
/// status detail does: on one line at the first (largest) of `sizes` at which it fits `max`
/// pixels, else split at a space (see [`split_line`]) onto two lines at the last of `sizes`.
pub(crate) fn fit_lines<'a>(
    text: &'a str,
    weight: canvas::Weight,
    sizes: &[f32],
    max: f32,
) -> Fitted<'a> {
    if let Some(&size) = sizes
        .iter()
        .find(|&&size| Canvas::text_width(weight, size, text) <= max)
    {
        return Fitted::One { size, text };
    }
    let size = sizes.last().copied().unwrap_or(12.0);
    let (first, second) = split_line(text, weight, size, max);
    Fitted::Two {
        size,
        first,
        second,
    }
}

/// `text` split at a space into a first line as long as fits `max` pixels at `size` (ending
/// at a sentence or a " · " where one is near) and the rest (fitted with an ellipsis when
/// drawn, should it still be too long).
fn split_line(text: &str, weight: canvas::Weight, size: f32, max: f32) -> (&str, &str) {
    let fits = |t: &str| Canvas::text_width(weight, size, t.trim_end()) <= max;
    let spaces: Vec<usize> = text.match_indices(' ').map(|(i, _)| i).collect();
    let Some(&last) = spaces.iter().rev().find(|&&i| fits(&text[..i])) else {
        return (text, "");
    };
    // Prefer the end of a sentence or part, if it leaves the first line at least 2/3 full.
    let full = |i: usize| Canvas::text_width(weight, size, &text[..i]) >= max * 2.0 / 3.0;
    let at = spaces
        .iter()
        .rev()
        .filter(|&&i| i <= last && full(i))
        .find(|&&i| text[..i].ends_with('.') || text[i..].starts_with(" · "))
        .copied()
        .unwrap_or(last);
    let second = text[at..].trim_start();
    (
        text[..at].trim_end(),
        second.strip_prefix("· ").unwrap_or(second),
    )
}
