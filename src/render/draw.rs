//! A whole board image: the header, the board of the game, and the coordinates around it.

use super::canvas::{self, Canvas, Recording, Surface};
use super::frame::{Cell, Frame};
use super::indexed::{self, PALETTE};
use super::layout::{cell_centre, cell_origin, BOARD_X, BOARD_Y, CELL, HEIGHT, WIDTH};
use super::theme as palette;
use super::{ard_ri, header, tara, tiles};
use crate::game::{BoardView, Position};
use std::sync::OnceLock;

/// Draws a position onto a new canvas, every shape painted (the reference that
/// [`compose`] must match pixel for pixel).
pub fn draw(pos: &Position, frame: &Frame) -> Canvas {
    draw_scaled(pos, frame, 1)
}

/// [`draw`] at `scale` pixels to a pixel of the board image: the same picture, sharp on a
/// screen with two (or more) pixels to a point.
pub fn draw_scaled(pos: &Position, frame: &Frame, scale: u32) -> Canvas {
    let mut c = Canvas::scaled(WIDTH, HEIGHT, palette::BACKGROUND, scale);
    header::draw(&mut c, pos, frame);
    board(&mut c, pos, frame);
    draw_labels(&mut c, pos.variant().is_tara());
    c
}

/// The board itself: hills or squares, pieces, marks and arrows.
fn board(c: &mut impl Surface, pos: &Position, frame: &Frame) {
    match pos.board() {
        BoardView::Hills(t) => tara::draw(c, t, frame),
        BoardView::Squares(a) => ard_ri::draw(c, a, frame),
    }
    draw_annotations(c, frame, pos.variant().is_tara());
}

/// What is the same on every board of a kind (Tara or Ard Rí) outside the grid of cells: the
/// background, the coordinates and the Ard Rí frame, in the palette.
fn base(tara: bool) -> &'static [u8] {
    static BASES: [OnceLock<Vec<u8>>; 2] = [OnceLock::new(), OnceLock::new()];
    BASES[usize::from(tara)].get_or_init(|| {
        let mut c = Canvas::new(WIDTH, HEIGHT, palette::BACKGROUND);
        if !tara {
            ard_ri::board_frame(&mut c);
        }
        draw_labels(&mut c, tara);
        PALETTE.index(&c)
    })
}

/// The shapes of a board that reach outside the grid of cells, there in [`base`]: the
/// Ard Rí frame.
fn outside_the_grid() -> &'static Recording {
    static FRAME: OnceLock<Recording> = OnceLock::new();
    FRAME.get_or_init(|| {
        let mut rec = Recording::default();
        ard_ri::board_frame(&mut rec);
        rec
    })
}

/// A position as palette indices ([`WIDTH`] x [`HEIGHT`]), the same pixels as [`draw`]
/// mapped to the palette: the board is composed of pre-drawn tiles ([`tiles`]), the players'
/// panels are copied from those drawn before, and only the status lines are drawn. A board
/// with analysis marks or arrows is drawn whole: they are rare, and an arrow across cells
/// drawn piecewise differs from one drawn whole by rounding.
pub(crate) fn compose(pos: &Position, frame: &Frame) -> Vec<u8> {
    let mut out = Vec::new();
    compose_changes(
        &mut out,
        pos,
        frame,
        &mut Composed::default(),
        &mut Vec::new(),
    );
    out
}

/// What the last image of a sequence (a replay) was composed of, so that the next is
/// composed from what changed only.
#[derive(Default)]
pub(crate) struct Composed {
    header: Option<header::Shown>,
    /// The cells' keys and tiles; empty if the image was drawn whole.
    cells: tiles::Cells,
}

impl Composed {
    /// The tiles of the board's cells, row by row from the top; none if the image was drawn
    /// whole.
    pub(super) fn tiles(&self) -> &[tiles::Tile] {
        &self.cells.tiles
    }
}

/// Turns `out`, the image composed last with `memo` (or anything, if `memo` is new), into the
/// image of `pos` ([`compose`]), rewriting only the parts that changed, and pushes the regions
/// it rewrote (left, top, right, bottom; pixels outside them are as they were).
pub(crate) fn compose_changes(
    out: &mut Vec<u8>,
    pos: &Position,
    frame: &Frame,
    memo: &mut Composed,
    regions: &mut Vec<[usize; 4]>,
) {
    let whole = [0, 0, WIDTH as usize, HEIGHT as usize];
    let annotated = !frame.marks.is_empty() || !frame.arrows.is_empty();
    let mut rec = memo.cells.recording();
    if !annotated {
        board(&mut rec, pos, frame);
    }
    if annotated || !tiles::fit(&rec, outside_the_grid()) {
        *out = PALETTE.index(&draw(pos, frame));
        *memo = Composed::default();
        regions.push(whole);
        return;
    }
    let mut shown = header::shown(pos, frame);
    if memo.header.is_none() {
        // Nothing to start from: the whole image.
        memo.cells = tiles::Cells::default();
        out.clear();
        out.extend_from_slice(base(pos.variant().is_tara()));
        header::compose_changes(out, None, &mut shown, regions);
        for i in tiles::update(&mut memo.cells, rec) {
            tiles::put(out, i, &memo.cells.tiles[i]);
        }
        regions.clear();
        regions.push(whole);
    } else {
        header::compose_changes(out, memo.header.as_ref(), &mut shown, regions);
        for i in tiles::update(&mut memo.cells, rec) {
            tiles::put(out, i, &memo.cells.tiles[i]);
            regions.push(tiles::region(i));
        }
    }
    memo.header = Some(shown);
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
fn draw_annotations(c: &mut impl Surface, frame: &Frame, tara: bool) {
    let (inset, radius) = if tara { (6.0, 11.0) } else { (5.0, 4.0) };
    for &Cell { col, row } in &frame.marks {
        let (x, y) = cell_origin(col, row);
        let side = CELL - 2.0 * inset;
        if let Some(p) = canvas::rounded_rect(x + inset, y + inset, side, side, radius) {
            c.stroke_shared(&p, NOTE_OUTLINE, palette::INK);
            c.stroke_shared(&p, NOTE_CORE, palette::GOLD);
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
    PALETTE.png_of(&compose(pos, frame), WIDTH, HEIGHT)
}

/// [`board_png`] at `scale` pixels to each of its pixels (2: for a screen of two pixels to a
/// point), drawn at that size rather than enlarged, in the same palette. Scale 1 is
/// [`board_png`] itself.
pub fn board_png_scaled(pos: &Position, frame: &Frame, scale: u32) -> Vec<u8> {
    if scale == 1 {
        return board_png(pos, frame);
    }
    let c = draw_scaled(pos, frame, scale);
    PALETTE.png_of(&PALETTE.index(&c), WIDTH * scale, HEIGHT * scale)
}

/// Prepares the shared palette and its colour lookup, and the parts every board shares
/// (otherwise built for the first image, which then takes some milliseconds longer).
pub fn warm_up() {
    std::sync::LazyLock::force(&indexed::PALETTE);
    base(true);
    base(false);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::playout::{random_game, Rng};
    use crate::game::{GameOptions, Variant};

    /// How many pixels of two images differ.
    fn differing(a: &[u8], b: &[u8]) -> usize {
        a.iter().zip(b).filter(|(x, y)| x != y).count()
    }

    #[test]
    fn boards_composed_of_tiles_are_the_boards_drawn_whole() {
        for (k, variant) in Variant::ALL.into_iter().enumerate() {
            let options = GameOptions::new(variant);
            for seed in 0..3 {
                let (_, moves) = random_game(options, &mut Rng::new(100 * k as u64 + seed));
                let mut pos = Position::new(options);
                let names = ["Aoife Ó Briain".to_string(), "Brian".to_string()];
                for (i, m) in moves.iter().enumerate() {
                    pos.play_unchecked(*m);
                    if i % 5 != 4 && i + 1 != moves.len() {
                        continue;
                    }
                    let frame = Frame::new(names.clone(), Some(*m));
                    let whole = PALETTE.index(&draw(&pos, &frame));
                    let tiled = compose(&pos, &frame);
                    assert_eq!(
                        differing(&whole, &tiled),
                        0,
                        "{variant}, seed {seed}, after {} moves",
                        i + 1
                    );
                }
            }
        }
    }

    #[test]
    fn images_composed_from_what_changed_are_the_boards_drawn_whole() {
        // One sequence per variant, each image rewritten from the last (as a replay's), with
        // the last move highlighted and whose turn it is moving from panel to panel.
        for (k, variant) in Variant::ALL.into_iter().enumerate() {
            let options = GameOptions::new(variant);
            let (_, moves) = random_game(options, &mut Rng::new(40 + k as u64));
            let mut pos = Position::new(options);
            let names = ["Aoife".to_string(), "Brian".to_string()];
            let (mut out, mut memo) = (Vec::new(), Composed::default());
            for (i, m) in moves.iter().enumerate().take(60) {
                pos.play_unchecked(*m);
                let frame = Frame::new(names.clone(), Some(*m)).in_replay();
                compose_changes(&mut out, &pos, &frame, &mut memo, &mut Vec::new());
                let whole = PALETTE.index(&draw(&pos, &frame));
                assert_eq!(differing(&whole, &out), 0, "{variant}, move {}", i + 1);
            }
        }
    }

    #[test]
    fn marks_and_arrows_are_composed_too() {
        let options = GameOptions::new(Variant::ArdRi);
        let (_, moves) = random_game(options, &mut Rng::new(5));
        let mut pos = Position::new(options);
        for m in &moves[..20] {
            pos.play_unchecked(*m);
        }
        let inner = Cell { col: 3, row: 3 };
        let edge = Cell { col: 0, row: 6 };
        for (marks, arrows) in [
            (vec![inner], vec![(inner, Cell { col: 5, row: 2 })]),
            (vec![edge], vec![(edge, inner)]),
        ] {
            let frame = Frame::new(["A".into(), "B".into()], moves.get(19).copied())
                .with_annotations(marks, arrows);
            let whole = PALETTE.index(&draw(&pos, &frame));
            assert_eq!(differing(&whole, &compose(&pos, &frame)), 0);
        }
    }
}
