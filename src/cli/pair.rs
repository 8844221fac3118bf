//! `tara-bot pair`: tournament pairings as text (the contract in docs/cli.md).
//!
//! `--dutch FILE` pairs the next round of a TRF-16 tournament by the FIDE Dutch system and
//! prints it as bbpPairings does: the number of pairs, then one pair per line as two starting
//! ranks, the first mover (White) first, a pairing-allocated bye as `N 0` (last).
//!
//! `--round-robin N [--double]` prints FIDE's Berger table (docs/rules.md §10: round robin), one
//! round per line: `Round 1: 1-6 2-5 3-4`, boards in the table's order, each game as two player
//! numbers, the one who moves first first; a bye (the dummy player of an odd table) as `N-bye` on
//! the board where the table puts it.

use crate::tournament::dutch::{Board, DutchError};
use crate::tournament::dutch_pair;
use crate::tournament::{double_round_robin, single_round_robin, TablePairing, Trf, TrfError};

/// The most players `--round-robin` accepts (a table of 1,000 is 999 rounds of 500 boards).
pub const MAX_ROUND_ROBIN: u32 = 1000;

/// Why no table was printed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PairError {
    #[error("a round robin needs at least 2 players, not {0}")]
    TooFew(u32),
    #[error("a round robin of {0} players is more than the {MAX_ROUND_ROBIN} this command prints")]
    TooMany(u32),
}

/// Why `--dutch` printed no pairing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DutchFileError {
    #[error("{0}")]
    File(#[from] TrfError),
    #[error("{0}")]
    Pairing(#[from] DutchError),
    /// The file's last round has games without a result (exit status 2).
    #[error(
        "round {round} is not finished: {} no result for it (a game in progress is left \
         blank). Pair the next round once every game of round {round} has its result \
         (an absence written `0000 - Z`)",
        players_have(.players)
    )]
    Unfinished { round: u32, players: Vec<u32> },
}

/// "player 3 has", "players 2, 4 and 5 have".
fn players_have(ranks: &[u32]) -> String {
    let list: Vec<String> = ranks.iter().map(u32::to_string).collect();
    match list.as_slice() {
        [one] => format!("player {one} has"),
        [rest @ .., last] => format!("players {} and {last} have", rest.join(", ")),
        [] => "no player has".into(),
    }
}

/// The lines `pair --dutch` prints for the TRF-16 text `trf`.
/// A file whose last round is not finished (exported in the middle of a round: its bye and
/// finished games written, its games in progress blank) is refused: the round in progress is
/// not paired again, nor a next round paired around it.
pub fn dutch_lines(trf: &str) -> Result<Vec<String>, DutchFileError> {
    let trf = Trf::parse(trf)?;
    if let Some((round, players)) = trf.unfinished_round() {
        return Err(DutchFileError::Unfinished { round, players });
    }
    let boards = dutch_pair::pair(&trf)?;
    let mut lines = vec![boards.len().to_string()];
    lines.extend(boards.iter().map(|b| match *b {
        Board::Game { white, black } => format!("{white} {black}"),
        Board::Bye { player } => format!("{player} 0"),
    }));
    Ok(lines)
}

/// The lines of the Berger table for `players` players, single or double.
pub fn round_robin_lines(players: u32, double: bool) -> Result<Vec<String>, PairError> {
    if players < 2 {
        return Err(PairError::TooFew(players));
    }
    if players > MAX_ROUND_ROBIN {
        return Err(PairError::TooMany(players));
    }
    let table = if double {
        double_round_robin(players)
    } else {
        single_round_robin(players)
    };
    Ok(table
        .iter()
        .enumerate()
        .map(|(i, round)| {
            let boards: Vec<String> = round
                .iter()
                .map(|p| match *p {
                    TablePairing::Game { first, second } => format!("{first}-{second}"),
                    TablePairing::Bye { player } => format!("{player}-bye"),
                })
                .collect();
            format!("Round {}: {}", i + 1, boards.join(" "))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_and_double_tables_as_text() {
        assert_eq!(
            round_robin_lines(4, false).unwrap(),
            vec!["Round 1: 1-4 2-3", "Round 2: 4-3 1-2", "Round 3: 2-4 3-1"]
        );
        assert_eq!(
            round_robin_lines(3, true).unwrap(),
            vec![
                "Round 1: 1-bye 2-3",
                "Round 2: 2-bye 3-1",
                "Round 3: 3-bye 1-2",
                "Round 4: 1-bye 3-2",
                "Round 5: 3-bye 2-1",
                "Round 6: 2-bye 1-3",
            ]
        );
    }

    #[test]
    fn refuses_tables_it_cannot_or_will_not_print() {
        assert_eq!(round_robin_lines(1, false), Err(PairError::TooFew(1)));
        assert_eq!(round_robin_lines(0, true), Err(PairError::TooFew(0)));
        assert_eq!(
            round_robin_lines(1001, false),
            Err(PairError::TooMany(1001))
        );
        assert_eq!(round_robin_lines(1000, false).unwrap().len(), 999);
    }
}
