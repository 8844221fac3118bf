//! The tournament pictures: the standings table (place with medals, player, score, the
//! tiebreak columns, games in progress), a round robin's crosstable, and a knockout bracket.
//! Drawn like the rating cards ([`Card`]), in the board's theme and the bundled fonts.

use super::canvas::{Align, Rgba, Style, Weight};
use super::card::{user_text, Card, TableFrame};
use super::layout::{fit_lines, Fitted};
use super::theme as palette;
use super::tournaments::{
    BracketCard, BracketSeat, BracketTie, Crosstable, StandingsCard, StandingsRow,
};

/// Most rows of a standings picture, players of a crosstable, and first-round ties of a
/// bracket drawn; the callers pass no more (the text beside the picture has everything).
pub(super) const MAX_STANDINGS: usize = 40;
pub(super) const MAX_CROSS: usize = 24;
pub(super) const MAX_FIRST_TIES: usize = 16;

/// The sizes a standings value may be drawn at, largest first.
const VALUE_SIZES: [f32; 4] = [15.0, 14.0, 13.0, 12.0];

/// Height of the title band, of a table's heading row and of a row.
const TOP: f32 = 92.0;
const HEADING: f32 = 34.0;
const ROW: f32 = 34.0;

/// The standings picture (PNG): a row per player in standings order (at most 40), with the
/// place (shared places as "3="), the name, the score, one column per tiebreak (and the
/// rating, which the caller passes as the last) and the games in progress (no such column
/// when no game is); withdrawn players muted. Without rows it says that nobody has joined yet.
pub fn standings_png(card: &StandingsCard) -> Vec<u8> {
    standings_marked(card, &[])
}

/// A league division's standings picture: [`standings_png`] with an arrow before the place of
/// each row that `marks` (in row order) says goes up (▲, green) or down (▼, red) a level.
pub fn division_png(card: &StandingsCard, marks: &[Option<LevelMove>]) -> Vec<u8> {
    standings_marked(card, marks)
}

/// Where a row of a league division goes at the season's end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelMove {
    Up,
    Down,
}

/// Where a standings table's columns are: the name's start and room, the score's centre, each
/// tiebreak's centre, the games in progress' centre (and whether that column is shown).
struct Columns {
    name_w: f32,
    score_x: f32,
    break_xs: Vec<f32>,
    playing_x: f32,
    playing_w: f32,
}

const PLACE_X: f32 = 46.0;
const NAME_X: f32 = 78.0;
const SCORE_W: f32 = 70.0;
const BREAK_W: f32 = 70.0;

fn standings_marked(card: &StandingsCard, marks: &[Option<LevelMove>]) -> Vec<u8> {
    const PLAYING_W: f32 = 84.0;
    const NAME_W: f32 = 260.0;
    let rows = &card.rows[..card.rows.len().min(MAX_STANDINGS)];
    let breaks = &card.tiebreaks[..card.tiebreaks.len().min(6)];
    // The Playing column only while a game is in progress (not on final standings).
    let playing_w = if card.rows.iter().any(|r| r.playing > 0) {
        PLAYING_W
    } else {
        0.0
    };
    let width = (NAME_X + NAME_W + SCORE_W + BREAK_W * breaks.len() as f32 + playing_w + 32.0)
        .max(640.0) as u32;
    let w = width as f32;
    // Column centres: the score, each tiebreak, the games in progress (right-aligned block).
    let playing_x = w - 24.0 - playing_w / 2.0;
    let break_x = |k: usize| {
        playing_x - playing_w / 2.0 - BREAK_W * (breaks.len() - k) as f32 + BREAK_W / 2.0
    };
    let score_x = playing_x - playing_w / 2.0 - BREAK_W * breaks.len() as f32 - SCORE_W / 2.0;
    let cols = Columns {
        name_w: score_x - SCORE_W / 2.0 - NAME_X - 8.0,
        score_x,
        break_xs: (0..breaks.len()).map(break_x).collect(),
        playing_x,
        playing_w,
    };
    let frame = TableFrame {
        width,
        top: TOP,
        heights: (HEADING, ROW),
        titles: (&card.title, &card.subtitle, "Standings"),
        empty: (
            "Nobody has joined yet",
            "Players join with /tournament join.",
        ),
    };
    let mut c = match standings_table(&frame, rows.len(), &cols, breaks) {
        Ok(c) => c,
        Err(empty) => return empty,
    };
    for (i, row) in rows.iter().enumerate() {
        let y = TOP + HEADING + ROW * i as f32;
        c.row_band(y, ROW, (i % 2 == 1).then_some(palette::STRIPE));
        standings_row(&mut c, &cols, row, marks.get(i).copied().flatten(), y);
    }
    c.png()
}

/// The standings card of `rows` rows in its `frame`, with its column headings drawn (see
/// [`Card::table`]).
fn standings_table(
    frame: &TableFrame,
    rows: usize,
    cols: &Columns,
    breaks: &[String],
) -> Result<Card, Vec<u8>> {
    let breaks: Vec<String> = breaks
        .iter()
        .map(|name| user_text(name, Weight::Bold, 12.0, BREAK_W - 6.0, "").to_uppercase())
        .collect();
    let mut heads = vec![
        (PLACE_X, Align::Centre, "#"),
        (NAME_X, Align::Left, "PLAYER"),
        (cols.score_x, Align::Centre, "SCORE"),
    ];
    heads.extend(
        cols.break_xs
            .iter()
            .zip(&breaks)
            .map(|(x, name)| (*x, Align::Centre, name.as_str())),
    );
    if cols.playing_w > 0.0 {
        heads.push((cols.playing_x, Align::Centre, "PLAYING"));
    }
    Card::table(frame, rows, &heads)
}

/// One player's row at `y`: place (or a dash, withdrawn), the promotion or relegation mark,
/// name, score, tiebreaks and games in progress.
fn standings_row(
    c: &mut Card,
    cols: &Columns,
    row: &StandingsRow,
    mark: Option<LevelMove>,
    y: f32,
) {
    let mid = y + ROW / 2.0;
    let base = mid + 6.0;
    let ink = if row.withdrawn {
        palette::MUTED
    } else {
        palette::INK
    };
    if row.withdrawn {
        c.text(
            Style::new(Weight::Regular, 13.0, palette::MUTED),
            PLACE_X,
            base - 1.0,
            Align::Centre,
            "–",
        );
    } else {
        c.place_badge(PLACE_X, mid, row.place, row.shared);
    }
    if let Some(m) = mark {
        let (arrow, colour) = match m {
            LevelMove::Up => ("▲", palette::WIN),
            LevelMove::Down => ("▼", palette::LOSS),
        };
        c.text(
            Style::new(Weight::Bold, 12.0, colour),
            24.0,
            base - 1.0,
            Align::Centre,
            arrow,
        );
    }
    let mut name_room = cols.name_w;
    if row.withdrawn {
        name_room -= 80.0;
    }
    let nw = c.name_cell(NAME_X, base, &row.name, name_room, ink);
    if row.withdrawn {
        c.text(
            Style::new(Weight::Regular, 12.0, palette::LOSS),
            NAME_X + nw + 8.0,
            base - 1.0,
            Align::Left,
            "withdrawn",
        );
    }
    c.text(
        Style::new(Weight::Bold, 17.0, ink),
        cols.score_x,
        base,
        Align::Centre,
        &user_text(&row.score, Weight::Bold, 17.0, SCORE_W - 6.0, "0"),
    );
    for (k, x) in cols.break_xs.iter().enumerate() {
        let v = row.tiebreaks.get(k).map(String::as_str).unwrap_or("");
        // A wider value (a knockout's "champion") goes smaller rather than being cut.
        let (size, v) = match fit_lines(v, Weight::Regular, &VALUE_SIZES, BREAK_W - 6.0) {
            Fitted::One { size, text } => (size, text.to_string()),
            Fitted::Two { .. } => (15.0, user_text(v, Weight::Regular, 15.0, BREAK_W - 6.0, "")),
        };
        c.text(
            Style::new(Weight::Regular, size, ink),
            *x,
            base,
            Align::Centre,
            &v,
        );
    }
    if row.playing > 0 {
        c.rounded_rect(
            cols.playing_x - 16.0,
            mid - 10.0,
            32.0,
            20.0,
            10.0,
            palette::GOLD,
        );
        c.text(
            Style::new(Weight::Bold, 13.0, palette::GOLD_DARK),
            cols.playing_x,
            mid + 5.0,
            Align::Centre,
            &row.playing.min(999).to_string(),
        );
    }
}

/// The colour a crosstable mark is drawn in: wins green, losses red, draws grey.
fn mark_colour(mark: &str) -> Rgba {
    match mark {
        "1" | "+" => palette::WIN,
        "0" | "−" | "-" => palette::LOSS,
        "½" | "=" => palette::DRAW,
        _ => palette::MUTED,
    }
}

/// A round robin's crosstable (PNG): a row and a column per player (at most 24) in the
/// table's order, each cell the row player's results against the column player, coloured by
/// result, then the score and the place.
pub fn crosstable_png(table: &Crosstable) -> Vec<u8> {
    let players = &table.players[..table.players.len().min(MAX_CROSS)];
    let n = players.len();
    let double = table
        .cells
        .iter()
        .flatten()
        .any(|c| c.split_whitespace().count() > 1);
    let cell = match (double, n) {
        (true, _) => 52.0,
        (false, 0..=10) => 44.0,
        (false, 11..=16) => 38.0,
        _ => 32.0,
    };
    const NUM_X: f32 = 40.0;
    const NAME_X: f32 = 62.0;
    const NAME_W: f32 = 200.0;
    let grid_x = NAME_X + NAME_W + 10.0;
    let score_x = grid_x + cell * n as f32 + 36.0;
    let place_x = score_x + 62.0;
    let width = (place_x + 40.0).max(560.0) as u32;
    let w = width as f32;
    let mut c = Card::with_table(
        width,
        TOP,
        n,
        (HEADING, ROW),
        (&table.title, &table.subtitle, "Crosstable"),
    );
    if n == 0 {
        c.empty_table(TOP, "Nobody has joined yet", "");
        return c.png();
    }
    let head = Style::new(Weight::Bold, 12.0, palette::MUTED);
    let hy = TOP + 22.0;
    c.text(head, NUM_X, hy, Align::Centre, "#");
    c.text(head, NAME_X, hy, Align::Left, "PLAYER");
    for j in 0..n {
        c.text(
            head,
            grid_x + cell * (j as f32 + 0.5),
            hy,
            Align::Centre,
            &(j + 1).to_string(),
        );
    }
    c.text(head, score_x, hy, Align::Centre, "SCORE");
    c.text(head, place_x, hy, Align::Centre, "PLACE");
    let top = TOP + HEADING;
    c.rect(26.0, top - 1.0, w - 52.0, 1.0, palette::PANEL_EDGE);
    for (i, p) in players.iter().enumerate() {
        let y = top + ROW * i as f32;
        if i % 2 == 1 {
            c.rect(18.0, y, w - 36.0, ROW, palette::STRIPE);
        }
        let base = y + ROW / 2.0 + 6.0;
        c.text(
            Style::new(Weight::Bold, 14.0, palette::MUTED),
            NUM_X,
            base - 1.0,
            Align::Centre,
            &(i + 1).to_string(),
        );
        let name = user_text(&p.name, Weight::Bold, 16.0, NAME_W, "Unknown player");
        c.text(
            Style::new(Weight::Bold, 16.0, palette::INK),
            NAME_X,
            base,
            Align::Left,
            &name,
        );
        cross_row(&mut c, table, i, n, (grid_x, cell, y, base));
        c.text(
            Style::new(Weight::Bold, 17.0, palette::INK),
            score_x,
            base,
            Align::Centre,
            &user_text(&p.score, Weight::Bold, 17.0, 60.0, "0"),
        );
        c.place_badge(place_x, y + ROW / 2.0, p.place, false);
    }
    // The grid's lines.
    for j in 0..=n {
        c.rect(
            grid_x + cell * j as f32,
            top,
            1.0,
            ROW * n as f32,
            palette::PANEL_EDGE,
        );
    }
    c.png()
}

/// The cells of player `i`'s row of a crosstable of `n`: the diagonal shaded, each other
/// cell's one or two marks coloured by result. `grid_x` and `cell` place the grid, `y` the row
/// and `base` its text.
fn cross_row(
    c: &mut Card,
    table: &Crosstable,
    i: usize,
    n: usize,
    (grid_x, cell, y, base): (f32, f32, f32, f32),
) {
    for j in 0..n {
        let cx = grid_x + cell * j as f32;
        if i == j {
            c.rect(
                cx + 1.0,
                y + 1.0,
                cell - 2.0,
                ROW - 2.0,
                palette::PANEL_EDGE,
            );
            continue;
        }
        let text = table
            .cells
            .get(i)
            .and_then(|r| r.get(j))
            .map(String::as_str)
            .unwrap_or("");
        let marks: Vec<&str> = text.split_whitespace().take(2).collect();
        let slot = cell / marks.len().max(1) as f32;
        for (k, m) in marks.iter().enumerate() {
            let m = user_text(m, Weight::Bold, 16.0, slot, "");
            c.text(
                Style::new(Weight::Bold, 16.0, mark_colour(&m)),
                cx + slot * (k as f32 + 0.5),
                base,
                Align::Centre,
                &m,
            );
        }
    }
}

/// Size of a tie's box in a bracket, and the gaps between rounds and between first-round ties.
const TIE_W: f32 = 230.0;
const TIE_H: f32 = 60.0;
const ROUND_GAP: f32 = 44.0;
const TIE_GAP: f32 = 22.0;

/// A knockout bracket (PNG): a column per round from the first to the final, each tie a box
/// of its two seats (seed, name, points in the tie) with the winner in bold and the loser
/// muted, lines joining each tie to the one its winner goes to, and the champion at the end
/// once known.
pub fn bracket_png(card: &BracketCard) -> Vec<u8> {
    let mut rounds: Vec<&(String, Vec<BracketTie>)> = card.rounds.iter().collect();
    while rounds.len() > 1 && rounds[0].1.len() > MAX_FIRST_TIES {
        rounds.remove(0);
    }
    let first = rounds.first().map_or(0, |r| r.1.len()).max(1);
    let champion = rounds.last().and_then(|(_, ties)| {
        let tie = ties.first()?;
        match (ties.len(), tie.winner.and_then(|k| tie.seats.get(k))) {
            (1, Some(BracketSeat::Player { name, .. })) => Some(name.clone()),
            _ => None,
        }
    });
    let columns = rounds.len() + usize::from(champion.is_some());
    let width = (32.0 + (TIE_W + ROUND_GAP) * columns.max(1) as f32).max(560.0) as u32;
    let body_top = TOP + 30.0;
    let body_h = first as f32 * (TIE_H + TIE_GAP);
    let height = (body_top + body_h + 16.0) as u32;
    let w = width as f32;
    let mut c = Card::new(width, height, palette::BACKGROUND);
    c.title_band(&card.title, &card.subtitle, "Bracket");
    if rounds.is_empty() {
        c.text(
            Style::new(Weight::Bold, 19.0, palette::INK),
            w / 2.0,
            body_top + 30.0,
            Align::Centre,
            "The bracket is drawn when the tournament starts",
        );
        return c.png();
    }
    // The vertical centre of tie k of round r: first-round ties are evenly spaced, and each
    // later tie sits midway between the two it follows.
    let slot = TIE_H + TIE_GAP;
    let centre = |r: usize, k: usize| {
        let span = slot * (1u64 << r.min(20)) as f32;
        body_top + span * (k as f32 + 0.5)
    };
    for (r, (name, ties)) in rounds.iter().enumerate() {
        let x = 16.0 + (TIE_W + ROUND_GAP) * r as f32;
        let label = user_text(name, Weight::Bold, 13.0, TIE_W, "");
        c.text(
            Style::new(Weight::Bold, 13.0, palette::MUTED),
            x + 4.0,
            TOP + 12.0,
            Align::Left,
            &label.to_uppercase(),
        );
        for (k, tie) in ties.iter().enumerate() {
            let cy = centre(r, k);
            if r + 1 < rounds.len() || champion.is_some() {
                // The line to the next round: right, then up or down to its centre.
                let next_y = if r + 1 < rounds.len() {
                    centre(r + 1, k / 2)
                } else {
                    cy
                };
                let mid_x = x + TIE_W + ROUND_GAP / 2.0;
                c.rect(
                    x + TIE_W,
                    cy - 1.0,
                    ROUND_GAP / 2.0,
                    2.0,
                    palette::WOOD_MARK,
                );
                let (a, b) = (cy.min(next_y), cy.max(next_y));
                c.rect(mid_x - 1.0, a - 1.0, 2.0, b - a + 2.0, palette::WOOD_MARK);
                c.rect(
                    mid_x,
                    next_y - 1.0,
                    ROUND_GAP / 2.0,
                    2.0,
                    palette::WOOD_MARK,
                );
            }
            draw_tie(&mut c, x, cy - TIE_H / 2.0, tie);
        }
    }
    if let Some(name) = champion {
        let x = 16.0 + (TIE_W + ROUND_GAP) * rounds.len() as f32;
        let cy = centre(rounds.len() - 1, 0);
        c.text(
            Style::new(Weight::Bold, 13.0, palette::MUTED),
            x + 4.0,
            TOP + 12.0,
            Align::Left,
            "CHAMPION",
        );
        c.rounded_rect(x, cy - 22.0, TIE_W, 44.0, 10.0, palette::GOLD);
        let name = user_text(&name, Weight::Bold, 18.0, TIE_W - 24.0, "Unknown player");
        c.text(
            Style::new(Weight::Bold, 18.0, palette::GOLD_DARK),
            x + TIE_W / 2.0,
            cy + 6.0,
            Align::Centre,
            &name,
        );
    }
    c.png()
}

/// One tie's box with its top-left corner at `x`, `y`.
fn draw_tie(c: &mut Card, x: f32, y: f32, tie: &BracketTie) {
    c.panel(x, y, TIE_W, TIE_H, 8.0);
    let half = TIE_H / 2.0;
    c.rect(x + 8.0, y + half, TIE_W - 16.0, 1.0, palette::PANEL_EDGE);
    for (k, seat) in tie.seats.iter().enumerate() {
        let base = y + half * k as f32 + half / 2.0 + 5.0;
        let (weight, ink) = match tie.winner {
            Some(w) if w == k => (Weight::Bold, palette::INK),
            Some(_) => (Weight::Regular, palette::MUTED),
            None => (Weight::Bold, palette::INK),
        };
        match seat {
            BracketSeat::Player { seed, name, score } => {
                c.text(
                    Style::new(Weight::Bold, 11.0, palette::MUTED),
                    x + 18.0,
                    base - 1.0,
                    Align::Centre,
                    &seed.min(&9999).to_string(),
                );
                let score = user_text(score, Weight::Bold, 14.0, 40.0, "");
                let room = TIE_W - 44.0 - 48.0;
                let name = user_text(name, weight, 14.0, room, "Unknown player");
                c.text(
                    Style::new(weight, 14.0, ink),
                    x + 34.0,
                    base,
                    Align::Left,
                    &name,
                );
                c.text(
                    Style::new(Weight::Bold, 14.0, ink),
                    x + TIE_W - 12.0,
                    base,
                    Align::Right,
                    &score,
                );
            }
            BracketSeat::Bye => {
                c.text(
                    Style::new(Weight::Regular, 13.0, palette::MUTED),
                    x + 34.0,
                    base,
                    Align::Left,
                    "bye",
                );
            }
            BracketSeat::Waiting => {
                c.text(
                    Style::new(Weight::Regular, 13.0, palette::MUTED),
                    x + 34.0,
                    base,
                    Align::Left,
                    "…",
                );
            }
        }
        if tie.winner == Some(k) {
            c.rect(
                x + 1.0,
                y + half * k as f32 + 6.0,
                3.0,
                half - 12.0,
                palette::WIN,
            );
        }
    }
    if !tie.note.is_empty() {
        let note = user_text(&tie.note, Weight::Regular, 11.0, TIE_W - 8.0, "");
        c.text(
            Style::new(Weight::Regular, 11.0, palette::MUTED),
            x + TIE_W / 2.0,
            y + TIE_H + 13.0,
            Align::Centre,
            &note,
        );
    }
}
