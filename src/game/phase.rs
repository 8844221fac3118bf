//! The playing phases of a Tara game.

use std::fmt;

/// A playing phase of a Tara game, for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    Placement,
    Manoeuvres,
    Battle,
}

impl Phase {
    /// `placement`, `manoeuvres` or `battle`.
    pub const fn id(self) -> &'static str {
        match self {
            Phase::Placement => "placement",
            Phase::Manoeuvres => "manoeuvres",
            Phase::Battle => "battle",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Placement => "Placement",
            Phase::Manoeuvres => "Manoeuvres",
            Phase::Battle => "Battle",
        })
    }
}
