//! The rules engine: pure and synchronous. It knows the five games of `docs/rules.md`, generates
//! their legal moves (the single source of truth for validation, hints and forced passes),
//! applies moves, detects the end and scores.

pub mod ard_ri;
mod ard_ri_notation;
pub mod board;
mod by_side;
pub mod describe;
mod error;
mod moves;
pub mod notation;
mod outcome;
mod phase;
pub mod playout;
mod position;
pub mod rating;
pub mod record;
mod side;
pub mod tara;
mod variant;
mod variant_position;

pub use ard_ri::ArdRiPosition;
pub use ard_ri_notation::ArdRiNotationError;
pub use board::{Bits, Hill, Square};
pub use by_side::BySide;
pub use error::{IllegalMove, ParseMoveError, PlayError};
pub use moves::{Move, MoveList};
pub use outcome::{Counts, EndReason, Outcome, Points};
pub use phase::Phase;
pub use position::{Captures, Forces, GamePosition};
pub use record::{GameRecord, RecordError};
pub use side::{Player, Side, Team};
pub use tara::TaraPosition;
pub use variant::{GameOptions, OptionsError, Scoring, UnknownVariant, Variant};
pub use variant_position::{agreed_draw, forfeit, BoardView, Position};
