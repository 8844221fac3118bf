//! The evaluation chart of an analysed game (`/analyse`, `tara-bot analyse --chart`): the
//! first seat's expected score after every move, drawn by `plotters` like the rating chart,
//! with the largest swings numbered.

use super::chart::{
    colour, framed, nothing_to_chart, register_fonts, titled_chart, Backend, FAMILY,
};
#[cfg(test)]
use super::chart::{CHART_HEIGHT, CHART_WIDTH};
use super::theme as palette;
use crate::game::Side;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontStyle;

/// What the chart shows, filled in by the caller.
#[derive(Clone, Debug)]
pub struct EvalChart {
    /// Above the chart, e.g. "Game 12 · Aoife (Red) vs Brian (Blue)".
    pub title: String,
    /// Whose expected score the curve is (the first seat): Red or the attackers.
    pub side: Side,
    /// The expected score (0 to 1) at the start and after every move.
    pub curve: Vec<f64>,
    /// The plies of the largest swings, largest first (numbered 1, 2, 3 on the chart).
    pub swings: Vec<usize>,
}

/// The chart as a PNG, 640x300.
pub fn eval_chart_png(chart: &EvalChart) -> Vec<u8> {
    titled_chart(&chart.title, "Evaluation", |w, h| {
        register_fonts();
        let mut buf = vec![0u8; w as usize * h as usize * 3];
        // Drawing into memory has no backend failures; on one the chart is left as far as
        // it got.
        let _ = draw(&mut buf, (w, h), chart);
        image::RgbImage::from_raw(w, h, buf).unwrap_or_else(|| image::RgbImage::new(w, h))
    })
}

fn draw(buf: &mut [u8], size: (u32, u32), c: &EvalChart) -> Result<(), Box<dyn std::error::Error>> {
    let root = Backend(BitMapBackend::with_buffer(buf, size)).into_drawing_area();
    root.fill(&colour(palette::PANEL))?;
    let pts: Vec<(f64, f64)> = c
        .curve
        .iter()
        .enumerate()
        .filter(|(_, v)| v.is_finite())
        .map(|(i, &v)| (i as f64, v.clamp(0.0, 1.0)))
        .collect();
    if pts.len() < 2 {
        return nothing_to_chart(&root, size, "No moves to chart");
    }
    let last = (pts.len() - 1) as f64;
    let x_fmt = |x: &f64| format!("{x:.0}");
    let y_fmt = |y: &f64| format!("{:.0}%", y * 100.0);
    let mut chart = framed(&root, (0.0..last.max(1.0), 0.0..1.0), 6, &x_fmt, &y_fmt)?;
    // The area between the curve and the even line: the first seat's colour above it.
    chart.draw_series(std::iter::once(Polygon::new(
        std::iter::once((0.0, 0.5))
            .chain(pts.iter().copied())
            .chain(std::iter::once((last, 0.5)))
            .collect::<Vec<_>>(),
        colour(palette::RED_LIGHT).mix(0.6).filled(),
    )))?;
    chart.draw_series(LineSeries::new(
        [(0.0, 0.5), (last, 0.5)],
        colour(palette::MUTED).mix(0.6),
    ))?;
    let line = ShapeStyle {
        color: colour(palette::RED).to_rgba(),
        filled: false,
        stroke_width: 2,
    };
    chart.draw_series(LineSeries::new(pts.iter().copied(), line))?;
    // The swings, numbered.
    for (n, &ply) in c.swings.iter().enumerate().take(9) {
        let Some(&(x, y)) = pts.get(ply) else {
            continue;
        };
        chart.draw_series(std::iter::once(Circle::new(
            (x, y),
            7,
            colour(palette::GOLD).filled(),
        )))?;
        chart.draw_series(std::iter::once(Circle::new(
            (x, y),
            7,
            colour(palette::GOLD_DARK).stroke_width(1),
        )))?;
        chart.draw_series(std::iter::once(Text::new(
            format!("{}", n + 1),
            (x, y),
            (FAMILY, 11)
                .into_font()
                .style(FontStyle::Bold)
                .color(&colour(palette::INK))
                .pos(Pos::new(HPos::Center, VPos::Center)),
        )))?;
    }
    // Whose score it is, in the top left corner.
    drop(chart);
    let whose = c.side.possessive();
    let mut initial = whose.chars();
    let whose: String = initial
        .next()
        .map(|f| f.to_ascii_uppercase())
        .into_iter()
        .chain(initial)
        .collect();
    root.draw(&Text::new(
        format!("{whose} expected score"),
        (58, 16),
        (FAMILY, 12).into_font().color(&colour(palette::MUTED)),
    ))?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(png: &[u8]) -> image::DynamicImage {
        image::load_from_memory(png).expect("a PNG")
    }

    #[test]
    fn a_chart_is_drawn_for_games_long_and_empty() {
        let long = EvalChart {
            title: "Game 7 · Aoife vs Brian".into(),
            side: Side::Red,
            curve: (0..401)
                .map(|i| 0.5 + 0.45 * ((i as f64) / 30.0).sin())
                .collect(),
            swings: vec![120, 30, 399],
        };
        let empty = EvalChart {
            title: String::new(),
            side: Side::Attackers,
            curve: vec![0.5],
            swings: vec![5],
        };
        for c in [long, empty] {
            let png = eval_chart_png(&c);
            let img = decode(&png);
            assert_eq!((img.width(), img.height()), (CHART_WIDTH, CHART_HEIGHT));
            assert!(png.len() < 150_000, "{} bytes", png.len());
        }
    }
}
