//! [`Position`]: a position of any of the five games, delegating to the game's own position
//! through [`GamePosition`] (the one `match` on the enum is the `dispatch!` macro below; the
//! other, [`Position::board`], hands the renderer the game's own position), and
//! [`forfeit`], the result of a resignation or a timeout, and [`agreed_draw`], the result of a
//! draw by agreement.

use super::ard_ri::ArdRiPosition;
use super::board::Hill;
use super::by_side::BySide;
use super::error::{IllegalMove, ParseMoveError, PlayError};
use super::moves::{Move, MoveList};
use super::notation;
use super::outcome::{Counts, EndReason, Outcome, Points};
use super::phase::Phase;
use super::position::{Captures, Forces, GamePosition};
use super::side::Side;
use super::tara::TaraPosition;
use super::variant::{GameOptions, Variant};

/// The result when `loser` resigns or runs out of time (docs/rules.md §9): the other player
/// wins. Tara: the winner scores the larger of 2 + the kings they captured and what scoring the
/// current position would give them; the loser scores the kings they captured. Ard Rí: 1 to 0.
pub fn forfeit(pos: &Position, loser: Side, reason: EndReason) -> Outcome {
    let winner = loser.opponent();
    Outcome {
        winner: Some(winner),
        reason,
        points: pos.forfeit_points(winner),
    }
}

/// The result when the players agree to a draw (docs/rules.md §9): no winner, scored as the
/// game's own drawn ending. Tara as A.2 case 3: 1 point each, plus 1 for every enemy king the
/// player captured (High Kings); Ard Rí as the 100-ply draw: ½ each.
pub fn agreed_draw(pos: &Position) -> Outcome {
    let points = match pos.side_counts() {
        Some(counts) => counts.map(|c| Points::whole(1 + c.kings_captured)),
        None => BySide::both(Points::HALF),
    };
    Outcome {
        winner: None,
        reason: EndReason::Agreed,
        points,
    }
}

/// A position of any of the five games.
// Ard Rí keeps its repetition history inline (about 1.3 KB, no heap), so a clone is a plain
// copy; boxing it would add an allocation to every clone in search and perft.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Position {
    Tara(TaraPosition),
    ArdRi(ArdRiPosition),
}

impl Clone for Position {
    fn clone(&self) -> Position {
        match self {
            Position::Tara(p) => Position::Tara(p.clone()),
            Position::ArdRi(p) => Position::ArdRi(p.clone()),
        }
    }
    /// A Tara position keeps its room for its history ([`TaraPosition`]'s `clone_from`).
    fn clone_from(&mut self, source: &Position) {
        match (self, source) {
            (Position::Tara(p), Position::Tara(q)) => p.clone_from(q),
            (p, q) => *p = q.clone(),
        }
    }
}

impl From<TaraPosition> for Position {
    fn from(p: TaraPosition) -> Position {
        Position::Tara(p)
    }
}

impl From<ArdRiPosition> for Position {
    fn from(p: ArdRiPosition) -> Position {
        Position::ArdRi(p)
    }
}

impl Position {
    /// The start position of a game.
    pub fn new(options: GameOptions) -> Position {
        match options.variant {
            Variant::ArdRi => Position::ArdRi(ArdRiPosition::new()),
            _ => Position::Tara(TaraPosition::new(options)),
        }
    }

    /// The options the game was started with.
    #[inline]
    pub fn options(&self) -> GameOptions {
        GamePosition::options(self)
    }

    /// The game being played.
    #[inline]
    pub fn variant(&self) -> Variant {
        GamePosition::variant(self)
    }

    /// Plies played so far.
    #[inline]
    pub fn ply(&self) -> u32 {
        GamePosition::ply(self)
    }

    /// The side to move, `None` when the game is over.
    #[inline]
    pub fn to_move(&self) -> Option<Side> {
        self.side_to_move()
    }

    /// The phase of the player to move (Tara, while the game is on).
    #[inline]
    pub fn phase(&self) -> Option<Phase> {
        self.phase_to_move()
    }

    /// The result, once the game is over.
    #[inline]
    pub fn outcome(&self) -> Option<&Outcome> {
        GamePosition::outcome(self)
    }

    /// Every legal move (empty when the game is over), in generation order.
    #[inline]
    pub fn legal_moves(&self) -> MoveList {
        GamePosition::legal_moves(self)
    }

    /// The Tara games' [`TaraPosition::transposition_key`]: the same for the same position
    /// however it was reached. `None` in Ard Rí, whose search keeps its own table.
    #[inline]
    pub fn transposition_key(&self) -> Option<u64> {
        match self {
            Position::Tara(t) => Some(t.transposition_key()),
            _ => None,
        }
    }

    /// The position in its game's public notation: Ard Rí's (see
    /// [`ArdRiPosition::to_notation`]); `None` for the Tara games, which have none.
    pub fn notation(&self) -> Option<String> {
        self.position_notation()
    }

    /// Every legal move as canonical text, sorted by byte order.
    pub fn legal_notation(&self) -> Vec<String> {
        let mut v: Vec<String> = self.legal_moves().iter().map(|m| m.to_string()).collect();
        v.sort_unstable();
        v
    }

    /// Why `m` is illegal here, or `Ok` when it is legal.
    #[inline]
    pub fn check(&self, m: Move) -> Result<(), IllegalMove> {
        GamePosition::check(self, m)
    }

    /// Plays a legal move; an illegal one leaves the position unchanged and says why.
    #[inline]
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        GamePosition::play(self, m)
    }

    /// Plays a move known to be legal (from [`Position::legal_moves`]).
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) {
        GamePosition::play_unchecked(self, m)
    }

    /// Parses move text in this game's notation.
    pub fn parse_move(&self, text: &str) -> Result<Move, ParseMoveError> {
        notation::parse_move(self.variant(), text)
    }

    /// Parses and plays move text.
    pub fn play_text(&mut self, text: &str) -> Result<Move, PlayError> {
        let m = self.parse_move(text)?;
        self.play(m)?;
        Ok(m)
    }

    /// Attackers, defenders, the king's square and the move limit's counter (Ard Rí).
    #[inline]
    pub fn forces(&self) -> Option<Forces> {
        GamePosition::forces(self)
    }

    /// What the last move captured.
    #[inline]
    pub fn last_move_captures(&self) -> Captures {
        GamePosition::last_move_captures(self)
    }

    /// Whether the side to move is playing the game's last turn (High Kings of Tara).
    #[inline]
    pub fn is_last_turn(&self) -> bool {
        GamePosition::is_last_turn(self)
    }

    /// A king of the side to move that stands on enemy territory and must move this turn.
    #[inline]
    pub fn king_that_must_move(&self) -> Option<Hill> {
        GamePosition::king_that_must_move(self)
    }

    /// The board to draw: the game's own position, by the kind of board it is played on.
    #[inline]
    pub fn board(&self) -> BoardView<'_> {
        match self {
            Position::Tara(t) => BoardView::Hills(t),
            Position::ArdRi(a) => BoardView::Squares(a),
        }
    }
}

/// A position by the kind of board it is played on, for the renderer, which draws each kind
/// itself. Everything else goes through [`GamePosition`]: adding a game adds a kind here, and
/// the compiler then points at each place in the renderer that must draw it.
#[derive(Clone, Copy, Debug)]
pub enum BoardView<'a> {
    /// The Tara games: 45 hills (7 by 7 without the corners), ringforts and kings.
    Hills(&'a TaraPosition),
    /// Ard Rí: 7 by 7 squares, attackers, defenders and the king.
    Squares(&'a ArdRiPosition),
}

/// Evaluates `$body` with `$p` bound to the position inside the enum: the one place where
/// [`Position`] chooses between the games.
macro_rules! dispatch {
    ($pos:expr, $p:ident => $body:expr) => {
        match $pos {
            Position::Tara($p) => $body,
            Position::ArdRi($p) => $body,
        }
    };
}

impl GamePosition for Position {
    #[inline]
    fn options(&self) -> GameOptions {
        dispatch!(self, p => p.options())
    }
    #[inline]
    fn ply(&self) -> u32 {
        dispatch!(self, p => p.ply())
    }
    #[inline]
    fn turn(&self) -> Side {
        dispatch!(self, p => GamePosition::turn(p))
    }
    #[inline]
    fn outcome(&self) -> Option<&Outcome> {
        dispatch!(self, p => p.outcome())
    }
    #[inline]
    fn phase_to_move(&self) -> Option<Phase> {
        dispatch!(self, p => p.phase_to_move())
    }
    #[inline]
    fn legal_moves_into(&self, out: &mut MoveList) {
        dispatch!(self, p => p.legal_moves_into(out))
    }
    #[inline]
    fn check(&self, m: Move) -> Result<(), IllegalMove> {
        dispatch!(self, p => p.check(m))
    }
    #[inline]
    fn play_unchecked(&mut self, m: Move) {
        dispatch!(self, p => p.play_unchecked(m))
    }
    fn position_notation(&self) -> Option<String> {
        dispatch!(self, p => p.position_notation())
    }
    fn side_counts(&self) -> Option<BySide<Counts>> {
        dispatch!(self, p => p.side_counts())
    }
    fn forfeit_points(&self, winner: Side) -> BySide<Points> {
        dispatch!(self, p => p.forfeit_points(winner))
    }
    fn forces(&self) -> Option<Forces> {
        dispatch!(self, p => p.forces())
    }
    fn last_move_captures(&self) -> Captures {
        dispatch!(self, p => p.last_move_captures())
    }
    fn is_last_turn(&self) -> bool {
        dispatch!(self, p => GamePosition::is_last_turn(p))
    }
    fn king_that_must_move(&self) -> Option<Hill> {
        dispatch!(self, p => p.king_that_must_move())
    }
    #[inline]
    fn decisive_move(&self, legal: &[Move]) -> Option<Move> {
        dispatch!(self, p => p.decisive_move(legal))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{describe, Scoring};

    fn after(variant: Variant, moves: &[&str]) -> Position {
        let options = GameOptions::with(variant, Some(Scoring::Kingdoms), Some(Side::Red))
            .or_else(|_| GameOptions::with(variant, None, None))
            .unwrap();
        let mut pos = Position::new(options);
        for m in moves {
            pos.play_text(m).unwrap();
        }
        pos
    }

    fn points(o: &Outcome) -> (Points, Points) {
        (*o.points.first(), *o.points.second())
    }

    #[test]
    fn an_agreed_draw_in_high_kings_scores_one_each_plus_kings_captured() {
        // No king captured yet: 1 each.
        let o = agreed_draw(&after(Variant::Hkot1, &["C1", "B1"]));
        assert_eq!((o.winner, o.reason), (None, EndReason::Agreed));
        assert_eq!(points(&o), (Points::whole(1), Points::whole(1)));
        // C1 and B2 besiege B1: Red has captured Blue's king there, so Red scores 1 + 1.
        let pos = after(Variant::Hkot1, &["C1", "B1", "F6", "F2", "B2"]);
        assert_eq!(pos.side_counts().unwrap()[Side::Red].kings_captured, 1);
        let o = agreed_draw(&pos);
        assert_eq!(o.winner, None);
        assert_eq!(points(&o), (Points::whole(2), Points::whole(1)));
        let o = agreed_draw(&after(Variant::Hkot2, &["C1", "B1", "F6", "F2", "B2"]));
        assert_eq!(points(&o), (Points::whole(2), Points::whole(1)));
    }

    #[test]
    fn an_agreed_draw_in_sacred_hill_scores_one_each_whatever_the_board() {
        for variant in [Variant::SacredHill1, Variant::SacredHill2] {
            let pos = after(variant, &["D4", "C3", "F5"]);
            let o = agreed_draw(&pos);
            assert_eq!((o.winner, o.reason), (None, EndReason::Agreed));
            assert_eq!(points(&o), (Points::whole(1), Points::whole(1)));
        }
    }

    #[test]
    fn what_only_some_games_have_comes_as_a_typed_description() {
        let a = after(Variant::ArdRi, &["d2-c2"]);
        let f = a.forces().unwrap();
        assert_eq!((f.attackers, f.defenders), (16, 8));
        assert_eq!(
            (f.king.to_string(), f.plies_without_capture),
            ("d4".into(), 1)
        );
        assert_eq!(a.last_move_captures(), Captures::default());
        assert!(a.side_counts().is_none() && !a.is_last_turn());
        assert!(matches!(a.board(), BoardView::Squares(_)));
        // C1 and B2 besiege B1: Red captures Blue's king there.
        let t = after(Variant::Hkot1, &["C1", "B1", "F6", "F2", "B2"]);
        assert!(t.forces().is_none() && t.king_that_must_move().is_none());
        assert_eq!(t.last_move_captures().kings, 1);
        assert!(matches!(t.board(), BoardView::Hills(_)));
        assert_eq!(t.decisive_move(&t.legal_moves()), None);
        for v in Variant::ALL {
            let pos = Position::new(GameOptions::new(v));
            assert!(pos
                .parse_move(v.example_first_move())
                .is_ok_and(|m| pos.check(m).is_ok()));
            assert!(!v.first_move().is_empty() && describe::rules(v).contains(v.id()));
        }
    }

    #[test]
    fn an_agreed_draw_in_ard_ri_scores_a_half_each_like_the_move_limit() {
        let o = agreed_draw(&after(Variant::ArdRi, &["d2-c2"]));
        assert_eq!((o.winner, o.reason), (None, EndReason::Agreed));
        assert_eq!(points(&o), (Points::HALF, Points::HALF));
        assert_eq!(EndReason::from_id("agreed"), Some(EndReason::Agreed));
        assert_eq!(EndReason::Agreed.id(), "agreed");
    }
}
