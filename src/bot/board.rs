//! The board a message shows, and its stored form.
//!
//! A message that shows a board ([`Board`]) owes no image bytes: it is stored with what to draw
//! ([`BoardSpec`]: the game's options, the moves from the start, the names, the highlighted last
//! move, a result, marks and arrows, the file name). The picture is drawn after the change that
//! owes it commits, outside the store's lock, from the position in memory
//! ([`crate::bot::Reply`]'s `draw`); a message read back from the outbox (after a restart) is
//! drawn from its spec, which rebuilds the same position and frame, so the bytes are the same.
//! A message without a picture (images off) stores only its text board, as before.

use crate::game::{
    notation, BySide, EndReason, GameOptions, Move, Outcome, Points, Position, Scoring, Side,
    Variant,
};
use crate::render::{self, Cell, Frame};

/// A board an outgoing message shows: the position and the moves from the start that reach it,
/// what is drawn besides it, and the picture's file name.
pub(crate) struct Board {
    pub pos: Position,
    pub moves: Vec<Move>,
    pub frame: Frame,
    pub filename: String,
}

impl Board {
    /// The board of `pos`, reached by `moves` from the start of its game.
    pub fn new(pos: Position, moves: Vec<Move>, frame: Frame, filename: String) -> Board {
        Board {
            pos,
            moves,
            frame,
            filename,
        }
    }

    /// What to store to draw this board's picture again.
    pub fn spec(&self) -> BoardSpec {
        let options = self.pos.options();
        let last = self.frame.last_move;
        debug_assert!(last.is_none() || last == self.moves.last().copied());
        BoardSpec {
            variant: options.variant.id().to_string(),
            scoring: options.scoring.id().to_string(),
            first: options.first.id().to_string(),
            moves: self.moves.iter().map(Move::to_string).collect(),
            names: self.frame.names.clone(),
            last_move: last.is_some(),
            result: self.frame.result.as_ref().map(ResultSpec::of),
            marks: self.frame.marks.iter().map(|c| [c.col, c.row]).collect(),
            arrows: self
                .frame
                .arrows
                .iter()
                .map(|(a, b)| [[a.col, a.row], [b.col, b.row]])
                .collect(),
            filename: self.filename.clone(),
        }
    }

    /// The board as text.
    pub fn text(&self) -> String {
        render::text::board(&self.pos)
    }

    /// The board's picture (PNG).
    pub fn png(&self) -> Vec<u8> {
        render::board_png(&self.pos, &self.frame)
    }
}

/// The stored form of a [`Board`]: plain values, as the outbox keeps them.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BoardSpec {
    variant: String,
    scoring: String,
    first: String,
    /// The moves from the start, as written.
    moves: Vec<String>,
    names: [String; 2],
    /// Whether the last of `moves` is highlighted.
    last_move: bool,
    result: Option<ResultSpec>,
    marks: Vec<[u8; 2]>,
    arrows: Vec<[[u8; 2]; 2]>,
    filename: String,
}

/// The stored form of a result drawn on a board (a resignation, a timeout).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct ResultSpec {
    winner: Option<String>,
    reason: String,
    points: [u32; 2],
}

impl ResultSpec {
    fn of(o: &Outcome) -> ResultSpec {
        ResultSpec {
            winner: o.winner.map(|s| s.id().to_string()),
            reason: o.reason.id().to_string(),
            points: [o.points.first().0, o.points.second().0],
        }
    }

    fn outcome(&self) -> Result<Outcome, String> {
        let winner = match &self.winner {
            Some(w) => Some(Side::from_id(w).ok_or_else(|| format!("no side '{w}'"))?),
            None => None,
        };
        Ok(Outcome {
            winner,
            reason: EndReason::from_id(&self.reason)
                .ok_or_else(|| format!("no end reason '{}'", self.reason))?,
            points: BySide::new(Points(self.points[0]), Points(self.points[1])),
        })
    }
}

impl BoardSpec {
    /// The board again: its position rebuilt by replaying the moves.
    pub(crate) fn board(&self) -> Result<Board, String> {
        let variant: Variant = self
            .variant
            .parse()
            .map_err(|_| format!("no variant '{}'", self.variant))?;
        let scoring: Scoring = self
            .scoring
            .parse()
            .map_err(|_| format!("no scoring '{}'", self.scoring))?;
        let first =
            Side::from_id(&self.first).ok_or_else(|| format!("no side '{}'", self.first))?;
        let options =
            GameOptions::with(variant, Some(scoring), Some(first)).map_err(|e| format!("{e}"))?;
        let mut pos = Position::new(options);
        let mut moves = Vec::with_capacity(self.moves.len());
        for text in &self.moves {
            let m = notation::parse_move(variant, text).map_err(|e| format!("{text}: {e}"))?;
            pos.play(m).map_err(|e| format!("{text}: {e}"))?;
            moves.push(m);
        }
        let cell = |[col, row]: [u8; 2]| Cell { col, row };
        let mut frame = Frame::new(
            self.names.clone(),
            moves.last().copied().filter(|_| self.last_move),
        )
        .with_annotations(
            self.marks.iter().copied().map(cell).collect(),
            self.arrows
                .iter()
                .map(|&[a, b]| (cell(a), cell(b)))
                .collect(),
        );
        if let Some(r) = &self.result {
            frame = frame.with_result(r.outcome()?);
        }
        Ok(Board::new(pos, moves, frame, self.filename.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::forfeit;

    #[test]
    fn a_board_drawn_again_from_its_spec_is_the_same_picture() {
        let options = GameOptions::new(Variant::ArdRi);
        let mut pos = Position::new(options);
        let mut moves = Vec::new();
        for _ in 0..6 {
            let m = pos.legal_moves()[0];
            pos.play(m).unwrap();
            moves.push(m);
        }
        let frame = Frame::new(
            ["Aoife".to_string(), "Brian".to_string()],
            moves.last().copied(),
        )
        .with_annotations(
            vec![Cell { col: 3, row: 3 }],
            vec![(Cell { col: 0, row: 0 }, Cell { col: 2, row: 0 })],
        )
        .with_result(forfeit(&pos, Side::Attackers, EndReason::Resigned));
        let board = Board::new(pos, moves, frame, "game-1-ply-6.png".into());
        let again = board.spec().board().unwrap();
        assert_eq!(again.frame, board.frame);
        assert_eq!(again.moves, board.moves);
        assert_eq!(again.png(), board.png());
        assert_eq!(again.text(), board.text());
        assert_eq!(again.filename, "game-1-ply-6.png");
    }

    #[test]
    fn a_spec_that_does_not_replay_is_refused() {
        let mut spec = BoardSpec {
            variant: "hkot-1".into(),
            scoring: "kingdoms".into(),
            first: "red".into(),
            ..BoardSpec::default()
        };
        assert!(spec.board().is_ok());
        spec.moves = vec!["Z9".into()];
        assert!(spec.board().is_err());
        spec.variant = "chess".into();
        assert!(spec.board().err().unwrap().contains("chess"));
    }
}
