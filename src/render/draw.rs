//! A whole board image: the header, the board of the game, and the coordinates around it.

use super::canvas::{self, Canvas};
use super::frame::{Cell, Frame};
use super::indexed;
use super::layout::{cell_centre, cell_origin, BOARD_X, BOARD_Y, CELL, HEIGHT, WIDTH};
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
    draw_annotations(&mut c, frame, pos.variant().is_tara());
    draw_labels(&mut c, pos.variant().is_tara());
    c
}

/// Width of the dark outline of a mark's frame and of an arrow's shaft.
const NOTE_OUTLINE: f32 = 11.0;
/// Width of the gold core of a mark's frame and of an arrow's shaft.
const NOTE_CORE: f32 = 6.0;
/// Length and half width of an arrow's head.
const HEAD_LEN: f32 = 24.0;
const HEAD_HALF: f32 = 15.0;

/// Analysis marks (a gold frame with a dark edge around the hill or square, the shape of a
/// Tara hill's tile or of an Ard Rí square) and arrows (a gold shaft and head with a dark
/// edge, from the centre of one cell towards the centre of another), over the pieces so that
/// they read on both boards. Nothing is drawn when the frame has neither, so plain boards stay
/// as they were.
fn draw_annotations(c: &mut Canvas, frame: &Frame, tara: bool) {
    let (inset, radius) = if tara { (6.0, 11.0) } else { (5.0, 4.0) };
    for &Cell { col, row } in &frame.marks {
        let (x, y) = cell_origin(col, row);
        let side = CELL - 2.0 * inset;
        if let Some(p) = canvas::rounded_rect(x + inset, y + inset, side, side, radius) {
            c.stroke(&p, NOTE_OUTLINE, palette::INK);
            c.stroke(&p, NOTE_CORE, palette::GOLD);
        }
    }
    for &(from, to) in &frame.arrows {
        let (x0, y0) = cell_centre(from.col, from.row);
        let (x1, y1) = cell_centre(to.col, to.row);
        let len = ((x1 - x0).powi(2) + (y1 - y0).powi(2)).sqrt();
        if len < 1.0 {
            continue;
        }
        let (dx, dy) = ((x1 - x0) / len, (y1 - y0) / len);
        let (nx, ny) = (-dy, dx);
        // The tip stops short of the centre, the shaft where the head begins.
        let tip = (x1 - dx * 8.0, y1 - dy * 8.0);
        let base = (tip.0 - dx * HEAD_LEN, tip.1 - dy * HEAD_LEN);
        let start = (x0 + dx * 10.0, y0 + dy * 10.0);
        let head = [
            tip,
            (base.0 + nx * HEAD_HALF, base.1 + ny * HEAD_HALF),
            (base.0 - nx * HEAD_HALF, base.1 - ny * HEAD_HALF),
        ];
        let shaft_end = (base.0 + dx * 2.0, base.1 + dy * 2.0);
        c.line(
            start.0,
            start.1,
            shaft_end.0,
            shaft_end.1,
            NOTE_OUTLINE,
            palette::INK,
        );
        if let Some(p) = canvas::polygon(&head) {
            c.stroke(&p, NOTE_OUTLINE - NOTE_CORE, palette::INK);
        }
        c.line(
            start.0,
            start.1,
            shaft_end.0,
            shaft_end.1,
            NOTE_CORE,
            palette::GOLD,
        );
        if let Some(p) = canvas::polygon(&head) {
            c.fill(&p, palette::GOLD);
        }
    }
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
