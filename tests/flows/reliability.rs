//! Reliability: a process killed in the middle of a burst of moves leaves every game
//! consistent; many threads and connections writing at once apply each turn exactly once.

#[path = "../common/mod.rs"]
mod common;

use common::*;
use std::io::Write;
use std::process::{Command as Proc, Stdio};
use std::sync::{Arc, Barrier};
use std::time::Duration;
use tara_bot::bot::{Bot, Command, Reply};
use tara_bot::game::{GameOptions, Move, Position, Variant};
use tara_bot::store::ChannelId;
use tara_bot::store::GameId;
use tara_bot::store::{GameStatus, Store};

/// Checks every stored game: contiguous plies that replay legally, passes by the bot only when
/// forced, and a status that agrees with the replayed position. Returns (games, moves).
fn check_consistent(db: &std::path::Path) -> (usize, usize) {
    let mut store = Store::open(db).unwrap();
    let games = store
        .read(|tx| -> Result<_, tara_bot::store::StoreError> {
            let n = tx.game_count()?;
            let mut out = Vec::new();
            for id in 1..=n {
                if let Some(g) = tx.game(GameId(id))? {
                    let moves = tx.moves(GameId(id))?;
                    out.push((g, moves));
                }
            }
            Ok(out)
        })
        .unwrap();
    let mut total = 0;
    for (g, moves) in &games {
        let mut pos = Position::new(g.options);
        for m in moves {
            let legal = pos.legal_moves();
            let mv = pos.parse_move(&m.notation).unwrap();
            assert!(
                legal.contains(&mv),
                "game {} ply {}: {} is illegal",
                g.id,
                m.ply,
                m.notation
            );
            if m.user_id.is_none() {
                assert_eq!(
                    legal.as_slice(),
                    [Move::Pass],
                    "game {} ply {}: bot pass not forced",
                    g.id,
                    m.ply
                );
            }
            pos.play_unchecked(mv);
        }
        total += moves.len();
        match g.status {
            GameStatus::Active => {
                assert!(pos.outcome().is_none(), "game {} is over but active", g.id);
                assert_ne!(
                    pos.legal_moves().as_slice(),
                    [Move::Pass],
                    "game {}: a forced pass was left unplayed",
                    g.id
                );
            }
            GameStatus::Finished => assert_eq!(g.outcome.as_ref(), pos.outcome(), "game {}", g.id),
            GameStatus::Aborted => {}
        }
    }
    (games.len(), total)
}

/// Moves stored so far (0 before the schema exists).
fn count_moves(db: &std::path::Path) -> usize {
    let Ok(conn) = rusqlite::Connection::open(db) else {
        return 0;
    };
    conn.query_row("SELECT COUNT(*) FROM moves", [], |r| r.get::<_, i64>(0))
        .map(|n| n as usize)
        .unwrap_or(0)
}

/// Console lines that start `games` games in their own channels and play them out.
fn burst_script(prefix: &str, games: usize) -> (String, usize) {
    let mut s = String::new();
    let mut count = 0;
    for i in 0..games {
        let variant = Variant::ALL[i % Variant::ALL.len()];
        let options = GameOptions::new(variant);
        s.push_str(&format!(
            "/channel {prefix}{i}\n/as red{i}\n/challenge @blue{i} {} first:me\n/as blue{i}\n/accept\n",
            variant.id()
        ));
        let moves = player_moves(options, 900 + i as u64);
        let mut pos = Position::new(options);
        for m in moves {
            let who = if pos.to_move().unwrap().index() == 0 {
                "red"
            } else {
                "blue"
            };
            s.push_str(&format!("/as {who}{i}\n/move {m}\n"));
            count += 1;
            pos.play_unchecked(m);
            while pos.outcome().is_none() && pos.legal_moves().as_slice() == [Move::Pass] {
                pos.play_unchecked(Move::Pass);
            }
        }
    }
    (s, count)
}

#[test]
fn a_process_killed_mid_burst_leaves_every_game_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("kill.db");
    let mut stored_before = 0;
    for (run, fraction) in [0.2f64, 0.5, 0.8].into_iter().enumerate() {
        let (script, planned) = burst_script(&format!("r{run}k"), 120);
        let mut child = Proc::new(env!("CARGO_BIN_EXE_tara-bot"))
            .args(["local", "--no-images", "--db"])
            .arg(&db)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let text = script.clone();
        let writer = std::thread::spawn(move || {
            // The pipe breaks when the child dies; that is expected.
            let _ = stdin.write_all(text.as_bytes());
        });
        // Kill once the burst is well under way (polled through another connection).
        let target = stored_before + (planned as f64 * fraction) as usize;
        let t0 = std::time::Instant::now();
        while count_moves(&db) < target && t0.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(2));
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        writer.join().unwrap();
        let (games, moves) = check_consistent(&db);
        let written = moves - stored_before;
        stored_before = moves;
        eprintln!(
            "run {run}: killed at {fraction}; {written} of {planned} moves stored, {games} games"
        );
        assert!(
            games > 0 && written > 0,
            "the burst wrote something before the kill"
        );
        assert!(
            written < planned,
            "the kill came in the middle of the burst"
        );
    }
    // A new process carries on with the same database.
    let mut store = Store::open(&db).unwrap();
    let g = store
        .read(|tx| tx.active_game(&ChannelId::new("r0k0")))
        .unwrap();
    drop(store);
    if let Some(g) = g {
        let (_, _, pos) = stored(&db, g.id);
        let m = pos.legal_moves()[0];
        let seat = pos.to_move().unwrap();
        let bot = Bot::new(
            Store::open(&db).unwrap(),
            Arc::new(tara_bot::bot::SystemClock),
            1,
        )
        .with_images(false);
        let r = bot.handle(
            &ctx((g.seats[seat]).as_str(), "r0k0"),
            Command::Move {
                text: m.to_string(),
                game: None,
            },
        );
        assert!(!r[0].ephemeral, "{}", r[0].plain_text());
        check_consistent(&db);
    }
}

fn refused(r: &[Reply]) -> bool {
    r[0].ephemeral
}

fn no_internal_errors(r: &[Reply]) {
    for x in r {
        let t = x.plain_text();
        assert!(!t.contains("went wrong"), "{t}");
        assert!(!t.contains("locked"), "{t}");
    }
}

#[test]
fn simultaneous_moves_for_the_same_turn_apply_exactly_once() {
    let h = Harness::new(false);
    let game = h.start("aoife", "brian", "race", "hkot-1", "me");
    // Four extra connections to the same file, as from other processes.
    let bots: Vec<Bot> = (0..4)
        .map(|i| Bot::new(Store::open(h.db()).unwrap(), h.clock.clone(), i).with_images(false))
        .collect();
    let moves = player_moves(game.options, 77);
    let mut pos = Position::new(game.options);
    for m in moves.iter().take(40) {
        let seat = pos.to_move().unwrap();
        let who = game.seats[seat].clone();
        let before = stored(&h.db(), game.id).1.len();
        let barrier = Barrier::new(8);
        let results: Vec<Vec<Reply>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|t| {
                    let bot = if t < 4 { &h.bot } else { &bots[t - 4] };
                    let (who, barrier) = (&who, &barrier);
                    s.spawn(move || {
                        barrier.wait();
                        bot.handle(
                            &ctx(who.as_str(), "race"),
                            Command::Move {
                                text: m.to_string(),
                                game: None,
                            },
                        )
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for r in &results {
            no_internal_errors(r);
        }
        let applied = results.iter().filter(|r| !refused(r)).count();
        assert_eq!(applied, 1, "exactly one of eight identical moves applies");
        pos.play_unchecked(*m);
        let mut forced = 0;
        while pos.outcome().is_none() && pos.legal_moves().as_slice() == [Move::Pass] {
            pos.play_unchecked(Move::Pass);
            forced += 1;
        }
        assert_eq!(stored(&h.db(), game.id).1.len(), before + 1 + forced);
        if pos.outcome().is_some() {
            break;
        }
    }
    check_consistent(&h.db());
}

#[test]
fn many_games_at_once_from_many_connections() {
    let h = Harness::new(false);
    let n = 8;
    let games: Vec<_> = (0..n)
        .map(|i| {
            let v = Variant::ALL[i % Variant::ALL.len()].id();
            h.start(
                &format!("p{i}"),
                &format!("q{i}"),
                &format!("g{i}"),
                v,
                "me",
            )
        })
        .collect();
    std::thread::scope(|s| {
        for (i, game) in games.iter().enumerate() {
            let db = h.db();
            let clock = h.clock.clone();
            s.spawn(move || {
                let bot = Bot::new(Store::open(db).unwrap(), clock, i as u64).with_images(false);
                let channel = format!("g{i}");
                let mut pos = Position::new(game.options);
                for m in player_moves(game.options, 300 + i as u64) {
                    let who = &game.seats[pos.to_move().unwrap()];
                    let r = bot.handle(
                        &ctx(who.as_str(), &channel),
                        Command::Move {
                            text: m.to_string(),
                            game: None,
                        },
                    );
                    no_internal_errors(&r);
                    assert!(!refused(&r), "{}", r[0].plain_text());
                    pos.play_unchecked(m);
                    while pos.outcome().is_none() && pos.legal_moves().as_slice() == [Move::Pass] {
                        pos.play_unchecked(Move::Pass);
                    }
                }
                assert!(pos.outcome().is_some());
            });
        }
    });
    let (count, _) = check_consistent(&h.db());
    assert_eq!(count, n);
    for i in 0..n {
        assert!(
            active(&h.db(), &format!("g{i}")).is_none(),
            "game {i} finished"
        );
    }
}

/// The outbox: every public reply a change owes is stored with the change, handed out again
/// until it is reported delivered, retried with backoff after a failure, and dropped after a
/// refusal for good; private answers and refused commands owe nothing.
#[test]
fn owed_messages_are_kept_until_delivered_and_retried_with_backoff() {
    let mut h = Harness::new(true);
    h.start("alice", "bob", "c", "hkot-1", "me");
    // Challenge, game start: delivered by the adapter (here: reported as such).
    let owed = h.bot.undelivered(true);
    assert_eq!(owed.len(), 2, "the challenge and the game start are owed");
    for r in &owed {
        assert_eq!(r.channel.as_ref().map(ChannelId::as_str), Some("c"));
        h.bot.delivered(r.outbox.unwrap());
    }
    assert_eq!(h.bot.owed_count(), 0);
    // A refused move and a private answer owe nothing.
    assert!(h.mv("bob", "c", "D4")[0].ephemeral);
    let status = h.send("alice", "c", Command::Status { game: None });
    assert!(status.iter().all(|r| r.outbox.is_none()));
    assert_eq!(h.bot.owed_count(), 0);
    // A move owes its announcement, with its board image and its ping.
    let r = h.mv("alice", "c", "D4");
    let id = r[0].outbox.expect("the announcement is owed");
    assert_eq!(h.bot.owed_count(), 1);
    // A crash before delivery: the restarted bot hands it out again, image and ping included,
    // and keeps doing so until it is reported delivered.
    h.restart();
    let again = h.bot.undelivered(true);
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].outbox, Some(id));
    assert_eq!(again[0].parts, r[0].parts);
    assert_eq!(again[0].mentions, vec!["bob".to_string()]);
    assert_eq!(again[0].image, r[0].image, "the same board image");
    assert!(again[0].image.is_some());
    // While running, a fresh message is left to the command that made it for a minute.
    assert!(h.bot.undelivered(false).is_empty());
    h.bot.advance_clock(61_000);
    assert_eq!(h.bot.undelivered(false).len(), 1);
    // A failed delivery waits 15 s, then 30 s, before the next try.
    h.bot.delivery_failed(id, "503 Service Unavailable", false);
    assert!(h.bot.undelivered(false).is_empty());
    h.bot.advance_clock(15_000);
    assert_eq!(h.bot.undelivered(false).len(), 1);
    h.bot.delivery_failed(id, "503 Service Unavailable", false);
    h.bot.advance_clock(29_000);
    assert!(h.bot.undelivered(false).is_empty());
    h.bot.advance_clock(1_000);
    assert_eq!(h.bot.undelivered(false).len(), 1);
    h.bot.delivered(id);
    assert!(h.bot.undelivered(true).is_empty());
    assert_eq!(h.bot.owed_count(), 0);
    // A message refused for good (its channel is gone) is not tried again.
    let r = h.mv("bob", "c", "B2");
    let id = r[0].outbox.unwrap();
    h.bot.delivery_failed(id, "Unknown Channel", true);
    assert!(h.bot.undelivered(true).is_empty());
    assert_eq!(h.bot.owed_count(), 0);
}
