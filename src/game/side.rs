//! The sides of the games: [`Side`] for any game, [`Player`] in the Tara games and [`Team`] in
//! Ard Rí.

use std::fmt;

/// A side of any game: Red or Blue (Tara), Attackers or Defenders (Ard Rí).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Red,
    Blue,
    Attackers,
    Defenders,
}

impl Side {
    /// Whether the side's name is a plural ("the attackers move", "Red moves").
    pub const fn is_plural(self) -> bool {
        matches!(self, Side::Attackers | Side::Defenders)
    }

    /// `red`, `blue`, `attackers` or `defenders`.
    pub const fn id(self) -> &'static str {
        match self {
            Side::Red => "red",
            Side::Blue => "blue",
            Side::Attackers => "attackers",
            Side::Defenders => "defenders",
        }
    }
    /// `Red`, `Blue`, `the attackers`…: the side in a sentence.
    pub const fn name(self) -> &'static str {
        match self {
            Side::Red => "Red",
            Side::Blue => "Blue",
            Side::Attackers => "Attackers",
            Side::Defenders => "Defenders",
        }
    }
    /// `Red's`, `Blue's`, `the attackers'`, `the defenders'`: the side's, in a sentence.
    pub const fn possessive(self) -> &'static str {
        match self {
            Side::Red => "Red's",
            Side::Blue => "Blue's",
            Side::Attackers => "the attackers'",
            Side::Defenders => "the defenders'",
        }
    }
    /// 0 for Red and the attackers, 1 for Blue and the defenders.
    pub const fn index(self) -> usize {
        match self {
            Side::Red | Side::Attackers => 0,
            Side::Blue | Side::Defenders => 1,
        }
    }
    /// The side with this id (`red`, `blue`, `attackers`, `defenders`).
    pub fn from_id(id: &str) -> Option<Side> {
        [Side::Red, Side::Blue, Side::Attackers, Side::Defenders]
            .into_iter()
            .find(|s| s.id() == id)
    }
    /// The other side of the same game.
    pub const fn opponent(self) -> Side {
        match self {
            Side::Red => Side::Blue,
            Side::Blue => Side::Red,
            Side::Attackers => Side::Defenders,
            Side::Defenders => Side::Attackers,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A player of a Tara game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    Red,
    Blue,
}

impl Player {
    /// 0 for Red, 1 for Blue.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
    #[inline]
    pub const fn opponent(self) -> Player {
        match self {
            Player::Red => Player::Blue,
            Player::Blue => Player::Red,
        }
    }
    pub const BOTH: [Player; 2] = [Player::Red, Player::Blue];
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Player::Red => "Red",
            Player::Blue => "Blue",
        })
    }
}

/// One of the two sides of Ard Rí.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Team {
    Attackers,
    Defenders,
}

impl Team {
    /// 0 for the attackers, 1 for the defenders (the seat; [`BySide`] is indexed by `Team`).
    pub const fn index(self) -> usize {
        match self {
            Team::Attackers => 0,
            Team::Defenders => 1,
        }
    }

    /// The other side.
    pub const fn opponent(self) -> Team {
        match self {
            Team::Attackers => Team::Defenders,
            Team::Defenders => Team::Attackers,
        }
    }

    pub(crate) const fn side(self) -> Side {
        match self {
            Team::Attackers => Side::Attackers,
            Team::Defenders => Side::Defenders,
        }
    }
}

impl fmt::Display for Team {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Team::Attackers => "attackers",
            Team::Defenders => "defenders",
        })
    }
}

impl From<Player> for Side {
    fn from(p: Player) -> Side {
        match p {
            Player::Red => Side::Red,
            Player::Blue => Side::Blue,
        }
    }
}

impl From<Team> for Side {
    fn from(t: Team) -> Side {
        match t {
            Team::Attackers => Side::Attackers,
            Team::Defenders => Side::Defenders,
        }
    }
}
