//! Positions for discussion: analysis marks and arrows read for a board (`/board`, `/game`,
//! `/position`), and `/position`, a board drawn from a pasted record or move list without
//! creating a game.

use super::board::Board;
use super::reply::{escape_markdown, Ctx};
use super::session::{Bot, Fail, Out, Outcome};
use super::text::said;
use super::text::{self, Builder};
use crate::game::notation::parse_cell;
use crate::game::record::{record_lines, KEYS};
use crate::game::{describe, GameOptions, GameRecord, Position, Variant};
use crate::render::{Cell, Frame};

/// At most this many marks, and this many arrows, on one board.
pub(crate) const MAX_NOTES: usize = 12;

/// Marks and arrows to draw on a board.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Notes {
    pub marks: Vec<Cell>,
    pub arrows: Vec<(Cell, Cell)>,
}

impl Notes {
    /// A frame with these marks and arrows.
    pub fn frame(self, frame: Frame) -> Frame {
        frame.with_annotations(self.marks, self.arrows)
    }
}

/// One hill (Tara) or square (Ard Rí), or why it is not one.
fn cell(variant: Variant, text: &str) -> Result<Cell, String> {
    parse_cell(variant, text)
        .map(|(col, row)| Cell { col, row })
        .map_err(|e| said(&e))
}

/// A mark or arrow as typed, in a code span; escaped text instead when it holds a backtick,
/// which would end the span.
fn typed(word: &str) -> String {
    if word.contains('`') {
        escape_markdown(word)
    } else {
        format!("`{word}`")
    }
}

/// Reads `marks` (`"D4 E5"`) and `arrows` (`"G2-E3 C4-C6"`), separated by spaces or commas,
/// for a board of `variant`. A bad one is refused with a message that names it.
pub(crate) fn read_notes(
    variant: Variant,
    marks: Option<&str>,
    arrows: Option<&str>,
) -> Result<Notes, String> {
    let words = |s: Option<&str>| -> Vec<String> {
        s.unwrap_or("")
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let what = variant.cell_name();
    let mut notes = Notes::default();
    let marks = words(marks);
    let arrows = words(arrows);
    if marks.len() > MAX_NOTES || arrows.len() > MAX_NOTES {
        return Err(format!(
            "At most {MAX_NOTES} marks and {MAX_NOTES} arrows fit on one board."
        ));
    }
    for m in &marks {
        let c = cell(variant, m).map_err(|e| format!("Bad mark {}: {e}.", typed(m)))?;
        if !notes.marks.contains(&c) {
            notes.marks.push(c);
        }
    }
    for a in &arrows {
        let bad = |why: String| format!("Bad arrow {}: {why}.", typed(a));
        let (from, to) = a.split_once('-').ok_or_else(|| {
            bad(format!(
                "write an arrow as two {what}s joined by a dash, e.g. {}",
                variant.example_arrow()
            ))
        })?;
        let (from, to) = (
            cell(variant, from).map_err(bad)?,
            cell(variant, to).map_err(bad)?,
        );
        if from == to {
            return Err(bad(format!("it starts and ends on the same {what}")));
        }
        notes.arrows.push((from, to));
    }
    Ok(notes)
}

/// The game a pasted text stands for: a record (with a `variant:` field), or a bare move list
/// for `variant`. A record that does not read gets the engine's message.
pub(crate) fn read_pasted(text: &str, variant: Option<Variant>) -> Result<GameRecord, String> {
    let lines = record_lines(text);
    let has_header = lines
        .lines()
        .any(|l| l.trim().to_ascii_lowercase().starts_with("variant:"));
    let has_fields = lines.lines().any(|l| {
        let l = l.trim_start().to_ascii_lowercase();
        KEYS.iter().any(|k| l.starts_with(k))
    });
    let record_text = if has_header {
        lines
    } else if let (true, Some(v)) = (has_fields, variant) {
        // A record whose variant is given by the option.
        format!("variant: {}\n{lines}", v.id())
    } else {
        let v = variant.ok_or_else(|| {
            "That is a list of moves without a `variant:` field: choose the game with the \
             `variant` option, or paste a whole record (as `/record` or `/export` gives it)."
                .to_string()
        })?;
        // A move list may carry comments and move numbers, but no fields.
        let moves: Vec<&str> = lines
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .flat_map(|l| l.split_whitespace())
            .collect();
        format!("variant: {}\nmoves: {}", v.id(), moves.join(" "))
    };
    let record =
        GameRecord::parse(&record_text).map_err(|e| format!("That record does not read: {e}."))?;
    if let Some(v) = variant {
        if has_header && v != record.options.variant {
            return Err(format!(
                "The record is a game of {}, but `variant` says {}: leave out `variant`, or \
                 paste a record of {}.",
                record.options.variant.id(),
                v.id(),
                v.id()
            ));
        }
    }
    Ok(record)
}

/// The reply of `/position`.
fn position_out(
    options: GameOptions,
    pos: &Position,
    game: &GameRecord,
    upto: usize,
    notes: Notes,
) -> Out {
    let sides = options.variant.sides();
    let mut b = Builder::new().text(format!(
        "{} · a position for discussion (no game) · after {upto} of {}",
        options.variant.name(),
        describe::count(game.moves.len() as u64, "move")
    ));
    if let Some(last) = upto.checked_sub(1).map(|i| game.moves[i]) {
        b = b.text(" · last move ").verbatim(last.to_string());
    }
    match (pos.outcome(), pos.to_move()) {
        (Some(o), _) => b = b.text(format!("\nThe game is over: {}.", describe::result(pos, o))),
        (None, Some(side)) => b = b.text(format!("\n{} to move.", side.name())),
        (None, None) => {}
    }
    if let Some(c) = text::counts_line(pos) {
        b = b.text(format!("\n{c}"));
    }
    let reply = b.build();
    let names = [sides[0].name().to_string(), sides[1].name().to_string()];
    let last = upto.checked_sub(1).map(|i| game.moves[i]);
    Out {
        reply,
        board: Some(Board::new(
            pos.clone(),
            game.moves[..upto].to_vec(),
            notes.frame(Frame::new(names, last)),
            format!("position-ply-{upto}.png"),
        )),
    }
}

/// `/position`: the board after `ply` moves (all when not given) of a pasted record or
/// move list, with marks and arrows; no game is created.
pub(crate) fn position(
    _bot: &Bot,
    _ctx: &Ctx,
    record: String,
    variant: Option<Variant>,
    ply: Option<u32>,
    marks: Option<String>,
    arrows: Option<String>,
) -> Outcome<Vec<Out>> {
    let game = read_pasted(&record, variant).map_err(Fail::User)?;
    let total = game.moves.len();
    let upto = ply.map(|p| p as usize).unwrap_or(total);
    if upto > total {
        return Err(Fail::User(format!(
            "The record has only {}; choose a ply from 0 to {total}.",
            describe::count(total as u64, "move")
        )));
    }
    let notes = read_notes(game.options.variant, marks.as_deref(), arrows.as_deref())
        .map_err(Fail::User)?;
    let pos = game
        .position_at(upto)
        .map_err(|e| Fail::User(format!("That record does not read: {e}.")))?;
    Ok(vec![position_out(game.options, &pos, &game, upto, notes)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_and_arrows_are_read_for_the_board_they_go_on() {
        let n = read_notes(Variant::Hkot1, Some("D4, e5"), Some("G2-E3 c4-c6")).unwrap();
        assert_eq!(
            n.marks,
            vec![Cell { col: 3, row: 3 }, Cell { col: 4, row: 4 }]
        );
        assert_eq!(
            n.arrows[0],
            (Cell { col: 6, row: 1 }, Cell { col: 4, row: 2 })
        );
        let e = read_notes(Variant::Hkot1, Some("D4 A1"), None).unwrap_err();
        assert!(
            e.starts_with("Bad mark `A1`") && e.contains("corners"),
            "{e}"
        );
        assert!(read_notes(Variant::ArdRi, Some("a1 g7"), None).is_ok());
        let e = read_notes(Variant::ArdRi, Some("h3"), None).unwrap_err();
        assert!(e.starts_with("Bad mark `h3`"), "{e}");
        // Text typed by a user stays text: no link, no code span it can end.
        let e = read_notes(Variant::Hkot1, Some("[x](https://e.example)`"), None).unwrap_err();
        assert_eq!(
            e,
            "Bad mark \\[x\\]\\(https\\://e.example\\)\\`: '\\[X\\]\\(HTTPS\\://E.EXAMPLE\\)\\`' \
             is not a hill: columns run A to G and rows 1 to 7."
        );
        let e = read_notes(Variant::ArdRi, None, Some("d4")).unwrap_err();
        assert!(e.starts_with("Bad arrow `d4`") && e.contains("dash"), "{e}");
        let e = read_notes(Variant::ArdRi, None, Some("d4-z9")).unwrap_err();
        assert!(
            e.starts_with("Bad arrow `d4-z9`") && e.contains("'z9'"),
            "{e}"
        );
        let e = read_notes(Variant::ArdRi, None, Some("d4-d4")).unwrap_err();
        assert!(e.contains("same square"), "{e}");
    }

    #[test]
    fn records_are_read_whole_on_one_line_or_as_a_move_list() {
        let one_line = "```# game 3 · Red a vs Blue b variant: hkot-1 scoring: kingdoms \
                        first: red moves: D4 B2 F6```";
        let r = read_pasted(one_line, None).unwrap();
        assert_eq!((r.options.variant, r.moves.len()), (Variant::Hkot1, 3));
        let r = read_pasted("1. d2-c2 c3-b3", Some(Variant::ArdRi)).unwrap();
        assert_eq!(r.moves.len(), 2);
        let r = read_pasted("first: blue moves: D4", Some(Variant::Hkot2)).unwrap();
        assert_eq!((r.options.variant, r.moves.len()), (Variant::Hkot2, 1));
        assert!(read_pasted("D4 B2", None)
            .unwrap_err()
            .contains("`variant`"));
        let e = read_pasted("variant: hkot-1 moves: D4 D4", None).unwrap_err();
        assert!(e.contains("move 2 (D4)"), "{e}");
        let e = read_pasted("variant: hkot-1 moves: D4", Some(Variant::ArdRi)).unwrap_err();
        assert!(e.contains("game of hkot-1"), "{e}");
    }
}
