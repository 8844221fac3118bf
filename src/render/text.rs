//! A position drawn as text, for terminals.

use crate::game::ard_ri::Piece;
use crate::game::board::{Hill, Square};
use crate::game::{BoardView, Player, Position};

/// The board as lines of text, row 7 at the top. Tara cells: the ringfort (`r`, `b`, `.` vacant)
/// then the king on it (`R`, `B`); Ard Rí: `A` attacker, `D` defender, `K` king, `+` an empty
/// throne or corner, `.` empty.
pub fn board(pos: &Position) -> String {
    let mut out = String::new();
    let files = if pos.variant().is_tara() {
        "     A  B  C  D  E  F  G\n"
    } else {
        "     a  b  c  d  e  f  g\n"
    };
    out.push_str(files);
    let view = pos.board();
    for row in (0..7u8).rev() {
        out.push_str(&format!("  {} ", row + 1));
        for col in 0..7u8 {
            let cell = match view {
                BoardView::Hills(t) => match Hill::new(col, row) {
                    None => "   ".to_string(),
                    Some(h) => {
                        let fort = match t.owner(h) {
                            Some(Player::Red) => 'r',
                            Some(Player::Blue) => 'b',
                            None => '.',
                        };
                        let king = match t.king_at(h) {
                            Some(Player::Red) => 'R',
                            Some(Player::Blue) => 'B',
                            None => ' ',
                        };
                        format!(" {fort}{king}")
                    }
                },
                BoardView::Squares(a) => {
                    let s = Square::new(col, row).expect("on the board");
                    let special = (col == 3 && row == 3)
                        || ((col == 0 || col == 6) && (row == 0 || row == 6));
                    let c = match a.piece_at(s) {
                        Some(Piece::Attacker) => 'A',
                        Some(Piece::Defender) => 'D',
                        Some(Piece::King) => 'K',
                        None if special => '+',
                        None => '.',
                    };
                    format!(" {c} ")
                }
            };
            out.push_str(&cell);
        }
        out.push_str(&format!("  {}\n", row + 1));
    }
    out.push_str(files);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{GameOptions, Variant};

    #[test]
    fn tara_text_board_shows_forts_kings_and_missing_corners() {
        let mut p = Position::new(GameOptions::new(Variant::Hkot1));
        p.play_text("D4").unwrap();
        p.play_text("B2").unwrap();
        let t = board(&p);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 9);
        assert!(lines[4].contains(" rR"), "{t}");
        assert!(lines[6].contains(" bB"), "{t}");
        assert!(lines[7].starts_with("  1    "), "A1 is blank: {t}");
    }

    #[test]
    fn ard_ri_text_board_shows_pieces_and_refuges() {
        let p = Position::new(GameOptions::new(Variant::ArdRi));
        let t = board(&p);
        assert_eq!(t.matches('A').count(), 16);
        assert_eq!(t.matches('D').count(), 8);
        assert_eq!(t.matches('K').count(), 1);
        assert_eq!(t.matches('+').count(), 4, "four empty corners: {t}");
    }
}
