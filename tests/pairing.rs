//! The FIDE Dutch pairing (`dutch_pair::pair`, `tara-bot pair --dutch`): worked examples checked
//! by hand, whole pairings printed by bbpPairings 6 for random tournaments, and the absolute
//! criteria on random tournaments paired round after round.

use std::path::Path;
use std::process::{Command, Output};
use tara_bot::cli::pair::dutch_lines;
use tara_bot::tournament::dutch::{Board, DutchError};
use tara_bot::tournament::dutch_pair;
use tara_bot::tournament::{Code, Colour, Points, RoundEntry, Trf};

fn data(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/dutch")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn lines(name: &str) -> Vec<String> {
    dutch_lines(&data(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Round 1 of six (XXC white1): S1 = 1 2 3 meets S2 = 4 5 6 in order; the top player gets
/// White and colours alternate down S1 (1 White, 2 Black, 3 White).
#[test]
fn round_one_of_six() {
    assert_eq!(lines("round1-six.trf"), ["3", "1 4", "5 2", "3 6"]);
}

/// Round 1 of five: the bye goes to the lowest-ranked player (5); 1 2 meet 3 4.
#[test]
fn round_one_of_five_with_the_bye() {
    assert_eq!(lines("round1-five.trf"), ["3", "1 3", "4 2", "5 0"]);
}

/// Round 2 of four after 1-3 (1 won with White) and 4-2 (2 won with Black): 1 and 2 lead
/// with a point and have not met; 1 (White last) wants Black and 2 (Black last) White, so
/// 2-1. Below them 3 (Black last) gets White against 4.
#[test]
fn round_two_of_four() {
    assert_eq!(lines("round2-four.trf"), ["2", "2 1", "3 4"]);
}

/// Round 2 of three: 3 had the bye, so may not have it again; of 1 and 2 the bye goes to the
/// lower score (2, no points). 1 (White last) gets Black against 3 (no colour yet).
#[test]
fn round_two_of_three_the_bye_moves_on() {
    assert_eq!(lines("round2-three-bye.trf"), ["2", "3 1", "2 0"]);
}

/// Four players have played each other in three rounds: a fourth has no legal pairing.
#[test]
fn no_legal_pairing_says_why() {
    match dutch_pair::pair(&Trf::parse(&data("exhausted-four.trf")).unwrap()) {
        Err(DutchError::NoLegalPairing(why)) => {
            assert!(why.contains("4 players cannot play 4 rounds"), "{why}")
        }
        other => panic!("expected no legal pairing, got {other:?}"),
    }
}

/// Random tournaments made by bbpPairings 6's generator (`--dutch -g [c1.cfg|c2.cfg|default]
/// -s SEED`), cut after each round and written with `Trf::write` (as the probe does: XXR the
/// generated number of rounds, XXC the top player's round-1 colour, none in the `noxxc`
/// files); each `.out` is what `bbpPairings.exe --dutch FILE -p OUT` printed for the `.trf`.
/// The `small21` and `big301` files came from generator configurations of 21 players and 9
/// rounds and of 301 players and 7 rounds, with forfeits, retirements and half-point byes.
#[test]
fn agrees_with_bbp_pairings_on_random_tournaments() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dutch/bbp");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "trf"))
        .collect();
    files.sort();
    assert!(files.len() >= 40, "{} fixtures", files.len());
    for trf in files {
        let expected = std::fs::read_to_string(trf.with_extension("out")).unwrap();
        let got = dutch_lines(&std::fs::read_to_string(&trf).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", trf.display()));
        let expected: Vec<&str> = expected.lines().collect();
        assert_eq!(got, expected, "{}", trf.display());
    }
}

/// A small xorshift generator: the tests are reproducible.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Writes a round's boards into the tournament with random results: mostly games, some
/// forfeits; the bye is worth a point.
fn play(trf: &mut Trf, boards: &[Board], rng: &mut Rng) {
    let mut enter = |rank: u32, entry: RoundEntry| {
        let p = trf.players.iter_mut().find(|p| p.rank == rank).unwrap();
        p.points += entry.code.points();
        p.rounds.push(entry);
    };
    for b in boards {
        match *b {
            Board::Bye { player } => enter(
                player,
                RoundEntry {
                    opponent: None,
                    colour: None,
                    code: Code::PairingBye,
                },
            ),
            Board::Game { white, black } => {
                let (cw, cb) = match rng.below(20) {
                    0 => (Code::ForfeitWin, Code::ForfeitLoss),
                    1..=7 => (Code::Win, Code::Loss),
                    8..=12 => (Code::Draw, Code::Draw),
                    _ => (Code::Loss, Code::Win),
                };
                let entry = |opponent, colour, code| RoundEntry {
                    opponent: Some(opponent),
                    colour: Some(colour),
                    code,
                };
                enter(white, entry(black, Colour::White, cw));
                enter(black, entry(white, Colour::Black, cb));
            }
        }
    }
}

/// Random tournaments of 5 to 30 players and 3 to 9 rounds, each round paired by
/// `dutch_pair::pair` with random results: every round pairs everybody but at most one player,
/// never twice the same two players over the board, gives the bye at most once to anyone
/// (and never to a player with a win without play), and before the last round leaves no
/// player with a colour difference above 2 or the same colour three times running.
#[test]
fn absolute_criteria_hold_on_random_tournaments() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut rounds_paired, mut refused) = (0, 0);
    for t in 0..60 {
        let n = 5 + rng.below(26) as u32;
        let total = 3 + rng.below(7.min(u64::from(n) - 2)) as u32;
        let text: String = (1..=n)
            .map(|r| {
                format!(
                    "001 {r:4}      {:<32}{:4}{:>34}\n",
                    format!("Player {r}"),
                    2400 - r,
                    "0.0"
                )
            })
            .collect();
        let mut trf = Trf::parse(&format!("XXR {total}\nXXC white1\n{text}"))
            .unwrap_or_else(|e| panic!("{e}"));
        for round in 0..total {
            let boards = match dutch_pair::pair(&trf) {
                Ok(b) => b,
                Err(DutchError::NoLegalPairing(_)) => {
                    refused += 1;
                    break;
                }
                Err(e) => panic!("tournament {t} round {}: {e}", round + 1),
            };
            rounds_paired += 1;
            let mut seen = std::collections::BTreeSet::new();
            for b in &boards {
                match *b {
                    Board::Game { white, black } => {
                        assert!(seen.insert(white) && seen.insert(black));
                        let w = trf.players.iter().find(|p| p.rank == white).unwrap();
                        assert!(
                            !w.rounds
                                .iter()
                                .any(|e| e.played() && e.opponent == Some(black)),
                            "tournament {t} round {}: {white}-{black} again",
                            round + 1
                        );
                    }
                    Board::Bye { player } => {
                        assert!(seen.insert(player));
                        let p = trf.players.iter().find(|p| p.rank == player).unwrap();
                        assert!(
                            !p.rounds
                                .iter()
                                .any(|e| !e.played() && e.code.points() == Points::ONE),
                            "tournament {t} round {}: a second bye for {player}",
                            round + 1
                        );
                    }
                }
            }
            assert_eq!(seen.len(), n as usize, "everybody paired or the bye");
            assert!(
                boards
                    .iter()
                    .filter(|b| matches!(b, Board::Bye { .. }))
                    .count()
                    <= 1
            );
            play(&mut trf, &boards, &mut rng);
            if round + 1 < total {
                for p in &trf.players {
                    let colours: Vec<Colour> = p
                        .rounds
                        .iter()
                        .filter(|e| e.played())
                        .filter_map(|e| e.colour)
                        .collect();
                    let whites = colours.iter().filter(|&&c| c == Colour::White).count() as i32;
                    let difference = 2 * whites - colours.len() as i32;
                    assert!(
                        difference.abs() <= 2,
                        "tournament {t}: player {} {colours:?}",
                        p.rank
                    );
                    assert!(
                        !colours.windows(3).any(|w| w[0] == w[1] && w[1] == w[2]),
                        "tournament {t}: player {} {colours:?}",
                        p.rank
                    );
                }
            }
        }
    }
    assert!(
        rounds_paired > 250,
        "{rounds_paired} rounds paired, {refused} refused"
    );
}

fn tara(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .args(args)
        .output()
        .expect("run tara-bot")
}

fn path(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/dutch")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn the_command_line_prints_pairs_as_bbp_pairings_does() {
    let out = tara(&["pair", "--dutch", &path("round1-five.trf")]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "3\n1 3\n4 2\n5 0\n");

    // A bad line is named, with exit status 1.
    let dir = std::env::temp_dir().join(format!("tara-pairing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.trf");
    std::fs::write(&bad, "XXR 3\n001    1      A\n").unwrap();
    let out = tara(&["pair", "--dutch", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("line 2"), "{err}");
    assert!(out.stdout.is_empty());

    // No legal pairing: a message and exit status 1.
    let out = tara(&["pair", "--dutch", &path("exhausted-four.trf")]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("no pairing satisfies the absolute criteria"),
        "{err}"
    );

    // A missing file, and a file whose rounds are all paired.
    let out = tara(&["pair", "--dutch", dir.join("none.trf").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let done = dir.join("done.trf");
    std::fs::write(&done, data("round2-four.trf").replace("XXR 3", "XXR 1")).unwrap();
    let out = tara(&["pair", "--dutch", done.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("all 1 rounds have been paired"));
    std::fs::remove_dir_all(&dir).unwrap();
}
