//! The archive and discussion commands through the bot core: `/replay`, `/export`, `/history`
//! (with its paging buttons and the store query it stands on), `/position`, marks and arrows on
//! `/board` and `/game`, and `/status`, `/board`, `/record` once a channel's game has ended.

mod common;

use common::{ctx, Harness};
use tara_bot::bot::options::{Value, Values};
use tara_bot::bot::{Command, Reply, User};
use tara_bot::game::BySide;
use tara_bot::game::{forfeit, EndReason, GameOptions, GameRecord, Position, Variant};
use tara_bot::store::{ChannelId, ServerId, UserId};
use tara_bot::store::{GameId, GameRow, NewGame, Store};

fn resign(h: &Harness, who: &str, channel: &str) {
    let r = h.send(
        who,
        channel,
        Command::Resign {
            confirmed: true,
            game: None,
        },
    );
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
}

/// A command read through the table from option values, as an adapter reads it.
fn parsed(name: &str, values: &[(&str, Value)]) -> Command {
    let mut v = Values::new();
    for (k, x) in values {
        v.set(k, x.clone());
    }
    Command::parse(name, &v).unwrap_or_else(|e| panic!("/{name}: {e}"))
}

fn text(s: &str) -> Value {
    Value::Text(s.into())
}

/// A game on another server (same store), as another server's players would make it.
fn other_server_game(h: &Harness) -> GameId {
    let r = h.bot.handle(
        &tara_bot::bot::Ctx {
            server: ServerId::new("elsewhere"),
            ..ctx("xena", "x1")
        },
        common::challenge_cmd("yuri", "hkot-1", None, Some("me"), false, None),
    );
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    let r = h.bot.handle(
        &tara_bot::bot::Ctx {
            server: ServerId::new("elsewhere"),
            ..ctx("yuri", "x1")
        },
        Command::Accept { challenge: None },
    );
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    common::active(&h.db(), "x1").unwrap().id
}

/// Frames of a GIF.
/// The positions a replay shows: a position may be two images (the header's change, shown for
/// `PART_DELAY` only, then the board's), so only images shown longer than that count.
fn gif_frames(bytes: &[u8]) -> usize {
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::Indexed);
    let mut dec = opts.read_info(bytes).expect("GIF header");
    let mut n = 0;
    while let Some(f) = dec.read_next_frame().expect("GIF frame") {
        if f.delay > tara_bot::render::PART_DELAY {
            n += 1;
        }
    }
    n
}

/// The answer for a missing game, with its number written as `N`.
fn missing(replies: &[Reply], id: GameId) -> String {
    assert_eq!(replies.len(), 1);
    assert!(replies[0].ephemeral);
    assert!(replies[0].image.is_none() && replies[0].document.is_none());
    replies[0].plain_text().replace(&id.0.to_string(), "N")
}

#[test]
fn replay_posts_a_gif_of_any_game_of_the_server_and_nothing_of_others() {
    let h = Harness::new(true);
    let g = h.start("aoife", "brian", "c", "hkot-1", "me");
    for m in ["D4", "B2", "F6"] {
        let who = if m == "B2" { "brian" } else { "aoife" };
        assert!(!h.mv(who, "c", m)[0].ephemeral);
    }
    // From another channel, while it is in progress.
    let r = h.send("carol", "lobby", Command::Replay { id: g.id });
    assert_eq!(r.len(), 1);
    assert!(!r[0].ephemeral);
    let img = r[0].image.as_ref().expect("a GIF");
    assert_eq!(img.filename, format!("game-{}.gif", g.id.0));
    assert_eq!(&img.bytes[..6], b"GIF89a");
    assert_eq!(gif_frames(&img.bytes), 4);
    let t = r[0].plain_text();
    assert!(t.contains("3 moves so far (in progress)"), "{t}");
    assert!(!t.contains("skipped"), "{t}");
    // Finished, it says so.
    resign(&h, "brian", "c");
    let t = h.send("carol", "lobby", Command::Replay { id: g.id })[0].plain_text();
    assert!(t.contains("finished"), "{t}");
    // A missing game and another server's game get the same answer.
    let theirs = other_server_game(&h);
    let a = missing(
        &h.send("carol", "lobby", Command::Replay { id: GameId(9999) }),
        GameId(9999),
    );
    let b = missing(
        &h.send("carol", "lobby", Command::Replay { id: theirs }),
        theirs,
    );
    assert_eq!(a, b);
    assert_eq!(a, "There is no game #N on this server.");
    // A bad id never reaches the handler.
    let e = Command::parse("replay", &Values::new().with("id", Value::Integer(0))).unwrap_err();
    assert!(e.contains("id"), "{e}");
}

#[test]
fn export_gives_a_file_that_the_engine_and_render_read() {
    let h = Harness::new(false);
    let g = h.start("aoife", "brian", "c", "ard-ri", "me");
    let moves = ["d2-c2", "c3-b3", "b4-b5"];
    for (i, m) in moves.iter().enumerate() {
        let who = if i % 2 == 0 { "aoife" } else { "brian" };
        assert!(!h.mv(who, "c", m)[0].ephemeral, "{m}");
    }
    resign(&h, "aoife", "c");
    let r = h.send("carol", "lobby", Command::Export { id: g.id });
    assert_eq!(r.len(), 1);
    assert!(r[0].ephemeral, "/export answers privately");
    let d = r[0].document.as_ref().expect("a file");
    assert!(d.always, "a short record still goes as a file");
    assert_eq!(d.filename, format!("game-{}.txt", g.id.0));
    assert!(d.note.contains(&format!("game {}", g.id.0)) && d.note.contains("3 moves"));
    let record = GameRecord::parse(&d.text).unwrap();
    let (_, stored, _) = common::stored(&h.db(), g.id);
    let texts: Vec<String> = record.moves.iter().map(|m| m.to_string()).collect();
    assert_eq!(texts, stored);
    assert_eq!(record.options, g.options);
    assert!(d.text.contains("# result: "), "{}", d.text);
    // The same text as /record gives.
    let rec = h.send("aoife", "c", Command::Record { game: None });
    assert_eq!(rec[0].document.as_ref().unwrap().text, d.text);
    // tara-bot engine --record and render --record read the file as it is.
    let file = h.dir.path().join(&d.filename);
    std::fs::write(&file, &d.text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .args(["engine", "--record"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["ply"], 3);
    assert_eq!(json["variant"], "ard-ri");
    let png = h.dir.path().join("b.png");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .args(["render", "--record"])
        .arg(&file)
        .arg("-o")
        .arg(&png)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    // A record that does not read is refused with the engine's message.
    std::fs::write(&file, "variant: ard-ri\nmoves: d2-c2 d2-c2\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .args(["engine", "--record"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("move 2 (d2-c2)"), "{err}");
    // In progress games export too; other servers' games do not.
    let g2 = h.start("aoife", "brian", "c2", "hkot-2", "me");
    let r = h.send("carol", "lobby", Command::Export { id: g2.id });
    assert!(r[0].document.as_ref().unwrap().note.contains("in progress"));
    let theirs = other_server_game(&h);
    let a = missing(
        &h.send("carol", "lobby", Command::Export { id: GameId(9999) }),
        GameId(9999),
    );
    let b = missing(
        &h.send("carol", "lobby", Command::Export { id: theirs }),
        theirs,
    );
    assert_eq!(a, b);
}

/// Plays and finishes `n` games between aoife and brian (variants in turn), a minute apart;
/// returns their rows, oldest first.
fn finished_games(h: &Harness, n: usize) -> Vec<GameRow> {
    let variants = ["hkot-1", "ard-ri", "sacred-hill-2"];
    let mut out = Vec::new();
    for i in 0..n {
        let channel = format!("h{i}");
        let g = h.start("aoife", "brian", &channel, variants[i % 3], "me");
        h.bot.advance_clock(60_000);
        h.opening(&channel);
        resign(h, if i % 2 == 0 { "brian" } else { "aoife" }, &channel);
        out.push(g);
    }
    out
}

/// The game numbers listed in a /history page, in order.
fn listed(r: &Reply) -> Vec<GameId> {
    r.plain_text()
        .lines()
        .filter_map(|l| l.strip_prefix("• #"))
        .map(|l| GameId(l.split(' ').next().unwrap().parse().unwrap()))
        .collect()
}

#[test]
fn history_lists_finished_games_newest_first_and_pages_with_buttons() {
    let h = Harness::new(false);
    let games = finished_games(&h, 23);
    // One in progress and one of another server are not listed.
    h.start("aoife", "brian", "live", "hkot-1", "me");
    other_server_game(&h);
    let newest: Vec<GameId> = games.iter().rev().map(|g| g.id).collect();
    let r = h.send(
        "aoife",
        "lobby",
        Command::History {
            user: None,
            variant: None,
            page: None,
        },
    );
    assert_eq!(r.len(), 1);
    assert!(r[0].ephemeral);
    assert_eq!(listed(&r[0]), newest[..10]);
    let t = r[0].plain_text();
    assert!(t.contains("page 1 (games 1–10)"), "{t}");
    let first = t.lines().find(|l| l.starts_with("• #")).unwrap();
    // #id, variant, players, result, date (the last game: brian resigned an Ard Rí game).
    let last = games.last().unwrap();
    assert_eq!(last.options.variant, Variant::ArdRi);
    assert_eq!(
        first,
        format!(
            "• #{} · ard-ri · @aoife (Attackers) vs @brian (Defenders) · Attackers win \
             (resigned), Attackers 1 – 0 Defenders · 2026-11-30",
            last.id.0
        )
    );
    let labels: Vec<&str> = r[0].buttons.iter().map(|b| b.label.as_str()).collect();
    assert_eq!(labels, ["Next"]);
    // Next, next: each page replaces the one before.
    let p2 = h.send(
        "aoife",
        "lobby",
        Command::from_button(&r[0].buttons[0].id).unwrap(),
    );
    assert!(p2[0].replaces_pressed && p2[0].ephemeral);
    assert_eq!(listed(&p2[0]), newest[10..20]);
    let labels: Vec<&str> = p2[0].buttons.iter().map(|b| b.label.as_str()).collect();
    assert_eq!(labels, ["Previous", "Next"]);
    let p3 = h.send(
        "aoife",
        "lobby",
        Command::from_button(&p2[0].buttons[1].id).unwrap(),
    );
    assert_eq!(listed(&p3[0]), newest[20..]);
    let labels: Vec<&str> = p3[0].buttons.iter().map(|b| b.label.as_str()).collect();
    assert_eq!(labels, ["Previous"]);
    let back = h.send(
        "aoife",
        "lobby",
        Command::from_button(&p3[0].buttons[0].id).unwrap(),
    );
    assert_eq!(listed(&back[0]), newest[10..20]);
    // Another user's, of one variant: the button keeps both.
    let r = h.send(
        "carol",
        "lobby",
        parsed(
            "history",
            &[
                ("user", Value::User(User::new("brian", "brian"))),
                ("variant", text("ard-ri")),
            ],
        ),
    );
    let ard: Vec<GameId> = games
        .iter()
        .rev()
        .filter(|g| g.options.variant == Variant::ArdRi)
        .map(|g| g.id)
        .collect();
    assert_eq!(listed(&r[0]), ard[..ard.len().min(10)]);
    assert!(
        r[0].plain_text()
            .contains("Finished Ard Rí games of @brian"),
        "{}",
        r[0].plain_text()
    );
    assert!(r[0].buttons.is_empty(), "8 games fit on one page");
    // Nobody's games.
    let r = h.send(
        "carol",
        "lobby",
        Command::History {
            user: None,
            variant: None,
            page: None,
        },
    );
    assert!(listed(&r[0]).is_empty() && r[0].plain_text().contains("none yet"));
    // A made-up button.
    assert_eq!(Command::from_button("history:aoife:chess:1"), None);
}

#[test]
fn the_history_query_reads_the_indexes_with_100000_games_stored() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path().join("big.db")).unwrap();
    let players: Vec<String> = (0..200).map(|i| format!("p{i}")).collect();
    let variants = Variant::ALL;
    store
        .write(|tx| -> Result<(), tara_bot::store::StoreError> {
            for p in &players {
                tx.upsert_user(&UserId::new(p), p, 0)?;
            }
            for i in 0..100_000usize {
                let a = &players[i % 200];
                let b = &players[(i * 7 + 1) % 200];
                let b = if a == b { &players[(i + 1) % 200] } else { b };
                let options = GameOptions::new(variants[(i / 3) % 5]);
                let id = tx.insert_game(
                    &NewGame {
                        server_id: &ServerId::new(if i % 10 == 0 { "other" } else { "s" }),
                        channel_id: &ChannelId::new(format!("c{i}")),
                        options,
                        seats: BySide::new(&UserId::new(a), &UserId::new(b)),
                        ai_levels: BySide::new(None, None),
                        match_id: None,
                        match_game: None,
                        pairing_id: None,
                        rated: true,
                        days_per_move: None,
                    },
                    i as i64,
                )?;
                let side = options.variant.sides()[i % 2];
                let o = forfeit(&Position::new(options), side, EndReason::Resigned);
                tx.finish_game(id, &o, 1_000_000 + i as i64)?;
            }
            Ok(())
        })
        .unwrap();
    store
        .read(|tx| -> Result<(), tara_bot::store::StoreError> {
            for variant in [None, Some(Variant::ArdRi)] {
                let plan = tx.finished_games_page_plan(variant)?;
                // Each branch reads its index in end order; only the page itself is sorted.
                assert_eq!(
                    plan.iter().filter(|s| s.contains("TEMP B-TREE")).count(),
                    1,
                    "{plan:?}"
                );
                for step in &plan {
                    assert!(
                        !step.starts_with("SCAN games") || step.contains("USING INDEX"),
                        "a full scan: {plan:?}"
                    );
                }
                assert!(
                    plan.iter().any(|s| s.contains("games_seat0_finished"))
                        && plan.iter().any(|s| s.contains("games_seat1_finished")),
                    "{plan:?}"
                );
                for page in [0u32, 1, 5, 20] {
                    let rows = tx.finished_games_page(
                        &ServerId::new("s"),
                        &UserId::new("p7"),
                        variant,
                        page * 10,
                        11,
                    )?;
                    assert_eq!(rows.len(), 11);
                    assert!(rows.windows(2).all(|w| w[0].ended_at >= w[1].ended_at));
                    assert!(rows
                        .iter()
                        .all(|g| g.server_id == "s" && g.seat_of("p7").is_some()));
                    assert!(variant.is_none_or(|v| rows.iter().all(|g| g.options.variant == v)));
                }
            }
            // The first page is the newest of all that player's games here.
            let all = tx.finished_games_of(&ServerId::new("s"), &UserId::new("p7"), None, 11)?;
            let page =
                tx.finished_games_page(&ServerId::new("s"), &UserId::new("p7"), None, 0, 11)?;
            assert_eq!(
                all.iter().map(|g| g.id).collect::<Vec<_>>(),
                page.iter().map(|g| g.id).collect::<Vec<_>>()
            );
            Ok(())
        })
        .unwrap();
    drop(store);
    // The whole command through the bot core, pages and buttons included.
    let bot = tara_bot::bot::Bot::new(
        Store::open(dir.path().join("big.db")).unwrap(),
        std::sync::Arc::new(tara_bot::bot::ManualClock::new(common::T0)),
        1,
    );
    let who = tara_bot::bot::Ctx {
        server: ServerId::new("s"),
        ..ctx("p7", "c")
    };
    for i in 0..6u32 {
        let r = bot.handle(
            &who,
            Command::History {
                user: None,
                variant: (i % 2 == 1).then_some(Variant::Hkot2),
                page: Some(1 + i % 3),
            },
        );
        assert_eq!(listed(&r[0]).len(), 10, "{}", r[0].plain_text());
    }
}

#[test]
fn position_posts_a_board_from_a_pasted_record_or_move_list() {
    let h = Harness::new(true);
    // A whole record as /record gives it, pasted on one line (slash options have no breaks).
    let r = h.send(
        "aoife",
        "talk",
        parsed(
            "position",
            &[
                (
                    "record",
                    text("```# game 3 · Red a vs Blue b variant: hkot-1 scoring: kingdoms first: red moves: D4 B2 F6 F2```"),
                ),
                ("ply", Value::Integer(3)),
                ("marks", text("D4 E5")),
                ("arrows", text("G2-E3")),
            ],
        ),
    );
    assert_eq!(r.len(), 1, "{}", common::texts(&r));
    assert!(!r[0].ephemeral);
    let t = r[0].plain_text();
    assert!(
        t.contains("after 3 of 4 moves") && t.contains("no game"),
        "{t}"
    );
    let img = r[0].image.as_ref().expect("a board");
    assert!(img.bytes.starts_with(b"\x89PNG"));
    assert!(
        common::active(&h.db(), "talk").is_none(),
        "no game is created"
    );
    // The marks and arrows are drawn: the same position without them differs.
    let plain = h.send(
        "aoife",
        "talk",
        parsed(
            "position",
            &[
                ("record", text("variant: hkot-1 moves: D4 B2 F6 F2")),
                ("ply", Value::Integer(3)),
            ],
        ),
    );
    assert_ne!(plain[0].image.as_ref().unwrap().bytes, img.bytes);
    // A move list needs a variant.
    let r = h.send(
        "aoife",
        "talk",
        parsed(
            "position",
            &[
                ("record", text("1. d2-c2 c3-b3")),
                ("variant", text("ard-ri")),
            ],
        ),
    );
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    assert!(r[0].plain_text().contains("Ard Rí"));
    let r = h.send(
        "aoife",
        "talk",
        parsed("position", &[("record", text("D4 B2"))]),
    );
    assert!(r[0].ephemeral && r[0].plain_text().contains("`variant`"));
    // A bad record gets the engine's message: which move, why.
    let r = h.send(
        "aoife",
        "talk",
        parsed(
            "position",
            &[("record", text("variant: hkot-1 moves: D4 D4"))],
        ),
    );
    let t = r[0].plain_text();
    assert!(r[0].ephemeral && t.contains("move 2 (D4)"), "{t}");
    assert!(r[0].image.is_none());
    let r = h.send(
        "aoife",
        "talk",
        parsed("position", &[("record", text("variant: chess moves: e4"))]),
    );
    assert!(
        r[0].ephemeral && r[0].plain_text().contains("chess"),
        "{}",
        r[0].plain_text()
    );
    // Bad marks and arrows are named.
    let r = h.send(
        "aoife",
        "talk",
        parsed(
            "position",
            &[
                ("record", text("variant: hkot-1 moves: D4")),
                ("marks", text("D4 A1")),
            ],
        ),
    );
    assert!(
        r[0].plain_text().starts_with("Bad mark `A1`"),
        "{}",
        r[0].plain_text()
    );
    let r = h.send(
        "aoife",
        "talk",
        parsed(
            "position",
            &[
                ("record", text("variant: ard-ri moves: d2-c2")),
                ("arrows", text("d4-x9")),
            ],
        ),
    );
    assert!(
        r[0].plain_text().starts_with("Bad arrow `d4-x9`"),
        "{}",
        r[0].plain_text()
    );
    let r = h.send(
        "aoife",
        "talk",
        parsed(
            "position",
            &[
                ("record", text("variant: ard-ri moves: d2-c2")),
                ("ply", Value::Integer(5)),
            ],
        ),
    );
    assert!(
        r[0].plain_text().contains("from 0 to 1"),
        "{}",
        r[0].plain_text()
    );
}

#[test]
fn board_and_game_take_marks_and_arrows() {
    let h = Harness::new(true);
    let g = h.start("aoife", "brian", "c", "ard-ri", "me");
    h.mv("aoife", "c", "d2-c2");
    let plain = h.send("carol", "c", parsed("board", &[]));
    let marked = h.send(
        "carol",
        "c",
        parsed(
            "board",
            &[("marks", text("d4 c2")), ("arrows", text("c3-c6 b4-b6"))],
        ),
    );
    assert!(!marked[0].ephemeral, "{}", marked[0].plain_text());
    assert_ne!(
        plain[0].image.as_ref().unwrap().bytes,
        marked[0].image.as_ref().unwrap().bytes
    );
    let game = h.send(
        "carol",
        "lobby",
        parsed(
            "game",
            &[
                ("id", Value::Integer(g.id.0)),
                ("ply", Value::Integer(0)),
                ("marks", text("d4")),
            ],
        ),
    );
    assert!(game[0].image.is_some() && !game[0].ephemeral);
    // Ard Rí squares are a1 to g7; a Tara corner is no hill.
    let r = h.send("carol", "c", parsed("board", &[("marks", text("d4 h8"))]));
    assert!(r[0].ephemeral && r[0].plain_text().starts_with("Bad mark `h8`"));
    let t = h.start("aoife", "brian", "t", "hkot-1", "me");
    let r = h.send(
        "carol",
        "lobby",
        parsed(
            "game",
            &[("id", Value::Integer(t.id.0)), ("arrows", text("A1-B2"))],
        ),
    );
    let msg = r[0].plain_text();
    assert!(
        r[0].ephemeral && msg.starts_with("Bad arrow `A1-B2`") && msg.contains("corners"),
        "{msg}"
    );
}

#[test]
fn status_board_and_record_show_an_ended_game_and_say_it_ended() {
    let h = Harness::new(false);
    let g = h.start("aoife", "brian", "c", "hkot-1", "me");
    h.mv("aoife", "c", "D4");
    h.mv("brian", "c", "B2");
    resign(&h, "brian", "c");
    let status = h.send("carol", "c", Command::Status { game: None })[0].plain_text();
    assert!(status.contains(&format!("(game {})", g.id.0)), "{status}");
    assert!(
        status.contains("This game is over") && status.contains("Red wins"),
        "{status}"
    );
    let board = h.send("carol", "c", parsed("board", &[]));
    let t = board[0].plain_text();
    assert!(
        t.contains("The game is over") && t.contains("after 2 of 2 moves"),
        "{t}"
    );
    let record = h.send("carol", "c", Command::Record { game: None });
    let t = record[0].plain_text();
    assert!(
        t.starts_with(&format!("Game {} has ended: Red wins", g.id.0)),
        "{t}"
    );
    assert!(t.contains("moves: D4 B2"), "{t}");
    assert!(record[0]
        .document
        .as_ref()
        .unwrap()
        .note
        .contains("has ended"));
    // An aborted game says so too.
    let g2 = h.start("aoife", "brian", "d", "hkot-1", "me");
    h.send(
        "aoife",
        "d",
        Command::Abort {
            reason: None,
            game: None,
        },
    );
    let t = h.send("carol", "d", Command::Record { game: None })[0].plain_text();
    assert!(
        t.starts_with(&format!("Game {} has ended: it was aborted", g2.id.0)),
        "{t}"
    );
    let t = h.send("carol", "d", Command::Status { game: None })[0].plain_text();
    assert!(t.contains("aborted"), "{t}");
    // A game in progress does not.
    h.start("aoife", "brian", "e", "hkot-1", "me");
    let t = h.send("carol", "e", Command::Record { game: None })[0].plain_text();
    assert!(!t.contains("has ended"), "{t}");
}
