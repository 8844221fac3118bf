//! The profile card: the player's name; per game the rating (± RD, "?" when provisional),
//! wins, draws and losses, the current streak, the last five results as coloured chips, and
//! the rating-history chart; then the player's open games.

use super::canvas::{Align, Rgba, Style, Weight};
use super::card::{rating_text, rd_text, user_lines, user_text, Card};
use super::chart::chart_image;
use super::leaderboard::results_bar;
use super::ratings::{ProfileCard, ProfileRating};
use super::theme as palette;

/// Width of a profile card.
pub(super) const WIDTH: u32 = 800;
/// Height of the name band.
const TOP: f32 = 88.0;
/// Height of one game's section, and the gap after it.
const SECTION: f32 = 206.0;
const GAP: f32 = 12.0;
/// Most games drawn (there are five), and most open games listed.
pub(super) const MAX_GAMES: usize = 6;
pub(super) const MAX_OPEN: usize = 12;
/// Where the chart sits in a section.
const CHART_X: f32 = 296.0;
const LINE: f32 = 24.0;
/// The sizes a game's name may be drawn at on one line, largest first; on two lines it is
/// drawn at the last.
const GAME_SIZES: [f32; 5] = [16.0, 15.0, 14.0, 13.0, 12.0];

/// A profile card (PNG). See [`ProfileCard`]; with no ratings it says there are no rated games
/// yet.
pub fn profile_png(card: &ProfileCard) -> Vec<u8> {
    let ratings = &card.ratings[..card.ratings.len().min(MAX_GAMES)];
    let open = &card.open_games[..card.open_games.len().min(MAX_OPEN)];
    let more_open = card.open_games.len() - open.len();
    let sections_h = if ratings.is_empty() {
        96.0 + GAP
    } else {
        (SECTION + GAP) * ratings.len() as f32
    };
    let open_lines = open.len().max(1) + usize::from(more_open > 0);
    let open_h = 48.0 + LINE * open_lines as f32;
    let height = (TOP + sections_h + open_h + 16.0) as u32;
    let w = WIDTH as f32;
    let mut c = Card::new(WIDTH, height, palette::BACKGROUND);

    let name = user_text(&card.name, Weight::Bold, 30.0, w - 48.0, "Unknown player");
    c.text(
        Style::new(Weight::Bold, 30.0, palette::INK),
        24.0,
        48.0,
        Align::Left,
        &name,
    );
    let played: u64 = card
        .ratings
        .iter()
        .map(|r| u64::from(r.wins) + u64::from(r.draws) + u64::from(r.losses))
        .sum();
    let subtitle = match card.ratings.len() {
        0 => "Player profile".to_string(),
        n => format!(
            "{} rated game{} · rated in {} variant{}",
            played,
            if played == 1 { "" } else { "s" },
            n,
            if n == 1 { "" } else { "s" }
        ),
    };
    c.text(
        Style::new(Weight::Regular, 15.0, palette::MUTED),
        24.0,
        72.0,
        Align::Left,
        &subtitle,
    );

    let mut y = TOP;
    if ratings.is_empty() {
        c.panel(16.0, y, w - 32.0, 96.0, 12.0);
        c.text(
            Style::new(Weight::Bold, 18.0, palette::INK),
            w / 2.0,
            y + 44.0,
            Align::Centre,
            "No rated games yet",
        );
        c.text(
            Style::new(Weight::Regular, 14.0, palette::MUTED),
            w / 2.0,
            y + 68.0,
            Align::Centre,
            "A rating appears here after the first rated game.",
        );
        y += 96.0 + GAP;
    }
    for r in ratings {
        section(&mut c, r, y);
        y += SECTION + GAP;
    }

    c.panel(16.0, y, w - 32.0, open_h, 12.0);
    c.text(
        Style::new(Weight::Bold, 17.0, palette::INK),
        32.0,
        y + 30.0,
        Align::Left,
        "Open games",
    );
    let line_style = Style::new(Weight::Regular, 14.0, palette::INK);
    let mut ly = y + 30.0 + LINE;
    if open.is_empty() {
        c.text(
            Style::new(Weight::Regular, 14.0, palette::MUTED),
            32.0,
            ly,
            Align::Left,
            "No open games",
        );
    }
    for line in open {
        c.disc(38.0, ly - 5.0, 3.0, palette::MUTED);
        let text = user_text(line, Weight::Regular, 14.0, w - 96.0, "?");
        c.text(line_style, 50.0, ly, Align::Left, &text);
        ly += LINE;
    }
    if more_open > 0 {
        c.text(
            Style::new(Weight::Regular, 14.0, palette::MUTED),
            50.0,
            ly,
            Align::Left,
            &format!("… and {more_open} more"),
        );
    }
    c.png()
}

/// One game's section: its numbers on the left, the chart on the right.
fn section(c: &mut Card, r: &ProfileRating, y: f32) {
    let w = WIDTH as f32;
    c.panel(16.0, y, w - 32.0, SECTION, 12.0);
    let x = 34.0;
    let col_w = CHART_X - x - 16.0;
    // A long name goes smaller, then onto two lines above the rating.
    let (size, lines) = user_lines(&r.game, Weight::Bold, &GAME_SIZES, col_w, "Game");
    let ys: &[f32] = if lines.len() == 1 {
        &[30.0]
    } else {
        &[22.0, 38.0]
    };
    for (line, dy) in lines.iter().zip(ys) {
        c.text(
            Style::new(Weight::Bold, size, palette::INK),
            x,
            y + dy,
            Align::Left,
            line,
        );
    }
    let rw = c.text(
        Style::new(Weight::Bold, 38.0, palette::INK),
        x,
        y + 76.0,
        Align::Left,
        &rating_text(r.rating, r.provisional),
    );
    c.text(
        Style::new(Weight::Regular, 17.0, palette::MUTED),
        x + rw + 8.0,
        y + 76.0,
        Align::Left,
        &rd_text(r.rd),
    );
    if r.provisional {
        tag(c, x + col_w, y + 62.0, "PROVISIONAL");
    }
    let wdl = format!(
        "{} · {} · {}",
        count(r.wins, "win", "wins"),
        count(r.draws, "draw", "draws"),
        count(r.losses, "loss", "losses")
    );
    let wdl = user_text(&wdl, Weight::Regular, 14.0, col_w, "");
    c.text(
        Style::new(Weight::Regular, 14.0, palette::INK),
        x,
        y + 106.0,
        Align::Left,
        &wdl,
    );
    results_bar(c, x, y + 116.0, col_w, 6.0, [r.wins, r.draws, r.losses]);
    let streak = if r.streak.trim().is_empty() {
        "Streak: none".to_string()
    } else {
        format!("Streak: {}", r.streak.trim())
    };
    let streak = user_text(&streak, Weight::Regular, 14.0, col_w, "");
    c.text(
        Style::new(Weight::Regular, 14.0, palette::INK),
        x,
        y + 146.0,
        Align::Left,
        &streak,
    );
    c.text(
        Style::new(Weight::Regular, 13.0, palette::MUTED),
        x,
        y + 182.0,
        Align::Left,
        "Last five",
    );
    let mut cx = x + 76.0;
    let results: Vec<char> = r.last_five.iter().take(5).copied().collect();
    if results.is_empty() {
        c.text(
            Style::new(Weight::Regular, 13.0, palette::MUTED),
            cx,
            y + 182.0,
            Align::Left,
            "—",
        );
    }
    for ch in results {
        chip(c, cx, y + 164.0, ch);
        cx += 30.0;
    }
    let chart = chart_image(
        &r.history,
        (w - 32.0 - CHART_X) as u32,
        (SECTION - 16.0) as u32,
        palette::PANEL,
    );
    c.paste(&chart, CHART_X as u32, (y + 8.0) as u32);
}

/// "1 win", "3 wins".
fn count(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A result chip: W green, D grey, L red; anything else a muted "?".
fn chip(c: &mut Card, x: f32, y: f32, result: char) {
    let (fill, letter): (Rgba, &str) = match result.to_ascii_uppercase() {
        'W' => (palette::WIN, "W"),
        'D' => (palette::DRAW, "D"),
        'L' => (palette::LOSS, "L"),
        _ => (palette::PANEL_EDGE, "?"),
    };
    c.rounded_rect(x, y, 24.0, 24.0, 6.0, fill);
    c.text(
        Style::new(Weight::Bold, 14.0, palette::PANEL),
        x + 12.0,
        y + 17.0,
        Align::Centre,
        letter,
    );
}

/// A small gold tag with its right edge at `right`.
fn tag(c: &mut Card, right: f32, y: f32, text: &str) {
    let w = super::canvas::Canvas::text_width(Weight::Bold, 10.0, text) + 14.0;
    c.rounded_rect(right - w, y, w, 18.0, 9.0, palette::GOLD);
    c.text(
        Style::new(Weight::Bold, 10.0, palette::GOLD_DARK),
        right - w / 2.0,
        y + 13.0,
        Align::Centre,
        text,
    );
}
