//! The picture of a daily digest: the boards of the games listed, in a grid, in the order the
//! message lists them, each large enough to read on a phone (the board at least 200 pixels
//! wide, the players' names at least 12 pixels high).

use super::draw::draw;
use super::frame::Frame;
use super::layout::{HEIGHT, WIDTH};
use super::theme as palette;
use crate::game::Position;
use image::imageops::{self, FilterType};
use image::{ImageFormat, Rgb, RgbImage};

/// The most boards a digest's picture shows.
pub const DIGEST_BOARDS: usize = 12;
/// Boards per row.
const COLUMNS: usize = 2;
/// A board's size in the grid: two thirds of the full picture (400 by 460 pixels, its
/// players' names 12.7 pixels high).
const SCALE: (u32, u32) = (2, 3);
/// The space around and between the boards.
const GAP: u32 = 8;

/// The boards (at most [`DIGEST_BOARDS`]; any more are left out) as one PNG: rows of up to
/// two, each two thirds of a board picture's size, on the boards' background.
pub fn digest_png(boards: &[(Position, Frame)]) -> Vec<u8> {
    let boards = &boards[..boards.len().min(DIGEST_BOARDS)];
    let (w, h) = cell();
    let columns = boards.len().clamp(1, COLUMNS) as u32;
    let rows = boards.len().div_ceil(COLUMNS).max(1) as u32;
    let bg = palette::BACKGROUND;
    let mut grid = RgbImage::from_pixel(
        GAP + columns * (w + GAP),
        GAP + rows * (h + GAP),
        Rgb([bg.0, bg.1, bg.2]),
    );
    for (i, (pos, frame)) in boards.iter().enumerate() {
        let canvas = draw(pos, frame);
        let Some(full) = RgbImage::from_raw(canvas.width(), canvas.height(), canvas.rgb()) else {
            continue;
        };
        let small = imageops::resize(&full, w, h, FilterType::Triangle);
        let (col, row) = ((i % COLUMNS) as u32, (i / COLUMNS) as u32);
        imageops::overlay(
            &mut grid,
            &small,
            i64::from(GAP + col * (w + GAP)),
            i64::from(GAP + row * (h + GAP)),
        );
    }
    let mut out = std::io::Cursor::new(Vec::new());
    grid.write_to(&mut out, ImageFormat::Png)
        .expect("a PNG written to memory");
    out.into_inner()
}

/// A board's width and height in the grid.
fn cell() -> (u32, u32) {
    (WIDTH * SCALE.0 / SCALE.1, HEIGHT * SCALE.0 / SCALE.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{GameOptions, Variant};

    /// Issue 45: readable on a phone.
    #[test]
    fn boards_are_at_least_200_pixels_and_names_at_least_12() {
        let (w, _) = cell();
        assert!(w >= 200, "{w}");
        let name = super::super::header::NAME_SIZE * SCALE.0 as f32 / SCALE.1 as f32;
        assert!(name >= 12.0, "{name}");
    }

    #[test]
    fn the_grid_holds_up_to_two_boards_a_row_and_twelve_in_all() {
        let size = |n: usize| {
            let b: Vec<(Position, Frame)> = (0..n)
                .map(|_| {
                    let pos = Position::new(GameOptions::new(Variant::Hkot1));
                    (pos, Frame::new(["a".into(), "b".into()], None))
                })
                .collect();
            let png = digest_png(&b);
            let img = image::load_from_memory(&png).unwrap();
            (img.width(), img.height())
        };
        let (w, h) = cell();
        assert_eq!(size(1), (GAP + w + GAP, GAP + h + GAP));
        assert_eq!(size(5), (GAP + 2 * (w + GAP), GAP + 3 * (h + GAP)));
        assert_eq!(size(20), (GAP + 2 * (w + GAP), GAP + 6 * (h + GAP)));
    }
}
