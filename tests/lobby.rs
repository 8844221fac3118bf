//! The lobby of issue 12 through the bot core: draw offers, open challenges, rematches and
//! `/live`.

mod common;

use common::*;
use std::collections::HashSet;
use tara_bot::bot::{Command, DrawAnswer, Reply};
use tara_bot::game::BySide;
use tara_bot::game::{EndReason, Points, Side};
use tara_bot::store::MessageId;
use tara_bot::store::{ChallengeId, GameId};
use tara_bot::store::{ChannelId, ServerId};
use tara_bot::store::{GameStatus, Store};

fn offer() -> Command {
    Command::Draw {
        answer: None,
        game: None,
    }
}

fn answer(a: DrawAnswer) -> Command {
    Command::Draw {
        answer: Some(a),
        game: None,
    }
}

/// The command of the reply's button whose id starts with `kind:`.
fn button(r: &Reply, kind: &str) -> Command {
    let b = r
        .buttons
        .iter()
        .find(|b| b.id.starts_with(&format!("{kind}:")))
        .unwrap_or_else(|| panic!("no {kind} button on {}", r.plain_text()));
    Command::from_button(&b.id).unwrap()
}

/// Every public reply is owed through the outbox exactly once: each has its own outbox id, and
/// a restarted process hands out exactly those, once each.
fn owed_once(h: &mut Harness, replies: &[Reply]) {
    let public: Vec<&Reply> = replies.iter().filter(|r| !r.ephemeral).collect();
    let ids: Vec<MessageId> = public
        .iter()
        .map(|r| {
            r.outbox
                .unwrap_or_else(|| panic!("not owed: {}", r.plain_text()))
        })
        .collect();
    let unique: HashSet<MessageId> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "an outbox id used twice");
    assert!(replies
        .iter()
        .filter(|r| r.ephemeral)
        .all(|r| r.outbox.is_none()));
    h.restart();
    let again: Vec<MessageId> = h
        .bot
        .undelivered(true)
        .iter()
        .filter_map(|r| r.outbox)
        .collect();
    for id in &ids {
        assert_eq!(
            again.iter().filter(|a| *a == id).count(),
            1,
            "message {id} is owed {} times",
            again.iter().filter(|a| *a == id).count()
        );
    }
    for id in again {
        h.bot.delivered(id);
    }
}

fn game_row(h: &Harness, id: GameId) -> tara_bot::store::GameRow {
    stored(&h.db(), id).0
}

#[test]
fn an_accepted_draw_ends_the_game_as_agreed_with_the_games_own_draw_points() {
    let mut h = Harness::new(false);
    let g = h.start("aoife", "brian", "c", "ard-ri", "me");
    h.mv("aoife", "c", "d2-c2");
    let mut all = Vec::new();
    // Brian offers on his own turn.
    let r = h.send("brian", "c", offer());
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    assert_eq!(r[0].mentions, vec!["aoife".to_string()]);
    assert!(r[0].plain_text().contains("offers a draw"));
    all.extend(r.clone());
    // Brian cannot accept his own offer, with the button or typed.
    let own = h.send("brian", "c", button(&r[0], "draw-yes"));
    assert!(own[0].ephemeral && own[0].plain_text().contains("your own draw offer"));
    let own = h.send("brian", "c", answer(DrawAnswer::Accept));
    assert!(own[0].ephemeral && own[0].plain_text().contains("your own draw offer"));
    // Someone else pressing it is refused privately.
    let stranger = h.send("cara", "c", button(&r[0], "draw-yes"));
    assert_eq!(stranger.len(), 1);
    assert!(stranger[0].ephemeral);
    assert!(
        stranger[0].plain_text().contains("Only aoife can answer"),
        "{}",
        stranger[0].plain_text()
    );
    assert_eq!(game_row(&h, g.id).status, GameStatus::Active);
    // Aoife accepts with the button.
    let r = h.send("aoife", "c", button(&r[0], "draw-yes"));
    let text = texts(&r);
    assert!(text.contains("accepted the draw"), "{text}");
    assert!(text.contains("Draw by agreement"), "{text}");
    assert!(r[0].pressed_message.is_some() && r[0].retire.is_some());
    let mut pinged = r[0].mentions.clone();
    pinged.sort();
    assert_eq!(pinged, vec!["aoife".to_string(), "brian".to_string()]);
    all.extend(r);
    let row = game_row(&h, g.id);
    assert_eq!(row.status, GameStatus::Finished);
    let o = row.outcome.unwrap();
    assert_eq!((o.winner, o.reason), (None, EndReason::Agreed));
    assert_eq!(
        (o.points[Side::Attackers], o.points[Side::Defenders]),
        (Points::HALF, Points::HALF)
    );
    // The button of the spent offer does nothing more.
    let late = h.send("aoife", "c", answer(DrawAnswer::Accept));
    assert!(late[0].ephemeral);
    owed_once(&mut h, &all);
}

#[test]
fn a_tara_draw_scores_one_each_plus_kings_captured() {
    let h = Harness::new(false);
    let g = h.start("aoife", "brian", "c", "hkot-1", "me");
    for (who, m) in [
        ("aoife", "C1"),
        ("brian", "B1"),
        ("aoife", "F6"),
        ("brian", "F2"),
        ("aoife", "B2"),
    ] {
        let r = h.mv(who, "c", m);
        assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    }
    // Red (aoife) has captured Blue's king on B1. Aoife offers on Brian's turn.
    let r = h.send("aoife", "c", offer());
    assert!(!r[0].ephemeral);
    let r = h.send("brian", "c", answer(DrawAnswer::Accept));
    assert!(texts(&r).contains("Game over"), "{}", texts(&r));
    let o = game_row(&h, g.id).outcome.unwrap();
    assert_eq!(o.winner, None);
    assert_eq!(o.reason, EndReason::Agreed);
    assert_eq!(o.points[Side::Red], Points::whole(2));
    assert_eq!(o.points[Side::Blue], Points::whole(1));
}

#[test]
fn one_offer_at_a_time_and_a_repeat_pings_nobody() {
    let h = Harness::new(false);
    h.start("aoife", "brian", "c", "ard-ri", "me");
    let r = h.send("aoife", "c", offer());
    assert_eq!(r[0].mentions, vec!["brian".to_string()]);
    for _ in 0..3 {
        let again = h.send("aoife", "c", offer());
        assert_eq!(again.len(), 1);
        assert!(again[0].ephemeral && again[0].mentions.is_empty());
        assert!(
            again[0].plain_text().contains("already offered a draw"),
            "{}",
            again[0].plain_text()
        );
    }
    // The opponent's own offer points at the pending one.
    let theirs = h.send("brian", "c", offer());
    assert!(theirs[0].ephemeral && theirs[0].plain_text().contains("waiting for your answer"));
    // Declined: the offerer is told, the game goes on, and a new offer may be made.
    let r = h.send("brian", "c", button(&r[0], "draw-no"));
    assert!(!r[0].ephemeral);
    assert_eq!(r[0].mentions, vec!["aoife".to_string()]);
    assert!(r[0].plain_text().contains("declined your draw offer"));
    assert!(r[0].pressed_message.is_some());
    let r = h.send("brian", "c", offer());
    assert_eq!(r[0].mentions, vec!["aoife".to_string()]);
    // Outsiders can neither offer nor answer.
    let r = h.send("cara", "c", offer());
    assert!(r[0].ephemeral && r[0].plain_text().contains("not playing"));
    let r = h.send("cara", "c", answer(DrawAnswer::Decline));
    assert!(r[0].ephemeral && r[0].plain_text().contains("Only aoife"));
}

#[test]
fn a_move_a_pass_or_a_takeback_makes_the_offer_lapse() {
    let mut h = Harness::new(false);
    let g = h.start("aoife", "brian", "c", "ard-ri", "me");
    let r = h.send("brian", "c", offer());
    let yes = button(&r[0], "draw-yes");
    // Aoife moves instead of answering: the offer lapses, said in the move's message.
    let r = h.mv("aoife", "c", "d2-c2");
    let text = r[0].plain_text();
    assert!(
        text.contains("@brian's draw offer lapses with this move"),
        "{text}"
    );
    let retired = r[0].retire.as_ref().expect("the offer's buttons are spent");
    assert_eq!(retired.button, format!("draw-yes:{}", g.id.0));
    let mut all = r.clone();
    let late = h.send("aoife", "c", yes.clone());
    assert!(late[0].ephemeral && late[0].plain_text().contains("lapsed"));
    assert_eq!(game_row(&h, g.id).status, GameStatus::Active);
    // The lapse is stored with the move: after a restart there is still no offer.
    h.restart();
    let late = h.send("aoife", "c", yes.clone());
    assert!(late[0].ephemeral);
    // An offer made by the player who then moves lapses too.
    let r = h.send("brian", "c", offer());
    all.extend(r.clone());
    let r = h.mv("brian", "c", "c3-b3");
    assert!(r[0].plain_text().contains("draw offer lapses"));
    // A takeback makes it lapse.
    h.send("aoife", "c", offer());
    h.send(
        "brian",
        "c",
        Command::Takeback {
            answer: None,
            game: None,
        },
    );
    let r = h.send(
        "aoife",
        "c",
        Command::Takeback {
            answer: Some(tara_bot::bot::TakebackAnswer::Allow),
            game: None,
        },
    );
    let text = texts(&r);
    assert!(
        text.contains("undone") && text.contains("@aoife's draw offer lapses with this takeback"),
        "{text}"
    );
    // The offer's message says what made it lapse: nobody played on.
    let retired = r[0].retire.as_ref().expect("the offer's buttons are spent");
    let now = retired.text_with(|_, name| format!("@{name}"), |c| format!("#{c}"));
    assert!(
        now.ends_with("which lapsed when a move was taken back."),
        "{now}"
    );
    let late = h.send("brian", "c", answer(DrawAnswer::Accept));
    assert!(late[0].ephemeral);
    all.extend(r);
    owed_once(&mut h, &all);
}

#[test]
fn a_resignation_spends_a_pending_offer() {
    let h = Harness::new(false);
    let g = h.start("aoife", "brian", "c", "ard-ri", "me");
    h.opening("c");
    h.send("aoife", "c", offer());
    let r = h.send(
        "aoife",
        "c",
        Command::Resign {
            confirmed: true,
            game: None,
        },
    );
    assert!(texts(&r).contains("resigned"));
    assert!(r[0].retire.is_some(), "the offer's buttons are spent");
    let o = game_row(&h, g.id).outcome.unwrap();
    assert_eq!(o.reason, EndReason::Resigned);
    let mut s = Store::open(h.db()).unwrap();
    assert!(s.read(|tx| tx.draw_offer(g.id)).unwrap().is_none());
}

const DAY: i64 = 86_400_000;

fn open_challenge(variant: &str) -> Command {
    use tara_bot::bot::options::{Value, Values};
    // Read through the command table as an adapter reads it: no opponent given.
    Command::parse(
        "challenge",
        &Values::new().with("variant", Value::Text(variant.into())),
    )
    .unwrap()
}

fn pressed(r: &[Reply]) -> String {
    r.iter()
        .find_map(|r| r.pressed_text_with(|_, name| format!("@{name}"), |c| format!("#{c}")))
        .unwrap_or_default()
}

fn ctx_on(server: &str, who: &str, channel: &str) -> tara_bot::bot::Ctx {
    let mut c = ctx(who, channel);
    c.server = ServerId::new(server);
    c
}

#[test]
fn an_open_challenge_is_accepted_by_anyone_but_its_challenger() {
    let mut h = Harness::new(false);
    let r = h.send("aoife", "c", open_challenge("hkot-1"));
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    assert!(r[0].mentions.is_empty(), "an open challenge pings nobody");
    let text = r[0].plain_text();
    assert!(
        text.contains("@aoife challenges anyone to **High Kings of Tara (Level 1)**"),
        "{text}"
    );
    assert!(text.contains("open challenge #1") && text.contains("expires after 7 days"));
    let ids: Vec<&str> = r[0].buttons.iter().map(|b| b.id.as_str()).collect();
    assert_eq!(ids, ["accept:1", "cancel:1"]);
    let mut all = r.clone();
    // The challenger cannot accept it, by button or typed.
    let own = h.send("aoife", "c", button(&r[0], "accept"));
    assert!(own[0].ephemeral && own[0].plain_text().contains("cannot accept your own"));
    let own = h.send("aoife", "c", Command::Accept { challenge: None });
    assert!(own[0].ephemeral, "{}", own[0].plain_text());
    // Nobody declines it, and only its challenger withdraws it.
    let r2 = h.send(
        "brian",
        "c",
        Command::Decline {
            challenge: Some(ChallengeId(1)),
        },
    );
    assert!(r2[0].ephemeral && r2[0].plain_text().contains("open to anyone"));
    let r2 = h.send("brian", "c", button(&r[0], "cancel"));
    assert!(r2[0].ephemeral && r2[0].plain_text().contains("not yours to cancel"));
    // One open challenge to anyone per player.
    let again = h.send("aoife", "d", open_challenge("ard-ri"));
    assert!(again[0].ephemeral);
    assert_eq!(
        again[0].plain_text(),
        "You already have an open challenge to anyone on this server: challenge #1 in #c. Wait \
         for someone to accept it, or `/cancel` it first."
    );
    // Brian takes it with the button: he becomes the opponent.
    let r = h.send("brian", "c", button(&r[0], "accept"));
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    assert!(texts(&r).contains("Game on!"));
    assert_eq!(
        pressed(&r),
        "@aoife challenged @brian to **High Kings of Tara (Level 1)** (challenge #1): \
         accepted, game 1 has started."
    );
    all.extend(r.clone());
    let g = active(&h.db(), "c").unwrap();
    let mut seats = g.seats.into_iter().collect::<Vec<_>>();
    seats.sort();
    assert_eq!(seats, ["aoife", "brian"]);
    let mut s = Store::open(h.db()).unwrap();
    let c = s.read(|tx| tx.challenge(ChallengeId(1))).unwrap().unwrap();
    assert_eq!(c.opponent_id, "brian");
    assert!(!c.is_open_to_anyone());
    drop(s);
    // Too late for Cara.
    let late = h.send(
        "cara",
        "c",
        Command::Accept {
            challenge: Some(ChallengeId(1)),
        },
    );
    assert!(late[0].ephemeral && late[0].plain_text().contains("no longer open"));
    owed_once(&mut h, &all);
}

#[test]
fn a_typed_accept_takes_a_challenge_to_you_before_an_open_one() {
    let h = Harness::new(false);
    h.send("aoife", "c", open_challenge("ard-ri"));
    h.send(
        "cara",
        "c",
        challenge_cmd("brian", "hkot-1", None, Some("me"), false, None),
    );
    let r = h.send("brian", "c", Command::Accept { challenge: None });
    assert!(!r[0].ephemeral);
    let g = active(&h.db(), "c").unwrap();
    assert_eq!(
        g.seats,
        BySide::new("cara".to_string(), "brian".to_string())
    );
    // Aoife's open challenge is still there, but its channel now holds a game.
    let r = h.send("dana", "c", Command::Accept { challenge: None });
    assert!(r[0].ephemeral && r[0].plain_text().contains("already running"));
    // Withdrawn by its challenger: the message no longer says it is open.
    let r = h.send("aoife", "c", Command::Cancel { challenge: None });
    assert!(!r[0].ephemeral);
    let retire = r[0].retire.as_ref().unwrap();
    assert_eq!(
        retire.text_with(|_, n| format!("@{n}"), |c| format!("#{c}")),
        "@aoife challenged anyone to **Ard Rí** (challenge #1): withdrawn by @aoife."
    );
}

#[test]
fn an_open_challenge_expires_with_a_notice_and_counts_towards_the_limit() {
    let mut h = Harness::new(false);
    // Nine addressed challenges and one open: the tenth is the last allowed.
    for i in 0..9 {
        let r = h.send(
            "aoife",
            &format!("t{i}"),
            challenge_cmd(&format!("p{i}"), "hkot-1", None, None, false, None),
        );
        assert!(!r[0].ephemeral);
    }
    let r = h.send("aoife", "open", open_challenge("sacred-hill-1"));
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    let id = ChallengeId(10);
    let r = h.send(
        "aoife",
        "t9",
        challenge_cmd("p9", "hkot-1", None, None, false, None),
    );
    assert!(r[0].ephemeral && r[0].plain_text().contains("10 open challenges"));
    assert!(h.bot.advance_clock(7 * DAY - 60_000));
    assert!(h.bot.tick().is_empty());
    assert!(h.bot.advance_clock(60_000));
    let notices = h.bot.tick();
    let notice = notices
        .iter()
        .find(|n| n.channel.as_ref().map(ChannelId::as_str) == Some("open"))
        .expect("the open challenge's notice");
    assert_eq!(
        notice.plain_text(),
        format!(
            "@aoife, your open challenge #{id} (sacred-hill-1) has expired: nobody accepted it \
             within 7 days. Its buttons no longer work; `/challenge` again to offer a new game."
        )
    );
    assert_eq!(notice.mentions, vec!["aoife".to_string()]);
    let retire = notice.retire.as_ref().unwrap();
    assert_eq!(retire.button, format!("accept:{id}"));
    assert!(retire
        .text_with(|_, n| format!("@{n}"), |c| format!("#{c}"))
        .starts_with("@aoife challenged anyone to"));
    assert_eq!(notices.len(), 10, "every challenge expired once");
    assert!(h.bot.tick().is_empty(), "and only once");
    let late = h.send(
        "brian",
        "open",
        Command::Accept {
            challenge: Some(id),
        },
    );
    assert!(late[0].ephemeral && late[0].plain_text().contains("expired"));
    owed_once(&mut h, &notices);
    // A new open challenge is welcome again.
    let r = h.send("aoife", "open", open_challenge("sacred-hill-1"));
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
}

fn resign() -> Command {
    Command::Resign {
        confirmed: true,
        game: None,
    }
}

#[test]
fn a_finished_game_offers_a_rematch_with_the_first_move_swapped() {
    let mut h = Harness::new(false);
    let r = h.send(
        "aoife",
        "c",
        challenge_cmd("brian", "ard-ri", None, Some("me"), false, Some("3")),
    );
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    h.send("brian", "c", Command::Accept { challenge: None });
    let g = active(&h.db(), "c").unwrap();
    assert_eq!(
        *g.seats.first(),
        "aoife",
        "aoife has the attackers and moves first"
    );
    // A game in progress has no rematch yet.
    let r = h.send("aoife", "c", Command::Rematch { game: None });
    assert!(r[0].ephemeral && r[0].plain_text().contains("still being played"));
    h.opening("c");
    let end = h.send("brian", "c", resign());
    let rematch = button(&end[0], "rematch");
    // Only its players may press it.
    let r = h.send("cara", "c", rematch.clone());
    assert_eq!(r.len(), 1);
    assert!(r[0].ephemeral);
    assert_eq!(
        r[0].plain_text(),
        format!("Only the players of game {} can ask for a rematch.", g.id.0)
    );
    // Brian presses it: a challenge to Aoife, with Brian moving first this time.
    let r = h.send("brian", "c", rematch.clone());
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    assert_eq!(r[0].mentions, vec!["aoife".to_string()]);
    let text = r[0].plain_text();
    assert!(
        text.contains(&format!(
            "@brian asks @aoife for a rematch of game {}",
            g.id.0
        )),
        "{text}"
    );
    assert!(
        text.contains(" · 3 days per move · rated · a single game"),
        "{text}"
    );
    assert!(text.contains("@brian starts"), "{text}");
    let mut all = r.clone();
    // Pressing again (either player) makes no second challenge and pings nobody.
    let again = h.send("aoife", "c", rematch);
    assert!(again[0].ephemeral && again[0].mentions.is_empty());
    assert!(again[0].plain_text().contains("already an open challenge"));
    let r = h.send("aoife", "c", button(&r[0], "accept"));
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    all.extend(r);
    let g2 = active(&h.db(), "c").unwrap();
    assert_eq!(
        *g2.seats.first(),
        "brian",
        "brian has the attackers and moves first"
    );
    assert_eq!(g2.days_per_move, Some(3));
    assert_eq!(g2.options.variant, g.options.variant);
    assert_eq!(g2.rated, g.rated);
    let mut s = Store::open(h.db()).unwrap();
    let c = s.read(|tx| tx.challenge(ChallengeId(2))).unwrap().unwrap();
    assert_eq!(
        (c.challenger_id.as_str(), c.opponent_id.as_str()),
        ("brian", "aoife")
    );
    assert_eq!(c.rated, g.rated, "the rated flag is copied");
    drop(s);
    // The rematch's own end offers a rematch again: swapped back. Asked for by number from
    // another channel, it is posted in the game's channel.
    h.opening("c");
    let end = h.send("aoife", "c", resign());
    assert!(end[0].buttons.iter().any(|b| b.id.starts_with("rematch:")));
    let g2_id = g2.id;
    let r = h.send("brian", "elsewhere", Command::Rematch { game: Some(g2_id) });
    assert!(
        r[0].ephemeral && r[0].plain_text().contains("posted in #c"),
        "{}",
        texts(&r)
    );
    assert_eq!(r[1].channel.as_ref().map(ChannelId::as_str), Some("c"));
    assert!(
        r[1].plain_text().contains("@aoife starts"),
        "{}",
        r[1].plain_text()
    );
    all.extend(r);
    h.send("brian", "c", Command::Cancel { challenge: None });
    // Pressed on the message itself, by the other player.
    let r = h.send("aoife", "c", button(&end[0], "rematch"));
    assert!(
        r[0].plain_text().contains("@aoife starts"),
        "{}",
        r[0].plain_text()
    );
    all.extend(r);
    owed_once(&mut h, &all);
}

#[test]
fn a_match_is_rematched_as_a_match_once_it_is_over() {
    let h = Harness::new(false);
    h.send(
        "aoife",
        "c",
        challenge_cmd("brian", "hkot-1", None, Some("me"), true, None),
    );
    h.send("brian", "c", Command::Accept { challenge: None });
    let g1 = active(&h.db(), "c").unwrap();
    assert_eq!(g1.seats[g1.options.first], "aoife");
    h.opening("c");
    let end = h.send("aoife", "c", resign());
    assert!(
        end.iter()
            .all(|r| r.buttons.iter().all(|b| !b.id.starts_with("rematch:"))),
        "no rematch in the middle of a match"
    );
    let r = h.send("brian", "c", Command::Rematch { game: Some(g1.id) });
    assert!(r[0].ephemeral && r[0].plain_text().contains("match still being played"));
    h.opening("c");
    let end = h.send("aoife", "c", resign());
    let r = h.send("aoife", "c", button(&end[0], "rematch"));
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    let text = r[0].plain_text();
    assert!(text.contains("a two-game match"), "{text}");
    // Aoife started the first game of the match: Brian starts the first of the rematch.
    assert!(text.contains("@brian starts"), "{text}");
    h.send("brian", "c", Command::Accept { challenge: None });
    let g = active(&h.db(), "c").unwrap();
    assert!(g.match_id.is_some() && g.match_id != g1.match_id);
    assert_eq!(g.seats[g.options.first], "brian");
}

#[test]
fn a_rematch_of_an_aborted_or_missing_game_is_refused() {
    let h = Harness::new(false);
    let g = h.start("aoife", "brian", "c", "hkot-1", "me");
    h.send(
        "aoife",
        "c",
        Command::Abort {
            reason: None,
            game: None,
        },
    );
    let r = h.send("aoife", "c", Command::Rematch { game: None });
    assert!(r[0].ephemeral && r[0].plain_text().contains("was aborted"));
    let r = h.send("aoife", "elsewhere", Command::Rematch { game: None });
    assert!(r[0].ephemeral && r[0].plain_text().contains("No game has been played"));
    // Another server's game answers like a missing one.
    let r = h.bot.handle(
        &ctx_on("other", "aoife", "x"),
        Command::Rematch { game: Some(g.id) },
    );
    assert_eq!(
        r[0].plain_text(),
        format!("There is no game #{} on this server.", g.id.0)
    );
}

#[test]
fn live_lists_the_servers_games_newest_activity_first_and_pings_nobody() {
    let h = Harness::new(false);
    let r = h.send("aoife", "c", Command::Live {});
    assert!(r[0].ephemeral && r[0].plain_text().contains("No games are in progress"));
    // 27 games; the clock moves on between them, so each is newer than the last.
    for i in 0..27 {
        let days = if i % 2 == 0 { Some("3") } else { None };
        h.send(
            &format!("a{i}"),
            &format!("g{i}"),
            challenge_cmd(&format!("b{i}"), "ard-ri", None, Some("me"), false, days),
        );
        let r = h.send(
            &format!("b{i}"),
            &format!("g{i}"),
            Command::Accept { challenge: None },
        );
        assert!(!r[0].ephemeral, "{}", r[0].plain_text());
        assert!(h.bot.advance_clock(60_000));
    }
    // A move makes game g0 the most recently active.
    assert!(h.bot.advance_clock(60_000));
    let r = h.mv("a0", "g0", "d2-c2");
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    // Another server's game is never listed.
    h.bot.handle(
        &ctx_on("other", "x", "secret"),
        challenge_cmd("y", "ard-ri", None, None, false, None),
    );
    h.bot.handle(
        &ctx_on("other", "y", "secret"),
        Command::Accept { challenge: None },
    );

    let r = h.send("spectator", "lobby", Command::Live {});
    assert_eq!(r.len(), 1);
    let live = &r[0];
    assert!(!live.ephemeral, "public, for spectators");
    assert!(live.mentions.is_empty(), "pings nobody");
    assert!(live.outbox.is_none(), "a read-only answer owes nothing");
    let text = live.plain_text();
    assert!(!text.contains("secret") && !text.contains("@x"), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1 + 25 + 1, "{text}");
    assert!(lines[0].contains("(27)"), "{}", lines[0]);
    assert_eq!(lines[26], "…and 2 more games.");
    // g0 first (its move), then the newest games: g26, g25, …
    assert!(
        lines[1].contains("#g0 ") && lines[1].contains("@b0 to move"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].contains("#g26 ") && lines[2].contains("@a26 to move"),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].contains("#g25 ") && lines[3].contains("no clock"),
        "{}",
        lines[3]
    );
    assert!(
        lines[2].contains("· deadline 2026-12-03")
            && lines[2].contains("2 days 23 hours 58 minutes left"),
        "{}",
        lines[2]
    );
    assert!(
        lines[1].contains("@a0 (Attackers) vs @b0 (Defenders)"),
        "{}",
        lines[1]
    );
    // The players are mentions that do not ping, and each game links its channel.
    let users = live
        .parts
        .iter()
        .filter(|p| matches!(p, tara_bot::bot::Part::User { .. }))
        .count();
    assert_eq!(users, 25 * 3);
    let channels = live
        .parts
        .iter()
        .filter(|p| matches!(p, tara_bot::bot::Part::Channel(_)))
        .count();
    assert_eq!(channels, 25);
}

/// A plain `/decline` (no number) where only a challenge open to anyone waits says why it
/// cannot be declined, as `/decline 1` does, instead of saying there is none.
#[test]
fn a_plain_decline_of_an_open_challenge_says_its_author_withdraws_it_or_it_expires() {
    let h = Harness::new(false);
    h.send("aoife", "c", open_challenge("hkot-1"));
    let said = "Challenge #1 is open to anyone, so there is nothing to decline: an open \
                challenge is withdrawn by its author (`/cancel`) or simply expires. `/accept 1` \
                takes it.";
    for number in [None, Some(ChallengeId(1))] {
        let r = h.send("brian", "c", Command::Decline { challenge: number });
        assert_eq!(r.len(), 1);
        assert!(r[0].ephemeral);
        assert_eq!(r[0].plain_text(), said, "{number:?}");
    }
    // Still open: brian can take it.
    let r = h.send("brian", "c", Command::Accept { challenge: None });
    assert!(!r[0].ephemeral, "{}", texts(&r));
}

/// A draw offer's button pressed after its game ended says that the game has ended, with its
/// result, not that there is no game in the channel.
#[test]
fn an_old_draw_button_says_the_game_has_ended() {
    let h = Harness::new(false);
    let g = h.start("aoife", "brian", "c", "ard-ri", "me");
    h.mv("aoife", "c", "d2-c2");
    let r = h.send("brian", "c", offer());
    let accept = button(&r[0], "draw-yes");
    h.send("aoife", "c", button(&r[0], "draw-yes"));
    assert_eq!(game_row(&h, g.id).status, GameStatus::Finished);
    let late = h.send("aoife", "c", accept);
    assert_eq!(late.len(), 1);
    assert!(late[0].ephemeral);
    assert_eq!(
        late[0].plain_text(),
        format!(
            "Game {} has ended (Draw by agreement), so this button no longer does anything.",
            g.id.0
        )
    );
    // Also when a newer game is being played in the channel; and for an aborted game.
    let g2 = h.start("aoife", "brian", "c", "ard-ri", "me");
    let r = h.send("brian", "c", offer());
    let old = button(&r[0], "draw-no");
    h.send(
        "aoife",
        "c",
        Command::Abort {
            reason: None,
            game: None,
        },
    );
    h.start("aoife", "brian", "c", "ard-ri", "me");
    let late = h.send("aoife", "c", old);
    assert_eq!(
        late[0].plain_text(),
        format!(
            "Game {} was aborted, so this button no longer does anything.",
            g2.id.0
        )
    );
}
