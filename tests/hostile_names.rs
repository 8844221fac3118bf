//! Names are text: a player named like a Markdown trap (a masked link, `@everyone`, a code
//! fence, bold) goes through every command that shows names, and every message the bot would
//! post on Discord shows the name as written, never as a link, bold text, a ping or the end of
//! a code block.

mod common;

use common::{player_moves, stays_text, texts, Harness, FENCE, NITRO};
use tara_bot::bot::{escape_code, escape_markdown, Clock, Command, Ctx, Reply, User};
use tara_bot::console::{parse_line, Action};
use tara_bot::game::Move;
use tara_bot::store::GameId;
use tara_bot::store::GameStatus;
use tara_bot::store::TournamentId;
use tara_bot::store::{ChannelId, ServerId};

const DAY: i64 = 86_400_000;

/// The name a test user goes by: `mal` and `fen` are the hostile ones.
fn name_of(id: &str) -> &str {
    match id {
        "mal" => NITRO,
        "fen" => FENCE,
        other => other,
    }
}

fn user(id: &str) -> User {
    User::new(id, name_of(id))
}

/// A console line as a command; a user option naming `mal` or `fen` carries their name, as
/// Discord's would.
fn command(line: &str) -> Command {
    let cmd = match parse_line(line) {
        Ok(Action::Run(c)) => c,
        other => panic!("{line}: {other:?}"),
    };
    let named = |u: Option<User>| u.map(|u| user(u.id.as_str()));
    match cmd {
        Command::Challenge {
            opponent,
            variant,
            scoring,
            first,
            days,
            is_match,
            rated,
            thread,
        } => Command::Challenge {
            opponent: named(opponent),
            variant,
            scoring,
            first,
            days,
            is_match,
            rated,
            thread,
        },
        Command::Profile { user } => Command::Profile { user: named(user) },
        Command::History {
            user,
            variant,
            page,
        } => Command::History {
            user: named(user),
            variant,
            page,
        },
        Command::TournamentWithdraw { player, id } => Command::TournamentWithdraw {
            player: named(player),
            id,
        },
        other => other,
    }
}

/// Every reply of the run, with the command that caused it.
struct Run {
    h: Harness,
    seen: Vec<(String, Reply)>,
}

impl Run {
    fn new() -> Run {
        Run {
            h: Harness::new(false),
            seen: Vec::new(),
        }
    }

    fn ctx(who: &str, channel: &str) -> Ctx {
        Ctx {
            server: ServerId::new("server"),
            channel: ChannelId::new(channel),
            user: user(who),
            moderator: who == "mona",
            manager: who == "mona",
            roles: Vec::new(),
        }
    }

    fn send_cmd(&mut self, who: &str, channel: &str, label: &str, cmd: Command) -> Vec<Reply> {
        let replies = self.h.bot.handle(&Run::ctx(who, channel), cmd);
        for r in &replies {
            self.seen
                .push((format!("{who} in {channel}: {label}"), r.clone()));
        }
        replies
    }

    /// Sends a console line as `who` in `channel`.
    fn send(&mut self, who: &str, channel: &str, line: &str) -> Vec<Reply> {
        self.send_cmd(who, channel, line, command(line))
    }

    /// Like [`Run::send`], and the command must be done (answered publicly).
    fn ok(&mut self, who: &str, channel: &str, line: &str) -> Vec<Reply> {
        let r = self.send(who, channel, line);
        assert!(
            r.iter().any(|r| !r.ephemeral),
            "{who}: {line}: {}",
            texts(&r)
        );
        r
    }

    /// Moves the clock on and lets the bot's timers run (reminders, time-outs, expiries).
    fn later(&mut self, ms: i64) {
        self.h.clock.advance_ms(ms);
        for r in self.h.bot.tick() {
            self.seen.push(("timers".into(), r));
        }
    }

    /// Plays `n` moves of a random legal game in `channel`'s game, by whoever is on move.
    fn moves(&mut self, channel: &str, n: usize) {
        let game = common::active(&self.h.db(), channel).expect("a game");
        for m in player_moves(game.options, 7).into_iter().take(n) {
            let (g, _, pos) = common::stored(&self.h.db(), game.id);
            let who = g.seats[pos.to_move().unwrap()].clone();
            self.ok(who.as_str(), channel, &m.to_string());
            assert_ne!(m, Move::Pass);
        }
    }

    /// The text of every reply whose command starts with `label` (every reply, the timers'
    /// too, for ""), as Discord shows it.
    fn shown(&self, label: &str) -> String {
        self.seen
            .iter()
            .filter(|(l, _)| {
                label.is_empty()
                    || l.split_once(": ")
                        .is_some_and(|(_, c)| c.starts_with(label))
            })
            .flat_map(|(_, r)| discord_texts(r))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// A user as the Discord adapter writes one: a mention (it shows the member's name, whatever
/// it holds, and pings only those listed in the message's allowed mentions).
fn mention(id: &str, _name: &str) -> String {
    format!("<@{id}>")
}

/// Every text of a reply that Discord would show: the message, the new text of a pressed
/// button's message, the text of a message whose buttons it retires, the note with a file.
fn discord_texts(r: &Reply) -> Vec<String> {
    let channel = |c: &str| format!("<#{c}>");
    let mut out = vec![r.markdown_with(mention, channel)];
    out.extend(r.pressed_text_with(mention, channel));
    out.extend(r.retire.as_ref().map(|t| t.text_with(mention, channel)));
    out.extend(r.document.as_ref().map(|d| d.note.clone()));
    out
}

#[test]
fn a_hostile_name_stays_text_through_every_command_that_shows_names() {
    let mut run = Run::new();
    // Challenges: by the name, to the name, declined, withdrawn, expired, open.
    run.ok(
        "mal",
        "c1",
        "/challenge opponent:bob variant:hkot-1 first:me",
    );
    run.ok("bob", "c1", "/decline");
    run.ok(
        "bob",
        "c1",
        "/challenge opponent:mal variant:hkot-1 first:me",
    );
    run.ok("bob", "c1", "/cancel");
    run.ok(
        "bob",
        "c3",
        "/challenge opponent:fen variant:sacred-hill-1 first:me",
    );
    run.later(8 * DAY);
    assert!(run.shown("").contains("has expired"), "{}", run.shown(""));
    // A two-game match, the hostile player second.
    run.ok(
        "bob",
        "c2",
        "/challenge opponent:mal variant:hkot-1 first:me match days:3",
    );
    run.ok("mal", "c2", "/accept");
    run.moves("c2", 3);
    for (who, line) in [
        ("bob", "/status"),
        ("bob", "/board"),
        ("bob", "/board ply:1"),
        ("bob", "/game id:1"),
        ("bob", "/record"),
        ("bob", "/games"),
        ("mal", "/games"),
        ("cat", "/live"),
        ("cat", "/profile user:bob"),
        ("cat", "/profile user:mal"),
        ("cat", "/export id:1"),
    ] {
        run.send(who, "c2", line);
    }
    // Draw offers and takebacks name the other player.
    run.ok("mal", "c2", "/draw");
    run.ok("bob", "c2", "/draw answer:decline");
    run.ok("bob", "c2", "/takeback");
    run.ok("mal", "c2", "/takeback answer:allow");
    // Reminders, then the end of game 1 and the start of game 2.
    run.later(2 * DAY + DAY / 2);
    run.ok("bob", "c2", "/resign confirm");
    let game = common::active(&run.h.db(), "c2").expect("game 2 of the match");
    assert_eq!(game.match_game, Some(2));
    run.moves("c2", 2);
    for (who, line) in [
        ("bob", "/status"),
        ("cat", "/profile user:bob"),
        ("bob", "/history user:mal"),
        ("mal", "/history"),
        ("cat", "/leaderboard variant:hkot-1"),
        ("cat", "/replay id:1"),
        ("cat", "/game id:1"),
        ("cat", "/analyse id:1 level:3"),
    ] {
        run.send(who, "c2", line);
    }
    // Game 2 times out: the match is over; a rematch.
    run.later(4 * DAY);
    run.ok("bob", "c2", "/rematch");
    run.ok("mal", "c2", "/decline");
    // An open challenge by the name; a moderator ends the game with a reason in the same vein.
    run.ok("mal", "c4", "/challenge variant:ard-ri first:me");
    run.ok("bob", "c4", "/accept");
    run.ok("mona", "c4", &format!("/abort reason:\"{NITRO} <@123>\""));
    run.send("mona", "c4", "/audit");
    run.send("mal", "c5", "/vacation days:2 confirm");
    // A round robin named like the name, played to the end.
    run.ok(
        "mona",
        "t",
        &format!("/tournament create name:\"{NITRO}\" variant:hkot-1 system:round-robin"),
    );
    for p in ["mal", "fen", "bob"] {
        run.ok(p, "t", "/tournament join");
    }
    run.ok("mona", "t", "/tournament start");
    for line in [
        "/tournament info",
        "/tournament pairings",
        "/tournament standings",
        "/tournament list",
        "/tournament export",
    ] {
        run.send("cat", "t", line);
    }
    let mut s = tara_bot::store::Store::open(run.h.db()).unwrap();
    let pairings = s.read(|tx| tx.pairings(TournamentId(1), None)).unwrap();
    for (k, p) in pairings.iter().enumerate() {
        let (Some(key), Some(p1)) = (p.thread_key.clone(), p.player1.clone()) else {
            continue;
        };
        if k == 0 {
            run.send(p.player0.as_str(), &key, "/status");
            run.send(p.player0.as_str(), &key, "/record");
        }
        run.ok(p1.as_str(), &key, "/resign confirm");
    }
    run.send("cat", "t", "/tournament standings");
    run.send("cat", "t", "/tournament pairings round:1");
    // A Swiss with a withdrawal, called off.
    run.ok(
        "mona",
        "t2",
        "/tournament create name:Swiss variant:hkot-1 system:swiss",
    );
    for p in ["mal", "fen", "bob", "cat"] {
        run.ok(p, "t2", "/tournament join");
    }
    run.ok("mona", "t2", "/tournament start");
    run.ok("mona", "t2", "/tournament withdraw player:fen");
    run.send("cat", "t2", "/tournament standings");
    run.ok("mona", "t2", "/tournament cancel");
    run.send("mona", "t2", "/audit");

    // Every text the bot would post stays text.
    assert!(run.seen.len() > 60, "{}", run.seen.len());
    let mut broken = Vec::new();
    for (label, r) in &run.seen {
        for text in discord_texts(r) {
            if let Err(e) = stays_text(&text) {
                broken.push(format!("{label}: {e}"));
            }
        }
        assert!(
            r.mentions.iter().all(|m| m != "everyone" && m != "here"),
            "{label}: {:?}",
            r.mentions
        );
    }
    assert!(broken.is_empty(), "{}", broken.join("\n\n"));
    // ... and shows the names as written: escaped in text, their backticks apart in code.
    let text_name = escape_markdown(NITRO);
    let code_name = escape_code(NITRO);
    assert_eq!(
        code_name,
        "[Nitro](https://evil.example) @everyone `\u{200D}`\u{200D}` **x**"
    );
    // Issue 28: the profile's games in progress.
    let profile = run.shown("/profile user:bob");
    assert!(
        profile.contains(&format!("#1 hkot-1 vs {text_name} · ")),
        "{profile}"
    );
    let record = run.shown("/record");
    assert!(
        record.contains(&format!("```\n# game 1 · Red bob vs Blue {code_name}\n")),
        "{record}"
    );
    for shows in ["/status", "/board", "/game id:1", "/tournament info"] {
        let t = run.shown(shows);
        assert!(t.contains(&text_name), "{shows}: {t}");
    }
    let standings = run.shown("/tournament standings");
    assert!(
        standings.contains(&escape_code(&FENCE.chars().take(24).collect::<String>())),
        "{standings}"
    );
    assert!(
        run.shown("/tournament export").contains(&code_name),
        "{}",
        run.shown("/tournament export")
    );
    // The record file itself holds the names exactly.
    let rec = run
        .seen
        .iter()
        .find(|(l, r)| l.ends_with("/export id:1") && r.document.is_some())
        .and_then(|(_, r)| r.document.clone())
        .unwrap();
    assert!(
        rec.text.contains(&format!("vs Blue {NITRO}\n")),
        "{}",
        rec.text
    );
    let g1 = common::stored(&run.h.db(), GameId(1)).0;
    assert_eq!(g1.status, GameStatus::Finished);
}

/// The console shows names as written, in code blocks too: what [`escape_code`] puts between
/// backticks goes again.
#[test]
fn the_console_shows_a_hostile_name_as_written() {
    let mut run = Run::new();
    run.ok(
        "bob",
        "c",
        "/challenge opponent:mal variant:hkot-1 first:me",
    );
    run.ok("mal", "c", "/accept");
    let rec = run.send("bob", "c", "/record");
    let terminal = rec[0].terminal_text_with(|_, n| format!("@{n}"), |c| format!("#{c}"));
    assert!(
        terminal.contains(&format!("```\n# game 1 · Red bob vs Blue {NITRO}\n")),
        "{terminal}"
    );
    let board = run.send("bob", "c", "/board");
    let terminal = board[0].terminal_text_with(|_, n| format!("@{n}"), |c| format!("#{c}"));
    assert!(
        terminal.contains(&format!("Red bob vs Blue {NITRO} · ")),
        "{terminal}"
    );
}
