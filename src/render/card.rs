//! Drawing of the rating cards on an `image` RGB buffer: text through `imageproc` with the
//! bundled fonts, anti-aliased rounded panels, discs and chips, and PNG encoding.

use super::canvas::{font, Align, Canvas, Rgba, Style, Weight};
use super::fonts;
use super::header::legible;
use super::layout::{fit, fit_lines, Fitted};
use super::theme;
use ab_glyph::{Font, PxScale, ScaleFont};
use image::{Rgb, RgbImage};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The sizes a card's title may be drawn at on one line, largest first; on two lines it is
/// drawn at the last.
const TITLE_SIZES: [f32; 5] = [26.0, 24.0, 22.0, 20.0, 18.0];

/// The `image` pixel of a theme colour (alpha ignored).
pub(super) fn rgb(c: Rgba) -> Rgb<u8> {
    Rgb([c.0, c.1, c.2])
}

/// `a` with weight `t` (0..=1) over `b`.
fn mix(a: Rgba, b: Rgba, t: f32) -> Rgba {
    let m = |x: u8, y: u8| (f32::from(x) * t + f32::from(y) * (1.0 - t) + 0.5) as u8;
    Rgba::rgb(m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
}

/// The measures of the player tables (the ladder and the leaderboard): the title band's
/// height, the heading row's and each player's row's, the rank's centre and the name's left
/// edge.
pub(super) const TABLE_TOP: f32 = 92.0;
pub(super) const TABLE_HEADING: f32 = 34.0;
pub(super) const TABLE_ROW: f32 = 36.0;
pub(super) const TABLE_RANK_X: f32 = 50.0;
pub(super) const TABLE_NAME_X: f32 = 84.0;

/// What frames a table card (see [`Card::table`]): its width, where its panel starts, the
/// heights of its heading row and of a row, its title band (title, subtitle, and the title
/// drawn when nothing of the title is drawable), and what it says without rows (a headline and
/// a hint).
pub(super) struct TableFrame<'a> {
    pub width: u32,
    pub top: f32,
    pub heights: (f32, f32),
    pub titles: (&'a str, &'a str, &'a str),
    pub empty: (&'a str, &'a str),
}

/// An opaque card being drawn.
pub(super) struct Card {
    pub img: RgbImage,
}

impl Card {
    pub fn new(width: u32, height: u32, background: Rgba) -> Card {
        Card {
            img: RgbImage::from_pixel(width.max(1), height.max(1), rgb(background)),
        }
    }

    /// Writes `text` with its baseline at `y` (text a user wrote should go through
    /// [`user_text`] first); returns the width written.
    pub fn text(&mut self, style: Style, x: f32, y: f32, align: Align, text: &str) -> f32 {
        let width = Canvas::text_width(style.weight, style.size, text);
        let left = match align {
            Align::Left => x,
            Align::Centre => x - width / 2.0,
            Align::Right => x - width,
        };
        if !text.chars().all(|ch| fonts::simple(style.weight, ch)) {
            // Shaped, in several faces ([`fonts::layout`]): each glyph drawn from its face.
            for g in fonts::layout(style.weight, style.size, text).glyphs {
                let scale = fonts::scale(g.face, style.size);
                let at = ab_glyph::point(left + g.x, y + g.y);
                let glyph = g.id.with_scale_and_position(scale, at);
                if let Some(o) = fonts::face(g.face).font.outline_glyph(glyph) {
                    let b = o.px_bounds();
                    let (x0, y0) = (b.min.x as i32, b.min.y as i32);
                    o.draw(|gx, gy, cov| {
                        self.blend(x0 + gx as i32, y0 + gy as i32, style.colour, cov);
                    });
                }
            }
            return width;
        }
        let f = font(style.weight);
        let scale = PxScale::from(style.size);
        let top = y - f.as_scaled(scale).ascent();
        imageproc::drawing::draw_text_mut(
            &mut self.img,
            rgb(style.colour),
            left.round() as i32,
            top.round() as i32,
            scale,
            f,
            text,
        );
        width
    }

    /// Blends `c` at `coverage` (0..=1) into the pixel at `x`, `y`, if it is on the card.
    fn blend(&mut self, x: i32, y: i32, c: Rgba, coverage: f32) {
        if x < 0 || y < 0 || x >= self.img.width() as i32 || y >= self.img.height() as i32 {
            return;
        }
        let a = coverage.clamp(0.0, 1.0) * f32::from(c.3) / 255.0;
        if a <= 0.0 {
            return;
        }
        let p = self.img.get_pixel_mut(x as u32, y as u32);
        if a >= 1.0 {
            *p = rgb(c);
            return;
        }
        for (k, v) in [c.0, c.1, c.2].into_iter().enumerate() {
            p.0[k] = (f32::from(v) * a + f32::from(p.0[k]) * (1.0 - a) + 0.5) as u8;
        }
    }

    /// Fills a rectangle with rounded corners of radius `r`, anti-aliased.
    pub fn rounded_rect(&mut self, x: f32, y: f32, w: f32, h: f32, r: f32, c: Rgba) {
        self.shape(x, y, w, h, r, c, None);
    }

    /// A panel: a rounded rectangle in the theme's panel colour, with its edge.
    pub fn panel(&mut self, x: f32, y: f32, w: f32, h: f32, r: f32) {
        self.shape(x, y, w, h, r, theme::PANEL, Some((theme::PANEL_EDGE, 1.5)));
    }

    /// A rounded rectangle filled with `fill` (opaque colours only), with an optional edge of
    /// the given colour and width inside it, anti-aliased, in one pass.
    #[allow(clippy::too_many_arguments)]
    fn shape(
        &mut self,
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        r: f32,
        fill: Rgba,
        edge: Option<(Rgba, f32)>,
    ) {
        if !(w > 0.0 && h > 0.0 && x.is_finite() && y.is_finite() && r.is_finite()) {
            return;
        }
        let r = r.clamp(0.0, w.min(h) / 2.0);
        let (width, height) = (self.img.width() as i32, self.img.height() as i32);
        let (x0, y0) = ((x.floor() as i32).max(0), (y.floor() as i32).max(0));
        let x1 = ((x + w).ceil() as i32).min(width);
        let y1 = ((y + h).ceil() as i32).min(height);
        let (edge, edge_w) = edge.unwrap_or((fill, 0.0));
        let sdf = |px: i32, py: i32| {
            // Signed distance from the pixel's centre to the rounded rectangle.
            let (cx, cy) = (px as f32 + 0.5, py as f32 + 0.5);
            let qx = (cx - (x + w / 2.0)).abs() - (w / 2.0 - r);
            let qy = (cy - (y + h / 2.0)).abs() - (h / 2.0 - r);
            if qx > 0.0 && qy > 0.0 {
                qx.hypot(qy) - r
            } else {
                qx.max(qy) - r
            }
        };
        let paint = |card: &mut Card, px: i32, py: i32| {
            let d = sdf(px, py);
            let outer = (0.5 - d).clamp(0.0, 1.0);
            if outer <= 0.0 {
                return;
            }
            let inner = (0.5 - (d + edge_w)).clamp(0.0, 1.0);
            card.blend(px, py, mix(fill, edge, inner), outer);
        };
        // The columns and rows whose pixels lie wholly inside the straight parts of the fill.
        let inset = edge_w + 1.0;
        let ix0 = ((x + inset).ceil() as i32).clamp(x0, x1.max(x0));
        let ix1 = ((x + w - inset).floor() as i32).clamp(ix0, x1.max(ix0));
        let row_fill: Vec<u8> = [fill.0, fill.1, fill.2].repeat((ix1 - ix0).max(0) as usize);
        for py in y0..y1 {
            let cy = py as f32 + 0.5;
            if cy >= y + r.max(inset) && cy <= y + h - r.max(inset) && ix0 < ix1 {
                for px in (x0..ix0).chain(ix1..x1) {
                    paint(self, px, py);
                }
                let start = (py as usize * width as usize + ix0 as usize) * 3;
                self.img.as_mut()[start..start + row_fill.len()].copy_from_slice(&row_fill);
            } else {
                for px in x0..x1 {
                    paint(self, px, py);
                }
            }
        }
    }

    /// Fills a disc, anti-aliased.
    pub fn disc(&mut self, cx: f32, cy: f32, r: f32, c: Rgba) {
        self.rounded_rect(cx - r, cy - r, 2.0 * r, 2.0 * r, r, c);
    }

    /// Fills an axis-aligned rectangle (whole pixels).
    pub fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, c: Rgba) {
        if let (Ok(w), Ok(h)) = (
            u32::try_from(w.round() as i64),
            u32::try_from(h.round() as i64),
        ) {
            if w > 0 && h > 0 {
                imageproc::drawing::draw_filled_rect_mut(
                    &mut self.img,
                    imageproc::rect::Rect::at(x.round() as i32, y.round() as i32).of_size(w, h),
                    rgb(c),
                );
            }
        }
    }

    /// Copies `src` onto the card with its top-left corner at `x`, `y`.
    pub fn paste(&mut self, src: &RgbImage, x: u32, y: u32) {
        image::imageops::replace(&mut self.img, src, i64::from(x), i64::from(y));
    }

    /// A card `width` wide with its title band (see [`Card::title_band`]) and, from `top`, the
    /// panel of a table of `rows` rows under a `heading` row of column heads, each `row` high;
    /// with no rows the panel leaves room for [`Card::empty_table`]. The card is as high as
    /// that needs.
    pub fn with_table(
        width: u32,
        top: f32,
        rows: usize,
        (heading, row): (f32, f32),
        (title, subtitle, fallback): (&str, &str, &str),
    ) -> Card {
        let table_h = if rows == 0 {
            112.0
        } else {
            heading + row * rows as f32 + 8.0
        };
        let mut c = Card::new(width, (top + table_h + 18.0) as u32, theme::BACKGROUND);
        c.title_band(title, subtitle, fallback);
        c.panel(16.0, top, width as f32 - 32.0, table_h, 12.0);
        c
    }

    /// The title band at the top of a card: `title` (bold, 26 px, smaller or on two lines
    /// when long, see [`user_lines`]; `fallback` when nothing drawable is left) and `subtitle`
    /// under it, cut to the card's width.
    pub fn title_band(&mut self, title: &str, subtitle: &str, fallback: &str) {
        let w = self.img.width() as f32;
        // A long title goes smaller, then onto two lines above the subtitle.
        let (size, lines) = user_lines(title, Weight::Bold, &TITLE_SIZES, w - 48.0, fallback);
        let ys: &[f32] = if lines.len() == 1 {
            &[44.0]
        } else {
            &[30.0, 52.0]
        };
        for (line, y) in lines.iter().zip(ys) {
            self.text(
                Style::new(Weight::Bold, size, theme::INK),
                24.0,
                *y,
                Align::Left,
                line,
            );
        }
        let s = user_text(subtitle, Weight::Regular, 15.0, w - 48.0, "");
        self.text(
            Style::new(Weight::Regular, 15.0, theme::MUTED),
            24.0,
            70.0,
            Align::Left,
            &s,
        );
    }

    /// The message of a table without rows whose panel starts at `top`: a headline and, when
    /// not empty, a hint under it, centred.
    pub fn empty_table(&mut self, top: f32, headline: &str, hint: &str) {
        let centre = self.img.width() as f32 / 2.0;
        self.text(
            Style::new(Weight::Bold, 19.0, theme::INK),
            centre,
            top + 50.0,
            Align::Centre,
            headline,
        );
        if !hint.is_empty() {
            self.text(
                Style::new(Weight::Regular, 14.0, theme::MUTED),
                centre,
                top + 76.0,
                Align::Centre,
                hint,
            );
        }
    }

    /// A table card of `rows` rows in its `frame`, with the heading row of the columns
    /// `heads` (see [`Card::table_heading`]) drawn, ready for the rows. Without rows: `Err`
    /// with the finished picture, which says `frame.empty`.
    pub fn table(
        frame: &TableFrame,
        rows: usize,
        heads: &[(f32, Align, &str)],
    ) -> Result<Card, Vec<u8>> {
        let mut c = Card::with_table(frame.width, frame.top, rows, frame.heights, frame.titles);
        if rows == 0 {
            c.empty_table(frame.top, frame.empty.0, frame.empty.1);
            return Err(c.png());
        }
        c.table_heading(frame.top, frame.heights.0, heads);
        Ok(c)
    }

    /// The heading row of a table whose panel starts at `top` (see [`Card::with_table`]),
    /// `heading` high: each column's head (its `x`, alignment and text) in small muted
    /// capitals, and the rule under the row.
    pub fn table_heading(&mut self, top: f32, heading: f32, heads: &[(f32, Align, &str)]) {
        let style = Style::new(Weight::Bold, 12.0, theme::MUTED);
        for &(x, align, text) in heads {
            self.text(style, x, top + 22.0, align, text);
        }
        let w = self.img.width() as f32;
        self.rect(26.0, top + heading - 1.0, w - 52.0, 1.0, theme::PANEL_EDGE);
    }

    /// The band behind a table's row at `y`, `h` high, across the panel: `colour` (the
    /// stripe of every other row, the highlight of the reader's own), or none.
    pub fn row_band(&mut self, y: f32, h: f32, colour: Option<Rgba>) {
        if let Some(colour) = colour {
            let w = self.img.width() as f32;
            self.rect(18.0, y, w - 36.0, h, colour);
        }
    }

    /// A player's name in a table's row: bold, 16 px, in `ink`, its baseline at `base`, cut
    /// to `room` ("Unknown player" when nothing drawable is left); the width written.
    pub fn name_cell(&mut self, x: f32, base: f32, name: &str, room: f32, ink: Rgba) -> f32 {
        let name = user_text(name, Weight::Bold, 16.0, room, "Unknown player");
        self.text(
            Style::new(Weight::Bold, 16.0, ink),
            x,
            base,
            Align::Left,
            &name,
        )
    }

    /// A place or rank centred on `x`, `y`: in a gold, silver or bronze disc for the first
    /// three, else in muted figures; a shared place is written "3=".
    pub fn place_badge(&mut self, x: f32, y: f32, place: u32, shared: bool) {
        let text = format!("{place}{}", if shared { "=" } else { "" });
        match medal(place) {
            Some((fill, ink)) => {
                self.disc(x, y, 13.0, fill);
                let size = if text.len() > 2 { 12.0 } else { 14.0 };
                self.text(
                    Style::new(Weight::Bold, size, ink),
                    x,
                    y + 5.0,
                    Align::Centre,
                    &text,
                );
            }
            None => {
                let size = if text.len() > 3 { 11.0 } else { 14.0 };
                let style = Style::new(Weight::Bold, size, theme::MUTED);
                self.text(style, x, y + 5.0, Align::Centre, &text);
            }
        }
    }

    /// The card as a PNG.
    pub fn png(&self) -> Vec<u8> {
        encode_png(&self.img)
    }
}

/// The medal colours (fill, ink) of places 1 to 3.
fn medal(place: u32) -> Option<(Rgba, Rgba)> {
    match place {
        1 => Some((theme::GOLD, theme::GOLD_DARK)),
        2 => Some((theme::SILVER, theme::SILVER_DARK)),
        3 => Some((theme::BRONZE, theme::BRONZE_DARK)),
        _ => None,
    }
}

/// An RGB image as an 8-bit indexed PNG, a third of the size of an RGB one. The palette is
/// the image's 256 most common colours (the flat colours of the card and the commonest shades
/// of its anti-aliased edges); any other colour is drawn as the nearest of them.
pub(super) fn encode_png(img: &RgbImage) -> Vec<u8> {
    let pixels = || {
        img.as_raw()
            .chunks_exact(3)
            .map(|p| u32::from(p[0]) << 16 | u32::from(p[1]) << 8 | u32::from(p[2]))
    };
    // The image as runs of equal pixels, each with its colour's number in order of first
    // appearance, and how many pixels each colour has.
    let mut ids: ColourMap<u32> = ColourMap::default();
    let mut counts: Vec<(u32, u64)> = Vec::new();
    let mut runs: Vec<(u32, u32)> = Vec::new();
    let mut last: Option<u32> = None;
    for p in pixels() {
        if last == Some(p) {
            if let Some(r) = runs.last_mut() {
                r.1 += 1;
            }
            continue;
        }
        last = Some(p);
        let next = counts.len() as u32;
        let id = *ids.entry(p).or_insert(next);
        if id == next {
            counts.push((p, 0));
        }
        runs.push((id, 1));
    }
    for &(id, n) in &runs {
        counts[id as usize].1 += u64::from(n);
    }
    // The palette: the commonest colours; every colour's entry: itself or its nearest.
    let mut order: Vec<u32> = (0..counts.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| {
        let (ca, cb) = (counts[a as usize], counts[b as usize]);
        cb.1.cmp(&ca.1).then(ca.0.cmp(&cb.0))
    });
    let palette: Vec<u32> = order
        .iter()
        .take(256)
        .map(|&i| counts[i as usize].0)
        .collect();
    let mut entry = vec![0u8; counts.len()];
    for (rank, &id) in order.iter().enumerate() {
        entry[id as usize] = if rank < 256 {
            rank as u8
        } else {
            nearest(&palette, counts[id as usize].0)
        };
    }
    let mut data = Vec::with_capacity(img.as_raw().len() / 3);
    for &(id, n) in &runs {
        data.resize(data.len() + n as usize, entry[id as usize]);
    }
    let mut out = Vec::with_capacity(64 * 1024);
    {
        let mut enc = png::Encoder::new(&mut out, img.width(), img.height());
        enc.set_color(png::ColorType::Indexed);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_palette(
            palette
                .iter()
                .flat_map(|c| [(c >> 16) as u8, (c >> 8) as u8, *c as u8])
                .collect::<Vec<u8>>(),
        );
        enc.set_compression(png::Compression::Fast);
        // Writing to memory fails only for an impossible size, which the cards never have.
        let written = enc
            .write_header()
            .and_then(|mut w| w.write_image_data(&data));
        if written.is_err() {
            out.clear();
        }
    }
    out
}

/// A map keyed by a colour packed as 0xRRGGBB, with a multiplicative hash (the default
/// hasher costs more than the rest of the encoding).
type ColourMap<V> = HashMap<u32, V, BuildHasherDefault<ColourHasher>>;

#[derive(Default)]
struct ColourHasher(u64);

impl Hasher for ColourHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// The palette entry nearest to `c` (red, green and blue weighted 3, 4, 2).
fn nearest(palette: &[u32], c: u32) -> u8 {
    let dist = |p: &u32| {
        let d = |shift: u32| ((p >> shift) & 0xff) as i32 - ((c >> shift) & 0xff) as i32;
        3 * d(16) * d(16) + 4 * d(8) * d(8) + 2 * d(0) * d(0)
    };
    let mut best = (i32::MAX, 0u8);
    for (i, p) in palette.iter().enumerate() {
        let d = dist(p);
        if d < best.0 {
            best = (d, i as u8);
        }
    }
    best.1
}

/// Text a user wrote (a name, a game line), as the bundled font can draw it and shortened
/// with an ellipsis to fit `max` pixels; `fallback` if nothing drawable is left.
pub(super) fn user_text(text: &str, weight: Weight, size: f32, max: f32, fallback: &str) -> String {
    let drawn = legible(text.trim(), weight);
    let drawn = drawn.trim();
    let drawn = if drawn.is_empty() { fallback } else { drawn };
    fit(drawn, weight, size, max)
}

/// Text a user wrote (a title, a game's name), as the bundled font can draw it, fitted to
/// `max` pixels as the board header fits its status ([`fit_lines`]): whole on one line at
/// the first of `sizes` it fits at, else on two lines at the last (the second shortened with
/// an ellipsis should it still be too long). The size, and the one or two lines.
pub(super) fn user_lines(
    text: &str,
    weight: Weight,
    sizes: &[f32],
    max: f32,
    fallback: &str,
) -> (f32, Vec<String>) {
    let drawn = legible(text.trim(), weight);
    let drawn = drawn.trim();
    let drawn = if drawn.is_empty() { fallback } else { drawn };
    match fit_lines(drawn, weight, sizes, max) {
        Fitted::One { size, text } => (size, vec![text.to_string()]),
        Fitted::Two {
            size,
            first,
            second,
        } if !second.is_empty() => (
            size,
            vec![first.to_string(), fit(second, weight, size, max)],
        ),
        Fitted::Two { size, first, .. } => (size, vec![fit(first, weight, size, max)]),
    }
}

/// A rating as shown: rounded to a whole number, "?" after it when provisional.
pub(super) fn rating_text(rating: f64, provisional: bool) -> String {
    let r = if rating.is_finite() {
        rating.round().clamp(-99_999.0, 99_999.0)
    } else {
        0.0
    };
    format!("{r:.0}{}", if provisional { "?" } else { "" })
}

/// A rating deviation as shown: "± 87".
pub(super) fn rd_text(rd: f64) -> String {
    let rd = if rd.is_finite() {
        rd.abs().round().min(9_999.0)
    } else {
        0.0
    };
    format!("± {rd:.0}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratings_are_whole_numbers_with_a_question_mark_when_provisional() {
        assert_eq!(rating_text(1523.49, false), "1523");
        assert_eq!(rating_text(1523.5, true), "1524?");
        assert_eq!(rating_text(f64::NAN, false), "0");
        assert_eq!(rating_text(f64::INFINITY, true), "0?");
        assert_eq!(rd_text(86.6), "± 87");
        assert_eq!(rd_text(f64::NAN), "± 0");
    }

    #[test]
    fn user_text_is_drawable_and_fits() {
        let long = "Aoife ".repeat(40);
        let t = user_text(&long, Weight::Bold, 16.0, 200.0, "?");
        assert!(t.ends_with('…'), "{t}");
        assert!(Canvas::text_width(Weight::Bold, 16.0, &t) <= 200.0);
        assert_eq!(
            user_text("\u{200b}\u{fe0f}", Weight::Bold, 16.0, 200.0, "Unknown"),
            "Unknown"
        );
        let t = user_text("🐉 دراغون", Weight::Regular, 16.0, 400.0, "?");
        assert!(
            t.chars().all(|c| Canvas::has_glyph(Weight::Regular, c)),
            "{t}"
        );
    }

    #[test]
    fn shapes_off_the_card_or_degenerate_draw_nothing_and_do_not_panic() {
        let mut c = Card::new(40, 30, Rgba::rgb(255, 255, 255));
        c.rounded_rect(-100.0, -100.0, 1000.0, 1000.0, 5.0, Rgba::rgb(0, 0, 0));
        c.rounded_rect(10.0, 10.0, 0.0, 5.0, 5.0, Rgba::rgb(255, 0, 0));
        c.rounded_rect(10.0, 10.0, f32::NAN, 5.0, 5.0, Rgba::rgb(255, 0, 0));
        c.rect(35.0, 25.0, 100.0, 100.0, Rgba::rgb(0, 0, 255));
        c.rect(0.0, 0.0, -5.0, 3.0, Rgba::rgb(0, 0, 255));
        c.text(
            Style::new(Weight::Bold, 20.0, Rgba::rgb(255, 255, 255)),
            -50.0,
            500.0,
            Align::Left,
            "off",
        );
        assert_eq!(c.img.get_pixel(5, 5), &Rgb([0, 0, 0]));
        assert_eq!(c.img.get_pixel(39, 29), &Rgb([0, 0, 255]));
    }
}
