//! The daily digest (`/settings digest:HH:MM tz:…`): one direct message a day at that time in
//! the player's zone, listing every game where it is their move, the least time left first;
//! never two in a day (across restarts and two processes); paused, and said once in a game's
//! channel, when the player's direct messages are refused. Through the bot core and the
//! console's reading of the options.

mod common;

use common::{stored, texts, Harness};
use tara_bot::bot::{Bot, Reply};
use tara_bot::console::{parse_line, Action};
use tara_bot::store::Store;
use tara_bot::store::{ChannelId, UserId};

/// `/settings …` as the console reads it, sent by `who`; the private answer's text.
fn settings(h: &Harness, who: &str, line: &str) -> String {
    let cmd = match parse_line(line) {
        Ok(Action::Run(c)) => c,
        other => panic!("{line}: {other:?}"),
    };
    let r = h.send(who, "c1", cmd);
    assert!(r[0].ephemeral, "{}", texts(&r));
    r[0].plain_text()
}

/// The digests among replies: direct messages that say so.
fn digests(replies: &[Reply]) -> Vec<&Reply> {
    replies
        .iter()
        .filter(|r| r.plain_text().contains("Your daily digest"))
        .collect()
}

/// Aoife to move in c1 (no clock, started first) and c2 (3 days a move), Brian in c3.
fn three_games(h: &Harness) {
    for (ch, days) in [("c1", None), ("c2", Some("3")), ("c3", None)] {
        let r = h.send(
            "aoife",
            ch,
            common::challenge_cmd("brian", "hkot-1", None, Some("me"), false, days),
        );
        assert!(!r[0].ephemeral, "{}", texts(&r));
        h.send(
            "brian",
            ch,
            tara_bot::bot::Command::Accept { challenge: None },
        );
        advance(h, 60_000);
    }
    let g = common::active(&h.db(), "c3").unwrap();
    let (_, _, pos) = stored(&h.db(), g.id);
    h.mv("aoife", "c3", &pos.legal_moves()[0].to_string());
}

/// Three games, Aoife's digest at 07:00 UTC, and the tick at 07:00: its replies and the
/// digest's id in the outbox.
fn first_digest(h: &Harness) -> (Vec<Reply>, tara_bot::store::MessageId) {
    three_games(h);
    settings(h, "aoife", "/settings digest:07:00 tz:UTC");
    advance(h, 7 * 3_600_000);
    let replies = h.bot.tick();
    let id = digests(&replies)[0].outbox.unwrap();
    (replies, id)
}

/// The platform refuses the digest `id` for good; what is owed a little later, and the
/// notices among it that say so.
fn refused(h: &Harness, id: tara_bot::store::MessageId) -> (Vec<Reply>, Vec<Reply>) {
    h.bot
        .delivery_failed(id, "Cannot send messages to this user (50007)", true);
    advance(h, 120_000);
    let owed = h.bot.undelivered(false);
    let notices = owed
        .iter()
        .filter(|r| {
            r.plain_text()
                .contains("your daily digest could not reach you")
        })
        .cloned()
        .collect();
    (owed, notices)
}

fn advance(h: &Harness, ms: i64) {
    assert!(h.bot.advance_clock(ms));
}

#[test]
fn the_digest_comes_once_a_day_at_its_time_listing_the_games_on_move() {
    let h = Harness::new(true);
    three_games(&h);
    // T0 is midnight UTC; it is 00:03 in Dublin (UTC in winter).
    let said = settings(&h, "aoife", "/settings digest:08:30 tz:europe/dublin");
    assert!(
        said.contains("Your digest: **daily at 08:30 (Europe/Dublin)**"),
        "{said}"
    );
    assert!(digests(&h.bot.tick()).is_empty(), "not yet");
    advance(&h, 8 * 3_600_000 + 26 * 60_000);
    assert!(digests(&h.bot.tick()).is_empty(), "08:29");
    advance(&h, 60_000);
    let replies = h.bot.tick();
    let d = digests(&replies);
    assert_eq!(d.len(), 1, "{}", texts(&replies));
    let d = d[0];
    assert_eq!(d.dm.as_ref().map(UserId::as_str), Some("aoife"));
    assert_eq!(d.channel, None, "never posted in a channel");
    assert!(d.outbox.is_some(), "owed through the outbox");
    let text = d.plain_text();
    assert!(text.contains("it is your move in 2 games"), "{text}");
    let (c1, c2) = (text.find("#c1").unwrap(), text.find("#c2").unwrap());
    assert!(c2 < c1, "the least time left first, no clock last: {text}");
    assert!(!text.contains("#c3"), "{text}");
    assert!(
        text.contains("2 days 15 hours 31 minutes left")
            && text.contains("no clock")
            && text.contains("against @brian"),
        "{text}"
    );
    let png = &d.image.as_ref().expect("the boards").bytes;
    let img = image::load_from_memory(png).unwrap();
    assert!(img.width() > img.height(), "two boards side by side");
    // Never twice in a day, even from a restarted process or a second one.
    assert!(digests(&h.bot.tick()).is_empty());
    let other = Bot::new(Store::open(h.db()).unwrap(), h.clock.clone(), 9).with_images(false);
    assert!(digests(&other.tick()).is_empty());
    // The next day, again (from whichever process looks first), once.
    advance(&h, 24 * 3_600_000);
    let first = digests(&other.tick()).len();
    let second = digests(&h.bot.tick()).len();
    assert_eq!((first, second), (1, 0));
}

#[test]
fn a_digest_set_after_its_time_starts_tomorrow_and_off_stops_it() {
    let h = Harness::new(false);
    three_games(&h);
    advance(&h, 10 * 3_600_000);
    settings(&h, "aoife", "/settings digest:9:00");
    assert!(digests(&h.bot.tick()).is_empty(), "today's time had passed");
    advance(&h, 23 * 3_600_000);
    let replies = h.bot.tick();
    assert_eq!(digests(&replies).len(), 1, "{}", texts(&replies));
    let said = settings(&h, "aoife", "/settings digest:off");
    assert!(said.contains("Your digest: **off**"), "{said}");
    advance(&h, 24 * 3_600_000);
    assert!(digests(&h.bot.tick()).is_empty());
    // A player with no game on move gets nothing.
    settings(&h, "ciara", "/settings digest:00:00");
    advance(&h, 24 * 3_600_000);
    assert!(digests(&h.bot.tick())
        .iter()
        .all(|d| d.dm.as_ref().map(UserId::as_str) != Some("ciara")));
}

#[test]
fn times_and_zones_that_do_not_read_are_refused() {
    let h = Harness::new(false);
    for (line, says) in [
        ("/settings digest:25:00", "`25:00` is not a time of day"),
        ("/settings digest:8.30", "`8.30` is not a time of day"),
        ("/settings digest:noon", "HH:MM on a 24-hour clock"),
        ("/settings digest:08:300", "is not a time of day"),
        ("/settings digest:8:5", "`8:5` is not a time of day"),
        ("/settings digest:+8:30", "`+8:30` is not a time of day"),
        ("/settings digest:008:30", "`008:30` is not a time of day"),
        (
            "/settings digest:08:30 tz:Mars/Olympus",
            "`Mars/Olympus` is not a time zone",
        ),
    ] {
        let said = settings(&h, "aoife", line);
        assert!(said.contains(says), "{line}: {said}");
    }
    // Nothing was stored by a refusal.
    let said = settings(&h, "aoife", "/settings");
    assert!(said.contains("Your digest: **off**"), "{said}");
}

#[test]
fn closed_direct_messages_pause_the_digest_and_say_so_once() {
    let h = Harness::new(false);
    let (_, id) = first_digest(&h);
    // The platform refuses it for good.
    let (owed, notices) = refused(&h, id);
    assert_eq!(notices.len(), 1, "{}", texts(&owed));
    assert_eq!(
        notices[0].channel.as_ref().map(ChannelId::as_str),
        Some("c2")
    );
    assert_eq!(notices[0].mentions, vec!["aoife".to_string()]);
    for r in &owed {
        h.bot.delivered(r.outbox.unwrap());
    }
    // Paused: no digest the next day, and /settings says why.
    advance(&h, 24 * 3_600_000);
    assert!(digests(&h.bot.tick()).is_empty());
    let said = settings(&h, "aoife", "/settings");
    assert!(said.contains("paused"), "{said}");
    // Set again, it starts again.
    settings(&h, "aoife", "/settings digest:07:00");
    advance(&h, 24 * 3_600_000);
    assert_eq!(digests(&h.bot.tick()).len(), 1);
}

#[test]
fn a_refusal_after_the_player_has_moved_everywhere_is_said_in_a_game_still_in_play() {
    let h = Harness::new(false);
    let (replies, id) = first_digest(&h);
    for r in &replies {
        h.bot.delivered(r.outbox.unwrap());
    }
    // Aoife moves in c1 and c2: no game waits on her when the refusal comes.
    for ch in ["c1", "c2"] {
        let g = common::active(&h.db(), ch).unwrap();
        let (_, _, pos) = stored(&h.db(), g.id);
        h.mv("aoife", ch, &pos.legal_moves()[0].to_string());
    }
    let (owed, notices) = refused(&h, id);
    assert_eq!(notices.len(), 1, "{}", texts(&owed));
    let channel = notices[0].channel.as_ref().map(ChannelId::as_str).unwrap();
    assert!(["c1", "c2", "c3"].contains(&channel), "{channel}");
    assert_eq!(notices[0].mentions, vec!["aoife".to_string()]);
}

/// Issue 45: a digest whose time was passed over (the bot down at 07:00, or no clock check
/// near it) comes at the first check after its time on the same local day, once; a day
/// passed over entirely (the bot down from before the time until the next day) is not sent
/// late on the next day, which has its own digest at its time.
#[test]
fn a_digest_whose_time_was_passed_over_comes_at_the_next_check_that_day() {
    let h = Harness::new(false);
    three_games(&h);
    settings(&h, "aoife", "/settings digest:07:00 tz:UTC");
    // No check from 00:03 until 15:03: the digest comes then, once.
    advance(&h, 15 * 3_600_000);
    let replies = h.bot.tick();
    assert_eq!(digests(&replies).len(), 1, "{}", texts(&replies));
    assert!(digests(&h.bot.tick()).is_empty());
    // Down from 15:03 until 06:59 two days later: the day in between is gone, the next
    // comes at its time.
    advance(&h, 39 * 3_600_000 + 56 * 60_000);
    assert!(digests(&h.bot.tick()).is_empty(), "06:59");
    advance(&h, 60_000);
    assert_eq!(digests(&h.bot.tick()).len(), 1, "07:00");
}
