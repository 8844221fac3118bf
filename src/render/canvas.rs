//! A thin drawing layer over tiny-skia: anti-aliased shapes and text (ab_glyph) on an opaque
//! RGBA pixmap, and PNG encoding.

use ab_glyph::{point, Font, FontRef, PxScale, ScaleFont};
use std::sync::LazyLock;
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

/// The bundled regular font (DejaVu Sans), as TrueType bytes.
pub(crate) const REGULAR_TTF: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
/// The bundled bold font (DejaVu Sans Bold), as TrueType bytes.
pub(crate) const BOLD_TTF: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-Bold.ttf");

static REGULAR: LazyLock<FontRef<'static>> =
    LazyLock::new(|| FontRef::try_from_slice(REGULAR_TTF).expect("bundled font"));
static BOLD: LazyLock<FontRef<'static>> =
    LazyLock::new(|| FontRef::try_from_slice(BOLD_TTF).expect("bundled font"));

/// Which bundled font to write with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weight {
    Regular,
    Bold,
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
    match w {
        Weight::Regular => &REGULAR,
        Weight::Bold => &BOLD,
    }
}

/// An opaque image being drawn.
pub struct Canvas {
    pub pixmap: Pixmap,
}

impl Canvas {
    pub fn new(width: u32, height: u32, background: Rgba) -> Canvas {
        let mut pixmap = Pixmap::new(width, height).expect("non-zero size");
        pixmap.fill(tiny_skia::Color::from_rgba8(
            background.0,
            background.1,
            background.2,
            255,
        ));
        Canvas { pixmap }
    }

    pub fn width(&self) -> u32 {
        self.pixmap.width()
    }
    pub fn height(&self) -> u32 {
        self.pixmap.height()
    }

    pub fn fill(&mut self, path: &Path, c: Rgba) {
        self.pixmap.fill_path(
            path,
            &c.paint(),
            FillRule::Winding,
            Transform::identity(),
            None,
        );
    }

    pub fn stroke(&mut self, path: &Path, width: f32, c: Rgba) {
        let stroke = Stroke {
            width,
            line_cap: tiny_skia::LineCap::Round,
            line_join: tiny_skia::LineJoin::Round,
            ..Stroke::default()
        };
        self.pixmap
            .stroke_path(path, &c.paint(), &stroke, Transform::identity(), None);
    }

    pub fn stroke_dashed(&mut self, path: &Path, width: f32, c: Rgba, dash: f32, gap: f32) {
        let stroke = Stroke {
            width,
            line_cap: tiny_skia::LineCap::Butt,
            dash: StrokeDash::new(vec![dash, gap], 0.0),
            ..Stroke::default()
        };
        self.pixmap
            .stroke_path(path, &c.paint(), &stroke, Transform::identity(), None);
    }

    pub fn fill_rect(&mut self, x: f32, y: f32, w: f32, h: f32, c: Rgba) {
        if let Some(r) = Rect::from_xywh(x, y, w, h) {
            self.pixmap
                .fill_rect(r, &c.paint(), Transform::identity(), None);
        }
    }

    pub fn fill_circle(&mut self, cx: f32, cy: f32, r: f32, c: Rgba) {
        if let Some(p) = PathBuilder::from_circle(cx, cy, r) {
            self.fill(&p, c);
        }
    }

    pub fn stroke_circle(&mut self, cx: f32, cy: f32, r: f32, width: f32, c: Rgba) {
        if let Some(p) = PathBuilder::from_circle(cx, cy, r) {
            self.stroke(&p, width, c);
        }
    }

    pub fn line(&mut self, x0: f32, y0: f32, x1: f32, y1: f32, width: f32, c: Rgba) {
        let mut pb = PathBuilder::new();
        pb.move_to(x0, y0);
        pb.line_to(x1, y1);
        if let Some(p) = pb.finish() {
            self.stroke(&p, width, c);
        }
    }

    /// Whether the bundled font of `weight` has a glyph for `ch` (without one it would draw
    /// its missing-glyph box).
    pub fn has_glyph(weight: Weight, ch: char) -> bool {
        font(weight).glyph_id(ch).0 != 0
    }

    /// Width in pixels of `text` at `size`.
    pub fn text_width(weight: Weight, size: f32, text: &str) -> f32 {
        let f = font(weight).as_scaled(PxScale::from(size));
        let mut w = 0.0;
        let mut prev = None;
        for ch in text.chars() {
            let id = f.glyph_id(ch);
            if let Some(p) = prev {
                w += f.kern(p, id);
            }
            w += f.h_advance(id);
            prev = Some(id);
        }
        w
    }

    /// Writes `text` with its baseline at `y`; returns the width written.
    pub fn text(&mut self, style: Style, x: f32, y: f32, align: Align, text: &str) -> f32 {
        let Style {
            weight,
            size,
            colour: c,
        } = style;
        let fnt = font(weight);
        let scale = PxScale::from(size);
        let f = fnt.as_scaled(scale);
        let width = Canvas::text_width(weight, size, text);
        let mut pen = match align {
            Align::Left => x,
            Align::Centre => x - width / 2.0,
            Align::Right => x - width,
        };
        let (w, h) = (self.pixmap.width() as i32, self.pixmap.height() as i32);
        let data = self.pixmap.data_mut();
        let mut prev = None;
        for ch in text.chars() {
            let id = f.glyph_id(ch);
            if let Some(p) = prev {
                pen += f.kern(p, id);
            }
            let glyph = id.with_scale_and_position(scale, point(pen, y));
            pen += f.h_advance(id);
            prev = Some(id);
            let Some(outline) = fnt.outline_glyph(glyph) else {
                continue;
            };
            let b = outline.px_bounds();
            outline.draw(|gx, gy, cov| {
                let px = b.min.x as i32 + gx as i32;
                let py = b.min.y as i32 + gy as i32;
                if px < 0 || py < 0 || px >= w || py >= h {
                    return;
                }
                let a = cov.clamp(0.0, 1.0) * f32::from(c.3) / 255.0;
                let i = (py * w + px) as usize * 4;
                for (k, v) in [c.0, c.1, c.2].into_iter().enumerate() {
                    let d = f32::from(data[i + k]);
                    data[i + k] = (f32::from(v) * a + d * (1.0 - a)).round() as u8;
                }
            });
        }
        width
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
    fn fill_rect(&mut self, x: f32, y: f32, w: f32, h: f32, c: Rgba);

    fn fill_circle(&mut self, cx: f32, cy: f32, r: f32, c: Rgba) {
        if let Some(p) = PathBuilder::from_circle(cx, cy, r) {
            self.fill(&p, c);
        }
    }

    fn stroke_circle(&mut self, cx: f32, cy: f32, r: f32, width: f32, c: Rgba) {
        if let Some(p) = PathBuilder::from_circle(cx, cy, r) {
            self.stroke(&p, width, c);
        }
    }

    fn line(&mut self, x0: f32, y0: f32, x1: f32, y1: f32, width: f32, c: Rgba) {
        let mut pb = PathBuilder::new();
        pb.move_to(x0, y0);
        pb.line_to(x1, y1);
        if let Some(p) = pb.finish() {
            self.stroke(&p, width, c);
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

/// A shape as a [`Recording`] holds it.
#[derive(Clone, Debug)]
pub enum Shape {
    Fill(Path),
    /// A path stroked with this width.
    Stroke(Path, f32),
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
                if let Some(p) = p.clone().transform(shift) {
                    c.fill(&p, self.colour);
                }
            }
            Shape::Stroke(p, w) => {
                if let Some(p) = p.clone().transform(shift) {
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

impl Surface for Recording {
    fn fill(&mut self, path: &Path, c: Rgba) {
        let b = path.bounds();
        let m = AA_MARGIN;
        let bounds = [b.left() - m, b.top() - m, b.right() + m, b.bottom() + m];
        self.push(Shape::Fill(path.clone()), c, bounds);
    }
    fn stroke(&mut self, path: &Path, width: f32, c: Rgba) {
        let b = path.bounds();
        let m = width / 2.0 + AA_MARGIN;
        let bounds = [b.left() - m, b.top() - m, b.right() + m, b.bottom() + m];
        self.push(Shape::Stroke(path.clone(), width), c, bounds);
    }
    fn fill_rect(&mut self, x: f32, y: f32, w: f32, h: f32, c: Rgba) {
        // A rectangle paints the pixels it covers, and no others.
        self.push(Shape::Rect([x, y, w, h]), c, [x, y, x + w, y + h]);
    }
}

/// A rounded rectangle path.
pub fn rounded_rect(x: f32, y: f32, w: f32, h: f32, r: f32) -> Option<Path> {
    let r = r.min(w / 2.0).min(h / 2.0);
    let k = 0.552_284_8 * r;
    let mut pb = PathBuilder::new();
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
    let mut pb = PathBuilder::new();
    let (first, rest) = points.split_first()?;
    pb.move_to(first.0, first.1);
    for p in rest {
        pb.line_to(p.0, p.1);
    }
    pb.close();
    pb.finish()
}
