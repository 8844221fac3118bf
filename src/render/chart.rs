//! Rating-history charts, drawn by `plotters` into an RGB buffer: the rating after each rated
//! game as a line over the dates of the games, with a band of ± one rating deviation.

use super::canvas::{font, Align, Canvas, Rgba, Style, Weight, BOLD_TTF, REGULAR_TTF};
use super::card::{encode_png, user_text, Card};
use super::ratings::RatingPoint;
use super::theme as palette;
use ab_glyph::{Font, PxScale, ScaleFont};
use image::RgbImage;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{register_font, FontStyle};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};
use std::sync::Once;

/// The family name the bundled fonts are registered under for `plotters`.
pub(super) const FAMILY: &str = "DejaVu Sans";
/// Milliseconds in a day.
const DAY_MS: f64 = 86_400_000.0;
/// The size of a chart drawn alone.
pub(super) const CHART_WIDTH: u32 = 640;
pub(super) const CHART_HEIGHT: u32 = 300;
/// Height of the title band of a chart drawn alone.
const TITLE_BAND: u32 = 44;

/// Registers the bundled fonts with `plotters` (once; no system fonts are used).
pub(super) fn register_fonts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bundled fonts parse (the board images use them too); a failure would only
        // leave the chart's labels undrawn.
        let _ = register_font(FAMILY, FontStyle::Normal, REGULAR_TTF);
        let _ = register_font(FAMILY, FontStyle::Bold, BOLD_TTF);
    });
}

/// The bitmap backend with text written like the cards' text. plotters' own `ab_glyph` text
/// leaves out each glyph's side bearing (so "16" reads "1 6"); this draws the same labels,
/// where plotters places them, with the glyphs positioned as the font says.
pub(super) struct Backend<'a>(pub(super) BitMapBackend<'a>);

type Failure = DrawingErrorKind<<BitMapBackend<'static> as DrawingBackend>::ErrorType>;

impl Backend<'_> {
    fn weight(style: &impl BackendTextStyle) -> Weight {
        match style.style() {
            plotters_backend::FontStyle::Bold => Weight::Bold,
            _ => Weight::Regular,
        }
    }
}

impl DrawingBackend for Backend<'_> {
    type ErrorType = <BitMapBackend<'static> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }
    fn ensure_prepared(&mut self) -> Result<(), Failure> {
        self.0.ensure_prepared()
    }
    fn present(&mut self) -> Result<(), Failure> {
        self.0.present()
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), Failure> {
        self.0.draw_pixel(point, color)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), Failure> {
        self.0.draw_line(from, to, style)
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), Failure> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), Failure> {
        self.0.draw_path(path, style)
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), Failure> {
        self.0.draw_circle(center, radius, style, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), Failure> {
        self.0.fill_polygon(vert, style)
    }
    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), Failure> {
        self.0.blit_bitmap(pos, size, src)
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), Failure> {
        let weight = Self::weight(style);
        let size = style.size() as f32;
        let f = font(weight).as_scaled(PxScale::from(size));
        let width = Canvas::text_width(weight, size, text);
        Ok((
            width.ceil() as u32,
            (f.ascent() - f.descent()).ceil() as u32,
        ))
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), Failure> {
        let colour = style.color();
        if colour.alpha <= 0.0 {
            return Ok(());
        }
        let weight = Self::weight(style);
        let size = style.size() as f32;
        let fnt = font(weight);
        let scale = PxScale::from(size);
        let f = fnt.as_scaled(scale);
        let width = Canvas::text_width(weight, size, text);
        let height = f.ascent() - f.descent();
        let anchor = style.anchor();
        let mut pen = pos.0 as f32
            - match anchor.h_pos {
                HPos::Left => 0.0,
                HPos::Center => width / 2.0,
                HPos::Right => width,
            };
        let top = pos.1 as f32
            - match anchor.v_pos {
                VPos::Top => 0.0,
                VPos::Center => height / 2.0,
                VPos::Bottom => height,
            };
        let baseline = top + f.ascent();
        let mut prev = None;
        for ch in text.chars() {
            let id = f.glyph_id(ch);
            if let Some(p) = prev {
                pen += f.kern(p, id);
            }
            let glyph = id.with_scale_and_position(scale, ab_glyph::point(pen, baseline));
            pen += f.h_advance(id);
            prev = Some(id);
            let Some(outline) = fnt.outline_glyph(glyph) else {
                continue;
            };
            let b = outline.px_bounds();
            let mut pixels = Vec::new();
            outline.draw(|gx, gy, cov| pixels.push((gx, gy, cov)));
            for (gx, gy, cov) in pixels {
                let point = (b.min.x as i32 + gx as i32, b.min.y as i32 + gy as i32);
                let alpha = colour.alpha * f64::from(cov.clamp(0.0, 1.0));
                self.0.draw_pixel(
                    point,
                    BackendColor {
                        alpha,
                        rgb: colour.rgb,
                    },
                )?;
            }
        }
        Ok(())
    }
}

pub(super) fn colour(c: Rgba) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

/// A civil date (year, month 1..=12, day) from days since 1970-01-01 (Howard Hinnant's
/// algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// A date on the x axis, from days since the epoch: "Nov 30" when the chart spans less than
/// about a year, "Nov 2026" otherwise.
fn date_label(days: f64, long_span: bool) -> String {
    if !days.is_finite() {
        return String::new();
    }
    let (y, m, d) = civil(days.floor() as i64);
    let month = MONTHS[(m as usize).clamp(1, 12) - 1];
    if long_span {
        format!("{month} {y}")
    } else {
        format!("{month} {d}")
    }
}

/// The drawable points of a history as (day, rating, rd): points with a non-finite value are
/// left out, and dates are kept within years 1..9999.
fn points(history: &[RatingPoint]) -> Vec<(f64, f64, f64)> {
    const MIN_MS: i64 = -62_135_596_800_000; // 0001-01-01
    const MAX_MS: i64 = 253_402_300_799_999; // 9999-12-31
    history
        .iter()
        .filter(|p| p.rating.is_finite() && p.rd.is_finite())
        .map(|p| {
            let day = p.at_ms.clamp(MIN_MS, MAX_MS) as f64 / DAY_MS;
            let rating = p.rating.clamp(-100_000.0, 100_000.0);
            (day, rating, p.rd.abs().min(10_000.0))
        })
        .collect()
}

/// The x range (days) and y range (rating) of a chart of `pts`, never empty.
fn ranges(pts: &[(f64, f64, f64)]) -> ((f64, f64), (f64, f64)) {
    let (mut x0, mut x1) = (f64::MAX, f64::MIN);
    let (mut y0, mut y1) = (f64::MAX, f64::MIN);
    for &(d, r, rd) in pts {
        x0 = x0.min(d);
        x1 = x1.max(d);
        y0 = y0.min(r - rd);
        y1 = y1.max(r + rd);
    }
    if pts.is_empty() {
        (x0, x1, y0, y1) = (0.0, 0.0, 1500.0, 1500.0);
    }
    // At least four days wide and 100 points high, with a margin.
    let xpad = ((x1 - x0) * 0.03).max((4.0 - (x1 - x0)) / 2.0).max(0.0);
    let ypad = ((y1 - y0) * 0.08).max((100.0 - (y1 - y0)) / 2.0).max(0.0);
    ((x0 - xpad, x1 + xpad), (y0 - ypad, y1 + ypad))
}

/// Draws the chart of `history` into a new `width` x `height` image on `background`.
pub(super) fn chart_image(
    history: &[RatingPoint],
    width: u32,
    height: u32,
    background: Rgba,
) -> RgbImage {
    register_fonts();
    let (width, height) = (width.max(64), height.max(48));
    let mut buf = vec![0u8; width as usize * height as usize * 3];
    // plotters reports only backend failures, which drawing into memory does not have; on one
    // the chart is left as far as it got.
    let _ = draw(&mut buf, (width, height), background, &points(history));
    RgbImage::from_raw(width, height, buf).unwrap_or_else(|| RgbImage::new(width, height))
}

/// `message` in the middle of an empty chart.
pub(super) fn nothing_to_chart(
    root: &DrawingArea<Backend<'_>, plotters::coord::Shift>,
    size: (u32, u32),
    message: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    root.draw(&Text::new(
        message,
        (size.0 as i32 / 2, size.1 as i32 / 2),
        (FAMILY, 15)
            .into_font()
            .color(&colour(palette::MUTED))
            .pos(Pos::new(HPos::Center, VPos::Center)),
    ))?;
    root.present()?;
    Ok(())
}

/// A chart on `root` over `x` by `y`, in the cards' style: labels left and below in the muted
/// ink, horizontal grid lines only, `x_labels` labels along x and five along y.
pub(super) fn framed<'a, 'b>(
    root: &'a DrawingArea<Backend<'b>, plotters::coord::Shift>,
    (x, y): (std::ops::Range<f64>, std::ops::Range<f64>),
    x_labels: usize,
    x_fmt: &dyn Fn(&f64) -> String,
    y_fmt: &dyn Fn(&f64) -> String,
) -> Result<
    ChartContext<
        'a,
        Backend<'b>,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    Box<dyn std::error::Error + 'static>,
> {
    let label_font = (FAMILY, 12).into_font().color(&colour(palette::MUTED));
    let mut chart = ChartBuilder::on(root)
        .margin_top(12)
        .margin_right(18)
        .margin_left(6)
        .margin_bottom(4)
        .x_label_area_size(24)
        .y_label_area_size(46)
        .build_cartesian_2d(x, y)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(colour(palette::PANEL_EDGE).mix(0.45))
        .axis_style(colour(palette::PANEL_EDGE))
        .label_style(label_font)
        .x_labels(x_labels)
        .y_labels(5)
        .x_label_formatter(x_fmt)
        .y_label_formatter(y_fmt)
        .draw()?;
    Ok(chart)
}

fn draw(
    buf: &mut [u8],
    size: (u32, u32),
    background: Rgba,
    pts: &[(f64, f64, f64)],
) -> Result<(), Box<dyn std::error::Error>> {
    let root = Backend(BitMapBackend::with_buffer(buf, size)).into_drawing_area();
    root.fill(&colour(background))?;
    if pts.is_empty() {
        return nothing_to_chart(&root, size, "No rating history yet");
    }
    let ((x0, x1), (y0, y1)) = ranges(pts);
    let span = x1 - x0;
    let long_span = span > 330.0;
    let labels = (span.floor() as usize).clamp(2, 6);
    let x_fmt = |d: &f64| date_label(*d, long_span);
    let y_fmt = |r: &f64| format!("{r:.0}");
    let mut chart = framed(&root, (x0..x1, y0..y1), labels, &x_fmt, &y_fmt)?;
    // The band of ± one RD: along the top, then back along the bottom.
    let band: Vec<(f64, f64)> = pts
        .iter()
        .map(|&(d, r, rd)| (d, r + rd))
        .chain(pts.iter().rev().map(|&(d, r, rd)| (d, r - rd)))
        .collect();
    if pts.len() > 1 {
        chart.draw_series(std::iter::once(Polygon::new(
            band,
            colour(palette::BLUE_LIGHT).mix(0.75).filled(),
        )))?;
    } else {
        let (d, r, rd) = pts[0];
        chart.draw_series(std::iter::once(Rectangle::new(
            [(d - span * 0.01, r + rd), (d + span * 0.01, r - rd)],
            colour(palette::BLUE_LIGHT).mix(0.75).filled(),
        )))?;
    }
    let line = ShapeStyle {
        color: colour(palette::BLUE).to_rgba(),
        filled: false,
        stroke_width: 2,
    };
    chart.draw_series(LineSeries::new(pts.iter().map(|&(d, r, _)| (d, r)), line))?;
    // Dots for the games when there are few; the latest rating always.
    let dots = if pts.len() <= 30 {
        pts
    } else {
        &pts[pts.len() - 1..]
    };
    chart.draw_series(
        dots.iter()
            .map(|&(d, r, _)| Circle::new((d, r), 3, colour(palette::BLUE_DARK).filled())),
    )?;
    root.present()?;
    Ok(())
}

/// A rating-history chart alone (PNG): `title` above the chart the profile card draws.
pub fn rating_chart_png(title: &str, history: &[RatingPoint]) -> Vec<u8> {
    titled_chart(title, "Rating", |w, h| {
        chart_image(history, w, h, palette::PANEL)
    })
}

/// A chart alone (PNG, 640x300): `title` (or `fallback` when it has nothing legible) in a
/// band above a panel holding the image `chart` draws at the size it is given.
pub(super) fn titled_chart(
    title: &str,
    fallback: &str,
    chart: impl FnOnce(u32, u32) -> RgbImage,
) -> Vec<u8> {
    let mut card = Card::new(CHART_WIDTH, CHART_HEIGHT, palette::BACKGROUND);
    let title = user_text(
        title,
        Weight::Bold,
        18.0,
        CHART_WIDTH as f32 - 32.0,
        fallback,
    );
    card.text(
        Style::new(Weight::Bold, 18.0, palette::INK),
        16.0,
        29.0,
        Align::Left,
        &title,
    );
    let (w, h) = (CHART_WIDTH - 24, CHART_HEIGHT - TITLE_BAND - 12);
    card.panel(
        10.0,
        TITLE_BAND as f32 - 2.0,
        w as f32 + 4.0,
        h as f32 + 4.0,
        8.0,
    );
    card.paste(&chart(w - 8, h - 8), 16, TITLE_BAND + 4);
    encode_png(&card.img)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_civil_dates() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(20_422), (2025, 11, 30));
        assert_eq!(civil(-1), (1969, 12, 31));
        assert_eq!(civil(11_016), (2000, 2, 29));
        assert_eq!(date_label(20_422.7, false), "Nov 30");
        assert_eq!(date_label(20_422.7, true), "Nov 2025");
        assert_eq!(date_label(f64::NAN, false), "");
    }

    #[test]
    fn ranges_are_never_empty_and_cover_the_band() {
        let one = [(100.0, 1500.0, 350.0)];
        let ((x0, x1), (y0, y1)) = ranges(&one);
        assert!(x1 - x0 >= 4.0 && x0 < 100.0 && x1 > 100.0);
        assert!(y0 <= 1150.0 && y1 >= 1850.0);
        let flat = [(100.0, 1500.0, 0.0), (100.0, 1500.0, 0.0)];
        let ((x0, x1), (y0, y1)) = ranges(&flat);
        assert!(x1 - x0 >= 4.0 && y1 - y0 >= 100.0);
        let ((x0, x1), (y0, y1)) = ranges(&[]);
        assert!(x1 > x0 && y1 > y0);
    }

    #[test]
    fn odd_points_are_left_out_or_clamped() {
        let h = [
            RatingPoint {
                at_ms: i64::MIN,
                rating: 1500.0,
                rd: 350.0,
            },
            RatingPoint {
                at_ms: 0,
                rating: f64::NAN,
                rd: 350.0,
            },
            RatingPoint {
                at_ms: i64::MAX,
                rating: 1e300,
                rd: f64::INFINITY,
            },
            RatingPoint {
                at_ms: i64::MAX,
                rating: 1e300,
                rd: -20.0,
            },
        ];
        let p = points(&h);
        assert_eq!(p.len(), 2);
        assert!(p
            .iter()
            .all(|&(d, r, rd)| d.is_finite() && r.abs() <= 1e5 && rd >= 0.0));
    }
}
