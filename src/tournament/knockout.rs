//! The knockout bracket of docs/rules.md §10 (knockout): single elimination with the standard
//! seeding (seed 1 meets the lowest seed, seeds 1 and 2 can meet only in the final), and byes to
//! the top seeds to fill the first round to a power of two.

/// A tie of a knockout round, by seed (1 is the highest rating).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tie {
    /// A two-game match; `high` is the better seed of the two.
    Match { high: u32, low: u32 },
    /// The seed goes through to the next round without playing.
    Bye { seed: u32 },
}

/// The bracket for a number of players.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bracket {
    players: u32,
    /// The seeds in bracket order, one per slot of the first round; seeds above `players` are
    /// empty slots (byes for their neighbours).
    slots: Vec<u32>,
}

impl Bracket {
    /// The bracket for `players` seeds (at least two).
    pub fn new(players: u32) -> Option<Bracket> {
        if players < 2 {
            return None;
        }
        let size = players.next_power_of_two();
        // Standard seeding: [1, 2], then each seed s of a bracket of size k is followed by
        // 2k + 1 - s in the bracket of size 2k.
        let mut slots = vec![1u32, 2];
        while (slots.len() as u32) < size {
            let k = 2 * slots.len() as u32;
            slots = slots.iter().flat_map(|&s| [s, k + 1 - s]).collect();
        }
        Some(Bracket { players, slots })
    }

    pub fn players(&self) -> u32 {
        self.players
    }

    /// The number of rounds: log2 of the bracket's size.
    pub fn rounds(&self) -> u32 {
        self.slots.len().trailing_zeros()
    }

    /// The seeds in bracket order, top to bottom, with `None` for the empty slots.
    pub fn slots(&self) -> Vec<Option<u32>> {
        self.slots
            .iter()
            .map(|&s| (s <= self.players).then_some(s))
            .collect()
    }

    /// The first round's ties, top of the bracket first.
    pub fn first_round(&self) -> Vec<Tie> {
        self.slots
            .chunks(2)
            .map(|pair| tie(pair[0], pair[1], self.players))
            .collect()
    }
}

fn tie(a: u32, b: u32, players: u32) -> Tie {
    let (high, low) = (a.min(b), a.max(b));
    if low > players {
        Tie::Bye { seed: high }
    } else {
        Tie::Match { high, low }
    }
}

/// The next round's ties from the winners (seeds) of a round's ties, in bracket order: the
/// winners of ties 1 and 2 meet, then those of 3 and 4, and so on. `None` when the round had
/// one tie (the final) or an odd number of winners.
pub fn next_round(winners: &[u32]) -> Option<Vec<Tie>> {
    if winners.len() < 2 || !winners.len().is_multiple_of(2) {
        return None;
    }
    Some(
        winners
            .chunks(2)
            .map(|w| Tie::Match {
                high: w[0].min(w[1]),
                low: w[0].max(w[1]),
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(high: u32, low: u32) -> Tie {
        Tie::Match { high, low }
    }
    fn bye(seed: u32) -> Tie {
        Tie::Bye { seed }
    }

    #[test]
    fn eight_players_fill_the_bracket() {
        let b = Bracket::new(8).unwrap();
        assert_eq!(b.rounds(), 3);
        assert_eq!(b.first_round(), vec![m(1, 8), m(4, 5), m(2, 7), m(3, 6)]);
    }

    #[test]
    fn five_and_six_players_give_byes_to_the_top_seeds() {
        let five = Bracket::new(5).unwrap();
        assert_eq!(five.rounds(), 3);
        assert_eq!(five.first_round(), vec![bye(1), m(4, 5), bye(2), bye(3)]);
        let six = Bracket::new(6).unwrap();
        assert_eq!(six.first_round(), vec![bye(1), m(4, 5), bye(2), m(3, 6)]);
        assert_eq!(
            six.slots(),
            vec![
                Some(1),
                None,
                Some(4),
                Some(5),
                Some(2),
                None,
                Some(3),
                Some(6)
            ]
        );
    }

    #[test]
    fn thirteen_players() {
        let b = Bracket::new(13).unwrap();
        assert_eq!(b.rounds(), 4);
        assert_eq!(
            b.first_round(),
            vec![
                bye(1),
                m(8, 9),
                m(4, 13),
                m(5, 12),
                bye(2),
                m(7, 10),
                bye(3),
                m(6, 11)
            ]
        );
    }

    #[test]
    fn the_favourites_meet_as_late_as_possible() {
        // When the better seed wins every tie, round r has the top 2^(rounds - r + 1) seeds,
        // and the final is 1 v 2.
        for players in 2..=70 {
            let b = Bracket::new(players).unwrap();
            let mut ties = b.first_round();
            let byes = ties.iter().filter(|t| matches!(t, Tie::Bye { .. })).count() as u32;
            assert_eq!(byes, players.next_power_of_two() - players);
            // The byes are the top seeds.
            for t in &ties {
                if let Tie::Bye { seed } = t {
                    assert!(*seed <= byes);
                }
            }
            let mut round = 1;
            loop {
                let winners: Vec<u32> = ties
                    .iter()
                    .map(|t| match *t {
                        Tie::Match { high, .. } => high,
                        Tie::Bye { seed } => seed,
                    })
                    .collect();
                let Some(next) = next_round(&winners) else {
                    assert_eq!(winners, vec![1]);
                    assert_eq!(round, b.rounds());
                    break;
                };
                ties = next;
                round += 1;
                if ties.len() == 1 {
                    assert_eq!(ties, vec![m(1, 2)]);
                }
                if round >= 2 {
                    // In round 2 onwards every tie of the top seeds is 1 v lowest remaining.
                    let top = 2 * ties.len() as u32;
                    for t in &ties {
                        let Tie::Match { high, low } = *t else {
                            panic!("a bye after round 1")
                        };
                        assert_eq!(high + low, top + 1);
                    }
                }
            }
        }
    }

    #[test]
    fn too_few_players() {
        assert_eq!(Bracket::new(0), None);
        assert_eq!(Bracket::new(1), None);
        assert_eq!(Bracket::new(2).unwrap().first_round(), vec![m(1, 2)]);
        assert_eq!(next_round(&[3]), None);
    }
}
