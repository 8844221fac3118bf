//! The leaderboard picture: a title, a subtitle, and one row per player with the rank, the
//! name, the rating (± RD, "?" when provisional), the games played and the wins, draws and
//! losses, with a bar of their shares.

use super::canvas::{Align, Style, Weight};
use super::card::{
    rating_text, rd_text, Card, TableFrame, TABLE_HEADING as HEADING, TABLE_NAME_X as NAME_X,
    TABLE_RANK_X as RANK_X, TABLE_ROW as ROW, TABLE_TOP as TOP,
};
use super::ratings::LeaderboardRow;
use super::theme as palette;

/// Width of a leaderboard picture.
pub(super) const WIDTH: u32 = 760;
/// Most rows drawn (the caller passes at most 25).
pub(super) const MAX_ROWS: usize = 25;

// Columns (beside the table's rank and name): the name's width, the rating's left edge, the
// games' centre, the W / D / L centre, and the bar's left edge and width.
const NAME_W: f32 = 290.0;
const RATING_X: f32 = 388.0;
const GAMES_X: f32 = 522.0;
const WDL_X: f32 = 600.0;
const BAR_X: f32 = 650.0;
const BAR_W: f32 = 78.0;

/// A leaderboard picture (PNG): `title` (e.g. "High Kings of Tara (hkot-1)"), `subtitle`
/// (e.g. "Players with a rated game in the last 90 days") and the rows in rank order, at most
/// 25 of them. Without rows it says that nobody is on the leaderboard yet.
pub fn leaderboard_png(title: &str, subtitle: &str, rows: &[LeaderboardRow]) -> Vec<u8> {
    let rows = &rows[..rows.len().min(MAX_ROWS)];
    let frame = TableFrame {
        width: WIDTH,
        top: TOP,
        heights: (HEADING, ROW),
        titles: (title, subtitle, "Leaderboard"),
        empty: (
            "Nobody is on this leaderboard yet",
            "Finish a rated game to appear here.",
        ),
    };
    let heads = [
        (RANK_X, Align::Centre, "#"),
        (NAME_X, Align::Left, "PLAYER"),
        (RATING_X, Align::Left, "RATING"),
        (GAMES_X, Align::Centre, "GAMES"),
        (WDL_X, Align::Centre, "W / D / L"),
        (BAR_X, Align::Left, "RESULTS"),
    ];
    let mut c = match Card::table(&frame, rows.len(), &heads) {
        Ok(c) => c,
        Err(empty) => return empty,
    };
    for (i, row) in rows.iter().enumerate() {
        draw_row(&mut c, row, TOP + HEADING + ROW * i as f32, i % 2 == 1);
    }
    c.png()
}

fn draw_row(c: &mut Card, row: &LeaderboardRow, y: f32, striped: bool) {
    c.row_band(y, ROW, striped.then_some(palette::STRIPE));
    let base = y + ROW / 2.0 + 6.0;
    c.place_badge(RANK_X, y + ROW / 2.0, row.rank, false);
    c.name_cell(NAME_X, base, &row.name, NAME_W, palette::INK);
    let rating = rating_text(row.rating, row.provisional);
    let rw = c.text(
        Style::new(Weight::Bold, 17.0, palette::INK),
        RATING_X,
        base,
        Align::Left,
        &rating,
    );
    c.text(
        Style::new(Weight::Regular, 13.0, palette::MUTED),
        RATING_X + rw + 6.0,
        base,
        Align::Left,
        &rd_text(row.rd),
    );
    c.text(
        Style::new(Weight::Regular, 15.0, palette::INK),
        GAMES_X,
        base,
        Align::Centre,
        &row.games.to_string(),
    );
    c.text(
        Style::new(Weight::Regular, 14.0, palette::INK),
        WDL_X,
        base,
        Align::Centre,
        &format!("{} / {} / {}", row.wins, row.draws, row.losses),
    );
    results_bar(
        c,
        BAR_X,
        y + ROW / 2.0 - 4.0,
        BAR_W,
        8.0,
        [row.wins, row.draws, row.losses],
    );
}

/// A bar split in the shares of wins, draws and losses (empty when there are none).
pub(super) fn results_bar(c: &mut Card, x: f32, y: f32, w: f32, h: f32, wdl: [u32; 3]) {
    c.rect(x, y, w, h, palette::PANEL_EDGE);
    let total: f64 = wdl.iter().map(|&n| f64::from(n)).sum();
    if total <= 0.0 {
        return;
    }
    let colours = [palette::WIN, palette::DRAW, palette::LOSS];
    let mut left = 0.0f64;
    for (n, colour) in wdl.into_iter().zip(colours) {
        let right = left + f64::from(n) / total;
        let (a, b) = (
            (left * f64::from(w)).round() as f32,
            (right * f64::from(w)).round() as f32,
        );
        if b > a {
            c.rect(x + a, y, b - a, h, colour);
        }
        left = right;
    }
}
