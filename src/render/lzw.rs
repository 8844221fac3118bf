//! GIF's LZW compression of 8-bit palette indices (GIF89a, appendix F), for the frames of a
//! replay. Besides plain images it codes frame diffs whose unchanged pixels are wildcards:
//! each may be written as the transparent index or as its own colour, whichever continues the
//! string being matched, so that unchanged pixels never break a match. Both decode to the same
//! picture.
//!
//! The string table is a small hash table (code × byte → code) that stays in the processor's
//! nearest caches: each pixel costs one lookup, or two for an unchanged one. Runs are cheaper:
//! the codes of the runs of each index (transparency included) are kept in order, so while the
//! string is a run it is extended at once over the following pixels that may be written as its
//! index (unchanged ones as transparency or as their own colour), up to the longest run the
//! table holds. The flat squares and fills of a board, and the unchanged parts of a diff, are
//! mostly such runs.
//!
//! An image's data may also end with a clear code and the codes of a stretch of pixels coded
//! before from an empty table ([`Coded`]): a replay's first image codes only its panels, and
//! takes the start position below them, the same in every replay of a variant, as coded before.

/// Bits per pixel of the input (the minimum code size written before the data).
const MIN_CODE_SIZE: u8 = 8;
const CLEAR: u16 = 1 << MIN_CODE_SIZE;
const END: u16 = CLEAR + 1;
/// The first code free after a clear.
const FIRST: u16 = CLEAR + 2;
/// Codes are at most 12 bits wide.
const MAX_CODES: u16 = 4096;

/// Slots of the string table: four times the codes, so that probes stay short (at most a
/// quarter of the slots are ever filled; twice the codes was 2% slower, as many 5%).
const SLOTS: usize = 4 * MAX_CODES as usize;
/// An empty slot (no entry has this value: a child of code 4095 is never made).
const EMPTY: u32 = u32::MAX;

/// An LZW coder; keeps its table between images to save allocating it.
pub(super) struct Lzw {
    /// The string table: open addressing on (code, byte), each slot `(code << 8 | byte) << 12
    /// | child` (64 KB: the slots of one image's entries, mostly a few thousand, stay in the
    /// processor's nearest caches).
    table: Box<[u32; SLOTS]>,
    /// The slots filled since the table was last emptied: emptying clears only those.
    used: Vec<u16>,
    /// For each index, the codes of its runs in the table, shortest first (`[k - 1]`: the
    /// string of `k` pixels of it); empty for indices not seen since the table was emptied.
    runs: Vec<Vec<u16>>,
    /// The indices whose runs are not empty.
    seen: Vec<u8>,
}

/// Pixels coded from an empty string table, ending with the end code: the rest of an image's
/// data after a clear code ([`Lzw::encode_then`]).
pub(super) struct Coded {
    /// The codes, least significant bit first; the last byte may be partly used.
    bits: Vec<u8>,
    /// How many bits of `bits` are codes.
    len: usize,
}

/// What each pixel of an image may be written as.
#[derive(Clone, Copy)]
pub(super) enum Pixels<'a> {
    /// Exactly these indices.
    Plain(&'a [u8]),
    /// `next` where it differs from `prev`; elsewhere either `transparent` or `next`.
    Diff {
        prev: &'a [u8],
        next: &'a [u8],
        transparent: u8,
    },
}

/// Codes written least significant bit first.
struct Bits<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits<'_> {
    #[inline]
    fn put(&mut self, code: u16, width: u32) {
        self.acc |= u64::from(code) << self.n;
        self.n += width;
        if self.n >= 32 {
            self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.n -= 32;
        }
    }

    /// Appends `len` bits of `data` (least significant first).
    fn append(&mut self, data: &[u8], len: usize) {
        let whole = len / 16;
        for pair in data[..2 * whole].chunks_exact(2) {
            self.put(u16::from_le_bytes([pair[0], pair[1]]), 16);
        }
        let mut left = len - 16 * whole;
        for &byte in &data[2 * whole..] {
            if left == 0 {
                break;
            }
            let n = left.min(8);
            self.put(u16::from(byte) & ((1 << n) - 1), n as u32);
            left -= n;
        }
    }

    /// How many bits have been written.
    fn len(&self) -> usize {
        self.out.len() * 8 + self.n as usize
    }

    fn finish(mut self) {
        while self.n > 0 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n = self.n.saturating_sub(8);
        }
    }
}

impl Lzw {
    pub(super) fn new() -> Lzw {
        Lzw {
            table: Box::new([EMPTY; SLOTS]),
            used: Vec::with_capacity(usize::from(MAX_CODES)),
            runs: vec![Vec::new(); 256],
            seen: Vec::with_capacity(256),
        }
    }

    /// Empties the string table.
    fn empty(&mut self) {
        empty(
            &mut self.table,
            &mut self.used,
            &mut self.runs,
            &mut self.seen,
        );
    }

    /// The image's data as a GIF image block's content: the minimum code size, then the
    /// codes (not yet cut into sub-blocks), appended to `out`.
    pub(super) fn encode(&mut self, pixels: Pixels<'_>, out: &mut Vec<u8>) {
        out.push(MIN_CODE_SIZE);
        let mut bits = Bits { out, acc: 0, n: 0 };
        bits.put(CLEAR, u32::from(MIN_CODE_SIZE) + 1);
        self.codes(pixels, &mut bits, END);
        bits.finish();
    }

    /// Codes `pixels` from an empty table, for the end of an image ([`Lzw::encode_then`]).
    pub(super) fn code_rest(&mut self, pixels: &[u8]) -> Coded {
        let mut out = Vec::new();
        let mut bits = Bits {
            out: &mut out,
            acc: 0,
            n: 0,
        };
        self.codes(Pixels::Plain(pixels), &mut bits, END);
        let len = bits.len();
        bits.finish();
        Coded { bits: out, len }
    }

    /// The data of an image whose pixels are `head` followed by those of `rest` (as
    /// [`Lzw::encode`]): `head` coded, a clear code, then `rest`'s codes as they are.
    pub(super) fn encode_then(&mut self, head: &[u8], rest: &Coded, out: &mut Vec<u8>) {
        out.push(MIN_CODE_SIZE);
        let mut bits = Bits { out, acc: 0, n: 0 };
        bits.put(CLEAR, u32::from(MIN_CODE_SIZE) + 1);
        self.codes(Pixels::Plain(head), &mut bits, CLEAR);
        bits.append(&rest.bits, rest.len);
        bits.finish();
    }

    /// Writes the codes of `pixels` from an empty table (the decoder's state after a clear
    /// code), then `last` (the end code, or a clear code before more).
    fn codes(&mut self, pixels: Pixels<'_>, bits: &mut Bits<'_>, last: u16) {
        match pixels {
            Pixels::Plain(p) => self.run(
                p.len(),
                bits,
                last,
                |i| (p[i], None),
                |i, max, c| same(p, i, max, c),
            ),
            Pixels::Diff {
                prev,
                next,
                transparent,
            } => {
                let len = next.len().min(prev.len());
                let symbol = |i: usize| {
                    let s = next[i];
                    if prev[i] == s {
                        (transparent, Some(s))
                    } else {
                        (s, None)
                    }
                };
                let may_be = |i, max, c| {
                    if c == transparent {
                        unchanged(prev, next, i, max)
                    } else {
                        same(next, i, max, c)
                    }
                };
                self.run(len, bits, last, symbol, may_be)
            }
        }
    }

    /// Codes `len` pixels, pixel `i` written as `symbol(i).0`, or as `symbol(i).1` where
    /// that continues the current string and the first does not. `may_be(i, max, c)` is how
    /// many pixels from `i` on (at most `max`) may be written as index `c`: while the string
    /// is a run of one index it is extended over them at once (the table holds every shorter
    /// run of it as a string, so for pixels that must be `c` this is what coding them one by
    /// one would do). Starts from an empty table and ends with `last`.
    ///
    /// The loop keeps the bits not yet written and the table's parts in locals, so that they
    /// stay in registers: this loop is most of a replay's time.
    #[inline(always)]
    fn run(
        &mut self,
        len: usize,
        bits: &mut Bits<'_>,
        last: u16,
        symbol: impl Fn(usize) -> (u8, Option<u8>),
        may_be: impl Fn(usize, usize, u8) -> usize,
    ) {
        let mut width = u32::from(MIN_CODE_SIZE) + 1;
        let mut next = FIRST;
        self.empty();
        if len == 0 {
            bits.put(last, width);
            return;
        }
        let Lzw {
            table,
            used,
            runs,
            seen,
        } = self;
        let table: &mut [u32; SLOTS] = table;
        let (mut acc, mut n) = (bits.acc, bits.n);
        let out = &mut *bits.out;
        // At most one code per pixel, a clear code per full table, and the last two: 12 bits
        // each.
        out.reserve(len * 3 / 2 + len / 1024 * 2 + 16);
        let mut put = |code: u16, width: u32| {
            acc |= u64::from(code) << n;
            n += width;
            if n >= 32 {
                out.extend_from_slice(&(acc as u32).to_le_bytes());
                acc >>= 32;
                n -= 32;
            }
        };
        let (first, _) = symbol(0);
        let mut cur = u16::from(first);
        // The current string is `length` pixels of index `colour` (0: not a run).
        let (mut colour, mut length) = (first, 1);
        see(runs, seen, first);
        let mut i = 1;
        while i < len {
            let (s, alt) = symbol(i);
            // A run whose index this pixel may be written as: extended at once over it and
            // the pixels after it that may be too (`may_be` is at least 1).
            if length > 0 && (s == colour || alt == Some(colour)) {
                let r = &runs[usize::from(colour)];
                if length < r.len() {
                    let k = may_be(i, r.len() - length, colour);
                    length += k;
                    i += k;
                    cur = r[length - 1];
                    continue;
                }
            }
            i += 1;
            let key = u32::from(cur) << 8 | u32::from(s);
            let at = slot(table, key);
            // The child by `s`, or else by the pixel's own colour; and what it is written as.
            let (mut e, mut w) = (table[at], s);
            if let Some(a) = alt {
                if e == EMPTY {
                    (e, w) = (table[slot(table, u32::from(cur) << 8 | u32::from(a))], a);
                }
            }
            if e != EMPTY {
                cur = (e & 0xfff) as u16;
                length = if w == colour && length > 0 {
                    length + 1
                } else {
                    0
                };
                continue;
            }
            put(cur, width);
            if next == MAX_CODES {
                put(CLEAR, width);
                empty(table, used, runs, seen);
                width = u32::from(MIN_CODE_SIZE) + 1;
                next = FIRST;
            } else {
                table[at] = key << 12 | u32::from(next);
                used.push(at as u16);
                if length > 0 && s == colour {
                    let r = &mut runs[usize::from(s)];
                    if length == r.len() {
                        r.push(next);
                    }
                }
                next += 1;
                if u32::from(next) > 1 << width && width < 12 {
                    width += 1;
                }
            }
            cur = u16::from(s);
            (colour, length) = (s, 1);
            see(runs, seen, s);
        }
        put(cur, width);
        // The decoder adds an entry for the last code too, and may widen its codes for it.
        if next < MAX_CODES && u32::from(next) == 1 << width && width < 12 {
            width += 1;
        }
        put(last, width);
        (bits.acc, bits.n) = (acc, n);
    }
}

/// Empties a string table: the slots filled (`used`) and the runs of the indices `seen`.
fn empty(table: &mut [u32; SLOTS], used: &mut Vec<u16>, runs: &mut [Vec<u16>], seen: &mut Vec<u8>) {
    for &i in used.iter() {
        table[usize::from(i)] = EMPTY;
    }
    used.clear();
    for &c in seen.iter() {
        runs[usize::from(c)].clear();
    }
    seen.clear();
}

/// Starts the runs of index `c` with its root code if it has none yet.
#[inline(always)]
fn see(runs: &mut [Vec<u16>], seen: &mut Vec<u8>, c: u8) {
    let r = &mut runs[usize::from(c)];
    if r.is_empty() {
        r.push(u16::from(c));
        seen.push(c);
    }
}

/// The slot of (code, byte) in `table`: where it is, or the empty slot where it would go.
#[inline(always)]
fn slot(table: &[u32; SLOTS], key: u32) -> usize {
    // Fibonacci hashing: the top bits of the key times 2^32 / φ.
    let mut i = (key.wrapping_mul(0x9e37_79b1) >> (32 - SLOTS.trailing_zeros())) as usize;
    loop {
        let e = table[i];
        if e == EMPTY || e >> 12 == key {
            return i;
        }
        i = (i + 1) & (SLOTS - 1);
    }
}

/// How many pixels of `p` from `i` on, at most `max`, are `c`.
#[inline(always)]
fn same(p: &[u8], i: usize, max: usize, c: u8) -> usize {
    let end = (i + max).min(p.len());
    let a = &p[i..end];
    let splat = u64::from_le_bytes([c; 8]);
    let mut k = 0;
    while k + 8 <= a.len() {
        let x = u64::from_le_bytes(a[k..k + 8].try_into().unwrap_or_default()) ^ splat;
        if x != 0 {
            return k + (x.trailing_zeros() / 8) as usize;
        }
        k += 8;
    }
    while k < a.len() && a[k] == c {
        k += 1;
    }
    k
}

/// How many pixels from `i` on, at most `max`, are the same in `prev` and `next`.
#[inline(always)]
pub(super) fn unchanged(prev: &[u8], next: &[u8], i: usize, max: usize) -> usize {
    let end = (i + max).min(next.len());
    let (a, b) = (&prev[i..end], &next[i..end]);
    let mut k = 0;
    while k + 8 <= a.len() {
        let x = u64::from_le_bytes(a[k..k + 8].try_into().unwrap_or_default())
            ^ u64::from_le_bytes(b[k..k + 8].try_into().unwrap_or_default());
        if x != 0 {
            return k + (x.trailing_zeros() / 8) as usize;
        }
        k += 8;
    }
    while k < a.len() && a[k] == b[k] {
        k += 1;
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::playout::Rng;

    /// Decodes an image block's content with the `gif` crate's decoder, via a one-image GIF.
    fn decode(data: &[u8], w: u16, h: u16) -> Vec<u8> {
        let mut gif_bytes = Vec::new();
        {
            let palette: Vec<u8> = (0..=255u8).flat_map(|v| [v, v, v]).collect();
            let mut enc = gif::Encoder::new(&mut gif_bytes, w, h, &palette).unwrap();
            let frame = gif::Frame {
                width: w,
                height: h,
                buffer: std::borrow::Cow::Borrowed(data),
                ..gif::Frame::default()
            };
            enc.write_lzw_pre_encoded_frame(&frame).unwrap();
        }
        let mut opts = gif::DecodeOptions::new();
        opts.set_color_output(gif::ColorOutput::Indexed);
        let mut dec = opts.read_info(&gif_bytes[..]).unwrap();
        let f = dec.read_next_frame().unwrap().unwrap();
        f.buffer.to_vec()
    }

    fn encode(pixels: Pixels<'_>) -> Vec<u8> {
        let mut out = Vec::new();
        Lzw::new().encode(pixels, &mut out);
        out
    }

    #[test]
    fn plain_images_round_trip_through_the_gif_decoder() {
        let mut rng = Rng::new(11);
        let mut lzw = Lzw::new();
        // Noise (the table fills and clears many times), runs, few colours, one pixel.
        let noise: Vec<u8> = (0..300 * 200).map(|_| rng.below(256) as u8).collect();
        let runs: Vec<u8> = (0..300 * 200).map(|i| (i / 777 % 7) as u8 * 31).collect();
        let few: Vec<u8> = (0..300 * 200).map(|_| rng.below(3) as u8).collect();
        for (img, w, h) in [
            (&noise[..], 300, 200),
            (&runs[..], 300, 200),
            (&few[..], 300, 200),
            (&runs[..1], 1, 1),
            (&few[..4999], 4999, 1),
        ] {
            let mut out = Vec::new();
            lzw.encode(Pixels::Plain(img), &mut out);
            assert_eq!(decode(&out, w, h), img, "{w}x{h}");
        }
    }

    #[test]
    fn an_image_ending_with_pixels_coded_before_decodes_whole() {
        let mut rng = Rng::new(13);
        let mut lzw = Lzw::new();
        // Rests and heads of every kind: one pixel, runs, noise that fills the table (so that
        // the clear code between them follows a full table or a widening), odd bit lengths.
        let noise: Vec<u8> = (0..30_000).map(|_| rng.below(256) as u8).collect();
        let runs: Vec<u8> = (0..30_000).map(|i| (i / 97 % 5) as u8 * 40).collect();
        for (head, rest) in [
            (&runs[..1], &noise[..1]),
            (&runs[..], &noise[..]),
            (&noise[..], &runs[..]),
            (&noise[..3839], &runs[..7]),
            (&noise[..4093], &noise[..5]),
            (&runs[..511], &noise[..29_999]),
        ] {
            let coded = lzw.code_rest(rest);
            let mut out = Vec::new();
            lzw.encode_then(head, &coded, &mut out);
            let whole: Vec<u8> = head.iter().chain(rest).copied().collect();
            let w = whole.len() as u16;
            assert_eq!(decode(&out, w, 1), whole, "{} + {}", head.len(), rest.len());
            // The same pixels coded in one go are about as long (a clear code more or less).
            let mut plain = Vec::new();
            lzw.encode(Pixels::Plain(&whole), &mut plain);
            assert!(out.len() <= plain.len() + plain.len() / 10 + 4);
        }
    }

    #[test]
    fn diffs_decode_to_the_changed_pixels_and_transparency_elsewhere() {
        let mut rng = Rng::new(12);
        let prev: Vec<u8> = (0..200 * 150).map(|i| (i / 90 % 5) as u8).collect();
        let mut next = prev.clone();
        for _ in 0..3000 {
            let i = rng.below(next.len());
            next[i] = rng.below(255) as u8;
        }
        let out = encode(Pixels::Diff {
            prev: &prev,
            next: &next,
            transparent: 255,
        });
        let shown = decode(&out, 200, 150);
        for i in 0..next.len() {
            // Each pixel is the new colour, or transparent where nothing changed.
            let ok = shown[i] == next[i] || (prev[i] == next[i] && shown[i] == 255);
            assert!(
                ok,
                "pixel {i}: {} for {} (was {})",
                shown[i], next[i], prev[i]
            );
        }
    }

    #[test]
    fn flat_changes_over_flat_pictures_decode_exactly() {
        // Squares of one colour moved over a board of flat squares (as an Ard Rí move): long
        // runs of one colour, partly changed and partly unchanged, taken at once.
        let (w, h) = (504, 504);
        let board: Vec<u8> = (0..w * h)
            .map(|i| (((i % w) / 72 + (i / w) / 72) % 2) as u8 * 9 + 3)
            .collect();
        let mut rng = Rng::new(14);
        let mut prev = board.clone();
        for step in 0..40 {
            let mut next = prev.clone();
            for _ in 0..3 {
                let (x, y, side) = (rng.below(w - 80), rng.below(h - 80), 8 + rng.below(70));
                let c = [3, 12, 40, 200][rng.below(4)];
                for row in y..y + side {
                    next[row * w + x..row * w + x + side].fill(c);
                }
            }
            let shown = decode(
                &encode(Pixels::Diff {
                    prev: &prev,
                    next: &next,
                    transparent: 255,
                }),
                w as u16,
                h as u16,
            );
            for i in 0..next.len() {
                let ok = shown[i] == next[i] || (prev[i] == next[i] && shown[i] == 255);
                assert!(ok, "step {step}, pixel {i}: {} for {}", shown[i], next[i]);
            }
            assert_eq!(
                decode(&encode(Pixels::Plain(&next)), w as u16, h as u16),
                next
            );
            prev = next;
        }
    }

    #[test]
    fn unchanged_pixels_are_written_as_their_own_colour_where_that_matches() {
        // Every row of the new picture is the same; the pixels that changed are half of each
        // row, at places that differ from row to row. Written as their own colour, the
        // unchanged pixels make rows agree; as transparency, no two rows agree. (Transparency
        // is tried first, so the coder does not get down to the new picture's own size.)
        let (w, h) = (200, 100);
        let row: Vec<u8> = (0..w).map(|x| (x * 7 % 50) as u8).collect();
        let next: Vec<u8> = row.iter().copied().cycle().take(w * h).collect();
        let mut rng = Rng::new(15);
        let prev: Vec<u8> = next
            .iter()
            .map(|&v| if rng.below(2) == 0 { v + 100 } else { v })
            .collect();
        let wild = encode(Pixels::Diff {
            prev: &prev,
            next: &next,
            transparent: 255,
        });
        let masked: Vec<u8> = prev
            .iter()
            .zip(&next)
            .map(|(p, n)| if p == n { 255 } else { *n })
            .collect();
        let transparent = encode(Pixels::Plain(&masked));
        let own = encode(Pixels::Plain(&next));
        assert!(
            wild.len() * 4 < transparent.len() * 3 && wild.len() > own.len(),
            "{} bytes, as transparency {}, as their own colours {}",
            wild.len(),
            transparent.len(),
            own.len()
        );
    }

    #[test]
    fn wildcards_make_diffs_smaller_than_plain_transparency() {
        // Rows whose unchanged pixels differ from row to row: as wildcards they match.
        let w = 240;
        let prev: Vec<u8> = (0..w * 100).map(|i| ((i * 7 + i / w) % 13) as u8).collect();
        let mut next = prev.clone();
        for y in 0..100 {
            next[y * w + 100..y * w + 110].fill(200);
        }
        let masked: Vec<u8> = prev
            .iter()
            .zip(&next)
            .map(|(p, n)| if p == n { 255 } else { *n })
            .collect();
        let wild = encode(Pixels::Diff {
            prev: &prev,
            next: &next,
            transparent: 255,
        });
        let plain = encode(Pixels::Plain(&masked));
        assert_eq!(decode(&plain, w as u16, 100), masked);
        assert!(
            wild.len() <= plain.len(),
            "{} > {}",
            wild.len(),
            plain.len()
        );
    }
}
