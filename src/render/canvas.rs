//! A thin drawing layer over tiny-skia: anti-aliased shapes and text (ab_glyph) on an opaque
//! RGBA pixmap, and PNG encoding.

pub use super::fonts::Weight;
use super::fonts::{self, FaceId};
pub(crate) use super::fonts::{BOLD_TTF, REGULAR_TTF};
use ab_glyph::{point, Font, FontRef, PxScale};
use std::ops::Range;
use std::sync::{Arc, LazyLock};
use tiny_skia::{FillRule, Paint, Path, PathBuilder, Pixmap, Rect, Stroke, StrokeDash, Transform};

/// An sRGB colour with alpha.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgba(pub u8, pub u8, pub u8, pub u8);

impl Rgba {
    pub const fn rgb(r: u8, g: u8, b: u8) -> Rgba {
        Rgba(r, g, b, 255)
    }
    pub const fn alpha(self, a: u8) -> Rgba {
        Rgba(self.0, self.1, self.2, a)
    }
    fn paint(self) -> Paint<'static> {
        let mut p = Paint::default();
        p.set_color_rgba8(self.0, self.1, self.2, self.3);
        p.anti_alias = true;
        p
    }
}

/// How text looks: font weight, size in pixels and colour.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub weight: Weight,
    pub size: f32,
    pub colour: Rgba,
}

impl Style {
    pub const fn new(weight: Weight, size: f32, colour: Rgba) -> Style {
        Style {
            weight,
            size,
            colour,
        }
    }
}

/// Horizontal placement of text relative to the x given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Centre,
    Right,
}

/// The bundled font of a weight.
pub(crate) fn font(w: Weight) -> &'static FontRef<'static> {
    &fonts::face(fonts::dejavu(w)).font
}

/// Glyph positions are rounded to this fraction of a pixel, so that a glyph is rasterised
/// once per font, size and sub-pixel offset and copied after (as text renderers with
/// sub-pixel positioning do): text moves by at most an eighth of a pixel.
const SUBPIXEL: f32 = 4.0;
/// Glyphs kept at most; the cache starts over when it is full.
const MAX_GLYPHS: usize = 16_384;

/// A rasterised glyph: its coverage, `w` by `h`, with its top-left pixel at (`left`, `top`)
/// from the whole pixel its origin falls in.
pub(super) struct Glyph {
    left: i32,
    top: i32,
    pub(super) w: usize,
    h: usize,
    pub(super) cov: Vec<f32>,
    /// The glyph written in a colour over a background ([`Glyph::stamp`]), per pair seen.
    stamps: std::sync::Mutex<Vec<(StampKey, Arc<Stamp>)>>,
}

/// A stamp's colour and background.
type StampKey = (Rgba, [u8; 3]);

/// A glyph written in one colour over one background: each pixel's colour and palette index
/// (the background's where the glyph does not reach).
pub(super) struct Stamp {
    pub(super) rgb: Vec<[u8; 3]>,
    pub(super) index: Vec<u8>,
}

impl Glyph {
    /// The glyph written in `colour` over `under`, its colours mapped to the palette by
    /// `index`, made the first time it is asked for. Stamps are kept per colour and background
    /// only: `index` must be the one palette's lookup every time.
    pub(super) fn stamp(
        &self,
        colour: Rgba,
        under: [u8; 3],
        index: impl Fn([u8; 3]) -> u8,
    ) -> Arc<Stamp> {
        let mut stamps = self.stamps.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, s)) = stamps.iter().find(|(k, _)| *k == (colour, under)) {
            return s.clone();
        }
        let rgb: Vec<[u8; 3]> = self
            .cov
            .iter()
            .map(|&cov| blend(under, colour, cov))
            .collect();
        let index = rgb.iter().map(|&c| index(c)).collect();
        let stamp = Arc::new(Stamp { rgb, index });
        stamps.push(((colour, under), stamp.clone()));
        stamp
    }
}

/// A pixel of colour `under` with `colour` written over it at coverage `cov` (at most 0: not
/// at all), rounded to nearest.
#[inline(always)]
pub(super) fn blend(under: [u8; 3], colour: Rgba, cov: f32) -> [u8; 3] {
    if cov <= 0.0 {
        return under;
    }
    let a = cov.min(1.0) * (f32::from(colour.3) / 255.0);
    let v = [colour.0, colour.1, colour.2];
    // Both terms are at least 0.
    std::array::from_fn(|k| (f32::from(v[k]) * a + f32::from(under[k]) * (1.0 - a) + 0.5) as u8)
}

/// Key of a rasterised glyph: face, size, glyph and sub-pixel offsets.
type GlyphKey = (u8, u32, u16, u8, u8);

/// The glyphs rasterised so far (`None`: the glyph draws nothing, e.g. a space).
#[derive(Default)]
struct Glyphs(std::collections::HashMap<GlyphKey, Option<std::sync::Arc<Glyph>>>);

static GLYPHS: LazyLock<std::sync::Mutex<Glyphs>> = LazyLock::new(Default::default);

impl Glyphs {
    /// The glyph `id` with its origin at `at` (in steps of 1/[`SUBPIXEL`] pixel): the whole
    /// pixel of the origin and the glyph, rasterised now if not seen before.
    fn get(
        &mut self,
        face: FaceId,
        scale: PxScale,
        id: ab_glyph::GlyphId,
        at: (i32, i32),
    ) -> Option<(i32, i32, std::sync::Arc<Glyph>)> {
        let split = |v: i32| {
            let n = SUBPIXEL as i32;
            (v.div_euclid(n), v.rem_euclid(n) as u8)
        };
        let ((ox, fx), (oy, fy)) = (split(at.0), split(at.1));
        let key = (face.0, scale.y.to_bits(), id.0, fx, fy);
        if let Some(g) = self.0.get(&key) {
            return g.clone().map(|g| (ox, oy, g));
        }
        let origin = point(f32::from(fx) / SUBPIXEL, f32::from(fy) / SUBPIXEL);
        let glyph = fonts::face(face)
            .font
            .outline_glyph(id.with_scale_and_position(scale, origin))
            .map(|o| {
                let b = o.px_bounds();
                let (w, h) = (b.width() as usize, b.height() as usize);
                let mut cov = vec![0.0; w * h];
                o.draw(|x, y, c| {
                    if let Some(v) = cov.get_mut(y as usize * w + x as usize) {
                        *v = c.max(0.0);
                    }
                });
                std::sync::Arc::new(Glyph {
                    left: b.min.x as i32,
                    top: b.min.y as i32,
                    w,
                    h,
                    cov,
                    stamps: Default::default(),
                })
            });
        if self.0.len() >= MAX_GLYPHS {
            self.0.clear();
        }
        self.0.insert(key, glyph.clone());
        glyph.map(|g| (ox, oy, g))
    }
}

/// Lays out `text` as [`Canvas::text`] writes it in a `w` by `h` image, and calls
/// `glyph(g, (x, y), cols, rows)` for each glyph that has pixels inside it: where its top-left
/// pixel is in the image, and its columns and rows inside the image. Returns the width.
pub(super) fn place(
    (w, h): (i32, i32),
    style: Style,
    (x, y): (f32, f32),
    align: Align,
    text: &str,
    mut glyph: impl FnMut(&Glyph, (i32, i32), Range<usize>, Range<usize>),
) -> f32 {
    let Style { weight, size, .. } = style;
    // Laid out once, for the alignment and the drawing.
    let laid = fonts::layout(weight, size, text);
    let width = laid.width;
    // Positions in whole steps of the sub-pixel grid: where the text starts, and each
    // glyph's advance from there, rounded apart, so that the same text at a place a whole
    // number of pixels away is the same pixels moved.
    let steps = |v: f32| (v * SUBPIXEL).round() as i32;
    let start = steps(x)
        - match align {
            Align::Left => 0,
            Align::Centre => steps(width / 2.0),
            Align::Right => steps(width),
        };
    let baseline = steps(y);
    let mut glyphs = GLYPHS.lock().unwrap_or_else(|e| e.into_inner());
    for g in laid.glyphs {
        let at = (start + steps(g.x), baseline + steps(g.y));
        let Some((ox, oy, g)) = glyphs.get(g.face, fonts::scale(g.face, size), g.id, at) else {
            continue;
        };
        // The glyph's columns and rows inside the image.
        let (x0, y0) = (ox + g.left, oy + g.top);
        let inside = |at: i32, size: usize, end: i32| {
            (-at).clamp(0, size as i32) as usize..(end - at).clamp(0, size as i32) as usize
        };
        let (cols, rows) = (inside(x0, g.w, w), inside(y0, g.h, h));
        if !cols.is_empty() && !rows.is_empty() {
            glyph(&g, (x0, y0), cols, rows);
        }
    }
    width
}

/// What text can be written on.
pub trait Text {
    /// Writes `text` with its baseline at `y`; returns the width written.
    fn text(&mut self, style: Style, x: f32, y: f32, align: Align, text: &str) -> f32;
}

impl Text for Canvas {
    fn text(&mut self, style: Style, x: f32, y: f32, align: Align, text: &str) -> f32 {
        Canvas::text(self, style, x, y, align, text)
    }
}

/// An opaque image being drawn.
pub struct Canvas {
    pub pixmap: Pixmap,
    /// Pixels to a unit of the drawing code's coordinates (1, or 2 for a sharp picture on a
    /// screen of two pixels to a point).
    scale: f32,
}

impl Canvas {
    pub fn new(width: u32, height: u32, background: Rgba) -> Canvas {
        Canvas::scaled(width, height, background, 1)
    }

    /// A canvas `width` by `height` units, drawn at `scale` pixels to a unit: the same
    /// drawing code gives the same picture, `scale` times as many pixels each way (shapes and
    /// text drawn at that size, not enlarged). At scale 1 it is [`Canvas::new`].
    pub fn scaled(width: u32, height: u32, background: Rgba, scale: u32) -> Canvas {
        let mut pixmap = Pixmap::new(width * scale, height * scale).expect("non-zero size");
        pixmap.fill(tiny_skia::Color::from_rgba8(
            background.0,
            background.1,
            background.2,
            255,
        ));
        Canvas {
            pixmap,
            scale: scale as f32,
        }
    }

    /// The units-to-pixels transform (the identity at scale 1).
    fn transform(&self) -> Transform {
        if self.scale == 1.0 {
            Transform::identity()
        } else {
            Transform::from_scale(self.scale, self.scale)
        }
    }

    pub fn width(&self) -> u32 {
        self.pixmap.width()
    }
    pub fn height(&self) -> u32 {
        self.pixmap.height()
    }

    pub fn fill(&mut self, path: &Path, c: Rgba) {
        self.pixmap
            .fill_path(path, &c.paint(), FillRule::Winding, self.transform(), None);
    }

    pub fn stroke(&mut self, path: &Path, width: f32, c: Rgba) {
        let stroke = Stroke {
            width,
            line_cap: tiny_skia::LineCap::Round,
            line_join: tiny_skia::LineJoin::Round,
            ..Stroke::default()
        };
        self.pixmap
            .stroke_path(path, &c.paint(), &stroke, self.transform(), None);
    }

    pub fn stroke_dashed(&mut self, path: &Path, width: f32, c: Rgba, dash: f32, gap: f32) {
        let stroke = Stroke {
            width,
            line_cap: tiny_skia::LineCap::Butt,
            dash: StrokeDash::new(vec![dash, gap], 0.0),
            ..Stroke::default()
        };
        self.pixmap
            .stroke_path(path, &c.paint(), &stroke, self.transform(), None);
    }

    pub fn fill_rect(&mut self, x: f32, y: f32, w: f32, h: f32, c: Rgba) {
        if let Some(r) = Rect::from_xywh(x, y, w, h) {
            self.pixmap.fill_rect(r, &c.paint(), self.transform(), None);
        }
    }

    pub fn fill_circle(&mut self, cx: f32, cy: f32, r: f32, c: Rgba) {
        if let Some(p) = circle(cx, cy, r) {
            self.fill(&p, c);
        }
    }

    pub fn stroke_circle(&mut self, cx: f32, cy: f32, r: f32, width: f32, c: Rgba) {
        if let Some(p) = circle(cx, cy, r) {
            self.stroke(&p, width, c);
        }
    }

    pub fn line(&mut self, x0: f32, y0: f32, x1: f32, y1: f32, width: f32, c: Rgba) {
        Surface::line(self, x0, y0, x1, y1, width, c);
    }

    /// Whether a face (bundled, or the system's fallback) has a glyph for `ch` in `weight`
    /// (without one it would draw a missing-glyph box).
    pub fn has_glyph(weight: Weight, ch: char) -> bool {
        fonts::has_glyph(weight, ch)
    }

    /// Width in pixels of `text` at `size`.
    pub fn text_width(weight: Weight, size: f32, text: &str) -> f32 {
        fonts::layout(weight, size, text).width
    }

    /// Writes `text` with its baseline at `y`; returns the width written.
    pub fn text(&mut self, style: Style, x: f32, y: f32, align: Align, text: &str) -> f32 {
        let (w, h) = (self.pixmap.width() as i32, self.pixmap.height() as i32);
        let k = self.scale;
        let data = self.pixmap.data_mut();
        let c = style.colour;
        let style = Style {
            size: style.size * k,
            ..style
        };
        let width = place(
            (w, h),
            style,
            (x * k, y * k),
            align,
            text,
            |g, (x0, y0), cols, rows| {
                for gy in rows {
                    let covs = &g.cov[gy * g.w + cols.start..gy * g.w + cols.end];
                    let start = ((y0 + gy as i32) * w + x0) as usize * 4 + cols.start * 4;
                    let pixels = data[start..start + covs.len() * 4].chunks_exact_mut(4);
                    for (&cov, pixel) in covs.iter().zip(pixels) {
                        if cov > 0.0 {
                            let mixed = blend([pixel[0], pixel[1], pixel[2]], c, cov);
                            pixel[..3].copy_from_slice(&mixed);
                        }
                    }
                }
            },
        );
        width / k
    }

    /// Encodes as an RGB PNG (the canvas is opaque).
    pub fn png(&self) -> Vec<u8> {
        let (w, h) = (self.pixmap.width(), self.pixmap.height());
        let rgb: Vec<u8> = self
            .pixmap
            .data()
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect();
        let mut out = Vec::with_capacity(64 * 1024);
        {
            let mut enc = png::Encoder::new(&mut out, w, h);
            enc.set_color(png::ColorType::Rgb);
            enc.set_depth(png::BitDepth::Eight);
            enc.set_compression(png::Compression::Fast);
            let mut writer = enc.write_header().expect("PNG header to memory");
            writer.write_image_data(&rgb).expect("PNG data to memory");
        }
        out
    }

    /// The pixels as packed RGB.
    pub fn rgb(&self) -> Vec<u8> {
        self.pixmap
            .data()
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect()
    }
}

/// Something the board's shapes are drawn on: a [`Canvas`] (pixels), or a [`Recording`] of the
/// shapes that the tiles of a board are composed from. The board's drawing code is written
/// once, against this trait, so both give the same picture.
pub trait Surface {
    fn fill(&mut self, path: &Path, c: Rgba);
    fn stroke(&mut self, path: &Path, width: f32, c: Rgba);
    /// [`Surface::fill`] of a path no longer needed (a recording keeps it without a copy).
    fn fill_owned(&mut self, path: Path, c: Rgba) {
        self.fill(&path, c);
    }
    /// [`Surface::stroke`] of a path no longer needed.
    fn stroke_owned(&mut self, path: Path, width: f32, c: Rgba) {
        self.stroke(&path, width, c);
    }
    /// [`Surface::fill`] of a path made before ([`circle`], [`rounded_rect`]): a recording
    /// shares it instead of copying it.
    fn fill_shared(&mut self, path: &Arc<Path>, c: Rgba) {
        self.fill(path, c);
    }
    /// [`Surface::stroke`] of a path made before.
    fn stroke_shared(&mut self, path: &Arc<Path>, width: f32, c: Rgba) {
        self.stroke(path, width, c);
    }
    fn fill_rect(&mut self, x: f32, y: f32, w: f32, h: f32, c: Rgba);

    fn fill_circle(&mut self, cx: f32, cy: f32, r: f32, c: Rgba) {
        if let Some(p) = circle(cx, cy, r) {
            self.fill_shared(&p, c);
        }
    }

    fn stroke_circle(&mut self, cx: f32, cy: f32, r: f32, width: f32, c: Rgba) {
        if let Some(p) = circle(cx, cy, r) {
            self.stroke_shared(&p, width, c);
        }
    }

    fn line(&mut self, x0: f32, y0: f32, x1: f32, y1: f32, width: f32, c: Rgba) {
        if let Some(p) = segment(x0, y0, x1, y1) {
            self.stroke_shared(&p, width, c);
        }
    }
}

impl Surface for Canvas {
    fn fill(&mut self, path: &Path, c: Rgba) {
        Canvas::fill(self, path, c);
    }
    fn stroke(&mut self, path: &Path, width: f32, c: Rgba) {
        Canvas::stroke(self, path, width, c);
    }
    fn fill_rect(&mut self, x: f32, y: f32, w: f32, h: f32, c: Rgba) {
        Canvas::fill_rect(self, x, y, w, h, c);
    }
}

/// A path as a [`Recording`] holds it: its own, or one shared with the paths made before.
#[derive(Clone, Debug)]
pub enum Held {
    Own(Path),
    Shared(Arc<Path>),
}

impl std::ops::Deref for Held {
    type Target = Path;
    fn deref(&self) -> &Path {
        match self {
            Held::Own(p) => p,
            Held::Shared(p) => p,
        }
    }
}

/// A shape as a [`Recording`] holds it.
#[derive(Clone, Debug)]
pub enum Shape {
    Fill(Held),
    /// A path stroked with this width.
    Stroke(Held, f32),
    /// A rectangle: x, y, width, height.
    Rect([f32; 4]),
}

/// One recorded shape, its colour, and the pixels it can touch.
#[derive(Clone, Debug)]
pub struct Op {
    pub shape: Shape,
    pub colour: Rgba,
    /// Left, top, right, bottom: every pixel the shape can paint lies within.
    pub bounds: [f32; 4],
}

impl Op {
    /// Paints the shape onto `c`, moved by (-dx, -dy).
    pub fn paint(&self, c: &mut Canvas, dx: f32, dy: f32) {
        let shift = Transform::from_translate(-dx, -dy);
        match &self.shape {
            Shape::Fill(p) => {
                if let Some(p) = Path::clone(p).transform(shift) {
                    c.fill(&p, self.colour);
                }
            }
            Shape::Stroke(p, w) => {
                if let Some(p) = Path::clone(p).transform(shift) {
                    c.stroke(&p, *w, self.colour);
                }
            }
            Shape::Rect([x, y, w, h]) => c.fill_rect(x - dx, y - dy, *w, *h, self.colour),
        }
    }
}

/// The shapes drawn, in order, not yet painted.
#[derive(Default)]
pub struct Recording {
    pub ops: Vec<Op>,
}

impl Recording {
    fn push(&mut self, shape: Shape, colour: Rgba, bounds: [f32; 4]) {
        self.ops.push(Op {
            shape,
            colour,
            bounds,
        });
    }
}

/// Anti-aliasing reaches at most into the pixel the edge lies in; a pixel of margin more.
const AA_MARGIN: f32 = 1.0;

impl Recording {
    fn push_fill(&mut self, path: Held, c: Rgba) {
        let b = path.bounds();
        let m = AA_MARGIN;
        let bounds = [b.left() - m, b.top() - m, b.right() + m, b.bottom() + m];
        self.push(Shape::Fill(path), c, bounds);
    }
    fn push_stroke(&mut self, path: Held, width: f32, c: Rgba) {
        let b = path.bounds();
        let m = width / 2.0 + AA_MARGIN;
        let bounds = [b.left() - m, b.top() - m, b.right() + m, b.bottom() + m];
        self.push(Shape::Stroke(path, width), c, bounds);
    }
}

impl Surface for Recording {
    fn fill(&mut self, path: &Path, c: Rgba) {
        self.push_fill(Held::Own(path.clone()), c);
    }
    fn stroke(&mut self, path: &Path, width: f32, c: Rgba) {
        self.push_stroke(Held::Own(path.clone()), width, c);
    }
    fn fill_owned(&mut self, path: Path, c: Rgba) {
        self.push_fill(Held::Own(path), c);
    }
    fn stroke_owned(&mut self, path: Path, width: f32, c: Rgba) {
        self.push_stroke(Held::Own(path), width, c);
    }
    fn fill_shared(&mut self, path: &Arc<Path>, c: Rgba) {
        self.push_fill(Held::Shared(path.clone()), c);
    }
    fn stroke_shared(&mut self, path: &Arc<Path>, width: f32, c: Rgba) {
        self.push_stroke(Held::Shared(path.clone()), width, c);
    }
    fn fill_rect(&mut self, x: f32, y: f32, w: f32, h: f32, c: Rgba) {
        // A rectangle paints the pixels it covers, and no others.
        self.push(Shape::Rect([x, y, w, h]), c, [x, y, x + w, y + h]);
    }
}

/// Paths made before, by their shape (0: circle, 1: rounded rectangle) and measures: boards
/// draw the same few hundred circles and rounded rectangles over and over, and making one
/// costs more than copying it. Kept per thread; starts over when full.
fn cached_path(key: [u32; 6], make: impl FnOnce() -> Option<Path>) -> Option<Arc<Path>> {
    type Paths = std::collections::HashMap<[u32; 6], Option<Arc<Path>>, super::fx::FxBuild>;
    thread_local! {
        static PATHS: std::cell::RefCell<Paths> = Default::default();
    }
    PATHS.with_borrow_mut(|paths| {
        if let Some(p) = paths.get(&key) {
            return p.clone();
        }
        if paths.len() >= 4096 {
            paths.clear();
        }
        let p = make().map(Arc::new);
        paths.insert(key, p.clone());
        p
    })
}

/// A circle's path (the same as tiny-skia's), made once for each centre and radius.
pub fn circle(cx: f32, cy: f32, r: f32) -> Option<Arc<Path>> {
    let key = [0, cx.to_bits(), cy.to_bits(), r.to_bits(), 0, 0];
    cached_path(key, || PathBuilder::from_circle(cx, cy, r))
}

/// A straight line's path, made once for each pair of ends.
pub fn segment(x0: f32, y0: f32, x1: f32, y1: f32) -> Option<Arc<Path>> {
    let [a, b, c, d] = [x0, y0, x1, y1].map(f32::to_bits);
    cached_path([2, a, b, c, d, 0], || {
        let mut pb = PathBuilder::new();
        pb.move_to(x0, y0);
        pb.line_to(x1, y1);
        pb.finish()
    })
}

/// A rounded rectangle path, made once for each place and size.
pub fn rounded_rect(x: f32, y: f32, w: f32, h: f32, r: f32) -> Option<Arc<Path>> {
    let [a, b, c, d, e] = [x, y, w, h, r].map(f32::to_bits);
    cached_path([1, a, b, c, d, e], || make_rounded_rect(x, y, w, h, r))
}

fn make_rounded_rect(x: f32, y: f32, w: f32, h: f32, r: f32) -> Option<Path> {
    let r = r.min(w / 2.0).min(h / 2.0);
    let k = 0.552_284_8 * r;
    let mut pb = PathBuilder::with_capacity(10, 18);
    pb.move_to(x + r, y);
    pb.line_to(x + w - r, y);
    pb.cubic_to(x + w - r + k, y, x + w, y + r - k, x + w, y + r);
    pb.line_to(x + w, y + h - r);
    pb.cubic_to(x + w, y + h - r + k, x + w - r + k, y + h, x + w - r, y + h);
    pb.line_to(x + r, y + h);
    pb.cubic_to(x + r - k, y + h, x, y + h - r + k, x, y + h - r);
    pb.line_to(x, y + r);
    pb.cubic_to(x, y + r - k, x + r - k, y, x + r, y);
    pb.close();
    pb.finish()
}

/// A closed polygon path.
pub fn polygon(points: &[(f32, f32)]) -> Option<Path> {
    let mut pb = PathBuilder::with_capacity(points.len() + 1, points.len());
    let (first, rest) = points.split_first()?;
    pb.move_to(first.0, first.1);
    for p in rest {
        pb.line_to(p.0, p.1);
    }
    pb.close();
    pb.finish()
}
