//! FIDE Berger tables (handbook C.05, annex 1) as docs/rules.md §10 (round robin) uses them: the
//! single round robin for any number of players (with an odd number a dummy player is added, and
//! its pairing is a bye), and the double round robin.

/// One pairing of a round-robin table, by player number (1-based, in the order of docs/rules.md §10
/// (round robin): sign-up sorted by rating). `first` moves first ("White" in FIDE's tables).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TablePairing {
    Game {
        first: u32,
        second: u32,
    },
    /// The player's opponent is the dummy player: a bye (unplayed, no points).
    Bye {
        player: u32,
    },
}

/// The rounds of FIDE's Berger table for `players` players, each round in the table's order
/// of boards. Fewer than two players have no games: the table is empty.
///
/// With an even `n` (the number of players, plus the dummy when odd), the player paired with
/// `n` in round `r` is `p(r)`, with `p(1) = 1` and `p(r + 1) = p(r) + n/2` counted in `1..n-1`;
/// `p(r)` moves first against `n` in odd rounds and second in even rounds, and on the other
/// boards `p(r) + k` meets `p(r) - k` (again counted in `1..n-1`), the first moving first.
pub fn single_round_robin(players: u32) -> Vec<Vec<TablePairing>> {
    if players < 2 {
        return Vec::new();
    }
    let n = players + players % 2;
    let m = n - 1;
    // The player number p + d counted in 1..=m.
    let wrap = |p: u32, d: i64| -> u32 {
        let z = (i64::from(p) - 1 + d).rem_euclid(i64::from(m));
        z as u32 + 1
    };
    let pairing = |first: u32, second: u32| {
        if first > players {
            TablePairing::Bye { player: second }
        } else if second > players {
            TablePairing::Bye { player: first }
        } else {
            TablePairing::Game { first, second }
        }
    };
    let mut rounds = Vec::with_capacity(m as usize);
    let mut p = 1;
    for r in 1..=m {
        let mut round = Vec::with_capacity((n / 2) as usize);
        round.push(if r % 2 == 1 {
            pairing(p, n)
        } else {
            pairing(n, p)
        });
        for k in 1..n / 2 {
            round.push(pairing(wrap(p, i64::from(k)), wrap(p, -i64::from(k))));
        }
        rounds.push(round);
        p = wrap(p, i64::from(n / 2));
    }
    rounds
}

/// The double round robin of docs/rules.md §10 (round robin): the first cycle is the Berger table
/// with its last two rounds swapped (FIDE's recommendation, so that nobody has the same colour
/// three times in a row), and the second cycle is the table in its own order with every colour
/// reversed.
pub fn double_round_robin(players: u32) -> Vec<Vec<TablePairing>> {
    let table = single_round_robin(players);
    let mut first = table.clone();
    let len = first.len();
    if len >= 2 {
        first.swap(len - 2, len - 1);
    }
    let second = table.into_iter().map(|round| {
        round
            .into_iter()
            .map(|p| match p {
                TablePairing::Game { first, second } => TablePairing::Game {
                    first: second,
                    second: first,
                },
                bye => bye,
            })
            .collect::<Vec<_>>()
    });
    first.into_iter().chain(second).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table written as FIDE prints it: one round per line, `a-b` for a game (a first), with
    /// the dummy player as `n + 1` for odd `n`.
    fn parse(table: &str, players: u32) -> Vec<Vec<TablePairing>> {
        table
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| {
                l.split_whitespace()
                    .map(|g| {
                        let (a, b) = g.split_once('-').unwrap();
                        let (a, b): (u32, u32) = (a.parse().unwrap(), b.parse().unwrap());
                        if a > players {
                            TablePairing::Bye { player: b }
                        } else if b > players {
                            TablePairing::Bye { player: a }
                        } else {
                            TablePairing::Game {
                                first: a,
                                second: b,
                            }
                        }
                    })
                    .collect()
            })
            .collect()
    }

    // FIDE handbook C.05, annex 1, the Berger tables for 3 or 4, 5 or 6, 7 or 8 players,
    // copied by hand.
    const FOUR: &str = "
        1-4 2-3
        4-3 1-2
        2-4 3-1";
    const SIX: &str = "
        1-6 2-5 3-4
        6-4 5-3 1-2
        2-6 3-1 4-5
        6-5 1-4 2-3
        3-6 4-2 5-1";
    const EIGHT: &str = "
        1-8 2-7 3-6 4-5
        8-5 6-4 7-3 1-2
        2-8 3-1 4-7 5-6
        8-6 7-5 1-4 2-3
        3-8 4-2 5-1 6-7
        8-7 1-6 2-5 3-4
        4-8 5-3 6-2 7-1";

    #[test]
    fn the_published_tables_for_four_six_and_eight() {
        assert_eq!(single_round_robin(4), parse(FOUR, 4));
        assert_eq!(single_round_robin(6), parse(SIX, 6));
        assert_eq!(single_round_robin(8), parse(EIGHT, 8));
    }

    #[test]
    fn odd_numbers_use_the_next_table_with_a_dummy_bye() {
        // Five players: the six-player table, player 6 being the dummy.
        let five = single_round_robin(5);
        assert_eq!(five, parse(SIX, 5));
        assert_eq!(
            five[0],
            vec![
                TablePairing::Bye { player: 1 },
                TablePairing::Game {
                    first: 2,
                    second: 5
                },
                TablePairing::Game {
                    first: 3,
                    second: 4
                },
            ]
        );
        assert_eq!(five[1][0], TablePairing::Bye { player: 4 });
        assert_eq!(single_round_robin(3), parse(FOUR, 3));
        assert_eq!(single_round_robin(7), parse(EIGHT, 7));
    }

    #[test]
    fn tiny_tables() {
        assert!(single_round_robin(0).is_empty());
        assert!(single_round_robin(1).is_empty());
        assert_eq!(
            single_round_robin(2),
            vec![vec![TablePairing::Game {
                first: 1,
                second: 2
            }]]
        );
    }

    /// Every pair of players meets exactly once (a bye once each when odd), everyone plays
    /// once per round, and colours are balanced to within one.
    #[test]
    fn every_table_up_to_thirty_players_is_a_round_robin() {
        for players in 2..=30u32 {
            let t = single_round_robin(players);
            let n = players + players % 2;
            assert_eq!(t.len() as u32, n - 1);
            let mut met = std::collections::BTreeSet::new();
            let mut firsts = vec![0i32; players as usize + 1];
            let mut byes = vec![0; players as usize + 1];
            for round in &t {
                let mut seen = std::collections::BTreeSet::new();
                for p in round {
                    match *p {
                        TablePairing::Game { first, second } => {
                            assert!(seen.insert(first) && seen.insert(second));
                            assert!(met.insert((first.min(second), first.max(second))));
                            firsts[first as usize] += 1;
                            firsts[second as usize] -= 1;
                        }
                        TablePairing::Bye { player } => {
                            assert!(seen.insert(player));
                            byes[player as usize] += 1;
                        }
                    }
                }
                assert_eq!(seen.len() as u32, players);
            }
            assert_eq!(met.len() as u32, players * (players - 1) / 2);
            for p in 1..=players as usize {
                assert!(firsts[p].abs() <= 1, "{players} players: {p} {}", firsts[p]);
                assert_eq!(byes[p], players % 2);
            }
        }
    }

    #[test]
    fn the_double_round_robin_swaps_the_last_two_rounds_then_reverses_colours() {
        let six = parse(SIX, 6);
        let double = double_round_robin(6);
        assert_eq!(double.len(), 10);
        assert_eq!(&double[..3], &six[..3]);
        assert_eq!(double[3], six[4]);
        assert_eq!(double[4], six[3]);
        // Round 6 is round 1 with colours reversed.
        assert_eq!(
            double[5],
            parse(
                "6-1 5-2 4-3
                ",
                6
            )[0]
        );
        assert_eq!(double[9], parse("6-3 2-4 1-5", 6)[0]);
    }

    /// The reason for the swap: nobody has the same colour three rounds running, for any
    /// number of players (the bye of an odd table breaks nothing: it is skipped).
    #[test]
    fn no_three_same_colours_in_a_row_in_a_double_round_robin() {
        for players in 3..=24u32 {
            let d = double_round_robin(players);
            for who in 1..=players {
                let colours: Vec<bool> = d
                    .iter()
                    .flat_map(|r| r.iter())
                    .filter_map(|p| match *p {
                        TablePairing::Game { first, .. } if first == who => Some(true),
                        TablePairing::Game { second, .. } if second == who => Some(false),
                        _ => None,
                    })
                    .collect();
                for w in colours.windows(3) {
                    assert!(
                        !(w[0] == w[1] && w[1] == w[2]),
                        "{players} players: player {who} has {colours:?}"
                    );
                }
            }
        }
    }
}
