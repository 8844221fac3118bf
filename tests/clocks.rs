//! Correspondence clocks with an injected clock (no sleeping): reminders at the right times
//! and never twice, timeouts, vacations, catch-up after a restart, and a move racing its own
//! timeout.

mod common;

use common::*;
use std::sync::{Arc, Barrier};
use tara_bot::bot::time::{DAY, HOUR};
use tara_bot::bot::{Bot, Command, Ctx, Reminders, Reply, TakebackAnswer, TimeControl};
use tara_bot::game::{EndReason, Points};
use tara_bot::store::ChallengeId;
use tara_bot::store::GameId;
use tara_bot::store::ServerId;
use tara_bot::store::{ChannelId, UserId};
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
    assert_eq!(r[0].channel.as_ref().map(ChannelId::as_str), Some("c"));
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
    let r = h.send("brian", "c", Command::Status { game: None });
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
    assert_eq!(r[0].channel.as_ref().map(ChannelId::as_str), Some("c"));
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
    assert_eq!(r[0].channel.as_ref().map(ChannelId::as_str), Some("c"));
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
    assert_eq!(r[1].channel.as_ref().map(ChannelId::as_str), Some("c"));
    assert_eq!(r[1].mentions, vec!["brian".to_string()]);
    assert!(r[1].plain_text().contains("on vacation until"));
    let row = active(&h.db(), "c").unwrap();
    assert_eq!(row.deadline_at, Some(T0 + 5 * DAY));
    let s = h.send("aoife", "c", Command::Status { game: None });
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
    let s = h.send("brian", "c", Command::Status { game: None });
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
            digest: None,
            tz: None,
            default_days: None,
            reminder_hours: None,
            challenge_days: None,
            max_challenges: None,
            rate_limit: None,
            max_ai_games: None,
            tournament_role: None,
            rules_url: None,
            web: None,
        },
    );
    assert!(
        r[0].plain_text().contains("**dm**"),
        "{}",
        r[0].plain_text()
    );
    advance(&h, 25 * HOUR);
    let r = tick(&h);
    assert_eq!(r[0].dm.as_ref().map(UserId::as_str), Some("aoife"));
    // The game's channel is where it goes if Aoife takes no direct messages; it pings her
    // there (in the DM itself the mention pings no one else).
    assert_eq!(r[0].channel.as_ref().map(ChannelId::as_str), Some("c"));
    assert_eq!(r[0].mentions, vec!["aoife".to_string()]);
    h.send(
        "aoife",
        "c",
        Command::Settings {
            reminders: Some(Reminders::Off),
            digest: None,
            tz: None,
            default_days: None,
            reminder_hours: None,
            challenge_days: None,
            max_challenges: None,
            rate_limit: None,
            max_ai_games: None,
            tournament_role: None,
            rules_url: None,
            web: None,
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
        digest: None,
        tz: None,
        default_days: Some(TimeControl::DaysPerMove(5)),
        reminder_hours: Some(48),
        challenge_days: None,
        max_challenges: None,
        rate_limit: None,
        max_ai_games: None,
        tournament_role: None,
        rules_url: None,
        web: None,
    };
    let r = h.send("aoife", "c", settings.clone());
    assert!(r[0].plain_text().contains("Manage Server"));
    // Moderating games (Manage Messages) is not enough for server settings.
    let mut m = ctx("mona", "c");
    m.moderator = true;
    let r = h.bot.handle(&m, settings.clone());
    assert!(
        r[0].ephemeral
            && r[0]
                .plain_text()
                .contains("Only members with Manage Server")
    );
    m.manager = true;
    let r = h.bot.handle(&m, settings);
    assert!(
        r[0].plain_text().contains("5 days per move"),
        "{}",
        r[0].plain_text()
    );
    // The change is in the audit log.
    let log = h.bot.handle(&m, Command::Audit { log: None });
    let log = log[0].plain_text();
    assert!(
        log.contains("settings · the server's clock settings and limits: default-days set to 5, reminder-hours set to 48"),
        "{log}"
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
            // Aoife had not moved yet: her timeout aborts the game (docs/rules.md §9).
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
    let g = store
        .read(|tx| tx.active_game(&ChannelId::new("c")))
        .unwrap()
        .unwrap();
    assert_eq!(g.days_per_move, None);
    assert_eq!(g.deadline_at, None);
}

/// Ticks every `step` until `until` has gone by; the reminders that came, each with the time
/// (since the start of this call) it came at.
fn reminders_over(h: &Harness, until: i64, step: i64) -> Vec<(i64, String)> {
    let mut out = Vec::new();
    let mut t = 0;
    while t < until {
        advance(h, step);
        t += step;
        for r in tick(h) {
            let text = r.plain_text();
            if text.contains("Reminder") {
                out.push((t, text));
            }
        }
    }
    out
}

const MIN: i64 = 60_000;

#[test]
fn the_last_call_of_a_one_day_turn_comes_with_a_fifth_of_the_day_left() {
    // The repro: 1 day per move, alice (aoife) reminded and moving at 8 h, then bob waits.
    let h = Harness::new(false);
    challenge(&h, "c", "ard-ri", "1", false);
    let r = reminders_over(&h, 8 * HOUR, 6 * MIN);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].0, 7 * HOUR + 12 * MIN);
    h.mv("aoife", "c", "d2-c2");
    // Brian's turn: 8 h to 32 h.
    let r = reminders_over(&h, DAY - 6 * MIN, 6 * MIN);
    let times: Vec<i64> = r.iter().map(|(t, _)| *t).collect();
    assert_eq!(
        times,
        vec![7 * HOUR + 12 * MIN, 19 * HOUR + 12 * MIN],
        "the first reminder, then the last call 4.8 h before the deadline: {r:?}"
    );
    assert!(!r[0].1.contains("Last call"), "{}", r[0].1);
    assert!(
        r[1].1.contains("Last call") && r[1].1.contains("4 hours 48 minutes left"),
        "{}",
        r[1].1
    );
}

#[test]
fn the_first_reminder_is_proportionate_to_the_time_control() {
    // (days per move, first reminder, last call), from the start of the turn: the first after
    // the later of the server's 24 hours and a quarter of the time, at least 12 hours before
    // the last call; the last call with the smaller of 24 hours and a fifth of the time left.
    let cases = [
        (1, 7 * HOUR + 12 * MIN, 19 * HOUR + 12 * MIN),
        (3, DAY, 57 * HOUR + 36 * MIN),
        (7, 42 * HOUR, 6 * DAY),
        (14, 3 * DAY + 12 * HOUR, 13 * DAY),
    ];
    for (days, first, last) in cases {
        let h = Harness::new(false);
        let g = challenge(&h, "c", "ard-ri", &days.to_string(), false);
        assert_eq!(g.deadline_at, Some(T0 + i64::from(days) * DAY));
        let r = reminders_over(&h, i64::from(days) * DAY - 12 * MIN, 12 * MIN);
        let times: Vec<i64> = r.iter().map(|(t, _)| *t).collect();
        assert_eq!(times, vec![first, last], "{days} days per move: {r:?}");
        assert!(r[1].1.contains("Last call"), "{}", r[1].1);
    }
}

#[test]
fn a_takeback_resumes_the_clock_with_the_time_that_was_left() {
    let takeback = |h: &Harness| {
        let r = h.send(
            "aoife",
            "c",
            Command::Takeback {
                answer: None,
                game: None,
            },
        );
        assert!(!r[0].ephemeral, "{}", r[0].plain_text());
        h.send(
            "brian",
            "c",
            Command::Takeback {
                answer: Some(TakebackAnswer::Allow),
                game: None,
            },
        )
    };
    // Aoife moves after 10 hours of her 3 days: 62 hours left. Brian allows the takeback at
    // 12 h; her clock resumes with those 62 hours, not a new 3 days.
    let h = Harness::new(false);
    let g = challenge(&h, "c", "ard-ri", "3", false);
    advance(&h, 10 * HOUR);
    h.mv("aoife", "c", "d2-c2");
    advance(&h, 2 * HOUR);
    let r = takeback(&h);
    assert!(
        r[0].plain_text().contains("is undone")
            && r[0].plain_text().contains("2 days 14 hours left"),
        "{}",
        r[0].plain_text()
    );
    let row = active(&h.db(), "c").unwrap();
    assert_eq!(row.deadline_at, Some(T0 + 12 * HOUR + 62 * HOUR));
    assert_eq!(row.id, g.id);
    // The reminders follow the shorter turn: its last call still comes 14.4 h before the end.
    let r = reminders_over(&h, 62 * HOUR - 12 * MIN, 12 * MIN);
    assert!(
        r.last().is_some_and(|(t, s)| *t == 62 * HOUR - 14 * HOUR - 24 * MIN
            && s.contains("Last call")),
        "{r:?}"
    );

    // Away when the takeback is allowed: the clock resumes when the vacation ends.
    let h = Harness::new(false);
    challenge(&h, "c", "ard-ri", "3", false);
    advance(&h, 10 * HOUR);
    h.mv("aoife", "c", "d2-c2");
    advance(&h, HOUR);
    h.send("aoife", "elsewhere", vacation(2));
    advance(&h, HOUR);
    takeback(&h);
    let row = active(&h.db(), "c").unwrap();
    assert_eq!(row.clock_start_at, Some(T0 + 11 * HOUR + 2 * DAY));
    assert_eq!(row.deadline_at, Some(T0 + 11 * HOUR + 2 * DAY + 62 * HOUR));

    // A move stored before the time left was recorded gets a full time per move.
    let h = Harness::new(false);
    let g = challenge(&h, "c", "ard-ri", "3", false);
    advance(&h, 10 * HOUR);
    h.mv("aoife", "c", "d2-c2");
    rusqlite::Connection::open(h.db())
        .unwrap()
        .execute("UPDATE moves SET clock_left = NULL", [])
        .unwrap();
    advance(&h, 2 * HOUR);
    takeback(&h);
    let row = active(&h.db(), "c").unwrap();
    assert_eq!(row.id, g.id);
    assert_eq!(row.deadline_at, Some(T0 + 12 * HOUR + 3 * DAY));
}

#[test]
fn a_vacation_ends_early_and_gives_back_the_whole_days_not_begun() {
    let h = Harness::new(false);
    challenge(&h, "c", "ard-ri", "3", false);
    // Aoife, on move, goes away after 10 hours for 5 days: 62 hours are left on her clock.
    advance(&h, 10 * HOUR);
    h.send("aoife", "elsewhere", vacation(5));
    assert_eq!(
        active(&h.db(), "c").unwrap().deadline_at,
        Some(T0 + 8 * DAY)
    );
    // Back after 2 days 3 hours: 3 days used, 2 come back; the clock runs from now with the
    // 62 hours.
    advance(&h, 2 * DAY + 3 * HOUR);
    let now = T0 + 2 * DAY + 13 * HOUR;
    let r = h.send("aoife", "elsewhere", vacation_end());
    let note = r[0].plain_text();
    assert!(r[0].ephemeral, "{note}");
    assert!(
        note.contains("2 whole days")
            && note.contains("clocks running again in 1 game")
            && note.contains("Vacation left: 11 days"),
        "{note}"
    );
    assert_eq!(r[1].channel.as_ref().map(ChannelId::as_str), Some("c"));
    assert_eq!(r[1].mentions, vec!["brian".to_string()]);
    assert!(
        r[1].plain_text().contains("back from vacation")
            && r[1].plain_text().contains("2 days 14 hours left"),
        "{}",
        r[1].plain_text()
    );
    let row = active(&h.db(), "c").unwrap();
    assert_eq!(row.deadline_at, Some(now + 62 * HOUR));
    let s = h.send("brian", "c", Command::Status { game: None });
    assert!(
        !s[0].plain_text().contains("paused") && s[0].plain_text().contains("2 days 14 hours left"),
        "{}",
        s[0].plain_text()
    );
    // Reminders and the timeout follow the resumed clock.
    advance(&h, 62 * HOUR - 14 * HOUR - 24 * MIN);
    assert!(texts(&tick(&h)).contains("Last call"));
    advance(&h, 14 * HOUR + 24 * MIN);
    assert!(texts(&tick(&h)).contains("Time is up"));

    // Nothing to end.
    let r = h.send("aoife", "elsewhere", vacation_end());
    assert!(
        r[0].ephemeral && r[0].plain_text().contains("You are not on vacation"),
        "{}",
        r[0].plain_text()
    );
    // Neither days nor end, or both: told what to write.
    let none = Command::Vacation {
        days: None,
        end: false,
        confirmed: false,
    };
    let r = h.send("aoife", "elsewhere", none);
    assert!(r[0].plain_text().contains("Say how many days"));
    let both = Command::Vacation {
        days: Some(2),
        end: true,
        confirmed: false,
    };
    let r = h.send("aoife", "elsewhere", both);
    assert!(r[0].plain_text().contains("not both"));
}

#[test]
fn vacation_is_counted_over_any_365_days_not_per_calendar_year() {
    let h = Harness::new(false);
    // 14 days from 17 December to 31 December ...
    advance(&h, 17 * DAY);
    let r = h.send("aoife", "c", vacation_anyway(14));
    assert!(
        r[0].plain_text().contains("until 2026-12-31"),
        "{}",
        r[0].plain_text()
    );
    // ... leave nothing for early January.
    advance(&h, 16 * DAY);
    let r = h.send("aoife", "c", vacation_anyway(1));
    assert!(
        r[0].plain_text().contains("no days of vacation left"),
        "{}",
        r[0].plain_text()
    );
    let settings = Command::Settings {
        reminders: None,
        digest: None,
        tz: None,
        default_days: None,
        reminder_hours: None,
        challenge_days: None,
        max_challenges: None,
        rate_limit: None,
        max_ai_games: None,
        tournament_role: None,
        rules_url: None,
        web: None,
    };
    let r = h.send("aoife", "c", settings.clone());
    assert!(
        r[0].plain_text().contains("Vacation left: none"),
        "{}",
        r[0].plain_text()
    );
    // 365 days after it began, the whole allowance is back.
    advance(&h, 349 * DAY - MIN);
    let r = h.send("aoife", "c", vacation_anyway(1));
    assert!(r[0].plain_text().contains("no days of vacation left"));
    advance(&h, MIN);
    let r = h.send("aoife", "c", settings);
    assert!(
        r[0].plain_text().contains("Vacation left: 14 days"),
        "{}",
        r[0].plain_text()
    );
}

#[test]
fn a_vacation_with_no_clocked_game_in_progress_asks_first() {
    let h = Harness::new(false);
    // A game without a clock is nothing a vacation pauses.
    h.send(
        "aoife",
        "c",
        challenge_cmd("brian", "ard-ri", None, Some("me"), false, Some("none")),
    );
    h.send("brian", "c", Command::Accept { challenge: None });
    let r = h.send("aoife", "c", vacation(3));
    assert_eq!(r.len(), 1);
    assert!(r[0].ephemeral);
    let t = r[0].plain_text();
    assert!(
        t.contains("no game with a clock in progress") && t.contains("Take it anyway?"),
        "{t}"
    );
    assert_eq!(r[0].buttons.len(), 1);
    assert_eq!(r[0].buttons[0].id, "vacation:3");
    assert_eq!(r[0].buttons[0].label, "Take it anyway");
    // Nothing was spent.
    let mut s = Store::open(h.db()).unwrap();
    let taken = s.read(|tx| tx.vacations(&UserId::new("aoife"))).unwrap();
    assert!(taken.is_empty());
    // The button takes it.
    let pressed = Command::from_button(&r[0].buttons[0].id).unwrap();
    let r = h.send("aoife", "c", pressed);
    assert!(
        r[0].plain_text().contains("on vacation until")
            && r[0].plain_text().contains("Vacation left: 11 days"),
        "{}",
        r[0].plain_text()
    );
    let taken = s.read(|tx| tx.vacations(&UserId::new("aoife"))).unwrap();
    assert_eq!(taken.len(), 1);
    assert_eq!(taken[0].end_at - taken[0].start_at, 3 * DAY);
}

#[test]
fn games_lists_the_time_left_most_urgent_first() {
    let h = Harness::new(false);
    let start = |channel: &str, days: &str, first: &str| {
        h.send(
            "aoife",
            channel,
            challenge_cmd("brian", "ard-ri", None, Some(first), false, Some(days)),
        );
        h.send("brian", channel, Command::Accept { challenge: None });
        active(&h.db(), channel).unwrap().id
    };
    let unclocked = start("a", "none", "me");
    let theirs = start("b", "3", "opponent");
    let week = start("d", "7", "me");
    let day = start("c", "1", "me");
    advance(&h, 2 * HOUR);
    let r = h.send("aoife", "x", Command::Games {});
    assert!(r[0].ephemeral);
    let t = r[0].plain_text();
    let at = |id: GameId| {
        t.find(&format!("game {} in", id.0))
            .unwrap_or_else(|| panic!("game {id} missing: {t}"))
    };
    assert!(
        at(day) < at(week) && at(week) < at(unclocked) && at(unclocked) < at(theirs),
        "your move by deadline, then without a clock, then their move: {t}"
    );
    assert!(t.contains("most urgent first"), "{t}");
    let line = |id: GameId| t[at(id)..].lines().next().unwrap().to_string();
    assert!(
        line(day).contains("**your move** · 22 hours left"),
        "{}",
        line(day)
    );
    assert!(
        line(week).contains("6 days 22 hours left"),
        "{}",
        line(week)
    );
    assert!(line(unclocked).contains("no clock"), "{}", line(unclocked));
    assert!(
        line(theirs).contains("their move · 2 days 22 hours left"),
        "{}",
        line(theirs)
    );
    // A paused clock says so.
    h.send("brian", "x", vacation(2));
    let t = texts(&h.send("aoife", "x", Command::Games {}));
    assert!(t.contains("clock paused until"), "{t}");
}

#[test]
fn settings_read_well_in_the_singular() {
    let h = Harness::new(false);
    let mut m = ctx("mona", "c");
    m.moderator = true;
    m.manager = true;
    let r = h.bot.handle(
        &m,
        Command::Settings {
            reminders: None,
            digest: None,
            tz: None,
            default_days: None,
            reminder_hours: Some(1),
            challenge_days: None,
            max_challenges: None,
            rate_limit: None,
            max_ai_games: None,
            tournament_role: None,
            rules_url: None,
            web: None,
        },
    );
    let t = r[0].plain_text();
    assert!(t.contains("first reminder after 1 hour or"), "{t}");
    assert!(!t.contains("1 hours"), "{t}");
    let r = h.send("aoife", "c", vacation_anyway(1));
    let t = r[0].plain_text();
    assert!(
        t.contains("(1 day)") && t.contains("clocks paused in 0 games"),
        "{t}"
    );
}

#[test]
fn an_unanswered_challenge_expires_after_seven_days_and_its_challenger_is_told() {
    let h = Harness::new(false);
    let r = h.send(
        "aoife",
        "t",
        challenge_cmd("brian", "hkot-1", None, None, false, None),
    );
    assert!(r[0].plain_text().contains("challenge #1"));
    advance(&h, 7 * DAY - HOUR);
    assert!(tick(&h).is_empty());
    advance(&h, HOUR);
    let r = tick(&h);
    assert_eq!(r.len(), 1);
    assert_eq!(
        r[0].plain_text(),
        "@aoife, your challenge #1 to brian (hkot-1) has expired: it was not \
         answered within 7 days. Its buttons no longer work; `/challenge` again to offer a new \
         game."
    );
    assert_eq!(r[0].mentions, vec!["aoife".to_string()]);
    assert_eq!(r[0].channel.as_ref().map(ChannelId::as_str), Some("t"));
    // The thread held nothing else: the adapter may archive it.
    assert_eq!(
        r[0].archive_channel.as_ref().map(ChannelId::as_str),
        Some("t")
    );
    // The challenge's message loses its buttons and says what became of it.
    let retire = r[0].retire.as_ref().unwrap();
    assert_eq!(retire.button, "accept:1");
    assert!(retire
        .text_with(|_, n| format!("@{n}"), |c| format!("#{c}"))
        .ends_with("(challenge #1): expired unanswered after 7 days."));
    // Owed through the outbox like a reminder, and never told twice.
    assert!(r[0].outbox.is_some());
    assert!(tick(&h).is_empty());
    // (The challenge itself is owed too: nothing reported its delivery here.)
    let owed = h.bot.undelivered(true);
    let notice = owed.iter().find(|o| o.outbox == r[0].outbox).unwrap();
    assert_eq!(notice.plain_text(), r[0].plain_text());
    assert_eq!(
        notice.archive_channel.as_ref().map(ChannelId::as_str),
        Some("t")
    );
    assert_eq!(notice.retire, r[0].retire);
    let mut store = Store::open(h.db()).unwrap();
    let c = store
        .read(|tx| tx.challenge(ChallengeId(1)))
        .unwrap()
        .unwrap();
    assert_eq!(c.status, tara_bot::store::ChallengeStatus::Expired);
    // Its buttons answer, and a new challenge between the two is welcome.
    let r = h.send(
        "brian",
        "t",
        Command::Accept {
            challenge: Some(ChallengeId(1)),
        },
    );
    assert_eq!(
        r[0].plain_text(),
        "Challenge #1 is no longer open (it was left unanswered until it expired)."
    );
    let r = h.send(
        "aoife",
        "t2",
        challenge_cmd("brian", "hkot-1", None, None, false, None),
    );
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
}

#[test]
fn a_server_sets_how_long_challenges_stay_open() {
    let h = Harness::new(false);
    let moderator = Ctx {
        server: ServerId::new("server"),
        channel: ChannelId::new("c"),
        user: user("mod"),
        moderator: true,
        manager: true,
        roles: Vec::new(),
    };
    let r = h.bot.handle(
        &moderator,
        Command::Settings {
            reminders: None,
            digest: None,
            tz: None,
            default_days: None,
            reminder_hours: None,
            challenge_days: Some(2),
            max_challenges: None,
            rate_limit: None,
            max_ai_games: None,
            tournament_role: None,
            rules_url: None,
            web: None,
        },
    );
    assert!(
        r[0].plain_text().contains("Challenges expire after 2 days"),
        "{}",
        r[0].plain_text()
    );
    // A channel that has had a game is not offered for archiving.
    h.start("aoife", "brian", "c", "hkot-1", "me");
    h.send(
        "aoife",
        "c",
        Command::Resign {
            confirmed: true,
            game: None,
        },
    );
    h.send(
        "carl",
        "c",
        challenge_cmd("dana", "ard-ri", None, None, false, None),
    );
    advance(&h, 2 * DAY - 1);
    assert!(tick(&h).is_empty());
    advance(&h, 1);
    let r = tick(&h);
    assert_eq!(r.len(), 1);
    assert!(r[0].plain_text().contains("within 2 days"));
    assert_eq!(r[0].archive_channel, None);
    // Another server keeps the default of 7 days.
    let elsewhere = Ctx {
        server: ServerId::new("other"),
        channel: ChannelId::new("o"),
        user: user("erin"),
        moderator: false,
        manager: false,
        roles: Vec::new(),
    };
    h.bot.handle(
        &elsewhere,
        challenge_cmd("finn", "hkot-1", None, None, false, None),
    );
    advance(&h, 3 * DAY);
    assert!(tick(&h).is_empty());
    advance(&h, 4 * DAY);
    assert_eq!(tick(&h).len(), 1);
}

/// The time left reads the same in every message: the turn message at the start of a 3-day
/// turn and `/status` a second later both say 3 days (rounded to the nearest minute, not cut
/// to the hour), and a last call sent a moment after it fell due with 4 h 48 min left says so.
#[test]
fn the_time_left_is_rounded_the_same_way_in_every_message() {
    let h = Harness::new(false);
    challenge(&h, "c", "ard-ri", "3", false);
    let r = h.mv("aoife", "c", "d2-c2");
    assert!(
        r[0].plain_text().contains("(Defenders · 3 days left)."),
        "{}",
        r[0].plain_text()
    );
    advance(&h, 1_000);
    let r = h.send("brian", "c", Command::Status { game: None });
    assert!(
        r[0].plain_text().contains(" · 3 days left."),
        "{}",
        r[0].plain_text()
    );
    let r = h.send("brian", "c", Command::Games {});
    assert!(
        r[0].plain_text().contains("3 days left"),
        "{}",
        r[0].plain_text()
    );
    // Ten minutes on, the minutes show.
    advance(&h, 10 * 60_000 - 1_000);
    let r = h.send("brian", "c", Command::Status { game: None });
    assert!(
        r[0].plain_text()
            .contains(" · 2 days 23 hours 50 minutes left."),
        "{}",
        r[0].plain_text()
    );
    // One day per move: the last call falls due with 4.8 hours left and goes out with the
    // next tick, 20 seconds later.
    challenge(&h, "d", "ard-ri", "1", false);
    advance(&h, DAY - 4 * HOUR - 48 * 60_000 + 20_000);
    let r = tick(&h);
    let last = r
        .iter()
        .find(|r| r.channel.as_ref().map(ChannelId::as_str) == Some("d"))
        .unwrap_or_else(|| panic!("{}", texts(&r)));
    assert!(
        last.plain_text().contains("Last call")
            && last.plain_text().contains(": 4 hours 48 minutes left."),
        "{}",
        last.plain_text()
    );
}

/// The audit log names what a `tournament-role` change is about, not the clock settings.
#[test]
fn the_audit_log_describes_a_tournament_role_change_as_such() {
    let h = Harness::new(false);
    let mut m = ctx("mona", "c");
    m.moderator = true;
    m.manager = true;
    let settings = |role: Option<&str>, days: Option<TimeControl>| Command::Settings {
        reminders: None,
        digest: None,
        tz: None,
        default_days: days,
        reminder_hours: None,
        challenge_days: None,
        max_challenges: None,
        rate_limit: None,
        max_ai_games: None,
        tournament_role: role.map(str::to_string),
        rules_url: None,
        web: None,
    };
    h.bot.handle(&m, settings(Some("<@&42>"), None));
    h.bot.handle(
        &m,
        settings(Some("moderators"), Some(TimeControl::DaysPerMove(2))),
    );
    let log = h.bot.handle(&m, Command::Audit { log: None })[0].plain_text();
    assert!(
        log.contains(
            "settings · who may create tournaments on the server: tournament-role set to <@&42>"
        ),
        "{log}"
    );
    assert!(
        log.contains(
            "settings · the server's clock settings and limits, and who may create \
             tournaments: tournament-role cleared (moderators only), default-days set to 2"
        ),
        "{log}"
    );
}

/// Issue 45: a vacation tells only the opponents of games with a clock; a game without one has
/// no clock to stop, and its opponent is not pinged.
#[test]
fn a_vacation_pings_only_opponents_of_games_with_a_clock() {
    let h = Harness::new(false);
    challenge(&h, "c", "hkot-1", "3", false);
    let r = h.send(
        "aoife",
        "d",
        challenge_cmd("carol", "hkot-1", None, Some("me"), false, Some("none")),
    );
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    let r = h.send("carol", "d", Command::Accept { challenge: None });
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    let r = h.send("aoife", "elsewhere", vacation_anyway(2));
    let told: Vec<&str> = r
        .iter()
        .filter(|m| !m.ephemeral)
        .filter_map(|m| m.channel.as_ref().map(ChannelId::as_str))
        .collect();
    assert_eq!(told, ["c"], "{}", texts(&r));
    assert!(r.iter().all(|m| !m.mentions.iter().any(|u| *u == "carol")));
}
