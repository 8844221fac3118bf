//! The lobby of issue 12 through the bot core: draw offers, open challenges, rematches and
//! `/live`.

mod common;

use common::*;
use std::collections::HashSet;
use tara_bot::bot::{Command, DrawAnswer, Reply};
use tara_bot::game::{EndReason, Points, Side};
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
    let ids: Vec<i64> = public
        .iter()
        .map(|r| {
            r.outbox
                .unwrap_or_else(|| panic!("not owed: {}", r.plain_text()))
        })
        .collect();
    let unique: HashSet<i64> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "an outbox id used twice");
    assert!(replies
        .iter()
        .filter(|r| r.ephemeral)
        .all(|r| r.outbox.is_none()));
    h.restart();
    let again: Vec<i64> = h
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

fn game_row(h: &Harness, id: i64) -> tara_bot::store::GameRow {
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
    assert_eq!(retired.button, format!("draw-yes:{}", g.id));
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
        text.contains("undone") && text.contains("draw offer lapses"),
        "{text}"
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
