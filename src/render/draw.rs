//! A whole board image: the header, the board of the game, and the coordinates around it.

use super::canvas::{self, Canvas};
use super::frame::Frame;
use super::indexed;
use super::layout::{cell_centre, BOARD_X, BOARD_Y, CELL, HEIGHT, WIDTH};
use super::theme as palette;
use super::{ard_ri, header, tara};
use crate::game::Position;

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
