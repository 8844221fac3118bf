//! Board images: a position in, PNG bytes out (and an animated GIF of a whole game). Pure: no
//! rules decisions are made here; everything shown comes from the engine.

mod ard_ri;
pub mod canvas;
mod header;
mod indexed;
mod replay;
mod tara;
pub mod text;

pub use replay::replay_gif;

use crate::game::{Move, Position};
use canvas::Canvas;

/// Width of a board image in pixels.
pub const WIDTH: u32 = 600;
/// Height of a board image in pixels.
pub const HEIGHT: u32 = 690;
/// Height of the header with the players and the status.
const HEADER: f32 = 138.0;
/// Side of one hill or square.
const CELL: f32 = 72.0;
/// Left edge of the board.
const BOARD_X: f32 = 48.0;
/// Top edge of the board.
const BOARD_Y: f32 = HEADER + 8.0;

/// The colours of the images: a parchment card that reads on Discord's dark and light themes.
pub(crate) mod palette {
    use super::canvas::Rgba;
    pub const BACKGROUND: Rgba = Rgba::rgb(0xf4, 0xec, 0xd8);
    pub const PANEL: Rgba = Rgba::rgb(0xfb, 0xf7, 0xee);
    pub const PANEL_EDGE: Rgba = Rgba::rgb(0xd3, 0xc4, 0xa6);
    pub const INK: Rgba = Rgba::rgb(0x2b, 0x23, 0x20);
    pub const MUTED: Rgba = Rgba::rgb(0x6b, 0x5d, 0x52);
    pub const HILL: Rgba = Rgba::rgb(0xb9, 0xcc, 0x98);
    pub const HILL_EDGE: Rgba = Rgba::rgb(0x8d, 0xa6, 0x6f);
    pub const HOLE: Rgba = Rgba::rgb(0x5f, 0x7a, 0x48);
    pub const RED: Rgba = Rgba::rgb(0xc2, 0x3b, 0x22);
    pub const RED_LIGHT: Rgba = Rgba::rgb(0xf2, 0xc6, 0xb6);
    pub const RED_DARK: Rgba = Rgba::rgb(0x4e, 0x14, 0x0c);
    pub const BLUE: Rgba = Rgba::rgb(0x1f, 0x5f, 0xae);
    pub const BLUE_LIGHT: Rgba = Rgba::rgb(0xc4, 0xd8, 0xf1);
    pub const BLUE_DARK: Rgba = Rgba::rgb(0x0b, 0x26, 0x4d);
    pub const GOLD: Rgba = Rgba::rgb(0xf2, 0xc1, 0x4e);
    pub const GOLD_DARK: Rgba = Rgba::rgb(0x7a, 0x55, 0x08);
    pub const LAST_TO: Rgba = Rgba(0xf5, 0xc8, 0x3c, 0xd8);
    pub const LAST_FROM: Rgba = Rgba(0xf5, 0xc8, 0x3c, 0x70);
    pub const ALERT: Rgba = Rgba::rgb(0xb0, 0x10, 0x24);
    pub const WOOD_LIGHT: Rgba = Rgba::rgb(0xee, 0xdc, 0xb5);
    pub const WOOD_DARK: Rgba = Rgba::rgb(0xdf, 0xc8, 0x98);
    pub const WOOD_MARK: Rgba = Rgba::rgb(0xa8, 0x84, 0x4c);
    pub const ATTACKER: Rgba = Rgba::rgb(0x2c, 0x2a, 0x29);
    pub const DEFENDER: Rgba = Rgba::rgb(0xfb, 0xfa, 0xf6);
}

/// What to draw besides the position itself.
#[derive(Clone, Debug, Default)]
pub struct Frame {
    /// The players' display names in seat order (Red or the attackers first).
    pub names: [String; 2],
    /// The move that led to this position (highlighted).
    pub last_move: Option<Move>,
    /// A result decided outside the rules (resignation, timeout): shown as the result of the
    /// game in this position.
    pub result: Option<crate::game::Outcome>,
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
    pub fn with_result(mut self, result: crate::game::Outcome) -> Frame {
        self.result = Some(result);
        self
    }
}

/// Top-left corner of the cell at column `col`, row `row` (0 = row 1, drawn at the bottom).
fn cell_origin(col: u8, row: u8) -> (f32, f32) {
    (
        BOARD_X + f32::from(col) * CELL,
        BOARD_Y + f32::from(6 - row) * CELL,
    )
}

/// Centre of a cell.
fn cell_centre(col: u8, row: u8) -> (f32, f32) {
    let (x, y) = cell_origin(col, row);
    (x + CELL / 2.0, y + CELL / 2.0)
}

/// Draws a position onto a new canvas.
pub fn draw(pos: &Position, frame: &Frame) -> Canvas {
    let mut c = Canvas::new(WIDTH, HEIGHT, palette::BACKGROUND);
    header::draw(&mut c, pos, frame);
    match pos {
        Position::Tara(t) => tara::draw(&mut c, t, frame),
        Position::ArdRi(a) => ard_ri::draw(&mut c, a, frame),
    }
    draw_labels(&mut c, pos.variant().is_tara());
    c
}

/// A PNG of a position (8-bit indexed colour in the images' fixed palette).
pub fn board_png(pos: &Position, frame: &Frame) -> Vec<u8> {
    indexed::PALETTE.png(&draw(pos, frame))
}

/// Prepares the shared palette and its colour lookup (otherwise built for the first image,
/// which then takes some milliseconds longer).
pub fn warm_up() {
    std::sync::LazyLock::force(&indexed::PALETTE);
}

/// Column letters under the board and row numbers beside it.
fn draw_labels(c: &mut Canvas, upper: bool) {
    use canvas::{Align, Style, Weight};
    for i in 0..7u8 {
        let letter = if upper { b'A' + i } else { b'a' + i } as char;
        let (x, _) = cell_centre(i, 0);
        c.text(
            Style::new(Weight::Bold, 17.0, palette::MUTED),
            x,
            BOARD_Y + 7.0 * CELL + 24.0,
            Align::Centre,
            &letter.to_string(),
        );
        let (_, y) = cell_centre(0, i);
        let n = (i + 1).to_string();
        c.text(
            Style::new(Weight::Bold, 17.0, palette::MUTED),
            BOARD_X - 16.0,
            y + 6.0,
            Align::Centre,
            &n,
        );
        c.text(
            Style::new(Weight::Bold, 17.0, palette::MUTED),
            BOARD_X + 7.0 * CELL + 16.0,
            y + 6.0,
            Align::Centre,
            &n,
        );
    }
}

/// Shortens `text` with an ellipsis to fit `max` pixels.
pub(crate) fn fit(text: &str, weight: canvas::Weight, size: f32, max: f32) -> String {
    if Canvas::text_width(weight, size, text) <= max {
        return text.to_string();
    }
    let mut s: String = text.to_string();
    while !s.is_empty() {
        s.pop();
        let t = format!("{}…", s.trim_end());
        if Canvas::text_width(weight, size, &t) <= max {
            return t;
        }
    }
    "…".to_string()
}
