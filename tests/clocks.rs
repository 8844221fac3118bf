//! Correspondence clocks with an injected clock (no sleeping): reminders at the right times
//! and never twice, timeouts, vacations, catch-up after a restart, and a move racing its own
//! timeout.

mod common;

use common::*;
use std::sync::{Arc, Barrier};
use tara_bot::bot::time::{DAY, HOUR};
use tara_bot::bot::{Bot, Command, Reminders, Reply, TimeControl};
use tara_bot::game::{EndReason, Points};
use tara_bot::store::{GameStatus, Store};

fn challenge(
    h: &Harness,
    channel: &str,
    variant: &str,
    days: &str,
    is_match: bool,
) -> tara_bot::store::GameRow {
    let r = h.send(
        "aoife",
        channel,
        challenge_cmd("brian", variant, None, Some("me"), is_match, Some(days)),
    );
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    let r = h.send("brian", channel, Command::Accept { challenge: None });
    assert!(
        r[0].plain_text().contains("per move"),
        "{}",
        r[0].plain_text()
    );
    active(&h.db(), channel).unwrap()
}

/// `/vacation days:N` as typed (the bot may ask to confirm).
fn vacation(days: u32) -> Command {
    Command::Vacation {
        days: Some(days),
        end: false,
        confirmed: false,
    }
}

/// `/vacation days:N`, confirmed (the "Take it anyway" button).
fn vacation_anyway(days: u32) -> Command {
    Command::Vacation {
        days: Some(days),
        end: false,
        confirmed: true,
    }
}

/// `/vacation end`.
fn vacation_end() -> Command {
    Command::Vacation {
        days: None,
        end: true,
        confirmed: false,
    }
}

fn tick(h: &Harness) -> Vec<Reply> {
    h.bot.tick()
}

fn advance(h: &Harness, ms: i64) {
    assert!(h.bot.advance_clock(ms));
}

#[test]
fn reminders_come_after_a_day_and_with_a_fifth_of_the_time_left_never_twice() {
    let h = Harness::new(false);
    let g = challenge(&h, "c", "hkot-1", "3", false);
    assert_eq!(g.deadline_at, Some(T0 + 3 * DAY));
    advance(&h, 23 * HOUR);
    assert!(tick(&h).is_empty());
    advance(&h, 2 * HOUR); // 25 h
    let r = tick(&h);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].channel.as_deref(), Some("c"));
    assert_eq!(
        r[0].mentions,
        vec!["aoife".to_string()],
        "only the player to move"
    );
    assert!(
        r[0].plain_text().contains("it is your move"),
        "{}",
        r[0].plain_text()
    );
    assert!(
        r[0].plain_text().contains("1 day 23 hours left"),
        "{}",
        r[0].plain_text()
    );
    assert!(tick(&h).is_empty(), "never twice");
    advance(&h, 11 * HOUR); // 36 h: nothing is due
    assert!(tick(&h).is_empty());
    advance(&h, 13 * HOUR); // 49 h: nothing yet
    assert!(tick(&h).is_empty());
    // The last call: with 3 days per move a fifth of the time (14.4 h) is less than a day.
    advance(&h, 8 * HOUR + 36 * 60_000); // 57 h 36 min: 14 h 24 min left
    let r = tick(&h);
    assert_eq!(r.len(), 1);
    assert!(
        r[0].plain_text().contains("Last call"),
        "{}",
        r[0].plain_text()
    );
    assert!(
        r[0].plain_text().contains("14 hours 24 minutes left"),
        "{}",
        r[0].plain_text()
    );
    assert!(tick(&h).is_empty());
    advance(&h, 12 * HOUR);
    assert!(tick(&h).is_empty(), "two reminders a turn at most");
}

#[test]
fn a_move_resets_the_clock_and_the_status_shows_it() {
    let h = Harness::new(false);
    challenge(&h, "c", "ard-ri", "2", false);
    advance(&h, 30 * HOUR);
    let r = h.mv("aoife", "c", "d2-c2");
    assert!(
        r[0].plain_text().contains("2 days left"),
        "{}",
        r[0].plain_text()
    );
    let g = active(&h.db(), "c").unwrap();
    assert_eq!(g.deadline_at, Some(T0 + 30 * HOUR + 2 * DAY));
    advance(&h, 5 * HOUR);
    let r = h.send("brian", "c", Command::Status {});
    assert!(
        r[0].plain_text().contains("1 day 19 hours left"),
        "{}",
        r[0].plain_text()
    );
}

#[test]
fn a_one_day_game_gets_its_first_reminder_early_enough_for_a_last_call() {
    let h = Harness::new(false);
    challenge(&h, "c", "sacred-hill-1", "1", false);
    // The last call falls due with a fifth of the day left (19.2 h in), so the first comes
    // 12 hours before it (7.2 h in).
    advance(&h, 7 * HOUR);
    assert!(tick(&h).is_empty());
    advance(&h, 30 * 60_000); // 7.5 h
    assert_eq!(tick(&h).len(), 1);
    advance(&h, 12 * HOUR); // 19.5 h
    let r = tick(&h);
    assert_eq!(r.len(), 1);
    assert!(
        r[0].plain_text().contains("Last call"),
        "{}",
        r[0].plain_text()
    );
}

#[test]
fn a_timeout_loses_the_game_and_is_scored_by_part_e() {
    let h = Harness::new(false);
    let g = challenge(&h, "c", "sacred-hill-1", "1", false);
    // Both have moved: Red, on move again, runs out of time.
    h.mv("aoife", "c", "D4");
    h.mv("brian", "c", "B2");
    advance(&h, DAY + 1);
    let r = tick(&h);
    assert_eq!(
        r.len(),
        1,
        "{:?}",
        r.iter().map(|x| x.plain_text()).collect::<Vec<_>>()
    );
    let t = r[0].plain_text();
    assert!(
        t.contains("Time is up") && t.contains("Blue wins on time"),
        "{t}"
    );
    assert_eq!(r[0].mentions.len(), 2, "both players are pinged");
    assert_eq!(r[0].channel.as_deref(), Some("c"));
    let (row, _, _) = stored(&h.db(), g.id);
    assert_eq!(row.status, GameStatus::Finished);
    let o = row.outcome.unwrap();
    assert_eq!(o.reason, EndReason::Timeout);
    assert_eq!(o.points.into_array(), [Points(0), Points::whole(2)]);
    assert!(tick(&h).is_empty(), "a game times out once");
}

#[test]
fn a_timeout_in_a_match_starts_the_second_game() {
    let h = Harness::new(false);
    challenge(&h, "c", "hkot-1", "2", true);
    // Both have moved (a timeout before a first move aborts instead, see below).
    h.mv("aoife", "c", "D4");
    h.mv("brian", "c", "B2");
    advance(&h, 2 * DAY);
    let r = tick(&h);
    let all = texts(&r);
    assert!(
        all.contains("Time is up") && all.contains("Game 2 starts now"),
        "{all}"
    );
    let g2 = active(&h.db(), "c").expect("game 2");
    assert_eq!(g2.match_game, Some(2));
    assert_eq!(g2.days_per_move, Some(2));
    assert_eq!(g2.deadline_at, Some(T0 + 4 * DAY));
}

#[test]
fn a_timeout_before_a_first_move_aborts_the_game() {
    // The first player never moves.
    let h = Harness::new(false);
    let g = challenge(&h, "c", "ard-ri", "1", false);
    advance(&h, DAY);
    let r = tick(&h);
    assert_eq!(r.len(), 1);
    let t = r[0].plain_text();
    assert!(
        t.contains("Time is up")
            && t.contains("before making a first move")
            && t.contains("aborted"),
        "{t}"
    );
    assert_eq!(r[0].channel.as_deref(), Some("c"));
    assert_eq!(r[0].mentions.len(), 2, "both players are pinged");
    let (row, _, _) = stored(&h.db(), g.id);
    assert_eq!(row.status, GameStatus::Aborted);
    assert!(row.outcome.is_none(), "no result, no points");
    assert!(tick(&h).is_empty(), "once");

    // The second player never moves: forced passes played for them would not count either.
    let h = Harness::new(false);
    let g = challenge(&h, "c", "sacred-hill-1", "1", false);
    h.mv("aoife", "c", "D4");
    advance(&h, DAY);
    let t = texts(&tick(&h));
    assert!(
        t.contains("brian (Blue) ran out of time before making a first move"),
        "{t}"
    );
    assert_eq!(stored(&h.db(), g.id).0.status, GameStatus::Aborted);

    // In a match the match is called off, not replayed.
    let h = Harness::new(false);
    let g = challenge(&h, "c", "hkot-1", "2", true);
    advance(&h, 2 * DAY);
    let t = texts(&tick(&h));
    assert!(t.contains("The match is called off"), "{t}");
    assert_eq!(stored(&h.db(), g.id).0.status, GameStatus::Aborted);
    assert!(active(&h.db(), "c").is_none(), "no replayed game");
    assert!(tick(&h).is_empty());
}

#[test]
fn vacation_pauses_the_clock_and_tells_the_opponent() {
    let h = Harness::new(false);
    let g = challenge(&h, "c", "hkot-1", "3", false);
    h.mv("aoife", "c", "D4");
    h.mv("brian", "c", "B2");
    advance(&h, 10 * HOUR);
    let r = h.send("aoife", "elsewhere", vacation(2));
    assert!(
        r[0].ephemeral && r[0].plain_text().contains("clocks paused in 1 game"),
        "{}",
        r[0].plain_text()
    );
    assert_eq!(r[1].channel.as_deref(), Some("c"));
    assert_eq!(r[1].mentions, vec!["brian".to_string()]);
    assert!(r[1].plain_text().contains("on vacation until"));
    let row = active(&h.db(), "c").unwrap();
    assert_eq!(row.deadline_at, Some(T0 + 5 * DAY));
    let s = h.send("aoife", "c", Command::Status {});
    assert!(
        s[0].plain_text().contains("paused until"),
        "{}",
        s[0].plain_text()
    );
    // No reminder and no timeout while away; the time left is kept.
    advance(&h, DAY);
    assert!(tick(&h).is_empty());
    advance(&h, 3 * DAY); // 4 d 10 h: back for 1 d 10 h, 2 d 14 h left
    let r = tick(&h);
    assert_eq!(r.len(), 1, "one reminder after the return");
    advance(&h, 15 * HOUR); // past 5 d
    let r = tick(&h);
    assert!(texts(&r).contains("Time is up"), "{}", texts(&r));
    assert_eq!(stored(&h.db(), g.id).0.status, GameStatus::Finished);
}

#[test]
fn a_vacation_taken_in_the_middle_of_a_turn_shows_as_paused_and_silences_reminders() {
    let h = Harness::new(false);
    challenge(&h, "c", "ard-ri", "5", false);
    advance(&h, 2 * DAY);
    h.send("aoife", "c", vacation(2));
    let s = h.send("brian", "c", Command::Status {});
    assert!(
        s[0].plain_text().contains("paused until"),
        "{}",
        s[0].plain_text()
    );
    assert!(
        s[0].plain_text().contains("then 3 days"),
        "{}",
        s[0].plain_text()
    );
    advance(&h, DAY + 23 * HOUR);
    assert!(tick(&h).is_empty(), "no reminder while away");
    advance(&h, 2 * HOUR); // back: 3 days left, the first reminder is overdue
    assert_eq!(tick(&h).len(), 1);
}

#[test]
fn a_turn_arriving_during_a_vacation_starts_its_clock_afterwards() {
    let h = Harness::new(false);
    challenge(&h, "c", "ard-ri", "1", false);
    h.send("brian", "c", vacation(3));
    h.mv("aoife", "c", "d2-c2");
    let row = active(&h.db(), "c").unwrap();
    assert_eq!(row.clock_start_at, Some(T0 + 3 * DAY));
    assert_eq!(row.deadline_at, Some(T0 + 4 * DAY));
}

#[test]
fn vacation_is_limited_to_fourteen_days() {
    let h = Harness::new(false);
    let r = h.send("aoife", "c", vacation_anyway(15));
    assert!(r[0].plain_text().contains("1 to 14 days"));
    let r = h.send("aoife", "c", vacation_anyway(10));
    assert!(
        r[0].plain_text().contains("on vacation until"),
        "{}",
        r[0].plain_text()
    );
    let r = h.send("aoife", "c", vacation_anyway(1));
    assert!(r[0].plain_text().contains("already on vacation"));
    advance(&h, 11 * DAY);
    let r = h.send("aoife", "c", vacation_anyway(5));
    assert!(
        r[0].plain_text().contains("4 days of vacation left"),
        "{}",
        r[0].plain_text()
    );
    let r = h.send("aoife", "c", vacation_anyway(4));
    assert!(
        r[0].plain_text().contains("Vacation left: none"),
        "{}",
        r[0].plain_text()
    );
}

#[test]
fn reminders_by_direct_message_or_not_at_all() {
    let h = Harness::new(false);
    challenge(&h, "c", "hkot-1", "3", false);
    let r = h.send(
        "aoife",
        "c",
        Command::Settings {
            reminders: Some(Reminders::Dm),
            default_days: None,
            reminder_hours: None,
        },
    );
    assert!(
        r[0].plain_text().contains("**dm**"),
        "{}",
        r[0].plain_text()
    );
    advance(&h, 25 * HOUR);
    let r = tick(&h);
    assert_eq!(r[0].dm.as_deref(), Some("aoife"));
    assert!(r[0].channel.is_none());
    assert!(r[0].mentions.is_empty());
    h.send(
        "aoife",
        "c",
        Command::Settings {
            reminders: Some(Reminders::Off),
            default_days: None,
            reminder_hours: None,
        },
    );
    advance(&h, 24 * HOUR);
    assert!(tick(&h).is_empty());
}

#[test]
fn moderators_set_the_server_default_time_control() {
    let h = Harness::new(false);
    let settings = Command::Settings {
        reminders: None,
        default_days: Some(TimeControl::DaysPerMove(5)),
        reminder_hours: Some(48),
    };
    let r = h.send("aoife", "c", settings.clone());
    assert!(r[0].plain_text().contains("Only moderators"));
    let mut m = ctx("mona", "c");
    m.moderator = true;
    let r = h.bot.handle(&m, settings);
    assert!(
        r[0].plain_text().contains("5 days per move"),
        "{}",
        r[0].plain_text()
    );
    h.send(
        "aoife",
        "c",
        challenge_cmd("brian", "ard-ri", None, Some("me"), false, None),
    );
    h.send("brian", "c", Command::Accept { challenge: None });
    let g = active(&h.db(), "c").unwrap();
    assert_eq!(g.days_per_move, Some(5));
    // The server's 48 hours are later than a quarter of the 5 days (30 hours).
    advance(&h, 47 * HOUR);
    assert!(tick(&h).is_empty());
    advance(&h, HOUR);
    assert_eq!(
        tick(&h).len(),
        1,
        "the first reminder after the server's 48 hours"
    );
    let bad = try_challenge_cmd("brian", "ard-ri", None, None, false, Some("4"));
    assert_eq!(
        bad,
        Err("'4' is not a time control: choose none or 1, 2, 3, 5, 7 or 14 days per move.".into())
    );
}

#[test]
fn catch_up_after_a_restart_happens_exactly_once() {
    let mut h = Harness::new(false);
    let g = challenge(&h, "c", "hkot-1", "3", false);
    h.mv("aoife", "c", "D4");
    h.mv("brian", "c", "B2");
    // Down for two and a half days: both reminders fell due; one goes out.
    advance(&h, 60 * HOUR);
    h.restart();
    let r = tick(&h);
    assert_eq!(r.len(), 1);
    assert!(r[0].plain_text().contains("Last call"));
    h.restart();
    assert!(tick(&h).is_empty(), "a restart never repeats a reminder");
    // Down past the deadline: the timeout happens once.
    advance(&h, DAY);
    h.restart();
    let r = tick(&h);
    assert!(texts(&r).contains("Time is up"));
    h.restart();
    assert!(tick(&h).is_empty());
    assert_eq!(stored(&h.db(), g.id).0.status, GameStatus::Finished);
}

#[test]
fn a_move_racing_its_own_timeout_has_exactly_one_winner() {
    for (round, late) in [(0, false), (1, true), (2, false), (3, true), (4, true)] {
        let h = Harness::new(false);
        let channel = format!("r{round}");
        let g = challenge(&h, &channel, "ard-ri", "1", false);
        // Just before the deadline the move wins; at the deadline the timeout does.
        advance(&h, DAY - if late { 0 } else { 1 });
        let other = Bot::new(Store::open(h.db()).unwrap(), h.clock.clone(), 3).with_images(false);
        let barrier = Barrier::new(2);
        let (moved, ticked) = std::thread::scope(|s| {
            let a = s.spawn(|| {
                barrier.wait();
                h.mv("aoife", &channel, "d2-c2")
            });
            let b = s.spawn(|| {
                barrier.wait();
                other.tick()
            });
            (a.join().unwrap(), b.join().unwrap())
        });
        let (row, moves, _) = stored(&h.db(), g.id);
        let announcements = texts(&moved).matches("Time is up").count()
            + texts(&ticked).matches("Time is up").count();
        if late {
            // Aoife had not moved yet: her timeout aborts the game (Part E).
            assert_eq!(row.status, GameStatus::Aborted, "round {round}");
            assert!(moves.is_empty(), "the late move was not played");
            assert_eq!(announcements, 1, "round {round}: one timeout announcement");
        } else {
            assert_eq!(row.status, GameStatus::Active, "round {round}");
            assert_eq!(moves, vec!["d2-c2".to_string()]);
            assert_eq!(announcements, 0);
        }
        let _ = Arc::clone(&h.clock);
    }
}

#[test]
fn a_version_1_database_is_upgraded_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("old.db");
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(include_str!("../migrations/0001_init.sql"))
            .unwrap();
        conn.execute_batch(
            "PRAGMA user_version = 1;
             INSERT INTO users VALUES ('a', 'a', 0, 0), ('b', 'b', 0, 0);
             INSERT INTO games (server_id, channel_id, variant, scoring, first_side, seat0_id,
               seat1_id, status, created_at, updated_at, turn_started_at)
             VALUES ('s', 'c', 'hkot-1', 'kingdoms', 'red', 'a', 'b', 'active', 0, 0, 0);",
        )
        .unwrap();
    }
    let mut store = Store::open(&db).unwrap();
    assert_eq!(
        store.schema_version().unwrap(),
        tara_bot::store::SCHEMA_VERSION
    );
    let g = store.read(|tx| tx.active_game("c")).unwrap().unwrap();
    assert_eq!(g.days_per_move, None);
    assert_eq!(g.deadline_at, None);
}
