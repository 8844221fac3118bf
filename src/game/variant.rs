//! The five games ([`Variant`]), Tara's scoring choice ([`Scoring`]) and the options a game
//! starts with ([`GameOptions`]).

use super::side::Side;
use std::fmt;
use std::str::FromStr;

/// The five games the bot referees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// High Kings of Tara, Singles Level 1.
    Hkot1,
    /// High Kings of Tara, Singles Level 2 (Kingdoms): sacrificing ringforts.
    Hkot2,
    /// Tara: Sacred Hill, Singles Level 1.
    SacredHill1,
    /// Tara: Sacred Hill, Singles Level 2 (Kingdoms): order of priority.
    SacredHill2,
    /// Ard Rí, 7x7 tafl.
    ArdRi,
}

impl Variant {
    /// Every variant, in the order of the rules.
    pub const ALL: [Variant; 5] = [
        Variant::Hkot1,
        Variant::Hkot2,
        Variant::SacredHill1,
        Variant::SacredHill2,
        Variant::ArdRi,
    ];

    /// The variant's id (`hkot-1`, …).
    pub const fn id(self) -> &'static str {
        match self {
            Variant::Hkot1 => "hkot-1",
            Variant::Hkot2 => "hkot-2",
            Variant::SacredHill1 => "sacred-hill-1",
            Variant::SacredHill2 => "sacred-hill-2",
            Variant::ArdRi => "ard-ri",
        }
    }

    /// The game's full name.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Hkot1 => "High Kings of Tara (Level 1)",
            Variant::Hkot2 => "High Kings of Tara (Level 2, Kingdoms)",
            Variant::SacredHill1 => "Tara: Sacred Hill (Level 1)",
            Variant::SacredHill2 => "Tara: Sacred Hill (Level 2, Kingdoms)",
            Variant::ArdRi => "Ard Rí",
        }
    }

    /// Whether this is one of the four Tara games (as opposed to Ard Rí).
    pub const fn is_tara(self) -> bool {
        !matches!(self, Variant::ArdRi)
    }

    /// Whether the game has kings moving by knight's moves (High Kings of Tara).
    pub const fn has_kings(self) -> bool {
        matches!(self, Variant::Hkot1 | Variant::Hkot2)
    }

    /// What the first player does on the game's first move, in words ("step one attacker").
    pub const fn first_move(self) -> &'static str {
        match self {
            Variant::Hkot1 | Variant::Hkot2 => "place your first king and ringfort",
            Variant::SacredHill1 | Variant::SacredHill2 => "build your first ringfort anywhere",
            Variant::ArdRi => "step one attacker",
        }
    }

    /// A legal first move, as text (`D4`, `d2-c2`).
    pub const fn example_first_move(self) -> &'static str {
        if self.is_tara() {
            "D4"
        } else {
            "d2-c2"
        }
    }

    /// What a place on its board is called: `hill` (Tara) or `square` (Ard Rí).
    pub const fn cell_name(self) -> &'static str {
        if self.is_tara() {
            "hill"
        } else {
            "square"
        }
    }

    /// An arrow between two places of its board, as an example: `G2-E3`, `d2-d5`.
    pub const fn example_arrow(self) -> &'static str {
        if self.is_tara() {
            "G2-E3"
        } else {
            "d2-d5"
        }
    }

    /// How a new game seats a challenger and an opponent: whether the two swap seats (the
    /// first seat plays the side that moves first where sides are fixed), and which side moves
    /// first. Tara: the challenger is Red, and Red or Blue moves first; Ard Rí: whoever moves
    /// first plays the attackers.
    pub const fn seating(self, challenger_first: bool) -> (bool, Side) {
        if self.is_tara() {
            let first = if challenger_first {
                Side::Red
            } else {
                Side::Blue
            };
            (false, first)
        } else {
            (!challenger_first, Side::Attackers)
        }
    }

    /// Whether knots scoring may be chosen for this variant.
    pub const fn allows_knots(self) -> bool {
        matches!(self, Variant::Hkot1 | Variant::SacredHill1)
    }

    /// The two sides, first seat (index 0) first: Red and Blue, or Attackers and Defenders.
    pub const fn sides(self) -> [Side; 2] {
        if self.is_tara() {
            [Side::Red, Side::Blue]
        } else {
            [Side::Attackers, Side::Defenders]
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// The error for an unknown variant id.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a variant: choose hkot-1, hkot-2, sacred-hill-1, sacred-hill-2 or ard-ri")]
pub struct UnknownVariant(pub String);

impl FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Variant, UnknownVariant> {
        let t = s.trim().to_ascii_lowercase().replace(['_', ' '], "-");
        let t = t.replace("ard-rí", "ard-ri").replace("ardri", "ard-ri");
        Variant::ALL
            .into_iter()
            .find(|v| v.id() == t)
            .ok_or_else(|| UnknownVariant(s.to_string()))
    }
}

/// How a Tara game is scored first: by kingdoms or by knots (A.2, A.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Scoring {
    /// Count kingdoms (the default, and the only choice for Level 2).
    #[default]
    Kingdoms,
    /// Count knots (allowed for `hkot-1` and `sacred-hill-1`).
    Knots,
}

impl Scoring {
    /// `kingdoms` or `knots`.
    pub const fn id(self) -> &'static str {
        match self {
            Scoring::Kingdoms => "kingdoms",
            Scoring::Knots => "knots",
        }
    }
}

impl fmt::Display for Scoring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for Scoring {
    type Err = String;
    fn from_str(s: &str) -> Result<Scoring, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "kingdoms" | "kingdom" => Ok(Scoring::Kingdoms),
            "knots" | "knot" => Ok(Scoring::Knots),
            _ => Err(format!("'{s}' is not a scoring: choose kingdoms or knots")),
        }
    }
}

/// The options a game is started with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameOptions {
    pub variant: Variant,
    /// Kingdoms or knots; always kingdoms for the Level 2 variants; ignored by Ard Rí.
    pub scoring: Scoring,
    /// Who moves first. Ard Rí: always the attackers.
    pub first: Side,
}

/// An inconsistent combination of options.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    #[error("{variant} is always scored by kingdoms; knots scoring exists only for hkot-1 and sacred-hill-1")]
    KnotsNotAllowed { variant: Variant },
    #[error("in Ard Rí the attackers always move first")]
    ArdRiFirst,
    #[error("Ard Rí has no scoring options: kingdoms and knots belong to the Tara games")]
    ArdRiScoring,
    #[error("{side} is not a side of {variant}")]
    WrongSide { variant: Variant, side: Side },
}

impl GameOptions {
    /// Options with kingdoms scoring and the first seat (Red, or the attackers) moving first.
    pub fn new(variant: Variant) -> GameOptions {
        GameOptions {
            variant,
            scoring: Scoring::Kingdoms,
            first: variant.sides()[0],
        }
    }

    /// The side to move after `plies` plies of a game on: the sides alternate every ply, a
    /// forced pass included, so no replay is needed to know it.
    pub fn side_after(self, plies: usize) -> Side {
        if plies.is_multiple_of(2) {
            self.first
        } else {
            self.first.opponent()
        }
    }

    /// Checks and builds options; `first: None` means the first seat.
    pub fn with(
        variant: Variant,
        scoring: Option<Scoring>,
        first: Option<Side>,
    ) -> Result<GameOptions, OptionsError> {
        let mut o = GameOptions::new(variant);
        if let Some(s) = scoring {
            if variant == Variant::ArdRi && s == Scoring::Knots {
                return Err(OptionsError::ArdRiScoring);
            }
            if s == Scoring::Knots && !variant.allows_knots() {
                return Err(OptionsError::KnotsNotAllowed { variant });
            }
            o.scoring = s;
        }
        if let Some(side) = first {
            if !variant.sides().contains(&side) {
                return Err(OptionsError::WrongSide { variant, side });
            }
            if variant == Variant::ArdRi && side != Side::Attackers {
                return Err(OptionsError::ArdRiFirst);
            }
            o.first = side;
        }
        Ok(o)
    }
}
