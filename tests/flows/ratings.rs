//! Ratings through the bot core (docs/rules.md §10: ratings): which games are rated, the Glicko-2
//! values stored after each (checked against an independent computation to 0.01), idle-week RD
//! growth, and `/leaderboard` and `/profile`.

#[path = "../common/mod.rs"]
mod common;

use common::*;
use tara_bot::bot::options::{Value, Values};
use tara_bot::bot::{Command, Reply};
use tara_bot::game::{GameOptions, Move, Position, Variant};
use tara_bot::store::TournamentId;
use tara_bot::store::{RatingChangeRow, RatingRow, Store};
use tara_bot::store::{ServerId, UserId};

const DAY: i64 = 86_400_000;

/// `/challenge opponent variant first:me` with `rated` as given (`None`: the default).
fn challenge(opponent: &str, variant: &str, rated: Option<bool>) -> Command {
    let mut v = Values::new()
        .with("opponent", Value::User(user(opponent)))
        .with("variant", Value::Text(variant.into()))
        .with("first", Value::Text("me".into()));
    if let Some(r) = rated {
        v.set("rated", Value::Boolean(r));
    }
    Command::parse("challenge", &v).unwrap()
}

/// Starts a game in `channel` (a challenges, b accepts, a moves first).
fn start(h: &Harness, a: &str, b: &str, channel: &str, rated: Option<bool>) -> Vec<Reply> {
    let mut r = h.send(a, channel, challenge(b, "ard-ri", rated));
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    r.extend(h.send(b, channel, Command::Accept { challenge: None }));
    assert!(!r.last().unwrap().ephemeral, "{}", texts(&r));
    r
}

/// Both players make a first move, then `who` resigns (a loss: before both have moved a
/// resignation aborts the game).
fn resign(h: &Harness, who: &str, channel: &str) -> Vec<Reply> {
    h.opening(channel);
    resign_now(h, who, channel)
}

/// `who` resigns at once.
fn resign_now(h: &Harness, who: &str, channel: &str) -> Vec<Reply> {
    h.send(
        who,
        channel,
        Command::Resign {
            confirmed: true,
            game: None,
        },
    )
}

/// Plays `moves` in the channel's game, each by the player to move.
fn play(h: &Harness, channel: &str, moves: &[Move]) -> Vec<Reply> {
    let game = active(&h.db(), channel).unwrap();
    let mut mirror = Position::new(game.options);
    let mut all = Vec::new();
    for m in moves {
        let who = game.seats[mirror.to_move().unwrap()].clone();
        let r = h.mv(who.as_str(), channel, &m.to_string());
        assert!(!r[0].ephemeral, "{m}: {}", r[0].plain_text());
        mirror.play(*m).unwrap();
        while mirror.outcome().is_none() && mirror.legal_moves().as_slice() == [Move::Pass] {
            mirror.play(Move::Pass).unwrap();
        }
        all.extend(r);
    }
    all
}

/// A random Ard Rí game that ends drawn (100 plies without a capture).
fn drawn_ard_ri() -> Vec<Move> {
    let options = GameOptions::with(Variant::ArdRi, None, None).unwrap();
    (1..500)
        .map(|seed| player_moves(options, seed))
        .find(|moves| {
            let mut p = Position::new(options);
            for m in moves {
                p.play(*m).unwrap();
                while p.outcome().is_none() && p.legal_moves().as_slice() == [Move::Pass] {
                    p.play(Move::Pass).unwrap();
                }
            }
            p.outcome().is_some_and(|o| o.winner.is_none())
        })
        .expect("a drawn random game")
}

fn rating(h: &Harness, server: &str, who: &str) -> Option<RatingRow> {
    Store::open(h.db())
        .unwrap()
        .read(|tx| tx.rating(&ServerId::new(server), "ard-ri", &UserId::new(who)))
        .unwrap()
}

fn changes(h: &Harness, who: &str) -> Vec<RatingChangeRow> {
    Store::open(h.db())
        .unwrap()
        .read(|tx| tx.rating_history(&ServerId::new("server"), &UserId::new(who), "ard-ri", 100))
        .unwrap()
}

fn close(actual: f64, expected: f64, what: &str) {
    assert!(
        (actual - expected).abs() < 0.01,
        "{what}: {actual} is not {expected}"
    );
}

fn check(r: &RatingRow, values: (f64, f64, f64), what: &str) {
    close(r.rating, values.0, &format!("{what} rating"));
    close(r.rd, values.1, &format!("{what} RD"));
    close(r.volatility, values.2, &format!("{what} volatility"));
}

/// Plays: day 0 Aoife beats Brian; day 10 Aoife and Cara draw; day 30 Brian beats Aoife.
fn three_rated_games(h: &Harness) -> Vec<Reply> {
    let mut all = start(h, "aoife", "brian", "c1", None);
    all.extend(resign(h, "brian", "c1"));
    assert!(h.bot.advance_clock(10 * DAY));
    start(h, "aoife", "cara", "c2", None);
    all.extend(play(h, "c2", &drawn_ard_ri()));
    assert!(h.bot.advance_clock(20 * DAY));
    start(h, "brian", "aoife", "c3", Some(true));
    all.extend(resign(h, "aoife", "c3"));
    all
}

/// The expected values come from a separate Glicko-2 implementation (Python, written from
/// Glickman's paper, τ = 0.5), not from the bot's code.
#[test]
fn a_sequence_of_rated_games_matches_glicko2_with_idle_weeks() {
    let h = Harness::new(false);
    let all = three_rated_games(&h);
    let t = texts(&all);
    assert!(t.contains("· rated ·"), "{t}");
    // Game 1: two new players, one game each (the paper's one-game period).
    let c = changes(&h, "aoife");
    assert_eq!(c.len(), 3);
    close(c[0].before_rating, 1500.0, "aoife before game 1");
    close(c[0].after_rating, 1662.3109, "aoife after game 1");
    close(c[0].after_rd, 290.3190, "aoife RD after game 1");
    assert!(
        t.contains("Ratings (ard-ri): @aoife 1662? (+162), @brian 1338? (−162)."),
        "{t}"
    );
    // Game 2, ten days later: one whole idle week grows Aoife's RD before the game.
    close(c[1].before_rd, 290.5060, "aoife RD grown by one idle week");
    close(c[1].after_rating, 1623.9581, "aoife after the draw");
    close(c[1].after_rd, 256.4736, "aoife RD after the draw");
    assert_eq!(c[1].score, 0.5);
    check(
        &rating(&h, "server", "cara").unwrap(),
        (1557.5986, 286.9519, 0.059999),
        "cara",
    );
    // Game 3, twenty days after game 2: Aoife idle two weeks, Brian four.
    close(c[2].before_rd, 256.8968, "aoife RD grown by two idle weeks");
    let b = changes(&h, "brian");
    close(
        b[1].before_rd,
        291.0664,
        "brian RD grown by four idle weeks",
    );
    check(
        &rating(&h, "server", "aoife").unwrap(),
        (1445.8582, 233.8241, 0.060001),
        "aoife",
    );
    check(
        &rating(&h, "server", "brian").unwrap(),
        (1567.4836, 256.6450, 0.060002),
        "brian",
    );
    let a = rating(&h, "server", "aoife").unwrap();
    assert_eq!((a.games, a.wins, a.draws, a.losses), (3, 1, 1, 1));
}

#[test]
fn casual_aborted_and_other_servers_games_leave_ratings_alone() {
    let h = Harness::new(false);
    let r = start(&h, "aoife", "brian", "c1", Some(false));
    assert!(texts(&r).contains("· casual ·"), "{}", texts(&r));
    let end = resign(&h, "brian", "c1");
    assert!(!texts(&end).contains("Ratings"), "{}", texts(&end));
    assert_eq!(rating(&h, "server", "aoife"), None);
    // Aborted before the first move: no result, unrated.
    start(&h, "aoife", "brian", "c2", None);
    let r = h.send(
        "aoife",
        "c2",
        Command::Abort {
            reason: None,
            game: None,
        },
    );
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    assert_eq!(rating(&h, "server", "brian"), None);
    // A rated game on this server is invisible on another.
    start(&h, "aoife", "brian", "c3", None);
    resign(&h, "brian", "c3");
    assert!(rating(&h, "server", "aoife").is_some());
    assert_eq!(rating(&h, "elsewhere", "aoife"), None);
    let mut other = ctx("aoife", "x");
    other.server = ServerId::new("elsewhere");
    let lb = h.bot.handle(&other, Command::Leaderboard { variant: None });
    assert!(
        lb[0].plain_text().contains("No rated games"),
        "{}",
        lb[0].plain_text()
    );
    let p = h.bot.handle(&other, Command::Profile { user: None });
    assert!(
        p[0].plain_text()
            .contains("No rated games on this server yet"),
        "{}",
        p[0].plain_text()
    );
}

#[test]
fn the_leaderboard_ranks_active_players_and_forgets_the_idle() {
    let h = Harness::new(false);
    three_rated_games(&h);
    let lb = h.send("cara", "c9", Command::Leaderboard { variant: None });
    assert_eq!(lb.len(), 1);
    let text = lb[0].plain_text();
    assert!(!lb[0].ephemeral);
    assert!(lb[0].mentions.is_empty(), "a leaderboard pings nobody");
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].contains("Ard Rí (ard-ri)"), "{text}");
    assert_eq!(
        &lines[1..4],
        &[
            "1. @brian 1567 ±257? · 2 games · 1W 0D 1L",
            "2. @cara 1558 ±287? · 1 game · 0W 1D 0L",
            "3. @aoife 1446 ±234? · 3 games · 1W 1D 1L",
        ],
        "{text}"
    );
    // A variant nobody plays rated.
    let none = h.send(
        "cara",
        "c9",
        Command::Leaderboard {
            variant: Some(Variant::Hkot2),
        },
    );
    assert!(
        none[0].plain_text().contains("Nobody yet"),
        "{}",
        none[0].plain_text()
    );
    assert!(none[0]
        .plain_text()
        .contains("Also rated here: ard-ri (3 players)"));
    // 90 days after Cara's only game she drops off; the others played later.
    assert!(h.bot.advance_clock(71 * DAY));
    let text = h.send(
        "cara",
        "c9",
        Command::Leaderboard {
            variant: Some(Variant::ArdRi),
        },
    )[0]
    .plain_text();
    assert!(!text.contains("cara"), "{text}");
    assert!(
        text.contains("1. @brian") && text.contains("2. @aoife"),
        "{text}"
    );
    assert!(h.bot.advance_clock(30 * DAY));
    let text = h.send("cara", "c9", Command::Leaderboard { variant: None })[0].plain_text();
    assert!(
        text.contains("No rated games in the last 90 days"),
        "{text}"
    );
}

#[test]
fn a_profile_shows_ratings_streak_last_results_and_games_in_progress() {
    let h = Harness::new(false);
    three_rated_games(&h);
    start(&h, "aoife", "brian", "c4", None);
    resign(&h, "aoife", "c4");
    start(&h, "cara", "aoife", "c5", Some(false));
    let p = h.send(
        "brian",
        "c9",
        Command::Profile {
            user: Some(user("aoife")),
        },
    );
    let text = p[0].plain_text();
    assert!(!p[0].ephemeral);
    assert!(p[0].mentions.is_empty(), "a profile pings nobody");
    assert!(text.starts_with("**Profile** · @aoife"), "{text}");
    assert!(
        text.contains("**Ard Rí (ard-ri)**: ")
            && text.contains("1W 1D 2L · streak: 2 losses · last five: L L D W"),
        "{text}"
    );
    assert!(text.contains("**Games in progress** (1):"), "{text}");
    assert!(text.contains("vs cara · cara's turn"), "{text}");
    // Without a user: the caller's own.
    let own = h.send("cara", "c9", Command::Profile { user: None })[0].plain_text();
    assert!(
        own.contains("@cara") && own.contains("0W 1D 0L · streak: 1 draw · last five: D"),
        "{own}"
    );
    // Whose turn, by name (issue 45: "their turn" said nothing).
    assert!(own.contains("vs aoife · cara's turn"), "{own}");
}

/// `tara-bot export` on the database the bot wrote, parsed.
fn export(h: &Harness, server: Option<&str>) -> Vec<serde_json::Value> {
    export_lines(h, server)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `tara-bot export` on the database the bot wrote, as the lines it prints.
fn export_lines(h: &Harness, server: Option<&str>) -> Vec<String> {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_tara-bot"));
    cmd.arg("export").arg("--db").arg(h.db());
    if let Some(s) = server {
        cmd.args(["--server", s]);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn export_writes_each_finished_game_with_its_ratings_oldest_first() {
    let h = Harness::new(false);
    three_rated_games(&h);
    // A casual Tara game, finished later, and an aborted one (not exported).
    assert!(h.bot.advance_clock(DAY));
    let mut v = Values::new()
        .with("opponent", Value::User(user("brian")))
        .with("variant", Value::Text("hkot-1".into()))
        .with("scoring", Value::Text("knots".into()))
        .with("first", Value::Text("opponent".into()))
        .with("rated", Value::Boolean(false));
    v.set("days", Value::Text("3".into()));
    h.send("cara", "c4", Command::parse("challenge", &v).unwrap());
    h.send("brian", "c4", Command::Accept { challenge: None });
    h.mv("brian", "c4", "D4");
    h.mv("cara", "c4", "B1");
    resign_now(&h, "cara", "c4");
    start(&h, "aoife", "cara", "c5", None);
    h.send(
        "aoife",
        "c5",
        Command::Abort {
            reason: None,
            game: None,
        },
    );

    let lines = export(&h, None);
    assert_eq!(lines.len(), 4);
    let ids: Vec<i64> = lines.iter().map(|l| l["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [1, 2, 3, 4]);
    // Game 1: Aoife (attackers) beat Brian by resignation; both rated from the start.
    let g1 = &lines[0];
    assert_eq!(g1["server"], "server");
    assert_eq!(g1["variant"], "ard-ri");
    // As `engine` prints it: Ard Rí has no scoring.
    assert!(g1["scoring"].is_null(), "{}", g1["scoring"]);
    assert_eq!(g1["first"], "attackers");
    assert_eq!(
        g1["players"],
        serde_json::json!({"attackers": "aoife", "defenders": "brian"})
    );
    assert_eq!(g1["moves"], "c1-c2 c5-c6");
    assert_eq!(
        g1["result"],
        serde_json::json!({"winner": "attackers", "reason": "resigned", "points": {"attackers": 1, "defenders": 0}})
    );
    assert_eq!(g1["rated"], true);
    assert_eq!(g1["ended_at"], "2026-11-30T00:00:00Z");
    let before = &g1["ratings"]["attackers"]["before"];
    assert_eq!(before, &serde_json::json!([1500.0, 350.0, 0.06]));
    let after = g1["ratings"]["attackers"]["after"][0].as_f64().unwrap();
    close(after, 1662.3109, "exported rating after game 1");
    // The line as printed: its keys in docs/cli.md's order, sides in seat order, `result`
    // as `engine` prints it, `before` before `after`.
    let raw = export_lines(&h, None);
    assert!(
        raw[0].starts_with(
            r#"{"id":1,"server":"server","variant":"ard-ri","scoring":null,"first":"attackers","players":{"attackers":"aoife","defenders":"brian"},"moves":"c1-c2 c5-c6","result":{"winner":"attackers","reason":"resigned","points":{"attackers":1,"defenders":0}},"rated":true,"ended_at":"2026-11-30T00:00:00Z","ratings":{"attackers":{"before":[1500.0,350.0,0.06],"after":[1662.31"#
        ),
        "{}",
        raw[0]
    );
    assert!(
        raw[0].contains(r#"},"defenders":{"before":[1500.0,350.0,0.06],"after":[1337.68"#),
        "{}",
        raw[0]
    );
    assert!(
        raw[3].contains(r#""players":{"red":"cara","blue":"brian"}"#),
        "{}",
        raw[3]
    );
    // Game 2: the drawn game's moves, canonical, and the engine's result for them.
    let g2 = &lines[1];
    let moves: Vec<String> = drawn_ard_ri().iter().map(|m| m.to_string()).collect();
    let stored = g2["moves"].as_str().unwrap();
    assert_eq!(stored, moves.join(" "));
    let engine = std::process::Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .args(["engine", "--variant", "ard-ri", "--moves", stored])
        .output()
        .unwrap();
    let pos: serde_json::Value = serde_json::from_slice(&engine.stdout).unwrap();
    assert_eq!(pos["status"], "finished");
    assert_eq!(g2["result"], pos["result"]);
    assert_eq!(g2["scoring"], pos["scoring"]);
    assert_eq!(g2["ended_at"], "2026-12-10T00:00:00Z");
    close(
        g2["ratings"]["attackers"]["before"][1].as_f64().unwrap(),
        290.5060,
        "exported RD grown by an idle week",
    );
    // The casual game: no ratings, Tara sides.
    let g4 = &lines[3];
    assert_eq!(g4["rated"], false);
    assert!(g4.get("ratings").is_none());
    assert_eq!(g4["scoring"], "knots");
    assert_eq!(g4["first"], "blue");
    assert_eq!(
        g4["players"],
        serde_json::json!({"red": "cara", "blue": "brian"})
    );
    assert_eq!(g4["moves"], "D4 B1");
    // Another server's games are left out with --server.
    assert_eq!(export(&h, Some("server")).len(), 4);
    assert!(export(&h, Some("elsewhere")).is_empty());
}

/// Sends a console line as `who` in `channel` (a moderator when `who` is "mod").
fn console(h: &Harness, who: &str, channel: &str, line: &str) -> Vec<Reply> {
    use tara_bot::console::{parse_line, Action};
    let Ok(Action::Run(cmd)) = parse_line(line) else {
        panic!("{line}");
    };
    let mut c = ctx(who, channel);
    c.moderator = who == "mod";
    h.bot.handle(&c, cmd)
}

/// A one-round Swiss of aoife and brian in Ard Rí (rated): its one pairing.
fn two_player_swiss(h: &Harness) -> tara_bot::store::PairingRow {
    console(
        h,
        "mod",
        "t",
        "/tournament create Duel ard-ri swiss rounds:1",
    );
    console(h, "aoife", "t", "/tournament join");
    console(h, "brian", "t", "/tournament join");
    let r = console(h, "mod", "t", "/tournament start");
    assert!(!r[0].ephemeral, "{}", texts(&r));
    let mut s = Store::open(h.db()).unwrap();
    let p = s.read(|tx| tx.pairings(TournamentId(1), None)).unwrap();
    assert_eq!(p.len(), 1, "{p:?}");
    p[0].clone()
}

/// docs/rules.md §9: a resignation before both players have moved is not rated; outside
/// tournaments the game is aborted.
#[test]
fn a_resignation_before_both_players_moved_is_not_rated() {
    let h = Harness::new(false);
    start(&h, "aoife", "brian", "c1", None);
    h.mv("aoife", "c1", "d2-c2");
    let r = resign_now(&h, "aoife", "c1");
    let t = texts(&r);
    assert!(
        t.contains("no rating change") && !t.contains("Ratings"),
        "{t}"
    );
    assert_eq!(rating(&h, "server", "aoife"), None);
    assert_eq!(rating(&h, "server", "brian"), None);
    assert!(changes(&h, "aoife").is_empty());
}

/// docs/rules.md §9 and §10 (forfeits): in a tournament, a resignation before both players have
/// moved is a forfeit: the opponent scores, the game is not rated.
#[test]
fn a_tournament_game_resigned_before_both_players_moved_is_an_unrated_forfeit() {
    let h = Harness::new(false);
    let p = two_player_swiss(&h);
    let ch = p.thread_key.clone().unwrap();
    let loser = p.player1.clone().unwrap();
    let r = h.send(
        loser.as_str(),
        &ch,
        Command::Resign {
            confirmed: false,
            game: None,
        },
    );
    assert_eq!(
        r[0].plain_text(),
        format!(
            "Before both players have moved, resigning a tournament game is a forfeit: {} scores \
             the point, and the game is not rated. Resign this game against {}?",
            p.player0, p.player0
        )
    );
    let r = resign_now(&h, loser.as_str(), &ch);
    let t = texts(&r);
    assert!(
        t.contains("resigned before both players had moved: a forfeit, not rated."),
        "{t}"
    );
    assert!(t.contains(&format!("{loser} forfeits")), "{t}");
    assert!(!t.contains("Ratings"), "{t}");
    assert_eq!(rating(&h, "server", "aoife"), None);
    assert_eq!(rating(&h, "server", "brian"), None);
    let mut s = Store::open(h.db()).unwrap();
    let after = s.read(|tx| tx.pairings(TournamentId(1), None)).unwrap();
    assert_eq!(
        after[0].result,
        Some(tara_bot::store::PairingResult::Forfeit1)
    );
    let g = s.read(|tx| tx.game(p.game_id.unwrap())).unwrap().unwrap();
    assert!(!g.rated);
}

/// A player withdrawn from a tournament game in which both players had not moved yet
/// forfeits it: unrated, unplayed for tiebreaks (docs/rules.md §10: forfeits).
#[test]
fn a_withdrawal_from_a_game_without_moves_is_an_unrated_forfeit() {
    let h = Harness::new(false);
    let p = two_player_swiss(&h);
    let quitter = p.player1.clone().unwrap();
    let r = console(&h, quitter.as_str(), "t", "/tournament withdraw");
    let t = texts(&r);
    assert!(
        t.contains("so this game is resigned as a forfeit (not rated).")
            && t.contains("1 game in progress is resigned as a forfeit."),
        "{t}"
    );
    assert!(!t.contains("Ratings"), "{t}");
    assert_eq!(rating(&h, "server", "aoife"), None);
    assert_eq!(rating(&h, "server", "brian"), None);
    let mut s = Store::open(h.db()).unwrap();
    let after = s.read(|tx| tx.pairings(TournamentId(1), None)).unwrap();
    assert_eq!(
        after[0].result,
        Some(tara_bot::store::PairingResult::Forfeit1)
    );
}
