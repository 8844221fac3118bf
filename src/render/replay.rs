//! An animated GIF of a whole game in the images' fixed palette: the first position whole, and
//! each later one as the boxes that changed (the header's and the board's), unchanged pixels
//! transparent. A position shown as two images shows the first for [`PART_DELAY`] only.

use super::draw::{compose_changes, Composed};
use super::frame::Frame;
use super::fx::FxBuild;
use super::header::PANELS_BOTTOM;
use super::indexed::PALETTE;
use super::layout::{BOARD_X, BOARD_Y, CELL, HEADER, HEIGHT, WIDTH};
use super::lzw::{unchanged, Coded, Lzw, Pixels};
use super::tiles::{self, Tile};
use crate::game::{GameOptions, Move, Position};
use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, LazyLock, Mutex};

/// Delay of each position, in hundredths of a second.
const FRAME_DELAY: u16 = 90;
/// Delay of the first position (the start, before anything moves).
const FIRST_DELAY: u16 = 200;
/// Delay of the last position (the result).
const LAST_DELAY: u16 = 400;
/// Delay of the first image of a position shown as two (the header's change, then the
/// board's): the shortest that browsers honour (they show 0 or 1 as 10).
pub const PART_DELAY: u16 = 2;
/// Palette index left transparent in cropped frames (unchanged pixels).
const TRANSPARENT: u8 = super::indexed::UNUSED;

/// The positions of a game after 0, 1, …, n moves (moves known legal).
fn positions(options: GameOptions, moves: &[Move]) -> Vec<(Position, Option<Move>)> {
    let mut pos = Position::new(options);
    let mut out = vec![(pos.clone(), None)];
    for m in moves {
        pos.play_unchecked(*m);
        out.push((pos.clone(), Some(*m)));
    }
    out
}

/// Discord's upload limit for a file (10 MiB): a replay posted there must not be larger.
pub const UPLOAD_LIMIT: usize = 10_485_760;
/// How many of the last positions a thinned replay always shows (the end of a game is where
/// it is decided), besides the final one.
const KEEP_LAST: usize = 6;

/// A replay made to fit a size limit ([`replay_gif_within`]).
#[derive(Clone, Debug)]
pub struct Replay {
    /// The GIF.
    pub bytes: Vec<u8>,
    /// The plies (0 = the start) whose positions are frames, in order.
    pub shown: Vec<usize>,
    /// Every `step`-th position was kept (1: all of them).
    pub step: usize,
}

impl Replay {
    /// How many positions of the game were left out.
    pub fn skipped(&self, moves: usize) -> usize {
        moves + 1 - self.shown.len()
    }
}

/// An animated GIF of a game, one frame per position (moves + 1 frames), looping.
pub fn replay_gif(options: GameOptions, moves: &[Move], names: &[String; 2]) -> Vec<u8> {
    let all: Vec<usize> = (0..=moves.len()).collect();
    encode(&positions(options, moves), &all, names)
}

/// An animated GIF of a game no larger than `limit` bytes: every position when that fits,
/// else every `k`-th position (the smallest `k` that fits) plus the last [`KEEP_LAST`] and the
/// final one. `None` if not even the start and the end fit.
pub fn replay_gif_within(
    options: GameOptions,
    moves: &[Move],
    names: &[String; 2],
    limit: usize,
) -> Option<Replay> {
    let all = positions(options, moves);
    let n = moves.len();
    let mut step = 1;
    loop {
        let shown = thinned(n, step);
        let bytes = encode(&all, &shown, names);
        if bytes.len() <= limit {
            return Some(Replay { bytes, shown, step });
        }
        if step > n {
            return None;
        }
        // Frames cost about the same whatever the step, so the next try keeps about the
        // share that fits (with a tenth to spare), and always fewer frames than this one.
        let share = bytes.len() as f64 / limit as f64 * 1.1;
        step = ((step as f64 * share).ceil() as usize).max(step + 1);
    }
}

/// The plies shown when every `step`-th position is kept, plus the last [`KEEP_LAST`] and
/// the final one (`n` moves).
fn thinned(n: usize, step: usize) -> Vec<usize> {
    if step <= 1 {
        return (0..=n).collect();
    }
    let tail = n.saturating_sub(KEEP_LAST);
    let mut shown: Vec<usize> = (0..=n).filter(|&p| p % step == 0 || p >= tail).collect();
    if step > n {
        shown.retain(|&p| p == 0 || p == n);
    }
    shown
}

/// The GIF of the positions at plies `shown` (increasing), each frame composed and encoded in
/// turn: the first whole, each later one as the boxes that changed ([`boxes`]), unchanged
/// pixels in them transparent (or their own colour where that codes shorter: [`lzw`]).
fn encode(all: &[(Position, Option<Move>)], shown: &[usize], names: &[String; 2]) -> Vec<u8> {
    encode_with(all, shown, names, &mut Earlier::default())
}

/// [`encode`], taking the codes of board boxes coded before from `earlier`.
fn encode_with(
    all: &[(Position, Option<Move>)],
    shown: &[usize],
    names: &[String; 2],
    earlier: &mut Earlier,
) -> Vec<u8> {
    let palette = &*PALETTE;
    let n = shown.len();
    let (w, h) = (WIDTH as u16, HEIGHT as u16);
    let mut out = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut out, w, h, &palette.colours).expect("GIF header");
        enc.set_repeat(gif::Repeat::Infinite).expect("GIF loop");
        let mut lzw = Lzw::new();
        let (mut previous, mut next) = (Vec::new(), Vec::new());
        let mut parts = Parts {
            earlier: std::mem::take(earlier),
            ..Parts::default()
        };
        let mut memo = Composed::default();
        let mut regions = Vec::new();
        let mut before = Vec::new();
        for (i, &ply) in shown.iter().enumerate() {
            let (pos, last) = &all[ply];
            let frame = Frame::new(names.clone(), *last).in_replay();
            regions.clear();
            before.clear();
            before.extend_from_slice(memo.tiles());
            compose_changes(&mut next, pos, &frame, &mut memo, &mut regions);
            let delay = delay(i, n);
            if i == 0 {
                parts.data.clear();
                first_image(&mut lzw, &next, &mut parts.data);
                let frame = gif::Frame {
                    width: w,
                    height: h,
                    buffer: Cow::Borrowed(&parts.data[..]),
                    delay,
                    ..gif::Frame::default()
                };
                enc.write_lzw_pre_encoded_frame(&frame).expect("GIF frame");
                previous.clone_from(&next);
            } else {
                let tiles = [&before[..], memo.tiles()];
                parts.write(
                    &mut enc,
                    &mut lzw,
                    &mut previous,
                    &next,
                    &regions,
                    delay,
                    tiles,
                );
            }
        }
        *earlier = parts.earlier;
    }
    out
}

/// The coded rows below the panels of first images made before, with those rows: they show
/// the start position and its status lines, the same in every replay of a variant, so only the
/// players' panels are coded again.
static FIRST_RESTS: Mutex<Vec<CodedRest>> = Mutex::new(Vec::new());
/// Pixels below the panels, and their codes.
type CodedRest = (Vec<u8>, Arc<Coded>);
/// How many coded rests are kept (about 0.4 MB each), the oldest dropped first.
const MAX_FIRST_RESTS: usize = 8;

/// The data of a replay's first image, `image` whole: the panels coded, and the rows below
/// them coded or taken from [`FIRST_RESTS`] when the same pixels were coded before.
fn first_image(lzw: &mut Lzw, image: &[u8], out: &mut Vec<u8>) {
    let (head, rest) = image.split_at(PANELS_BOTTOM * WIDTH as usize);
    let known = {
        let rests = FIRST_RESTS.lock().unwrap_or_else(|e| e.into_inner());
        rests
            .iter()
            .find(|(pixels, _)| pixels[..] == *rest)
            .map(|(_, coded)| coded.clone())
    };
    let coded = known.unwrap_or_else(|| {
        let coded = Arc::new(lzw.code_rest(rest));
        let mut rests = FIRST_RESTS.lock().unwrap_or_else(|e| e.into_inner());
        // Another thread may have coded the same pixels meanwhile: keep one of them.
        if !rests.iter().any(|(pixels, _)| pixels[..] == *rest) {
            if rests.len() >= MAX_FIRST_RESTS {
                rests.remove(0);
            }
            rests.push((rest.to_vec(), coded.clone()));
        }
        coded
    });
    lzw.encode_then(head, &coded, out);
}

/// How long the `i`-th of `n` positions is shown, in hundredths of a second.
fn delay(i: usize, n: usize) -> u16 {
    if i + 1 == n {
        LAST_DELAY
    } else if i == 0 {
        FIRST_DELAY
    } else {
        FRAME_DELAY
    }
}

/// A box of the image: left, top, right, bottom (the last two exclusive).
type Box4 = [usize; 4];

fn area(b: &Box4) -> usize {
    (b[2] - b[0]) * (b[3] - b[1])
}

fn union(a: &Box4, b: &Box4) -> Box4 {
    [
        a[0].min(b[0]),
        a[1].min(b[1]),
        a[2].max(b[2]),
        a[3].max(b[3]),
    ]
}

/// Two boxes are coded as one when that adds at most this many pixels: an image costs about
/// 25 bytes besides its pixels, as much as this many unchanged pixels.
const MERGE_SLACK: usize = 2048;
/// At most this many images per position: the first ones are shown for [`PART_DELAY`] each.
/// Eight rather than four: High Kings moves change a king and its captured neighbours far
/// apart, and the panels' and status lines' text, and four boxes around them coded 7% more.
const MAX_PARTS: usize = 8;
/// Changed rows of a region separated by at least this many unchanged rows are boxed apart
/// (the two lines of a panel or of the status, a piece and the highlight under it), then
/// merged again as [`MERGE_SLACK`] says.
const SPLIT_GAP: usize = 3;

/// The regions whose changes are boxed separately: each player's panel, the status lines, and
/// a grid of the board's cells with the margins around them.
static REGIONS: LazyLock<Vec<Box4>> = LazyLock::new(|| {
    let (w, header, panels) = (WIDTH as usize, HEADER as usize, PANELS_BOTTOM);
    let mut regions = vec![
        [0, 0, w / 2, panels],
        [w / 2, 0, w, panels],
        [0, panels, w, header],
    ];
    let edges = |start: f32| -> Vec<usize> {
        (0..=7)
            .map(|k| (start + k as f32 * CELL) as usize)
            .collect()
    };
    let mut xs = vec![0];
    xs.extend(edges(BOARD_X));
    xs.push(w);
    let mut ys = vec![header];
    ys.extend(edges(BOARD_Y));
    ys.push(HEIGHT as usize);
    for y in ys.windows(2) {
        for x in xs.windows(2) {
            if x[0] < x[1] && y[0] < y[1] {
                regions.push([x[0], y[0], x[1], y[1]]);
            }
        }
    }
    regions
});

/// The boxes of `next` that differ from `prev` within `rewritten` (regions outside which the
/// two are equal; the whole image stands for all [`REGIONS`]): the changed pixels' box in
/// each region (one per stretch of changed rows, [`SPLIT_GAP`]), then boxes merged while
/// merging adds at most [`MERGE_SLACK`] pixels or there are more than [`MAX_PARTS`]; top to
/// bottom.
fn boxes(prev: &[u8], next: &[u8], rewritten: &[Box4]) -> Vec<Box4> {
    let w = WIDTH as usize;
    let whole = [0, 0, w, HEIGHT as usize];
    let regions: Vec<&Box4> = if rewritten.contains(&whole) {
        REGIONS.iter().collect()
    } else {
        rewritten.iter().collect()
    };
    let mut found: Vec<Box4> = Vec::new();
    for r in regions {
        let mut b: Option<Box4> = None;
        let mut quiet = 0;
        for y in r[1]..r[3] {
            let (a, c) = (
                &prev[y * w + r[0]..y * w + r[2]],
                &next[y * w + r[0]..y * w + r[2]],
            );
            let first = unchanged(a, c, 0, a.len());
            if first == a.len() {
                quiet += 1;
                continue;
            }
            if quiet >= SPLIT_GAP {
                found.extend(b.take());
            }
            quiet = 0;
            let last = last_difference(a, c);
            let row = [r[0] + first, y, r[0] + last, y + 1];
            b = Some(b.map_or(row, |b| union(&b, &row)));
        }
        found.extend(b);
    }
    loop {
        let mut best: Option<(isize, usize, usize)> = None;
        for i in 0..found.len() {
            for j in i + 1..found.len() {
                let extra = area(&union(&found[i], &found[j])) as isize
                    - area(&found[i]) as isize
                    - area(&found[j]) as isize;
                if best.is_none_or(|(e, _, _)| extra < e) {
                    best = Some((extra, i, j));
                }
            }
        }
        match best {
            Some((extra, i, j)) if extra <= MERGE_SLACK as isize || found.len() > MAX_PARTS => {
                found[i] = union(&found[i], &found[j]);
                found.swap_remove(j);
            }
            _ => break,
        }
    }
    found.sort_unstable_by_key(|b| (b[1], b[0]));
    found
}

/// One past where `a` and `b` (of one length, known to differ) last differ, eight bytes at a
/// time (as [`unchanged`] finds where they first differ).
fn last_difference(a: &[u8], b: &[u8]) -> usize {
    let word = |s: &[u8], k: usize| u64::from_le_bytes(s[k - 8..k].try_into().unwrap_or_default());
    let mut k = a.len();
    while k >= 8 {
        let x = word(a, k) ^ word(b, k);
        if x != 0 {
            return k - (x.leading_zeros() / 8) as usize;
        }
        k -= 8;
    }
    (0..k).rev().find(|&j| a[j] != b[j]).map_or(0, |j| j + 1)
}

/// Buffers for the images of one position, and the board's boxes coded so far.
#[derive(Default)]
struct Parts {
    prev: Vec<u8>,
    next: Vec<u8>,
    data: Vec<u8>,
    earlier: Earlier,
}

/// The codes of the board's boxes coded so far in one replay, by the box (relative to its
/// first cell) and the tiles of the cells under it before and after. Tiles of the same pixels
/// are one tile ([`Tile`]), so a box that changes as one did before (a highlight leaving a
/// hill, a ringfort built on a hill like another, a piece moving between squares like two
/// before) is the same pixels, and its codes are taken instead of coding it again: codes
/// depend on the pixels only.
struct Earlier {
    /// Codes by key; `None` if keeping codes is switched off (tests).
    codes: Option<HashMap<BoxKey, Vec<u8>, FxBuild>>,
    /// How many boxes took codes kept before.
    taken: usize,
}

/// A box relative to its first cell's corner, and the tiles under it (row by row), before and
/// after.
type BoxKey = ([usize; 4], Vec<[Same; 2]>);

/// A tile compared by its address: tiles of the same pixels are one tile. A key holds its
/// tiles, so no other tile is made at their address while it is kept.
#[derive(Clone)]
struct Same(Tile);

impl PartialEq for Same {
    fn eq(&self, other: &Same) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Same {}

impl Hash for Same {
    fn hash<H: Hasher>(&self, state: &mut H) {
        Arc::as_ptr(&self.0).cast::<u8>().hash(state);
    }
}

/// At most this many boxes' codes are kept in one replay (a few hundred bytes each).
const MAX_EARLIER: usize = 4096;

impl Default for Earlier {
    fn default() -> Earlier {
        Earlier {
            codes: Some(HashMap::default()),
            taken: 0,
        }
    }
}

impl Earlier {
    /// Keeps no codes (to compare with keeping them).
    #[cfg(test)]
    fn off() -> Earlier {
        Earlier {
            codes: None,
            ..Earlier::default()
        }
    }

    /// The key of box `b` if it lies on the board and both images were composed from tiles
    /// (`tiles`: the cells' tiles before and after).
    fn key(b: Box4, tiles: [&[Tile]; 2]) -> Option<BoxKey> {
        let [before, after] = tiles;
        if before.is_empty() || before.len() != after.len() {
            return None;
        }
        let (relative, cells) = tiles::cells_under(b)?;
        let under = cells
            .into_iter()
            .map(|c| [Same(before[c].clone()), Same(after[c].clone())])
            .collect();
        Some((relative, under))
    }
}

impl Parts {
    /// Writes the images that turn `prev` into `next`: the changed [`boxes`], the last shown
    /// for the rest of `delay` and the others for [`PART_DELAY`]; one transparent pixel if
    /// nothing changed. `prev` is then `next` (the boxes are copied into it).
    #[allow(clippy::too_many_arguments)]
    fn write<W: std::io::Write>(
        &mut self,
        enc: &mut gif::Encoder<W>,
        lzw: &mut Lzw,
        prev: &mut [u8],
        next: &[u8],
        rewritten: &[Box4],
        delay: u16,
        tiles: [&[Tile]; 2],
    ) {
        let w = WIDTH as usize;
        let mut found = boxes(prev, next, rewritten);
        let nothing = found.is_empty();
        if nothing {
            found.push([0, 0, 1, 1]);
        }
        let k = found.len() as u16;
        let Parts {
            prev: box_prev,
            next: box_next,
            data,
            earlier,
        } = self;
        for (j, b) in found.iter().enumerate() {
            let key = match &earlier.codes {
                Some(_) if !nothing => Earlier::key(*b, tiles),
                _ => None,
            };
            let kept = key.as_ref().and_then(|k| earlier.codes.as_ref()?.get(k));
            let codes = if let Some(codes) = kept {
                earlier.taken += 1;
                &codes[..]
            } else {
                box_prev.clear();
                box_next.clear();
                for y in b[1]..b[3] {
                    box_prev.extend_from_slice(&prev[y * w + b[0]..y * w + b[2]]);
                    box_next.extend_from_slice(&next[y * w + b[0]..y * w + b[2]]);
                }
                data.clear();
                let pixels = if nothing {
                    Pixels::Plain(&[TRANSPARENT])
                } else {
                    Pixels::Diff {
                        prev: box_prev,
                        next: box_next,
                        transparent: TRANSPARENT,
                    }
                };
                lzw.encode(pixels, data);
                if let (Some(key), Some(codes)) = (key, &mut earlier.codes) {
                    if codes.len() < MAX_EARLIER {
                        codes.insert(key, data.clone());
                    }
                }
                &data[..]
            };
            let delay = if j + 1 == found.len() {
                delay.saturating_sub(PART_DELAY * (k - 1)).max(PART_DELAY)
            } else {
                PART_DELAY
            };
            let frame = gif::Frame {
                left: b[0] as u16,
                top: b[1] as u16,
                width: (b[2] - b[0]) as u16,
                height: (b[3] - b[1]) as u16,
                buffer: Cow::Borrowed(codes),
                transparent: Some(TRANSPARENT),
                dispose: gif::DisposalMethod::Keep,
                delay,
                ..gif::Frame::default()
            };
            enc.write_lzw_pre_encoded_frame(&frame).expect("GIF frame");
            if !nothing {
                for y in b[1]..b[3] {
                    let row = y * w + b[0]..y * w + b[2];
                    prev[row.clone()].copy_from_slice(&next[row]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::playout::{random_game, Rng};
    use crate::game::Variant;
    use crate::render::draw::compose;

    #[test]
    fn thinning_keeps_the_start_every_kth_the_last_few_and_the_end() {
        assert_eq!(thinned(5, 1), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(thinned(30, 10), vec![0, 10, 20, 24, 25, 26, 27, 28, 29, 30]);
        assert_eq!(thinned(30, 31), vec![0, 30]);
    }

    #[test]
    fn differences_are_found_at_both_ends() {
        let a = [7u8; 37];
        for i in 0..37 {
            for j in i..37 {
                let mut b = a;
                b[i] = 1;
                b[j] = 2;
                assert_eq!(unchanged(&a, &b, 0, a.len()), i);
                assert_eq!(last_difference(&a, &b), j + 1);
            }
        }
        assert_eq!(unchanged(&a, &a, 0, a.len()), a.len());
    }

    #[test]
    fn boxes_cover_every_changed_pixel_in_few_images() {
        let mut rng = Rng::new(21);
        let len = (WIDTH * HEIGHT) as usize;
        let prev: Vec<u8> = (0..len).map(|i| (i / 7 % 200) as u8).collect();
        let all = [[0, 0, WIDTH as usize, HEIGHT as usize]];
        assert!(boxes(&prev, &prev, &all).is_empty());
        for changes in [1, 3, 10, 200] {
            let mut next = prev.clone();
            for _ in 0..changes {
                // A few clusters of changed pixels anywhere, header and board.
                let (x, y) = (rng.below(590), rng.below(680));
                for k in 0..rng.below(60) {
                    next[(y + k % 10) * WIDTH as usize + x + k % 9] ^= 0x55;
                }
            }
            let found = boxes(&prev, &next, &all);
            assert!(!found.is_empty() && found.len() <= MAX_PARTS, "{found:?}");
            for i in (0..len).filter(|&i| prev[i] != next[i]) {
                let (x, y) = (i % WIDTH as usize, i / WIDTH as usize);
                assert!(
                    found
                        .iter()
                        .any(|b| b[0] <= x && x < b[2] && b[1] <= y && y < b[3]),
                    "({x}, {y}) outside {found:?}"
                );
            }
        }
        // Two changes far apart are two boxes, not one box around both.
        let mut next = prev.clone();
        next[200 * WIDTH as usize + 60] ^= 1;
        next[640 * WIDTH as usize + 540] ^= 1;
        assert_eq!(
            boxes(&prev, &next, &all),
            vec![[60, 200, 61, 201], [540, 640, 541, 641]]
        );
    }

    /// The first image of a GIF, as palette indices.
    fn first_image_of(gif_bytes: &[u8]) -> Vec<u8> {
        let mut opts = gif::DecodeOptions::new();
        opts.set_color_output(gif::ColorOutput::Indexed);
        let mut dec = opts.read_info(gif_bytes).unwrap();
        dec.read_next_frame().unwrap().unwrap().buffer.to_vec()
    }

    #[test]
    fn first_images_take_the_start_position_coded_before() {
        let options = GameOptions::new(Variant::SacredHill2);
        let start = Position::new(options);
        let rest_at = PANELS_BOTTOM * WIDTH as usize;
        let mut rests = Vec::new();
        for (seed, names) in [(8, ["Aoife", "Brian"]), (9, ["Síle", "Dónal Óg"])] {
            let (_, moves) = random_game(options, &mut Rng::new(seed));
            let names = names.map(String::from);
            let gif_bytes = replay_gif(options, &moves[..4], &names);
            let whole = compose(&start, &Frame::new(names, None).in_replay());
            assert!(first_image_of(&gif_bytes) == whole, "seed {seed}");
            rests.push(whole[rest_at..].to_vec());
        }
        // Two games, two pairs of names: one start position below the panels, coded once.
        assert_eq!(rests[0], rests[1]);
        let coded = FIRST_RESTS.lock().unwrap();
        assert_eq!(coded.iter().filter(|(p, _)| *p == rests[0]).count(), 1);
    }

    #[test]
    fn boxes_coded_before_are_taken_as_they_would_be_coded() {
        let names = ["Aoife".to_string(), "Brian".to_string()];
        for (i, variant) in Variant::ALL.into_iter().enumerate() {
            let options = GameOptions::new(variant);
            let (_, moves) = random_game(options, &mut Rng::new(90 + i as u64));
            let moves = &moves[..moves.len().min(80)];
            let all = positions(options, moves);
            for step in [1, 3] {
                let shown = thinned(moves.len(), step);
                let mut kept = Earlier::default();
                let gif_bytes = encode_with(&all, &shown, &names, &mut kept);
                let coded = encode_with(&all, &shown, &names, &mut Earlier::off());
                // Every move takes some boxes from earlier ones; thinned, fewer do.
                assert!(step > 1 || kept.taken > 0, "{variant}: nothing taken");
                assert!(gif_bytes == coded, "{variant}, step {step}");
            }
        }
    }

    #[test]
    fn a_replay_over_the_limit_is_thinned_until_it_fits() {
        let options = GameOptions::new(Variant::ArdRi);
        let (_, moves) = random_game(options, &mut Rng::new(3));
        let moves = &moves[..moves.len().min(40)];
        let names = ["A".to_string(), "B".to_string()];
        let whole = replay_gif(options, moves, &names);
        let fits = replay_gif_within(options, moves, &names, whole.len()).unwrap();
        assert_eq!((fits.step, fits.bytes.len()), (1, whole.len()));
        let limit = whole.len() / 3;
        let thin = replay_gif_within(options, moves, &names, limit).unwrap();
        assert!(thin.bytes.len() <= limit && thin.step > 1, "{thin:?}");
        assert_eq!(thin.shown.first(), Some(&0));
        assert_eq!(thin.shown.last(), Some(&moves.len()));
        assert!(thin.skipped(moves.len()) > 0);
        assert!(replay_gif_within(options, moves, &names, 100).is_none());
    }
}
