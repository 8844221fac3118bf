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
