//! Ladders through the bot core, typed as console lines (docs/rules.md §11): joining at the
//! bottom, the reach of a challenge, the limits on challenges, a challenger's win moving them
//! to just above the loser, results that change nothing, the rematch ban, leaving, and a
//! player who never moves taken off the ladder. Every rank is checked against the rule.

#[path = "../common/mod.rs"]
mod common;

use common::console::{cli, ok, opening, refused, send};
use common::{texts, Harness};
use tara_bot::store::{LadderId, LadderResult, Store};

const CHANNEL: &str = "ladder";
const DAY: i64 = 24 * 3_600_000;

/// The ladder's players, top first.
fn ranks(h: &Harness) -> Vec<String> {
    let mut s = Store::open(h.db()).unwrap();
    s.read(|tx| tx.ladder_players(LadderId(1)))
        .unwrap()
        .into_iter()
        .map(|p| p.user_id.to_string())
        .collect()
}

fn names(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("p{i:02}")).collect()
}

/// Ladder 1 with players p01..pNN joined in order (so ranked in that order).
fn setup(h: &Harness, create: &str, n: usize) {
    let r = ok(&h.bot, "mod", CHANNEL, create);
    assert!(texts(&r).contains("Ladder #1"), "{}", texts(&r));
    for (i, p) in names(n).iter().enumerate() {
        let r = ok(&h.bot, p, CHANNEL, "/ladder join");
        assert!(
            texts(&r).contains(&format!("at rank {}", i + 1)),
            "{}",
            texts(&r)
        );
    }
    assert_eq!(ranks(h), names(n));
}

/// The thread key of the ladder game between `a` and `b` in progress.
fn thread_of(h: &Harness, a: &str, b: &str) -> String {
    let mut s = Store::open(h.db()).unwrap();
    s.read(|tx| tx.ladder_games(LadderId(1), true))
        .unwrap()
        .into_iter()
        .find(|g| g.challenger_id == a && g.defender_id == b)
        .map(|g| g.thread_key)
        .expect("a ladder game in progress")
}

#[test]
fn a_challenger_who_wins_moves_just_above_the_loser() {
    let h = Harness::new(false);
    setup(&h, "/ladder create Autumn sacred-hill-1 days:none", 14);
    // p14 (rank 14, 14th by rating: everyone is unrated) reaches 10 places up: ranks 4 to 13.
    let why = refused(&h.bot, "p14", CHANNEL, "/ladder challenge @p03");
    assert!(
        why.contains("from rank 14 you may challenge ranks 4 to 13"),
        "{why}"
    );
    let why = refused(&h.bot, "p03", CHANNEL, "/ladder challenge @p14");
    assert!(why.contains("not above you"), "{why}");
    let r = ok(&h.bot, "p14", CHANNEL, "/ladder challenge @p04");
    // The game starts at once, in the thread of its key, with both players pinged; the
    // ladder's channel is told.
    let thread = thread_of(&h, "p14", "p04");
    assert_eq!(thread, "l1-g1");
    let start = r
        .iter()
        .find(|r| r.thread.is_some())
        .expect("the game's start opens its thread");
    assert_eq!(start.thread.as_ref().unwrap().key, thread);
    assert_eq!(start.thread.as_ref().unwrap().parent, CHANNEL);
    assert!(
        start.plain_text().contains("Game on!"),
        "{}",
        start.plain_text()
    );
    assert_eq!(start.mentions.len(), 2);
    assert!(
        texts(&r).contains("(rank 14) challenges")
            && texts(&r).contains("(rank 4): game #1 starts now"),
        "{}",
        texts(&r)
    );
    // Resigned over the board by the defender: p14 takes rank 4, p04..p13 move down one.
    opening(&h.bot, &thread, ["p14", "p04"]);
    let r = ok(&h.bot, "p04", &thread, "/resign confirm");
    let said = texts(&r);
    assert!(
        said.contains("p14 beat p04 and climbs from rank 14 to rank 4"),
        "{said}"
    );
    assert!(!said.contains("Rematch"), "{said}");
    let mut expected = names(14);
    let p14 = expected.pop().unwrap();
    expected.insert(3, p14);
    assert_eq!(ranks(&h), expected);
    // The same pair may not meet again for 7 days, whoever challenges.
    let why = refused(&h.bot, "p04", CHANNEL, "/ladder challenge @p14");
    assert!(why.contains("less than 7 days ago"), "{why}");
    h.bot.advance_clock(7 * DAY + 1);
    ok(&h.bot, "p04", CHANNEL, "/ladder challenge @p14");
    // A defender's win changes nothing.
    let thread = thread_of(&h, "p04", "p14");
    opening(&h.bot, &thread, ["p04", "p14"]);
    let r = ok(&h.bot, "p04", &thread, "/resign confirm");
    assert!(
        texts(&r).contains("the ladder does not change: the defender keeps the place"),
        "{}",
        texts(&r)
    );
    assert_eq!(ranks(&h), expected);
    let mut s = Store::open(h.db()).unwrap();
    let results: Vec<Option<LadderResult>> = s
        .read(|tx| tx.ladder_games(LadderId(1), false))
        .unwrap()
        .into_iter()
        .map(|g| g.result)
        .collect();
    assert_eq!(
        results,
        [Some(LadderResult::Challenger), Some(LadderResult::Defender)]
    );
    // `ladder export --json`: the ranks and the games as stored.
    let db = h.db();
    let out = cli(&["ladder", "export", "--db", db.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(v["name"], "Autumn");
    assert_eq!(v["variant"], "sacred-hill-1");
    assert_eq!(v["days_per_move"], serde_json::Value::Null);
    let exported: Vec<&str> = v["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(exported, expected);
    assert_eq!(v["players"][3]["rank"], 4);
    assert_eq!(v["games"][0]["result"], "challenger");
    assert_eq!(v["games"][1]["result"], "defender");
    assert_eq!(v["games"][0]["challenger"], "p14");
    let tsv = cli(&["ladder", "export", "--db", db.to_str().unwrap(), "1"]);
    assert_eq!(tsv.lines().nth(3), Some("1\tAutumn\t4\tp14\tp14"));
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .args(["ladder", "export", "--db", db.to_str().unwrap(), "9"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no ladder #9"));
}

#[test]
fn challenges_are_limited_going_out_and_coming_in() {
    let h = Harness::new(false);
    setup(&h, "/ladder create Limits ard-ri days:none", 16);
    // At most 3 outgoing.
    for t in ["p10", "p11", "p12"] {
        ok(&h.bot, "p16", CHANNEL, &format!("/ladder challenge @{t}"));
    }
    let why = refused(&h.bot, "p16", CHANNEL, "/ladder challenge @p13");
    assert!(why.contains("already have 3 ladder challenges"), "{why}");
    // Rank 12 (11+) takes at most 3 incoming: p16's, then p15's and p14's.
    ok(&h.bot, "p15", CHANNEL, "/ladder challenge @p12");
    ok(&h.bot, "p14", CHANNEL, "/ladder challenge @p12");
    let why = refused(&h.bot, "p13", CHANNEL, "/ladder challenge @p12");
    assert!(
        why.contains("(rank 12) already has 3 ladder challenges"),
        "{why}"
    );
    // Rank 5 (1–5) takes 5.
    for c in ["p06", "p07", "p08", "p09", "p13"] {
        ok(&h.bot, c, CHANNEL, "/ladder challenge @p05");
    }
    let why = refused(&h.bot, "p15", CHANNEL, "/ladder challenge @p05");
    assert!(why.contains("(rank 5) already has 5"), "{why}");
    // Rank 8 (6–10) takes 4.
    for c in ["p09", "p11", "p13", "p14"] {
        ok(&h.bot, c, CHANNEL, "/ladder challenge @p08");
    }
    let why = refused(&h.bot, "p15", CHANNEL, "/ladder challenge @p08");
    assert!(why.contains("(rank 8) already has 4"), "{why}");
    // One game at a time between a pair.
    let why = refused(&h.bot, "p16", CHANNEL, "/ladder challenge @p10");
    assert!(why.contains("already have"), "{why}");
    // /ladder show lists the reach, whom the caller may challenge now, and their games.
    let r = send(&h.bot, "p16", CHANNEL, "/ladder show");
    assert!(r[0].ephemeral);
    let shown = r[0].plain_text();
    assert!(
        shown.contains("From rank 16 you may challenge ranks 6 to 15"),
        "{shown}"
    );
    assert!(shown.contains("Your ladder games in progress"), "{shown}");
    // Who challenged whom, in words (issue 45: "p10 you challenged").
    assert!(shown.contains("\n· you challenged p10: "), "{shown}");
    let p12 = send(&h.bot, "p12", CHANNEL, "/ladder show")[0].plain_text();
    assert!(p12.contains("\n· p16 challenged you: "), "{p12}");
    // p16 has three challenges out: nobody is open to one from them now.
    assert!(shown.contains("but nobody there now"), "{shown}");
    assert!(
        shown.contains("16. p16 · 3 games in progress ← you"),
        "{shown}"
    );
    let shown = send(&h.bot, "p13", CHANNEL, "/ladder show")[0].plain_text();
    // p13 reaches ranks 3 to 12; it already plays p05 and p08, and p12 is full.
    assert!(
        shown.contains(
            "open to a challenge now: 3. p03, 4. p04, 6. p06, 7. p07, 9. p09, 10. p10, 11. p11."
        ),
        "{shown}"
    );
}

#[test]
fn the_rating_order_and_the_share_above_widen_the_reach() {
    let h = Harness::new(false);
    setup(&h, "/ladder create Wide hkot-2 days:none", 31);
    // Rank 31 has 30 players above: 40% is 12 places, ranks 19 to 30.
    let why = refused(&h.bot, "p31", CHANNEL, "/ladder challenge @p18");
    assert!(why.contains("ranks 19 to 30"), "{why}");
    ok(&h.bot, "p31", CHANNEL, "/ladder challenge @p19");
}

#[test]
fn leaving_and_a_no_show_take_players_off_the_ladder() {
    let h = Harness::new(false);
    setup(&h, "/ladder create Quick hkot-1 days:1", 5);
    let r = ok(&h.bot, "p02", CHANNEL, "/ladder leave");
    assert!(texts(&r).contains("was rank 2"), "{}", texts(&r));
    assert_eq!(ranks(&h), ["p01", "p03", "p04", "p05"]);
    let why = refused(&h.bot, "p02", CHANNEL, "/ladder challenge @p01");
    assert!(why.contains("not on"), "{why}");
    // Nobody moves: the first mover's time runs out before any move.
    ok(&h.bot, "p05", CHANNEL, "/ladder challenge @p01");
    let thread = thread_of(&h, "p05", "p01");
    let game = common::active(&h.db(), &thread).expect("the ladder game");
    let first = game.seats[game.options.first].to_string();
    h.bot.advance_clock(2 * DAY);
    let out = h.bot.tick();
    assert!(
        texts(&out).contains(&format!(
            "{first} ran out of time before any move and is taken off"
        )),
        "{}",
        texts(&out)
    );
    // Said once in the game's thread and once in the ladder's channel (issue 45: it was
    // twice in the thread and never in the channel).
    let notice = format!("{first} ran out of time before any move");
    let said_in = |channel: &str| {
        out.iter()
            .filter(|r| r.channel.as_ref().is_some_and(|c| *c == channel))
            .filter(|r| r.plain_text().contains(&notice))
            .count()
    };
    assert_eq!(said_in(&thread), 1, "{}", texts(&out));
    assert_eq!(said_in(CHANNEL), 1, "{}", texts(&out));
    let left: Vec<String> = ["p01", "p03", "p04", "p05"]
        .into_iter()
        .filter(|p| *p != first)
        .map(String::from)
        .collect();
    assert_eq!(ranks(&h), left);
    // A restart changes nothing more.
    let mut h = h;
    h.restart();
    h.bot.tick();
    assert_eq!(ranks(&h), left);
}

#[test]
fn bad_ladder_commands_get_clear_answers() {
    let h = Harness::new(false);
    let why = refused(&h.bot, "p01", CHANNEL, "/ladder join");
    assert!(why.contains("no open ladder"), "{why}");
    let why = refused(&h.bot, "p01", CHANNEL, "/ladder create Mine hkot-1");
    assert!(why.contains("Only moderators"), "{why}");
    setup(&h, "/ladder create Autumn sacred-hill-2", 2);
    let why = refused(&h.bot, "p01", CHANNEL, "/ladder join");
    assert!(why.contains("already on"), "{why}");
    let why = refused(&h.bot, "p03", CHANNEL, "/ladder challenge @p01");
    assert!(why.contains("not on"), "{why}");
    let why = refused(&h.bot, "p02", CHANNEL, "/ladder challenge @p02");
    assert!(why.contains("yourself"), "{why}");
    let why = refused(&h.bot, "p02", CHANNEL, "/ladder challenge @p09");
    assert!(why.contains("p09 is not on"), "{why}");
    let why = refused(&h.bot, "p01", CHANNEL, "/ladder close");
    assert!(why.contains("Only the organiser"), "{why}");
    ok(&h.bot, "mod", CHANNEL, "/ladder close");
    let why = refused(&h.bot, "p02", CHANNEL, "/ladder challenge @p01");
    assert!(
        why.contains("closed") || why.contains("no open ladder"),
        "{why}"
    );
    let why = refused(&h.bot, "p01", CHANNEL, "/ladder show id:9");
    assert!(why.contains("no ladder #9"), "{why}");
    // A closed ladder offers no challenges (issue 45).
    let shown = texts(&send(&h.bot, "p02", CHANNEL, "/ladder show id:1"));
    assert!(!shown.contains("open to a challenge"), "{shown}");
    assert!(shown.contains("takes no more challenges"), "{shown}");
}

/// docs/rules.md §9 and §11.1: a ladder game resigned before both players moved is a forfeit,
/// so nobody dodges a challenge: the challenged player's forfeit moves the challenger up as a
/// win would, the challenger's changes nothing, the game is unrated, and either starts the
/// 7-day wait between the two; a moderator's abort does not.
#[test]
fn resigning_a_ladder_game_before_both_moved_is_a_forfeit_that_counts() {
    let h = Harness::new(false);
    setup(&h, "/ladder create Dodge hkot-1 days:none", 6);
    // The challenged player resigns at once: a forfeit, and the challenger climbs.
    ok(&h.bot, "p06", CHANNEL, "/ladder challenge @p05");
    let thread = thread_of(&h, "p06", "p05");
    let ask = send(&h.bot, "p05", &thread, "/resign");
    assert!(ask[0].plain_text().contains("a forfeit"), "{}", texts(&ask));
    let r = ok(&h.bot, "p05", &thread, "/resign confirm");
    let said = texts(&r);
    assert!(said.contains("a forfeit, not rated"), "{said}");
    assert!(
        said.contains("p06 beat p05 and climbs from rank 6 to rank 5"),
        "{said}"
    );
    assert_eq!(ranks(&h), ["p01", "p02", "p03", "p04", "p06", "p05"]);
    let why = refused(&h.bot, "p05", CHANNEL, "/ladder challenge @p06");
    assert!(why.contains("less than 7 days ago"), "{why}");
    // The challenger resigns at once: a forfeit too, which changes nothing, and the wait starts.
    ok(&h.bot, "p04", CHANNEL, "/ladder challenge @p03");
    let thread = thread_of(&h, "p04", "p03");
    let r = ok(&h.bot, "p04", &thread, "/resign confirm");
    assert!(texts(&r).contains("a forfeit"), "{}", texts(&r));
    assert_eq!(ranks(&h), ["p01", "p02", "p03", "p04", "p06", "p05"]);
    let why = refused(&h.bot, "p04", CHANNEL, "/ladder challenge @p03");
    assert!(why.contains("less than 7 days ago"), "{why}");
    // A moderator's abort is no result and starts no wait.
    ok(&h.bot, "p02", CHANNEL, "/ladder challenge @p01");
    let thread = thread_of(&h, "p02", "p01");
    ok(&h.bot, "mod", &thread, "/abort reason:misclick");
    ok(&h.bot, "p02", CHANNEL, "/ladder challenge @p01");
    let mut s = Store::open(h.db()).unwrap();
    let games = s.read(|tx| tx.ladder_games(LadderId(1), false)).unwrap();
    let results: Vec<Option<LadderResult>> = games.iter().map(|g| g.result).collect();
    assert_eq!(
        results,
        [
            Some(LadderResult::Challenger),
            Some(LadderResult::Defender),
            Some(LadderResult::Aborted),
            None
        ]
    );
    // The forfeits are unrated.
    for g in &games[..2] {
        let id = g.game_id.expect("a game");
        assert!(!s.read(|tx| tx.game(id)).unwrap().unwrap().rated);
    }
}

/// Issue 45: `ladder export` gives Ard Rí's scoring as `null`, as `engine` and `export` do
/// (Ard Rí has no scoring); a Tara ladder's is its scoring.
#[test]
fn ladder_export_gives_no_scoring_for_ard_ri() {
    let h = Harness::new(false);
    setup(&h, "/ladder create Tafl ard-ri days:none", 2);
    ok(
        &h.bot,
        "mod",
        CHANNEL,
        "/ladder create Hills hkot-1 days:none",
    );
    let db = h.db();
    let out = cli(&["ladder", "export", "--db", db.to_str().unwrap(), "--json"]);
    let v: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(v[0]["variant"], "ard-ri");
    assert_eq!(v[0]["scoring"], serde_json::Value::Null);
    assert_eq!(v[1]["scoring"], "kingdoms");
}

/// Issue 45: with two open ladders in a channel, a command that names none asks which.
#[test]
fn two_ladders_in_a_channel_ask_which() {
    let h = Harness::new(false);
    ok(&h.bot, "mod", CHANNEL, "/ladder create North hkot-1");
    ok(&h.bot, "mod", CHANNEL, "/ladder create South ard-ri");
    let why = refused(&h.bot, "p01", CHANNEL, "/ladder join");
    assert!(
        why.contains("This channel has several ladders") && why.contains("North"),
        "{why}"
    );
    let r = ok(&h.bot, "p01", CHANNEL, "/ladder join id:2");
    assert!(texts(&r).contains("South"), "{}", texts(&r));
}
