//! One fixed 255-colour palette for every image, derived from the theme's own colours, and the
//! mapping of drawn pixels to it. Indexed PNGs are a third of the size of RGB ones, and replays
//! need no per-game palette.
//!
//! The palette is built once from constants, never from games: first every theme colour
//! exactly (in the order of [`THEME`], so their indices are fixed), then the flat colours that
//! translucent paint makes over its backgrounds, then shades of the anti-aliasing ramps between
//! the colours that meet in a drawing ([`MEETINGS`]), spread evenly over all the ramps.

use super::canvas::{blend, place, Align, Canvas, Rgba, Style, Text};
use super::theme as t;
use std::sync::LazyLock;

/// The palette index never produced by the mapping (transparent in GIF frames).
pub const UNUSED: u8 = 255;
/// Number of palette entries the mapping uses (all but [`UNUSED`]).
const ENTRIES: usize = UNUSED as usize;
/// Weights of the red, green and blue differences in the colour distance.
const WEIGHTS: [i32; 3] = [3, 4, 2];

/// `c` with weight `a` over `b`, rounded as the drawing code's 8-bit blending does.
const fn mix(c: u8, b: u8, a: u8) -> u8 {
    ((c as u32 * a as u32 + b as u32 * (255 - a as u32) + 127) / 255) as u8
}

/// The opaque colour that `fg`, with its alpha, makes over the opaque `bg`.
const fn over(fg: Rgba, bg: Rgba) -> Rgba {
    Rgba::rgb(
        mix(fg.0, bg.0, fg.3),
        mix(fg.1, bg.1, fg.3),
        mix(fg.2, bg.2, fg.3),
    )
}

/// Alpha of a ghost crown (a king just captured) on the Tara board.
const GHOST_KING: u8 = 110;
/// Alpha of a ghost crown (a king just removed) on the Tara board.
const GHOST_REMOVED: u8 = 90;
/// Alpha of a ghost piece (just captured) on the Ard Rí board.
const GHOST_PIECE: u8 = 90;
/// Alpha of the refuge marks on the Ard Rí throne and corners.
const REFUGE: u8 = 120;

/// The theme's opaque colours, at palette indices 0, 1, 2, … in this order.
pub(crate) const THEME: [Rgba; 22] = [
    t::BACKGROUND,
    t::PANEL,
    t::PANEL_EDGE,
    t::INK,
    t::MUTED,
    t::HILL,
    t::HILL_EDGE,
    t::HOLE,
    t::RED,
    t::RED_LIGHT,
    t::RED_DARK,
    t::BLUE,
    t::BLUE_LIGHT,
    t::BLUE_DARK,
    t::GOLD,
    t::GOLD_DARK,
    t::ALERT,
    t::WOOD_LIGHT,
    t::WOOD_DARK,
    t::WOOD_MARK,
    t::ATTACKER,
    t::DEFENDER,
];

/// A refuge square's tint (throne and corners are always dark squares).
const REFUGE_SQUARE: Rgba = over(t::WOOD_MARK.alpha(REFUGE), t::WOOD_DARK);
/// Hills the last move left and reached.
const FROM_HILL: Rgba = over(t::LAST_FROM, t::HILL);
const TO_HILL: Rgba = over(t::LAST_TO, t::HILL);
/// Squares the last move left and reached.
const FROM_LIGHT: Rgba = over(t::LAST_FROM, t::WOOD_LIGHT);
const FROM_DARK: Rgba = over(t::LAST_FROM, t::WOOD_DARK);
const TO_LIGHT: Rgba = over(t::LAST_TO, t::WOOD_LIGHT);
const TO_DARK: Rgba = over(t::LAST_TO, t::WOOD_DARK);
/// A ghost attacker's rim and body, and a ghost defender's disc, on both squares.
const GHOST_RIM_LIGHT: Rgba = over(t::MUTED.alpha(GHOST_PIECE), t::WOOD_LIGHT);
const GHOST_RIM_DARK: Rgba = over(t::MUTED.alpha(GHOST_PIECE), t::WOOD_DARK);
const GHOST_BODY_LIGHT: Rgba = over(t::ATTACKER.alpha(GHOST_PIECE), t::WOOD_LIGHT);
const GHOST_BODY_DARK: Rgba = over(t::ATTACKER.alpha(GHOST_PIECE), t::WOOD_DARK);
const GHOST_DISC_LIGHT: Rgba = over(t::DEFENDER.alpha(GHOST_PIECE), t::WOOD_LIGHT);
const GHOST_DISC_DARK: Rgba = over(t::DEFENDER.alpha(GHOST_PIECE), t::WOOD_DARK);

/// Where colours meet: each foreground (with its alpha) drawn over each of its backgrounds.
/// Every `over(fg, bg)` is a flat colour of the palette, and the way from `bg` to it is a ramp.
const MEETINGS: &[(Rgba, &[Rgba])] = &[
    // The card and the header panels, their borders, emblems and text.
    (t::PANEL, &[t::BACKGROUND]),
    (t::PANEL_EDGE, &[t::BACKGROUND, t::PANEL]),
    (t::GOLD, &[t::BACKGROUND, t::PANEL, t::GOLD_DARK]),
    (t::INK, &[t::PANEL, t::BACKGROUND, t::DEFENDER]),
    (
        t::MUTED,
        &[t::PANEL, t::BACKGROUND, t::WOOD_LIGHT, t::WOOD_DARK],
    ),
    (t::ALERT, &[t::BACKGROUND, t::PANEL]),
    (t::GOLD_DARK, &[t::GOLD, t::PANEL]),
    (t::RED_DARK, &[t::PANEL]),
    (t::BLUE_DARK, &[t::PANEL]),
    // Tara: hills, the last move, vacant hills.
    (t::HILL, &[t::BACKGROUND]),
    (t::HILL_EDGE, &[t::BACKGROUND, t::HILL]),
    (t::LAST_FROM, &[t::HILL, t::HILL_EDGE]),
    (t::LAST_TO, &[t::HILL, t::HILL_EDGE]),
    (t::HOLE, &[t::HILL, FROM_HILL]),
    // Bridge bands, ringforts and strands of both sides.
    (t::RED_LIGHT, &[t::HILL, t::BACKGROUND, FROM_HILL, TO_HILL]),
    (t::BLUE_LIGHT, &[t::HILL, t::BACKGROUND, FROM_HILL, TO_HILL]),
    (
        t::RED_DARK,
        &[
            t::HILL,
            t::BACKGROUND,
            t::RED_LIGHT,
            FROM_HILL,
            TO_HILL,
            t::BLUE_LIGHT,
        ],
    ),
    (
        t::BLUE_DARK,
        &[
            t::HILL,
            t::BACKGROUND,
            t::BLUE_LIGHT,
            FROM_HILL,
            TO_HILL,
            t::RED_LIGHT,
        ],
    ),
    (t::RED, &[t::RED_DARK, t::GOLD, t::GOLD_DARK]),
    (t::BLUE, &[t::BLUE_DARK, t::GOLD, t::GOLD_DARK]),
    // Crowns and the gold halo of a ringfort that changed hands.
    (
        t::GOLD_DARK,
        &[
            t::RED_LIGHT,
            t::BLUE_LIGHT,
            t::HILL,
            t::RED,
            t::BLUE,
            t::DEFENDER,
        ],
    ),
    // Ard Rí: refuges, the frame, the last move.
    (t::WOOD_MARK.alpha(REFUGE), &[t::WOOD_DARK]),
    (
        t::WOOD_MARK,
        &[
            REFUGE_SQUARE,
            t::WOOD_DARK,
            t::WOOD_LIGHT,
            t::BACKGROUND,
            t::ATTACKER,
        ],
    ),
    (
        t::LAST_FROM,
        &[t::WOOD_LIGHT, t::WOOD_DARK, REFUGE_SQUARE, t::WOOD_MARK],
    ),
    (
        t::LAST_TO,
        &[t::WOOD_LIGHT, t::WOOD_DARK, REFUGE_SQUARE, t::WOOD_MARK],
    ),
    // Pieces on every square they stand on.
    (
        t::MUTED,
        &[FROM_LIGHT, FROM_DARK, TO_LIGHT, TO_DARK, REFUGE_SQUARE],
    ),
    (t::ATTACKER, &[t::MUTED]),
    (t::DEFENDER, UNDER_A_DEFENDER),
    (t::INK, UNDER_A_DEFENDER),
];

/// What a defender (and the ink of its outline and the king's crown) is drawn over.
const UNDER_A_DEFENDER: &[Rgba] = &[
    t::WOOD_LIGHT,
    t::WOOD_DARK,
    TO_LIGHT,
    TO_DARK,
    REFUGE_SQUARE,
    t::PANEL,
];

/// Meetings on few pixels of few images (a piece or a king just captured): their shades get
/// half the density of the everyday ones.
const RARE: &[(Rgba, &[Rgba])] = &[
    // Ghost crowns of kings just captured or removed, struck through.
    (t::GOLD.alpha(GHOST_KING), &[t::RED_LIGHT, t::BLUE_LIGHT]),
    (
        t::GOLD_DARK.alpha(GHOST_KING),
        &[t::RED_LIGHT, t::BLUE_LIGHT],
    ),
    (t::GOLD.alpha(GHOST_REMOVED), &[t::RED_LIGHT, t::BLUE_LIGHT]),
    (
        t::GOLD_DARK.alpha(GHOST_REMOVED),
        &[t::RED_LIGHT, t::BLUE_LIGHT],
    ),
    (t::ALERT, &[t::RED_LIGHT, t::BLUE_LIGHT]),
    // Ghosts of captured pieces, struck through.
    (t::MUTED.alpha(GHOST_PIECE), &[t::WOOD_LIGHT, t::WOOD_DARK]),
    (
        t::ATTACKER.alpha(GHOST_PIECE),
        &[GHOST_RIM_LIGHT, GHOST_RIM_DARK],
    ),
    (
        t::ATTACKER.alpha(GHOST_PIECE),
        &[t::WOOD_LIGHT, t::WOOD_DARK],
    ),
    (
        t::WOOD_MARK.alpha(GHOST_PIECE),
        &[GHOST_BODY_LIGHT, GHOST_BODY_DARK],
    ),
    (
        t::DEFENDER.alpha(GHOST_PIECE),
        &[t::WOOD_LIGHT, t::WOOD_DARK],
    ),
    (
        t::INK.alpha(GHOST_PIECE),
        &[GHOST_DISC_LIGHT, GHOST_DISC_DARK],
    ),
    (t::INK.alpha(GHOST_PIECE), &[t::WOOD_LIGHT, t::WOOD_DARK]),
    (
        t::ALERT,
        &[
            t::WOOD_LIGHT,
            t::WOOD_DARK,
            GHOST_BODY_LIGHT,
            GHOST_BODY_DARK,
        ],
    ),
    (t::ALERT, &[GHOST_DISC_LIGHT, GHOST_DISC_DARK, t::DEFENDER]),
];

/// Weighted squared distance between two colours.
fn distance(a: [i32; 3], b: [i32; 3]) -> i32 {
    (0..3).map(|k| WEIGHTS[k] * (a[k] - b[k]).pow(2)).sum()
}

fn rgb(c: Rgba) -> [u8; 3] {
    [c.0, c.1, c.2]
}

/// Shades sampled along each ramp: finer than anti-aliasing needs to be told apart.
const SAMPLES: usize = 64;

/// A ramp between two flat colours, and whether it is one of the [`RARE`] meetings.
type Ramp = ([u8; 3], [u8; 3], bool);

/// The flat colours (theme colours first) and the ramps of [`MEETINGS`] as (from, to) pairs.
fn flats_and_ramps() -> (Vec<[u8; 3]>, Vec<Ramp>) {
    let mut flats: Vec<[u8; 3]> = Vec::new();
    let add = |c: [u8; 3], flats: &mut Vec<[u8; 3]>| {
        if !flats.contains(&c) {
            flats.push(c);
        }
    };
    for c in THEME {
        add(rgb(c), &mut flats);
    }
    let mut ramps = Vec::new();
    let meetings = MEETINGS.iter().map(|m| (m, false));
    for ((fg, backgrounds), rare) in meetings.chain(RARE.iter().map(|m| (m, true))) {
        for bg in *backgrounds {
            let (from, to) = (rgb(*bg), rgb(over(*fg, *bg)));
            add(from, &mut flats);
            add(to, &mut flats);
            let known = ramps
                .iter()
                .any(|&(a, b, _)| (a, b) == (from, to) || (a, b) == (to, from));
            if from != to && !known {
                ramps.push((from, to, rare));
            }
        }
    }
    (flats, ramps)
}

/// The 255 colours of the palette, derived from the theme alone: the flat colours, then,
/// one at a time, the shade of any ramp that is furthest from every colour chosen so far
/// (farthest-point sampling), so that shades are spread evenly over all the ramps and ramps
/// that run close together share them.
fn derive() -> Vec<[u8; 3]> {
    let (mut colours, ramps) = flats_and_ramps();
    colours.truncate(ENTRIES);
    let mut shades: Vec<[i32; 3]> = Vec::with_capacity(ramps.len() * SAMPLES);
    let mut shift = Vec::with_capacity(ramps.len() * SAMPLES);
    for (from, to, rare) in &ramps {
        for k in 1..SAMPLES {
            let f = k as f64 / SAMPLES as f64;
            shades.push([0, 1, 2].map(|c| {
                let (a, b) = (f64::from(from[c]), f64::from(to[c]));
                (a + (b - a) * f).round() as i32
            }));
            // A rare shade counts a quarter of its squared distance: half the density.
            shift.push(if *rare { 2 } else { 0 });
        }
    }
    let wide = |c: &[u8; 3]| c.map(i32::from);
    let mut gap: Vec<i32> = shades
        .iter()
        .zip(&shift)
        .map(|(s, k)| {
            colours
                .iter()
                .map(|c| distance(*s, wide(c)) >> k)
                .min()
                .unwrap_or(i32::MAX)
        })
        .collect();
    while colours.len() < ENTRIES {
        // The first shade with the largest distance to the palette (ties: the earliest).
        let mut worst = (0, 0usize);
        for (i, g) in gap.iter().enumerate() {
            if *g > worst.0 {
                worst = (*g, i);
            }
        }
        if worst.0 == 0 {
            break;
        }
        let s = shades[worst.1];
        colours.push(s.map(|v| v.clamp(0, 255) as u8));
        for ((g, x), k) in gap.iter_mut().zip(&shades).zip(&shift) {
            *g = (*g).min(distance(*x, s) >> k);
        }
    }
    colours
}

/// Side of the lookup grid: 5 bits per channel.
const GRID: usize = 32;

pub struct Palette {
    /// 256 RGB triples; entry 255 is unused (black).
    pub colours: Vec<u8>,
    /// For each 5-bit-per-channel cell of RGB space, the range of `candidates` holding every
    /// entry that is the nearest to some colour of the cell (offset << 8 | count).
    cells: Vec<u32>,
    /// Palette indices, ascending within each cell's range.
    candidates: Vec<u8>,
}

/// The palette of all images.
pub static PALETTE: LazyLock<Palette> = LazyLock::new(Palette::new);

impl Palette {
    fn new() -> Palette {
        let list = derive();
        let mut colours: Vec<u8> = list.iter().flatten().copied().collect();
        colours.resize(256 * 3, 0);
        let n = list.len();
        // Per channel, cell and entry: the least and the greatest weighted squared distance
        // from the cell's values to the entry's value.
        let mut near = vec![[0i32; 3]; GRID * n];
        let mut far = vec![[0i32; 3]; GRID * n];
        for cell in 0..GRID {
            let (lo, hi) = ((cell * 8) as i32, (cell * 8 + 7) as i32);
            for (k, e) in list.iter().enumerate() {
                for c in 0..3 {
                    let v = i32::from(e[c]);
                    let inside = if v < lo {
                        lo - v
                    } else if v > hi {
                        v - hi
                    } else {
                        0
                    };
                    let outside = (v - lo).abs().max((v - hi).abs());
                    near[cell * n + k][c] = WEIGHTS[c] * inside * inside;
                    far[cell * n + k][c] = WEIGHTS[c] * outside * outside;
                }
            }
        }
        let mut cells = Vec::with_capacity(GRID * GRID * GRID);
        let mut candidates = Vec::new();
        let mut lower = vec![0i32; n];
        for i in 0..GRID * GRID * GRID {
            let (r, g, b) = (i >> 10, (i >> 5) & 31, i & 31);
            let mut bound = i32::MAX;
            for (k, low) in lower.iter_mut().enumerate() {
                *low = near[r * n + k][0] + near[g * n + k][1] + near[b * n + k][2];
                bound = bound.min(far[r * n + k][0] + far[g * n + k][1] + far[b * n + k][2]);
            }
            let start = candidates.len();
            candidates.extend((0..n).filter(|&k| lower[k] <= bound).map(|k| k as u8));
            cells.push(((start as u32) << 8) | (candidates.len() - start) as u32);
        }
        Palette {
            colours,
            cells,
            candidates,
        }
    }

    /// The index of the entry nearest to a colour (the lowest index on a tie).
    pub fn nearest(&self, r: u8, g: u8, b: u8) -> u8 {
        let cell = (usize::from(r >> 3) << 10) | (usize::from(g >> 3) << 5) | usize::from(b >> 3);
        let range = self.cells[cell];
        let (start, count) = ((range >> 8) as usize, (range & 0xff) as usize);
        let list = &self.candidates[start..start + count];
        if let [only] = list {
            return *only;
        }
        let x = [i32::from(r), i32::from(g), i32::from(b)];
        let mut best = (i32::MAX, 0u8);
        for &k in list {
            let e = &self.colours[3 * usize::from(k)..3 * usize::from(k) + 3];
            let d = distance(x, [i32::from(e[0]), i32::from(e[1]), i32::from(e[2])]);
            if d < best.0 {
                best = (d, k);
            }
        }
        best.1
    }

    /// The canvas's pixels as palette indices.
    pub fn index(&self, c: &Canvas) -> Vec<u8> {
        self.index_rgba(c.pixmap.data())
    }

    /// Opaque RGBA pixels as palette indices.
    pub(super) fn index_rgba(&self, data: &[u8]) -> Vec<u8> {
        // A drawing has a few hundred distinct colours: a small direct-mapped cache of colour
        // to index, kept by each thread from one image to the next (text and tiles bring the
        // same shades again), answers almost every pixel without a search.
        const SLOTS: usize = 1 << 12;
        struct Cache {
            palette: usize,
            keys: Vec<u32>,
            values: Vec<u8>,
        }
        thread_local! {
            static CACHE: std::cell::RefCell<Cache> = const {
                std::cell::RefCell::new(Cache { palette: 0, keys: Vec::new(), values: Vec::new() })
            };
        }
        CACHE.with_borrow_mut(|cache| {
            let me = self as *const Palette as usize;
            if cache.palette != me || cache.keys.len() != SLOTS {
                *cache = Cache {
                    palette: me,
                    keys: vec![u32::MAX; SLOTS],
                    values: vec![0u8; SLOTS],
                };
            }
            self.index_cached(data, &mut cache.keys, &mut cache.values)
        })
    }

    /// [`Palette::index_rgba`] with the colour cache given (`keys`: colours, `values`: their
    /// indices, direct-mapped).
    fn index_cached(&self, data: &[u8], keys: &mut [u32], values: &mut [u8]) -> Vec<u8> {
        let shift = 32 - keys.len().trailing_zeros();
        let mut out = vec![0u8; data.len() / 4];
        let word = |p: &[u8]| u32::from_le_bytes(p.try_into().unwrap_or_default());
        // Runs of one colour (most of an image) cost one comparison per pixel. The first pixel
        // differs from this one, so it is looked up.
        let (mut last_pixel, mut last) = (data.get(..4).map_or(0, |p| !word(p)), 0u8);
        for (o, p) in out.iter_mut().zip(data.chunks_exact(4)) {
            let pixel = word(p);
            if pixel != last_pixel {
                let key = u32::from_be_bytes([0, p[0], p[1], p[2]]);
                let slot = (key.wrapping_mul(0x9e37_79b1) >> shift) as usize;
                last = if keys[slot] == key {
                    values[slot]
                } else {
                    let i = self.nearest(p[0], p[1], p[2]);
                    keys[slot] = key;
                    values[slot] = i;
                    i
                };
                last_pixel = pixel;
            }
            *o = last;
        }
        out
    }

    /// An indexed (8-bit palette) PNG of palette indices, `width` by `height`.
    pub fn png_of(&self, data: &[u8], width: u32, height: u32) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 * 1024);
        {
            let mut enc = png::Encoder::new(&mut out, width, height);
            enc.set_color(png::ColorType::Indexed);
            enc.set_depth(png::BitDepth::Eight);
            enc.set_palette(self.colours[..ENTRIES * 3].to_vec());
            // Palette indices are not numbers that filters can predict (Sub makes boards 10 to
            // 15% larger), so no filter. Deflate is zlib-rs (flate2's `zlib-rs` backend); on
            // the boards of `bench render`, median bytes and ms per level:
            //   fdeflate (`Fast`): 225-335 KB, 0.5 ms;  level 1: 30-35 KB, 0.6-0.8 ms;
            //   level 2: 23-25 KB, 0.8 ms;  level 3: 22-24 KB, 1.5-2.8 ms;  level 6: 18-21 KB,
            //   3-4.5 ms. (miniz_oxide, the default backend, at level 1: 30-32 KB, 2.5 ms.)
            // Level 2 is the knee: as fast as level 1 and a quarter smaller.
            enc.set_deflate_compression(png::DeflateCompression::Level(2));
            enc.set_filter(png::Filter::NoFilter);
            let mut writer = enc.write_header().expect("PNG header to memory");
            writer.write_image_data(data).expect("PNG data to memory");
        }
        out
    }
}

/// Text written straight into palette indices over a background of one colour: the same
/// pixels as text written on a [`Canvas`] of that colour and then mapped to the palette, made
/// from each glyph's [`Stamp`] (where glyphs overlap, the later one is blended over the
/// earlier as on a canvas).
pub struct IndexedText {
    w: usize,
    h: usize,
    background: [u8; 3],
    /// The pixels' palette indices, row by row.
    pub indices: Vec<u8>,
    /// The colour of each pixel a glyph has reached (the background's elsewhere).
    shade: Vec<[u8; 3]>,
    reached: Vec<bool>,
}

impl IndexedText {
    /// A `w` by `h` image of the opaque colour `background`.
    pub fn new(w: usize, h: usize, background: Rgba) -> IndexedText {
        let index = PALETTE.nearest(background.0, background.1, background.2);
        IndexedText {
            w,
            h,
            background: [background.0, background.1, background.2],
            indices: vec![index; w * h],
            shade: vec![[0; 3]; w * h],
            reached: vec![false; w * h],
        }
    }
}

impl Text for IndexedText {
    /// Writes `text` as [`Canvas::text`] does.
    fn text(&mut self, style: Style, x: f32, y: f32, align: Align, text: &str) -> f32 {
        let IndexedText {
            w,
            h,
            background,
            indices,
            shade,
            reached,
        } = self;
        let (w, c) = (*w, style.colour);
        place(
            (w as i32, *h as i32),
            style,
            (x, y),
            align,
            text,
            |g, (x0, y0), cols, rows| {
                let stamp = g.stamp(c, *background, |[r, g, b]| PALETTE.nearest(r, g, b));
                for gy in rows {
                    let at = (y0 + gy as i32) as usize * w;
                    // A row no glyph has reached yet is the stamp's row: where the glyph does
                    // not reach, its colour is the background's, as the pixel's is.
                    let (from, to) = (at + (x0 + cols.start as i32) as usize, gy * g.w);
                    let n = cols.len();
                    if !reached[from..from + n].contains(&true) {
                        let k = to + cols.start;
                        indices[from..from + n].copy_from_slice(&stamp.index[k..k + n]);
                        shade[from..from + n].copy_from_slice(&stamp.rgb[k..k + n]);
                        reached[from..from + n].fill(true);
                        continue;
                    }
                    for gx in cols.clone() {
                        let (i, p) = (gy * g.w + gx, at + (x0 + gx as i32) as usize);
                        let cov = g.cov[i];
                        if cov <= 0.0 {
                            continue;
                        }
                        if reached[p] {
                            let [r, gr, b] = blend(shade[p], c, cov);
                            (shade[p], indices[p]) = ([r, gr, b], PALETTE.nearest(r, gr, b));
                        } else {
                            reached[p] = true;
                            shade[p] = stamp.rgb[i];
                            indices[p] = stamp.index[i];
                        }
                    }
                }
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FNV-1a of the 255 entries: changes only when the theme or the derivation changes.
    fn checksum(p: &Palette) -> u64 {
        p.colours[..ENTRIES * 3]
            .iter()
            .fold(0xcbf2_9ce4_8422_2325, |h, b| {
                (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
            })
    }

    #[test]
    fn the_palette_is_derived_from_the_theme_alone() {
        let a = Palette::new();
        let b = Palette::new();
        assert_eq!(a.colours, b.colours);
        assert_eq!(a.colours.len(), 256 * 3);
        assert_eq!(checksum(&a), 17_292_947_499_256_648_037);
    }

    #[test]
    fn every_theme_colour_is_an_entry_at_its_fixed_index_and_maps_to_itself() {
        let p = &*PALETTE;
        for (i, c) in THEME.iter().enumerate() {
            assert_eq!(&p.colours[3 * i..3 * i + 3], &[c.0, c.1, c.2], "entry {i}");
            assert_eq!(usize::from(p.nearest(c.0, c.1, c.2)), i, "{c:?}");
        }
    }

    #[test]
    fn every_entry_maps_to_itself_and_none_to_the_transparent_index() {
        let p = &*PALETTE;
        let mut seen = std::collections::HashSet::new();
        for i in 0..ENTRIES {
            let e = &p.colours[3 * i..3 * i + 3];
            assert!(seen.insert([e[0], e[1], e[2]]), "entry {i} repeats");
            assert_eq!(usize::from(p.nearest(e[0], e[1], e[2])), i);
        }
        for v in (0..=255u8).step_by(5) {
            assert_ne!(p.nearest(v, 255 - v, v / 2), UNUSED);
        }
    }

    #[test]
    fn the_lookup_finds_the_nearest_entry() {
        let p = &*PALETTE;
        let brute = |x: [i32; 3]| {
            (0..ENTRIES)
                .min_by_key(|&k| {
                    let e = &p.colours[3 * k..3 * k + 3];
                    distance(x, [0, 1, 2].map(|c| i32::from(e[c])))
                })
                .map(|k| k as u8)
        };
        for r in (0..=255u8).step_by(7) {
            for g in (0..=255u8).step_by(11) {
                for b in (0..=255u8).step_by(13) {
                    let x = [r, g, b].map(i32::from);
                    assert_eq!(Some(p.nearest(r, g, b)), brute(x), "{r} {g} {b}");
                }
            }
        }
    }

    #[test]
    fn anti_aliased_text_on_a_panel_stays_close_to_its_true_shade() {
        let p = &*PALETTE;
        let (ink, panel) = (rgb(t::INK), rgb(t::PANEL));
        for k in 0..=32u32 {
            let shade = [0, 1, 2].map(|c| {
                ((u32::from(ink[c]) * k + u32::from(panel[c]) * (32 - k) + 16) / 32) as u8
            });
            let i = usize::from(p.nearest(shade[0], shade[1], shade[2]));
            let got = &p.colours[3 * i..3 * i + 3];
            let err = (0..3).map(|c| shade[c].abs_diff(got[c])).max().unwrap_or(0);
            assert!(err <= 16, "{shade:?} -> {got:?}");
        }
    }

    #[test]
    fn text_written_as_palette_indices_is_text_written_on_a_canvas() {
        use crate::render::canvas::Weight;
        let (w, h) = (180, 40);
        let background = t::BACKGROUND;
        let index = PALETTE.index(&Canvas::new(1, 1, background))[0];
        assert_eq!(IndexedText::new(1, 1, background).indices, [index]);
        // Lines in both weights and several colours; glyphs cut by the edges; text written
        // over text (overlapping glyphs are blended over each other).
        let lines: [(Style, f32, f32, Align, &str); 7] = [
            (
                Style::new(Weight::Bold, 16.0, t::INK),
                90.0,
                14.0,
                Align::Centre,
                "Battle · Move 30",
            ),
            (
                Style::new(Weight::Regular, 13.0, t::MUTED),
                3.3,
                31.0,
                Align::Left,
                "Blue moved D1-B2 and built. ÁVAWAY",
            ),
            (
                Style::new(Weight::Bold, 19.0, t::RED),
                178.6,
                45.0,
                Align::Right,
                "Ffi jgq",
            ),
            (
                Style::new(Weight::Regular, 13.0, t::INK),
                -6.2,
                6.0,
                Align::Left,
                "cut at the edge",
            ),
            (
                Style::new(Weight::Bold, 16.0, t::INK),
                90.25,
                14.0,
                Align::Centre,
                "Battle · Move 30",
            ),
            (
                Style::new(Weight::Bold, 16.0, t::RED),
                91.0,
                15.5,
                Align::Centre,
                "Battle · Move 31",
            ),
            (
                Style::new(Weight::Regular, 13.0, Rgba(0x10, 0x60, 0x20, 0x80)),
                20.0,
                30.0,
                Align::Left,
                "half seen",
            ),
        ];
        for n in 1..=lines.len() {
            let mut canvas = Canvas::new(w as u32, h as u32, background);
            let mut indexed = IndexedText::new(w, h, background);
            for &(style, x, y, align, text) in &lines[..n] {
                let a = canvas.text(style, x, y, align, text);
                let b = indexed.text(style, x, y, align, text);
                assert_eq!(a.to_bits(), b.to_bits(), "{text}");
            }
            let expected = PALETTE.index(&canvas);
            let differ = expected
                .iter()
                .zip(&indexed.indices)
                .filter(|(a, b)| a != b)
                .count();
            assert_eq!(differ, 0, "after {n} lines");
            assert!(indexed.indices.iter().any(|&i| i != index));
        }
    }
}
