//! Whole tournaments through the bot core, typed as console lines: a 5-player round robin, a
//! 5-player knockout with a decider, a restart mid-round, and two games ending at once. The
//! standings are checked against values worked out by hand in the comments.

#[path = "../common/mod.rs"]
mod common;

use common::{texts, Harness};
use std::sync::Arc;
use tara_bot::bot::{Bot, Command, Ctx, Reply, User};
use tara_bot::cli::tournament::{tournament_standings, tournament_trf};
use tara_bot::console::{parse_line, Action};
use tara_bot::store::TournamentId;
use tara_bot::store::UserId;
use tara_bot::store::{ChannelId, ServerId};
use tara_bot::store::{PairingRow, Store, TournamentStatus};
use tara_bot::tournament::{Code, Colour, Points, RoundEntry, Trf};

const CHANNEL: &str = "tournaments";
const PLAYERS: [&str; 5] = ["aoife", "brian", "ciara", "donal", "eimear"];

fn ctx(who: &str, channel: &str, moderator: bool) -> Ctx {
    Ctx {
        server: ServerId::new("server"),
        channel: ChannelId::new(channel),
        user: User::new(who, who),
        moderator,
        manager: false,
        roles: Vec::new(),
    }
}

fn command(line: &str) -> Command {
    match parse_line(line) {
        Ok(Action::Run(c)) => c,
        other => panic!("{line}: {other:?}"),
    }
}

/// Sends a console line as `who` in `channel`; panics on a private refusal.
fn ok(bot: &Bot, who: &str, channel: &str, line: &str) -> Vec<Reply> {
    let r = bot.handle(&ctx(who, channel, who == "mod"), command(line));
    assert!(
        r.iter().all(|r| !r.ephemeral) || line.contains("info") || line.contains("pairings"),
        "{line}: {}",
        texts(&r)
    );
    r
}

fn pairings(db: &std::path::Path, round: Option<u32>) -> Vec<PairingRow> {
    let mut s = Store::open(db).unwrap();
    s.read(|tx| tx.pairings(TournamentId(1), round)).unwrap()
}

fn status(db: &std::path::Path) -> TournamentStatus {
    let mut s = Store::open(db).unwrap();
    s.read(|tx| tx.tournament(TournamentId(1)))
        .unwrap()
        .unwrap()
        .status
}

/// Creates tournament 1 with the five players signed up in order (all unrated: seeded 1500, so
/// by sign-up: aoife 1, brian 2, ciara 3, donal 4, eimear 5) and starts it.
fn setup(h: &Harness, create: &str) -> Vec<Reply> {
    setup_players(h, create, &PLAYERS)
}

/// [`setup`] with `players` signed up in order; the start's replies.
fn setup_players(h: &Harness, create: &str, players: &[&str]) -> Vec<Reply> {
    ok(&h.bot, "mod", CHANNEL, create);
    for p in players {
        ok(&h.bot, p, CHANNEL, "/tournament join");
    }
    ok(&h.bot, "mod", CHANNEL, "/tournament start")
}

/// Runs `tara-bot` with `args`, which must succeed; its standard output.
fn cli(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Plays a pairing's current game to `result`: "0" (player 0 wins: player 1 resigns), "1", or
/// "draw" (agreed).
fn play(bot: &Bot, p: &PairingRow, result: &str) -> Vec<Reply> {
    let ch = p
        .thread_key
        .clone()
        .expect("a started pairing has a thread");
    let p1 = p.player1.clone().unwrap();
    if result != "draw" {
        opening(bot, &ch, [p.player0.as_str(), p1.as_str()]);
    }
    match result {
        "0" => ok(bot, p1.as_str(), &ch, "/resign confirm"),
        "1" => ok(bot, p.player0.as_str(), &ch, "/resign confirm"),
        _ => {
            ok(bot, p.player0.as_str(), &ch, "/draw");
            ok(bot, p1.as_str(), &ch, "/draw accept")
        }
    }
}

/// Each player makes a first move (the first the bot offers), so that a resignation is a loss
/// over the board, not a forfeit (docs/rules.md §9).
fn opening(bot: &Bot, channel: &str, players: [&str; 2]) {
    for _ in 0..2 {
        let (who, m) = players
            .iter()
            .find_map(|p| {
                let offered = bot.autocomplete_move(&ctx(p, channel, false), "");
                offered.first().map(|m| (*p, m.clone()))
            })
            .expect("a player to move");
        ok(bot, who, channel, &format!("/move {m}"));
    }
}

fn seed(name: &str) -> usize {
    PLAYERS.iter().position(|p| *p == name).unwrap()
}

#[test]
fn a_five_player_round_robin_runs_to_the_end() {
    let h = Harness::new(false);
    let start = setup(&h, "/tournament create Spring hkot-1 round-robin match:no");
    // All at once: ten games in ten threads, each opened by its first message (naming its
    // players without pinging them), then one message pinging each player once, with links
    // to all of their games (five rounds; each player has one bye).
    let threads: Vec<&Reply> = start.iter().filter(|r| r.thread.is_some()).collect();
    assert_eq!(threads.len(), 10, "{}", texts(&start));
    let first = threads[0];
    assert_eq!(first.thread.as_ref().unwrap().parent, CHANNEL);
    assert_eq!(first.thread.as_ref().unwrap().name, "R1 · brian vs eimear");
    assert!(
        threads.iter().all(|t| t.mentions.is_empty()),
        "no pings in the threads"
    );
    assert!(first.plain_text().contains("@brian vs @eimear"));
    let pinging: Vec<&Reply> = start.iter().filter(|r| !r.mentions.is_empty()).collect();
    assert_eq!(pinging.len(), 1, "{}", texts(&start));
    let games = pinging[0];
    assert_eq!(games.channel.as_ref().map(ChannelId::as_str), Some(CHANNEL));
    assert_eq!(games.mentions, PLAYERS, "{}", games.plain_text());
    let text = games.plain_text();
    assert!(
        text.contains("all 10 games at once, each in its thread. Your games:"),
        "{text}"
    );
    let aoife = text.lines().find(|l| l.starts_with("@aoife:")).unwrap();
    assert_eq!(aoife.matches("#t1-r").count(), 4, "{aoife}");
    assert!(aoife.contains("a bye in round"), "{aoife}");
    let all = pairings(&h.db(), None);
    assert_eq!(all.len(), 15);
    assert_eq!(all.iter().filter(|p| p.player1.is_none()).count(), 5);
    assert!(all
        .iter()
        .filter(|p| p.player1.is_some())
        .all(|p| p.game_id.is_some()));

    // The results (seed order a < b < c < d < e): the better seed wins every game except
    // c beats a (an upset) and b draws with d.
    let mut last = Vec::new();
    for p in all.iter().filter(|p| p.player1.is_some()) {
        let (x, y) = (
            seed(p.player0.as_str()),
            seed(p.player1.as_ref().map(UserId::as_str).unwrap()),
        );
        let r = match (x.min(y), x.max(y)) {
            (0, 2) => {
                if x == 2 {
                    "0"
                } else {
                    "1"
                }
            }
            (1, 3) => "draw",
            _ => {
                if x < y {
                    "0"
                } else {
                    "1"
                }
            }
        };
        last = play(&h.bot, p, r);
    }
    assert_eq!(status(&h.db()), TournamentStatus::Finished);
    // Scores: a 3 (b, d, e), b 2½ (c, e, ½ d), c 3 (a, d, e), d 1½ (½ b, e), e 0.
    // Sonneborn-Berger: c = a 3 + d 1½ + e 0 = 4½; a = b 2½ + d 1½ + e 0 = 4;
    // b = c 3 + e 0 + ½ × d 1½ = 3¾; d = ½ × b 2½ + e 0 = 1¼; e = 0.
    // So c is first (3, SB 4½), a second (3, SB 4), then b, d, e.
    let rows = tournament_standings(&mut Store::open(h.db()).unwrap(), TournamentId(1)).unwrap();
    let got: Vec<(u32, &str, f64, f64, u32)> = rows
        .iter()
        .map(|r| {
            (
                r.rank,
                r.player.as_str(),
                r.score,
                r.sonneborn_berger,
                r.wins,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (1, "ciara", 3.0, 4.5, 3),
            (2, "aoife", 3.0, 4.0, 3),
            (3, "brian", 2.5, 3.75, 2),
            (4, "donal", 1.5, 1.25, 1),
            (5, "eimear", 0.0, 0.0, 0),
        ]
    );
    // The end: the winner announced, each participant pinged once, in the tournament channel.
    let end = last
        .iter()
        .find(|r| r.plain_text().contains("is over"))
        .expect("the final message");
    assert_eq!(end.channel.as_ref().map(ChannelId::as_str), Some(CHANNEL));
    assert!(
        end.plain_text().contains("The winner is @ciara"),
        "{}",
        end.plain_text()
    );
    let mut pinged = end.mentions.clone();
    pinged.sort();
    assert_eq!(pinged, {
        let mut p: Vec<String> = PLAYERS.iter().map(|s| s.to_string()).collect();
        p.sort();
        p
    });
    // The TRF-16 export reads back: five players, XXR 5, c with 3 points.
    let trf =
        Trf::parse(&tournament_trf(&mut Store::open(h.db()).unwrap(), TournamentId(1)).unwrap())
            .unwrap();
    assert_eq!(trf.total_rounds, Some(5));
    assert_eq!(trf.players.len(), 5);
    assert_eq!(trf.players[2].name, "ciara");
    assert_eq!(trf.players[2].points.as_f64(), 3.0);
    // The machine contracts: the same standings as JSON lines, the TRF on stdout.
    let db = h.db().display().to_string();
    let json = cli(&["tournament", "standings", "--db", &db, "1", "--json"]);
    let lines: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0]["rank"], 1);
    assert_eq!(lines[0]["player"], "ciara");
    assert_eq!(lines[0]["score"], 3.0);
    assert_eq!(lines[0]["sonneborn_berger"], 4.5);
    assert_eq!(lines[0]["wins"], 3);
    assert_eq!(lines[0]["rating"], 1500);
    // Buchholz (docs/rules.md §10: standings), ciara: opponents' scores a 3 + b 2½ + d 1½ + e 0 =
    // 7, plus her own 3 for her bye = 10; Cut-1 drops the lowest term (e's 0): 10.
    assert_eq!(lines[0]["buchholz"], 10.0);
    assert_eq!(lines[0]["buchholz_cut1"], 10.0);
    // Without --json: the same fields, in docs/cli.md's order, separated by tabs.
    let tabs = cli(&["tournament", "standings", "--db", &db, "1"]);
    let fields = [
        "rank",
        "player",
        "id",
        "score",
        "buchholz_cut1",
        "buchholz",
        "sonneborn_berger",
        "wins",
        "rating",
    ];
    assert_eq!(tabs.lines().count(), lines.len());
    for (line, object) in tabs.lines().zip(&lines) {
        let cells: Vec<&str> = line.split('\t').collect();
        assert_eq!(cells.len(), fields.len(), "{line}");
        for (cell, key) in cells.iter().zip(fields) {
            match &object[key] {
                serde_json::Value::String(s) => assert_eq!(cell, s, "{key} in {line}"),
                v => assert_eq!(cell.parse::<f64>().ok(), v.as_f64(), "{key} in {line}"),
            }
        }
    }
    assert!(cli(&["tournament", "export", "--db", &db, "1"]).contains("XXR 5"));
    let missing = std::process::Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .args(["tournament", "standings", "--db", &db, "7", "--json"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no tournament 7"));
    // Nothing more to play, and standings are shown to anyone.
    let s = ok(&h.bot, "eimear", CHANNEL, "/tournament standings");
    assert!(s[0].plain_text().contains("final standings; winner ciara"));
}

#[test]
fn a_five_player_knockout_with_a_decider_runs_to_the_end() {
    let h = Harness::new(false);
    setup(&h, "/tournament create Cup hkot-1 knockout");
    // The bracket of eight for five seeds: 1 v 8 (bye), 4 v 5, 2 v 7 (bye), 3 v 6 (bye).
    let r1 = pairings(&h.db(), Some(1));
    assert_eq!(r1.len(), 4);
    assert_eq!(r1.iter().filter(|p| p.player1.is_none()).count(), 3);
    let de = r1.iter().find(|p| p.player1.is_some()).unwrap().clone();
    assert_eq!(
        (de.player0.as_str(), de.player1.as_ref().map(UserId::as_str)),
        ("donal", Some("eimear"))
    );
    // Two drawn games: level on points, so a decider, which eimear wins.
    let r = play(&h.bot, &de, "draw");
    assert!(texts(&r).contains("match game 2 of 2"), "{}", texts(&r));
    let r = play(&h.bot, &de, "draw");
    assert!(texts(&r).contains("decider"), "{}", texts(&r));
    // The decider is announced as one, not as a third game "of 2".
    assert!(
        texts(&r).contains("match game 3, a decider") && !texts(&r).contains("3 of 2"),
        "{}",
        texts(&r)
    );
    assert!(
        pairings(&h.db(), Some(2)).is_empty(),
        "no round 2 before the tie is decided"
    );
    play(&h.bot, &de, "1");
    // Round 2: aoife v eimear, brian v ciara (seeds 1 v 5 and 2 v 3, in bracket order).
    let r2 = pairings(&h.db(), Some(2));
    let ties: Vec<(&str, &str)> = r2
        .iter()
        .map(|p| {
            (
                p.player0.as_str(),
                p.player1.as_ref().map(UserId::as_str).unwrap(),
            )
        })
        .collect();
    assert_eq!(ties, vec![("aoife", "eimear"), ("brian", "ciara")]);
    // aoife wins both games of her tie; ciara both of hers.
    for _ in 0..2 {
        play(&h.bot, &r2[0], "0");
        play(&h.bot, &r2[1], "1");
    }
    let r3 = pairings(&h.db(), Some(3));
    assert_eq!(r3.len(), 1);
    assert_eq!(r3[0].player0, "aoife");
    play(&h.bot, &r3[0], "0");
    let last = play(&h.bot, &r3[0], "0");
    assert_eq!(status(&h.db()), TournamentStatus::Finished);
    assert!(texts(&last).contains("The winner is @aoife"));
    // Rounds reached: aoife won the final (4), ciara lost it (3), brian and eimear lost in
    // round 2 (2; both seeded 1500, so they share third place), donal lost in round 1 (1).
    let rows = tournament_standings(&mut Store::open(h.db()).unwrap(), TournamentId(1)).unwrap();
    let got: Vec<(u32, &str)> = rows.iter().map(|r| (r.rank, r.player.as_str())).collect();
    assert_eq!(
        got,
        vec![
            (1, "aoife"),
            (2, "ciara"),
            (3, "brian"),
            (3, "eimear"),
            (5, "donal")
        ]
    );
}

#[test]
fn a_restart_mid_round_loses_and_doubles_nothing() {
    let mut h = Harness::new(false);
    setup(
        &h,
        "/tournament create Slow ard-ri round-robin pace:by-round",
    );
    let r1 = pairings(&h.db(), Some(1));
    let games: Vec<&PairingRow> = r1.iter().filter(|p| p.player1.is_some()).collect();
    assert_eq!(games.len(), 2);
    assert!(pairings(&h.db(), Some(2))
        .iter()
        .all(|p| p.game_id.is_none()));
    play(&h.bot, games[0], "0");
    // A new process on the same file: nothing restarts, nothing is lost.
    h.restart();
    let before = pairings(&h.db(), None);
    assert_eq!(before.iter().filter(|p| p.game_id.is_some()).count(), 2);
    play(&h.bot, games[1], "draw");
    let after = pairings(&h.db(), None);
    // Round 2 started once: its two games, and nothing else.
    assert_eq!(after.iter().filter(|p| p.game_id.is_some()).count(), 4);
    let r2 = pairings(&h.db(), Some(2));
    assert_eq!(r2.iter().filter(|p| p.game_id.is_some()).count(), 2);
    // Another restart changes nothing either.
    h.restart();
    h.bot.tick();
    assert_eq!(pairings(&h.db(), None), after);
}

#[test]
fn two_games_ending_at_once_start_the_next_round_once() {
    let h = Harness::new(false);
    setup(
        &h,
        "/tournament create Race hkot-1 round-robin pace:by-round",
    );
    let r1 = pairings(&h.db(), Some(1));
    let games: Vec<PairingRow> = r1.into_iter().filter(|p| p.player1.is_some()).collect();
    // A second process on the same file; each ends one of the round's two games at once.
    let other =
        Arc::new(Bot::new(Store::open(h.db()).unwrap(), h.clock.clone(), 9).with_images(false));
    std::thread::scope(|s| {
        let a = s.spawn(|| play(&h.bot, &games[0], "0"));
        let b = s.spawn(|| play(&other, &games[1], "1"));
        a.join().unwrap();
        b.join().unwrap();
    });
    let r2 = pairings(&h.db(), Some(2));
    assert_eq!(r2.iter().filter(|p| p.game_id.is_some()).count(), 2);
    // One game per started pairing, never two.
    let mut s = Store::open(h.db()).unwrap();
    for p in pairings(&h.db(), None)
        .iter()
        .filter(|p| p.game_id.is_some())
    {
        let n = s.read(|tx| tx.pairing_games(p.id)).unwrap().len();
        assert_eq!(n, 1, "round {} board {}", p.round, p.board);
    }
}

#[test]
fn bad_tournament_commands_get_clear_answers() {
    let h = Harness::new(false);
    let r = h.bot.handle(
        &ctx("aoife", CHANNEL, false),
        command("/tournament create Mine hkot-1 knockout"),
    );
    assert!(r[0].ephemeral && r[0].plain_text().contains("Only moderators"));
    ok(
        &h.bot,
        "mod",
        CHANNEL,
        "/tournament create Cup ard-ri knockout max-players:2",
    );
    ok(&h.bot, "aoife", CHANNEL, "/tournament join");
    let r = h
        .bot
        .handle(&ctx("aoife", CHANNEL, false), command("/tournament join"));
    assert!(r[0].plain_text().contains("already signed up"));
    let r = h
        .bot
        .handle(&ctx("brian", CHANNEL, false), command("/tournament start"));
    assert!(r[0].plain_text().contains("Only the organiser"));
    let r = h
        .bot
        .handle(&ctx("mod", CHANNEL, true), command("/tournament start"));
    assert!(r[0].plain_text().contains("at least two players"));
    ok(&h.bot, "brian", CHANNEL, "/tournament join");
    let r = h
        .bot
        .handle(&ctx("ciara", CHANNEL, false), command("/tournament join"));
    assert!(r[0].plain_text().contains("is full"));
    let r = h.bot.handle(
        &ctx("ciara", "elsewhere", false),
        command("/tournament info id:9"),
    );
    assert!(r[0].plain_text().contains("no tournament #9"));
    assert!(parse_line("/tournament frobnicate").is_err());
    let r = h.bot.handle(
        &ctx("mod", CHANNEL, true),
        command("/tournament create X hkot-1 knockout pace:by-round"),
    );
    assert!(r[0].plain_text().contains("for round robins"));
    // More players than the format takes are refused at creation, not when the table fills.
    let r = h.bot.handle(
        &ctx("mod", CHANNEL, true),
        command("/tournament create Y hkot-1 round-robin max-players:65"),
    );
    assert!(
        r[0].ephemeral
            && r[0].plain_text().contains(
                "A round robin takes at most 64 players, so `max-players` can be at most 64"
            ),
        "{}",
        r[0].plain_text()
    );
    // Once started, a knockout takes nobody late (docs/rules.md §10 allows it for a Swiss only).
    ok(&h.bot, "mod", CHANNEL, "/tournament start id:1");
    let r = h.bot.handle(
        &ctx("ciara", CHANNEL, false),
        command("/tournament join id:1"),
    );
    assert!(
        r[0].plain_text()
            .contains("a knockout's bracket is fixed at the start: it takes no late entries"),
        "{}",
        r[0].plain_text()
    );
}

#[test]
fn timeouts_before_a_first_move_are_forfeits_and_two_withdraw_a_player() {
    let h = Harness::new(false);
    setup_players(
        &h,
        "/tournament create Clock hkot-2 round-robin days:1",
        &PLAYERS[..3],
    );
    // Three players, all at once: three games, each with a bye beside it. Nobody moves.
    let games: Vec<PairingRow> = pairings(&h.db(), None)
        .into_iter()
        .filter(|p| p.player1.is_some())
        .collect();
    assert_eq!(games.len(), 3);
    h.bot.advance_clock(2 * 24 * 3_600_000);
    let out = h.bot.tick();
    assert!(
        texts(&out).contains("before a first move: a forfeit"),
        "{}",
        texts(&out)
    );
    let after = pairings(&h.db(), None);
    let mut s = Store::open(h.db()).unwrap();
    let entrants = s.read(|tx| tx.entrants(TournamentId(1))).unwrap();
    for e in &entrants {
        // Each player moves first (player 0) in the games the table gives them first.
        let first = games.iter().filter(|p| p.player0 == e.user_id).count() as u32;
        assert!(e.forfeits <= first, "{}", e.user_id);
        assert_eq!(e.withdrawn_at.is_some(), e.forfeits >= 2, "{}", e.user_id);
    }
    // Every game is a forfeit: unplayed and unrated; the tournament is over.
    for p in after.iter().filter(|p| p.player1.is_some()) {
        use tara_bot::store::PairingResult::*;
        assert!(matches!(p.result, Some(Forfeit0) | Some(Forfeit1)), "{p:?}");
        for g in s.read(|tx| tx.pairing_games(p.id)).unwrap() {
            assert!(!g.rated, "game {} is a forfeit, so unrated", g.id);
        }
    }
    assert_eq!(status(&h.db()), TournamentStatus::Finished);
    // Forfeits count as unplayed: no wins over the board, and each Buchholz term is the
    // player's own score.
    for r in tournament_standings(&mut s, TournamentId(1)).unwrap() {
        assert_eq!(r.wins, 0);
        assert_eq!(r.buchholz, r.score * 3.0, "{}", r.player);
    }
}

#[test]
fn a_withdrawn_player_is_not_paired_again() {
    let h = Harness::new(false);
    setup(
        &h,
        "/tournament create Quit sacred-hill-2 round-robin pace:by-round",
    );
    // eimear withdraws herself in round 1: her game (if any) is resigned as a forfeit, and
    // every later pairing of hers is a forfeit when its round starts.
    let r = ok(&h.bot, "eimear", CHANNEL, "/tournament withdraw");
    assert!(texts(&r).contains("withdrawn"), "{}", texts(&r));
    let r = h.bot.handle(
        &ctx("eimear", CHANNEL, false),
        command("/tournament withdraw"),
    );
    assert!(r[0].plain_text().contains("already withdrawn"));
    // Play every remaining game: player 0 wins.
    for _ in 0..10 {
        let open: Vec<PairingRow> = pairings(&h.db(), None)
            .into_iter()
            .filter(|p| p.result.is_none() && p.game_id.is_some())
            .collect();
        let Some(p) = open.first() else { break };
        play(&h.bot, p, "0");
    }
    assert_eq!(status(&h.db()), TournamentStatus::Finished);
    let all = pairings(&h.db(), None);
    let hers: Vec<&PairingRow> = all
        .iter()
        .filter(|p| {
            p.player1.is_some()
                && (p.player0 == "eimear"
                    || p.player1.as_ref().map(UserId::as_str) == Some("eimear"))
        })
        .collect();
    assert_eq!(hers.len(), 4);
    let mut s = Store::open(h.db()).unwrap();
    for p in hers {
        use tara_bot::store::PairingResult::*;
        let expected = if p.player0 == "eimear" {
            Forfeit0
        } else {
            Forfeit1
        };
        assert_eq!(p.result, Some(expected));
        // Never a game with her after the withdrawal: at most the one in progress then.
        let games = s.read(|tx| tx.pairing_games(p.id)).unwrap();
        assert!(
            p.round == 1 || games.is_empty(),
            "round {} has a game",
            p.round
        );
    }
}

const SIX: [&str; 6] = ["aoife", "brian", "ciara", "donal", "eimear", "fionn"];

/// The pairings of a round as `(first mover, opponent or "bye", result)`.
/// Tournament 1's standings as (rank, player, score, Buchholz Cut-1, Buchholz,
/// Sonneborn-Berger, wins).
type StandingRow = (u32, String, f64, f64, f64, f64, u32);

fn standing_rows(s: &mut Store) -> Vec<StandingRow> {
    tournament_standings(s, TournamentId(1))
        .unwrap()
        .into_iter()
        .map(|r| {
            (
                r.rank,
                r.player,
                r.score,
                r.buchholz_cut1,
                r.buchholz,
                r.sonneborn_berger,
                r.wins,
            )
        })
        .collect()
}

fn round_of(db: &std::path::Path, round: u32) -> Vec<(UserId, UserId)> {
    pairings(db, Some(round))
        .into_iter()
        .map(|p| (p.player0, p.player1.unwrap_or_else(|| UserId::new("bye"))))
        .collect()
}

#[test]
fn a_six_player_swiss_with_a_bye_a_forfeit_a_withdrawal_and_a_restart() {
    let mut h = Harness::new(false);
    ok(
        &h.bot,
        "mod",
        CHANNEL,
        "/tournament create Open hkot-1 swiss rounds:3 days:1",
    );
    for p in SIX {
        ok(&h.bot, p, CHANNEL, "/tournament join");
    }
    let start = ok(&h.bot, "mod", CHANNEL, "/tournament start");
    assert!(
        texts(&start).contains("6 players, 3 rounds"),
        "{}",
        texts(&start)
    );
    // Unrated, so seeded by sign-up: a 1, b 2, c 3, d 4, e 5, f 6. Round 1 of the Dutch
    // system: the top half meets the bottom half, 1–4, 2–5, 3–6; the top player's colour is
    // drawn by lot and alternates down the boards.
    let r1 = pairings(&h.db(), Some(1));
    let pairs: Vec<[UserId; 2]> = r1
        .iter()
        .map(|p| {
            let mut v = [p.player0.clone(), p.player1.clone().unwrap()];
            v.sort();
            v
        })
        .collect();
    assert_eq!(
        pairs,
        [["aoife", "donal"], ["brian", "eimear"], ["ciara", "fionn"]]
    );
    let aoife_first = r1[0].player0 == "aoife";
    assert_eq!(r1[1].player0 == "brian", !aoife_first);
    assert_eq!(r1[2].player0 == "ciara", aoife_first);
    // One thread per pairing; the round message pings that round's six players.
    assert_eq!(start.iter().filter(|r| r.thread.is_some()).count(), 3);
    let round_msg = start.last().unwrap();
    assert_eq!(
        round_msg.channel.as_ref().map(ChannelId::as_str),
        Some(CHANNEL)
    );
    assert_eq!(round_msg.mentions.len(), 6, "{}", round_msg.plain_text());
    assert_eq!(round_of(&h.db(), 1).len(), 3);

    // Round 1: a beats d; b and e draw; on board 3 nobody moves and the first mover's clock
    // runs out before a first move: a forfeit (c scores 1 if f moved first).
    let by_pair = |r: &[PairingRow], a: &str| {
        r.iter()
            .find(|p| p.player0 == a || p.player1.as_ref().map(UserId::as_str) == Some(a))
            .cloned()
            .unwrap()
    };
    let ad = by_pair(&r1, "aoife");
    play(&h.bot, &ad, if ad.player0 == "aoife" { "0" } else { "1" });
    play(&h.bot, &by_pair(&r1, "brian"), "draw");
    assert!(
        pairings(&h.db(), Some(2)).is_empty(),
        "round 2 waits for board 3"
    );
    h.bot.advance_clock(2 * 24 * 3_600_000);
    let out = h.bot.tick();
    assert!(texts(&out).contains("a forfeit"), "{}", texts(&out));
    // The forfeit ends round 1: round 2's message goes to the tournament's channel, not to
    // the forfeited game's thread.
    let round_2 = out
        .iter()
        .find(|r| r.plain_text().contains("round 2") && r.thread.is_none())
        .expect("round 2's message");
    assert_eq!(
        round_2.channel.as_ref().map(ChannelId::as_str),
        Some(CHANNEL)
    );
    let cf = by_pair(&pairings(&h.db(), Some(1)), "ciara");
    let forfeiter = cf.player0.clone();
    assert!(matches!(
        cf.result,
        Some(tara_bot::store::PairingResult::Forfeit0)
    ));
    // The forfeit goes to whoever moved first on board 3; the test's hand values below take
    // f as that player (the lot of the seeded bot). Scores after round 1: a 1, c 1 (a win
    // without play), b ½, e ½, d 0, f 0.
    assert_eq!(
        forfeiter, "fionn",
        "the seeded lot gives aoife the second move"
    );

    // Round 2, paired by the result that ended round 1 (the Dutch system, no rematches):
    // a–c in the top group, then f–b and e–d.
    let r2 = pairings(&h.db(), Some(2));
    assert_eq!(
        round_of(&h.db(), 2),
        [
            (UserId::new("aoife"), UserId::new("ciara")),
            (UserId::new("fionn"), UserId::new("brian")),
            (UserId::new("eimear"), UserId::new("donal"))
        ]
    );
    play(&h.bot, &r2[0], "0"); // a beats c
                               // A restart mid-round: a new bot on the same file.
    h.restart();
    assert!(pairings(&h.db(), Some(3)).is_empty());
    // b is withdrawn with his game in progress: it is resigned (f wins over the board, both
    // having moved in it), and b is not paired again.
    let fb = &r2[1];
    let fb_players = [
        fb.player0.as_str(),
        fb.player1.as_ref().map(UserId::as_str).unwrap(),
    ];
    opening(&h.bot, fb.thread_key.as_deref().unwrap(), fb_players);
    let out = ok(&h.bot, "mod", CHANNEL, "/tournament withdraw brian");
    assert!(texts(&out).contains("is resigned"), "{}", texts(&out));
    // The export now: b's round 3 is entered absent in advance (0000 - Z); e–d's game, still
    // in progress, is blank. With that game written in as the draw it is about to be, `pair
    // --dutch` pairs round 3 from the file as the bot will (checked below), b left out.
    let exported = tournament_trf(&mut Store::open(h.db()).unwrap(), TournamentId(1)).unwrap();
    let mut trf = Trf::parse(&exported).unwrap();
    let absent = RoundEntry {
        opponent: None,
        colour: None,
        code: Code::ZeroBye,
    };
    assert_eq!(trf.players[1].rounds.get(2), Some(&absent), "{exported}");
    let ed = &r2[2];
    assert_eq!(
        (ed.player0.as_str(), ed.player1.as_ref().map(UserId::as_str)),
        ("eimear", Some("donal"))
    );
    let six = |name: &str| SIX.iter().position(|p| *p == name).unwrap();
    let (e, d) = (six("eimear"), six("donal"));
    for (me, them, colour) in [(e, d, Colour::White), (d, e, Colour::Black)] {
        let p = &mut trf.players[me];
        assert_eq!(p.rounds.len(), 1, "{exported}");
        p.rounds.push(RoundEntry {
            opponent: Some(them as u32 + 1),
            colour: Some(colour),
            code: Code::Draw,
        });
        p.points += Points::HALF;
    }
    let file = h.dir.path().join("before-round-3.trf");
    std::fs::write(&file, trf.write()).unwrap();
    let mut from_file: Vec<String> = cli(&["pair", "--dutch", file.to_str().unwrap()])
        .lines()
        .skip(1)
        .map(String::from)
        .collect();
    from_file.sort();
    play(&h.bot, &r2[2], "draw"); // e and d draw: round 2 is over, round 3 is paired once
    let rank = |name: &str| {
        if name == "bye" {
            0
        } else {
            six(name) + 1
        }
    };
    let mut by_bot: Vec<String> = round_of(&h.db(), 3)
        .iter()
        .map(|(a, b)| format!("{} {}", rank(a.as_str()), rank(b.as_str())))
        .collect();
    by_bot.sort();
    assert_eq!(from_file, by_bot);
    h.restart();
    h.bot.tick();

    // Round 3, five players left: the bye goes to the lowest score, d (½); a–e and c–f.
    let r3 = pairings(&h.db(), Some(3));
    assert_eq!(
        round_of(&h.db(), 3),
        [
            (UserId::new("eimear"), UserId::new("aoife")),
            (UserId::new("ciara"), UserId::new("fionn")),
            (UserId::new("donal"), UserId::new("bye"))
        ]
    );
    assert_eq!(
        r3[2].result,
        Some(tara_bot::store::PairingResult::Bye),
        "the bye is scored when the round starts"
    );
    let mut last = Vec::new();
    for p in r3.iter().filter(|p| p.player1.is_some()) {
        last = play(&h.bot, p, "0"); // e beats a, c beats f
    }
    assert_eq!(status(&h.db()), TournamentStatus::Finished);
    assert!(pairings(&h.db(), Some(4)).is_empty());
    let end = texts(&last);
    assert!(end.contains("The winner is @aoife"), "{end}");

    // By hand (docs/rules.md §10: standings). Results: R1 a 1–0 d, b ½–½ e, f forfeits to c; R2 a
    // 1–0 c, f 1–0 b, e ½–½ d; R3 e 1–0 a, c 1–0 f, d bye; b absent. Scores: a 2, c 2, e 2, d 1½, f
    // 1, b ½. Buchholz: opponents' scores, plus the player's own score for each unplayed round:
    //   a: d 1½ + c 2 + e 2 = 5½, cut 1 (drop 1½) 4; SB 1½ + 2 = 3½; wins 2.
    //   c: own 2 (forfeit) + a 2 + f 1 = 5, cut 1 4; SB f 1 = 1; wins 1 (the forfeit is no win).
    //   e: b ½ + d 1½ + a 2 = 4, cut 1 3½; SB ½·½ + ½·1½ + 2 = 3; wins 1.
    //   d: a 2 + e 2 + own 1½ (bye) = 5½, cut 1 4; SB ½·2 = 1; wins 0.
    //   f: own 1 (forfeit) + b ½ + c 2 = 3½, cut 1 3; SB b ½; wins 1.
    //   b: e 2 + f 1 + own ½ (absent) = 3½, cut 1 3; SB ½·2 = 1; wins 0.
    // a, c and e share 2 points: Buchholz Cut-1 puts e third (3½); Buchholz a (5½) before c (5).
    let mut s = Store::open(h.db()).unwrap();
    let got = standing_rows(&mut s);
    let want = [
        (1, "aoife", 2.0, 4.0, 5.5, 3.5, 2),
        (2, "ciara", 2.0, 4.0, 5.0, 1.0, 1),
        (3, "eimear", 2.0, 3.5, 4.0, 3.0, 1),
        (4, "donal", 1.5, 4.0, 5.5, 1.0, 0),
        (5, "fionn", 1.0, 3.0, 3.5, 0.5, 1),
        (6, "brian", 0.5, 3.0, 3.5, 1.0, 0),
    ]
    .map(|(r, p, a, b, c, d, w)| (r, p.to_string(), a, b, c, d, w));
    assert_eq!(got, want);

    // The TRF-16: three rounds, the first colour, the bye as `U`, the forfeit as `+`/`-`.
    let trf = tournament_trf(&mut s, TournamentId(1)).unwrap();
    assert!(trf.contains("XXR 3"), "{trf}");
    assert!(trf.contains("XXC black1"), "{trf}");
    let parsed = Trf::parse(&trf).unwrap();
    let donal = &parsed.players[3];
    assert_eq!(donal.rounds[2].code, tara_bot::tournament::Code::PairingBye);
    let ciara = &parsed.players[2];
    assert_eq!(ciara.rounds[0].code, tara_bot::tournament::Code::ForfeitWin);

    // `/tournament standings` with pictures on: the standings PNG on the reply, with a short
    // text summary; a Swiss has no second picture.
    let pictured = Bot::new(Store::open(h.db()).unwrap(), h.clock.clone(), 9);
    let r = ok(&pictured, "ciara", CHANNEL, "/tournament standings");
    assert_eq!(r.len(), 1, "{}", texts(&r));
    assert!(
        r[0].plain_text().contains("final standings; winner aoife"),
        "{}",
        r[0].plain_text()
    );
    let png = r[0].image.as_ref().expect("the standings picture");
    assert_eq!(png.filename, "tournament-1-standings.png");
    let img = image::load_from_memory(&png.bytes).unwrap();
    // Four tiebreak columns and the rating, no Playing column (no game in progress): 78 + 260
    // (name) + 70 (score) + 5 × 70 + 32 = 790 wide; six rows: 92 (title) + 34 (heading) +
    // 6 × 34 + 8 + 18 = 356 high.
    assert_eq!((img.width(), img.height()), (790, 356));
}

#[test]
fn swiss_rounds_default_cap_and_an_early_end_are_explained() {
    let h = Harness::new(false);
    // `rounds` means something only in a Swiss.
    for (line, says) in [
        (
            "/tournament create X hkot-1 round-robin rounds:3",
            "a round robin plays every pairing",
        ),
        (
            "/tournament create X hkot-1 knockout rounds:3",
            "a knockout plays until one player",
        ),
        (
            "/tournament create X hkot-1 swiss pace:by-round",
            "for round robins",
        ),
    ] {
        let r = h.bot.handle(&ctx("mod", CHANNEL, true), command(line));
        assert!(
            r[0].ephemeral && r[0].plain_text().contains(says),
            "{line}: {}",
            r[0].plain_text()
        );
    }
    // Three players asking for 5 rounds get n − 1 = 2, and are told so.
    let start = setup_players(
        &h,
        "/tournament create Tiny ard-ri swiss rounds:5",
        &PLAYERS[..3],
    );
    let text = texts(&start);
    assert!(text.contains("3 players, 2 rounds"), "{text}");
    assert!(text.contains("5 rounds were asked for"), "{text}");
    // Round 1: one game (first move by lot) and a bye (the lowest seed, c).
    let r1 = round_of(&h.db(), 1);
    assert_eq!(r1.len(), 2);
    let mut game = [r1[0].0.as_str(), r1[0].1.as_str()];
    game.sort();
    assert_eq!(game, ["aoife", "brian"]);
    assert_eq!(r1[1], (UserId::new("ciara"), UserId::new("bye")));
    // Two withdraw, c (with her bye) and then b: round 1 ends, and round 2 has nobody to
    // pair: the tournament ends with the reason.
    ok(&h.bot, "mod", CHANNEL, "/tournament withdraw ciara");
    let r = ok(&h.bot, "mod", CHANNEL, "/tournament withdraw brian");
    let text = texts(&r);
    assert!(text.contains("fewer than two players are left"), "{text}");
    assert_eq!(status(&h.db()), TournamentStatus::Finished);
    assert!(pairings(&h.db(), Some(2)).is_empty());
}

#[test]
fn the_default_number_of_swiss_rounds_is_log2_plus_one() {
    let h = Harness::new(false);
    // docs/rules.md §10 (Swiss): ⌈log2 n⌉ + 1, at most n − 1: 6 players 4 rounds, 9 players 5, 4
    // players 3.
    for (n, rounds) in [(6, 4), (9, 5), (4, 3)] {
        ok(
            &h.bot,
            "mod",
            CHANNEL,
            &format!("/tournament create S{n} hkot-1 swiss"),
        );
        for i in 0..n {
            ok(&h.bot, &format!("p{n}-{i}"), CHANNEL, "/tournament join");
        }
        let start = ok(&h.bot, "mod", CHANNEL, "/tournament start");
        assert!(
            texts(&start).contains(&format!("{n} players, {rounds} rounds")),
            "{}",
            texts(&start)
        );
    }
}

#[test]
fn a_server_setting_names_the_role_that_may_create_tournaments() {
    let h = Harness::new(false);
    let with_roles = |who: &str, roles: &[&str]| Ctx {
        roles: roles.iter().map(|r| r.to_string()).collect(),
        ..ctx(who, CHANNEL, false)
    };
    let create = "/tournament create Club hkot-1 swiss";
    // By default only moderators create tournaments, whatever roles a member has.
    let r = h
        .bot
        .handle(&with_roles("aoife", &["organisers"]), command(create));
    assert!(
        r[0].ephemeral && r[0].plain_text().contains("Only moderators"),
        "{}",
        texts(&r)
    );
    // Only Manage Server changes the setting.
    let r = h.bot.handle(
        &with_roles("aoife", &["organisers"]),
        command("/settings tournament-role:<@&organisers>"),
    );
    assert!(
        r[0].plain_text()
            .contains("Only members with Manage Server"),
        "{}",
        texts(&r)
    );
    let manager = Ctx {
        manager: true,
        moderator: true,
        ..ctx("mod", CHANNEL, true)
    };
    let r = h
        .bot
        .handle(&manager, command("/settings tournament-role:<@&12>x"));
    assert!(
        r[0].plain_text().contains("takes one role"),
        "{}",
        texts(&r)
    );
    let r = h.bot.handle(
        &manager,
        command("/settings tournament-role:<@&organisers>"),
    );
    assert!(
        texts(&r).contains("members with <@&organisers>"),
        "{}",
        texts(&r)
    );
    // Now a member with the role may; one without it still may not, and is told which role.
    let r = h
        .bot
        .handle(&with_roles("brian", &["players"]), command(create));
    assert!(
        r[0].plain_text().contains("members with <@&organisers>"),
        "{}",
        texts(&r)
    );
    let r = h
        .bot
        .handle(&with_roles("aoife", &["organisers"]), command(create));
    assert!(!r[0].ephemeral, "{}", texts(&r));
    // The creator organises it: she starts it without being a moderator.
    for p in ["brian", "ciara"] {
        ok(&h.bot, p, CHANNEL, "/tournament join");
    }
    let r = h.bot.handle(
        &with_roles("aoife", &["organisers"]),
        command("/tournament start"),
    );
    assert!(
        texts(&r).contains("starts: 2 players, 1 round"),
        "{}",
        texts(&r)
    );
    // `moderators` clears it.
    h.bot
        .handle(&manager, command("/settings tournament-role:moderators"));
    let r = h
        .bot
        .handle(&with_roles("aoife", &["organisers"]), command(create));
    assert!(
        r[0].ephemeral && r[0].plain_text().contains("Only moderators"),
        "{}",
        texts(&r)
    );
}

#[test]
fn round_robins_get_a_crosstable_and_knockouts_a_bracket() {
    for (system, second) in [("round-robin", "crosstable"), ("knockout", "bracket")] {
        let h = Harness::new(true);
        setup_players(
            &h,
            &format!("/tournament create P ard-ri {system}"),
            &PLAYERS[..3],
        );
        let mut last = Vec::new();
        for _ in 0..20 {
            let open: Vec<PairingRow> = pairings(&h.db(), None)
                .into_iter()
                .filter(|p| p.result.is_none() && p.game_id.is_some())
                .collect();
            let Some(p) = open.first() else { break };
            last = play(&h.bot, p, "0");
        }
        assert_eq!(status(&h.db()), TournamentStatus::Finished, "{system}");
        // The end announcement carries the standings, then the second picture on its own.
        let end = last
            .iter()
            .position(|r| r.plain_text().contains("is over"))
            .expect("the end announcement");
        assert!(last[end].image.is_some(), "{system}: standings picture");
        let next = &last[end + 1];
        assert!(
            next.plain_text().contains(&format!("the {second}")),
            "{}",
            next.plain_text()
        );
        let img = next.image.as_ref().expect("second picture");
        assert_eq!(img.filename, format!("tournament-1-{second}.png"));
        let decoded = image::load_from_memory(&img.bytes).unwrap();
        assert!(
            decoded.width() >= 400 && decoded.height() >= 200,
            "{system}"
        );
        // `/tournament standings` posts both too.
        let r = ok(&h.bot, "aoife", CHANNEL, "/tournament standings");
        assert_eq!(r.len(), 2, "{}", texts(&r));
        assert!(r.iter().all(|r| r.image.is_some()));
    }
}

#[test]
fn a_late_entrant_joins_a_swiss_until_round_two_is_paired() {
    let h = Harness::new(false);
    ok(
        &h.bot,
        "mod",
        CHANNEL,
        "/tournament create Late hkot-1 swiss rounds:3 days:1",
    );
    for p in ["aoife", "brian", "ciara", "donal"] {
        ok(&h.bot, p, CHANNEL, "/tournament join");
    }
    ok(&h.bot, "mod", CHANNEL, "/tournament start");
    // Seeds by sign-up (all unrated): a 1, b 2, c 3, d 4; round 1 is 1–3 and 2–4.
    let r1 = pairings(&h.db(), Some(1));
    let pair = |p: &PairingRow| {
        let mut v = [p.player0.clone(), p.player1.clone().unwrap()];
        v.sort();
        v
    };
    assert_eq!(
        r1.iter().map(pair).collect::<Vec<_>>(),
        [["aoife", "ciara"], ["brian", "donal"]]
    );
    let aoife_first = r1[0].player0 == "aoife";
    assert_eq!(r1[1].player0 == "donal", aoife_first, "colours alternate");
    assert!(!aoife_first, "the seeded lot gives aoife the second move");

    // Eimear, rated 1700 in hkot-1, joins during round 1: she becomes seed 1 (docs/rules.md §10,
    // Swiss: the initial order is by rating), the others keep their order, and round 1 is 0 for
    // her.
    let mut s = Store::open(h.db()).unwrap();
    s.write(|tx| {
        tx.upsert_user(&UserId::new("eimear"), "eimear", 0)?;
        tx.put_rating(&tara_bot::store::RatingRow {
            server_id: ServerId::new("server"),
            game: "hkot-1".into(),
            user_id: UserId::new("eimear"),
            rating: 1700.0,
            rd: 80.0,
            volatility: 0.06,
            games: 20,
            wins: 14,
            draws: 0,
            losses: 6,
            last_game_at: 0,
        })
    })
    .unwrap();
    let joined = texts(&ok(&h.bot, "eimear", CHANNEL, "/tournament join"));
    assert!(
        joined.contains("joins **Late** (#1) late, as seed 1 of 5")
            && joined.contains("round 1 counts as 0 points"),
        "{joined}"
    );
    let again = texts(
        &h.bot
            .handle(&ctx("eimear", CHANNEL, false), command("/tournament join")),
    );
    assert!(again.contains("already signed up"), "{again}");
    let seeds: Vec<(UserId, Option<u32>, i32)> = s
        .read(|tx| tx.entrants(TournamentId(1)))
        .unwrap()
        .into_iter()
        .map(|p| (p.user_id, p.seed, p.rating))
        .collect();
    assert_eq!(
        seeds,
        [
            (UserId::new("aoife"), Some(2), 1500),
            (UserId::new("brian"), Some(3), 1500),
            (UserId::new("ciara"), Some(4), 1500),
            (UserId::new("donal"), Some(5), 1500),
            (UserId::new("eimear"), Some(1), 1700),
        ]
    );

    // Round 1: a beats c, b and d draw. Scores: a 1; b ½, d ½; c 0, e 0 (not yet joined).
    let by = |r: &[PairingRow], who: &str| {
        r.iter()
            .find(|p| p.player0 == who || p.player1.as_ref().map(UserId::as_str) == Some(who))
            .cloned()
            .unwrap()
    };
    let ac = by(&r1, "aoife");
    play(&h.bot, &ac, if ac.player0 == "aoife" { "0" } else { "1" });
    play(&h.bot, &by(&r1, "brian"), "draw");

    // Round 2 by the Dutch system on the new ranks (e 1, a 2, b 3, c 4, d 5): a (1) floats
    // into the ½ group and meets b (d is b's round-1 opponent); d floats into the 0 group and
    // meets e, the higher of e and c; c, the lowest, gets the bye. Colours: each player who
    // played round 1 gets the other colour now (a and d had the initial colour, b the other);
    // e has no history and takes what d does not.
    let r2 = round_of(&h.db(), 2);
    let p = |x: &str, y: &str| (UserId::new(x), UserId::new(y));
    assert_eq!(
        r2,
        [p("aoife", "brian"), p("donal", "eimear"), p("ciara", "bye")]
    );

    // Round 2 is paired: no more late entries.
    let late = texts(
        &h.bot
            .handle(&ctx("fionn", CHANNEL, false), command("/tournament join")),
    );
    assert!(
        late.contains("is in round 2: a Swiss takes late entries only until round 2 is paired"),
        "{late}"
    );

    // Round 2: a beats b, e beats d. Scores: a 2, c 1 (the bye), e 1, b ½, d ½.
    let r2 = pairings(&h.db(), Some(2));
    play(&h.bot, &by(&r2, "aoife"), "0");
    play(&h.bot, &by(&r2, "eimear"), "1");
    // Round 3: a floats into the 1 group and meets e (a met c in round 1); c floats into the ½
    // group and meets b, the higher of b and d; d gets the bye (c had one). Colours: e moved
    // second in round 2 and moves first now; a alternates to second; b (first, second) is
    // due to move first, c (second, bye) second.
    assert_eq!(
        round_of(&h.db(), 3),
        [p("eimear", "aoife"), p("brian", "ciara"), p("donal", "bye")]
    );
    let r3 = pairings(&h.db(), Some(3));
    play(&h.bot, &r3[0], "0"); // e beats a
    play(&h.bot, &r3[1], "1"); // c beats b
    assert_eq!(status(&h.db()), TournamentStatus::Finished);

    // By hand (docs/rules.md §10: standings): scores e 2, a 2, c 2, d 1½, b ½. Buchholz adds a
    // player's own score for each unplayed round: e's round 1 (not yet joined), c's and d's byes.
    //   e: own 2 + d 1½ + a 2 = 5½, cut 1 4; SB 1½ + 2 = 3½; wins 2.
    //   a: c 2 + b ½ + e 2 = 4½, cut 1 4; SB 2 + ½ = 2½; wins 2.
    //   c: a 2 + own 2 (bye) + b ½ = 4½, cut 1 4; SB ½; wins 1.
    //   d: b ½ + e 2 + own 1½ (bye) = 4, cut 1 3½; SB ½·½ = ¼; wins 0.
    //   b: d 1½ + a 2 + c 2 = 5½, cut 1 4; SB ½·1½ = ¾; wins 0.
    // e, a and c share 2 points and Cut-1 4: Buchholz puts e first, then Sonneborn-Berger a.
    let got = standing_rows(&mut s);
    let want = [
        (1, "eimear", 2.0, 4.0, 5.5, 3.5, 2),
        (2, "aoife", 2.0, 4.0, 4.5, 2.5, 2),
        (3, "ciara", 2.0, 4.0, 4.5, 0.5, 1),
        (4, "donal", 1.5, 3.5, 4.0, 0.25, 0),
        (5, "brian", 0.5, 4.0, 5.5, 0.75, 0),
    ]
    .map(|(r, p, a, b, c, d, w)| (r, p.to_string(), a, b, c, d, w));
    assert_eq!(got, want);
    // The export keeps the drawn colour (the top seed, e, did not play round 1) and shows e's
    // missed round as not played.
    let trf = tournament_trf(&mut s, TournamentId(1)).unwrap();
    assert!(trf.contains("XXC black1"), "{trf}");
    let parsed = Trf::parse(&trf).unwrap();
    assert_eq!(parsed.players[0].name, "eimear");
    assert!(!parsed.players[0].rounds[0].participated(), "{trf}");
}

/// Creation and `/tournament info` show the same options line: a Swiss's rounds, a round
/// robin's pace, the scoring where the game has a choice, and nothing left dangling.
#[test]
fn creation_and_info_show_the_same_options() {
    let h = Harness::new(false);
    let cases = [
        (
            "/tournament create A ard-ri swiss rounds:3",
            "Ard Rí · Swiss · single games · no clock · rated · 3 rounds",
        ),
        (
            "/tournament create B sacred-hill-1 round-robin scoring:knots pace:by-round",
            "Tara: Sacred Hill (Level 1) · round robin · scored by knots · single games · no clock · rated · by-round",
        ),
        (
            "/tournament create C hkot-1 knockout",
            "High Kings of Tara (Level 1) · knockout · scored by kingdoms · two-game matches · no clock · rated",
        ),
    ];
    for (i, (create, options)) in cases.iter().enumerate() {
        let channel = format!("channel-{i}");
        let made = texts(&ok(&h.bot, "mod", &channel, create));
        let info = texts(&ok(&h.bot, "mod", &channel, "/tournament info"));
        for text in [&made, &info] {
            let line = text.lines().next().unwrap();
            assert!(line.ends_with(options), "{create}: {line}");
        }
    }
}

/// Players tied for first share it in `/tournament standings` too (docs/rules.md §10: standings),
/// not only in the end announcement: a three-player round robin where everyone wins once.
#[test]
fn a_shared_first_place_is_named_as_shared() {
    let h = Harness::new(false);
    setup_players(
        &h,
        "/tournament create Ring ard-ri round-robin",
        &PLAYERS[..3],
    );
    let standings = |who: &str| texts(&ok(&h.bot, who, CHANNEL, "/tournament standings"));
    let before = standings("aoife");
    assert!(
        before.contains("(#1) · no results yet."),
        "nobody leads before a result: {before}"
    );
    // Each game won by the player named first: with the Berger tables of three, everyone
    // is named first once, so each wins once and loses once.
    let games: Vec<PairingRow> = pairings(&h.db(), None)
        .into_iter()
        .filter(|p| p.player1.is_some())
        .collect();
    assert_eq!(games.len(), 3);
    let mut firsts: Vec<&str> = games.iter().map(|p| p.player0.as_str()).collect();
    firsts.sort_unstable();
    assert_eq!(firsts, PLAYERS[..3]);
    let mut last = Vec::new();
    for (k, p) in games.iter().enumerate() {
        last = play(&h.bot, p, "0");
        if k == 0 {
            let now = standings("aoife");
            let leader = &p.player0;
            assert!(
                now.contains(&format!("standings so far; {leader} leads")),
                "{now}"
            );
        }
    }
    assert_eq!(status(&h.db()), TournamentStatus::Finished);
    assert!(
        texts(&last).contains("Sharing first place"),
        "{}",
        texts(&last)
    );
    let after = standings("donal");
    assert!(
        after.contains("final standings; sharing first place: aoife, brian, ciara"),
        "{after}"
    );
    assert!(!after.contains("winner"), "{after}");
}

/// An organiser's action taken by a moderator who did not create the tournament goes in the
/// audit log, as every moderator action does; the creator's own do not (they are theirs).
#[test]
fn a_moderators_tournament_actions_are_audited() {
    let h = Harness::new(false);
    setup(&h, "/tournament create Cup ard-ri round-robin");
    let mona = |line: &str| h.bot.handle(&ctx("mona", CHANNEL, true), command(line));
    let audit = || texts(&mona("/audit"));
    assert!(
        audit().contains("No moderator actions"),
        "the creator's start is not audited"
    );
    mona("/tournament withdraw brian");
    mona("/tournament cancel");
    let log = audit();
    let withdraw = log.find("tournament-withdraw · tournament #1 Cup: withdrew brian");
    let cancel = log.find("tournament-cancel · tournament #1 Cup: called off;");
    assert!(
        cancel.is_some() && withdraw.is_some() && cancel < withdraw,
        "{log}"
    );
}

/// `/tournament export` attaches the TRF-16 file and shows it in its text too, for where no
/// file can be attached (the console shows the text).
#[test]
fn the_tournament_export_is_a_file_and_its_text() {
    let h = Harness::new(false);
    setup(&h, "/tournament create Cup ard-ri round-robin");
    let r = h
        .bot
        .handle(&ctx("brian", CHANNEL, false), command("/tournament export"));
    assert_eq!(r.len(), 1);
    assert!(r[0].ephemeral, "answered privately");
    let d = r[0].document.as_ref().expect("the file");
    assert!(d.always);
    assert_eq!(d.filename, "tournament-1.trf");
    let trf = Trf::parse(&d.text).unwrap();
    assert_eq!(trf.players.len(), PLAYERS.len());
    assert!(r[0].plain_text().contains(&d.text), "{}", r[0].plain_text());
}

/// The code block of a `/tournament standings` answer, as rows of whitespace-split cells
/// (the heading first).
fn table_rows(text: &str) -> Vec<Vec<String>> {
    let block = text.split("```").nth(1).expect("a code block");
    block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().map(String::from).collect())
        .collect()
}

/// A tournament called off in round 2 keeps round 1's results, says "cancelled" in its
/// headline, and shows no game in progress: not in the Playing column, not in the pairings.
#[test]
fn a_cancelled_tournament_keeps_its_results_and_shows_no_game_in_progress() {
    let h = Harness::new(false);
    setup_players(
        &h,
        "/tournament create Halt hkot-1 round-robin pace:by-round match:no",
        &PLAYERS[..4],
    );
    for p in pairings(&h.db(), Some(1)) {
        play(&h.bot, &p, "0");
    }
    let r2 = pairings(&h.db(), Some(2));
    assert!(r2.iter().all(|p| p.game_id.is_some()), "round 2 started");
    play(&h.bot, &r2[0], "1");
    ok(&h.bot, "mod", CHANNEL, "/tournament cancel");
    let text = texts(&ok(&h.bot, "aoife", CHANNEL, "/tournament standings"));
    assert!(!text.contains("no games yet"), "{text}");
    assert!(text.contains("(#1) · cancelled"), "{text}");
    let rows = table_rows(&text);
    assert_eq!(
        rows[0].last().map(String::as_str),
        Some("Playing"),
        "{text}"
    );
    // Three games were played (two in round 1, one in round 2): three points in all.
    let score_col = rows[0].iter().position(|c| c == "Score").unwrap();
    let total: f64 = rows[1..]
        .iter()
        .map(|r| r[score_col].replace('½', ".5").parse::<f64>().unwrap())
        .sum();
    assert_eq!(total, 3.0, "{text}");
    assert!(
        rows[1..]
            .iter()
            .all(|r| r.last().map(String::as_str) == Some("0")),
        "no game in progress: {text}"
    );
    let round2 = texts(&ok(
        &h.bot,
        "aoife",
        CHANNEL,
        "/tournament pairings round:2",
    ));
    assert!(!round2.contains("playing"), "{round2}");
    assert!(round2.contains("· cancelled"), "{round2}");
    let info = texts(&ok(&h.bot, "aoife", CHANNEL, "/tournament info"));
    assert!(info.contains("Status: cancelled"), "{info}");
}

/// The score cell of `player` in a `/tournament standings` answer.
fn score_of(text: &str, player: &str) -> String {
    let rows = table_rows(text);
    let col = rows[0].iter().position(|c| c == "Score").unwrap();
    rows[1..]
        .iter()
        .find(|r| r[1] == player)
        .unwrap_or_else(|| panic!("{player} in {text}"))[col]
        .clone()
}

/// Mid-round standings count a bye together with its round: while the round's games are
/// played the player with the bye does not lead on the bye's point; when the round ends it
/// counts.
#[test]
fn a_bye_counts_when_its_round_ends() {
    let h = Harness::new(false);
    setup(&h, "/tournament create Odd hkot-1 swiss rounds:2");
    let r1 = pairings(&h.db(), Some(1));
    let bye = r1.iter().find(|p| p.player1.is_none()).unwrap();
    assert_eq!(bye.player0, "eimear", "the lowest seed has the bye");
    let games: Vec<&PairingRow> = r1.iter().filter(|p| p.player1.is_some()).collect();
    play(&h.bot, games[0], "0");
    let winner = games[0].player0.clone();
    let standings = || texts(&ok(&h.bot, "ciara", CHANNEL, "/tournament standings"));
    let mid = standings();
    assert!(
        mid.contains(&format!("standings so far; {winner} leads.")),
        "{mid}"
    );
    assert_eq!(score_of(&mid, "eimear"), "0", "{mid}");
    assert_eq!(score_of(&mid, winner.as_str()), "1", "{mid}");
    // The CLI's standings read the same.
    let json = cli(&[
        "tournament",
        "standings",
        "--db",
        h.db().to_str().unwrap(),
        "1",
        "--json",
    ]);
    assert!(json.contains("\"id\":\"eimear\",\"score\":0.0"), "{json}");
    play(&h.bot, games[1], "0");
    let after = standings();
    assert_eq!(score_of(&after, "eimear"), "1", "{after}");
}

/// The Round column of a finished two-round knockout: the champion is "champion" (not
/// round "3", a round the knockout does not have), the finalist 2, the others 1.
#[test]
fn a_knockouts_champion_is_named_in_the_round_column() {
    let h = Harness::new(false);
    setup_players(&h, "/tournament create Duel hkot-1 knockout", &PLAYERS[..4]);
    // Every tie is a two-game match: the player named first wins both.
    for round in 1..=2 {
        for p in pairings(&h.db(), Some(round)) {
            play(&h.bot, &p, "0");
            play(&h.bot, &p, "0");
        }
    }
    assert_eq!(status(&h.db()), TournamentStatus::Finished);
    let text = texts(&ok(&h.bot, "aoife", CHANNEL, "/tournament standings"));
    let rows = table_rows(&text);
    let col = rows[0].iter().position(|c| c == "Round").unwrap();
    let rounds: Vec<&str> = rows[1..].iter().map(|r| r[col].as_str()).collect();
    assert_eq!(rounds, ["champion", "2", "1", "1"], "{text}");
}

/// The TRF-16 export names the system and the game in 092 (the type of tournament; 022 is
/// the city), and fills each 001 line's rank (columns 86-89) with the place in the standings.
#[test]
fn the_trf_export_has_the_type_in_092_and_the_ranks() {
    let h = Harness::new(false);
    setup_players(
        &h,
        "/tournament create Trio hkot-1 round-robin match:no",
        &PLAYERS[..3],
    );
    for p in pairings(&h.db(), None)
        .iter()
        .filter(|p| p.player1.is_some())
    {
        // aoife wins her games; the other game goes to its first mover.
        let r = if p.player1.as_ref().map(UserId::as_str) == Some("aoife") {
            "1"
        } else {
            "0"
        };
        play(&h.bot, p, r);
    }
    assert_eq!(status(&h.db()), TournamentStatus::Finished);
    let mut s = Store::open(h.db()).unwrap();
    let text = tournament_trf(&mut s, TournamentId(1)).unwrap();
    assert!(
        text.lines()
            .any(|l| l == "092 round robin, hkot-1 (tara-bot)"),
        "{text}"
    );
    assert!(!text.lines().any(|l| l.starts_with("022")), "{text}");
    let trf = Trf::parse(&text).unwrap();
    let standings = tournament_standings(&mut s, TournamentId(1)).unwrap();
    for p in &trf.players {
        let line = standings.iter().find(|l| l.player == p.name).unwrap();
        assert_eq!(p.place, Some(line.rank), "{text}");
    }
    assert_eq!(trf.players[0].place, Some(1), "aoife won: {text}");
}

/// `pair --dutch` refuses a TRF exported in the middle of a round (its bye written, its games
/// in progress blank) with exit status 2 and says why, rather than pair a "next round"
/// around the games in progress; once the round is over the same export pairs.
#[test]
fn pair_dutch_refuses_a_round_in_progress() {
    let h = Harness::new(false);
    setup(&h, "/tournament create Odd hkot-1 swiss rounds:2");
    let games: Vec<PairingRow> = pairings(&h.db(), Some(1))
        .into_iter()
        .filter(|p| p.player1.is_some())
        .collect();
    play(&h.bot, &games[0], "0");
    let file = h.dir.path().join("mid-round.trf");
    let export = || tournament_trf(&mut Store::open(h.db()).unwrap(), TournamentId(1)).unwrap();
    // One rule for places: the file's place is the standings' place, where the bye of the
    // round in progress does not count yet; the file's points are its entries', the bye's
    // point written with it (what a pairing program reads).
    let text = export();
    let trf = Trf::parse(&text).unwrap();
    let standings =
        tournament_standings(&mut Store::open(h.db()).unwrap(), TournamentId(1)).unwrap();
    let bye = pairings(&h.db(), Some(1))
        .into_iter()
        .find(|p| p.player1.is_none())
        .expect("five players: a bye");
    for p in &trf.players {
        let line = standings.iter().find(|l| l.player == p.name).unwrap();
        assert_eq!(p.place, Some(line.rank), "{}: {text}", p.name);
        if p.name == bye.player0.as_str() {
            assert_eq!(p.points, Points::ONE, "{text}");
            assert_eq!(line.score, 0.0);
            assert!(line.rank > 1, "{standings:?}");
        }
    }
    std::fs::write(&file, text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .args(["pair", "--dutch", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    // The second game (two players) is in progress.
    let (a, b) = (
        seed((games[1].player0).as_str()) + 1,
        seed(games[1].player1.as_ref().map(UserId::as_str).unwrap()) + 1,
    );
    let (a, b) = (a.min(b), a.max(b));
    assert!(
        err.contains(&format!(
            "error: round 1 is not finished: players {a} and {b} have no result for it"
        )),
        "{err}"
    );
    play(&h.bot, &games[1], "0");
    // Round 2 is paired by the bot and in progress: the file now needs round 2's results.
    std::fs::write(&file, export()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .args(["pair", "--dutch", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_games_clock_waits_for_its_thread_and_starts_when_it_opens() {
    const HOUR: i64 = 3_600_000;
    let h = Harness::new(false);
    setup_players(
        &h,
        "/tournament create Clock hkot-2 round-robin days:1",
        &PLAYERS[..3],
    );
    let keys: Vec<String> = pairings(&h.db(), None)
        .into_iter()
        .filter(|p| p.player1.is_some())
        .map(|p| p.thread_key.expect("a thread key"))
        .collect();
    assert_eq!(keys.len(), 3);
    // 20 hours on, no thread could open yet (the server's threads are full): the games,
    // which nobody sees yet, keep their whole first turn from now.
    h.bot.advance_clock(20 * HOUR);
    for k in &keys {
        h.bot.thread_waits(k);
    }
    h.bot.advance_clock(10 * HOUR);
    let out = h.bot.tick();
    assert!(!texts(&out).contains("forfeit"), "{}", texts(&out));
    // The threads open 40 hours after the start: each first turn runs a day from then.
    h.bot.advance_clock(10 * HOUR);
    for (i, k) in keys.iter().enumerate() {
        let thread = tara_bot::store::ChannelId::new(format!("{}", 9000 + i));
        assert_eq!(h.bot.thread_opened(k, &thread), Some(thread.clone()));
    }
    h.bot.advance_clock(23 * HOUR);
    let out = h.bot.tick();
    assert!(!texts(&out).contains("forfeit"), "{}", texts(&out));
    assert_eq!(status(&h.db()), TournamentStatus::Running);
    // A day after the threads opened, nobody having moved: forfeits, as without threads.
    h.bot.advance_clock(2 * HOUR);
    let out = h.bot.tick();
    assert!(
        texts(&out).contains("before a first move: a forfeit"),
        "{}",
        texts(&out)
    );
}

/// Issue 45: `/tournament withdraw` before the start names the tournament and says what to do
/// instead, rather than finding none.
#[test]
fn withdrawing_before_the_start_says_to_leave_instead() {
    let h = Harness::new(false);
    ok(
        &h.bot,
        "mod",
        CHANNEL,
        "/tournament create Early hkot-1 swiss",
    );
    ok(&h.bot, "aoife", CHANNEL, "/tournament join");
    let r = h.bot.handle(
        &ctx("aoife", CHANNEL, false),
        command("/tournament withdraw"),
    );
    let said = r[0].plain_text();
    assert!(r[0].ephemeral, "{said}");
    assert!(
        said.contains("Early") && said.contains("`/tournament leave`"),
        "{said}"
    );
}

/// Issue 45's wording: a two-player round robin starts "its one game", not "all 1 game".
#[test]
fn a_single_game_round_robin_says_its_one_game() {
    let h = Harness::new(false);
    let r = setup_players(
        &h,
        "/tournament create Duel hkot-1 round-robin",
        &["aoife", "brian"],
    );
    let said = texts(&r);
    assert!(said.contains("its one game starts now"), "{said}");
    assert!(!said.contains("all 1 game"), "{said}");
}
