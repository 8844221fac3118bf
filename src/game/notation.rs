//! Reading and writing moves (docs/rules.md §2.1 and §8) and whole game records.

use super::board::{Hill, Square};
use super::error::ParseMoveError;
use super::moves::Move;
use super::side::Side;
use super::variant::Variant;

/// The moves of a move list, which separates them by white space or commas (`D4, B2 F6`) and
/// may number them (`1. D4 B2 2. F6`: the numbers are skipped).
pub fn split_moves(moves: &str) -> impl Iterator<Item = &str> {
    moves
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty() && !is_move_number(t))
}

/// A move number of a move list: digits and a full stop (`1.`, `12.`).
fn is_move_number(t: &str) -> bool {
    t.strip_suffix('.')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// What a move of a variant looks like, for messages.
pub fn expected(variant: Variant) -> &'static str {
    match variant {
        Variant::Hkot1 | Variant::Hkot2 => {
            "a hill like D4, a king move like G2-E3 (C5-B3* to sacrifice), or pass"
        }
        Variant::SacredHill1 | Variant::SacredHill2 => "a hill like D4",
        Variant::ArdRi => "a step like d2-d3",
    }
}

/// Longest text looked at as a move.
const MAX_MOVE_TEXT: usize = 24;

/// Parses move text in a variant's notation. Case-insensitive; spaces and the dash between
/// two hills may be left out (`g2e3`, `G2 E3`, `g2–e3`).
pub fn parse_move(variant: Variant, text: &str) -> Result<Move, ParseMoveError> {
    let exp = expected(variant);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(ParseMoveError::Empty { expected: exp });
    }
    if trimmed.chars().count() > MAX_MOVE_TEXT {
        let short: String = trimmed.chars().take(MAX_MOVE_TEXT).collect();
        return Err(ParseMoveError::TooLong {
            text: format!("{short}…"),
        });
    }
    let unreadable = || ParseMoveError::Unreadable {
        text: trimmed.to_string(),
        expected: exp,
    };
    let mut compact: String = trimmed
        .chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '-' | '–' | '—' | '‐'))
        .collect::<String>()
        .to_ascii_lowercase();
    if compact == "pass" {
        return if variant.is_tara() {
            Ok(Move::Pass)
        } else {
            Err(unreadable())
        };
    }
    let sacrifice = variant.is_tara() && compact.ends_with('*');
    if sacrifice {
        compact.pop();
    }
    if !compact.is_ascii() {
        return Err(unreadable());
    }
    let cells: Vec<&str> = match compact.len() {
        2 => vec![&compact[..2]],
        4 => vec![&compact[..2], &compact[2..]],
        _ => return Err(unreadable()),
    };
    if variant.is_tara() {
        let hills = cells
            .iter()
            .map(|c| parse_hill(c))
            .collect::<Result<Vec<_>, _>>()?;
        match hills[..] {
            [hill] if !sacrifice => Ok(Move::Build { hill }),
            [from, to] => Ok(Move::King {
                from,
                to,
                sacrifice,
            }),
            _ => Err(unreadable()),
        }
    } else {
        let squares = cells
            .iter()
            .map(|c| parse_square(c))
            .collect::<Result<Vec<_>, _>>()?;
        match squares[..] {
            [from, to] => Ok(Move::Step { from, to }),
            _ => Err(unreadable()),
        }
    }
}

fn coords(text: &str) -> Option<(u8, u8)> {
    let b = text.as_bytes();
    if b.len() != 2 {
        return None;
    }
    let col = b[0].to_ascii_lowercase().wrapping_sub(b'a');
    let row = b[1].wrapping_sub(b'1');
    (col < 7 && row < 7).then_some((col, row))
}

/// Parses a hill (`D4`, `d4`).
pub fn parse_hill(text: &str) -> Result<Hill, ParseMoveError> {
    let t = text.trim();
    let (col, row) = coords(t).ok_or_else(|| ParseMoveError::NotAHill {
        text: t.to_uppercase(),
    })?;
    Hill::new(col, row).ok_or_else(|| ParseMoveError::MissingCorner {
        text: t.to_uppercase(),
    })
}

/// Parses an Ard Rí square (`d4`, `D4`).
pub fn parse_square(text: &str) -> Result<Square, ParseMoveError> {
    let t = text.trim();
    let (col, row) = coords(t).ok_or_else(|| ParseMoveError::NotASquare {
        text: t.to_lowercase(),
    })?;
    Square::new(col, row).ok_or_else(|| ParseMoveError::NotASquare {
        text: t.to_lowercase(),
    })
}

/// Parses a place on the board of `variant` (a hill of Tara, a square of Ard Rí) as its
/// column and row from 0.
pub fn parse_cell(variant: Variant, text: &str) -> Result<(u8, u8), ParseMoveError> {
    if variant.is_tara() {
        parse_hill(text).map(|h| (h.col(), h.row()))
    } else {
        parse_square(text).map(|s| (s.col(), s.row()))
    }
}

/// Parses `red`, `blue`, `attackers` or `defenders`.
pub fn parse_side(text: &str) -> Result<Side, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "red" => Ok(Side::Red),
        "blue" => Ok(Side::Blue),
        "attackers" | "attacker" => Ok(Side::Attackers),
        "defenders" | "defender" => Ok(Side::Defenders),
        _ => Err(format!(
            "'{text}' is not a side: write red or blue (Ard Rí: attackers)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hill(s: &str) -> Hill {
        parse_hill(s).unwrap()
    }

    #[test]
    fn tara_moves_parse_in_every_accepted_spelling() {
        let v = Variant::Hkot2;
        let king = Move::King {
            from: hill("G2"),
            to: hill("E3"),
            sacrifice: false,
        };
        for t in ["G2-E3", "g2e3", "G2 E3", " g2 - e3 ", "g2–e3"] {
            assert_eq!(parse_move(v, t), Ok(king), "{t}");
        }
        assert_eq!(
            parse_move(v, "c5-b3*"),
            Ok(Move::King {
                from: hill("C5"),
                to: hill("B3"),
                sacrifice: true
            })
        );
        assert_eq!(parse_move(v, "d4"), Ok(Move::Build { hill: hill("D4") }));
        assert_eq!(parse_move(v, " PASS "), Ok(Move::Pass));
        assert_eq!(king.to_string(), "G2-E3");
    }

    #[test]
    fn bad_tara_text_says_what_is_wrong() {
        let v = Variant::Hkot1;
        assert!(matches!(
            parse_move(v, "H4"),
            Err(ParseMoveError::NotAHill { .. })
        ));
        assert!(matches!(
            parse_move(v, "a1"),
            Err(ParseMoveError::MissingCorner { .. })
        ));
        assert!(matches!(
            parse_move(v, ""),
            Err(ParseMoveError::Empty { .. })
        ));
        assert!(matches!(
            parse_move(v, "xyz"),
            Err(ParseMoveError::Unreadable { .. })
        ));
        assert!(matches!(
            parse_move(v, "d4*"),
            Err(ParseMoveError::Unreadable { .. })
        ));
        assert!(matches!(
            parse_move(v, "ⅮⅣ"),
            Err(ParseMoveError::Unreadable { .. })
        ));
        let long = "d".repeat(10_000);
        assert!(matches!(
            parse_move(v, &long),
            Err(ParseMoveError::TooLong { .. })
        ));
        assert_eq!(
            parse_move(v, "A1").unwrap_err().to_string(),
            "A1 is not a hill: the corners A1, G1, A7 and G7 are not part of the board"
        );
    }

    #[test]
    fn ard_ri_moves_parse_and_print_lower_case() {
        let m = parse_move(Variant::ArdRi, "D2D3").unwrap();
        assert_eq!(m.to_string(), "d2-d3");
        assert_eq!(parse_move(Variant::ArdRi, "d2 - d3"), Ok(m));
        assert!(matches!(
            parse_move(Variant::ArdRi, "h2-h3"),
            Err(ParseMoveError::NotASquare { .. })
        ));
        assert!(matches!(
            parse_move(Variant::ArdRi, "d2"),
            Err(ParseMoveError::Unreadable { .. })
        ));
        assert!(matches!(
            parse_move(Variant::ArdRi, "pass"),
            Err(ParseMoveError::Unreadable { .. })
        ));
    }
}
