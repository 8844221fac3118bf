//! Game records: the variant, its options, who moved first, and the moves, as text that reads
//! back exactly.

use super::error::PlayError;
use super::moves::Move;
use super::notation::parse_side;
use super::variant::{GameOptions, OptionsError, Scoring, UnknownVariant, Variant};
use super::variant_position::Position;
use std::fmt;

/// A game record: the variant, its options, who moved first, and the moves.
///
/// As text (what `record` prints and what can be imported):
///
/// ```text
/// variant: hkot-1
/// scoring: kingdoms
/// first: red
/// moves: D4 B2 F6 …
/// ```
/// Lines starting with `#` are comments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    pub options: GameOptions,
    pub moves: Vec<Move>,
}

/// Why a game record could not be read or replayed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("the record has no 'variant:' line")]
    MissingVariant,
    #[error(transparent)]
    Variant(#[from] UnknownVariant),
    #[error(transparent)]
    Options(#[from] OptionsError),
    #[error("line {line}: {message}")]
    Line { line: usize, message: String },
    #[error("move {number} ({text}): {error}")]
    Move {
        number: usize,
        text: String,
        error: PlayError,
    },
}

impl GameRecord {
    pub fn new(options: GameOptions) -> GameRecord {
        GameRecord {
            options,
            moves: Vec::new(),
        }
    }

    /// Reads a record and checks every move by replaying it. The record may be given as
    /// `/record` shows it, in a code fence, or pasted on one line ([`record_lines`]). A field
    /// other than `moves:` given twice is refused, naming the line.
    pub fn parse(text: &str) -> Result<GameRecord, RecordError> {
        let mut variant = None;
        let mut scoring = None;
        let mut first = None;
        // The line each field was read from.
        let mut seen: Vec<(&'static str, usize)> = Vec::new();
        let mut move_texts: Vec<String> = Vec::new();
        let text = record_lines(text);
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |message: String| RecordError::Line {
                line: i + 1,
                message,
            };
            let (key, value) = line
                .split_once(':')
                .ok_or_else(|| bad(format!("expected 'key: value', found '{line}'")))?;
            let value = value.trim();
            let key = key.trim().to_ascii_lowercase();
            let field = match key.as_str() {
                "variant" => "variant",
                "scoring" => "scoring",
                "first" => "first",
                "moves" => "moves",
                other => return Err(bad(format!("unknown field '{other}'"))),
            };
            if let Some((_, earlier)) = seen.iter().find(|(f, _)| *f == field && *f != "moves") {
                return Err(bad(format!(
                    "a second '{field}:' line (line {earlier} has one already); a record is one game"
                )));
            }
            seen.push((field, i + 1));
            match field {
                "variant" => variant = Some(value.parse::<Variant>()?),
                "scoring" => scoring = Some(value.parse::<Scoring>().map_err(bad)?),
                "first" => first = Some(parse_side(value).map_err(bad)?),
                _ => move_texts.extend(super::notation::split_moves(value).map(String::from)),
            }
        }
        let variant = variant.ok_or(RecordError::MissingVariant)?;
        let options = GameOptions::with(variant, scoring, first)?;
        let mut pos = Position::new(options);
        let mut moves = Vec::with_capacity(move_texts.len());
        for (n, text) in move_texts.iter().enumerate() {
            let m = pos.play_text(text).map_err(|error| RecordError::Move {
                number: n + 1,
                text: text.clone(),
                error,
            })?;
            moves.push(m);
        }
        Ok(GameRecord { options, moves })
    }

    /// The position after the first `ply` moves (all of them when `ply` is larger).
    pub fn position_at(&self, ply: usize) -> Result<Position, RecordError> {
        let mut pos = Position::new(self.options);
        for (n, m) in self.moves.iter().take(ply).enumerate() {
            pos.play(*m).map_err(|e| RecordError::Move {
                number: n + 1,
                text: m.to_string(),
                error: e.into(),
            })?;
        }
        Ok(pos)
    }

    /// The position after all moves.
    pub fn position(&self) -> Result<Position, RecordError> {
        self.position_at(self.moves.len())
    }
}

/// The keys of a record's fields, which a record pasted on one line (a slash command's text
/// option has no line breaks) is split at.
pub const KEYS: [&str; 4] = ["variant:", "scoring:", "first:", "moves:"];

/// A record's text as the record format reads it: a byte-order mark dropped, code fences
/// (```` ``` ````, an opening one with or without a language name such as ```` ```text ````)
/// taken away, and a record given on one line broken before each field. What `/record` shows,
/// what `/export` attaches and a record pasted into `/position` all read the same way.
pub fn record_lines(text: &str) -> String {
    // A byte-order mark (Windows editors save one) is not part of the first field's name.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut unfenced = String::with_capacity(text.len() + 8);
    let mut rest = text;
    let mut open = false;
    while let Some(at) = rest.find("```") {
        unfenced.push_str(&rest[..at]);
        unfenced.push('\n');
        rest = &rest[at + 3..];
        open = !open;
        if open {
            // An opening fence's language name: one word alone on the fence's line.
            let end = rest.find('\n').unwrap_or(rest.len());
            let word = rest[..end].trim_end();
            if !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+'))
            {
                rest = &rest[end..];
            }
        }
    }
    unfenced.push_str(rest);
    let one_line = unfenced.lines().filter(|l| !l.trim().is_empty()).count() == 1;
    if !one_line {
        return unfenced;
    }
    let mut out = String::with_capacity(unfenced.len() + 8);
    let lower = unfenced.to_ascii_lowercase();
    for (i, ch) in unfenced.char_indices() {
        let at_word = i == 0 || !unfenced.as_bytes()[i - 1].is_ascii_alphanumeric();
        let line_start = out.is_empty() || out.ends_with('\n');
        if at_word && !line_start && KEYS.iter().any(|k| lower[i..].starts_with(k)) {
            out.push('\n');
        }
        out.push(ch);
    }
    out
}

impl fmt::Display for GameRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "variant: {}", self.options.variant)?;
        if self.options.variant.is_tara() {
            writeln!(f, "scoring: {}", self.options.scoring)?;
        }
        writeln!(f, "first: {}", self.options.first.id())?;
        let moves: Vec<String> = self.moves.iter().map(|m| m.to_string()).collect();
        writeln!(f, "moves: {}", moves.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record's `moves:` line is a move list: commas separate moves as spaces do, and move
    /// numbers are skipped.
    #[test]
    fn moves_lines_take_commas_and_move_numbers() {
        let spaced = GameRecord::parse("variant: hkot-1\nmoves: D4 B2 F6\n").unwrap();
        for text in [
            "variant: hkot-1\nmoves: D4, B2, F6\n",
            "variant: hkot-1\nmoves: D4,B2,F6\n",
            "variant: hkot-1\nmoves: 1. D4 , B2 2. F6\n",
        ] {
            let r = GameRecord::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(r.moves, spaced.moves, "{text}");
        }
        let marked = GameRecord::parse("\u{feff}variant: hkot-1\r\nmoves: D4 B2 F6\r\n").unwrap();
        assert_eq!(
            marked.moves, spaced.moves,
            "a byte-order mark and CRLF lines"
        );
        let bad = GameRecord::parse("variant: hkot-1\nmoves: D4, Z9\n").unwrap_err();
        assert!(bad.to_string().starts_with("move 2 (Z9)"), "{bad}");
    }

    /// A record reads the same in a code fence (as `/record` shows it, with or without a
    /// language name), on one line, or bare.
    #[test]
    fn records_read_the_same_fenced_on_one_line_or_bare() {
        let bare = GameRecord::parse("# game 3\nvariant: hkot-1\nmoves: D4 B2 F6\n").unwrap();
        for text in [
            "```\n# game 3\nvariant: hkot-1\nmoves: D4 B2 F6\n```\n",
            "```text\n# game 3\nvariant: hkot-1\nmoves: D4 B2 F6\n```",
            "```# game 3 variant: hkot-1 moves: D4 B2 F6```",
            "variant: hkot-1 moves: 1. D4 B2 2. F6",
        ] {
            let r = GameRecord::parse(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
            assert_eq!(r, bare, "{text:?}");
        }
        // Several lines: a field named inside a comment stays in the comment.
        let r = GameRecord::parse("# first: blue variant: ard-ri\nvariant: hkot-1\n").unwrap();
        assert_eq!(r.options.variant, Variant::Hkot1);
    }

    /// A field given twice is refused, naming both lines; `moves:` lines add up.
    #[test]
    fn a_field_given_twice_is_refused_with_its_lines() {
        let e = GameRecord::parse("variant: hkot-1\nmoves: D4\nvariant: ard-ri\nmoves: d2-c2\n")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 3: a second 'variant:' line (line 1 has one already); a record is one game"
        );
        let e = GameRecord::parse("variant: hkot-1\nfirst: red\n# x\nfirst: blue\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 4: a second 'first:' line (line 2 has one already); a record is one game"
        );
        let e = GameRecord::parse("variant: hkot-1 scoring: knots scoring: kingdoms").unwrap_err();
        assert!(e.to_string().contains("a second 'scoring:' line"), "{e}");
        let r = GameRecord::parse("variant: hkot-1\nmoves: D4 B2\nmoves: F6\n").unwrap();
        assert_eq!(r.moves.len(), 3);
    }
}
