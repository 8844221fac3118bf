//! Leagues through the bot core, typed as console lines (docs/rules.md §11.2): season 1 sorted
//! into divisions, every game played, the season's end with promotion and relegation worked
//! out by hand from the written rule, a join and a leave between seasons, the next season
//! started by the tick after the gap, once, and its divisions checked against the rule.

#[path = "../common/mod.rs"]
mod common;

use common::console::{cli, ctx, ok, opening, refused, send};
use common::{texts, Harness};
use tara_bot::bot::Reply;
use tara_bot::store::{LeagueId, LeagueMove, PairingRow, Store, TournamentId};

const CHANNEL: &str = "league";
const DAY: i64 = 24 * 3_600_000;

/// The divisions of `season`: name and players (in seed order).
fn divisions(h: &Harness, season: u32) -> Vec<(String, Vec<String>)> {
    let mut s = Store::open(h.db()).unwrap();
    s.read(|tx| {
        let mut out = Vec::new();
        for d in tx.league_divisions(LeagueId(1), Some(season))? {
            let mut players: Vec<String> = tx
                .entrants(d.tournament_id)?
                .into_iter()
                .map(|e| e.user_id.to_string())
                .collect();
            players.sort();
            out.push((d.division, players));
        }
        Ok::<_, tara_bot::store::StoreError>(out)
    })
    .unwrap()
}

fn division_tournaments(h: &Harness, season: u32) -> Vec<TournamentId> {
    let mut s = Store::open(h.db()).unwrap();
    s.read(|tx| tx.league_divisions(LeagueId(1), Some(season)))
        .unwrap()
        .into_iter()
        .map(|d| d.tournament_id)
        .collect()
}

fn pairings(h: &Harness, t: TournamentId) -> Vec<PairingRow> {
    let mut s = Store::open(h.db()).unwrap();
    s.read(|tx| tx.pairings(t, None)).unwrap()
}

/// Plays every game of the season: the player with the higher number wins (the other
/// resigns after both have moved). The replies of the last game.
fn play_season(h: &Harness, season: u32) -> Vec<Reply> {
    let mut last = Vec::new();
    for t in division_tournaments(h, season) {
        for p in pairings(h, t) {
            let Some(p1) = p.player1.clone() else {
                continue;
            };
            let ch = p.thread_key.clone().expect("started in a thread");
            opening(&h.bot, &ch, [p.player0.as_str(), p1.as_str()]);
            let loser = std::cmp::min(p.player0.to_string(), p1.to_string());
            last = ok(&h.bot, &loser, &ch, "/resign confirm");
        }
    }
    last
}

fn results(h: &Harness, season: u32) -> Vec<(String, String, u32, LeagueMove)> {
    let mut s = Store::open(h.db()).unwrap();
    s.read(|tx| tx.league_results(LeagueId(1)))
        .unwrap()
        .into_iter()
        .filter(|r| r.season == season)
        .map(|r| (r.user_id.to_string(), r.division, r.place, r.movement))
        .collect()
}

/// A league of divisions of 3 (single games, one promoted, one relegated) created by the
/// organiser with `days`, joined by p1, p2 and p3 a second apart and started: its one
/// division's tournament.
fn three_player_league(h: &Harness, name: &str, days: &str) -> TournamentId {
    ok(
        &h.bot,
        "mod",
        CHANNEL,
        &format!(
            "/league create {name} hkot-2 division-size:3 promote:1 relegate:1 match:no {days}"
        ),
    );
    for p in ["p1", "p2", "p3"] {
        ok(&h.bot, p, CHANNEL, "/league join");
        h.bot.advance_clock(1000);
    }
    ok(&h.bot, "mod", CHANNEL, "/league start");
    division_tournaments(h, 1)[0]
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn two_seasons_with_promotion_relegation_a_join_and_a_leave() {
    let h = Harness::new(false);
    let r = ok(
        &h.bot,
        "mod",
        CHANNEL,
        "/league create Samhain sacred-hill-1 division-size:4 promote:1 relegate:1 match:no rated:no days:none",
    );
    assert!(texts(&r).contains("League #1: Samhain"), "{}", texts(&r));
    for i in 1..=9 {
        ok(&h.bot, &format!("p{i}"), CHANNEL, "/league join");
        h.bot.advance_clock(1000);
    }
    let why = refused(&h.bot, "p1", CHANNEL, "/league start");
    assert!(why.contains("Only the organiser"), "{why}");
    let r = ok(&h.bot, "mod", CHANNEL, "/league start");
    assert!(texts(&r).contains("season 1"), "{}", texts(&r));
    // Season 1 (§11.2): 9 players, all unrated, so in the order they joined; divisions of 4
    // give D = 3: division 1 takes 4, level 2's 5 are dealt 3 and 2.
    assert_eq!(
        divisions(&h, 1),
        [
            ("1".to_string(), strings(&["p1", "p2", "p3", "p4"])),
            ("2a".to_string(), strings(&["p5", "p6", "p7"])),
            ("2b".to_string(), strings(&["p8", "p9"])),
        ]
    );
    // A join and a leave during season 1: p10 enters season 2; p2 goes at its end.
    let r = ok(&h.bot, "p10", CHANNEL, "/league join");
    assert!(texts(&r).contains("enter season 2"), "{}", texts(&r));
    let r = ok(&h.bot, "p2", CHANNEL, "/league leave");
    assert!(
        texts(&r).contains("at the end of season 1"),
        "{}",
        texts(&r)
    );
    // Standings mid-season show the places that move.
    let r = ok(&h.bot, "p5", CHANNEL, "/league standings");
    assert!(texts(&r).contains("division 2a (level 2)"), "{}", texts(&r));
    let last = play_season(&h, 1);
    let said = texts(&last);
    assert!(said.contains("season 1 is over"), "{said}");
    // Division 1 ends p4 3, p3 2, p2 1, p1 0; p2 leaves, so among those staying (p4, p3, p1)
    // level 1 promotes nobody and relegates the last, p1. 2a ends p7, p6, p5: p7 up, p5 down.
    // 2b ends p9, p8: p9 up, p8 down.
    use LeagueMove::*;
    let s = |u: &str, d: &str, p: u32, m: LeagueMove| (u.to_string(), d.to_string(), p, m);
    assert_eq!(
        results(&h, 1),
        [
            s("p4", "1", 1, Stay),
            s("p3", "1", 2, Stay),
            s("p2", "1", 3, Out),
            s("p1", "1", 4, Down),
            s("p7", "2a", 1, Up),
            s("p6", "2a", 2, Stay),
            s("p5", "2a", 3, Down),
            s("p9", "2b", 1, Up),
            s("p8", "2b", 2, Down),
        ]
    );
    assert!(said.contains("Champion:"), "{said}");
    // The next season starts 7 days after the last game, not before, and once.
    h.bot.advance_clock(7 * DAY - 60_000);
    h.bot.tick();
    assert!(divisions(&h, 2).is_empty());
    h.bot.advance_clock(120_000);
    let out = h.bot.tick();
    assert!(texts(&out).contains("season 2"), "{}", texts(&out));
    h.bot.tick();
    // Season 2 (§11.2): targets p3, p4, p7, p9 level 1; p1, p6 level 2; p5, p8 level 3; p10
    // new. 9 players again: [4], [3, 2]. Level 1 takes the four heading for it; level 2's 5
    // places take p1, p6, then p5, p8 (heading for level 3, which does not exist) and p10.
    // Within level 2, all unrated, by joining order: p1, p5, p6 | p8, p10.
    assert_eq!(
        divisions(&h, 2),
        [
            ("1".to_string(), strings(&["p3", "p4", "p7", "p9"])),
            ("2a".to_string(), strings(&["p1", "p5", "p6"])),
            ("2b".to_string(), strings(&["p10", "p8"])),
        ]
    );
    assert_eq!(division_tournaments(&h, 2).len(), 3);
    // A restart starts nothing again, and ends nothing twice.
    let mut h = h;
    h.restart();
    h.bot.tick();
    assert_eq!(division_tournaments(&h, 2).len(), 3);
    assert_eq!(results(&h, 1).len(), 9);
    assert!(results(&h, 2).is_empty());
    // History: the champion of season 1 and each player's path.
    let r = send(&h.bot, "p4", CHANNEL, "/league history");
    let hist = r[0].plain_text();
    assert!(hist.contains("Season 1: p4"), "{hist}");
    assert!(hist.contains("p7: S1 2a#1 ▲"), "{hist}");
    assert!(hist.contains("p2: S1 1#3 ✕"), "{hist}");
    let why = refused(&h.bot, "p2", CHANNEL, "/league leave");
    assert!(why.contains("not in"), "{why}");
    // `league export --json`: season 1 as it ended, season 2 as it is played.
    let db = h.db();
    let out = cli(&["league", "export", "--db", db.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(v["season"], 2);
    assert_eq!(v["seasons"][0]["ended"], true);
    assert_eq!(v["seasons"][0]["divisions"][1]["division"], "2a");
    assert_eq!(v["seasons"][0]["divisions"][1]["players"][0]["id"], "p7");
    assert_eq!(
        v["seasons"][0]["divisions"][1]["players"][0]["movement"],
        "up"
    );
    assert_eq!(v["seasons"][1]["ended"], false);
    assert_eq!(
        v["seasons"][1]["divisions"][0]["players"][0]["place"],
        serde_json::Value::Null
    );
    let tsv = cli(&["league", "export", "--db", db.to_str().unwrap(), "1"]);
    assert_eq!(tsv.lines().next(), Some("1\t1\t1\t1\tp4\tp4\tstay"));
}

#[test]
fn a_player_who_forfeits_more_than_half_of_their_games_is_withdrawn_from_the_league() {
    let h = Harness::new(false);
    let t = three_player_league(&h, "Quick", "days:1");
    // p1 and p2 play theirs; p3 never moves: each of p3's two games is forfeited (a timeout
    // before their first move), more than half of their games, so p3 is withdrawn.
    for p in pairings(&h, t) {
        let Some(p1) = p.player1.clone() else {
            continue;
        };
        let ch = p.thread_key.clone().unwrap();
        if p.player0 == "p3" || p1 == "p3" {
            let other = if p.player0 == "p3" { &p1 } else { &p.player0 };
            // The other player moves if it is their turn first.
            let offered = h.bot.autocomplete_move(&ctx(other.as_str(), &ch), "");
            if let Some(m) = offered.first() {
                ok(&h.bot, other.as_str(), &ch, &format!("/move {m}"));
            }
        } else {
            opening(&h.bot, &ch, [p.player0.as_str(), p1.as_str()]);
            ok(&h.bot, "p1", &ch, "/resign confirm");
        }
    }
    h.bot.advance_clock(2 * DAY);
    let out = h.bot.tick();
    let said = texts(&out);
    assert!(said.contains("p3 is withdrawn"), "{said}");
    assert!(said.contains("season 1 is over"), "{said}");
    let r = results(&h, 1);
    let p3 = r.iter().find(|x| x.0 == "p3").unwrap();
    assert_eq!(p3.3, LeagueMove::Out);
    let mut s = Store::open(h.db()).unwrap();
    let gone = s
        .read(|tx| tx.league_players(LeagueId(1)))
        .unwrap()
        .into_iter()
        .find(|p| p.user_id == "p3")
        .unwrap();
    assert!(gone.left_at.is_some());
    // With two players left, season 2 starts after the gap with them alone.
    h.bot.advance_clock(8 * DAY);
    h.bot.tick();
    assert_eq!(
        divisions(&h, 2),
        [("1".to_string(), strings(&["p1", "p2"]))]
    );
    // A season in progress is played out before the league closes (issue 45: the close is
    // taken now and done at the season's end, as the docs say, instead of refused).
    let r = ok(&h.bot, "mod", CHANNEL, "/league close");
    assert!(
        texts(&r).contains("season 2 is played out"),
        "{}",
        texts(&r)
    );
    let why = refused(&h.bot, "p1", CHANNEL, "/league close");
    assert!(why.contains("Only the organiser"), "{why}");
}

#[test]
fn a_league_closed_between_seasons_starts_none_and_bad_commands_are_explained() {
    let h = Harness::new(false);
    let why = refused(&h.bot, "p1", CHANNEL, "/league join");
    assert!(why.contains("no league"), "{why}");
    let why = refused(&h.bot, "p1", CHANNEL, "/league create Mine ard-ri");
    assert!(why.contains("Only moderators"), "{why}");
    let why = refused(
        &h.bot,
        "mod",
        CHANNEL,
        "/league create Mine ard-ri division-size:4 promote:4",
    );
    assert!(why.contains("at most 3"), "{why}");
    ok(&h.bot, "mod", CHANNEL, "/league create Mine ard-ri");
    ok(&h.bot, "p1", CHANNEL, "/league join");
    let why = refused(&h.bot, "mod", CHANNEL, "/league start");
    assert!(why.contains("at least two players"), "{why}");
    let why = refused(&h.bot, "p1", CHANNEL, "/league standings");
    assert!(why.contains("has not started"), "{why}");
    ok(&h.bot, "p2", CHANNEL, "/league join");
    ok(&h.bot, "mod", CHANNEL, "/league close");
    let why = refused(&h.bot, "mod", CHANNEL, "/league start");
    assert!(why.contains("no league"), "{why}");
    h.bot.advance_clock(30 * DAY);
    h.bot.tick();
    assert!(divisions(&h, 1).is_empty());
}

/// docs/operating.md, "Discord's limits": a season whose games would open more than 50
/// threads at once (11 players: 55 games) plays each division in one thread, opened by one
/// message that lists its games; a command there names its game with `game:` when the thread
/// holds several of the player's, and says which are theirs when it does not.
#[test]
fn a_season_of_more_than_fifty_games_plays_each_division_in_one_thread() {
    let h = Harness::new(false);
    ok(
        &h.bot,
        "mod",
        CHANNEL,
        "/league create Big hkot-2 division-size:11 promote:1 relegate:1 match:no rated:no days:none",
    );
    for i in 1..=11 {
        ok(&h.bot, &format!("p{i:02}"), CHANNEL, "/league join");
        h.bot.advance_clock(1000);
    }
    let r = ok(&h.bot, "mod", CHANNEL, "/league start");
    assert!(
        texts(&r).contains("every game at once in its division's thread"),
        "{}",
        texts(&r)
    );
    let t = division_tournaments(&h, 1)[0];
    let key = format!("t{t}");
    let all = pairings(&h, t);
    // 55 games, and a bye a round for the odd player out.
    assert_eq!(all.iter().filter(|p| p.player1.is_some()).count(), 55);
    assert!(all
        .iter()
        .all(|p| p.thread_key.as_deref() == Some(key.as_str())));
    // One message opens the thread and lists the 55 games; no message a game.
    let opening_messages: Vec<&Reply> = r
        .iter()
        .filter(|m| m.channel.as_ref().is_some_and(|c| *c == key.as_str()))
        .collect();
    assert_eq!(opening_messages.len(), 1, "{}", texts(&r));
    let first = opening_messages[0].plain_text();
    assert!(
        first.contains("55 games** in this thread") || first.contains("55 games in this thread"),
        "{first}"
    );
    assert_eq!(first.matches("\n• game ").count(), 55, "{first}");
    assert!(opening_messages[0]
        .thread
        .as_ref()
        .is_some_and(|th| th.name.contains("division 1")));
    // The division's message links the thread once a player, with their number of games.
    let division = texts(&r);
    assert!(division.contains("(10 games)"), "{division}");
    // Ten of p01's games are in the thread: a command that names none is refused with them.
    let why = refused(&h.bot, "p01", &key, "/board");
    assert!(
        why.contains("10 games of yours") && why.contains("game:"),
        "{why}"
    );
    let why = refused(&h.bot, "p01", &key, "/move D4");
    assert!(why.contains("game:"), "{why}");
    // A game of another channel, or one that does not exist, is refused by name.
    let why = refused(&h.bot, "p01", &key, "/board game:999");
    assert!(why.contains("no game #999"), "{why}");
    // Every game played with `game:`: both players move once, the lower number resigns.
    for p in &all {
        let Some(p1) = p.player1.clone() else {
            continue;
        };
        let id = p.game_id.expect("started").0;
        for _ in 0..2 {
            let (who, m) = [p.player0.to_string(), p1.to_string()]
                .into_iter()
                .find_map(|who| {
                    let offered = h.bot.autocomplete_move_in(
                        &ctx(&who, &key),
                        "",
                        Some(tara_bot::store::GameId(id)),
                    );
                    offered.first().map(|m| (who.clone(), m.clone()))
                })
                .expect("a player on move");
            ok(&h.bot, &who, &key, &format!("/move game:{id} {m}"));
        }
        let loser = std::cmp::min(p.player0.to_string(), p1.to_string());
        ok(&h.bot, &loser, &key, &format!("/resign confirm game:{id}"));
    }
    // The season is over: every player placed.
    assert_eq!(results(&h, 1).len(), 11);
}

/// Issue 44's league through the bot core: 200 players in 20 divisions of 10 (two-game matches,
/// a day a move), every division in one thread; season 1 played to its end with results drawn
/// by a seeded generator (a resignation after a move each, or a loss on time after a move
/// each), one player withdrawn by the organiser; then season 2 started by the tick. Every game
/// ends, none is lost, and every pairing has its result.
#[test]
fn a_200_player_league_plays_its_season_a_thread_a_division_and_the_tick_starts_the_next() {
    use tara_bot::store::{GameId, GameStatus};
    let h = Harness::new(false);
    ok(
        &h.bot,
        "mod",
        CHANNEL,
        "/league create Mor hkot-2 days:1 rated:no",
    );
    for i in 1..=200 {
        ok(&h.bot, &format!("p{i:03}"), CHANNEL, "/league join");
        h.bot.advance_clock(10);
    }
    let r = ok(&h.bot, "mod", CHANNEL, "/league start");
    assert!(
        texts(&r).contains("20 divisions, every game at once in its division's thread"),
        "{}",
        texts(&r)
    );
    let divisions = division_tournaments(&h, 1);
    assert_eq!(divisions.len(), 20);
    // One message opens each division's thread; each player is pinged once, in their
    // division's message.
    for t in &divisions {
        let key = format!("t{t}");
        let firsts = r
            .iter()
            .filter(|m| m.channel.as_ref().is_some_and(|c| *c == key.as_str()))
            .count();
        assert_eq!(firsts, 1, "{key}");
        assert!(pairings(&h, *t)
            .iter()
            .all(|p| p.thread_key.as_deref() == Some(key.as_str())));
    }
    for i in 1..=200 {
        let pinged = r
            .iter()
            .filter(|m| m.mentions.iter().any(|u| *u == format!("p{i:03}").as_str()))
            .count();
        assert_eq!(pinged, 1, "p{i:03}");
    }
    // The organiser withdraws a player: their games become forfeits.
    let last = divisions[19];
    let r = ok(
        &h.bot,
        "mod",
        CHANNEL,
        &format!("/tournament withdraw player:@p200 id:{last}"),
    );
    assert!(texts(&r).contains("withdrawn"), "{}", texts(&r));
    // One connection beside the bot's, read again for each question (opening a store checks
    // the whole database).
    let reader = std::cell::RefCell::new(Store::open(h.db()).unwrap());
    let active = |_: &Harness| -> Vec<(String, GameId)> {
        reader
            .borrow_mut()
            .read(|tx| {
                let mut out = Vec::new();
                for t in &divisions {
                    for p in tx.pairings(*t, None)? {
                        if let Some(g) = p.game_id.and_then(|id| tx.game(id).ok().flatten()) {
                            if g.status == GameStatus::Active {
                                out.push((g.channel_id.to_string(), g.id));
                            }
                        }
                    }
                }
                Ok::<_, tara_bot::store::StoreError>(out)
            })
            .unwrap()
    };
    let seats = |_: &Harness, id: GameId| -> [String; 2] {
        let g = reader.borrow_mut().read(|tx| tx.game(id)).unwrap().unwrap();
        [g.seats.first().to_string(), g.seats.second().to_string()]
    };
    // A game whose number is a multiple of 7 is lost on time after a move each; every other
    // is resigned after a move each by the player with the lower name.
    let mut ended = 0;
    let mut timeouts = 0;
    for _round in 0..20 {
        loop {
            let todo: Vec<(String, GameId)> = active(&h)
                .into_iter()
                .filter(|(_, id)| id.0 % 7 != 0)
                .collect();
            if todo.is_empty() {
                break;
            }
            for (ch, id) in todo {
                let two = seats(&h, id);
                for _ in 0..2 {
                    let (who, m) = two
                        .iter()
                        .find_map(|w| {
                            let offered = h.bot.autocomplete_move_in(&ctx(w, &ch), "", Some(id));
                            offered.first().map(|m| (w.clone(), m.clone()))
                        })
                        .expect("a player on move");
                    ok(&h.bot, &who, &ch, &format!("/move game:{} {m}", id.0));
                }
                let loser = two.iter().min().unwrap().clone();
                ok(
                    &h.bot,
                    &loser,
                    &ch,
                    &format!("/resign confirm game:{}", id.0),
                );
                ended += 1;
            }
        }
        let late = active(&h);
        if late.is_empty() {
            break;
        }
        for (ch, id) in &late {
            let two = seats(&h, *id);
            for _ in 0..2 {
                let (who, m) = two
                    .iter()
                    .find_map(|w| {
                        let offered = h.bot.autocomplete_move_in(&ctx(w, ch), "", Some(*id));
                        offered.first().map(|m| (w.clone(), m.clone()))
                    })
                    .expect("a player on move");
                ok(&h.bot, &who, ch, &format!("/move game:{} {m}", id.0));
            }
        }
        // Two days later the player on move in each has run out of time.
        h.bot.advance_clock(2 * DAY);
        h.bot.tick();
        timeouts += late.len();
        assert!(
            active(&h)
                .iter()
                .all(|(_, id)| !late.iter().any(|(_, l)| l == id)),
            "a game not timed out"
        );
    }
    assert!(active(&h).is_empty(), "games left in progress");
    assert!(
        ended > 1_000 && timeouts > 100,
        "{ended} resigned, {timeouts} on time"
    );
    println!("200-player league, season 1: {ended} games resigned, {timeouts} lost on time");
    // Every pairing has its result; every player but the withdrawn one has a place.
    for t in &divisions {
        assert!(pairings(&h, *t).iter().all(|p| p.result.is_some()), "t{t}");
    }
    let placed = results(&h, 1);
    assert!(placed.len() >= 199, "{}", placed.len());
    // Season 2 starts 7 days after the last game, by the tick, a thread a division again.
    h.bot.advance_clock(7 * DAY + 60_000);
    let out = h.bot.tick();
    assert!(texts(&out).contains("season 2"), "{}", texts(&out));
    let second = division_tournaments(&h, 2);
    assert!(second.len() >= 19, "{}", second.len());
    for t in &second {
        assert!(pairings(&h, *t)
            .iter()
            .all(|p| p.thread_key.as_deref() == Some(format!("t{t}").as_str())));
    }
}

/// docs/rules.md §11.2: unrated players are placed in the order they joined, also when they
/// join in the same millisecond (the store keeps a join sequence, not only the time).
#[test]
fn players_joining_in_the_same_millisecond_keep_their_order() {
    let h = Harness::new(false);
    ok(
        &h.bot,
        "mod",
        CHANNEL,
        "/league create Order hkot-2 division-size:3 promote:1 relegate:1 match:no days:none",
    );
    for p in ["z6", "y5", "x4", "w3", "v2", "u1"] {
        ok(&h.bot, p, CHANNEL, "/league join");
    }
    ok(&h.bot, "mod", CHANNEL, "/league start");
    let d = divisions(&h, 1);
    assert_eq!(d[0], ("1".to_string(), strings(&["x4", "y5", "z6"])));
}

/// docs/rules.md §11.2: promotion and relegation under which a division keeps nobody, or
/// nobody ever moves, are refused with the limits; small divisions get defaults that fit.
#[test]
fn league_settings_that_keep_nobody_are_refused_with_the_limits() {
    let h = Harness::new(false);
    let why = refused(
        &h.bot,
        "mod",
        CHANNEL,
        "/league create A hkot-2 division-size:3 promote:2 relegate:2",
    );
    assert!(
        why.contains("together are at most 2") && why.contains("up to 20"),
        "{why}"
    );
    let why = refused(&h.bot, "mod", CHANNEL, "/league create B hkot-2 promote:0");
    assert!(why.contains("each at least 1"), "{why}");
    let why = refused(&h.bot, "mod", CHANNEL, "/league create C hkot-2 relegate:0");
    assert!(why.contains("each at least 1"), "{why}");
    let r = ok(
        &h.bot,
        "mod",
        CHANNEL,
        "/league create D hkot-2 division-size:3",
    );
    assert!(
        texts(&r).contains("1 promoted, 1 relegated"),
        "{}",
        texts(&r)
    );
    let r = ok(&h.bot, "mod", CHANNEL, "/league create E hkot-2");
    assert!(
        texts(&r).contains("2 promoted, 3 relegated"),
        "{}",
        texts(&r)
    );
}

/// docs/commands.md: `/league close` during a season closes the league when the season ends:
/// the season is played out, nobody joins meanwhile, and no season starts after it.
#[test]
fn a_league_closed_during_a_season_closes_when_the_season_ends() {
    let h = Harness::new(false);
    ok(
        &h.bot,
        "mod",
        CHANNEL,
        "/league create Last hkot-2 division-size:3 match:no rated:no days:none",
    );
    for p in ["p1", "p2", "p3"] {
        ok(&h.bot, p, CHANNEL, "/league join");
        h.bot.advance_clock(1000);
    }
    ok(&h.bot, "mod", CHANNEL, "/league start");
    let r = ok(&h.bot, "mod", CHANNEL, "/league close");
    assert!(
        texts(&r).contains("season 1 is played out, and no season starts after it"),
        "{}",
        texts(&r)
    );
    let why = refused(&h.bot, "mod", CHANNEL, "/league close");
    assert!(why.contains("already closes"), "{why}");
    let why = refused(&h.bot, "p4", CHANNEL, "/league join");
    assert!(why.contains("closes when season 1 ends"), "{why}");
    let last = play_season(&h, 1);
    let said = texts(&last);
    assert!(
        said.contains("season 1 is over") && said.contains("The league is closed now"),
        "{said}"
    );
    assert_eq!(results(&h, 1).len(), 3);
    h.bot.advance_clock(30 * DAY);
    h.bot.tick();
    assert!(division_tournaments(&h, 2).is_empty());
    let why = refused(&h.bot, "p1", CHANNEL, "/league join");
    assert!(why.contains("no league"), "{why}");
}

/// Issue 45: with two leagues in a channel, a command that names none asks which, rather than
/// picking the newest.
#[test]
fn two_leagues_in_a_channel_ask_which() {
    let h = Harness::new(false);
    ok(&h.bot, "mod", CHANNEL, "/league create First hkot-2");
    ok(&h.bot, "mod", CHANNEL, "/league create Second ard-ri");
    let why = refused(&h.bot, "p1", CHANNEL, "/league join");
    assert!(
        why.contains("This channel has several leagues")
            && why.contains("`id:1` First")
            && why.contains("`id:2` Second"),
        "{why}"
    );
    let r = ok(&h.bot, "p1", CHANNEL, "/league join id:1");
    assert!(texts(&r).contains("First"), "{}", texts(&r));
}

/// Issue 45: one rule for places in a league. Three players who beat each other in a circle
/// are level on every tiebreak: `/league standings` gives each a place of their own, by seed
/// (docs/rules.md §11.2), and says so under the table; the season's end names the champion
/// and says why; `/league history` and `league export` give the same places.
#[test]
fn players_level_on_every_tiebreak_are_placed_by_seed_everywhere() {
    let h = Harness::new(false);
    let t = three_player_league(&h, "Circle", "days:none");
    let beats = |a: &str, b: &str| matches!((a, b), ("p1", "p2") | ("p2", "p3") | ("p3", "p1"));
    let mut end = Vec::new();
    for p in pairings(&h, t) {
        let Some(p1) = p.player1.clone() else {
            continue;
        };
        let ch = p.thread_key.clone().expect("started in a thread");
        opening(&h.bot, &ch, [p.player0.as_str(), p1.as_str()]);
        let loser = if beats(p.player0.as_str(), p1.as_str()) {
            p1.to_string()
        } else {
            p.player0.to_string()
        };
        end = ok(&h.bot, &loser, &ch, "/resign confirm");
    }
    let said = texts(&end);
    assert!(
        said.contains(
            "Champion: @p1 (level with p2, p3 on every tiebreak: the higher seed takes the title)."
        ),
        "{said}"
    );
    let r = ok(&h.bot, "p2", CHANNEL, "/league standings");
    let table = texts(&r);
    assert!(!table.contains("1="), "{table}");
    for (place, who) in [(1, "p1"), (2, "p2"), (3, "p3")] {
        assert!(
            table
                .lines()
                .any(|l| l.contains(&format!(" {place}  {who} "))),
            "{who} at {place}: {table}"
        );
    }
    assert!(
        table.contains("Level on every tiebreak, so placed by seed (docs/rules.md §11.2): p1 above p2 above p3."),
        "{table}"
    );
    assert_eq!(
        results(&h, 1)
            .iter()
            .map(|r| (r.0.as_str(), r.2))
            .collect::<Vec<_>>(),
        [("p1", 1), ("p2", 2), ("p3", 3)]
    );
    let history = texts(&send(&h.bot, "p1", CHANNEL, "/league history"));
    assert!(history.contains("Season 1: p1"), "{history}");
    assert!(history.contains("p2: S1 1#2"), "{history}");
    let db = h.db();
    let tsv = cli(&["league", "export", "--db", db.to_str().unwrap(), "1"]);
    let places: Vec<(&str, &str)> = tsv
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[4], f[3])
        })
        .collect();
    assert_eq!(places, [("p1", "1"), ("p2", "2"), ("p3", "3")], "{tsv}");
}
