//! The Ard Rí board: 7x7 squares, throne and corners marked, attackers as dark diamonds,
//! defenders as light discs, the king as a light disc with a crown.

use super::canvas::{polygon, rounded_rect, Surface};
use super::frame::Frame;
use super::layout::{cell_centre, cell_origin, BOARD_X, BOARD_Y, CELL};
use super::theme as palette;
use crate::game::ard_ri::Piece;
use crate::game::board::{squares, Square};
use crate::game::{ArdRiPosition, Move, Team};

/// An attacker: a dark diamond with a light rim.
pub(super) fn attacker(c: &mut impl Surface, cx: f32, cy: f32, r: f32, alpha: u8) {
    let pts = [(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)];
    if let Some(p) = polygon(&pts) {
        c.stroke(&p, 5.0, palette::MUTED.alpha(alpha));
        c.fill(&p, palette::ATTACKER.alpha(alpha));
    }
    c.fill_circle(cx, cy, r * 0.22, palette::WOOD_MARK.alpha(alpha));
}

/// A defender: a light disc with a dark outline.
pub(super) fn defender(c: &mut impl Surface, cx: f32, cy: f32, r: f32, alpha: u8) {
    c.fill_circle(cx, cy, r * 0.85, palette::DEFENDER.alpha(alpha));
    c.stroke_circle(cx, cy, r * 0.85, 3.0, palette::INK.alpha(alpha));
}

fn king(c: &mut impl Surface, cx: f32, cy: f32, alpha: u8) {
    c.fill_circle(cx, cy, 28.0, palette::DEFENDER.alpha(alpha));
    c.stroke_circle(cx, cy, 28.0, 3.5, palette::INK.alpha(alpha));
    super::tara::crown(c, cx, cy + 1.0, palette::GOLD_DARK, alpha);
}

fn square_xy(s: Square) -> (f32, f32) {
    cell_origin(s.col(), s.row())
}

/// The frame around the board, just outside its squares (its rounded corners reach into the
/// corner squares by a pixel).
pub(super) fn board_frame(c: &mut impl Surface) {
    if let Some(p) = rounded_rect(
        BOARD_X - 2.0,
        BOARD_Y - 2.0,
        7.0 * CELL + 4.0,
        7.0 * CELL + 4.0,
        4.0,
    ) {
        c.stroke_shared(&p, 3.0, palette::WOOD_MARK);
    }
}

pub(super) fn draw(c: &mut impl Surface, a: &ArdRiPosition, frame: &Frame) {
    let throne = Square::new(3, 3).expect("d4");
    for i in 0..49u8 {
        let s = Square::from_index(i).expect("square");
        let (x, y) = square_xy(s);
        let fill = if (s.col() + s.row()).is_multiple_of(2) {
            palette::WOOD_DARK
        } else {
            palette::WOOD_LIGHT
        };
        c.fill_rect(x, y, CELL, CELL, fill);
        let corner = (s.col() == 0 || s.col() == 6) && (s.row() == 0 || s.row() == 6);
        if corner || s == throne {
            if let Some(p) = rounded_rect(x + 6.0, y + 6.0, CELL - 12.0, CELL - 12.0, 8.0) {
                c.fill_shared(&p, palette::WOOD_MARK.alpha(120));
                c.stroke_shared(&p, 2.5, palette::WOOD_MARK);
            }
            let (cx, cy) = (x + CELL / 2.0, y + CELL / 2.0);
            // A cross of two strands: the refuge mark.
            c.line(
                cx - 14.0,
                cy - 14.0,
                cx + 14.0,
                cy + 14.0,
                3.0,
                palette::WOOD_MARK,
            );
            c.line(
                cx - 14.0,
                cy + 14.0,
                cx + 14.0,
                cy - 14.0,
                3.0,
                palette::WOOD_MARK,
            );
        }
    }
    board_frame(c);
    if let Some(Move::Step { from, to }) = frame.last_move {
        for (s, colour) in [(from, palette::LAST_FROM), (to, palette::LAST_TO)] {
            let (x, y) = square_xy(s);
            c.fill_rect(x, y, CELL, CELL, colour);
        }
    }
    for i in 0..49u8 {
        let s = Square::from_index(i).expect("square");
        let (cx, cy) = cell_centre(s.col(), s.row());
        match a.piece_at(s) {
            Some(Piece::Attacker) => attacker(c, cx, cy, 25.0, 255),
            Some(Piece::Defender) => defender(c, cx, cy, 25.0, 255),
            Some(Piece::King) => king(c, cx, cy, 255),
            None => {}
        }
    }
    // Pieces captured by the last move: ghosts struck through.
    let victims = if a.ply() % 2 == 1 {
        Team::Defenders
    } else {
        Team::Attackers
    };
    for i in squares(a.last_captures()) {
        let s = Square::from_index(i).expect("square");
        let (cx, cy) = cell_centre(s.col(), s.row());
        match victims {
            Team::Attackers => attacker(c, cx, cy, 25.0, 90),
            Team::Defenders => defender(c, cx, cy, 25.0, 90),
        }
        c.line(
            cx - 16.0,
            cy - 16.0,
            cx + 16.0,
            cy + 16.0,
            4.0,
            palette::ALERT,
        );
        c.line(
            cx - 16.0,
            cy + 16.0,
            cx + 16.0,
            cy - 16.0,
            4.0,
            palette::ALERT,
        );
    }
    if let Some(o) = a.outcome() {
        if o.reason == crate::game::EndReason::KingCaptured {
            let k = a.king();
            let (cx, cy) = cell_centre(k.col(), k.row());
            c.stroke_circle(cx, cy, 31.0, 4.0, palette::ALERT);
        }
    }
}
