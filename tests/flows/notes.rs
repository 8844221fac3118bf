//! Private notes (`/note`) through the bot core: only a game's players keep them, each sees only
//! their own, privately; they reach the author's own `/export` once the game has ended, never
//! before and never the opponent's.

#[path = "../common/mod.rs"]
mod common;

use common::{ctx, Harness};
use tara_bot::bot::{Clock, Command, Reply};
use tara_bot::game::record::GameRecord;
use tara_bot::store::GameId;
use tara_bot::store::ServerId;

fn note(h: &Harness, who: &str, channel: &str, text: Option<&str>, game: Option<GameId>) -> Reply {
    let r = h.send(
        who,
        channel,
        Command::Note {
            text: text.map(str::to_string),
            game,
        },
    );
    assert_eq!(r.len(), 1, "one answer");
    assert!(
        r[0].ephemeral,
        "a note's answer is private: {}",
        r[0].plain_text()
    );
    assert!(r[0].mentions.is_empty(), "pings nobody");
    r.into_iter().next().unwrap()
}

fn export(h: &Harness, who: &str, channel: &str, id: GameId) -> String {
    let r = h.send(who, channel, Command::Export { id });
    assert!(r[0].ephemeral);
    let doc = r[0].document.as_ref().expect("a record file");
    // The file stays a record the engine reads.
    GameRecord::parse(&doc.text).unwrap_or_else(|e| panic!("{e}: {}", doc.text));
    doc.text.clone()
}

#[test]
fn a_players_note_is_theirs_alone_and_reaches_their_export_once_the_game_ends() {
    let h = Harness::new(false);
    let g = h.start("aoife", "brian", "c1", "hkot-1", "challenger");
    h.opening("c1");

    // Aoife writes a note in the game's channel; /note shows it back to her alone.
    let r = note(
        &h,
        "aoife",
        "c1",
        Some("Keep the *north* hill\nthen trade"),
        None,
    );
    assert!(r.plain_text().contains("saved"), "{}", r.plain_text());
    assert!(
        r.plain_text()
            .contains("includes it once the game has ended"),
        "{}",
        r.plain_text()
    );
    let r = note(&h, "aoife", "c1", None, None);
    let text = r.plain_text();
    assert!(
        text.contains(&format!("Your note on game {}", g.id)),
        "{text}"
    );
    assert!(
        text.contains("north") && text.contains("then trade"),
        "{text}"
    );
    // Brian has none of his own, and never sees hers.
    let r = note(&h, "brian", "c1", None, None);
    assert!(r.plain_text().contains("no note"), "{}", r.plain_text());
    assert!(!r.plain_text().contains("north"));
    // Spectators keep no notes on it.
    let r = note(&h, "ciara", "c1", Some("watching"), None);
    assert!(
        r.plain_text().contains("Only the players"),
        "{}",
        r.plain_text()
    );
    let r = note(&h, "ciara", "c1", None, None);
    assert!(
        r.plain_text().contains("Only the players"),
        "{}",
        r.plain_text()
    );

    // While the game goes on, her own export leaves the note out.
    assert!(!export(&h, "aoife", "c1", g.id).contains("north"));
    // A second note replaces the first.
    note(
        &h,
        "aoife",
        "c1",
        Some("Keep the north hill; then trade"),
        None,
    );
    note(&h, "brian", "c1", Some("She wants the north"), None);

    // The game ends: her export has her note, his has his, neither has the other's.
    h.resign("aoife", "c1");
    let hers = export(&h, "aoife", "c1", g.id);
    assert!(
        hers.contains("# Your note (private to you):\n#   Keep the north hill; then trade\n"),
        "{hers}"
    );
    assert!(!hers.contains("She wants"), "{hers}");
    let his = export(&h, "brian", "c1", g.id);
    assert!(
        his.contains("She wants the north") && !his.contains("Keep the"),
        "{his}"
    );
    // Anyone else's export of it has no note at all.
    assert!(!export(&h, "ciara", "c1", g.id).contains("note"));
    // The public record never shows notes.
    let r = h.send("ciara", "c1", Command::Record { game: None });
    assert!(!r.iter().any(|r| r.plain_text().contains("north")));
    // The note is still hers to read after the game.
    let r = note(&h, "aoife", "c1", None, Some(g.id));
    assert!(r.plain_text().contains("then trade"), "{}", r.plain_text());
    // A note written after the end reaches the export now, and says so (issue 45: it said
    // "once the game has ended").
    let r = note(&h, "brian", "c1", Some("Lost the north"), Some(g.id));
    let said = r.plain_text();
    assert!(
        said.contains(&format!("your `/export {}` includes it.", g.id.0))
            && !said.contains("once the game has ended"),
        "{said}"
    );
}

#[test]
fn notes_are_written_deleted_listed_and_refused_with_reasons() {
    let h = Harness::new(false);
    let g1 = h.start("aoife", "brian", "c1", "hkot-1", "challenger");
    let g2 = h.start("aoife", "ciara", "c2", "ard-ri", "challenger");

    // Outside a game's channel: a note needs a game; /note alone lists hers.
    let r = note(&h, "aoife", "lobby", Some("plan"), None);
    assert!(
        r.plain_text().contains("say which game"),
        "{}",
        r.plain_text()
    );
    let r = note(&h, "aoife", "lobby", None, None);
    assert!(r.plain_text().contains("no notes"), "{}", r.plain_text());
    note(
        &h,
        "aoife",
        "lobby",
        Some("Ard Rí: close the corners"),
        Some(g2.id),
    );
    h.clock.advance_ms(1_000);
    note(&h, "aoife", "c1", Some("Tara: the centre first"), None);
    let r = note(&h, "aoife", "lobby", None, None);
    let text = r.plain_text();
    let (first, second) = (
        text.find(&format!("game {}", g1.id))
            .expect("game 1 listed"),
        text.find(&format!("game {}", g2.id))
            .expect("game 2 listed"),
    );
    assert!(first < second, "the latest written first: {text}");
    assert!(
        text.contains("against") && text.contains("in progress"),
        "{text}"
    );
    assert!(text.contains("close the corners"), "{text}");

    // "-" deletes; deleting again says there was none.
    let r = note(&h, "aoife", "c1", Some("-"), None);
    assert!(r.plain_text().contains("deleted"), "{}", r.plain_text());
    let r = note(&h, "aoife", "c1", Some("-"), None);
    assert!(r.plain_text().contains("had no note"), "{}", r.plain_text());
    let r = note(&h, "aoife", "c1", None, None);
    assert!(r.plain_text().contains("no note"), "{}", r.plain_text());

    // Too long: refused, saying how long it may be; nothing stored.
    let long = "x".repeat(1_501);
    let r = note(&h, "aoife", "c1", Some(&long), None);
    assert!(
        r.plain_text()
            .contains("at most 1500 characters; this one has 1501"),
        "{}",
        r.plain_text()
    );
    assert!(note(&h, "aoife", "c1", None, None)
        .plain_text()
        .contains("no note"));

    // A game of another server is not found from here.
    let mut elsewhere = ctx("aoife", "c9");
    elsewhere.server = ServerId::new("other");
    let r = h.bot.handle(
        &elsewhere,
        Command::Note {
            text: Some("sneaky".into()),
            game: Some(g1.id),
        },
    );
    assert!(r[0].ephemeral);
    assert!(
        r[0].plain_text()
            .contains(&format!("There is no game {} on this server", g1.id)),
        "{}",
        r[0].plain_text()
    );
    // Markdown and mentions in a note are shown as typed, not read.
    note(&h, "aoife", "c2", Some("**bold** <@123> @everyone"), None);
    let r = note(&h, "aoife", "c2", None, None);
    assert!(
        r.plain_text().contains("**bold** <@123> @everyone"),
        "{}",
        r.plain_text()
    );
}
