//! [`GamePosition`]: what every position of the five games can do, whatever the game.
//!
//! `TaraPosition` and `ArdRiPosition` implement it, and so does the [`Position`](crate::game::Position) enum by
//! delegating to whichever of the two it holds (the one `match` on the enum is the
//! `dispatch!` macro below). Code that works for any game can be generic over the trait.

use super::by_side::BySide;
use super::error::IllegalMove;
use super::moves::{Move, MoveList};
use super::outcome::Counts;
use super::outcome::{Outcome, Points};
use super::phase::Phase;
use super::side::Side;
use super::variant::{GameOptions, Variant};

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
