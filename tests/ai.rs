//! The AI (`src/ai`) and the `tara-bot ai` command: every move legal, the same seed and budget
//! give the same move, a won-in-one position is won, a forced pass is `pass`, `--ms` is obeyed,
//! finished games and bad move lists are refused.

use serde_json::Value;
use std::process::{Command, Output};
use tara_bot::ai::{greedy_move, random_move, think, Level, Limit};
use tara_bot::game::playout::{random_game, Rng};
use tara_bot::game::{
    ArdRiPosition, EndReason, GameOptions, Move, Position, Scoring, Side, Variant,
};

fn ai(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .arg("ai")
        .args(args)
        .output()
        .expect("run tara-bot")
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 1, "one line: {text}");
    serde_json::from_str(text.trim()).expect("a JSON object")
}

/// The five games, with knots scoring for the two that allow it.
fn all_options() -> Vec<GameOptions> {
    let mut v: Vec<GameOptions> = Variant::ALL
        .into_iter()
        .map(|variant| GameOptions::with(variant, None, None).unwrap())
        .collect();
    for variant in [Variant::Hkot1, Variant::SacredHill1] {
        v.push(GameOptions::with(variant, Some(Scoring::Knots), Some(Side::Blue)).unwrap());
    }
    v
}

fn never() -> impl FnMut() -> bool {
    || false
}

#[test]
fn every_ai_move_is_legal_in_whole_games_of_every_variant() {
    for (i, options) in all_options().into_iter().enumerate() {
        let mut pos = Position::new(options);
        let mut rng = Rng::new(i as u64);
        let ai_side = options.variant.sides()[i % 2];
        while pos.outcome().is_none() {
            let m = if pos.to_move() == Some(ai_side) {
                let found = think(&pos, Level::MIN, Limit::Level, i as u64, &mut never())
                    .expect("a game in progress has a move");
                if options.variant == Variant::ArdRi {
                    // Ard Rí's alpha-beta counts positions searched, and stops early once a
                    // result is proven.
                    assert!((1..=40).contains(&found.playouts), "{}", found.playouts);
                } else {
                    assert_eq!(found.playouts, 40);
                }
                found.chosen
            } else {
                random_move(&pos, &mut rng).unwrap()
            };
            assert_eq!(pos.check(m), Ok(()), "{options:?} ply {}: {m}", pos.ply());
            pos.play_unchecked(m);
        }
        assert!(think(&pos, Level::MIN, Limit::Level, 0, &mut never()).is_none());
    }
}

#[test]
fn the_same_seed_and_budget_give_the_same_move_and_statistics() {
    for options in all_options() {
        // A position a few random moves in.
        let mut pos = Position::new(options);
        let mut rng = Rng::new(77);
        for _ in 0..6 {
            let m = random_move(&pos, &mut rng).unwrap();
            pos.play_unchecked(m);
        }
        let a = think(
            &pos,
            Level::new(4).unwrap(),
            Limit::Playouts(3_000),
            42,
            &mut never(),
        );
        let b = think(
            &pos,
            Level::new(4).unwrap(),
            Limit::Playouts(3_000),
            42,
            &mut never(),
        );
        let (a, b) = (a.unwrap(), b.unwrap());
        assert_eq!(a, b, "{options:?}");
        assert_eq!(a.playouts, 3_000);
        let visits: u64 = a.moves.iter().map(|m| m.visits).sum();
        // Every playout goes through exactly one root move.
        assert_eq!(visits, 3_000, "{options:?}");
        assert_eq!(a.moves.len(), pos.legal_moves().len());
        assert!((0.0..=1.0).contains(&a.eval));
    }
    // The command line too: the whole JSON but the time is the same.
    let args = [
        "--variant",
        "sacred-hill-2",
        "--moves",
        "B2 F6",
        "--budget",
        "2000",
        "--seed",
        "9",
    ];
    let (x, y) = (json(&ai(&args)), json(&ai(&args)));
    for key in ["move", "eval", "playouts"] {
        assert_eq!(x[key], y[key], "{key}");
    }
    assert_eq!(x["playouts"], 2000);
}

#[test]
fn a_won_in_one_position_is_won() {
    // Ard Rí: the defenders' king steps into a corner; the attackers close the fourth side.
    for (notation, winning) in [
        ("1k5/7/3a3/7/7/7/7 d 0 0", "b7-a7"),
        ("7/7/3a3/2aka2/7/3a3/7 a 0 0", "d2-d3"),
    ] {
        let pos = Position::ArdRi(ArdRiPosition::from_notation(notation).unwrap());
        for level in 1..=4 {
            let found = think(
                &pos,
                Level::new(level).unwrap(),
                Limit::Level,
                level.into(),
                &mut never(),
            )
            .unwrap();
            assert_eq!(
                found.chosen.to_string(),
                winning,
                "{notation} level {level}"
            );
            assert_eq!(found.eval, 1.0);
        }
        let v = json(&ai(&[
            "--variant",
            "ard-ri",
            "--position",
            notation,
            "--level",
            "2",
        ]));
        assert_eq!(v["move"], winning);
    }
    // High Kings: positions from seeded random games where the side to move can capture a
    // second king; the AI, at every level, plays a move that ends the game in its favour.
    for variant in [Variant::Hkot1, Variant::Hkot2] {
        let options = GameOptions::with(variant, None, None).unwrap();
        let mut found_positions = 0;
        for seed in 0..400u64 {
            let mut rng = Rng::new(seed);
            let mut pos = Position::new(options);
            while pos.outcome().is_none() {
                let me = pos.to_move().unwrap();
                let wins: Vec<Move> = pos
                    .legal_moves()
                    .iter()
                    .copied()
                    .filter(|&m| {
                        let mut p = pos.clone();
                        p.play_unchecked(m);
                        p.outcome().is_some_and(|o| {
                            o.winner == Some(me) && o.reason == EndReason::DoubleCapture
                        })
                    })
                    .collect();
                if !wins.is_empty() {
                    for level in [1, 3] {
                        let m = think(
                            &pos,
                            Level::new(level).unwrap(),
                            Limit::Level,
                            seed,
                            &mut never(),
                        )
                        .unwrap()
                        .chosen;
                        let mut p = pos.clone();
                        p.play_unchecked(m);
                        assert_eq!(
                            p.outcome().and_then(|o| o.winner),
                            Some(me),
                            "{variant} seed {seed} ply {}: {m} does not win; {wins:?} do",
                            pos.ply()
                        );
                    }
                    found_positions += 1;
                    break;
                }
                let m = random_move(&pos, &mut rng).unwrap();
                pos.play_unchecked(m);
            }
            if found_positions >= 5 {
                break;
            }
        }
        assert!(
            found_positions >= 5,
            "{variant}: {found_positions} positions found"
        );
    }
}

#[test]
fn a_forced_pass_is_returned_as_pass() {
    // Positions from seeded random Tara games where the only legal move is a pass.
    let mut checked = 0;
    for options in all_options().into_iter().filter(|o| o.variant.is_tara()) {
        'games: for seed in 0..300u64 {
            let mut rng = Rng::new(seed);
            let mut moves: Vec<String> = Vec::new();
            let mut pos = Position::new(options);
            while pos.outcome().is_none() {
                let legal = pos.legal_moves();
                if legal.len() == 1 && legal[0] == Move::Pass {
                    let found = think(&pos, Level::MIN, Limit::Level, seed, &mut never()).unwrap();
                    assert_eq!(found.chosen, Move::Pass);
                    if checked == 0 {
                        let mut args = vec![
                            "--variant".to_string(),
                            options.variant.id().to_string(),
                            "--scoring".into(),
                            options.scoring.id().into(),
                            "--first".into(),
                            options.first.id().into(),
                            "--level".into(),
                            "1".into(),
                        ];
                        if !moves.is_empty() {
                            args.push("--moves".into());
                            args.push(moves.join(" "));
                        }
                        let args: Vec<&str> = args.iter().map(String::as_str).collect();
                        assert_eq!(json(&ai(&args))["move"], "pass");
                    }
                    checked += 1;
                    break 'games;
                }
                let m = random_move(&pos, &mut rng).unwrap();
                moves.push(m.to_string());
                pos.play_unchecked(m);
            }
        }
    }
    assert!(checked >= 3, "forced passes found in {checked} games");
}

#[test]
fn the_command_obeys_ms_within_ten_percent() {
    for variant in ["hkot-1", "ard-ri"] {
        let v = json(&ai(&["--variant", variant, "--ms", "400", "--level", "5"]));
        let ms = v["ms"].as_u64().unwrap();
        assert!((360..=440).contains(&ms), "{variant}: {ms} ms for --ms 400");
        assert!(v["playouts"].as_u64().unwrap() > 0);
    }
}

#[test]
fn finished_games_and_bad_moves_are_refused_like_engine() {
    let out = ai(&["--variant", "ard-ri", "--moves", "e1-e2 zz"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("move 2 (zz)"), "{err}");
    // A finished game: the attackers have just captured the king.
    let out = ai(&[
        "--variant",
        "ard-ri",
        "--position",
        "7/7/3a3/2aka2/7/3a3/7 a 0 0",
        "--moves",
        "d2-d3",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the game is over (attackers won"), "{err}");
    assert!(out.stdout.is_empty());
    // --ms and --budget together, and a level out of range, are usage errors.
    for args in [
        &["--variant", "hkot-1", "--ms", "10", "--budget", "10"][..],
        &["--variant", "hkot-1", "--level", "6"][..],
    ] {
        assert_eq!(ai(args).status.code(), Some(2), "{args:?}");
    }
}

/// `--ms` and `--budget` replace the level's own budget at every level, and the help says so
/// (`--level 1 --ms 300` searches for 300 ms, not 40 playouts).
#[test]
fn the_help_says_that_ms_and_budget_replace_the_levels_budget() {
    let help = String::from_utf8(ai(&["--help"]).stdout).unwrap();
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("milliseconds instead of the level's own budget, at every level"),
        "{help}"
    );
    assert!(
        flat.contains("playouts instead of the level's own budget, at every level"),
        "{help}"
    );
    let v = json(&ai(&[
        "--variant",
        "hkot-1",
        "--level",
        "1",
        "--budget",
        "300",
        "--seed",
        "2",
    ]));
    assert_eq!(v["playouts"], 300, "{v}");
}

#[test]
fn greedy_takes_a_win_and_random_moves_are_legal() {
    let pos = Position::ArdRi(ArdRiPosition::from_notation("1k5/7/3a3/7/7/7/7 d 0 0").unwrap());
    let mut rng = Rng::new(3);
    assert_eq!(greedy_move(&pos, &mut rng).unwrap().to_string(), "b7-a7");
    for options in all_options() {
        let mut pos = Position::new(options);
        let mut rng = Rng::new(11);
        while pos.outcome().is_none() {
            let m = greedy_move(&pos, &mut rng).unwrap();
            assert_eq!(pos.check(m), Ok(()));
            pos.play_unchecked(m);
        }
        assert_eq!(greedy_move(&pos, &mut rng), None);
        assert_eq!(random_move(&pos, &mut rng), None);
    }
}

fn analyse_cmd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .arg("analyse")
        .args(args)
        .output()
        .expect("run tara-bot")
}

#[test]
fn analyse_weighs_every_move_the_same_way_for_a_seed_and_names_a_bad_move() {
    // A whole random Ard Rí game and part of a High Kings game.
    let options = GameOptions::new(Variant::ArdRi);
    let (_, moves) = tara_bot::game::playout::random_game(options, &mut Rng::new(21));
    let list: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    let list = list.join(" ");
    let args = [
        "--variant",
        "ard-ri",
        "--moves",
        &list,
        "--level",
        "2",
        "--budget",
        "60",
        "--seed",
        "4",
    ];
    let v = json(&analyse_cmd(&args));
    let curve = v["curve"].as_array().unwrap();
    assert_eq!(curve.len(), moves.len() + 1);
    let reviewed = v["moves"].as_array().unwrap();
    assert_eq!(reviewed.len(), moves.len());
    for (i, (r, m)) in reviewed.iter().zip(&moves).enumerate() {
        assert_eq!(r["ply"], i + 1);
        assert_eq!(r["move"], m.to_string());
        let (played, best, loss) = (
            r["eval_played"].as_f64().unwrap(),
            r["eval_best"].as_f64().unwrap(),
            r["loss"].as_f64().unwrap(),
        );
        assert!((0.0..=1.0).contains(&played) && (0.0..=1.0).contains(&best));
        assert!(loss >= 0.0);
    }
    let swings = v["swings"].as_array().unwrap();
    assert!(!swings.is_empty() && swings.len() <= 3);
    let losses: Vec<f64> = swings.iter().map(|s| s["loss"].as_f64().unwrap()).collect();
    assert!(losses.windows(2).all(|w| w[0] >= w[1]));
    let worst = reviewed
        .iter()
        .map(|r| r["loss"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert_eq!(losses[0], worst);
    // One search of each position, and one of each position the AI's choice would have made
    // where it differs from the move played.
    let playouts = v["playouts"].as_u64().unwrap();
    let n = moves.len() as u64;
    assert!(
        playouts > 60 * n / 2 && playouts <= 2 * 60 * n,
        "{playouts}"
    );
    // The same seed and budget: the same analysis; --chart draws the evaluation chart.
    let png = std::env::temp_dir().join(format!("analyse-{}.png", std::process::id()));
    let with_chart: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--chart", png.to_str().unwrap()])
        .collect();
    let mut again = json(&analyse_cmd(&with_chart));
    let img = image::open(&png).expect("the chart is a PNG");
    assert_eq!((img.width(), img.height()), (640, 300));
    std::fs::remove_file(&png).ok();
    let mut first = v.clone();
    first["ms"] = Value::Null;
    again["ms"] = Value::Null;
    assert_eq!(first, again);

    // A chart named as anything but a PNG is a usage error, and nothing is written.
    for name in ["chart.gif", "-", "chart"] {
        let out = analyse_cmd(&["--variant", "hkot-1", "--moves", "D4", "--chart", name]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("name a .png file"), "{name}: {err}");
        assert!(err.contains("Usage: tara-bot analyse"), "{name}: {err}");
        assert!(out.stdout.is_empty() && !std::path::Path::new(name).exists());
    }

    // A bad move is named as engine names it.
    let out = analyse_cmd(&["--variant", "hkot-1", "--moves", "D4 D4"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("move 2") && err.contains("D4"), "{err}");
}

#[test]
fn threads_leave_a_budgeted_search_unchanged_and_share_a_timed_one() {
    use std::time::{Duration, Instant};
    use tara_bot::ai::think_threads;
    for options in all_options() {
        let mut pos = Position::new(options);
        let mut rng = Rng::new(5);
        for _ in 0..4 {
            let m = random_move(&pos, &mut rng).unwrap();
            pos.play_unchecked(m);
        }
        // A budget is searched on one thread whatever the count says: the same move and
        // statistics as `think`.
        let level = Level::new(3).unwrap();
        let one = think(&pos, level, Limit::Playouts(2_000), 8, &mut never()).unwrap();
        let two = think_threads(&pos, level, Limit::Playouts(2_000), 8, 2, &mut never()).unwrap();
        assert_eq!(one, two, "{options:?}");
        // Against a clock, two threads search and their work is added up: every root move's
        // visits together are the playouts of both (Tara), and the move is legal.
        let deadline = Instant::now() + Duration::from_millis(150);
        let found = think_threads(&pos, Level::MAX, Limit::Clock, 8, 2, &mut || {
            Instant::now() >= deadline
        })
        .unwrap();
        assert_eq!(pos.check(found.chosen), Ok(()), "{options:?}");
        assert!(found.playouts > 0);
        assert!((0.0..=1.0).contains(&found.eval));
        let visits: u64 = found.moves.iter().map(|m| m.visits).sum();
        if options.variant.is_tara() {
            assert_eq!(visits, found.playouts, "{options:?}");
        } else {
            // Ard Rí: the visits count the main thread's positions, the playouts both threads'.
            assert!(visits <= found.playouts, "{options:?}");
        }
    }
}

#[test]
fn a_bad_thread_count_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .args(["ai", "--variant", "hkot-1", "--budget", "100"])
        .env("TARA_BOT_AI_THREADS", "0")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("TARA_BOT_AI_THREADS"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .args(["ai", "--variant", "ard-ri", "--ms", "100"])
        .env("TARA_BOT_AI_THREADS", "2")
        .output()
        .unwrap();
    assert!(json(&out)["playouts"].as_u64().unwrap() > 0);
}

/// Issue 45: level 1's evaluation means something. Its 40 playouts spread over dozens of
/// moves, so the chosen move stands on a playout or two; its evaluation is drawn towards the
/// search's average instead of being the 1.0 of one lucky playout (it was 1.0 for every seed).
#[test]
fn level_one_evaluations_are_not_the_one_lucky_playout() {
    let evals: Vec<f64> = (1..=8)
        .map(|seed| {
            let seed = seed.to_string();
            let v = json(&ai(&[
                "--variant",
                "sacred-hill-1",
                "--level",
                "1",
                "--seed",
                &seed,
            ]));
            assert_eq!(v["playouts"], 40, "{v}");
            v["eval"].as_f64().unwrap()
        })
        .collect();
    assert!(evals.iter().all(|e| (0.2..=0.85).contains(e)), "{evals:?}");
    assert!(
        evals.iter().any(|e| (e - evals[0]).abs() > 1e-9),
        "every seed the same: {evals:?}"
    );
}

/// The value of `pos` for its side to move (-1 lost, 0 drawn, 1 won) by trying every line to
/// the end, no pruning; `None` when a line is longer than `depth` plies or the lines need more
/// than `budget` positions in all.
fn exact_value(pos: &Position, depth: u32, budget: &mut u64) -> Option<i8> {
    let me = pos.to_move()?;
    let mut best = -1;
    for &m in pos.legal_moves().iter() {
        best = best.max(value_after(pos, m, me, depth, budget)?);
    }
    Some(best)
}

/// The value for `me` (who moves in `pos`) of playing `m`, as [`exact_value`] finds it.
fn value_after(pos: &Position, m: Move, me: Side, depth: u32, budget: &mut u64) -> Option<i8> {
    *budget = budget.checked_sub(1)?;
    let mut c = pos.clone();
    c.play_unchecked(m);
    match c.outcome() {
        Some(o) => Some(match o.winner {
            Some(w) if w == me => 1,
            Some(_) => -1,
            None => 0,
        }),
        _ if depth == 0 => None,
        None if c.to_move() == Some(me) => exact_value(&c, depth - 1, budget),
        None => exact_value(&c, depth - 1, budget).map(|v| -v),
    }
}

/// Level 5's endgame solver: near the end of Sacred Hill, level 5 (on a budget) plays a move
/// as good as the best under perfect play (a won ending won, a drawn one not lost), what it
/// says it proved is true, and the moves it leaves out are still in its list, so that an
/// analysis can tell a forced move from a free one.
#[test]
fn level_five_never_lets_a_proven_ending_go() {
    let five = Level::new(5).unwrap();
    let (mut checked, mut proven_wins) = (0, 0);
    for variant in [Variant::SacredHill1, Variant::SacredHill2] {
        for seed in 0..12 {
            let (_, moves) = random_game(GameOptions::new(variant), &mut Rng::new(seed));
            // The positions 6 to 13 plies before the end.
            let mut pos = Position::new(GameOptions::new(variant));
            for (i, &m) in moves.iter().enumerate() {
                pos.play_unchecked(m);
                if !(6..=13).contains(&(moves.len() - 1 - i)) {
                    continue;
                }
                let legal = pos.legal_moves();
                let me = pos.to_move().unwrap();
                let Some(best) = exact_value(&pos, 24, &mut 2_000_000) else {
                    continue;
                };
                if legal.len() < 2 {
                    continue;
                }
                let found = think(&pos, five, Limit::Playouts(3_000), seed, &mut never()).unwrap();
                let played = value_after(&pos, found.chosen, me, 24, &mut 2_000_000).unwrap();
                assert_eq!(played, best, "{variant:?} seed {seed}: {:?}", found.chosen);
                // A win the solver proved is played without playouts, at 1; a position it
                // proved lost or drawn move by move is reported as exactly that (a search's
                // own average is hardly ever exactly 0 or ½, and where it is, it is right).
                if found.playouts == 0 {
                    assert_eq!((best, found.eval), (1, 1.0), "{variant:?} seed {seed}");
                    proven_wins += 1;
                }
                if found.eval == 0.0 || found.eval == 0.5 {
                    assert_eq!(
                        f64::from(best + 1) / 2.0,
                        found.eval,
                        "{variant:?} seed {seed}"
                    );
                }
                let mut listed: Vec<Move> = found.moves.iter().map(|s| s.mv).collect();
                listed.sort_by_key(|m| format!("{m:?}"));
                let mut all = legal.to_vec();
                all.sort_by_key(|m| format!("{m:?}"));
                assert_eq!(
                    listed, all,
                    "{variant:?} seed {seed}: every move listed once"
                );
                checked += 1;
            }
        }
    }
    eprintln!("{checked} endings, {proven_wins} won by a move level 5's solver proved");
    assert!(
        checked >= 100 && proven_wins >= 20,
        "{checked} {proven_wins}"
    );
}
