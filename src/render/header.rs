//! The header above the board: the two players, whose turn it is, the phase, the counts, the
//! last move in words, and the result of a finished game.

use super::canvas::{rounded_rect, Align, Canvas, Style, Text, Weight};
use super::frame::Frame;
use super::fx::FxBuild;
use super::indexed::{IndexedText, PALETTE};
use super::layout::{fit, fit_lines, fit_width, Fitted, HEADER, WIDTH};
use super::theme as palette;
use crate::game::{describe, BoardView, Player, Position, Scoring, Side};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

/// Draws the seat's emblem: Red a ring, Blue a square ring, attackers a dark diamond,
/// defenders a light disc.
pub(super) fn emblem(c: &mut Canvas, side: Side, cx: f32, cy: f32, size: f32) {
    match side {
        Side::Red => {
            c.stroke_circle(cx, cy, size * 0.62, size * 0.55, palette::RED_DARK);
            c.stroke_circle(cx, cy, size * 0.62, size * 0.35, palette::RED);
        }
        Side::Blue => {
            let s = size * 1.2;
            if let Some(p) = rounded_rect(cx - s / 2.0, cy - s / 2.0, s, s, size * 0.3) {
                c.stroke(&p, size * 0.55, palette::BLUE_DARK);
                c.stroke(&p, size * 0.35, palette::BLUE);
            }
        }
        Side::Attackers => super::ard_ri::attacker(c, cx, cy, size * 0.9, 255),
        Side::Defenders => super::ard_ri::defender(c, cx, cy, size * 0.9, 255),
    }
}

/// A player's name as the fonts can draw it ([`super::fonts`]: every script they cover, in
/// its own letters, shaped and in its own direction). Characters some face has are kept as
/// they are; invisible ones (control and formatting characters, emoji modifiers and variation
/// selectors) are left out, except the joiners after a letter of a script that uses them;
/// letters and digits styled with Unicode's mathematical forms (`𝓐𝓸𝓲𝓯𝓮`) and others that
/// no face has become their plain Latin form; any other character no face has (Thai,
/// Ethiopic, a Han character outside the bundled subset without `fonts-noto-cjk`) is written
/// as its code point in hexadecimal between single guillemets, `‹E01›`, instead of a
/// missing-glyph box, so that every name is legible and two different names stay different.
pub(super) fn legible(name: &str, weight: Weight) -> String {
    let mut out = String::with_capacity(name.len());
    for ch in name.chars() {
        let joiner = matches!(ch, '\u{200C}' | '\u{200D}');
        if joiner
            && out
                .chars()
                .last()
                .is_some_and(|p| !super::fonts::simple(weight, p))
        {
            out.push(ch);
            continue;
        }
        if invisible(ch) {
            continue;
        }
        if Canvas::has_glyph(weight, ch) {
            out.push(ch);
            continue;
        }
        match plain_latin(ch) {
            Some(plain) if Canvas::has_glyph(weight, plain) => out.push(plain),
            _ => out.push_str(&format!("‹{:X}›", u32::from(ch))),
        }
    }
    out
}

/// Characters that draw nothing of their own: control and formatting characters, variation
/// selectors, emoji skin-tone modifiers and tag characters.
fn invisible(ch: char) -> bool {
    ch.is_control()
        || matches!(
            u32::from(ch),
            0x00AD
                | 0x034F
                | 0x180B..=0x180F
                | 0x200B..=0x200F
                | 0x202A..=0x202E
                | 0x2060..=0x206F
                | 0xFE00..=0xFE0F
                | 0xFEFF
                | 0x1F3FB..=0x1F3FF
                | 0xE0000..=0xE007F
                | 0xE0100..=0xE01EF
        )
}

/// The plain Latin letter or digit of a styled one, if `ch` is one.
fn plain_latin(ch: char) -> Option<char> {
    let c = u32::from(ch);
    let letter = |i: u32| {
        let i = i % 52;
        char::from_u32(if i < 26 { 0x41 + i } else { 0x61 + i - 26 })
    };
    let capital = |base: u32| char::from_u32(0x41 + (c - base));
    let small = |base: u32| char::from_u32(0x61 + (c - base));
    match c {
        // Fullwidth ASCII, and the ideographic space.
        0xFF01..=0xFF5E => char::from_u32(c - 0xFEE0),
        0x3000 => Some(' '),
        // Mathematical bold, italic, script, fraktur, double-struck, sans-serif and
        // monospace letters (13 alphabets of 52), and digits (5 sets of 10).
        0x1D400..=0x1D6A3 => letter(c - 0x1D400),
        0x1D7CE..=0x1D7FF => char::from_u32(0x30 + (c - 0x1D7CE) % 10),
        // Circled letters and digits.
        0x24B6..=0x24CF => capital(0x24B6),
        0x24D0..=0x24E9 => small(0x24D0),
        0x2460..=0x2468 => char::from_u32(0x31 + (c - 0x2460)),
        // Parenthesized, squared, negative circled and negative squared capitals, and the
        // regional indicators (flags are pairs of them).
        0x1F110..=0x1F129 => capital(0x1F110),
        0x1F130..=0x1F149 => capital(0x1F130),
        0x1F150..=0x1F169 => capital(0x1F150),
        0x1F170..=0x1F189 => capital(0x1F170),
        0x1F1E6..=0x1F1FF => capital(0x1F1E6),
        _ => None,
    }
}

fn stats(pos: &Position, seat: usize) -> (String, String) {
    match pos.board() {
        BoardView::Hills(t) => {
            let p = Player::BOTH[seat];
            let n = t.counts(p);
            let first = match t.options().scoring {
                Scoring::Kingdoms => format!(
                    "{} · {}",
                    describe::count(n.kingdoms.into(), "kingdom"),
                    describe::count(n.territory.into(), "ringfort")
                ),
                Scoring::Knots => format!(
                    "{} · {} · {}",
                    describe::count(n.knots.into(), "knot"),
                    describe::count(n.kingdoms.into(), "kingdom"),
                    describe::count(n.territory.into(), "ringfort")
                ),
            };
            let second = if t.variant().has_kings() {
                let kings = t.kings(p).count_ones();
                format!(
                    "{} king{} on the board · captured {} enemy king{}",
                    kings,
                    if kings == 1 { "" } else { "s" },
                    n.kings_captured,
                    if n.kings_captured == 1 { "" } else { "s" }
                )
            } else {
                format!("Phase: {}", t.phase_of(p))
            };
            (first, second)
        }
        BoardView::Squares(a) => {
            if seat == 0 {
                let n = a.attackers().count_ones();
                (
                    format!("{n} attacker{}", if n == 1 { "" } else { "s" }),
                    "move first".to_string(),
                )
            } else {
                let n = a.defenders().count_ones();
                (
                    format!("{n} defender{} and the king", if n == 1 { "" } else { "s" }),
                    "king to a corner wins".to_string(),
                )
            }
        }
    }
}

/// What one player's panel shows: everything its pixels depend on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Panel {
    seat: usize,
    side: Side,
    name: String,
    tag: &'static str,
    lit: bool,
    /// A small gold disc instead of the "TO MOVE" badge (replays: see [`panels`]).
    dot: bool,
    /// A frame of a replay: the name keeps clear of whatever may appear beside it in any
    /// frame (the disc, the "WINNER" badge), so that it is cut the same in every frame.
    replay: bool,
    first: String,
    second: String,
}

impl Panel {
    /// Whether `other` shows the same but for the turn disc.
    fn differs_only_in_dot(&self, other: &Panel) -> bool {
        let Panel {
            seat,
            side,
            name,
            tag,
            lit,
            dot: _,
            replay,
            first,
            second,
        } = self;
        (seat, side, name, tag, lit, replay, first, second)
            == (
                &other.seat,
                &other.side,
                &other.name,
                &other.tag,
                &other.lit,
                &other.replay,
                &other.first,
                &other.second,
            )
    }
}

/// What the status lines under the panels show.
#[derive(Clone, PartialEq, Eq)]
struct Status {
    text: String,
    alert: bool,
    detail: String,
}

/// Width of a player's panel.
const PANEL_W: f32 = (WIDTH as f32 - 36.0) / 2.0;
/// The panels lie above this row, each within its half of the image; the status lines below.
pub(super) const PANELS_BOTTOM: usize = 96;

fn panels(pos: &Position, frame: &Frame) -> [Panel; 2] {
    let sides = pos.variant().sides();
    let outcome = pos.outcome().or(frame.result.as_ref());
    let to_move = if outcome.is_some() {
        None
    } else {
        pos.to_move()
    };
    [0, 1].map(|seat| {
        let side = sides[seat];
        let active = to_move == Some(side);
        let winner = outcome.and_then(|o| o.winner) == Some(side);
        let given = legible(frame.names[seat].trim(), Weight::Bold);
        let name = if given.trim().is_empty() {
            side.name().to_string()
        } else {
            given.trim().to_string()
        };
        // A replay shows whose turn it is by a small disc and keeps both panels' edges
        // still: a badge and a gold edge that jump from side to side every frame flicker,
        // and cost more of each frame than the move itself.
        let dot = active && frame.replay;
        let tag = if winner {
            "WINNER"
        } else if active && !dot {
            "TO MOVE"
        } else {
            ""
        };
        let (first, second) = stats(pos, seat);
        Panel {
            seat,
            side,
            name,
            tag,
            lit: winner || (active && !dot),
            dot,
            replay: frame.replay,
            first,
            second,
        }
    })
}

/// Radius of the turn disc of a replay's panel, and the width of its edge.
const DOT_RADIUS: f32 = 6.0;
const DOT_EDGE: f32 = 1.5;

/// The top-left corner of the panel of `seat`.
fn panel_corner(seat: usize) -> (f32, f32) {
    (12.0 + seat as f32 * (PANEL_W + 12.0), 10.0)
}

/// Centre of the turn disc in the panel of `seat`.
fn dot_centre(seat: usize) -> (f32, f32) {
    let (x, y) = panel_corner(seat);
    (x + PANEL_W - 18.0, y + 25.0)
}

/// The box of the image the turn disc of `seat` can touch (its edge and a pixel of smoothing
/// around it, rounded out): two panels that differ only in the disc differ only there.
fn dot_region(seat: usize) -> [usize; 4] {
    let (cx, cy) = dot_centre(seat);
    let r = DOT_RADIUS + DOT_EDGE / 2.0 + 1.0;
    [
        (cx - r).floor() as usize,
        (cy - r).floor() as usize,
        (cx + r).ceil() as usize,
        (cy + r).ceil() as usize,
    ]
}

/// Draws a player's panel within its half of the image, above [`PANELS_BOTTOM`].
/// The size of a player's name in a board's header, in pixels.
pub(super) const NAME_SIZE: f32 = 19.0;

pub(super) fn draw_panel(c: &mut Canvas, p: &Panel) {
    let panel_w = PANEL_W;
    let (x, y) = panel_corner(p.seat);
    let h = 80.0;
    if let Some(path) = rounded_rect(x, y, panel_w, h, 10.0) {
        c.fill(&path, palette::PANEL);
        if p.lit {
            c.stroke(&path, 4.0, palette::GOLD);
        } else {
            c.stroke(&path, 1.5, palette::PANEL_EDGE);
        }
    }
    emblem(c, p.side, x + 26.0, y + 25.0, 16.0);
    let tag = p.tag;
    let badge_w = |tag: &str| Canvas::text_width(Weight::Bold, 11.0, tag) + 14.0;
    let tag_w = if tag.is_empty() { 0.0 } else { badge_w(tag) };
    // In a replay the name leaves room for the widest of what may appear beside it.
    let beside = if p.replay {
        badge_w("WINNER").max(tag_w)
    } else {
        tag_w
    };
    let name = fit(&p.name, Weight::Bold, NAME_SIZE, panel_w - 60.0 - beside);
    c.text(
        Style::new(Weight::Bold, NAME_SIZE, palette::INK),
        x + 50.0,
        y + 31.0,
        Align::Left,
        &name,
    );
    if p.dot {
        let (cx, cy) = dot_centre(p.seat);
        c.fill_circle(cx, cy, DOT_RADIUS, palette::GOLD);
        c.stroke_circle(cx, cy, DOT_RADIUS, DOT_EDGE, palette::GOLD_DARK);
    }
    if !tag.is_empty() {
        let tx = x + panel_w - tag_w - 6.0;
        if let Some(path) = rounded_rect(tx, y + 15.0, tag_w, 20.0, 10.0) {
            c.fill(&path, palette::GOLD);
        }
        c.text(
            Style::new(Weight::Bold, 11.0, palette::GOLD_DARK),
            tx + tag_w / 2.0,
            y + 29.0,
            Align::Centre,
            tag,
        );
    }
    let lines = [
        (
            format!("{} · {}", p.side.name(), p.first),
            palette::INK,
            56.0,
        ),
        (p.second.clone(), palette::MUTED, 73.0),
    ];
    for (line, colour, dy) in lines {
        let line = fit(&line, Weight::Regular, 13.0, panel_w - 20.0);
        c.text(
            Style::new(Weight::Regular, 13.0, colour),
            x + 12.0,
            y + dy,
            Align::Left,
            &line,
        );
    }
}

fn status(pos: &Position, frame: &Frame) -> Status {
    let sides = pos.variant().sides();
    let outcome = pos.outcome().or(frame.result.as_ref());
    let to_move = if outcome.is_some() {
        None
    } else {
        pos.to_move()
    };
    // The result and the points, or whose turn and the phase; then the last move in words.
    let (text, second) = match outcome {
        Some(o) => (
            describe::result(pos, o),
            Some(format!("Points: {}", describe::points(o, sides))),
        ),
        None => {
            // A replay's frame names the move it shows (the badge says whose turn it is
            // next), so that only the number changes from frame to frame.
            let mut s = if frame.replay && pos.ply() > 0 {
                format!("Move {}", pos.ply())
            } else {
                let who = to_move.map(Side::name).unwrap_or_default();
                format!("{who} to move · move {}", pos.ply() + 1)
            };
            if let Some(phase) = pos.phase() {
                s = format!("{phase} · {s}");
            }
            if pos.is_last_turn() {
                s.push_str(" · last turn");
            }
            if let Some(f) = pos.forces() {
                let quiet = f.plies_without_capture;
                if quiet > 0 {
                    s.push_str(&format!(" · {quiet}/100 moves without capture"));
                }
            }
            (s, None)
        }
    };
    let mut detail = describe::last_move(pos, frame.last_move).unwrap_or_default();
    if let Some(points) = second {
        detail = if detail.is_empty() {
            points
        } else {
            format!("{points} · {detail}")
        };
    }
    Status {
        text,
        alert: outcome.is_some(),
        detail,
    }
}

/// A status line as drawn: its style, baseline, text fitted to the width, and that text's
/// width.
struct Line {
    style: Style,
    y: f32,
    text: String,
    width: f32,
}

/// The status lines as drawn.
fn status_lines(s: &Status) -> Vec<Line> {
    let colour = if s.alert {
        palette::ALERT
    } else {
        palette::INK
    };
    // The widest a status line may be.
    let max = WIDTH as f32 - 24.0;
    let line = |style: Style, y: f32, text: &str| {
        let (text, width) = fit_width(text, style.weight, style.size, max);
        Line {
            style,
            y,
            text,
            width,
        }
    };
    let title = Style::new(Weight::Bold, 16.0, colour);
    if s.detail.is_empty() {
        return vec![line(title, 112.0, &s.text)];
    }
    // The detail (the last move in words, why the game ended) at 13 px, or smaller to fit on
    // its line; past that on two lines, the title a little higher, so that what comes last
    // (often why the game ended) is not cut off.
    let detail = |size: f32| Style::new(Weight::Regular, size, palette::MUTED);
    match fit_lines(&s.detail, Weight::Regular, &DETAIL_SIZES, max) {
        Fitted::One { size, text } => {
            vec![line(title, 112.0, &s.text), line(detail(size), 131.0, text)]
        }
        Fitted::Two {
            size,
            first,
            second,
        } => vec![
            line(title, 109.0, &s.text),
            line(detail(size), 122.5, first),
            line(detail(size), 134.5, second),
        ],
    }
}

/// The sizes the status detail may be drawn at on one line, largest first; on two lines it
/// is drawn at the last.
const DETAIL_SIZES: [f32; 6] = [13.0, 12.5, 12.0, 11.5, 11.0, 10.5];

/// Draws the status lines, below [`PANELS_BOTTOM`] and above the board, centred, onto a
/// canvas whose top-left pixel is the image's (`left`, `top`).
fn draw_status(c: &mut impl Text, lines: &[Line], left: f32, top: f32) {
    let mid = WIDTH as f32 / 2.0;
    for l in lines {
        c.text(l.style, mid - left, l.y - top, Align::Centre, &l.text);
    }
}

/// How far a glyph may reach beyond its advance, in pixels (more than any of the bundled
/// fonts' glyphs at the status lines' sizes).
const OVERHANG: f32 = 8.0;

/// The columns the status lines can touch: from the left, and how many.
fn status_columns(lines: &[Line]) -> (usize, usize) {
    let widest = lines.iter().map(|l| l.width).fold(0.0, f32::max);
    let mid = WIDTH as f32 / 2.0;
    let left = (mid - widest / 2.0 - OVERHANG).floor().max(0.0) as usize;
    let right = ((mid + widest / 2.0 + OVERHANG).ceil() as usize).min(WIDTH as usize);
    (left, right.saturating_sub(left).max(1))
}

/// Draws the header: the two players' panels and the status lines.
pub(super) fn draw(c: &mut Canvas, pos: &Position, frame: &Frame) {
    for p in &panels(pos, frame) {
        draw_panel(c, p);
    }
    draw_status(c, &status_lines(&status(pos, frame)), 0.0, 0.0);
}

/// Panels drawn before, in the palette (each its half of the image, above [`PANELS_BOTTOM`]).
type Panels = HashMap<Panel, Arc<[u8]>, FxBuild>;
static PANELS: LazyLock<Mutex<Panels>> = LazyLock::new(|| Mutex::new(Panels::default()));
/// Panels kept at most (29 KB each); the cache starts over when it is full.
const MAX_PANELS: usize = 512;

/// What the header of a position shows: the two panels and the status lines (the same for two
/// positions whose headers are the same pixels), and the columns the status lines were
/// written in ([`compose_changes`]; outside them the status rows are the background).
#[derive(Clone)]
pub(super) struct Shown {
    pub(super) panels: [Panel; 2],
    status: Status,
    status_columns: Option<[usize; 2]>,
}

/// What the header of `pos` shows.
pub(super) fn shown(pos: &Position, frame: &Frame) -> Shown {
    Shown {
        panels: panels(pos, frame),
        status: status(pos, frame),
        status_columns: None,
    }
}

/// The region of the image a panel lies in: left, top, right, bottom (exclusive).
pub(super) fn panel_region(seat: usize) -> [usize; 4] {
    let half = WIDTH as usize / 2;
    [seat * half, 0, (seat + 1) * half, PANELS_BOTTOM]
}

/// Writes the parts of `next` that differ from `last` into `out`, and pushes their regions.
pub(super) fn compose_changes(
    out: &mut [u8],
    last: Option<&Shown>,
    next: &mut Shown,
    regions: &mut Vec<[usize; 4]>,
) {
    for (seat, p) in next.panels.iter().enumerate() {
        let region = match last.map(|l| &l.panels[seat]) {
            Some(l) if l == p => continue,
            // Only whose turn it is changed (a replay): only the disc's pixels.
            Some(l) if l.differs_only_in_dot(p) => dot_region(seat),
            _ => panel_region(seat),
        };
        put_panel(out, p, region);
        regions.push(region);
    }
    let before = last.and_then(|l| l.status_columns);
    next.status_columns = match last {
        Some(l) if l.status == next.status => before,
        _ => {
            let [left, right] = put_status(out, &next.status, before);
            // What the lines covered before and cover now: the background elsewhere.
            let [l, r] = before.map_or([0, WIDTH as usize], |[l, r]| [l.min(left), r.max(right)]);
            regions.push([l, PANELS_BOTTOM, r, HEADER as usize]);
            Some([left, right])
        }
    };
}

/// Copies the part of a panel within `region` (of its half of the image) into the image.
fn put_panel(out: &mut [u8], p: &Panel, region: [usize; 4]) {
    let width = WIDTH as usize;
    let half = width / 2;
    let pixels = panel_pixels(p);
    let [left, top, right, bottom] = region;
    let col = left - p.seat * half;
    for (r, line) in pixels.chunks_exact(half).enumerate().take(bottom).skip(top) {
        out[r * width + left..r * width + right].copy_from_slice(&line[col..col + right - left]);
    }
}

/// The pixels of a panel's half of the image, drawn the first time the panel is seen.
fn panel_pixels(p: &Panel) -> Arc<[u8]> {
    let width = WIDTH as usize;
    let half = width / 2;
    let mut cache = PANELS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = cache.get(p) {
        return t.clone();
    }
    let mut c = Canvas::new(WIDTH, PANELS_BOTTOM as u32, palette::BACKGROUND);
    draw_panel(&mut c, p);
    let all = PALETTE.index(&c);
    let mine: Arc<[u8]> = all
        .chunks_exact(width)
        .flat_map(|row| &row[p.seat * half..(p.seat + 1) * half])
        .copied()
        .collect();
    if cache.len() >= MAX_PANELS {
        cache.clear();
    }
    cache.insert(p.clone(), mine.clone());
    mine
}

/// Writes the status lines: the text, in the columns it can touch, and the background where
/// the lines were `before` (left and right column; all the status rows if `None`). Returns the
/// columns written.
fn put_status(out: &mut [u8], status: &Status, before: Option<[usize; 2]>) -> [usize; 2] {
    let width = WIDTH as usize;
    let rows = HEADER as usize - PANELS_BOTTOM;
    let [l, r] = before.unwrap_or([0, width]);
    for row in out[PANELS_BOTTOM * width..HEADER as usize * width].chunks_exact_mut(width) {
        row[l..r].fill(*BACKGROUND_INDEX);
    }
    let lines = status_lines(status);
    let (left, cols) = status_columns(&lines);
    let mut t = IndexedText::new(cols, rows, palette::BACKGROUND);
    draw_status(&mut t, &lines, left as f32, PANELS_BOTTOM as f32);
    for (r, line) in t.indices.chunks_exact(cols).enumerate() {
        let at = (PANELS_BOTTOM + r) * width + left;
        out[at..at + cols].copy_from_slice(line);
    }
    [left, left + cols]
}

/// The background's palette index.
static BACKGROUND_INDEX: LazyLock<u8> =
    LazyLock::new(|| PALETTE.index(&Canvas::new(1, 1, palette::BACKGROUND))[0]);

#[cfg(test)]
mod tests {
    use super::*;

    /// A status detail too long for its line is drawn smaller, then on two lines, never cut
    /// while two lines hold it, and within the status rows.
    #[test]
    fn a_long_status_detail_goes_smaller_then_onto_two_lines() {
        let status = |detail: &str| Status {
            text: "Blue wins by double capture".into(),
            alert: true,
            detail: detail.into(),
        };
        let max = WIDTH as f32 - 24.0;
        let short = status_lines(&status("Red moved E5-F7 and built."));
        assert_eq!(short.len(), 2);
        assert_eq!(short[1].style.size, 13.0);
        let sentence = "Red backtracked E3-F1 and sacrificed the ringfort on F1 to Blue.";
        let longer = format!("Points: Red 1 – 2 Blue · {sentence} Red's king is lost.");
        let smaller = status_lines(&status(&longer));
        assert_eq!(smaller.len(), 2);
        assert!(smaller[1].style.size < 13.0 && smaller[1].text == longer);
        let long = format!(
            "Points: Red 1 – 2 Blue · {sentence} Red's king on F1 is still on enemy territory \
             as the game ends, so it is captured by default."
        );
        let two = status_lines(&status(&long));
        assert_eq!(two.len(), 3);
        assert_eq!(two[1].text, format!("Points: Red 1 – 2 Blue · {sentence}"));
        assert_eq!(
            two[2].text,
            "Red's king on F1 is still on enemy territory as the game ends, so it is captured \
             by default."
        );
        for l in &two {
            assert!(l.width <= max, "{}", l.text);
            // Every line's glyphs (capitals about 3/4 of the size high, descenders about 1/4
            // deep) stay within the status rows.
            let (top, bottom) = (l.y - 0.75 * l.style.size, l.y + 0.25 * l.style.size);
            assert!(top >= PANELS_BOTTOM as f32 && bottom <= HEADER, "{}", l.y);
        }
    }
    use crate::game::{GameOptions, Variant};

    /// Whether every character of `text` has a glyph in the bundled font of `weight`.
    fn drawable(text: &str, weight: Weight) -> bool {
        text.chars().all(|ch| Canvas::has_glyph(weight, ch))
    }

    #[test]
    fn names_the_font_covers_are_kept_as_they_are() {
        for name in [
            "Aoife",
            "Brian Ó Briain",
            "Ελένη",
            "Дмитрий",
            "Zoë-Łucja Øster",
            "alice_99",
        ] {
            for weight in [Weight::Bold, Weight::Regular] {
                assert_eq!(legible(name, weight), name);
            }
        }
    }

    #[test]
    fn names_in_every_covered_script_are_kept_in_their_own_letters() {
        for name in [
            "محمد علي",
            "דוד כהן",
            "अर्जुन",
            "张伟",
            "さくら",
            "민준",
            "🐉 Dragon",
            "🇮🇪 Aoife",
            "ＡＢＣ　１２",
            "می\u{200c}خواهم",
        ] {
            for weight in [Weight::Bold, Weight::Regular] {
                assert_eq!(legible(name, weight), name);
                assert!(drawable(name, weight), "{name}");
            }
        }
    }

    #[test]
    fn names_with_characters_no_face_has_are_drawn_legibly() {
        for (name, shown) in [
            ("𝓐𝓸𝓲𝓯𝓮", "Aoife"),
            ("𝐁𝐫𝐢𝐚𝐧 𝟕", "Brian 7"),
            ("สมชาย", "‹E2A›‹E21›‹E0A›‹E32›‹E22›"),
            ("👍🏽", "👍"),
            ("a\u{7}b\u{200d}c\u{fe0f}", "abc"),
        ] {
            let drawn = legible(name, Weight::Bold);
            assert_eq!(drawn, shown, "{name}");
            assert!(
                drawable(&drawn, Weight::Bold) && drawable(&drawn, Weight::Regular),
                "{drawn}: no missing-glyph box"
            );
        }
        // What no face has, which is why the names above are substituted.
        for ch in ['𝓐', 'ส'] {
            assert!(!Canvas::has_glyph(Weight::Bold, ch), "{ch}");
        }
    }

    #[test]
    fn a_turn_disc_changes_only_its_region() {
        let mut pos = Position::new(GameOptions::new(Variant::Hkot1));
        pos.play_text("D4").unwrap();
        // Short names, and names long enough to run under the disc.
        for names in [
            ["Aoife", "Brian"],
            ["W".repeat(40).as_str(), "Mmmmmmmmmmmmmmmmmmmmmmmmmmmm"],
        ] {
            let frame = Frame::new(names.map(String::from), None).in_replay();
            for p in panels(&pos, &frame) {
                let other = Panel {
                    dot: !p.dot,
                    ..p.clone()
                };
                assert!(p.differs_only_in_dot(&other) && p != other);
                let (a, b) = (panel_pixels(&p), panel_pixels(&other));
                let half = WIDTH as usize / 2;
                let [left, top, right, bottom] = dot_region(p.seat);
                let mut differ = 0;
                for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
                    let (col, row) = (p.seat * half + i % half, i / half);
                    if x != y {
                        differ += 1;
                        assert!(
                            (left..right).contains(&col) && (top..bottom).contains(&row),
                            "seat {} pixel ({col}, {row}) outside {:?}",
                            p.seat,
                            dot_region(p.seat)
                        );
                    }
                }
                assert!(differ > 50, "the disc is drawn ({differ} pixels)");
                // The name, however long, stays clear of the disc: the disc's box looks the
                // same under a one-letter name.
                let with_dot = Panel {
                    dot: true,
                    ..p.clone()
                };
                let short = Panel {
                    name: "A".into(),
                    ..with_dot.clone()
                };
                let (a, b) = (panel_pixels(&with_dot), panel_pixels(&short));
                for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
                    let (col, row) = (p.seat * half + i % half, i / half);
                    if (left..right).contains(&col) && (top..bottom).contains(&row) {
                        assert_eq!(
                            x, y,
                            "seat {} name under the disc at ({col}, {row})",
                            p.seat
                        );
                    }
                }
            }
        }
        let p = &panels(&pos, &Frame::default())[0];
        let moved = Panel {
            first: "another count".into(),
            ..p.clone()
        };
        assert!(!p.differs_only_in_dot(&moved));
    }

    #[test]
    fn counts_under_a_name_are_singular_for_one() {
        let mut pos = Position::new(GameOptions::new(Variant::SacredHill1));
        pos.play_text("D4").unwrap();
        assert_eq!(stats(&pos, 0).0, "1 kingdom · 1 ringfort");
        assert_eq!(stats(&pos, 1).0, "0 kingdoms · 0 ringforts");
    }
}
