//! The FIDE Dutch system (handbook C.04.3, the rules in force since February 2026), as
//! bbpPairings 6 implements them: here the players' state for the next round (who is paired,
//! scores, colour preferences, floats, bye eligibility, which pairs the absolute criteria
//! allow) and the colour allocation of a pair; the pairing itself (the brackets and the
//! quality criteria, as a weighted matching) is in [`super::dutch_pair`].
//!
//! Definitions, as bbpPairings computes them:
//! * Colour difference: games with White minus games with Black, over games played over the
//!   board. The preference is, in order: the colour that evens a difference of 2 or more
//!   (absolute); the opposite of the last colour when the last two played games had the same
//!   colour (absolute); the colour that evens a difference of 1 (strong); the opposite of the
//!   last played colour (mild); none before any game.
//! * A float of an earlier round: a player who had no game over the board but scored in it
//!   floated down; otherwise down (up) if their score before that round was higher (lower)
//!   than their opponent's.
//! * Bye eligibility (C.04.1, 2025): nobody who already has a round unplayed worth a win (a
//!   pairing-allocated bye, a full-point bye, a forfeit win).
//! * Compatible pairs: not met over the board before (a forfeit is not a meeting), and not
//!   both with the same absolute preference, except in the last round for a player with more
//!   than half the maximum score.

use super::points::Points;
use super::trf::{Colour, RoundEntry, Trf};
use std::collections::BTreeSet;

/// How a player floated in an earlier round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Float {
    Down,
    Up,
    None,
}

/// How strongly a player wants a colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strength {
    Mild,
    Strong,
    Absolute,
}

/// A player to be paired in the next round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DutchPlayer {
    /// The starting rank in the TRF (pairing number).
    pub rank: u32,
    /// The position among the players of the tournament by starting rank, from 0 (counting
    /// only those bbpPairings counts: everyone who took part in a pairing or is to be paired).
    pub order: u32,
    pub score: Points,
    /// Games played over the board.
    pub played_games: u32,
    /// Games with White minus games with Black.
    pub colour_difference: i32,
    /// The preferred colour and how strongly, `None` before any game.
    pub preference: Option<(Colour, Strength)>,
    /// Set when the last two games played had the same colour: that colour.
    pub repeated: Option<Colour>,
    /// The colours of the games played, in order.
    pub colours: Vec<Colour>,
    /// Opponents met over the board (starting ranks).
    pub met: BTreeSet<u32>,
    /// The floats of the last round and of the one before (`None` when there is no such
    /// round).
    pub floats: [Float; 2],
    pub bye_eligible: bool,
}

impl DutchPlayer {
    pub fn absolute(&self) -> bool {
        matches!(self.preference, Some((_, Strength::Absolute)))
    }
    fn strong(&self) -> bool {
        matches!(self.preference, Some((_, Strength::Strong)))
    }
    fn colour(&self) -> Option<Colour> {
        self.preference.map(|(c, _)| c)
    }
    fn imbalance(&self) -> u32 {
        self.colour_difference.unsigned_abs()
    }
}

/// The state of a tournament before its next round is paired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NextRound {
    /// The rounds already paired.
    pub paired: u32,
    /// The tournament's number of rounds (`XXR`).
    pub total: u32,
    /// The players to pair, by starting rank.
    pub players: Vec<DutchPlayer>,
}

/// Why the next round cannot be prepared.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DutchError {
    #[error("the file has no XXR line: the Dutch system needs the number of rounds")]
    NoRoundCount,
    #[error("all {0} rounds have been paired")]
    Finished(u32),
    #[error("there is nobody to pair in the next round")]
    NobodyToPair,
    #[error("no pairing satisfies the absolute criteria: {0}")]
    NoLegalPairing(String),
    #[error("the tournament is too large to pair ({0} bits of weight)")]
    TooLarge(u32),
}

fn entry(rounds: &[RoundEntry], r: usize) -> RoundEntry {
    rounds.get(r).copied().unwrap_or(RoundEntry::NOT_PAIRED)
}

/// A player's score over the first `rounds` rounds.
fn score(rounds: &[RoundEntry], upto: usize) -> Points {
    rounds.iter().take(upto).map(|e| e.code.points()).sum()
}

impl NextRound {
    /// The players' state from a TRF file, for pairing the round after those it holds.
    pub fn from_trf(trf: &Trf) -> Result<NextRound, DutchError> {
        let total = trf.total_rounds.ok_or(DutchError::NoRoundCount)?;
        // Rounds already paired, as bbpPairings counts them: a last entry that took no part
        // in a pairing (an absence entered in advance) does not make a round.
        let paired = trf
            .players
            .iter()
            .map(|p| {
                let n = p.rounds.len() as u32;
                match p.rounds.last() {
                    Some(last) if !last.participated() => n - 1,
                    _ => n,
                }
            })
            .max()
            .unwrap_or(0);
        if paired >= total {
            return Err(DutchError::Finished(total));
        }
        let mut by_rank: Vec<_> = trf.players.iter().collect();
        by_rank.sort_by_key(|p| p.rank);
        let r = paired as usize;
        let scores: std::collections::BTreeMap<u32, &[RoundEntry]> = by_rank
            .iter()
            .map(|p| (p.rank, p.rounds.as_slice()))
            .collect();
        let mut players = Vec::new();
        let mut order = 0;
        for p in by_rank {
            let to_pair = p.rounds.len() <= r;
            if !to_pair && !p.rounds.iter().any(RoundEntry::participated) {
                continue;
            }
            let this_order = order;
            order += 1;
            if !to_pair {
                continue;
            }
            let mut colours = Vec::new();
            let mut met = BTreeSet::new();
            let mut bye_eligible = true;
            for i in 0..r {
                let e = entry(&p.rounds, i);
                if e.played() {
                    if let (Some(c), Some(o)) = (e.colour, e.opponent) {
                        colours.push(c);
                        met.insert(o);
                    }
                } else if e.code.points() == Points::ONE {
                    bye_eligible = false;
                }
            }
            let whites = colours.iter().filter(|&&c| c == Colour::White).count() as i32;
            let difference = 2 * whites - colours.len() as i32;
            let last = colours.last().copied();
            let repeated = match colours.as_slice() {
                [.., a, b] if a == b => Some(*b),
                _ => None,
            };
            let evens = if difference > 0 {
                Colour::Black
            } else {
                Colour::White
            };
            let preference = if difference.abs() > 1 {
                Some((evens, Strength::Absolute))
            } else if let Some(c) = repeated {
                Some((c.opposite(), Strength::Absolute))
            } else if difference != 0 {
                Some((evens, Strength::Strong))
            } else {
                last.map(|c| (c.opposite(), Strength::Mild))
            };
            let float = |back: usize| -> Float {
                if r < back {
                    return Float::None;
                }
                let i = r - back;
                let e = entry(&p.rounds, i);
                if !e.played() {
                    return if e.code.points() > Points::ZERO {
                        Float::Down
                    } else {
                        Float::None
                    };
                }
                let mine = score(&p.rounds, i);
                let theirs = e
                    .opponent
                    .and_then(|o| scores.get(&o))
                    .map_or(Points::ZERO, |rs| score(rs, i));
                match mine.cmp(&theirs) {
                    std::cmp::Ordering::Greater => Float::Down,
                    std::cmp::Ordering::Less => Float::Up,
                    std::cmp::Ordering::Equal => Float::None,
                }
            };
            players.push(DutchPlayer {
                rank: p.rank,
                order: this_order,
                score: score(&p.rounds, r),
                played_games: colours.len() as u32,
                colour_difference: difference,
                preference,
                repeated,
                colours,
                met,
                floats: [float(1), float(2)],
                bye_eligible,
            });
        }
        Ok(NextRound {
            paired,
            total,
            players,
        })
    }

    /// Whether the absolute criteria allow `a` and `b` to meet: they have not met over the
    /// board, and they do not have the same absolute colour preference, unless this is the
    /// last round and one of them has more than half the maximum score so far.
    pub fn compatible(&self, a: &DutchPlayer, b: &DutchPlayer) -> bool {
        if a.met.contains(&b.rank) || b.met.contains(&a.rank) {
            return false;
        }
        if a.absolute() && b.absolute() && a.colour() == b.colour() {
            let last_round = self.paired + 1 >= self.total;
            let half = Points::halves(self.paired);
            return last_round && (a.score > half || b.score > half);
        }
        true
    }

    /// Whether `a` ranks above `b`: a higher score, or the same score and an earlier
    /// starting rank.
    pub fn ranks_above(a: &DutchPlayer, b: &DutchPlayer) -> bool {
        (a.score, std::cmp::Reverse(a.order)) > (b.score, std::cmp::Reverse(b.order))
    }

    /// The colour `a` gets against `b` (C.04.3 E, bbpPairings' order of the rules):
    /// both preferences granted when they differ; else the stronger absolute preference (the
    /// larger colour difference); else a strong preference over a weaker one; else the colours
    /// alternated from the last round in which the two had different colours; else the
    /// higher-ranked player's preference; with no preference at all, the colours of the top
    /// player's line of the first round (`first`: the top player's colour in round 1,
    /// alternating down the starting order).
    pub fn colour_of(&self, a: &DutchPlayer, b: &DutchPlayer, first: Colour) -> Colour {
        if let Some(c) = neutral_colour(a, b) {
            return c;
        }
        let a_above = Self::ranks_above(a, b);
        match a.colour() {
            None => {
                let (top, flip) = if a_above {
                    (a.order, false)
                } else {
                    (b.order, true)
                };
                let c = if top % 2 == 0 {
                    first
                } else {
                    first.opposite()
                };
                if flip {
                    c.opposite()
                } else {
                    c
                }
            }
            Some(pa) => {
                if a_above {
                    pa
                } else {
                    b.colour().map_or(pa, Colour::opposite)
                }
            }
        }
    }
}

/// One line of a round's pairings: the player who moves first and their opponent, or a
/// pairing-allocated bye.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Board {
    Game { white: u32, black: u32 },
    Bye { player: u32 },
}

impl NextRound {
    /// The boards in the order they are published (as bbpPairings prints them): by the
    /// higher score of the two players, then the lower score, then the starting order of the
    /// higher-ranked player; the bye last. Boards naming players not in this round are left
    /// where the order puts unknown players: last, before the bye.
    pub fn published_order(&self, boards: &mut [Board]) {
        let find = |rank: u32| self.players.iter().find(|p| p.rank == rank);
        let key = |b: &Board| match *b {
            Board::Bye { .. } => (
                true,
                std::cmp::Reverse(Points::ZERO),
                std::cmp::Reverse(Points::ZERO),
                u32::MAX,
            ),
            Board::Game { white, black } => match (find(white), find(black)) {
                (Some(w), Some(b)) => {
                    let (high, low) = if Self::ranks_above(w, b) {
                        (w, b)
                    } else {
                        (b, w)
                    };
                    (
                        false,
                        std::cmp::Reverse(high.score),
                        std::cmp::Reverse(low.score),
                        high.order,
                    )
                }
                _ => (
                    false,
                    std::cmp::Reverse(Points::ZERO),
                    std::cmp::Reverse(Points::ZERO),
                    u32::MAX,
                ),
            },
        };
        boards.sort_by_key(key);
    }
}

/// The colour for `a` decided by the players' preferences and histories alone, if they
/// decide it.
fn neutral_colour(a: &DutchPlayer, b: &DutchPlayer) -> Option<Colour> {
    let (pa, pb) = (a.colour(), b.colour());
    if pa.is_none() || pb.is_none() || pa != pb {
        return pa.or(pb.map(Colour::opposite));
    }
    if a.absolute() && (a.imbalance() > b.imbalance() || !b.absolute()) {
        return pa;
    }
    if b.absolute() && (b.imbalance() > a.imbalance() || !a.absolute()) {
        return pb.map(Colour::opposite);
    }
    if a.strong() && !b.strong() {
        return pa;
    }
    if b.strong() && !a.strong() {
        return pb.map(Colour::opposite);
    }
    // The latest round in which their colours differed, counting back over played games.
    a.colours
        .iter()
        .rev()
        .zip(b.colours.iter().rev())
        .find(|(x, y)| x != y)
        .map(|(_, &theirs)| theirs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Colour::{Black as B, White as W};

    /// Five players, two rounds played of four: R1 1-4 1-0, 5-2 0-1, 3 the pairing-allocated
    /// bye; R2 1-2 drawn, 3 wins by forfeit against 5, 4 the pairing-allocated bye.
    const FIVE: &str = "\
XXR 4
001    1      P1                                2000                             1.5          4 w 1     2 w =
001    2      P2                                1900                             1.5          5 b 1     1 b =
001    3      P3                                1800                             2.0       0000 - U     5 w +
001    4      P4                                1700                             1.0          1 b 0  0000 - U
001    5      P5                                1600                             0.0          2 w 0     3 b -
";

    fn player(n: &NextRound, rank: u32) -> &DutchPlayer {
        n.players.iter().find(|p| p.rank == rank).unwrap()
    }

    #[test]
    fn preferences_floats_and_byes_computed_by_hand() {
        let n = NextRound::from_trf(&Trf::parse(FIVE).unwrap()).unwrap();
        assert_eq!((n.paired, n.total, n.players.len()), (2, 4, 5));
        let p = |r| player(&n, r);
        // 1: W W, absolute Black; 2: B B, absolute White; 3: no game; 4: B, a difference of
        // one, strong White; 5: W, strong Black (the forfeit is not a game).
        assert_eq!(p(1).preference, Some((B, Strength::Absolute)));
        assert_eq!(p(1).repeated, Some(W));
        assert_eq!(p(2).preference, Some((W, Strength::Absolute)));
        assert_eq!(p(3).preference, None);
        assert_eq!(p(4).preference, Some((W, Strength::Strong)));
        assert_eq!(p(5).preference, Some((B, Strength::Strong)));
        assert_eq!(p(1).colour_difference, 2);
        assert_eq!(p(5).played_games, 1);
        assert_eq!(p(3).score, Points::ONE + Points::ONE);
        // Floats: 3 scored without playing in both rounds (down, down); 4 had the bye last
        // round; 1 and 2 met on equal scores; 5 lost by forfeit (no float).
        assert_eq!(p(3).floats, [Float::Down, Float::Down]);
        assert_eq!(p(4).floats, [Float::Down, Float::None]);
        assert_eq!(p(1).floats, [Float::None, Float::None]);
        assert_eq!(p(5).floats, [Float::None, Float::None]);
        // Byes: not for 3 (a bye and a forfeit win) or 4 (a bye).
        let eligible: Vec<u32> = n
            .players
            .iter()
            .filter(|p| p.bye_eligible)
            .map(|p| p.rank)
            .collect();
        assert_eq!(eligible, vec![1, 2, 5]);
        // Met over the board only: 3 and 5 may meet again after the forfeit.
        assert!(!n.compatible(p(1), p(2)));
        assert!(!n.compatible(p(5), p(2)));
        assert!(n.compatible(p(3), p(5)));
        assert!(n.compatible(p(1), p(3)));
        // Colours: 1's absolute Black against 3's none; 4's and 5's preferences both granted.
        assert_eq!(n.colour_of(p(1), p(3), W), B);
        assert_eq!(n.colour_of(p(3), p(1), W), W);
        assert_eq!(n.colour_of(p(4), p(5), W), W);
        assert_eq!(n.colour_of(p(5), p(4), W), B);
    }

    /// Both absolute Black: allowed in the last round for a player above half the maximum
    /// score, never otherwise.
    #[test]
    fn same_absolute_colours_only_for_top_scorers_in_the_last_round() {
        let file = |rounds: u32| {
            format!(
                "XXR {rounds}
001    1      P1                                2000                             2.0          3 w 1     4 w 1
001    2      P2                                1900                             2.0          4 w 1     3 w 1
001    3      P3                                1800                             0.0          1 b 0     2 b 0
001    4      P4                                1700                             0.0          2 b 0     1 b 0
"
            )
        };
        let last = NextRound::from_trf(&Trf::parse(&file(3)).unwrap()).unwrap();
        let p = |n: &NextRound, r| player(n, r).clone();
        assert!(last.compatible(&p(&last, 1), &p(&last, 2)));
        assert!(!last.compatible(&p(&last, 3), &p(&last, 4)));
        let not_last = NextRound::from_trf(&Trf::parse(&file(4)).unwrap()).unwrap();
        assert!(!not_last.compatible(&p(&not_last, 1), &p(&not_last, 2)));
        // Who gets the colour both want: the same colour difference and the same history, so
        // the higher ranked (1) gets Black.
        assert_eq!(last.colour_of(&p(&last, 1), &p(&last, 2), W), B);
        assert_eq!(last.colour_of(&p(&last, 2), &p(&last, 1), W), W);
        let done = NextRound::from_trf(&Trf::parse(&file(2)).unwrap());
        assert_eq!(done, Err(DutchError::Finished(2)));
        let mut no_xxr = Trf::parse(&file(3)).unwrap();
        no_xxr.total_rounds = None;
        assert_eq!(NextRound::from_trf(&no_xxr), Err(DutchError::NoRoundCount));
    }

    #[test]
    fn boards_in_the_published_order() {
        let n = NextRound::from_trf(&Trf::parse(FIVE).unwrap()).unwrap();
        // Scores: 3 has 2, 1 and 2 have 1½, 4 has 1, 5 has 0.
        let mut boards = vec![
            Board::Bye { player: 5 },
            Board::Game { white: 4, black: 1 },
            Board::Game { white: 2, black: 3 },
        ];
        n.published_order(&mut boards);
        assert_eq!(
            boards,
            vec![
                Board::Game { white: 2, black: 3 },
                Board::Game { white: 4, black: 1 },
                Board::Bye { player: 5 },
            ]
        );
        // Equal top scores: the lower score of the pair decides, then the starting order.
        let mut boards = vec![
            Board::Game { white: 5, black: 2 },
            Board::Game { white: 4, black: 1 },
        ];
        n.published_order(&mut boards);
        assert_eq!(boards[0], Board::Game { white: 4, black: 1 });
        let mut boards = vec![
            Board::Game { white: 5, black: 2 },
            Board::Game { white: 4, black: 3 },
            Board::Game { white: 5, black: 1 },
        ];
        n.published_order(&mut boards);
        assert_eq!(
            boards,
            vec![
                Board::Game { white: 4, black: 3 },
                Board::Game { white: 5, black: 1 },
                Board::Game { white: 5, black: 2 },
            ]
        );
    }

    fn bare(order: u32, score: u32, colours: &[Colour]) -> DutchPlayer {
        let whites = colours.iter().filter(|&&c| c == W).count() as i32;
        let difference = 2 * whites - colours.len() as i32;
        let repeated = match colours {
            [.., a, b] if a == b => Some(*b),
            _ => None,
        };
        let evens = if difference > 0 { B } else { W };
        let preference = if difference.abs() > 1 {
            Some((evens, Strength::Absolute))
        } else if let Some(c) = repeated {
            Some((c.opposite(), Strength::Absolute))
        } else if difference != 0 {
            Some((evens, Strength::Strong))
        } else {
            colours.last().map(|c| (c.opposite(), Strength::Mild))
        };
        DutchPlayer {
            rank: order + 1,
            order,
            score: Points::halves(score),
            played_games: colours.len() as u32,
            colour_difference: difference,
            preference,
            repeated,
            colours: colours.to_vec(),
            met: BTreeSet::new(),
            floats: [Float::None; 2],
            bye_eligible: true,
        }
    }

    #[test]
    fn colour_allocation_rules_in_order() {
        let n = NextRound {
            paired: 4,
            total: 9,
            players: Vec::new(),
        };
        // Both mild White with equal histories at the end: the latest round where their
        // colours differed (round 2: a had White, c Black) gives each the other's colour.
        let a = bare(0, 4, &[B, W, W, B]);
        let c = bare(1, 4, &[W, B, W, B]);
        assert_eq!(a.preference, Some((W, Strength::Mild)));
        assert_eq!(c.preference, Some((W, Strength::Mild)));
        assert_eq!(n.colour_of(&a, &c, W), B);
        assert_eq!(n.colour_of(&c, &a, W), W);
        // A strong preference beats a mild one for the same colour.
        let strong = bare(3, 4, &[B, W, B]);
        let mild = bare(2, 4, &[W, B]);
        assert_eq!(strong.preference, Some((W, Strength::Strong)));
        assert_eq!(n.colour_of(&mild, &strong, W), B);
        // Of two absolute preferences for the same colour, the larger difference wins.
        let two = bare(5, 4, &[B, B, W, B]);
        let repeat = bare(4, 4, &[W, B, B]);
        assert_eq!(two.preference, Some((W, Strength::Absolute)));
        assert_eq!(repeat.preference, Some((W, Strength::Absolute)));
        assert_eq!(n.colour_of(&repeat, &two, W), B);
        // No preferences at all: by the starting order from the top player's first colour.
        let (p0, p1, p2, p3) = (
            bare(0, 0, &[]),
            bare(1, 0, &[]),
            bare(2, 0, &[]),
            bare(3, 0, &[]),
        );
        assert_eq!(n.colour_of(&p0, &p3, W), W);
        assert_eq!(n.colour_of(&p3, &p0, W), B);
        assert_eq!(n.colour_of(&p1, &p2, W), B);
        assert_eq!(n.colour_of(&p2, &p1, W), W);
        assert_eq!(n.colour_of(&p0, &p3, B), B);
        // The order counts only when scores are equal: a higher score ranks above.
        let higher_score = bare(3, 2, &[]);
        assert_eq!(n.colour_of(&higher_score, &p0, W), B);
    }
}
