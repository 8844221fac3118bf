//! Tournaments as docs/rules.md §10 runs them, pure and synchronous: round-robin tables,
//! knockout brackets, standings and tiebreaks, the FIDE TRF-16 file, and in [`dutch`] the
//! FIDE Dutch system ([`dutch_pair::pair`]) with its weighted matching. No I/O, no clock.

mod berger;
pub mod dutch;
pub mod dutch_pair;
mod knockout;
pub mod league;
pub mod matching;
mod points;
mod standings;
mod trf;

pub use berger::{double_round_robin, single_round_robin, TablePairing};
pub use knockout::{next_round, Bracket, Tie};
pub use points::Points;
pub use standings::{standings, Entrant, GameResult, Pairing, Results, Standing, System};
pub use trf::{Code, Colour, RoundEntry, Trf, TrfError, TrfPlayer};
