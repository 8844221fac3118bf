//! The ladder picture: a title, a subtitle, and one row per player shown, in rank order: the
//! rank (medals for the first three), the name, the rating ("?" when provisional) and the
//! ladder games in progress; the row of the player who asked is highlighted. Ranks that are
//! not shown leave a gap, drawn as a row of dots.

use super::canvas::{Align, Style, Weight};
use super::card::{
    Card, TableFrame, TABLE_HEADING as HEADING, TABLE_NAME_X as NAME_X, TABLE_RANK_X as RANK_X,
    TABLE_ROW as ROW, TABLE_TOP as TOP,
};
use super::theme as palette;

/// One player of a ladder picture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LadderRow {
    /// The rank, 1 the top.
    pub rank: u32,
    pub name: String,
    /// The rating as written ("1624", "1510?"), or "–" for none.
    pub rating: String,
    /// Ladder games in progress.
    pub playing: u32,
    /// The player who asked (highlighted).
    pub you: bool,
}

/// A ladder picture's data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LadderCard {
    /// E.g. "Autumn ladder · Ard Rí".
    pub title: String,
    /// E.g. "Ladder #2 · 14 players".
    pub subtitle: String,
    /// The rows shown, in rank order (at most [`MAX_LADDER_ROWS`] are drawn).
    pub rows: Vec<LadderRow>,
}

/// Most rows a ladder picture draws.
pub const MAX_LADDER_ROWS: usize = 40;

const WIDTH: u32 = 640;
const RATING_X: f32 = 470.0;
const PLAYING_X: f32 = 566.0;

/// The ladder picture (PNG). Without rows it says that nobody has joined yet.
pub fn ladder_png(card: &LadderCard) -> Vec<u8> {
    let rows = &card.rows[..card.rows.len().min(MAX_LADDER_ROWS)];
    // A gap in the ranks takes a row of its own.
    let gaps = rows
        .windows(2)
        .filter(|w| w[1].rank > w[0].rank + 1)
        .count();
    let frame = TableFrame {
        width: WIDTH,
        top: TOP,
        heights: (HEADING, ROW),
        titles: (&card.title, &card.subtitle, "Ladder"),
        empty: ("Nobody has joined yet", "Players join with /ladder join."),
    };
    let heads = [
        (RANK_X, Align::Centre, "RANK"),
        (NAME_X, Align::Left, "PLAYER"),
        (RATING_X, Align::Centre, "RATING"),
        (PLAYING_X, Align::Centre, "PLAYING"),
    ];
    let mut c = match Card::table(&frame, rows.len() + gaps, &heads) {
        Ok(c) => c,
        Err(empty) => return empty,
    };
    let mut line = 0;
    let mut last: Option<u32> = None;
    for row in rows {
        if last.is_some_and(|r| row.rank > r + 1) {
            let y = TOP + HEADING + ROW * line as f32;
            c.text(
                Style::new(Weight::Bold, 16.0, palette::MUTED),
                RANK_X,
                y + ROW / 2.0 + 6.0,
                Align::Centre,
                "⋮",
            );
            line += 1;
        }
        last = Some(row.rank);
        let y = TOP + HEADING + ROW * line as f32;
        let band = if row.you {
            Some(palette::BLUE_LIGHT)
        } else {
            (line % 2 == 1).then_some(palette::STRIPE)
        };
        c.row_band(y, ROW, band);
        let base = y + ROW / 2.0 + 6.0;
        c.place_badge(RANK_X, y + ROW / 2.0, row.rank, false);
        c.name_cell(
            NAME_X,
            base,
            &row.name,
            RATING_X - 40.0 - NAME_X,
            palette::INK,
        );
        c.text(
            Style::new(Weight::Regular, 15.0, palette::INK),
            RATING_X,
            base,
            Align::Centre,
            &row.rating,
        );
        if row.playing > 0 {
            c.text(
                Style::new(Weight::Regular, 15.0, palette::INK),
                PLAYING_X,
                base,
                Align::Centre,
                &row.playing.to_string(),
            );
        }
        line += 1;
    }
    c.png()
}
