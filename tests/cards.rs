//! Rating pictures: leaderboards, profile cards and rating charts decode with the expected
//! sizes, stay under 150 KB in the worst case, survive odd input, and match golden images in
//! `tests/golden` pixel for pixel.
//!
//! On a golden mismatch the actual image is written next to the expected one as
//! `<name>.actual.png`. `UPDATE_GOLDEN=1 cargo test --release --test integration cards::` rewrites them.

use std::path::PathBuf;
use tara_bot::render::{
    bracket_png, crosstable_png, division_png, ladder_png, leaderboard_png, profile_png,
    rating_chart_png, standings_png, BracketCard, BracketSeat, BracketTie, CrossPlayer, Crosstable,
    LadderCard, LadderRow, LeaderboardRow, LevelMove, ProfileCard, ProfileRating, RatingPoint,
    StandingsCard, StandingsRow,
};

/// 2026-11-30 00:00 UTC.
const NOV_30: i64 = 1_795_996_800_000;
const DAY: i64 = 86_400_000;
const LIMIT: usize = 150 * 1024;

/// Decodes a PNG to its size and RGB8 pixels.
fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let img = image::load_from_memory_with_format(png_bytes, image::ImageFormat::Png)
        .expect("a PNG")
        .to_rgb8();
    (img.width(), img.height(), img.into_raw())
}

/// A deterministic random walk of `n` ratings, one game every `step` hours, ending on Nov 30.
fn history(n: usize, seed: u64, step_hours: i64) -> Vec<RatingPoint> {
    let mut s = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    let (mut r, mut rd) = (1500.0f64, 350.0f64);
    (0..n)
        .map(|i| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let u = (s >> 33) as f64 / (1u64 << 31) as f64; // 0..1
            r += (u - 0.45) * rd * 0.4;
            rd = (rd * 0.93).max(55.0);
            RatingPoint {
                at_ms: NOV_30 - (n - 1 - i) as i64 * step_hours * 3_600_000,
                rating: r,
                rd,
            }
        })
        .collect()
}

fn leaderboard_rows(n: usize) -> Vec<LeaderboardRow> {
    let names = [
        "Aoife",
        "Brian Ó Briain",
        "Cormac",
        "Deirdre",
        "Eithne",
        "Fionn mac Cumhaill",
        "Gráinne",
        "Oisín",
        "Niamh",
        "Conn of the Hundred Battles",
        "Medb",
        "Lugh",
    ];
    (0..n)
        .map(|i| {
            // Fewer games and wins down the table (never below 10 games or 0 wins, so a
            // long table's rows stay plausible: no wrap-around).
            let games = 60u32.saturating_sub(2 * i as u32).max(10);
            let wins = games * 25u32.saturating_sub(i as u32) / 40;
            let draws = games / 10;
            LeaderboardRow {
                rank: i as u32 + 1,
                name: names[i % names.len()].to_string(),
                rating: 1890.4 - 23.7 * i as f64,
                rd: 48.0 + 9.0 * i as f64,
                provisional: 48.0 + 9.0 * i as f64 > 110.0,
                games,
                wins,
                draws,
                losses: games - wins - draws,
            }
        })
        .collect()
}

const GAMES: [&str; 5] = [
    "High Kings of Tara (hkot-1)",
    "High Kings of Tara II (hkot-2)",
    "Tara: Sacred Hill (sacred-hill-1)",
    "Tara: Sacred Hill II (sacred-hill-2)",
    "Ard Rí (ard-ri)",
];

fn profile(games: usize, points: usize) -> ProfileCard {
    ProfileCard {
        name: "Aoife Ní Bhriain".into(),
        ratings: (0..games)
            .map(|g| {
                let history = history(points, g as u64 + 1, 20 + 13 * g as i64);
                let last = history.last().cloned().unwrap_or(RatingPoint {
                    at_ms: NOV_30,
                    rating: 1500.0,
                    rd: 350.0,
                });
                ProfileRating {
                    game: GAMES[g % GAMES.len()].into(),
                    rating: last.rating,
                    rd: last.rd,
                    provisional: last.rd > 110.0,
                    wins: 3 + g as u32 * 4,
                    draws: g as u32 % 3,
                    losses: 2 + g as u32,
                    streak: ["3 wins", "1 draw", "", "2 losses", "1 win"][g % 5].into(),
                    last_five: ["WWWLD", "DLW", "", "LLWWW", "W"][g % 5].chars().collect(),
                    history,
                }
            })
            .collect(),
        open_games: vec![
            "#12 hkot-1 vs Brian, your turn, 2 days left".into(),
            "#15 ard-ri vs Cormac, their turn, 5 days left".into(),
            "#19 sacred-hill-2 vs Deirdre, your turn, 23 hours left".into(),
        ],
    }
}

/// A Swiss after round 3 of 5: nine players, a shared place, a withdrawal, games in progress.
fn swiss_standings() -> StandingsCard {
    let rows = [
        (
            1,
            false,
            "Aoife",
            "3",
            ["6", "7½", "8", "3", "1712"],
            0,
            false,
        ),
        (
            2,
            true,
            "Brian Ó Briain",
            "2½",
            ["5", "6", "5¼", "2", "1650"],
            1,
            false,
        ),
        (
            2,
            true,
            "Cormac",
            "2½",
            ["5", "6", "5¼", "2", "1601"],
            1,
            false,
        ),
        (
            4,
            false,
            "Deirdre",
            "2",
            ["4½", "5", "4", "2", "1580"],
            0,
            false,
        ),
        (
            5,
            false,
            "🐉 Dragon 张伟",
            "1½",
            ["4", "4½", "2¾", "1", "1500"],
            1,
            false,
        ),
        (
            6,
            false,
            "محمد الأول",
            "1½",
            ["3½", "4", "2", "1", "1499"],
            0,
            false,
        ),
        (
            7,
            false,
            "Eithne",
            "1",
            ["3", "3½", "1", "0", "1450"],
            1,
            false,
        ),
        (
            8,
            false,
            "Fionn mac Cumhaill the Very Long-Named",
            "1",
            ["2½", "3", "½", "1", "1400"],
            0,
            false,
        ),
        (
            9,
            false,
            "Gráinne",
            "0",
            ["2", "2", "0", "0", "1390"],
            0,
            true,
        ),
    ];
    StandingsCard {
        title: "Samhain Swiss · High Kings of Tara (hkot-1)".into(),
        subtitle: "After round 3 of 5 · 4 games in progress".into(),
        tiebreaks: ["BH-C1", "BH", "SB", "Wins", "Rating"]
            .map(String::from)
            .to_vec(),
        rows: rows
            .into_iter()
            .map(
                |(place, shared, name, score, breaks, playing, withdrawn)| StandingsRow {
                    place,
                    shared,
                    name: name.into(),
                    score: score.into(),
                    tiebreaks: breaks.map(String::from).to_vec(),
                    playing,
                    withdrawn,
                },
            )
            .collect(),
    }
}

/// [`swiss_standings`] at the end (no game in progress) of a tournament with a long title,
/// as the bot names it: the name, the game's name and its id.
fn final_standings() -> StandingsCard {
    let mut card = swiss_standings();
    card.title =
        "Bealtaine Open Championship · Tara: Sacred Hill (Level 2, Kingdoms) (sacred-hill-2)"
            .into();
    card.subtitle = "Final standings".into();
    for r in &mut card.rows {
        r.playing = 0;
    }
    card
}

/// [`profile`] with the games named as the bot names them, the longest names included.
fn long_game_profile() -> ProfileCard {
    let mut card = profile(2, 12);
    card.ratings[0].game = "High Kings of Tara (Level 1) (hkot-1)".into();
    card.ratings[1].game = "Tara: Sacred Hill (Level 2, Kingdoms) (sacred-hill-2)".into();
    card
}

/// The Playing column is drawn only while a game is in progress: final standings are
/// narrower by it.
#[test]
fn final_standings_have_no_playing_column() {
    let (running, _, _) = decode(&standings_png(&swiss_standings()));
    let (done, _, _) = decode(&standings_png(&final_standings()));
    assert_eq!(running - done, 84);
}

/// A 5-player round robin part-way: a forfeit (+/−), games in progress (…), games to come.
fn round_robin_table(double: bool) -> Crosstable {
    let names = ["Aoife", "Brian", "Cormac", "Deirdre", "Eithne"];
    let single = [
        ["", "1", "½", "+", "…"],
        ["0", "", "1", "0", ""],
        ["½", "0", "", "1", "1"],
        ["−", "1", "0", "", "½"],
        ["…", "", "0", "½", ""],
    ];
    let cells: Vec<Vec<String>> = single
        .iter()
        .enumerate()
        .map(|(i, row)| {
            row.iter()
                .enumerate()
                .map(|(j, c)| match (double, c.is_empty()) {
                    (true, false) if (i + j) % 2 == 0 => format!("{c} ½"),
                    _ => c.to_string(),
                })
                .collect()
        })
        .collect();
    Crosstable {
        title: "Bealtaine round robin · Ard Rí (ard-ri)".into(),
        subtitle: "12 of 20 games played".into(),
        players: names
            .iter()
            .zip(["3", "1", "2½", "1½", "½"])
            .zip([1, 4, 2, 3, 5])
            .take(if double { 4 } else { 5 })
            .map(|((n, s), place)| CrossPlayer {
                name: n.to_string(),
                score: s.into(),
                place,
            })
            .collect(),
        cells: if double {
            cells
                .into_iter()
                .take(4)
                .map(|r| r.into_iter().take(4).collect())
                .collect()
        } else {
            cells
        },
    }
}

fn seat(seed: u32, name: &str, score: &str) -> BracketSeat {
    BracketSeat::Player {
        seed,
        name: name.into(),
        score: score.into(),
    }
}

/// A finished 5-player knockout: three byes, a semi-final won on a decider.
fn knockout_bracket() -> BracketCard {
    let tie = |a, b, winner: Option<usize>, note: &str| BracketTie {
        seats: [a, b],
        winner,
        note: note.into(),
    };
    BracketCard {
        title: "Lúnasa knockout · Tara: Sacred Hill (sacred-hill-1)".into(),
        subtitle: "Finished · Aoife wins".into(),
        rounds: vec![
            (
                "Quarter-finals".into(),
                vec![
                    tie(seat(1, "Aoife", ""), BracketSeat::Bye, Some(0), ""),
                    tie(
                        seat(4, "Deirdre", "1½"),
                        seat(5, "Eithne", "½"),
                        Some(0),
                        "",
                    ),
                    tie(seat(3, "Cormac", ""), BracketSeat::Bye, Some(0), ""),
                    tie(seat(2, "Brian", ""), BracketSeat::Bye, Some(0), ""),
                ],
            ),
            (
                "Semi-finals".into(),
                vec![
                    tie(seat(1, "Aoife", "2"), seat(4, "Deirdre", "0"), Some(0), ""),
                    tie(
                        seat(3, "Cormac", "2"),
                        seat(2, "Brian", "1"),
                        Some(0),
                        "won on a decider",
                    ),
                ],
            ),
            (
                "Final".into(),
                vec![tie(
                    seat(1, "Aoife", "1½"),
                    seat(3, "Cormac", "½"),
                    Some(0),
                    "",
                )],
            ),
        ],
    }
}

/// An 8-player knockout in its first round.
fn running_bracket() -> BracketCard {
    let names = [
        "Aoife", "Brian", "Cormac", "Deirdre", "Eithne", "Fionn", "Gráinne", "Niamh",
    ];
    let firsts = [(1, 8), (4, 5), (3, 6), (2, 7)];
    let tie = |a, b, winner| BracketTie {
        seats: [a, b],
        winner,
        note: String::new(),
    };
    BracketCard {
        title: "Imbolc cup · High Kings of Tara (hkot-2)".into(),
        subtitle: "Round 1 of 3 · 4 ties in progress".into(),
        rounds: vec![
            (
                "Quarter-finals".into(),
                firsts
                    .iter()
                    .map(|&(a, b)| {
                        tie(
                            seat(a, names[a as usize - 1], "½"),
                            seat(b, names[b as usize - 1], "½"),
                            None,
                        )
                    })
                    .collect(),
            ),
            (
                "Semi-finals".into(),
                vec![
                    tie(BracketSeat::Waiting, BracketSeat::Waiting, None),
                    tie(BracketSeat::Waiting, BracketSeat::Waiting, None),
                ],
            ),
            (
                "Final".into(),
                vec![tie(BracketSeat::Waiting, BracketSeat::Waiting, None)],
            ),
        ],
    }
}

/// The golden cases: name and picture.
fn golden_cases() -> Vec<(&'static str, Vec<u8>)> {
    let mut odd = leaderboard_rows(4);
    odd[1].name = "🐉 Dragon 张伟 𝓐𝓸𝓲𝓯𝓮".into();
    odd[2].name = "محمد الأول".into();
    odd[3].name = "A very long name that goes on and on and on and on and on".into();
    vec![
        (
            "leaderboard",
            leaderboard_png(
                "High Kings of Tara (hkot-1)",
                "Players with a rated game in the last 90 days",
                &leaderboard_rows(12),
            ),
        ),
        (
            "leaderboard-names",
            leaderboard_png("Ard Rí (ard-ri)", "Hostile names", &odd),
        ),
        (
            "leaderboard-empty",
            leaderboard_png(
                "Tara: Sacred Hill (sacred-hill-1)",
                "Players with a rated game in the last 90 days",
                &[],
            ),
        ),
        ("profile", profile_png(&profile(2, 40))),
        (
            "profile-empty",
            profile_png(&ProfileCard {
                name: "Brian".into(),
                ratings: vec![],
                open_games: vec![],
            }),
        ),
        (
            "chart",
            rating_chart_png("Aoife: High Kings of Tara (hkot-1)", &history(25, 7, 50)),
        ),
        (
            "chart-one",
            rating_chart_png("One game", &history(1, 3, 24)),
        ),
        ("chart-empty", rating_chart_png("No games", &[])),
        ("standings", standings_png(&swiss_standings())),
        // Final standings (no game in progress: no Playing column) under a title too long
        // for one line at full size: drawn smaller, on two lines, not cut.
        ("standings-final", standings_png(&final_standings())),
        ("profile-long-games", profile_png(&long_game_profile())),
        (
            "standings-empty",
            standings_png(&StandingsCard {
                title: "Open Swiss".into(),
                subtitle: "Taking sign-ups".into(),
                tiebreaks: vec!["SB".into()],
                rows: vec![],
            }),
        ),
        ("crosstable", crosstable_png(&round_robin_table(false))),
        (
            "crosstable-double",
            crosstable_png(&round_robin_table(true)),
        ),
        ("bracket", bracket_png(&knockout_bracket())),
        ("bracket-running", bracket_png(&running_bracket())),
        // Names in their own scripts: Arabic and Hebrew joined and right to left, Devanagari
        // shaped, Chinese, Japanese and Korean, Greek and Cyrillic, and emoji.
        ("profile-scripts", {
            let mut p = profile(2, 12);
            p.name = "अर्जुन शर्मा 🐉".into();
            p.open_games[0] = "#12 hkot-1 vs محمد الأول, your turn, 2 days left".into();
            p.open_games[1] = "#15 ard-ri vs 김민준, their turn, 5 days left".into();
            profile_png(&p)
        }),
        ("crosstable-scripts", {
            let mut t = round_robin_table(false);
            for (player, name) in t.players.iter_mut().zip(SCRIPT_NAMES) {
                player.name = name.into();
            }
            crosstable_png(&t)
        }),
        ("bracket-scripts", {
            let mut b = knockout_bracket();
            for (round, (_, ties)) in b.rounds.iter_mut().enumerate() {
                for (i, tie) in ties.iter_mut().enumerate() {
                    for (k, seat) in tie.seats.iter_mut().enumerate() {
                        if let BracketSeat::Player { name, .. } = seat {
                            *name = SCRIPT_NAMES[(round + i * 2 + k) % SCRIPT_NAMES.len()].into();
                        }
                    }
                }
            }
            bracket_png(&b)
        }),
        (
            "chart-scripts",
            rating_chart_png("דוד כהן: Ard Rí (ard-ri)", &history(25, 7, 50)),
        ),
        ("ladder", ladder_png(&ladder_card())),
        ("division", {
            // A league division: the first promoted, the last two staying relegated (the
            // withdrawn player leaves the league and takes no place).
            let mut card = final_standings();
            card.title = "Samhain league · season 2 · division 2a".into();
            let n = card.rows.len();
            let marks: Vec<Option<LevelMove>> = (0..n)
                .map(|i| match i {
                    0 => Some(LevelMove::Up),
                    i if i + 3 >= n && i + 1 < n => Some(LevelMove::Down),
                    _ => None,
                })
                .collect();
            division_png(&card, &marks)
        }),
        ("ladder-empty", {
            let mut c = ladder_card();
            c.rows.clear();
            ladder_png(&c)
        }),
    ]
}

/// A ladder of 40 seen by the player at rank 30: the top 15, a gap, and ranks 23 to 37 (as
/// `/ladder show` picks them), with ratings, games in progress and names in several scripts.
fn ladder_card() -> LadderCard {
    let mut ranks: Vec<u32> = (1..=15).collect();
    ranks.extend(23..=37);
    LadderCard {
        title: "Autumn ladder · Ard Rí".into(),
        subtitle: "Ladder #2 · 40 players".into(),
        rows: ranks
            .iter()
            .map(|&r| LadderRow {
                rank: r,
                name: if r % 7 == 3 {
                    SCRIPT_NAMES[(r as usize / 7) % SCRIPT_NAMES.len()].into()
                } else {
                    format!("Player {r}")
                },
                rating: match r % 5 {
                    0 => "–".into(),
                    1 => format!("{}?", 1700 - r * 7),
                    _ => (1800 - r * 9).to_string(),
                },
                playing: r % 4,
                you: r == 30,
            })
            .collect(),
    }
}

/// Players' names in several scripts, for the golden pictures.
const SCRIPT_NAMES: [&str; 6] = [
    "محمد الأول",
    "张伟 🐉",
    "דוד כהן",
    "अर्जुन शर्मा",
    "さくら 김민준",
    "Ελένη Дмитрий",
];

#[test]
fn golden_rating_pictures_match_exactly() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    for (name, actual) in golden_cases() {
        let path = dir.join(format!("{name}.png"));
        if update {
            std::fs::write(&path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read(&path)
            .unwrap_or_else(|_| panic!("missing {}; run with UPDATE_GOLDEN=1", path.display()));
        let (a, e) = (decode(&actual), decode(&expected));
        if a != e {
            let out = dir.join(format!("{name}.actual.png"));
            std::fs::write(&out, &actual).unwrap();
            let differ = if (a.0, a.1) == (e.0, e.1) {
                a.2.chunks_exact(3)
                    .zip(e.2.chunks_exact(3))
                    .filter(|(x, y)| x != y)
                    .count()
                    .to_string()
            } else {
                format!("size {}x{} (expected {}x{}):", a.0, a.1, e.0, e.1)
            };
            failures.push(format!(
                "{name}: {differ} pixels differ; see {}",
                out.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn leaderboards_grow_with_their_rows_and_stay_small() {
    let (w0, h0, _) = decode(&leaderboard_png("T", "S", &[]));
    let mut last_h = h0;
    for n in [1, 2, 10, 25] {
        let png = leaderboard_png(
            "High Kings of Tara (hkot-1)",
            "Last 90 days",
            &leaderboard_rows(n),
        );
        let (w, h, _) = decode(&png);
        assert_eq!(w, w0);
        assert!(h > last_h || n == 1, "{n} rows: height {h}");
        last_h = h;
        assert!(png.len() <= LIMIT, "{n} rows: {} bytes", png.len());
    }
    // More than 25 rows are cut to 25.
    let (_, h, _) = decode(&leaderboard_png("T", "S", &leaderboard_rows(40)));
    assert_eq!(h, last_h);
}

#[test]
fn the_worst_case_profile_stays_under_150_kb() {
    // Five games with 200 points of a jagged history each, provisional ratings, long names
    // and a dozen open games.
    let mut card = profile(5, 200);
    card.name = "Ｗｏｒｓｔ 🐉 ".repeat(20);
    card.open_games = (0..20)
        .map(|i| {
            format!(
                "#{i} hkot-2 vs {} , your turn, {i} days left",
                "Ḿ".repeat(50)
            )
        })
        .collect();
    for r in &mut card.ratings {
        for (i, p) in r.history.iter_mut().enumerate() {
            p.rating += if i % 2 == 0 { 300.0 } else { -300.0 };
        }
    }
    let png = profile_png(&card);
    let (w, h, _) = decode(&png);
    assert_eq!(w, 800);
    assert!(h > 1000, "{h}");
    assert!(png.len() <= LIMIT, "{} bytes", png.len());
    let png = rating_chart_png(&"🐉".repeat(100), &card.ratings[0].history);
    assert_eq!(decode(&png).0, 640);
    assert!(png.len() <= LIMIT, "{} bytes", png.len());
}

#[test]
fn odd_histories_draw_without_panicking() {
    let p = |at_ms, rating, rd| RatingPoint { at_ms, rating, rd };
    let cases: Vec<Vec<RatingPoint>> = vec![
        vec![],
        vec![p(NOV_30, 1500.0, 350.0)],
        vec![p(NOV_30, 1500.0, 0.0), p(NOV_30, 1500.0, 0.0)],
        vec![p(NOV_30, 1500.0, 50.0); 30],
        vec![p(NOV_30 - DAY, 1500.0, 50.0), p(NOV_30, 1500.0, 50.0)],
        vec![
            p(i64::MIN, f64::NAN, 1.0),
            p(i64::MAX, 1e300, f64::INFINITY),
        ],
        vec![p(0, -5000.0, -10.0), p(NOV_30, 9000.0, 0.0)],
        vec![p(NOV_30, 1600.0, 80.0), p(NOV_30 - 400 * DAY, 1400.0, 90.0)],
        vec![p(-10 * DAY, 1500.0, 300.0), p(10 * DAY, 1520.0, 250.0)],
    ];
    for (i, h) in cases.iter().enumerate() {
        let (w, ht, _) = decode(&rating_chart_png("", h));
        assert_eq!((w, ht), (640, 300), "case {i}");
        let card = ProfileCard {
            name: String::new(),
            ratings: vec![ProfileRating {
                game: "\u{202e}\u{200b}".into(),
                rating: h.last().map_or(f64::NAN, |p| p.rating),
                rd: f64::NAN,
                provisional: true,
                wins: u32::MAX,
                draws: u32::MAX,
                losses: u32::MAX,
                streak: "🔥🔥🔥 ".repeat(30),
                last_five: "WDLX?WWWWW".chars().collect(),
                history: h.clone(),
            }],
            open_games: vec![String::new(), "\u{0}".into()],
        };
        assert_eq!(decode(&profile_png(&card)).0, 800, "case {i}");
    }
    let odd = LeaderboardRow {
        rank: u32::MAX,
        name: "\u{0}".into(),
        rating: f64::NEG_INFINITY,
        rd: f64::NAN,
        provisional: false,
        games: u32::MAX,
        wins: u32::MAX,
        draws: 0,
        losses: u32::MAX,
    };
    assert_eq!(decode(&leaderboard_png("", "", &[odd])).0, 760);
}

#[test]
fn different_inputs_draw_different_pictures() {
    let a = decode(&rating_chart_png("A", &history(20, 1, 24)));
    let b = decode(&rating_chart_png("A", &history(20, 2, 24)));
    assert_ne!(a.2, b.2);
    let mut rows = leaderboard_rows(3);
    let before = decode(&leaderboard_png("T", "S", &rows));
    rows[0].provisional = !rows[0].provisional;
    assert_ne!(before.2, decode(&leaderboard_png("T", "S", &rows)).2);
}

#[test]
fn big_and_odd_tournaments_draw_within_limits() {
    // 100 rows: the standings stop at 40, a crosstable of 60 players at 24, a 128-player
    // bracket shows its last rounds; each stays a readable size and under the limit.
    let mut big = swiss_standings();
    big.rows = (0..100)
        .map(|i| StandingsRow {
            place: i + 1,
            shared: false,
            name: format!("Player {i} with a rather long name indeed"),
            score: format!("{}½", 100 - i),
            tiebreaks: vec!["999¾".into(); 9],
            playing: i % 3,
            withdrawn: i % 17 == 0,
        })
        .collect();
    let (w, h, _) = decode(&standings_png(&big));
    assert_eq!(w, 874);
    assert_eq!(h, 92 + 34 + 34 * 40 + 8 + 18);
    let n = 60;
    let table = Crosstable {
        title: "Big".into(),
        subtitle: String::new(),
        players: (0..n)
            .map(|i| CrossPlayer {
                name: format!("P{i}"),
                score: "0".into(),
                place: i + 1,
            })
            .collect(),
        cells: vec![vec!["1 0 ½ extra".into(); n as usize]; 3],
    };
    let png = crosstable_png(&table);
    assert!(png.len() < LIMIT, "{} bytes", png.len());
    let (_, h, _) = decode(&png);
    assert_eq!(h, 92 + 34 + 34 * 24 + 8 + 18);
    let ties = |k: usize| {
        (0..k)
            .map(|i| BracketTie {
                seats: [seat(i as u32 + 1, "A", "1"), BracketSeat::Waiting],
                winner: Some(0),
                note: "x".repeat(200),
            })
            .collect::<Vec<_>>()
    };
    let bracket = BracketCard {
        title: "128".into(),
        subtitle: String::new(),
        rounds: (0..7).map(|r| (format!("R{r}"), ties(64 >> r))).collect(),
    };
    let png = bracket_png(&bracket);
    assert!(png.len() < LIMIT, "{} bytes", png.len());
    let (w, _, _) = decode(&png);
    // The first two rounds (64 and 32 ties) are left out; five rounds and the champion remain.
    assert_eq!(w, 32 + (230 + 44) * 6);
    let empty = BracketCard {
        title: String::new(),
        subtitle: String::new(),
        rounds: vec![],
    };
    assert_eq!(decode(&bracket_png(&empty)).0, 560);
}
