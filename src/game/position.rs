//! [`GamePosition`]: what every position of the five games can do, whatever the game.
//!
//! `TaraPosition` and `ArdRiPosition` implement it, and so does the [`Position`](crate::game::Position) enum by
//! delegating to whichever of the two it holds (the one `match` on the enum is the
//! `dispatch!` macro below). Code that works for any game can be generic over the trait; what
//! only some games have comes as a typed description ([`Forces`], [`Captures`], an `Option`),
//! and the renderer, which draws each kind of board itself, gets the game's own position
//! through [`Position::board`](crate::game::Position::board).

use super::board::{Hill, Square};
use super::by_side::BySide;
use super::error::IllegalMove;
use super::moves::{Move, MoveList};
use super::outcome::Counts;
use super::outcome::{Outcome, Points};
use super::phase::Phase;
use super::side::Side;
use super::variant::{GameOptions, Variant};

/// What is left of both armies of a tafl game (Ard Rí), and the move limit's counter: the
/// game's counterpart of the Tara games' [`Counts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Forces {
    /// Attackers on the board.
    pub attackers: u32,
    /// Defenders on the board, without the king.
    pub defenders: u32,
    /// The king's square; after his capture, the square he was captured on.
    pub king: Square,
    /// Consecutive plies, up to now, in which no piece was captured.
    pub plies_without_capture: u32,
}

/// What the last move captured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Captures {
    /// Enemy kings captured (High Kings of Tara; Ard Rí's king is never counted here: his
    /// capture ends the game).
    pub kings: u32,
    /// Anything else captured: the enemy ringfort taken (Tara, 0 or 1) or the pieces taken
    /// custodially (Ard Rí).
    pub pieces: u32,
}

/// A position of one of the games: its rules (legal moves, playing them, the end) behind one
/// interface, in the spirit of shakmaty's `Position`.
pub trait GamePosition {
    /// The options the game was started with.
    fn options(&self) -> GameOptions;

    /// Plies played so far.
    fn ply(&self) -> u32;

    /// The side whose turn it is; once the game is over, the side that would have moved next.
    fn turn(&self) -> Side;

    /// The result, once the game is over.
    fn outcome(&self) -> Option<&Outcome>;

    /// The phase of the player to move (Tara while the game is on; `None` for Ard Rí).
    fn phase_to_move(&self) -> Option<Phase>;

    /// Appends every legal move to `out`, in generation order (nothing once the game is over).
    fn legal_moves_into(&self, out: &mut MoveList);

    /// Why `m` is illegal here, or `Ok` when it is legal.
    fn check(&self, m: Move) -> Result<(), IllegalMove>;

    /// Plays a move known to be legal (one of the legal moves).
    fn play_unchecked(&mut self, m: Move);

    /// The position in the game's public position notation, when the game has one (Ard Rí;
    /// see [`ArdRiPosition::to_notation`](super::ArdRiPosition::to_notation)).
    fn position_notation(&self) -> Option<String>;

    /// Kingdoms, knots, territory and kings captured of both players (Tara; `None` for Ard Rí).
    fn side_counts(&self) -> Option<BySide<Counts>>;

    /// The points of a game that `winner` wins by forfeit here (docs/rules.md §9).
    fn forfeit_points(&self, winner: Side) -> BySide<Points>;

    /// Attackers, defenders, the king's square and the move limit's counter (Ard Rí; `None`
    /// for the Tara games).
    fn forces(&self) -> Option<Forces>;

    /// What the last move captured (nothing at the start).
    fn last_move_captures(&self) -> Captures;

    /// Whether the side to move is playing the game's last turn (High Kings of Tara, after a
    /// pass; always `false` once the game is over, and in games without such a turn).
    fn is_last_turn(&self) -> bool;

    /// A king of the side to move standing on enemy territory, which must move this turn
    /// (High Kings of Tara, Level 2, after a sacrifice); the first in hill order if several.
    fn king_that_must_move(&self) -> Option<Hill>;

    /// A move of `legal` (the legal moves here) that wins at once, when the game can find one
    /// cheaply: playouts always take it (Ard Rí; in High Kings, a double capture by the move's
    /// own captures; `None` in Sacred Hill, which does not look).
    fn decisive_move(&self, legal: &[Move]) -> Option<Move>;

    /// The game being played.
    #[inline]
    fn variant(&self) -> Variant {
        self.options().variant
    }

    /// Whether the game is over.
    #[inline]
    fn is_over(&self) -> bool {
        self.outcome().is_some()
    }

    /// The side to move, `None` when the game is over.
    #[inline]
    fn side_to_move(&self) -> Option<Side> {
        if self.is_over() {
            None
        } else {
            Some(self.turn())
        }
    }

    /// Every legal move (empty when the game is over), in generation order.
    #[inline]
    fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.legal_moves_into(&mut list);
        list
    }

    /// Plays a legal move; an illegal one leaves the position unchanged and says why.
    fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        self.check(m)?;
        self.play_unchecked(m);
        Ok(())
    }
}
