//! The rules engine: pure and synchronous. It knows the five games of `RULES.md`, generates
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
pub mod playout;
mod position;
pub mod tara;

pub use ard_ri::{ArdRiPosition, Team};
pub use ard_ri_notation::ArdRiNotationError;
pub use board::{Bits, Hill, Square};
pub use by_side::BySide;
pub use error::{IllegalMove, ParseMoveError, PlayError};
pub use moves::{Move, MoveList};
pub use notation::{GameRecord, RecordError};
pub use position::GamePosition;
pub use tara::{Player, TaraPosition};

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

/// A side of any game: Red or Blue (Tara), Attackers or Defenders (Ard Rí).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Red,
    Blue,
    Attackers,
    Defenders,
}

impl Side {
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

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// High Kings: a player captured two (or three) enemy kings.
    DoubleCapture,
    /// Tara: scored by kingdoms or knots, then territory.
    Score,
    /// Ard Rí: the king reached a corner.
    KingEscaped,
    /// Ard Rí: the king was surrounded on four sides.
    KingCaptured,
    /// Ard Rí: the side to move had no legal move.
    NoMoves,
    /// Ard Rí: 100 plies without a capture.
    MoveLimit,
    /// The bot's own ending (RULES.md Part E): a player resigned.
    Resigned,
    /// The bot's own ending (RULES.md Part E): a player's clock ran out.
    Timeout,
}

impl EndReason {
    /// The reason's id in the engine's JSON (`double-capture`, …).
    pub const fn id(self) -> &'static str {
        match self {
            EndReason::DoubleCapture => "double-capture",
            EndReason::Score => "score",
            EndReason::KingEscaped => "king-escaped",
            EndReason::KingCaptured => "king-captured",
            EndReason::NoMoves => "no-moves",
            EndReason::MoveLimit => "move-limit",
            EndReason::Resigned => "resigned",
            EndReason::Timeout => "timeout",
        }
    }

    /// The reason with this id.
    pub fn from_id(id: &str) -> Option<EndReason> {
        [
            EndReason::DoubleCapture,
            EndReason::Score,
            EndReason::KingEscaped,
            EndReason::KingCaptured,
            EndReason::NoMoves,
            EndReason::MoveLimit,
            EndReason::Resigned,
            EndReason::Timeout,
        ]
        .into_iter()
        .find(|r| r.id() == id)
    }
}

/// Points in half-point units, so Ard Rí's ½ is exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Points(pub u32);

impl Points {
    /// Whole points.
    pub const fn whole(n: u32) -> Points {
        Points(2 * n)
    }
    /// Half a point.
    pub const HALF: Points = Points(1);
    /// The value as a number (1, 0.5, 3, …).
    pub fn value(self) -> f64 {
        f64::from(self.0) / 2.0
    }
}

impl std::ops::Add for Points {
    type Output = Points;
    fn add(self, o: Points) -> Points {
        Points(self.0 + o.0)
    }
}

impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 % 2 == 0 {
            write!(f, "{}", self.0 / 2)
        } else {
            write!(f, "{}.5", self.0 / 2)
        }
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The winner, or `None` for a draw (Tara: equal kingdoms and territory).
    pub winner: Option<Side>,
    pub reason: EndReason,
    /// Points of each side.
    pub points: BySide<Points>,
}

/// The result when `loser` resigns or runs out of time (RULES.md Part E): the other player
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

/// A position of any of the five games.
// Ard Rí keeps its repetition history inline (about 1.3 KB, no heap), so a clone is a plain
// copy; boxing it would add an allocation to every clone in search and perft.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Position {
    Tara(TaraPosition),
    ArdRi(ArdRiPosition),
}

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
