//! Errors of the rules engine. Every message is a sentence a player can act on.

use super::board::{Hill, Square};
use super::phase::Phase;
use super::side::{Player, Team};

/// Why a move is not legal in a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalMove {
    #[error("the game is over")]
    GameOver,
    #[error("that is not a move of {game}: moves look like {example}")]
    WrongGame {
        game: &'static str,
        example: &'static str,
    },
    #[error("you have no legal move and must pass")]
    MustPass,
    #[error("you may not pass now: {why}; you can play {examples}")]
    PassNotAllowed { why: &'static str, examples: String },

    // --- Tara: shape of the move ---
    #[error("in Placement each turn builds a ringfort and puts a new king on it: name one vacant hill, like {example}")]
    PlacementNeedsHill { example: String },
    #[error("Placement is over: move one of your kings by a knight's move, like {example}")]
    KingMoveExpected { example: String },
    #[error(
        "Tara: Sacred Hill has no kings: name the hill to build on or capture, like {example}"
    )]
    NoKingsInSacredHill { example: String },

    // --- Tara: hills and ringforts ---
    #[error("{hill} is not vacant: it holds {owner}'s ringfort")]
    NotVacant { hill: Hill, owner: Player },
    #[error("{hill} already holds your ringfort")]
    OwnRingfort { hill: Hill },
    #[error("{hill} is next to your ringfort on {fort}: in {phase} your ringforts may not touch")]
    TouchesOwnRingfort {
        hill: Hill,
        fort: Hill,
        phase: Phase,
    },

    // --- High Kings: kings ---
    #[error("there is no {player} king on {hill}")]
    NoKing { player: Player, hill: Hill },
    #[error("{from}-{to} is not a knight's move")]
    NotKnightMove { from: Hill, to: Hill },
    #[error("{to} is next to your king on {king}; friendly kings may not stand on adjacent hills")]
    NextToFriendlyKing { to: Hill, king: Hill },
    #[error("{to} is not vacant: in {phase} a king only moves to vacant hills")]
    VacantOnly { to: Hill, phase: Phase },
    #[error("a king of yours can still move to a vacant hill (for example {example}): backtracking and capturing ringforts are allowed only when all your kings are immobile")]
    KingsStillMobile { example: String },
    #[error("{hill} has a {owner} king on it, so no king may move there")]
    KingOnTarget { hill: Hill, owner: Player },
    #[error("{hill} is an enemy ringfort that you do not besiege: a king moves onto an enemy ringfort only to capture it, when every hill next to it holds your ringfort")]
    EnemyNotBesieged { hill: Hill },
    #[error("sacrificing ringforts is part of hkot-2 only")]
    SacrificeNotInVariant,
    #[error("you may sacrifice ringforts only after losing exactly one king")]
    SacrificeNeedsOneLostKing,
    #[error("only a backtrack onto your own ringfort can sacrifice it, and {hill} is not yours")]
    SacrificeNeedsOwnRingfort { hill: Hill },
    #[error("{hill} is not besieged, so it cannot be sacrificed")]
    SacrificeNotBesieged { hill: Hill },
    #[error("your king on {king} stands on enemy territory and must move this turn, for example {example}")]
    StrandedKingMustMove { king: Hill, example: String },
    #[error("your king on {king} can reach a vacant hill, so it must move to one, for example {example}")]
    StrandedKingMustBuild { king: Hill, example: String },

    // --- Sacred Hill ---
    #[error("you must capture a besieged enemy ringfort this turn: {options}")]
    MustCapture { options: String },
    #[error("{hill} is not a knight's move from any of your ringforts; in Manoeuvres you can build on {options}")]
    NotKnightFromOwn { hill: Hill, options: String },
    #[error("{hill} is too close to your ringfort on {fort}: in Manoeuvres a new ringfort must be at least a knight's move from all of yours")]
    TooClose { hill: Hill, fort: Hill },
    #[error("{hill} is not next to any of your ringforts: in Battle you must build next to one while such a hill is vacant ({options})")]
    MustBuildAdjacent { hill: Hill, options: String },
    #[error("{hill} has priority {op}, but the highest priority now is {best} ({options}): build or capture there")]
    LowerPriority {
        hill: Hill,
        op: u32,
        best: u32,
        options: String,
    },
    #[error("{hill} holds {owner}'s ringfort, which you do not besiege: only besieged ringforts can be captured")]
    NotBesieged { hill: Hill, owner: Player },

    // --- Ard Rí ---
    #[error("there is no piece on {square}")]
    EmptySquare { square: Square },
    #[error("{square} holds a piece of the {owner}, and it is the {to_move}' turn")]
    NotYourPiece {
        square: Square,
        owner: Team,
        to_move: Team,
    },
    #[error(
        "{from}-{to} is not a step: every piece moves exactly one square along a rank or file"
    )]
    NotOneStep { from: Square, to: Square },
    #[error("{square} is occupied")]
    SquareOccupied { square: Square },
    #[error("only the king may stop on {square}: the throne d4 and the corners are his")]
    RestrictedSquare { square: Square },
    #[error("{from}-{to} would repeat a position for the third time")]
    ThirdRepetition { from: Square, to: Square },

    /// The fallback: never expected, but every illegal move gets a message.
    #[error("that move is not legal here; you can play {examples}")]
    NotLegal { examples: String },
}

impl IllegalMove {
    /// Whether the message already names moves the player can make.
    pub fn lists_moves(&self) -> bool {
        matches!(
            self,
            IllegalMove::PassNotAllowed { .. }
                | IllegalMove::PlacementNeedsHill { .. }
                | IllegalMove::KingMoveExpected { .. }
                | IllegalMove::NoKingsInSacredHill { .. }
                | IllegalMove::KingsStillMobile { .. }
                | IllegalMove::StrandedKingMustMove { .. }
                | IllegalMove::StrandedKingMustBuild { .. }
                | IllegalMove::MustCapture { .. }
                | IllegalMove::NotKnightFromOwn { .. }
                | IllegalMove::MustBuildAdjacent { .. }
                | IllegalMove::LowerPriority { .. }
                | IllegalMove::NotLegal { .. }
        )
    }
}

/// Why text could not be read as a move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseMoveError {
    #[error("no move given: write {expected}")]
    Empty { expected: &'static str },
    #[error("'{text}' is too long to be a move")]
    TooLong { text: String },
    #[error("'{text}' is not a hill: columns run A to G and rows 1 to 7")]
    NotAHill { text: String },
    #[error("{text} is not a hill: the corners A1, G1, A7 and G7 are not part of the board")]
    MissingCorner { text: String },
    #[error("'{text}' is not a square: files run a to g and ranks 1 to 7")]
    NotASquare { text: String },
    #[error("'{text}' is not a move: write {expected}")]
    Unreadable {
        text: String,
        expected: &'static str,
    },
}

/// Why move text could not be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error(transparent)]
    Parse(#[from] ParseMoveError),
    #[error(transparent)]
    Illegal(#[from] IllegalMove),
}
