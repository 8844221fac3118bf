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

    /// Reads a record and checks every move by replaying it.
    pub fn parse(text: &str) -> Result<GameRecord, RecordError> {
        let mut variant = None;
        let mut scoring = None;
        let mut first = None;
        let mut move_texts: Vec<(usize, String)> = Vec::new();
        // A byte-order mark (Windows editors save one) is not part of the first field's name.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
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
            match key.trim().to_ascii_lowercase().as_str() {
                "variant" => variant = Some(value.parse::<Variant>()?),
                "scoring" => scoring = Some(value.parse::<Scoring>().map_err(bad)?),
                "first" => first = Some(parse_side(value).map_err(bad)?),
                "moves" => move_texts.extend(
                    super::notation::split_moves(value)
                        .filter(|t| !is_move_number(t))
                        .map(|t| (i + 1, t.to_string())),
                ),
                other => return Err(bad(format!("unknown field '{other}'"))),
            }
        }
        let variant = variant.ok_or(RecordError::MissingVariant)?;
        let options = GameOptions::with(variant, scoring, first)?;
        let mut pos = Position::new(options);
        let mut moves = Vec::with_capacity(move_texts.len());
        for (n, (_, text)) in move_texts.iter().enumerate() {
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

fn is_move_number(t: &str) -> bool {
    t.ends_with('.') && t[..t.len() - 1].chars().all(|c| c.is_ascii_digit())
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
}
