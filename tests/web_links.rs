//! Links that unfold in Discord (issue 47): with the web companion's address configured
//! (`web_url`) and the server on the web (`/settings web:true`), the bot's messages about a
//! game, a tournament, a league or a ladder carry an "Open on the web" link button to its page
//! there: a game's start and end, `/game` and `/board` (at the move shown), a tournament's
//! rounds, results and standings, a league's season and standings, a ladder's changes and
//! `/ladder show`. Without the address, or with the server off the web, no message has one.
//! Each link is kept in the outbox, shown by the console, and is a page the web companion
//! serves.

use crate::web::common::console::{ctx, opening, send};
use crate::web::common::{active, challenge_cmd, Harness};
use crate::web::{serve, web_setting};
use std::collections::HashMap;
use tara_bot::bot::{Bot, Command, LinkButton, Reply, OPEN_ON_THE_WEB};
use tara_bot::store::{LeagueId, MessageId, Store, TournamentId};

/// The web companion's address, as the bot's configuration names it.
const SITE: &str = "https://tara.example.org";

/// A message the bot sent that links the web: what it is, the message, and the path of the
/// page it links.
struct Linked {
    what: &'static str,
    reply: Reply,
    path: String,
}

/// What a run of [`messages`] sent: the messages that link the web, and every other one.
#[derive(Default)]
struct Sent {
    linked: Vec<Linked>,
    others: Vec<Reply>,
}

impl Sent {
    /// Sorts `replies`: the first that `is` picks links `path` (one must), the rest do not.
    fn one(
        &mut self,
        what: &'static str,
        replies: Vec<Reply>,
        is: impl Fn(&Reply) -> bool,
        path: String,
    ) {
        let mut found = false;
        for r in replies {
            if !found && is(&r) {
                found = true;
                self.linked.push(Linked {
                    what,
                    reply: r,
                    path: path.clone(),
                });
            } else {
                self.others.push(r);
            }
        }
        assert!(found, "{what}: no such message");
    }

    /// Replies none of which links the web.
    fn none(&mut self, replies: Vec<Reply>) {
        self.others.extend(replies);
    }
}

/// The bot of `h` again, knowing the web companion at `url` (or not).
fn with_web_url(h: &mut Harness, url: Option<&str>) {
    let store = Store::open(h.db()).unwrap();
    h.bot = Bot::new(store, h.clock.clone(), 7)
        .with_images(false)
        .with_web_url(url.map(String::from));
}

fn says(text: &'static str) -> impl Fn(&Reply) -> bool {
    move |r: &Reply| r.plain_text().contains(text)
}

/// A player's console line that must be answered publicly.
fn public(bot: &Bot, who: &str, channel: &str, line: &str) -> Vec<Reply> {
    let r = send(bot, who, channel, line);
    assert!(
        r.iter().all(|r| !r.ephemeral),
        "{line}: {}",
        crate::web::common::texts(&r)
    );
    r
}

/// Every kind of message that links the web, made on `h`'s server: a game (challenge, start,
/// `/game`, `/board`, moves, stepping, resignation), a Swiss (round, a game's start and end
/// in its thread, the result), a league (season, its division's games), a ladder (a challenge
/// won), and the three standings (`/ladder show` is private).
fn messages(h: &Harness) -> Sent {
    let bot = &h.bot;
    let mut sent = Sent::default();
    // A game: its start and end link its page; `/game` and `/board` the position they show.
    sent.none(h.send(
        "aoife",
        "c1",
        challenge_cmd("brian", "hkot-1", None, Some("challenger"), false, None),
    ));
    let accepted = h.send("brian", "c1", Command::Accept { challenge: None });
    let g = active(&h.db(), "c1").expect("the game").id.0;
    sent.one("game start", accepted, says("Game on!"), format!("/g/{g}"));
    let game = send(bot, "ciara", "c2", &format!("/game id:{g}"));
    sent.one("/game", game, |_| true, format!("/g/{g}"));
    opening(bot, "c1", ["aoife", "brian"]);
    let board = send(bot, "aoife", "c1", "/board");
    sent.one("/board", board, |_| true, format!("/g/{g}"));
    let at = send(bot, "ciara", "c2", &format!("/game id:{g} ply:1"));
    let back = at[0].buttons.iter().find(|b| b.label == "◀").unwrap();
    let back = Command::from_button(&back.id.clone()).unwrap();
    sent.one("/game ply:1", at, |_| true, format!("/g/{g}?ply=1"));
    let stepped = bot.handle(&ctx("ciara", "c2"), back);
    sent.one("a step back", stepped, |_| true, format!("/g/{g}?ply=0"));
    let end = public(bot, "brian", "c1", "/resign confirm");
    sent.one("game end", end, says("Game over"), format!("/g/{g}"));

    // Tournament 1, league 1 (its division is tournament 2) and ladder 1, and their players.
    let events: [(&str, &str, &str, &[&str]); 3] = [
        (
            "t",
            "/tournament create Spring hkot-1 swiss rounds:2",
            "/tournament join",
            &["aoife", "brian", "ciara", "donal"],
        ),
        (
            "lg",
            "/league create name:Mór variant:hkot-2 division-size:3",
            "/league join",
            &["aoife", "brian", "ciara"],
        ),
        (
            "ld",
            "/ladder create Autumn sacred-hill-1 days:none",
            "/ladder join",
            &["aoife", "brian"],
        ),
    ];
    for (channel, create, join, players) in events {
        sent.none(public(bot, "mod", channel, create));
        for p in players {
            sent.none(public(bot, p, channel, join));
        }
    }

    // The Swiss: its round, its games' starts in their threads, a game's end and its result.
    let mut start = public(bot, "mod", "t", "/tournament start");
    let pairings = {
        let mut s = Store::open(h.db()).unwrap();
        s.read(|tx| tx.pairings(TournamentId(1), Some(1))).unwrap()
    };
    for p in &pairings {
        let key = p.thread_key.clone().unwrap();
        let at = start
            .iter()
            .position(|r| r.channel.as_ref().map(|c| c.as_str()) == Some(key.as_str()))
            .expect("the game's start in its thread");
        let id = p.game_id.unwrap().0;
        let one = vec![start.remove(at)];
        sent.one(
            "a tournament game's start",
            one,
            says("Game on!"),
            format!("/g/{id}"),
        );
    }
    sent.one("a round", start, says("round 1"), "/t/1".into());
    let board1 = &pairings[0];
    let thread = board1.thread_key.clone().unwrap();
    let p1 = board1.player1.clone().unwrap();
    opening(bot, &thread, [board1.player0.as_str(), p1.as_str()]);
    let over = public(bot, p1.as_str(), &thread, "/resign confirm");
    let (end, result) = split(over, |r| r.plain_text().contains("Game over"));
    let id = board1.game_id.unwrap().0;
    sent.one("a tournament game's end", end, |_| true, format!("/g/{id}"));
    sent.one(
        "a tournament result",
        result,
        says("round 1:"),
        "/t/1".into(),
    );

    // The league: its season's start, its division's games and their starts.
    let season = public(bot, "mod", "lg", "/league start");
    let division = {
        let mut s = Store::open(h.db()).unwrap();
        s.read(|tx| tx.league_divisions(LeagueId(1), Some(1)))
            .unwrap()[0]
            .tournament_id
    };
    let (starts, rest) = split(season, |r| r.plain_text().contains("Game on!"));
    for r in starts {
        let path = format!("/g/{}", game_of(h, &r));
        sent.one("a league game's start", vec![r], |_| true, path);
    }
    let (games, rest) = split(rest, |r| r.plain_text().contains("Your games"));
    let division = format!("/t/{}", division.0);
    sent.one("a division's games", games, |_| true, division);
    sent.one("a season's start", rest, says("season 1"), "/l/1".into());

    // The ladder: a challenger who wins climbs, said in the ladder's channel.
    let challenge = public(bot, "brian", "ld", "/ladder challenge @aoife");
    let (starts, note) = split(challenge, |r| r.plain_text().contains("Game on!"));
    let thread = starts[0].channel.clone().unwrap();
    let ladder_game = format!("/g/{}", game_of(h, &starts[0]));
    sent.none(note);
    sent.one(
        "a ladder game's start",
        starts,
        |_| true,
        ladder_game.clone(),
    );
    opening(bot, thread.as_str(), ["aoife", "brian"]);
    let won = public(bot, "aoife", thread.as_str(), "/resign confirm");
    let (climbs, end) = split(won, |r| {
        r.channel.as_ref().is_some_and(|c| c.as_str() == "ld")
    });
    sent.one("a ladder game's end", end, says("Game over"), ladder_game);
    sent.one(
        "a ladder's change",
        climbs,
        says("climbs"),
        "/ladder/1".into(),
    );

    // The standings of each.
    for (line, channel, path) in [
        ("/tournament standings", "t", "/t/1"),
        ("/league standings", "lg", "/l/1"),
        ("/ladder show", "ld", "/ladder/1"),
    ] {
        let shown = send(bot, "aoife", channel, line);
        sent.one(line, shown, |_| true, path.into());
    }
    sent
}

/// `replies` parted: those `is` picks, and the others.
fn split(replies: Vec<Reply>, is: impl Fn(&Reply) -> bool) -> (Vec<Reply>, Vec<Reply>) {
    replies.into_iter().partition(|r| is(r))
}

/// The game a game's start announces (the one active in its channel).
fn game_of(h: &Harness, start: &Reply) -> i64 {
    let channel = start.channel.as_ref().expect("a start in its own place");
    active(&h.db(), channel.as_str()).expect("its game").id.0
}

/// Every owed message, read back from the outbox (as a later delivery reads them), by its
/// outbox id.
fn owed(h: &Harness) -> HashMap<MessageId, Reply> {
    h.bot.advance_clock(10 * 60_000);
    let mut all = HashMap::new();
    // A batch at a time; what this process holds already comes again, so until none is new.
    for _ in 0..100 {
        let before = all.len();
        for r in h.bot.undelivered(false) {
            all.insert(r.outbox.expect("an owed message"), r);
        }
        if all.len() == before {
            return all;
        }
    }
    panic!("the outbox never ran dry");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_message_links_its_page_when_the_server_is_on_the_web() {
    let mut h = Harness::new(false);
    // The address as an operator might write it, with a trailing slash.
    with_web_url(&mut h, Some("https://tara.example.org/"));
    web_setting(&h, "mod", true, true);
    let sent = messages(&h);
    for m in &sent.linked {
        let want = LinkButton {
            label: OPEN_ON_THE_WEB.into(),
            url: format!("{SITE}{}", m.path),
        };
        assert_eq!(m.reply.link.as_ref(), Some(&want), "{}", m.what);
        assert!(
            m.reply.web.is_none(),
            "{}: the page is made into the link",
            m.what
        );
    }
    // A private answer of a server on the web links too.
    let show = &sent
        .linked
        .iter()
        .find(|m| m.what == "/ladder show")
        .unwrap();
    assert!(show.reply.ephemeral && show.reply.link.is_some());
    // The game's end keeps its Rematch button: the link comes after it.
    let end = &sent
        .linked
        .iter()
        .find(|m| m.what == "game end")
        .unwrap()
        .reply;
    assert_eq!(end.buttons[0].label, "Rematch");
    // No other message links anything (a challenge, a move, a join).
    for r in &sent.others {
        assert_eq!(r.link, None, "{}", r.plain_text());
    }
    // The outbox keeps each owed message's link: delivered later, it carries it still.
    let stored = owed(&h);
    // (A read command's answer, `/game`, is not owed: it is answered at once or not at all.)
    let owed_links: Vec<_> = sent
        .linked
        .iter()
        .filter_map(|m| Some((m.reply.outbox?, m)))
        .collect();
    assert!(owed_links.len() >= 10, "{}", owed_links.len());
    for (id, m) in owed_links {
        let kept = stored.get(&id).map(|r| &r.link);
        assert_eq!(kept, Some(&m.reply.link), "{}", m.what);
    }
    // Each link is a page the web companion serves.
    let site = serve(&h).await;
    for m in &sent.linked {
        let url = format!("{site}{}", m.path);
        let status = reqwest::get(&url).await.unwrap().status().as_u16();
        assert_eq!(status, 200, "{}: {url}", m.what);
    }
}

#[test]
fn no_message_links_without_the_address_or_with_the_server_off_the_web() {
    // On the web, but the bot does not know the site's address; the address, but the server
    // never opted in; the address, and the server on the web and off again.
    for (url, web) in [
        (None, &[true][..]),
        (Some(SITE), &[]),
        (Some(SITE), &[true, false]),
    ] {
        let mut h = Harness::new(false);
        with_web_url(&mut h, url);
        for &on in web {
            web_setting(&h, "mod", true, on);
        }
        let sent = messages(&h);
        for m in &sent.linked {
            assert_eq!(m.reply.link, None, "{url:?} {web:?}: {}", m.what);
        }
        for r in sent.others.iter().chain(owed(&h).values()) {
            assert_eq!(r.link, None, "{url:?} {web:?}: {}", r.plain_text());
        }
    }
}

/// The console shows a link button as its address, after the other buttons.
#[test]
fn the_console_shows_the_link_as_its_address() {
    let mut h = Harness::new(false);
    with_web_url(&mut h, Some(SITE));
    let mut console = tara_bot::console::Console::new(&h.bot, "aoife", None);
    console.moderator = true;
    let mut run = |line: &str| console.line(line).0;
    let said = run("/settings web:true");
    assert!(said.contains("on the web companion"), "{said}");
    // The answer to `/settings` links the server's front page.
    assert!(
        said.contains(&format!("[Open on the web: {SITE}/s/")),
        "{said}"
    );
    run("/challenge @brian ard-ri first:me");
    run("/as brian");
    let said = run("/accept");
    assert!(
        said.contains(&format!("  [Open on the web: {SITE}/g/1]\n")),
        "{said}"
    );
    let said = run("/game id:1");
    assert!(
        said.contains(&format!("[Open on the web: {SITE}/g/1]")),
        "{said}"
    );
    // A server off the web: no link.
    let said = run("/settings web:false");
    assert!(!said.contains("Open on the web"), "{said}");
    let said = run("/game id:1");
    assert!(!said.contains("Open on the web"), "{said}");
}
