//! The public Ard Rí position notation, FEN-like (as OpenTafl's is):
//!
//! ```text
//! 2aaa2/3a3/a1ddd1a/aadkdaa/a1ddd1a/3a3/2aaa2 a 0 0
//! ```
//!
//! Four fields separated by spaces:
//! 1. the board, rows from 7 down to 1 separated by `/`, each row from file `a` to file `g`:
//!    `a` an attacker, `d` a defender, `k` the king, a digit `1`–`7` for that many empty
//!    squares (one digit per run; every row covers exactly seven squares);
//! 2. the side to move: `a` (attackers) or `d` (defenders);
//! 3. the plies played since the last capture, the counter of the 100-ply move limit (0–100);
//! 4. the ply number: plies played since the start of the game (at least the counter).
//!
//! The repetition history before the position is not part of it: a position read from the
//! notation counts as occurring for the first time. A captured king is written on the square
//! he was captured on.

use super::ard_ri::ArdRiPosition;
use super::ard_ri::{Piece, MOVE_LIMIT, RESTRICTED};
use super::board::{squares, Bits, Square};
use super::side::Team;
use std::fmt;
use std::str::FromStr;

/// Most attackers and defenders (without the king) a position can hold: the start's.
const MAX_ATTACKERS: u32 = 16;
const MAX_DEFENDERS: u32 = 8;

/// Why text is not an Ard Rí position in the public notation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArdRiNotationError {
    #[error("a position has four fields separated by spaces (board, side to move, plies since the last capture, ply number), but {found} were given")]
    FieldCount { found: usize },
    #[error("the board has seven rows separated by '/', from row 7 down to row 1, but {found} were given")]
    RowCount { found: usize },
    #[error("row {row} holds '{found}', which is neither a piece (a attacker, d defender, k king) nor a number of empty squares (1 to 7)")]
    BadCharacter { row: u8, found: char },
    #[error("row {row} has two numbers in a row ('{first}{second}'): write one digit for each run of empty squares")]
    TwoNumbers { row: u8, first: char, second: char },
    #[error("row {row} covers {squares} squares, but every row has exactly 7 (files a to g)")]
    RowLength { row: u8, squares: u32 },
    #[error("there are two kings, on {first} and {second}: Ard Rí has one")]
    TwoKings { first: Square, second: Square },
    #[error("the king is missing: write a k on his square (a captured king stays where he was captured)")]
    NoKing,
    #[error("there are {found} attackers, but Ard Rí has at most {MAX_ATTACKERS}")]
    TooManyAttackers { found: u32 },
    #[error(
        "there are {found} defenders besides the king, but Ard Rí has at most {MAX_DEFENDERS}"
    )]
    TooManyDefenders { found: u32 },
    #[error(
        "{square} holds {piece}, but only the king may stand on the throne d4 and the corners"
    )]
    RestrictedSquare { square: Square, piece: &'static str },
    #[error("'{found}' is not a side to move: write a (attackers) or d (defenders)")]
    BadSide { found: String },
    #[error("'{found}' is not a number of plies since the last capture: write a whole number from 0 to {MOVE_LIMIT}")]
    BadCounter { found: String },
    #[error("'{found}' is not a ply number: write a whole number (0 at the start of the game)")]
    BadPly { found: String },
    #[error("{plies_without_capture} plies since the last capture is more than the {ply} plies played in the game")]
    CounterAfterPly {
        plies_without_capture: u32,
        ply: u32,
    },
}

impl ArdRiPosition {
    /// Reads a position in the public notation (see the module documentation and docs/cli.md),
    /// e.g. the start: `2aaa2/3a3/a1ddd1a/aadkdaa/a1ddd1a/3a3/2aaa2 a 0 0`.
    pub fn from_notation(text: &str) -> Result<ArdRiPosition, ArdRiNotationError> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        let &[board, side, counter, ply] = fields.as_slice() else {
            return Err(ArdRiNotationError::FieldCount {
                found: fields.len(),
            });
        };
        let (attackers, defenders, king) = parse_board(board)?;
        let to_move = match side {
            "a" => Team::Attackers,
            "d" => Team::Defenders,
            _ => {
                return Err(ArdRiNotationError::BadSide {
                    found: side.to_string(),
                })
            }
        };
        let quiet = match counter.parse::<u32>() {
            Ok(n) if n <= MOVE_LIMIT && counter.bytes().all(|b| b.is_ascii_digit()) => n,
            _ => {
                return Err(ArdRiNotationError::BadCounter {
                    found: counter.to_string(),
                })
            }
        };
        let ply_number = match ply.parse::<u32>() {
            Ok(n) if ply.bytes().all(|b| b.is_ascii_digit()) => n,
            _ => {
                return Err(ArdRiNotationError::BadPly {
                    found: ply.to_string(),
                })
            }
        };
        if quiet > ply_number {
            return Err(ArdRiNotationError::CounterAfterPly {
                plies_without_capture: quiet,
                ply: ply_number,
            });
        }
        Ok(ArdRiPosition::from_setup(
            attackers, defenders, king, to_move, quiet, ply_number,
        ))
    }

    /// The position in the public notation; [`ArdRiPosition::from_notation`] reads it back.
    pub fn to_notation(&self) -> String {
        let mut s = String::with_capacity(40);
        for row in (0..7u8).rev() {
            let mut empty = 0u8;
            for col in 0..7u8 {
                let piece = Square::new(col, row).and_then(|sq| self.piece_at(sq));
                let Some(piece) = piece else {
                    empty += 1;
                    continue;
                };
                if empty > 0 {
                    s.push(char::from(b'0' + empty));
                    empty = 0;
                }
                s.push(match piece {
                    Piece::Attacker => 'a',
                    Piece::Defender => 'd',
                    Piece::King => 'k',
                });
            }
            if empty > 0 {
                s.push(char::from(b'0' + empty));
            }
            if row > 0 {
                s.push('/');
            }
        }
        let side = match self.to_move() {
            Team::Attackers => 'a',
            Team::Defenders => 'd',
        };
        use fmt::Write as _;
        let _ = write!(s, " {side} {} {}", self.plies_without_capture(), self.ply());
        s
    }
}

impl FromStr for ArdRiPosition {
    type Err = ArdRiNotationError;
    fn from_str(s: &str) -> Result<ArdRiPosition, ArdRiNotationError> {
        ArdRiPosition::from_notation(s)
    }
}

/// The attackers, the defenders without the king, and the king's square of a board field.
fn parse_board(board: &str) -> Result<(Bits, Bits, u8), ArdRiNotationError> {
    let rows: Vec<&str> = board.split('/').collect();
    if rows.len() != 7 {
        return Err(ArdRiNotationError::RowCount { found: rows.len() });
    }
    let (mut attackers, mut defenders): (Bits, Bits) = (0, 0);
    let mut king: Option<Square> = None;
    for (i, text) in rows.iter().enumerate() {
        let row = 6 - i as u8;
        let rank = row + 1;
        let mut col: u32 = 0;
        let mut previous: Option<char> = None;
        for c in text.chars() {
            match c {
                '1'..='7' => {
                    if let Some(p) = previous.filter(char::is_ascii_digit) {
                        return Err(ArdRiNotationError::TwoNumbers {
                            row: rank,
                            first: p,
                            second: c,
                        });
                    }
                    col += c.to_digit(10).unwrap_or(0);
                }
                'a' | 'd' | 'k' => {
                    let square = u8::try_from(col).ok().and_then(|col| Square::new(col, row));
                    if let Some(square) = square {
                        match c {
                            'a' => attackers |= square.bit(),
                            'd' => defenders |= square.bit(),
                            _ => {
                                if let Some(first) = king {
                                    return Err(ArdRiNotationError::TwoKings {
                                        first,
                                        second: square,
                                    });
                                }
                                king = Some(square);
                            }
                        }
                    }
                    col += 1;
                }
                _ => {
                    return Err(ArdRiNotationError::BadCharacter {
                        row: rank,
                        found: c,
                    })
                }
            }
            previous = Some(c);
        }
        if col != 7 {
            return Err(ArdRiNotationError::RowLength {
                row: rank,
                squares: col,
            });
        }
    }
    let Some(king) = king else {
        return Err(ArdRiNotationError::NoKing);
    };
    if attackers.count_ones() > MAX_ATTACKERS {
        return Err(ArdRiNotationError::TooManyAttackers {
            found: attackers.count_ones(),
        });
    }
    if defenders.count_ones() > MAX_DEFENDERS {
        return Err(ArdRiNotationError::TooManyDefenders {
            found: defenders.count_ones(),
        });
    }
    for (set, piece) in [(attackers, "an attacker"), (defenders, "a defender")] {
        if let Some(square) = squares(set & RESTRICTED)
            .next()
            .and_then(Square::from_index)
        {
            return Err(ArdRiNotationError::RestrictedSquare { square, piece });
        }
    }
    Ok((attackers, defenders, king.index()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::moves::{Move, MoveList};
    use crate::game::outcome::EndReason;
    use crate::game::playout::Rng;
    use crate::game::position::GamePosition;

    const START: &str = "2aaa2/3a3/a1ddd1a/aadkdaa/a1ddd1a/3a3/2aaa2 a 0 0";

    fn err(text: &str) -> ArdRiNotationError {
        match ArdRiPosition::from_notation(text) {
            Ok(p) => panic!("{text} was read as {p:?}"),
            Err(e) => e,
        }
    }

    fn sq(name: &str) -> Square {
        let b = name.as_bytes();
        Square::new(b[0] - b'a', b[1] - b'1').unwrap()
    }

    #[test]
    fn the_start_position_reads_and_writes() {
        let start = ArdRiPosition::new();
        assert_eq!(start.to_notation(), START);
        let read = ArdRiPosition::from_notation(START).unwrap();
        assert_eq!(read.hash(), start.hash());
        assert_eq!(read.to_notation(), START);
        assert_eq!(
            read.legal_moves().as_slice(),
            start.legal_moves().as_slice()
        );
        assert_eq!(START.parse::<ArdRiPosition>().unwrap().to_notation(), START);
    }

    #[test]
    fn counters_side_and_spacing_are_read() {
        let p = ArdRiPosition::from_notation("  7/7/7/3k3/7/2a4/7   d 17\t40 ").unwrap();
        assert_eq!(p.to_move(), Team::Defenders);
        assert_eq!(p.plies_without_capture(), 17);
        assert_eq!(p.ply(), 40);
        assert_eq!(p.king(), sq("d4"));
        assert_eq!(p.attackers(), sq("c2").bit());
        assert_eq!(p.to_notation(), "7/7/7/3k3/7/2a4/7 d 17 40");
    }

    /// Every error names what is wrong and where.
    #[test]
    fn errors_are_specific() {
        use ArdRiNotationError as E;
        assert_eq!(err(""), E::FieldCount { found: 0 });
        assert_eq!(err("7/7/7/3k3/7/7/7 a 0"), E::FieldCount { found: 3 });
        assert_eq!(err("7/7/7/3k3/7/7 a 0 0"), E::RowCount { found: 6 });
        assert_eq!(err("7/7/7/3k3/7/7/7/7 a 0 0"), E::RowCount { found: 8 });
        assert_eq!(
            err("7/7/7/3K3/7/7/7 a 0 0"),
            E::BadCharacter { row: 4, found: 'K' }
        );
        assert_eq!(
            err("7/7/7/3k3/7/7/8 a 0 0"),
            E::BadCharacter { row: 1, found: '8' }
        );
        assert_eq!(
            err("7/7/7/3k3/7/7/0a6 a 0 0"),
            E::BadCharacter { row: 1, found: '0' }
        );
        assert_eq!(
            err("7/7/7/3k3/7/7/34 a 0 0"),
            E::TwoNumbers {
                row: 1,
                first: '3',
                second: '4'
            }
        );
        assert_eq!(
            err("7/6/7/3k3/7/7/7 a 0 0"),
            E::RowLength { row: 6, squares: 6 }
        );
        assert_eq!(
            err("7/7/7/3k4/7/7/7 a 0 0"),
            E::RowLength { row: 4, squares: 8 }
        );
        assert_eq!(
            err("7/7/7/3k3/7/7/aaaaaaaa a 0 0"),
            E::RowLength { row: 1, squares: 8 }
        );
        assert_eq!(
            err("7/7/k6/3k3/7/7/7 a 0 0"),
            E::TwoKings {
                first: sq("a5"),
                second: sq("d4")
            }
        );
        assert_eq!(err("7/7/7/7/7/7/7 a 0 0"), E::NoKing);
        assert_eq!(
            err("1aaaaa1/1aaaaa1/1aaaaa1/ak5/a6/7/7 a 0 0"),
            E::TooManyAttackers { found: 16 + 1 }
        );
        assert_eq!(
            err("1ddddd1/1dddd2/7/k6/7/7/7 a 0 0"),
            E::TooManyDefenders { found: 9 }
        );
        assert_eq!(
            err("7/7/7/3a3/7/7/k6 a 0 0"),
            E::RestrictedSquare {
                square: sq("d4"),
                piece: "an attacker"
            }
        );
        assert_eq!(
            err("6d/7/7/3k3/7/7/7 a 0 0"),
            E::RestrictedSquare {
                square: sq("g7"),
                piece: "a defender"
            }
        );
        assert_eq!(
            err("7/7/7/3k3/7/7/7 x 0 0"),
            E::BadSide { found: "x".into() }
        );
        assert_eq!(
            err("7/7/7/3k3/7/7/7 a 101 200"),
            E::BadCounter {
                found: "101".into()
            }
        );
        assert_eq!(
            err("7/7/7/3k3/7/7/7 a -1 0"),
            E::BadCounter { found: "-1".into() }
        );
        assert_eq!(
            err("7/7/7/3k3/7/7/7 a +1 3"),
            E::BadCounter { found: "+1".into() }
        );
        assert_eq!(
            err("7/7/7/3k3/7/7/7 a 0 x"),
            E::BadPly { found: "x".into() }
        );
        assert_eq!(
            err("7/7/7/3k3/7/7/7 a 5 3"),
            E::CounterAfterPly {
                plies_without_capture: 5,
                ply: 3
            }
        );
        // The messages are sentences naming the problem.
        assert_eq!(
            E::RowLength { row: 6, squares: 6 }.to_string(),
            "row 6 covers 6 squares, but every row has exactly 7 (files a to g)"
        );
    }

    #[test]
    fn finished_positions_are_recognised() {
        let escaped = ArdRiPosition::from_notation("k6/7/7/7/7/7/7 a 3 9").unwrap();
        assert_eq!(escaped.outcome().unwrap().reason, EndReason::KingEscaped);
        let captured = ArdRiPosition::from_notation("7/2a4/1aka3/2a4/7/7/7 d 0 20").unwrap();
        assert_eq!(captured.outcome().unwrap().reason, EndReason::KingCaptured);
        let limit = ArdRiPosition::from_notation("7/7/7/3k3/7/2a4/7 a 100 150").unwrap();
        assert_eq!(limit.outcome().unwrap().reason, EndReason::MoveLimit);
        let blocked = ArdRiPosition::from_notation("7/7/7/3k3/7/1d5/1ad4 a 0 0").unwrap();
        assert_eq!(blocked.outcome().unwrap().reason, EndReason::NoMoves);
        let on = ArdRiPosition::from_notation("7/7/7/3k3/7/2a4/7 a 99 150").unwrap();
        assert!(on.outcome().is_none());
    }

    /// Every position of random games writes and reads back to the same position: notation,
    /// hash, counters, outcome and legal moves (the history aside: a read position has none).
    #[test]
    fn every_position_of_random_games_round_trips() {
        let mut rng = Rng::new(0xa4d_2026);
        let mut positions = 0;
        let mut endings = Vec::new();
        for _ in 0..60 {
            let mut pos = ArdRiPosition::new();
            let mut list = MoveList::new();
            loop {
                let text = pos.to_notation();
                let read =
                    ArdRiPosition::from_notation(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
                assert_eq!(read.to_notation(), text);
                assert_eq!(read.hash(), pos.hash(), "{text}");
                assert_eq!(read.plies_without_capture(), pos.plies_without_capture());
                assert_eq!(read.ply(), pos.ply());
                positions += 1;
                // A third repetition depends on the history, which the notation leaves out.
                let repetition_free = pos.legal_moves().len() == read.legal_moves().len();
                if repetition_free {
                    assert_eq!(read.outcome(), pos.outcome(), "{text}");
                    assert_eq!(read.legal_moves().as_slice(), pos.legal_moves().as_slice());
                }
                if let Some(o) = pos.outcome() {
                    endings.push(o.reason);
                    break;
                }
                list.clear();
                pos.legal_moves_into(&mut list);
                let m: Move = list[rng.below(list.len())];
                pos.play_unchecked(m);
            }
        }
        assert!(positions > 1000);
        assert!(endings.contains(&EndReason::MoveLimit) || endings.len() == 60);
    }
}
