//! An animated GIF of a whole game: one frame per position in the images' fixed palette, and
//! frames after the first cropped to what changed.

use super::draw::draw;
use super::frame::Frame;
use super::indexed::PALETTE;
use super::layout::{HEIGHT, WIDTH};
use crate::game::{GameOptions, Move, Position};
use std::borrow::Cow;

/// Delay of each frame, in hundredths of a second.
const FRAME_DELAY: u16 = 90;
/// Delay of the last frame.
const LAST_DELAY: u16 = 400;
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

/// An animated GIF of a game, one frame per position (moves + 1 frames), looping.
pub fn replay_gif(options: GameOptions, moves: &[Move], names: &[String; 2]) -> Vec<u8> {
    let palette = &*PALETTE;
    let frames: Vec<Vec<u8>> = positions(options, moves)
        .iter()
        .map(|(pos, last)| palette.index(&draw(pos, &Frame::new(names.clone(), *last))))
        .collect();
    let n = frames.len();
    let (w, h) = (WIDTH as u16, HEIGHT as u16);
    let mut out = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut out, w, h, &palette.colours).expect("GIF header");
        enc.set_repeat(gif::Repeat::Infinite).expect("GIF loop");
        let mut previous: Option<Vec<u8>> = None;
        for (i, indexed) in frames.into_iter().enumerate() {
            let delay = if i + 1 == n { LAST_DELAY } else { FRAME_DELAY };
            let frame = match &previous {
                None => gif::Frame {
                    width: w,
                    height: h,
                    buffer: Cow::Borrowed(&indexed[..]),
                    delay,
                    ..gif::Frame::default()
                },
                Some(prev) => cropped(prev, &indexed, delay),
            };
            enc.write_frame(&frame).expect("GIF frame");
            previous = Some(indexed);
        }
    }
    out
}

/// The part of `next` that differs from `prev`, unchanged pixels transparent.
fn cropped(prev: &[u8], next: &[u8], delay: u16) -> gif::Frame<'static> {
    let (w, h) = (WIDTH as usize, HEIGHT as usize);
    let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
    for y in 0..h {
        let row = y * w;
        for x in 0..w {
            if prev[row + x] != next[row + x] {
                x0 = x0.min(x);
                x1 = x1.max(x);
                y0 = y0.min(y);
                y1 = y1.max(y);
            }
        }
    }
    if x0 > x1 {
        // Nothing changed: one transparent pixel.
        return gif::Frame {
            width: 1,
            height: 1,
            buffer: Cow::Owned(vec![TRANSPARENT]),
            transparent: Some(TRANSPARENT),
            dispose: gif::DisposalMethod::Keep,
            delay,
            ..gif::Frame::default()
        };
    }
    let (cw, ch) = (x1 - x0 + 1, y1 - y0 + 1);
    let mut buf = Vec::with_capacity(cw * ch);
    for y in y0..=y1 {
        for x in x0..=x1 {
            let i = y * w + x;
            buf.push(if prev[i] == next[i] {
                TRANSPARENT
            } else {
                next[i]
            });
        }
    }
    gif::Frame {
        left: x0 as u16,
        top: y0 as u16,
        width: cw as u16,
        height: ch as u16,
        buffer: Cow::Owned(buf),
        transparent: Some(TRANSPARENT),
        dispose: gif::DisposalMethod::Keep,
        delay,
        ..gif::Frame::default()
    }
}
