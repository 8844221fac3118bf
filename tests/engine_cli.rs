//! The `tara-bot engine` command: the JSON contract, errors and exit codes.

use serde_json::Value;
use std::process::{Command, Output};
use tara_bot::game::playout::{random_game, Rng};
use tara_bot::game::{GameOptions, Scoring, Side, Variant};

fn engine(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .arg("engine")
        .args(args)
        .output()
        .expect("run tara-bot")
}

fn json_lines(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

#[test]
fn start_positions_have_every_field() {
    for (variant, to_move, phase, legal) in [
        ("hkot-1", "red", Some("placement"), 45),
        ("hkot-2", "red", Some("placement"), 45),
        ("sacred-hill-1", "red", Some("manoeuvres"), 45),
        ("sacred-hill-2", "red", Some("manoeuvres"), 45),
        ("ard-ri", "attackers", None, 24),
    ] {
        let out = engine(&["--variant", variant]);
        assert!(out.status.success(), "{variant}: {}", stderr(&out));
        let v = &json_lines(&out)[0];
        assert_eq!(v["variant"], variant);
        assert_eq!(v["ply"], 0);
        assert_eq!(v["status"], "ongoing");
        assert_eq!(v["to_move"], to_move);
        assert_eq!(v["phase"].as_str(), phase);
        assert_eq!(v["legal"].as_array().unwrap().len(), legal, "{variant}");
        assert!(v["result"].is_null());
        if variant == "ard-ri" {
            assert!(v["scoring"].is_null());
            assert!(v["counts"].is_null());
        } else {
            assert_eq!(v["scoring"], "kingdoms");
            for side in ["red", "blue"] {
                for field in ["kingdoms", "knots", "territory", "kings_captured"] {
                    assert_eq!(v["counts"][side][field], 0, "{variant} {side} {field}");
                }
            }
        }
    }
}

#[test]
fn legal_moves_are_sorted_by_byte_order() {
    for args in [
        vec!["--variant", "hkot-1", "--moves", "D4 B2 F6 F2 B6 D6"],
        vec!["--variant", "ard-ri"],
        vec!["--variant", "sacred-hill-1", "--moves", "d4 c2"],
    ] {
        let out = engine(&args);
        let legal: Vec<String> = json_lines(&out)[0]["legal"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect();
        let mut sorted = legal.clone();
        sorted.sort();
        assert_eq!(legal, sorted);
        assert!(!legal.is_empty());
    }
}

#[test]
fn options_first_and_scoring_are_reported() {
    let out = engine(&[
        "--variant",
        "sacred-hill-1",
        "--scoring",
        "knots",
        "--first",
        "blue",
    ]);
    let v = &json_lines(&out)[0];
    assert_eq!(v["scoring"], "knots");
    assert_eq!(v["to_move"], "blue");
    let out = engine(&["--variant", "hkot-1", "--moves", "d4 d5", "--first", "blue"]);
    let v = &json_lines(&out)[0];
    assert_eq!(v["to_move"], "blue");
    assert_eq!(v["counts"]["blue"]["territory"], 1);
    assert_eq!(v["counts"]["red"]["territory"], 1);
}

#[test]
fn trace_prints_one_line_per_position() {
    let out = engine(&["--variant", "hkot-1", "--moves", "D4 B2 F6", "--trace"]);
    assert!(out.status.success());
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 4);
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["ply"], i);
    }
}

#[test]
fn an_illegal_move_prints_nothing_and_exits_1() {
    let out = engine(&["--variant", "hkot-1", "--moves", "D4 B2 D5"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        stderr(&out).trim(),
        "move 3 (D5): D5 is next to your ringfort on D4: in Placement your ringforts may not touch"
    );
}

#[test]
fn an_illegal_move_with_trace_keeps_the_earlier_lines() {
    let out = engine(&[
        "--variant",
        "ard-ri",
        "--moves",
        "d2-c2 c3-b3 c2-c4",
        "--trace",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(json_lines(&out).len(), 3);
    assert!(
        stderr(&out).starts_with("move 3 (c2-c4): "),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_unreadable_move_exits_1_with_the_reason() {
    let out = engine(&["--variant", "hkot-1", "--moves", "D4 H9"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim(),
        "move 2 (H9): 'H9' is not a hill: columns run A to G and rows 1 to 7"
    );
}

/// `--moves` skips move numbers as a record's `moves:` line does; a move is still counted by
/// its place in the list.
#[test]
fn move_numbers_are_skipped_as_in_records() {
    let plain = engine(&["--variant", "hkot-1", "--moves", "D4 B2 F6"]);
    let numbered = engine(&["--variant", "hkot-1", "--moves", "1. D4 B2 2. F6"]);
    assert!(numbered.status.success(), "{}", stderr(&numbered));
    assert_eq!(json_lines(&numbered), json_lines(&plain));
    let out = engine(&["--variant", "hkot-1", "--moves", "1. D4 B2 2. D5"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("move 3 (D5): "),
        "{}",
        stderr(&out)
    );
}

/// `--record` reads a record as `/record` shows it (in a code fence) and as `/position` takes
/// it; a record with two `variant:` lines is refused, naming the line.
#[test]
fn records_are_read_fenced_and_with_one_variant_only() {
    let dir = tempfile::tempdir().unwrap();
    let fenced = dir.path().join("fenced.txt");
    std::fs::write(
        &fenced,
        "```\n# game 3 · Red a vs Blue b\nvariant: hkot-1\nscoring: knots\nfirst: blue\n\
         moves: D4 B2 F6\n```\n",
    )
    .unwrap();
    let out = engine(&["--record", fenced.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let given = engine(&[
        "--variant",
        "hkot-1",
        "--scoring",
        "knots",
        "--first",
        "blue",
        "--moves",
        "D4 B2 F6",
    ]);
    assert_eq!(json_lines(&out), json_lines(&given));
    let twice = dir.path().join("twice.txt");
    std::fs::write(&twice, "variant: hkot-1\nmoves: D4\nvariant: ard-ri\n").unwrap();
    let out = engine(&["--record", twice.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        stderr(&out),
        format!(
            "error: {}: line 3: a second 'variant:' line (line 1 has one already); a record is \
             one game\n",
            twice.display()
        )
    );
}

#[test]
fn bad_options_exit_2_with_usage() {
    for args in [
        vec!["--variant", "hkot-3"],
        vec!["--variant", "hkot-2", "--scoring", "knots"],
        vec!["--variant", "sacred-hill-2", "--scoring", "knots"],
        vec!["--variant", "ard-ri", "--scoring", "knots"],
        vec!["--variant", "ard-ri", "--first", "red"],
        vec!["--variant", "hkot-1", "--first", "green"],
        vec!["--variant", "hkot-1", "--scoring", "points"],
        vec!["--variant", "hkot-1", "--perft", "x"],
        vec!["--moves", "D4"],
        vec!["--variant", "hkot-1", "--bogus"],
    ] {
        let out = engine(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            stderr(&out).to_lowercase().contains("usage"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn perft_counts_move_sequences() {
    let out = engine(&["--variant", "hkot-1", "--perft", "1"]);
    assert_eq!(json_lines(&out)[0], serde_json::json!({"perft": 45}));
    // Red's first king, then Blue anywhere but that hill: 45 * 44.
    let out = engine(&["--variant", "hkot-1", "--perft", "2"]);
    assert_eq!(json_lines(&out)[0]["perft"], 45 * 44);
    let out = engine(&["--variant", "ard-ri", "--perft", "1"]);
    assert_eq!(json_lines(&out)[0]["perft"], 24);
    let out = engine(&["--variant", "hkot-1", "--moves", "D4", "--perft", "0"]);
    assert_eq!(json_lines(&out)[0]["perft"], 1);
}

/// Runs `tara-bot` with `args`, killed after `secs` seconds (then `None`): a command that
/// should be refused at once must not hang the test.
fn tara_bot_within(args: &[&str], secs: u64) -> Option<Output> {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > until {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    Some(child.wait_with_output().unwrap())
}

/// A perft deeper than the command can count in about a minute is a usage error at once
/// (exit 2), by an estimate of its work; a finished game has nothing to count at any depth.
#[test]
fn perft_refuses_a_depth_it_cannot_finish() {
    for (variant, depth) in [("hkot-1", "99"), ("hkot-1", "7"), ("ard-ri", "12")] {
        let out = tara_bot_within(&["engine", "--variant", variant, "--perft", depth], 20)
            .unwrap_or_else(|| panic!("--perft {depth} of {variant} still runs after 20 s"));
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(out.stdout.is_empty());
        let err = stderr(&out);
        assert!(
            err.starts_with(&format!(
                "error: --perft {depth} would generate the moves of about "
            )) && err.contains("give a smaller depth")
                && err.contains("Usage: tara-bot engine"),
            "{err}"
        );
    }
    let (moves, _) = finished_game(GameOptions::new(Variant::ArdRi), 3);
    let out = engine(&["--variant", "ard-ri", "--moves", &moves, "--perft", "99"]);
    assert_eq!(json_lines(&out)[0], serde_json::json!({"perft": 0}));
}

/// `bench ai --games 0` is refused (it played one game per pairing).
#[test]
fn bench_ai_refuses_zero_games() {
    let out = tara_bot_within(&["bench", "ai", "--games", "0", "--ms", "1"], 20)
        .expect("refused at once");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        stderr(&out),
        "error: --games must be at least 1 (the games per pairing of `bench ai`)\n"
    );
}

fn finished_game(options: GameOptions, seed: u64) -> (String, tara_bot::game::Position) {
    let (pos, moves) = random_game(options, &mut Rng::new(seed));
    let text: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    (text.join(" "), pos)
}

#[test]
fn finished_games_report_the_result_and_no_legal_moves() {
    let mut options: Vec<GameOptions> = Variant::ALL.iter().map(|v| GameOptions::new(*v)).collect();
    let mut knots = GameOptions::new(Variant::Hkot1);
    knots.scoring = Scoring::Knots;
    options.push(knots);
    for (i, o) in options.into_iter().enumerate() {
        let (moves, pos) = finished_game(o, 1000 + i as u64);
        let outcome = *pos.outcome().unwrap();
        let mut args = vec!["--variant", o.variant.id(), "--moves", &moves];
        if o.variant.is_tara() {
            args.extend(["--scoring", o.scoring.id()]);
        }
        let out = engine(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let v = &json_lines(&out)[0];
        assert_eq!(v["status"], "finished");
        assert!(v["to_move"].is_null());
        assert!(v["phase"].is_null());
        assert_eq!(v["legal"], serde_json::json!([]));
        let r = &v["result"];
        assert_eq!(r["reason"], outcome.reason.id());
        assert_eq!(r["winner"].as_str(), outcome.winner.map(Side::id));
        let sides = o.variant.sides();
        for side in sides.iter() {
            assert_eq!(
                r["points"][side.id()].as_f64(),
                Some(outcome.points[*side].value())
            );
        }
        assert_eq!(r["points"].as_object().unwrap().len(), 2);
    }
}

const ARD_RI_START: &str = "2aaa2/3a3/a1ddd1a/aadkdaa/a1ddd1a/3a3/2aaa2 a 0 0";

/// The keys of the JSON object, in order: the contract, with "position" last.
#[test]
fn keys_come_in_the_documented_order_with_position_last() {
    for variant in ["hkot-1", "ard-ri"] {
        let out = engine(&["--variant", variant]);
        let line = String::from_utf8(out.stdout).unwrap();
        let keys = [
            "variant", "scoring", "ply", "status", "to_move", "phase", "legal", "counts", "result",
            "position",
        ];
        let mut at = 0;
        for k in keys {
            let found = line[at..]
                .find(&format!("\"{k}\":"))
                .unwrap_or_else(|| panic!("{variant}: {k} missing or out of order: {line}"));
            at += found;
        }
        assert!(line.trim_end().ends_with('}'));
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v.as_object().unwrap().len(), keys.len());
    }
}

#[test]
fn the_position_key_is_the_notation_for_ard_ri_and_null_for_tara() {
    let out = engine(&["--variant", "ard-ri"]);
    assert_eq!(json_lines(&out)[0]["position"], ARD_RI_START);
    let out = engine(&["--variant", "ard-ri", "--moves", "d2-c2 c3-b3", "--trace"]);
    let lines = json_lines(&out);
    assert_eq!(lines[0]["position"], ARD_RI_START);
    assert_eq!(
        lines[2]["position"],
        "2aaa2/3a3/a1ddd1a/aadkdaa/ad1dd1a/2a4/2aaa2 a 2 2"
    );
    for variant in ["hkot-1", "hkot-2", "sacred-hill-1", "sacred-hill-2"] {
        let out = engine(&["--variant", variant, "--moves", "D4"]);
        assert!(json_lines(&out)[0]["position"].is_null(), "{variant}");
    }
}

#[test]
fn ard_ri_starts_from_a_given_position() {
    // The king two steps from g7, defenders to move, 40 plies without a capture at ply 57.
    let pos = "2aaa2/5k1/7/a3d2/7/3a3/7 d 40 57";
    let out = engine(&["--variant", "ard-ri", "--position", pos]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = &json_lines(&out)[0];
    assert_eq!(v["ply"], 57);
    assert_eq!(v["to_move"], "defenders");
    assert_eq!(v["position"], pos);
    assert!(v["legal"].as_array().unwrap().contains(&"f6-g6".into()));
    // Moves continue from it; the king escapes.
    let out = engine(&[
        "--variant",
        "ard-ri",
        "--position",
        pos,
        "--moves",
        "f6-g6 a4-b4 g6-g7",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = &json_lines(&out)[0];
    assert_eq!(v["status"], "finished");
    assert_eq!(v["ply"], 60);
    assert_eq!(v["result"]["reason"], "king-escaped");
    assert_eq!(v["result"]["winner"], "defenders");
    assert_eq!(v["position"], "2aaa1k/7/7/1a2d2/7/3a3/7 a 43 60");
    // Perft from it agrees with the data file's start entry when it is the start.
    let out = engine(&[
        "--variant",
        "ard-ri",
        "--position",
        ARD_RI_START,
        "--perft",
        "3",
    ]);
    assert_eq!(json_lines(&out)[0]["perft"], 4144);
    // An illegal move after the position: exit 1, as from the start.
    let out = engine(&["--variant", "ard-ri", "--position", pos, "--moves", "e4-d4"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim(),
        "move 1 (e4-d4): only the king may stop on d4: the throne d4 and the corners are his"
    );
}

#[test]
fn a_bad_position_exits_2_with_the_reason_and_usage() {
    for (args, reason) in [
        (
            vec!["--variant", "ard-ri", "--position", "7/7/7/3k3/7/7 a 0 0"],
            "the board has seven rows",
        ),
        (
            vec![
                "--variant",
                "ard-ri",
                "--position",
                "7/7/7/3k3/7/7/7/x a 0 0",
            ],
            "the board has seven rows",
        ),
        (
            vec!["--variant", "ard-ri", "--position", "7/7/7/3k2/7/7/7 a 0 0"],
            "row 4 covers 6 squares",
        ),
        (
            vec!["--variant", "ard-ri", "--position", "7/7/7/7/7/7/7 a 0 0"],
            "the king is missing",
        ),
        (
            vec!["--variant", "hkot-1", "--position", ARD_RI_START],
            "--position is for Ard Rí only",
        ),
        (
            vec!["--variant", "sacred-hill-2", "--position", "x"],
            "--position is for Ard Rí only",
        ),
    ] {
        let out = engine(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = stderr(&out);
        assert!(err.contains(reason), "{args:?}: {err}");
        assert!(err.contains("Usage:"), "{args:?}: {err}");
    }
}

#[test]
fn render_draws_a_given_ard_ri_position() {
    let dir = std::env::temp_dir().join(format!("tara-engine-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("pos.png");
    let render = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_tara-bot"))
            .arg("render")
            .args(args)
            .output()
            .unwrap()
    };
    let pos = "2aaa2/5k1/7/a3d2/7/3a3/7 d 40 57";
    let out = render(&[
        "--variant",
        "ard-ri",
        "--position",
        pos,
        "--moves",
        "f6-g6",
        "-o",
        png.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    let out = render(&[
        "--variant",
        "hkot-1",
        "--position",
        pos,
        "-o",
        png.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let out = render(&[
        "--variant",
        "ard-ri",
        "--position",
        pos,
        "--replay",
        "-o",
        png.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--replay"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_reader_that_goes_away_ends_the_command_quietly() {
    // As `tara-bot engine --trace ... | head -c 0`: the pipe is closed before (or while) the
    // engine writes. Each of several runs ends with status 0 and nothing on stderr.
    for _ in 0..5 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tara-bot"))
            .args([
                "engine",
                "--variant",
                "ard-ri",
                "--trace",
                "--moves",
                "d2-c2 c3-b3",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
        assert_eq!(stderr(&out), "");
    }
}

/// Runs `tara-bot` in `dir` (no configuration file there) with `stdin` as its input and
/// `close_stdout` deciding whether its standard output is closed before it writes.
fn tara_bot_in(
    dir: &std::path::Path,
    args: &[&str],
    env: &[(&str, &str)],
    stdin: &[u8],
    close_stdout: bool,
) -> Output {
    use std::io::Write as _;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .args(args)
        .current_dir(dir)
        .env_remove("RUST_LOG")
        .env_remove("TARA_BOT_CONFIG")
        .env_remove("TARA_BOT_DB")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if close_stdout {
        drop(child.stdout.take());
    }
    let mut input = child.stdin.take().unwrap();
    // The command may end before it reads everything (a closed stdout).
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().unwrap()
}

const RENDER_GAME: [&str; 6] = [
    "render",
    "--variant",
    "hkot-1",
    "--moves",
    "D4 B2 F6",
    "--names=Aoife,Brian",
];

#[test]
fn render_picks_the_format_from_the_output_name_and_refuses_a_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        let args: Vec<&str> = RENDER_GAME.iter().chain(extra).copied().collect();
        tara_bot_in(dir.path(), &args, &[], b"", false)
    };
    let out = run(&["-o", "board.PNG"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read(dir.path().join("board.PNG"))
        .unwrap()
        .starts_with(b"\x89PNG"));
    let out = run(&["--replay", "-o", "game.gif"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read(dir.path().join("game.gif"))
        .unwrap()
        .starts_with(b"GIF89a"));
    for (extra, expected) in [
        (&["-o", "x.gif"][..], "add --replay"),
        (&["--replay", "-o", "x.png"][..], "name a .gif file"),
        (&["-o", "x.jpg"][..], "must end in .png"),
        (&["--replay", "-o", "game"][..], "must end in .png"),
        (
            &["--replay", "--ply", "2", "-o", "g.gif"][..],
            "give one of them",
        ),
    ] {
        let out = run(extra);
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        let err = stderr(&out);
        assert!(err.contains(expected), "{extra:?}: {err}");
        assert!(err.contains("Usage:"), "{extra:?}: {err}");
        assert!(out.stdout.is_empty());
    }
    for name in ["x.gif", "x.png", "x.jpg", "game", "g.gif"] {
        assert!(!dir.path().join(name).exists(), "{name} was written");
    }
}

#[test]
fn render_to_a_dash_writes_the_image_to_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let args: Vec<&str> = RENDER_GAME.iter().chain(&["-o", "-"]).copied().collect();
    let out = tara_bot_in(dir.path(), &args, &[], b"", false);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.starts_with(b"\x89PNG"));
    // The same bytes as a file.
    let file: Vec<&str> = RENDER_GAME
        .iter()
        .chain(&["-o", "b.png"])
        .copied()
        .collect();
    tara_bot_in(dir.path(), &file, &[], b"", false);
    assert_eq!(std::fs::read(dir.path().join("b.png")).unwrap(), out.stdout);
    let replay: Vec<&str> = RENDER_GAME
        .iter()
        .chain(&["--replay", "-o", "-"])
        .copied()
        .collect();
    let out = tara_bot_in(dir.path(), &replay, &[], b"", false);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stdout.starts_with(b"GIF89a"));
    assert!(!dir.path().join("-").exists(), "no file named -");
    // A reader that goes away: a quiet end.
    for args in [&args, &replay] {
        let out = tara_bot_in(dir.path(), args, &[], b"", true);
        assert!(out.status.success(), "{:?}: {}", out.status, stderr(&out));
        assert_eq!(stderr(&out), "");
    }
}

#[test]
fn bad_names_get_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    for (names, problem) in [
        ("Aoife", "only one name"),
        ("Aoife,Brian,Cara", "3 names"),
        ("Aoife,", "the second name is empty"),
        (" ,Brian", "the first name is empty"),
        (",", "both names are empty"),
        ("", "no names"),
    ] {
        let flag = format!("--names={names}");
        let args = [
            "render",
            "--variant",
            "hkot-1",
            flag.as_str(),
            "-o",
            "x.png",
        ];
        let out = tara_bot_in(dir.path(), &args, &[], b"", false);
        assert_eq!(out.status.code(), Some(2), "{names:?}");
        let err = stderr(&out);
        for part in [
            "--names",
            "two names separated by a comma",
            "\"Aoife,Brian\"",
            problem,
            "Usage:",
        ] {
            assert!(err.contains(part), "{names:?}: {part:?} missing from {err}");
        }
        assert!(!dir.path().join("x.png").exists());
    }
}

#[test]
fn logs_go_to_standard_error_without_colour_codes() {
    let dir = tempfile::tempdir().unwrap();
    let script = b"/challenge @bob ard-ri first:me\n/as bob\n/accept\n/as alice\nd2-c2\n/status\n";
    let out = tara_bot_in(
        dir.path(),
        &["local", "--db", "t.db", "--no-images"],
        &[("RUST_LOG", "debug")],
        script,
        false,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stdout.contains("> d2-c2"), "{stdout}");
    assert!(
        stderr.contains("database opened and checked"),
        "RUST_LOG=debug logs: {stderr}"
    );
    assert!(!stderr.contains('\u{1b}'), "colour codes in {stderr:?}");
    for level in ["TRACE", "DEBUG", " INFO", " WARN", "ERROR", "tara_bot:"] {
        assert!(!stdout.contains(level), "{level} in {stdout}");
    }
    assert!(!stdout.contains('\u{1b}'));
}

#[test]
fn a_closed_standard_output_ends_every_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    // A database to check.
    let made = tara_bot_in(
        dir.path(),
        &["local", "--db", "t.db", "--no-images"],
        &[],
        b"/challenge @bob ard-ri\n",
        false,
    );
    assert!(made.status.success(), "{}", stderr(&made));
    for (args, input) in [
        (
            &["engine", "--variant", "hkot-1", "--perft", "4"][..],
            &b""[..],
        ),
        (&["db", "check", "--db", "t.db"][..], &b""[..]),
        (
            &["local", "--db", "t.db", "--no-images"][..],
            &b"/help\n/status\n"[..],
        ),
        (&["--help"][..], &b""[..]),
    ] {
        let out = tara_bot_in(dir.path(), args, &[], input, true);
        assert!(
            out.status.success(),
            "{args:?}: {:?}: {}",
            out.status,
            stderr(&out)
        );
        assert_eq!(stderr(&out), "", "{args:?}");
    }
}

/// A standard error that cannot be written (`2>/dev/full`) loses the message but not the exit
/// status: 1 for a bad move or a missing file, 2 for bad options, never a panic (101).
#[test]
fn an_unwritable_standard_error_keeps_the_exit_status() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        // Only where the system has /dev/full (Linux, where CI runs).
        return;
    };
    for (args, status) in [
        (&["engine", "--variant", "hkot-1", "--moves", "zz"][..], 1),
        (&["engine", "--variant", "foo"][..], 2),
        (&["ai", "--variant", "foo"][..], 2),
        (&["frobnicate"][..], 2),
        (
            &["render", "--variant", "hkot-1", "--replay", "-o", "x.png"][..],
            2,
        ),
        (&["db", "check", "--db", "/nonexistent/tara.db"][..], 1),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_tara-bot"))
            .args(args)
            .stderr(full.try_clone().unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(status), "{args:?}");
    }
}

/// Issue 45: the console's `/time` carries over to the next console on the same database: a
/// vacation that `/time` has run out is over there too, not "paused until" a date ahead.
#[test]
fn the_consoles_time_carries_over_to_the_next_console() {
    let dir = tempfile::tempdir().unwrap();
    let first = tara_bot_in(
        dir.path(),
        &["local", "--db", "t.db", "--no-images"],
        &[],
        b"/as alice\n/challenge @bob hkot-1 first:me days:7\n/as bob\n/accept\n/as alice\nD4\n/as bob\n/vacation 3\n/time +4d\n/status\n",
        false,
    );
    assert!(first.status.success(), "{}", stderr(&first));
    let said = String::from_utf8(first.stdout).unwrap();
    assert!(said.contains("The clock moves on 4 days"), "{said}");
    assert!(!said.contains("(vacation)"), "{said}");
    let next = tara_bot_in(
        dir.path(),
        &["local", "--db", "t.db", "--no-images"],
        &[],
        b"/as alice\n/status\n",
        false,
    );
    assert!(next.status.success(), "{}", stderr(&next));
    let said = String::from_utf8(next.stdout).unwrap();
    assert!(said.contains("to move"), "{said}");
    assert!(!said.contains("(vacation)"), "{said}");
}

/// `"ms":<number>` (the time a command took, which differs from run to run) as `"ms":_`.
fn without_ms(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("\"ms\":") {
        out.push_str(&rest[..at + 5]);
        rest = rest[at + 5..].trim_start_matches(|c: char| c.is_ascii_digit());
        out.push('_');
    }
    out.push_str(rest);
    out
}

/// A command line as a shell splits it: words, with "double quotes" around words with spaces.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// Issue 45: the examples in docs/cli.md (`$ tara-bot …` and what it prints) are what the
/// commands print, every field but `ms` (the time taken); `…` stands for what an example
/// leaves out. Those reading a database of the reader's own (`--db`) show its shape only.
#[test]
fn the_examples_in_docs_cli_md_are_what_the_commands_print() {
    let root = env!("CARGO_MANIFEST_DIR");
    let doc = std::fs::read_to_string(format!("{root}/docs/cli.md")).unwrap();
    let mut examples: Vec<(String, Vec<String>)> = Vec::new();
    // (What follows an example in its code block is what it prints.)
    let mut in_block = false;
    let mut collecting = false;
    for line in doc.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            collecting = false;
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ tara-bot ") {
            examples.push((command.to_string(), Vec::new()));
            collecting = true;
        } else if let (true, Some((_, printed))) = (collecting, examples.last_mut()) {
            printed.push(line.to_string());
        }
    }
    let mut ran = 0;
    for (command, printed) in examples.iter().filter(|(c, _)| !c.contains("--db")) {
        let out = Command::new(env!("CARGO_BIN_EXE_tara-bot"))
            .args(shell_words(command))
            .current_dir(root)
            .output()
            .unwrap();
        assert!(out.status.success(), "{command}: {}", stderr(&out));
        let actual = without_ms(&String::from_utf8(out.stdout).unwrap());
        let expected = without_ms(&printed.join("\n"));
        let mut rest = actual.as_str();
        for piece in expected.split('…') {
            let piece = piece.trim_matches('\n');
            match rest.find(piece) {
                Some(at) => rest = &rest[at + piece.len()..],
                None => panic!(
                    "docs/cli.md: `tara-bot {command}` prints\n{actual}\nwhich does not have, \
                     where the example shows it,\n{piece}"
                ),
            }
        }
        ran += 1;
    }
    assert!(ran >= 5, "{ran} examples run");
}
