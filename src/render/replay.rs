//! An animated GIF of a whole game in the images' fixed palette: the first position whole, and
//! each later one as the boxes that changed (the header's and the board's), unchanged pixels
//! transparent. A position shown as two images shows the first for [`PART_DELAY`] only.

use super::draw::compose;
use super::frame::Frame;
use super::indexed::PALETTE;
use super::layout::{HEADER, HEIGHT, WIDTH};
use crate::game::{GameOptions, Move, Position};
use std::borrow::Cow;

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
/// turn: the first whole, each later one as the boxes that changed, the header's and the
/// board's, unchanged pixels in them transparent.
fn encode(all: &[(Position, Option<Move>)], shown: &[usize], names: &[String; 2]) -> Vec<u8> {
    let palette = &*PALETTE;
    let n = shown.len();
    let (w, h) = (WIDTH as u16, HEIGHT as u16);
    let mut out = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut out, w, h, &palette.colours).expect("GIF header");
        enc.set_repeat(gif::Repeat::Infinite).expect("GIF loop");
        let mut previous: Option<Vec<u8>> = None;
        for (i, &ply) in shown.iter().enumerate() {
            let (pos, last) = &all[ply];
            let indexed = compose(pos, &Frame::new(names.clone(), *last));
            let delay = delay(i, n);
            match &previous {
                None => {
                    let frame = gif::Frame {
                        width: w,
                        height: h,
                        buffer: Cow::Borrowed(&indexed[..]),
                        delay,
                        ..gif::Frame::default()
                    };
                    enc.write_frame(&frame).expect("GIF frame");
                }
                Some(prev) => {
                    for frame in changes(prev, &indexed, delay) {
                        enc.write_frame(&frame).expect("GIF frame");
                    }
                }
            }
            previous = Some(indexed);
        }
    }
    out
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

/// The images that turn `prev` into `next`: the changed box of the header and that of the
/// board, the one shown for [`PART_DELAY`] and the other for the rest of `delay`; one
/// transparent pixel if nothing changed.
fn changes(prev: &[u8], next: &[u8], delay: u16) -> Vec<gif::Frame<'static>> {
    let header = HEADER as usize;
    let mut parts: Vec<gif::Frame<'static>> = [0..header, header..HEIGHT as usize]
        .into_iter()
        .filter_map(|rows| cropped(prev, next, rows))
        .collect();
    if parts.is_empty() {
        parts.push(gif::Frame {
            width: 1,
            height: 1,
            buffer: Cow::Owned(vec![TRANSPARENT]),
            transparent: Some(TRANSPARENT),
            dispose: gif::DisposalMethod::Keep,
            ..gif::Frame::default()
        });
    }
    let k = parts.len() as u16;
    for (j, part) in parts.iter_mut().enumerate() {
        part.delay = if j + 1 == usize::from(k) {
            delay.saturating_sub(PART_DELAY * (k - 1)).max(PART_DELAY)
        } else {
            PART_DELAY
        };
    }
    parts
}

/// The box of `next` within `rows` that differs from `prev`, unchanged pixels transparent;
/// `None` if nothing there changed.
fn cropped(prev: &[u8], next: &[u8], rows: std::ops::Range<usize>) -> Option<gif::Frame<'static>> {
    let w = WIDTH as usize;
    let (mut x0, mut y0, mut x1, mut y1) = (w, usize::MAX, 0, 0);
    for y in rows {
        let (a, b) = (&prev[y * w..(y + 1) * w], &next[y * w..(y + 1) * w]);
        if a == b {
            continue;
        }
        let first = a.iter().zip(b).position(|(p, q)| p != q).unwrap_or(0);
        let last = w
            - 1
            - a.iter()
                .rev()
                .zip(b.iter().rev())
                .position(|(p, q)| p != q)
                .unwrap_or(0);
        x0 = x0.min(first);
        x1 = x1.max(last);
        y0 = y0.min(y);
        y1 = y;
    }
    if y0 == usize::MAX {
        return None;
    }
    let (cw, ch) = (x1 - x0 + 1, y1 - y0 + 1);
    let mut buf = Vec::with_capacity(cw * ch);
    for y in y0..=y1 {
        let (a, b) = (
            &prev[y * w + x0..=y * w + x1],
            &next[y * w + x0..=y * w + x1],
        );
        buf.extend(
            a.iter()
                .zip(b)
                .map(|(p, q)| if p == q { TRANSPARENT } else { *q }),
        );
    }
    Some(gif::Frame {
        left: x0 as u16,
        top: y0 as u16,
        width: cw as u16,
        height: ch as u16,
        buffer: Cow::Owned(buf),
        transparent: Some(TRANSPARENT),
        dispose: gif::DisposalMethod::Keep,
        ..gif::Frame::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::playout::{random_game, Rng};
    use crate::game::Variant;

    #[test]
    fn thinning_keeps_the_start_every_kth_the_last_few_and_the_end() {
        assert_eq!(thinned(5, 1), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(thinned(30, 10), vec![0, 10, 20, 24, 25, 26, 27, 28, 29, 30]);
        assert_eq!(thinned(30, 31), vec![0, 30]);
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
