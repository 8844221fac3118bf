//! Boards composed from pre-drawn tiles, as lichess' lila-gif composes chess boards from its
//! sprites: the board's drawing code records its shapes ([`Recording`]) instead of painting
//! them, and each of the 49 cells of the grid is then copied from a tile in the fixed palette.
//!
//! A cell's pixels depend only on the shapes that reach into it, in the order they are drawn,
//! so the cell and that list, taken relative to the cell's corner, are the tile's key. (The
//! cell is part of the key because the same shapes at another cell are computed from other
//! coordinates and can round differently by a pixel's shade; with it, a composed board is the
//! board drawn whole, pixel for pixel.) A tile is painted by
//! the same drawing code (the recorded shapes, moved to the tile's corner) and mapped to the
//! palette the first time its key is seen, and copied every time after: an empty hill, a
//! ringfort with its bridges and siege notches, a square with its piece and highlight. Shapes
//! of the board never leave the grid; the images drawn around it (coordinates, the Ard Rí
//! frame, the header) are made elsewhere.

use super::canvas::{Canvas, Held, Op, Recording, Shape};
use super::fx::FxBuild;
use super::indexed::PALETTE;
use super::layout::{BOARD_X, BOARD_Y, CELL, HEIGHT, WIDTH};
use super::theme;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, LazyLock, Mutex};

/// Side of a tile in pixels.
const SIDE: usize = CELL as usize;
/// Cells per side of the grid.
const CELLS: usize = 7;
/// Tiles kept at most (5 KB each, 40 MB in all); the cache starts over when it is full.
const MAX_TILES: usize = 8192;

type Tiles = HashMap<Box<[u32]>, Arc<[u8]>, FxBuild>;

/// The tiles painted so far, and the canvas they are painted on.
#[derive(Default)]
struct Cache {
    tiles: Tiles,
    /// The same tiles by their pixels: two keys whose tiles have the same pixels (the same
    /// shapes at two cells, mostly) share one tile, so that a tile's pointer stands for its
    /// pixels ([`Tile`]).
    by_pixels: HashSet<Tile, FxBuild>,
    scratch: Option<Canvas>,
}

static TILES: LazyLock<Mutex<Cache>> = LazyLock::new(|| Mutex::new(Cache::default()));

/// The grid's edges in pixels: left, top, right, bottom.
const GRID: [f32; 4] = [
    BOARD_X,
    BOARD_Y,
    BOARD_X + CELLS as f32 * CELL,
    BOARD_Y + CELLS as f32 * CELL,
];

/// Whether every recorded shape stays inside the grid or is one of the shapes `outside` (drawn
/// around the grid once for every board), so that tiles make the whole board.
pub(super) fn fit(rec: &Recording, outside: &Recording) -> bool {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    rec.ops.iter().all(|op| {
        let r = op.bounds;
        let inside = r[0] >= GRID[0] && r[1] >= GRID[1] && r[2] <= GRID[2] && r[3] <= GRID[3];
        inside || {
            a.clear();
            key_words(op, 0.0, 0.0, &mut a);
            outside.ops.iter().any(|o| {
                b.clear();
                key_words(o, 0.0, 0.0, &mut b);
                a == b
            })
        }
    })
}

/// The cells (columns or rows of the grid, from the left or the top) that pixels from `lo` to
/// `hi` reach, given the grid's edge `start` (a whole pixel, as the cells' sides are).
fn cells_of(lo: f32, hi: f32, start: i32) -> std::ops::RangeInclusive<usize> {
    let side = SIDE as i32;
    let first = (floor(lo) - start).max(0) / side;
    let last = (-floor(-hi) - 1 - start).max(0) / side;
    (first as usize).min(CELLS - 1)..=(last as usize).min(CELLS - 1)
}

/// `x` rounded down to a whole pixel, for the image's coordinates (far inside `i32`), in
/// integers: `f32::floor` is a library call on processors without SSE 4.1, and it and the
/// division by the cell's side were most of finding the cells an op reaches.
fn floor(x: f32) -> i32 {
    let t = x as i32;
    if t as f32 > x {
        t - 1
    } else {
        t
    }
}

/// The cells an op's pixels can reach: its rows and columns of the grid.
fn span(op: &Op) -> [std::ops::RangeInclusive<usize>; 2] {
    let b = op.bounds;
    [
        cells_of(b[1], b[3], GRID[1] as i32),
        cells_of(b[0], b[2], GRID[0] as i32),
    ]
}

/// The cells (row by row from the top) of a [`span`].
fn cells_in(
    [rows, cols]: &[std::ops::RangeInclusive<usize>; 2],
) -> impl Iterator<Item = usize> + '_ {
    rows.clone()
        .flat_map(move |row| cols.clone().map(move |col| row * CELLS + col))
}

/// Appends an op's key words, relative to the corner (x, y) of a cell.
fn key_words(op: &Op, x: f32, y: f32, key: &mut Vec<u32>) {
    let c = op.colour;
    let colour = u32::from_be_bytes([c.0, c.1, c.2, c.3]);
    let path = match &op.shape {
        Shape::Fill(p) => {
            key.extend([0, colour]);
            p
        }
        Shape::Stroke(p, w) => {
            key.extend([1, colour, w.to_bits()]);
            p
        }
        Shape::Rect([rx, ry, w, h]) => {
            key.extend([
                2,
                colour,
                (rx - x).to_bits(),
                (ry - y).to_bits(),
                w.to_bits(),
                h.to_bits(),
            ]);
            return;
        }
    };
    key.push(path.verbs().len() as u32);
    key.extend(path.verbs().iter().map(|v| *v as u32));
    for p in path.points() {
        key.extend([(p.x - x).to_bits(), (p.y - y).to_bits()]);
    }
}

/// Paints a tile: the shapes that reach the cell at (x, y), over the background, in the
/// palette. They are painted where they are on the board, on a canvas of the board's size, so
/// that every pixel is computed exactly as when the board is drawn whole.
fn paint(scratch: &mut Canvas, ops: &[&Op], x: f32, y: f32) -> Arc<[u8]> {
    scratch.fill_rect(x, y, CELL, CELL, theme::BACKGROUND);
    for op in ops {
        op.paint(scratch, 0.0, 0.0);
    }
    let line = scratch.width() as usize * 4;
    let (left, top) = (x as usize, y as usize);
    let data = scratch.pixmap.data();
    let mut rgba = Vec::with_capacity(SIDE * SIDE * 4);
    for row in top..top + SIDE {
        let at = row * line + left * 4;
        rgba.extend_from_slice(&data[at..at + SIDE * 4]);
    }
    PALETTE.index_rgba(&rgba).into()
}

/// A cell's tile, in the palette. Tiles with the same pixels are one tile (while the tile
/// cache is not started over), so two tiles are the same pixels when they are one pointer.
pub(super) type Tile = Arc<[u8]>;

/// The cells of a board: each one's key and tile, row by row from the top (empty before the
/// first board), and the recording they were made from.
#[derive(Default)]
pub(super) struct Cells {
    keys: Vec<Vec<u32>>,
    pub(super) tiles: Vec<Tile>,
    /// The recording, and the ops reaching each cell: `ops[reach[count[i]..count[i + 1]]]`.
    last: Recording,
    reach: Vec<u32>,
    count: Vec<usize>,
    /// The recording before, emptied, to record the next board in without growing a list.
    spare: Recording,
}

impl Cells {
    /// An empty recording to record the next board in.
    pub(super) fn recording(&mut self) -> Recording {
        std::mem::take(&mut self.spare)
    }
}

/// Makes `cells` the cells of the recorded board, painting the tiles not seen before, and
/// returns those whose pixels changed (all of them if `cells` was empty). A cell reached by the
/// same shapes as before keeps its key and tile; one whose key is the one it had keeps its tile
/// without a search. The shapes must [`fit`] the grid.
pub(super) fn update(cells: &mut Cells, rec: Recording) -> Vec<usize> {
    // The ops reaching each cell, in drawing order: counted, then placed (one list for all).
    let spans: Vec<_> = rec.ops.iter().map(span).collect();
    let mut count = vec![0usize; CELLS * CELLS + 1];
    for s in &spans {
        for i in cells_in(s) {
            count[i + 1] += 1;
        }
    }
    for i in 1..count.len() {
        count[i] += count[i - 1];
    }
    let mut at = count.clone();
    let mut reach = vec![0u32; count[CELLS * CELLS]];
    for (k, s) in spans.iter().enumerate() {
        for i in cells_in(s) {
            reach[at[i]] = k as u32;
            at[i] += 1;
        }
    }
    let fresh = cells.tiles.len() != CELLS * CELLS;
    if fresh {
        cells.keys = vec![Vec::new(); CELLS * CELLS];
        cells.tiles.clear();
    }
    let mut changed = Vec::new();
    let mut key = Vec::with_capacity(512);
    let mut cache = None;
    let mut ops = Vec::new();
    for i in 0..CELLS * CELLS {
        let mine = &reach[count[i]..count[i + 1]];
        if !fresh {
            let before = &cells.reach[cells.count[i]..cells.count[i + 1]];
            let same = |(&a, &b): (&u32, &u32)| {
                same_shape(&rec.ops[a as usize], &cells.last.ops[b as usize])
            };
            if mine.len() == before.len() && mine.iter().zip(before).all(same) {
                continue;
            }
        }
        ops.clear();
        ops.extend(mine.iter().map(|&k| &rec.ops[k as usize]));
        let (x, y) = corner(i);
        key.clear();
        key.push(i as u32);
        for op in &ops {
            key_words(op, x, y, &mut key);
        }
        if !fresh && key == cells.keys[i] {
            continue;
        }
        let cache = cache.get_or_insert_with(|| TILES.lock().unwrap_or_else(|e| e.into_inner()));
        let Cache {
            tiles,
            by_pixels,
            scratch,
        } = &mut **cache;
        let tile = match tiles.get(&key[..]) {
            Some(t) => t.clone(),
            None => {
                let scratch =
                    scratch.get_or_insert_with(|| Canvas::new(WIDTH, HEIGHT, theme::BACKGROUND));
                let painted = paint(scratch, &ops, x, y);
                if tiles.len() >= MAX_TILES {
                    tiles.clear();
                    by_pixels.clear();
                }
                let t = match by_pixels.get(&painted[..]) {
                    Some(same) => same.clone(),
                    None => {
                        by_pixels.insert(painted.clone());
                        painted
                    }
                };
                tiles.insert(key.clone().into_boxed_slice(), t.clone());
                t
            }
        };
        if fresh {
            cells.tiles.push(tile);
            changed.push(i);
        } else {
            let last = &cells.tiles[i];
            if !Arc::ptr_eq(&tile, last) && tile[..] != last[..] {
                changed.push(i);
            }
            cells.tiles[i] = tile;
        }
        std::mem::swap(&mut cells.keys[i], &mut key);
    }
    drop(ops);
    let mut before = std::mem::replace(&mut cells.last, rec);
    before.ops.clear();
    cells.spare = before;
    (cells.reach, cells.count) = (reach, count);
    changed
}

/// Whether two ops have the same key words wherever they are keyed ([`key_words`]): the same
/// kind of shape, colour, width and path, to the bit. Paths shared from one cache are the same
/// without comparing their points.
fn same_shape(a: &Op, b: &Op) -> bool {
    let path = |p: &Held, q: &Held| match (p, q) {
        (Held::Shared(p), Held::Shared(q)) if Arc::ptr_eq(p, q) => true,
        _ => {
            p.verbs() == q.verbs()
                && p.points().len() == q.points().len()
                && p.points()
                    .iter()
                    .zip(q.points())
                    .all(|(u, v)| u.x.to_bits() == v.x.to_bits() && u.y.to_bits() == v.y.to_bits())
        }
    };
    a.colour == b.colour
        && match (&a.shape, &b.shape) {
            (Shape::Fill(p), Shape::Fill(q)) => path(p, q),
            (Shape::Stroke(p, w), Shape::Stroke(q, v)) => w.to_bits() == v.to_bits() && path(p, q),
            (Shape::Rect(r), Shape::Rect(t)) => r.map(f32::to_bits) == t.map(f32::to_bits),
            _ => false,
        }
}

/// The top-left corner of cell `i` (row by row from the top).
fn corner(i: usize) -> (f32, f32) {
    let (col, row) = (i % CELLS, i / CELLS);
    (GRID[0] + col as f32 * CELL, GRID[1] + row as f32 * CELL)
}

/// The region of the image cell `i` lies in: left, top, right, bottom (exclusive).
pub(super) fn region(i: usize) -> [usize; 4] {
    let (x, y) = corner(i);
    let (left, top) = (x as usize, y as usize);
    [left, top, left + SIDE, top + SIDE]
}

/// The cells under a box of the image (left, top, right, bottom; exclusive), row by row, and
/// the box relative to the first one's corner; `None` unless the box is within the grid.
pub(super) fn cells_under(b: [usize; 4]) -> Option<([usize; 4], Vec<usize>)> {
    let [left, top, right, bottom] = GRID.map(|e| e as usize);
    if b[0] < left || b[1] < top || b[2] > right || b[3] > bottom || b[0] >= b[2] || b[1] >= b[3] {
        return None;
    }
    let (cols, rows) = (
        cells_of(b[0] as f32, b[2] as f32, left as i32),
        cells_of(b[1] as f32, b[3] as f32, top as i32),
    );
    let [x, y, ..] = region(rows.start() * CELLS + cols.start());
    let cells = rows
        .flat_map(|r| cols.clone().map(move |c| r * CELLS + c))
        .collect();
    Some(([b[0] - x, b[1] - y, b[2] - x, b[3] - y], cells))
}

/// Copies the tile of cell `i` into `out`.
pub(super) fn put(out: &mut [u8], i: usize, tile: &[u8]) {
    let width = WIDTH as usize;
    let [left, top, ..] = region(i);
    for (r, line) in tile.chunks_exact(SIDE).enumerate() {
        let at = (top + r) * width + left;
        out[at..at + SIDE].copy_from_slice(line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_on_the_grid_are_found_with_the_cells_under_them() {
        // The grid is 48..552 across and 146..650 down, cells of 72.
        assert_eq!(
            cells_under([51, 149, 117, 215]),
            Some(([3, 3, 69, 69], vec![0]))
        );
        // Two cells side by side, then four, the last at the grid's far corner.
        assert_eq!(
            cells_under([123, 365, 261, 431]),
            Some(([3, 3, 141, 69], vec![22, 23]))
        );
        assert_eq!(
            cells_under([410, 510, 552, 650]),
            Some(([2, 4, 144, 144], vec![40, 41, 47, 48]))
        );
        for b in [
            [47, 149, 117, 215],
            [51, 145, 117, 215],
            [51, 149, 553, 215],
            [60, 600, 70, 651],
        ] {
            assert_eq!(cells_under(b), None, "{b:?}");
        }
        // Each cell under a box is one it touches, and every pixel of the box is under one.
        for b in [
            [120, 146, 192, 218],
            [119, 146, 193, 219],
            [400, 300, 401, 301],
        ] {
            let ([x, y, ..], cells) = cells_under(b).unwrap();
            let [left, top, ..] = region(cells[0]);
            assert_eq!((left + x, top + y), (b[0], b[1]));
            for px in b[0]..b[2] {
                for py in b[1]..b[3] {
                    let inside = |&c: &usize| {
                        let r = region(c);
                        r[0] <= px && px < r[2] && r[1] <= py && py < r[3]
                    };
                    assert!(cells.iter().any(inside), "{b:?}: ({px}, {py})");
                }
            }
            assert!(cells.iter().all(|&c| {
                let r = region(c);
                r[0] < b[2] && b[0] < r[2] && r[1] < b[3] && b[1] < r[3]
            }));
        }
    }

    #[test]
    fn cells_reached_follow_the_pixels_touched() {
        // The grid starts at 48: pixels 48..120 are cell 0, 120..192 cell 1.
        assert_eq!(cells_of(48.0, 120.0, 48), 0..=0);
        assert_eq!(cells_of(48.0, 120.5, 48), 0..=1);
        assert_eq!(cells_of(119.5, 130.0, 48), 0..=1);
        assert_eq!(cells_of(500.0, 700.0, 48), 6..=6);
        assert_eq!(cells_of(-30.0, 47.5, 48), 0..=0);
        // As the same sums in floating point (how the cells were found before).
        let float = |lo: f32, hi: f32, start: f32| {
            let first = ((lo.floor() - start) / CELL).floor().max(0.0) as usize;
            let last = ((hi.ceil() - 1.0 - start) / CELL).floor().max(0.0) as usize;
            first.min(CELLS - 1)..=last.min(CELLS - 1)
        };
        for k in -400..3000 {
            let lo = k as f32 / 4.0 - 0.1;
            for hi in [lo + 0.3, lo + 1.0, lo + 71.75, lo + 144.0] {
                assert_eq!(cells_of(lo, hi, 146), float(lo, hi, 146.0), "{lo}..{hi}");
            }
        }
    }

    #[test]
    fn shapes_found_the_same_have_the_same_key_words() {
        use crate::render::canvas::Surface;
        let mut a = Recording::default();
        a.fill_circle(100.0, 200.0, 20.0, theme::BACKGROUND);
        a.fill_circle(100.0, 200.0, 20.0, theme::BACKGROUND);
        a.fill_circle(100.0, 200.5, 20.0, theme::BACKGROUND);
        a.stroke_circle(100.0, 200.0, 20.0, 2.0, theme::BACKGROUND);
        a.stroke_circle(100.0, 200.0, 20.0, 2.5, theme::BACKGROUND);
        a.fill_rect(60.0, 150.0, 10.0, 10.0, theme::BACKGROUND);
        a.fill_rect(60.0, 150.0, 10.0, 10.25, theme::BACKGROUND);
        let mut b = Recording::default();
        b.fill_circle(100.0, 200.0, 20.0, theme::HILL);
        b.fill_rect(60.0, 150.0, 10.0, 10.0, theme::BACKGROUND);
        let ops: Vec<&Op> = a.ops.iter().chain(&b.ops).collect();
        let words = |op: &Op| {
            let mut key = Vec::new();
            key_words(op, 48.0, 146.0, &mut key);
            key
        };
        let mut same = 0;
        for (i, x) in ops.iter().enumerate() {
            for (j, y) in ops.iter().enumerate() {
                let found = same_shape(x, y);
                assert_eq!(found, words(x) == words(y), "ops {i} and {j}");
                same += usize::from(found && i != j);
            }
        }
        // The two equal circles (either way round) and the two equal squares.
        assert_eq!(same, 4);
    }

    #[test]
    fn floor_is_the_library_floor_on_coordinates() {
        for k in -4000..4000 {
            for x in [
                k as f32 / 4.0,
                k as f32 * 0.37,
                k as f32 + 0.999,
                k as f32 - 1e-3,
            ] {
                assert_eq!(floor(x) as f32, x.floor(), "{x}");
            }
        }
    }
}
