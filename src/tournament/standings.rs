//! Standings and tiebreaks exactly as docs/rules.md §10 (standings) defines them, from a plain
//! model of a tournament: its players, and its rounds of pairings with their results.

use super::points::Points;
use std::collections::BTreeSet;

/// A player of the tournament, as the tiebreaks need them. Players are referred to by their
/// index in [`Results::players`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entrant {
    /// The rating at the start of the tournament (the last tiebreak; higher is better).
    pub rating: i32,
    /// The order of sign-up (lower is earlier); used only to list players still tied.
    pub signup: u32,
}

/// The result of a game, or of a two-game match (by its points), played over the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    FirstWins,
    Draw,
    SecondWins,
}

/// One pairing of a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pairing {
    /// A game (or match) over the board; `result` is `None` while it is in progress.
    Game {
        first: usize,
        second: usize,
        result: Option<GameResult>,
    },
    /// A forfeit (docs/rules.md §10: forfeits): the winner scores 1, the loser 0; unplayed for
    /// both.
    Forfeit { winner: usize, loser: usize },
    /// A bye: unplayed, worth `points` (1 for a Swiss pairing-allocated bye, 0 for a round
    /// robin's dummy player).
    Bye { player: usize, points: Points },
}

/// A tournament's players and rounds. A player who appears in no pairing of a round (not yet
/// joined, withdrawn and no longer paired) scores 0 for it, and the round is unplayed for them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Results {
    pub players: Vec<Entrant>,
    pub rounds: Vec<Vec<Pairing>>,
}

/// Which table of tiebreaks applies (docs/rules.md §10: standings).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum System {
    /// Buchholz Cut-1, Buchholz, Sonneborn-Berger, wins over the board, rating.
    Swiss,
    /// Sonneborn-Berger, direct encounter, wins over the board, rating.
    RoundRobin,
    /// The round reached, then rating.
    Knockout,
}

/// One line of the standings. Every tiebreak is computed whatever the system, for display;
/// the order uses those of the system only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    pub player: usize,
    /// The place: 1 + the number of players strictly ahead, so players still tied after every
    /// tiebreak share it.
    pub rank: u32,
    /// Whether another player has the same place.
    pub shared: bool,
    pub score: Points,
    pub buchholz_cut1: Points,
    pub buchholz: Points,
    pub sonneborn_berger: Points,
    /// Round robin only: the player's points against the others tied with them on score and
    /// Sonneborn-Berger, when every two of those have met over the board.
    pub direct_encounter: Option<Points>,
    /// Games won over the board (not byes or forfeits).
    pub wins: u32,
    pub rating: i32,
    /// Knockout only: the last round the player took part in, plus one if they won its tie
    /// (so the champion of a 3-round bracket has 4).
    pub round_reached: Option<u32>,
    /// Games of the player still in progress.
    pub in_progress: u32,
}

/// What a round was for one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    /// A finished game over the board: the opponent and the player's points.
    Played { opponent: usize, points: Points },
    /// A game still in progress: no points, and no term of Buchholz.
    InProgress,
    /// A bye, a forfeit, or no pairing: the points, and the round is unplayed.
    Unplayed { points: Points },
}

fn entries(results: &Results) -> Vec<Vec<Entry>> {
    let n = results.players.len();
    let mut out = vec![Vec::with_capacity(results.rounds.len()); n];
    for round in &results.rounds {
        let mut this: Vec<Option<Entry>> = vec![None; n];
        for p in round {
            match *p {
                Pairing::Game {
                    first,
                    second,
                    result,
                } => {
                    let (a, b) = match result {
                        None => (Entry::InProgress, Entry::InProgress),
                        Some(r) => {
                            let (pa, pb) = match r {
                                GameResult::FirstWins => (Points::ONE, Points::ZERO),
                                GameResult::Draw => (Points::HALF, Points::HALF),
                                GameResult::SecondWins => (Points::ZERO, Points::ONE),
                            };
                            (
                                Entry::Played {
                                    opponent: second,
                                    points: pa,
                                },
                                Entry::Played {
                                    opponent: first,
                                    points: pb,
                                },
                            )
                        }
                    };
                    set(&mut this, first, a);
                    set(&mut this, second, b);
                }
                Pairing::Forfeit { winner, loser } => {
                    set(
                        &mut this,
                        winner,
                        Entry::Unplayed {
                            points: Points::ONE,
                        },
                    );
                    set(
                        &mut this,
                        loser,
                        Entry::Unplayed {
                            points: Points::ZERO,
                        },
                    );
                }
                Pairing::Bye { player, points } => {
                    set(&mut this, player, Entry::Unplayed { points });
                }
            }
        }
        for (i, e) in this.into_iter().enumerate() {
            out[i].push(e.unwrap_or(Entry::Unplayed {
                points: Points::ZERO,
            }));
        }
    }
    out
}

/// Records a player's entry for a round; a player index out of range is ignored (the bot
/// builds the model from its own players, so it does not happen).
fn set(this: &mut [Option<Entry>], player: usize, e: Entry) {
    if let Some(slot) = this.get_mut(player) {
        *slot = Some(e);
    }
}

/// The standings, best first; players still tied are listed by sign-up.
pub fn standings(results: &Results, system: System) -> Vec<Standing> {
    let entries = entries(results);
    let score: Vec<Points> = entries
        .iter()
        .map(|es| {
            es.iter()
                .map(|e| match *e {
                    Entry::Played { points, .. } | Entry::Unplayed { points } => points,
                    Entry::InProgress => Points::ZERO,
                })
                .sum()
        })
        .collect();
    let mut rows: Vec<Standing> = (0..results.players.len())
        .map(|i| standing_of(i, &entries[i], &score, results.players[i].rating))
        .collect();
    if system == System::Knockout {
        mark_rounds_reached(results, &mut rows);
    }
    let signup = |s: &Standing| results.players[s.player].signup;
    if system == System::RoundRobin {
        set_direct_encounters(&mut rows, &entries, signup);
    }
    let key = |s: &Standing| sort_key(system, s);
    rows.sort_by(|a, b| key(b).cmp(&key(a)).then(signup(a).cmp(&signup(b))));
    let keys: Vec<Vec<i64>> = rows.iter().map(key).collect();
    let mut place = 1;
    for i in 0..rows.len() {
        if i > 0 && keys[i] != keys[i - 1] {
            place = i as u32 + 1;
        }
        rows[i].rank = place;
        rows[i].shared =
            (i > 0 && keys[i] == keys[i - 1]) || (i + 1 < keys.len() && keys[i] == keys[i + 1]);
    }
    rows
}

/// Player `i`'s score and tiebreaks from their entries (`score`: everyone's score): an
/// unplayed round counts the player's own score in the Buchholz (FIDE's virtual opponent).
fn standing_of(i: usize, entries: &[Entry], score: &[Points], rating: i32) -> Standing {
    let mut terms = Vec::new();
    let mut sb = Points::ZERO;
    let mut wins = 0;
    let mut in_progress = 0;
    for e in entries {
        match *e {
            Entry::Played { opponent, points } => {
                let opp = score[opponent];
                terms.push(opp);
                sb += if points == Points::ONE {
                    wins += 1;
                    opp
                } else if points == Points::HALF {
                    opp.half()
                } else {
                    Points::ZERO
                };
            }
            Entry::Unplayed { .. } => terms.push(score[i]),
            Entry::InProgress => in_progress += 1,
        }
    }
    let buchholz: Points = terms.iter().copied().sum();
    let lowest = terms.iter().copied().min().unwrap_or(Points::ZERO);
    let buchholz_cut1 = Points::quarters(buchholz.in_quarters() - lowest.in_quarters());
    Standing {
        player: i,
        rank: 0,
        shared: false,
        score: score[i],
        buchholz_cut1,
        buchholz,
        sonneborn_berger: sb,
        direct_encounter: None,
        wins,
        rating,
        round_reached: None,
        in_progress,
    }
}

/// A knockout: the round each player reached (the round after the last one they went through;
/// both players of a tie still being played are in its round).
fn mark_rounds_reached(results: &Results, rows: &mut [Standing]) {
    for (r, round) in results.rounds.iter().enumerate() {
        let r = r as u32 + 1;
        for p in round {
            let (through, out) = match *p {
                Pairing::Game {
                    first,
                    second,
                    result,
                } => match result {
                    Some(GameResult::FirstWins) => (vec![first], vec![second]),
                    Some(GameResult::SecondWins) => (vec![second], vec![first]),
                    // A tie in progress (a drawn match goes on to deciders).
                    _ => (vec![], vec![first, second]),
                },
                Pairing::Forfeit { winner, loser } => (vec![winner], vec![loser]),
                Pairing::Bye { player, .. } => (vec![player], vec![]),
            };
            for (who, reached) in through
                .into_iter()
                .map(|w| (w, r + 1))
                .chain(out.into_iter().map(|l| (l, r)))
            {
                if let Some(row) = rows.get_mut(who) {
                    row.round_reached = Some(row.round_reached.unwrap_or(0).max(reached));
                }
            }
        }
    }
}

/// A round robin: within each group tied on score and Sonneborn-Berger, the points each scored
/// against the others of the group, when every two of them have met ([`direct_encounter`]).
/// Leaves `rows` sorted by score and Sonneborn-Berger, then sign-up.
fn set_direct_encounters(
    rows: &mut [Standing],
    entries: &[Vec<Entry>],
    signup: impl Fn(&Standing) -> u32,
) {
    rows.sort_by(|a, b| {
        (b.score, b.sonneborn_berger)
            .cmp(&(a.score, a.sonneborn_berger))
            .then(signup(a).cmp(&signup(b)))
    });
    let mut i = 0;
    while i < rows.len() {
        let mut j = i + 1;
        while j < rows.len()
            && (rows[j].score, rows[j].sonneborn_berger)
                == (rows[i].score, rows[i].sonneborn_berger)
        {
            j += 1;
        }
        if j - i > 1 {
            let group: Vec<usize> = rows[i..j].iter().map(|s| s.player).collect();
            if let Some(de) = direct_encounter(entries, &group) {
                for (row, d) in rows[i..j].iter_mut().zip(de) {
                    row.direct_encounter = Some(d);
                }
            }
        }
        i = j;
    }
}

/// What orders the standings of `system`, compared highest first: the score, then the system's
/// tiebreaks in order, then the rating.
fn sort_key(system: System, s: &Standing) -> Vec<i64> {
    let q = |p: Points| i64::from(p.in_quarters());
    match system {
        System::Swiss => vec![
            q(s.score),
            q(s.buchholz_cut1),
            q(s.buchholz),
            q(s.sonneborn_berger),
            i64::from(s.wins),
            i64::from(s.rating),
        ],
        System::RoundRobin => vec![
            q(s.score),
            q(s.sonneborn_berger),
            s.direct_encounter.map_or(-1, q),
            i64::from(s.wins),
            i64::from(s.rating),
        ],
        System::Knockout => vec![i64::from(s.round_reached.unwrap_or(0)), i64::from(s.rating)],
    }
}

/// Each player's points in finished games over the board against the others of `group`, in
/// the group's order; `None` unless every two of them have met over the board.
fn direct_encounter(entries: &[Vec<Entry>], group: &[usize]) -> Option<Vec<Points>> {
    let members: BTreeSet<usize> = group.iter().copied().collect();
    let mut met = BTreeSet::new();
    let mut points = Vec::with_capacity(group.len());
    for &p in group {
        let mut sum = Points::ZERO;
        for e in &entries[p] {
            if let Entry::Played {
                opponent,
                points: got,
            } = *e
            {
                if members.contains(&opponent) {
                    met.insert((p.min(opponent), p.max(opponent)));
                    sum += got;
                }
            }
        }
        points.push(sum);
    }
    let pairs = group.len() * (group.len() - 1) / 2;
    (met.len() == pairs).then_some(points)
}

#[cfg(test)]
mod tests {
    use super::*;
    use GameResult::*;

    fn entrants(ratings: &[i32]) -> Vec<Entrant> {
        ratings
            .iter()
            .enumerate()
            .map(|(i, &rating)| Entrant {
                rating,
                signup: i as u32,
            })
            .collect()
    }
    fn game(first: usize, second: usize, r: GameResult) -> Pairing {
        Pairing::Game {
            first,
            second,
            result: Some(r),
        }
    }
    fn q(quarters: u32) -> Points {
        Points::quarters(quarters)
    }
    /// (player, rank, shared) in order.
    fn places(s: &[Standing]) -> Vec<(usize, u32, bool)> {
        s.iter().map(|r| (r.player, r.rank, r.shared)).collect()
    }
    fn row(s: &[Standing], player: usize) -> &Standing {
        s.iter().find(|r| r.player == player).unwrap()
    }

    /// Five players A..E, three Swiss rounds, computed by hand:
    /// R1 A-B 1-0, C-D ½-½, E bye (1). R2 C-A 1-0, B wins by forfeit against E, D bye (1).
    /// R3 E has withdrawn (not paired); A-D 1-0, B-C ½-½.
    ///
    /// | | score | Buchholz terms | Bh | Bh cut-1 | SB | wins |
    /// |---|---|---|---|---|---|---|
    /// | A | 2 | B 1½, C 2, D 1½ | 5 | 3½ | 1½ + 1½ = 3 | 2 |
    /// | B | 1½ | A 2, own 1½, C 2 | 5½ | 4 | ½·2 = 1 | 0 |
    /// | C | 2 | D 1½, A 2, B 1½ | 5 | 3½ | ¾ + 2 + ¾ = 3½ | 1 |
    /// | D | 1½ | C 2, own 1½, A 2 | 5½ | 4 | ½·2 = 1 | 0 |
    /// | E | 1 | own 1, 1, 1 | 3 | 2 | 0 | 0 |
    ///
    /// C is ahead of A on Sonneborn-Berger; B and D (same rating) share third place.
    #[test]
    fn a_swiss_with_byes_a_forfeit_and_a_withdrawal() {
        let (a, b, c, d, e) = (0, 1, 2, 3, 4);
        let results = Results {
            players: entrants(&[2000, 1900, 1800, 1900, 1600]),
            rounds: vec![
                vec![
                    game(a, b, FirstWins),
                    game(c, d, Draw),
                    Pairing::Bye {
                        player: e,
                        points: Points::ONE,
                    },
                ],
                vec![
                    game(c, a, FirstWins),
                    Pairing::Forfeit {
                        winner: b,
                        loser: e,
                    },
                    Pairing::Bye {
                        player: d,
                        points: Points::ONE,
                    },
                ],
                vec![game(a, d, FirstWins), game(b, c, Draw)],
            ],
        };
        let s = standings(&results, System::Swiss);
        assert_eq!(
            places(&s),
            vec![
                (c, 1, false),
                (a, 2, false),
                (b, 3, true),
                (d, 3, true),
                (e, 5, false)
            ]
        );
        let expect = |p, score, bh1, bh, sb, wins| {
            let r = row(&s, p);
            assert_eq!(
                (
                    r.score,
                    r.buchholz_cut1,
                    r.buchholz,
                    r.sonneborn_berger,
                    r.wins
                ),
                (q(score), q(bh1), q(bh), q(sb), wins),
                "player {p}"
            );
            assert_eq!(r.direct_encounter, None);
            assert_eq!(r.in_progress, 0);
        };
        expect(a, 8, 14, 20, 12, 2);
        expect(b, 6, 16, 22, 4, 0);
        expect(c, 8, 14, 20, 14, 1);
        expect(d, 6, 16, 22, 4, 0);
        expect(e, 4, 8, 12, 0, 0);
    }

    /// A four-player round robin on the Berger table (1-4 2-3 / 4-3 1-2 / 2-4 3-1), all rated
    /// 1500: 1 beats 4, 2 beats 3, 4 beats 3, 2 beats 1, 2-4 and 3-1 drawn.
    /// Scores 1½, 2½, ½, 1½. Sonneborn-Berger: 1 has 1½ (beat 4) + ¼ (drew 3) = 1¾; 4 has ½
    /// (beat 3) + 1¼ (drew 2) = 1¾; 2 has ½ + 1½ + ¾ = 2¾; 3 has ¾. Players 1 and 4 are tied
    /// on score, Sonneborn-Berger, wins and rating; 1 beat 4, so the direct encounter puts 1
    /// ahead.
    #[test]
    fn a_round_robin_decided_by_direct_encounter() {
        let results = Results {
            players: entrants(&[1500; 4]),
            rounds: vec![
                vec![game(0, 3, FirstWins), game(1, 2, FirstWins)],
                vec![game(3, 2, FirstWins), game(0, 1, SecondWins)],
                vec![game(1, 3, Draw), game(2, 0, Draw)],
            ],
        };
        let s = standings(&results, System::RoundRobin);
        assert_eq!(
            places(&s),
            vec![(1, 1, false), (0, 2, false), (3, 3, false), (2, 4, false)]
        );
        assert_eq!(row(&s, 0).sonneborn_berger, q(7));
        assert_eq!(row(&s, 3).sonneborn_berger, q(7));
        assert_eq!(row(&s, 1).sonneborn_berger, q(11));
        assert_eq!(row(&s, 2).sonneborn_berger, q(3));
        assert_eq!(row(&s, 0).direct_encounter, Some(Points::ONE));
        assert_eq!(row(&s, 3).direct_encounter, Some(Points::ZERO));
        assert_eq!(row(&s, 1).direct_encounter, None);
        // The same games as a Swiss: no direct encounter, so 1 and 4 share second place
        // (Buchholz 1½ + 2½ + ½ = 4½ each, cut-1 4).
        let swiss = standings(&results, System::Swiss);
        assert_eq!(
            places(&swiss),
            vec![(1, 1, false), (0, 2, true), (3, 2, true), (2, 4, false)]
        );
        assert_eq!(row(&swiss, 0).buchholz, q(18));
        assert_eq!(row(&swiss, 0).buchholz_cut1, q(16));
    }

    /// Five players on the six-player Berger table (player 6 the dummy: byes worth 0);
    /// player 5 withdraws after round 2, so their games of rounds 3 and 5 are forfeits.
    ///
    /// R1: 1 bye; 2-5 1-0; 3-4 ½. R2: 4 bye; 5-3 ½; 1-2 1-0. R3: 2 bye; 3-1 1-0; 4 wins by
    /// forfeit against 5. R4: 5 bye; 1-4 ½; 2-3 1-0. R5: 3 bye; 4-2 1-0; 1 wins by forfeit
    /// against 5.
    ///
    /// Scores: 1: 2½, 2: 2, 3: 2, 4: 3, 5: ½. Sonneborn-Berger (games over the board only):
    /// 1: 2 (beat 2) + 1½ (drew 4) = 3½; 2: ½ (beat 5) + 2 (beat 3) = 2½;
    /// 3: 1½ (drew 4) + ¼ (drew 5) + 2½ (beat 1) = 4¼; 4: 1 + 1¼ + 2 = 4¼; 5: 1 (drew 3).
    #[test]
    fn a_round_robin_with_dummy_byes_and_a_withdrawal() {
        let bye = |player| Pairing::Bye {
            player,
            points: Points::ZERO,
        };
        let results = Results {
            players: entrants(&[1900, 1800, 1700, 1600, 1500]),
            rounds: vec![
                vec![bye(0), game(1, 4, FirstWins), game(2, 3, Draw)],
                vec![bye(3), game(4, 2, Draw), game(0, 1, FirstWins)],
                vec![
                    bye(1),
                    game(2, 0, FirstWins),
                    Pairing::Forfeit {
                        winner: 3,
                        loser: 4,
                    },
                ],
                vec![bye(4), game(0, 3, Draw), game(1, 2, FirstWins)],
                vec![
                    bye(2),
                    game(3, 1, FirstWins),
                    Pairing::Forfeit {
                        winner: 0,
                        loser: 4,
                    },
                ],
            ],
        };
        let s = standings(&results, System::RoundRobin);
        assert_eq!(
            places(&s),
            vec![
                (3, 1, false),
                (0, 2, false),
                (2, 3, false),
                (1, 4, false),
                (4, 5, false)
            ]
        );
        let got: Vec<(Points, Points, u32)> = (0..5)
            .map(|p| {
                let r = row(&s, p);
                (r.score, r.sonneborn_berger, r.wins)
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (q(10), q(14), 1),
                (q(8), q(10), 2),
                (q(8), q(17), 1),
                (q(12), q(17), 1),
                (q(2), q(4), 0)
            ]
        );
    }

    /// B and A tie on score and Sonneborn-Berger, and their only pairing was a forfeit: they
    /// have not met over the board, so no direct encounter (counting the forfeit would put A
    /// ahead); B is ahead on wins over the board.
    /// R1: A wins by forfeit against B; C not yet joined. R2: B beats C; D beats A.
    #[test]
    fn a_forfeit_is_not_a_direct_encounter() {
        let (a, b, c, d) = (0, 1, 2, 3);
        let results = Results {
            players: entrants(&[1500; 4]),
            rounds: vec![
                vec![Pairing::Forfeit {
                    winner: a,
                    loser: b,
                }],
                vec![game(b, c, FirstWins), game(d, a, FirstWins)],
            ],
        };
        let s = standings(&results, System::RoundRobin);
        assert_eq!(
            places(&s),
            vec![(d, 1, false), (b, 2, false), (a, 3, false), (c, 4, false)]
        );
        assert_eq!(row(&s, a).direct_encounter, None);
        assert_eq!(row(&s, b).direct_encounter, None);
        assert_eq!(row(&s, a).score, row(&s, b).score);
        assert_eq!(row(&s, a).sonneborn_berger, Points::ZERO);
        assert_eq!(row(&s, b).sonneborn_berger, Points::ZERO);
    }

    #[test]
    fn a_game_in_progress_counts_nothing_yet() {
        let results = Results {
            players: entrants(&[1500, 1400, 1300]),
            rounds: vec![
                vec![game(0, 1, Draw)],
                vec![Pairing::Game {
                    first: 1,
                    second: 2,
                    result: None,
                }],
            ],
        };
        let s = standings(&results, System::Swiss);
        // 0: ½, Buchholz: 1's ½ + own ½ for round 2 (unpaired) = 1.
        assert_eq!(row(&s, 0).buchholz, Points::ONE);
        // 1: ½, Buchholz: 0's ½ only; the game in progress adds no term.
        assert_eq!(row(&s, 1).buchholz, Points::HALF);
        assert_eq!(row(&s, 1).in_progress, 1);
        assert_eq!(row(&s, 2).in_progress, 1);
        assert_eq!(row(&s, 2).buchholz, Points::ZERO);
        assert_eq!(
            places(&s),
            vec![(0, 1, false), (1, 2, false), (2, 3, false)]
        );
    }

    /// Five players on the knockout bracket: round 1 byes for seeds 1, 2, 3 and 5 beats 4;
    /// round 2 1 beats 5, 3 beats 2; the final 1 beats 3. Reached: 1 → 4 (the champion),
    /// 3 → 3, 2 and 5 → 2 (2 ahead on rating), 4 → 1.
    #[test]
    fn a_knockout_by_the_round_reached() {
        let bye = |player| Pairing::Bye {
            player,
            points: Points::ONE,
        };
        let results = Results {
            players: entrants(&[2000, 1900, 1800, 1700, 1600]),
            rounds: vec![
                vec![bye(0), game(3, 4, SecondWins), bye(1), bye(2)],
                vec![game(0, 4, FirstWins), game(1, 2, SecondWins)],
                vec![game(0, 2, FirstWins)],
            ],
        };
        let s = standings(&results, System::Knockout);
        assert_eq!(
            places(&s),
            vec![
                (0, 1, false),
                (2, 2, false),
                (1, 3, false),
                (4, 4, false),
                (3, 5, false)
            ]
        );
        let reached: Vec<Option<u32>> = (0..5).map(|p| row(&s, p).round_reached).collect();
        assert_eq!(reached, vec![Some(4), Some(2), Some(3), Some(1), Some(2)]);
    }
}
