//! A board to step through: `/game`, `/board` and `/replay` carry ⏮ ◀ ▶ ⏭ and "Jump to
//! move…"; a press on a public message answers with a private copy at that ply, a press on a
//! private copy replaces it; the state lives in the buttons' ids, which work for 15 minutes;
//! the jump asks for the move in a dialog. Through the bot core and the console.

mod common;

use common::{stored, texts, Harness};
use tara_bot::bot::{Button, Clock, Command, Press, Reply};
use tara_bot::console::{parse_line, Action};
use tara_bot::store::GameId;

/// A game of High Kings with `n` moves played.
fn played(h: &Harness, n: usize) -> GameId {
    let g = h.start("aoife", "brian", "c1", "hkot-1", "challenger");
    for _ in 0..n {
        let (_, _, pos) = stored(&h.db(), g.id);
        let who = g.seats[pos.to_move().unwrap()].to_string();
        let r = h.mv(&who, "c1", &pos.legal_moves()[0].to_string());
        assert!(!r[0].ephemeral, "{}", texts(&r));
    }
    g.id
}

fn game(h: &Harness, who: &str, id: GameId) -> Reply {
    let r = h.send(
        who,
        "c1",
        Command::Game {
            id,
            ply: None,
            marks: None,
            arrows: None,
            drawn: None,
            shared: false,
        },
    );
    r.into_iter().next().unwrap()
}

/// The labels of a reply's buttons.
fn labels(r: &Reply) -> Vec<&str> {
    r.buttons.iter().map(|b| b.label.as_str()).collect()
}

fn button<'r>(r: &'r Reply, label: &str) -> &'r Button {
    r.buttons
        .iter()
        .find(|b| b.label == label)
        .unwrap_or_else(|| panic!("no {label} in {:?}", labels(r)))
}

/// Presses the button as `who`; the one answer.
fn press(h: &Harness, who: &str, b: &Button) -> Reply {
    let cmd = Command::from_button(&b.id).expect("a command");
    let r = h.send(who, "c1", cmd);
    assert_eq!(r.len(), 1, "{}", texts(&r));
    r.into_iter().next().unwrap()
}

#[test]
fn a_public_board_is_stepped_through_private_copies_that_step_in_place() {
    let h = Harness::new(false);
    let id = played(&h, 6);
    // The public board, now: back to the start or one move, or jump.
    let r = game(&h, "ciara", id);
    assert!(!r.ephemeral);
    assert_eq!(labels(&r), ["⏮", "◀", "Jump to move…"]);
    // A spectator steps back: a private copy at move 5, the move in words.
    let copy = press(&h, "ciara", button(&r, "◀"));
    assert!(copy.ephemeral && !copy.replaces_pressed);
    assert!(copy.mentions.is_empty());
    let text = copy.plain_text();
    assert!(text.contains("position after 5 of 6 moves"), "{text}");
    assert!(text.contains("Move 5, aoife: "), "{text}");
    assert!(copy.board_text.is_some());
    assert_eq!(labels(&copy), ["⏮", "◀", "▶", "Jump to move…"]);
    // On the copy, each press replaces it.
    let first = press(&h, "ciara", button(&copy, "⏮"));
    assert!(first.ephemeral && first.replaces_pressed);
    assert!(
        first.plain_text().contains("The start: no move yet."),
        "{}",
        first.plain_text()
    );
    assert_eq!(labels(&first), ["▶", "⏭", "Jump to move…"]);
    let one = press(&h, "ciara", button(&first, "▶"));
    assert!(
        one.plain_text().contains("Move 1, aoife: "),
        "{}",
        one.plain_text()
    );
    assert_eq!(labels(&one), ["◀", "▶", "⏭", "Jump to move…"]);
    let last = press(&h, "ciara", button(&one, "⏭"));
    assert!(
        last.plain_text().contains("Move 6, brian: "),
        "{}",
        last.plain_text()
    );
    assert_eq!(labels(&last), ["⏮", "◀", "Jump to move…"]);
    // Every button id says its game and ply: nothing is stored per viewer.
    assert!(last.buttons[0]
        .id
        .starts_with(&format!("step:{}:0:p:", id.0)));
}

#[test]
fn the_buttons_work_for_fifteen_minutes() {
    let h = Harness::new(false);
    let id = played(&h, 3);
    let r = game(&h, "aoife", id);
    h.clock.advance_ms(15 * 60_000);
    let copy = press(&h, "brian", button(&r, "◀"));
    assert!(
        copy.plain_text().contains("Move 2"),
        "{}",
        copy.plain_text()
    );
    // The copy's buttons are new: they count from now. The public message's have run out.
    h.clock.advance_ms(1_000);
    let late = press(&h, "brian", button(&r, "◀"));
    assert!(late.ephemeral && !late.replaces_pressed);
    assert!(
        late.plain_text().contains("These buttons have expired")
            && late
                .plain_text()
                .contains(&format!("`/game {} ply:2`", id.0)),
        "{}",
        late.plain_text()
    );
    let on = press(&h, "brian", button(&copy, "◀"));
    assert!(on.replaces_pressed, "{}", on.plain_text());
}

#[test]
fn the_jump_asks_for_a_move_and_refuses_one_that_does_not_read() {
    let h = Harness::new(false);
    let id = played(&h, 4);
    let r = game(&h, "aoife", id);
    let jump = button(&r, "Jump to move…");
    // The button opens a dialog.
    let dialog = h.bot.dialog_of(&jump.id).unwrap();
    assert_eq!(
        Some(&dialog),
        Press::parse(&jump.id).unwrap().dialog().as_ref()
    );
    assert_eq!(dialog.id, jump.id);
    assert!(dialog.title.contains(&format!("game {}", id.0)));
    // Its answer is the board at that move, privately (a copy: the message was public).
    let cmd = Command::from_dialog(&dialog.id, " 2 ").unwrap().unwrap();
    let at = h.send("aoife", "c1", cmd).remove(0);
    assert!(at.ephemeral && !at.replaces_pressed);
    assert!(
        at.plain_text().contains("Move 2, brian: "),
        "{}",
        at.plain_text()
    );
    for (typed, says) in [("two", "`two` is not a move number"), ("-1", "`-1` is not")] {
        let e = Command::from_dialog(&dialog.id, typed)
            .unwrap()
            .unwrap_err();
        assert!(e.contains(says), "{e}");
    }
    let cmd = Command::from_dialog(&dialog.id, "9").unwrap().unwrap();
    let r = h.send("aoife", "c1", cmd).remove(0);
    assert!(r.ephemeral);
    assert!(
        r.plain_text().contains("choose a ply from 0 to 4"),
        "{}",
        r.plain_text()
    );
    assert_eq!(Command::from_dialog("accept:1", "2"), None);
    // Once its buttons have expired it opens none: the press says they have expired.
    assert!(h.bot.advance_clock(16 * 60_000));
    assert_eq!(h.bot.dialog_of(&jump.id), None);
    let late = press(&h, "aoife", jump);
    assert!(
        late.plain_text().contains("These buttons have expired"),
        "{}",
        late.plain_text()
    );
}

#[test]
fn board_and_replay_carry_the_buttons_too() {
    let h = Harness::new(false);
    let id = played(&h, 2);
    let r = h
        .send(
            "aoife",
            "c1",
            Command::Board {
                ply: Some(1),
                marks: None,
                arrows: None,
                game: None,
            },
        )
        .remove(0);
    assert_eq!(labels(&r), ["◀", "▶", "Jump to move…"]);
    let step = press(&h, "brian", button(&r, "▶"));
    assert!(step.ephemeral && step.plain_text().contains("Move 2"));
    let r = h.send("aoife", "c1", Command::Replay { id }).remove(0);
    assert_eq!(labels(&r), ["⏮", "◀", "Jump to move…"]);
    // A game with no move yet has nothing to step to.
    let g = h.start("dara", "eoin", "c2", "hkot-1", "challenger");
    let r = game(&h, "dara", g.id);
    assert!(r.buttons.is_empty(), "{:?}", labels(&r));
}

#[test]
fn the_console_presses_the_jump_with_its_value() {
    let id = "step-jump:3:s:1796000000";
    match parse_line(&format!("/press {id} 7")).unwrap() {
        Action::Press(Command::Game {
            id: game,
            ply,
            drawn,
            shared,
            ..
        }) => {
            assert_eq!(
                (game, ply, drawn, shared),
                (GameId(3), Some(7), Some(1_796_000_000), true)
            );
        }
        other => panic!("{other:?}"),
    }
    let e = parse_line(&format!("/press {id}")).unwrap_err();
    assert!(
        e.contains("Move number") && e.contains("/press step-jump:3:s:1796000000 12"),
        "{e}"
    );
    let e = parse_line(&format!("/press {id} x")).unwrap_err();
    assert!(e.contains("not a move number"), "{e}");
}

/// Issue 45: the buttons' time travels in their ids, so a forged id must not make buttons that
/// never expire: a time ahead of the clock, or "never" on a game in progress (only an
/// analysis's buttons, of a finished game, never expire), is refused as expired.
#[test]
fn forged_button_times_do_not_make_buttons_that_never_expire() {
    let h = Harness::new(false);
    let id = played(&h, 3);
    let now = (h.clock.now_ms() / 1000) as u32;
    for drawn in [now + 3_600, u32::MAX] {
        let forged = Button {
            id: format!("step:{}:1:p:{drawn}", id.0),
            label: "◀".into(),
            style: tara_bot::bot::ButtonStyle::Secondary,
        };
        let r = press(&h, "brian", &forged);
        assert!(
            r.ephemeral && r.plain_text().contains("These buttons have expired"),
            "{drawn}: {}",
            r.plain_text()
        );
    }
    // A time a little ahead (another process's clock) still works.
    let near = Button {
        id: format!("step:{}:1:p:{}", id.0, now + 30),
        label: "◀".into(),
        style: tara_bot::bot::ButtonStyle::Secondary,
    };
    let r = press(&h, "brian", &near);
    assert!(r.plain_text().contains("Move 1"), "{}", r.plain_text());
}
