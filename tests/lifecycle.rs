//! A game's end is one event: every way a game can end raises `GameEnded` once, and every
//! subscriber of the bot's list runs once for it, in the documented order (src/bot/entry.rs):
//! a move, a pass, a resignation, a timeout, an agreed draw, a player's abort, a moderator's
//! abort, a withdrawal from a tournament, and the aborts (a resignation before both players
//! moved, a timeout before the first move, a tournament called off). Moves that do not end a
//! game raise nothing.

mod common;

use common::{challenge_cmd, ctx, player_moves, stored, texts, Harness};
use std::collections::BTreeMap;
use tara_bot::bot::{Bot, Command, Ctx, DrawAnswer, User};
use tara_bot::console::{parse_line, Action};
use tara_bot::game::{GameOptions, Move, Position};
use tara_bot::store::{ChannelId, ServerId, UserId};
use tara_bot::store::{GameId, TournamentId};
use tara_bot::store::{GameStatus, Store};

/// Subscribers of `GameEnded` that must be in the bot's list, in this order (the list may hold
/// more: each is checked to run once).
const CORE: [&str; 7] = [
    "draws",
    "result",
    "ratings",
    "players",
    "matches",
    "rematch",
    "tournaments",
];

/// A harness whose bot records each subscriber's run; with `reversed`, its subscribers run in
/// reverse order.
fn traced(reversed: bool) -> Harness {
    let mut h = Harness::new(false);
    h.bot = Bot::new(Store::open(h.db()).unwrap(), h.clock.clone(), 7)
        .with_images(false)
        .with_event_trace();
    if reversed {
        h.bot = h.bot.with_game_end_subscribers_reversed();
    }
    h
}

/// Runs `scenario` on a bot whose subscribers of `GameEnded` run in the list's order, then on
/// one whose subscribers run in reverse: none depends on another's having run, so both store
/// exactly the same rows in every table (games, results, ratings, matches, tournaments, and
/// every message the bot owes, with its text and buttons).
fn in_both_orders(scenario: impl Fn(&Harness)) {
    let forward = traced(false);
    scenario(&forward);
    let reversed = traced(true);
    scenario(&reversed);
    let (a, b) = (dump(&forward.db()), dump(&reversed.db()));
    assert!(a.contains("outbox:"), "the messages owed are compared too");
    for (x, y) in a.lines().zip(b.lines()) {
        assert_eq!(x, y, "the stored state differs");
    }
    assert_eq!(a.lines().count(), b.lines().count());
}

/// Every row of every table of the SQLite database at `db`, as text.
fn dump(db: &std::path::Path) -> String {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    tables.retain(|t| !t.starts_with("sqlite_"));
    let mut out = String::new();
    for t in tables {
        let n = conn
            .prepare(&format!("SELECT * FROM \"{t}\""))
            .unwrap()
            .column_count();
        // Rows in the order of their columns (ids first): a table may have no rowid.
        let by: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
        let mut st = conn
            .prepare(&format!("SELECT * FROM \"{t}\" ORDER BY {}", by.join(", ")))
            .unwrap();
        let rows = st
            .query_map([], |r| {
                (0..n)
                    .map(|i| {
                        r.get::<_, rusqlite::types::Value>(i)
                            .map(|v| format!("{v:?}"))
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .unwrap();
        for row in rows {
            out.push_str(&format!("{t}: {}\n", row.unwrap().join(" | ")));
        }
    }
    out
}

/// The games the recorded runs were for: each must have seen every subscriber exactly once,
/// in the order the bot runs them (the list's, or reversed).
fn ended(bot: &Bot) -> Vec<GameId> {
    let all = bot.game_end_subscribers();
    let core: Vec<&str> = all.iter().copied().filter(|s| CORE.contains(s)).collect();
    assert_eq!(core, CORE);
    let order = bot.game_end_run_order();
    let mut by_game: BTreeMap<GameId, Vec<&str>> = BTreeMap::new();
    for (game, name) in bot.event_trace() {
        by_game.entry(game).or_default().push(name);
    }
    for (game, names) in &by_game {
        assert_eq!(names, &order, "game {game}");
    }
    by_game.into_keys().collect()
}

fn moderator(name: &str, channel: &str) -> Ctx {
    Ctx {
        moderator: true,
        ..ctx(name, channel)
    }
}

fn status(h: &Harness, game: GameId) -> GameStatus {
    stored(&h.db(), game).0.status
}

/// A random game's player moves (passes the bot forces left out) whose last ply is a pass or
/// not, as asked.
fn game_ending_in_pass(options: GameOptions, pass: bool) -> Vec<Move> {
    (0..500)
        .map(|seed| player_moves(options, seed))
        .find(|moves| {
            let mut pos = Position::new(options);
            let mut last = None;
            for m in moves {
                pos.play(*m).unwrap();
                last = Some(*m);
                while pos.outcome().is_none() && pos.legal_moves().as_slice() == [Move::Pass] {
                    pos.play(Move::Pass).unwrap();
                    last = Some(Move::Pass);
                }
            }
            (last == Some(Move::Pass)) == pass
        })
        .expect("such a game among 500")
}

/// Plays `moves` in the channel's game, each by the player to move; checks that no move but
/// the last ends it.
fn play_out(h: &Harness, channel: &str, game: GameId, moves: &[Move]) {
    let (g, _, _) = stored(&h.db(), game);
    let mut pos = Position::new(g.options);
    for (i, m) in moves.iter().enumerate() {
        let who = g.seats[pos.to_move().expect("in progress")].clone();
        let r = if *m == Move::Pass {
            h.send(who.as_str(), channel, Command::Pass { game: None })
        } else {
            h.mv(who.as_str(), channel, &m.to_string())
        };
        assert!(!r[0].ephemeral, "{}", texts(&r));
        pos.play(*m).unwrap();
        while pos.outcome().is_none() && pos.legal_moves().as_slice() == [Move::Pass] {
            pos.play(Move::Pass).unwrap();
        }
        if i + 1 < moves.len() {
            assert!(ended(&h.bot).is_empty(), "move {i} raised GameEnded");
        }
    }
    assert!(pos.outcome().is_some());
}

#[test]
fn a_game_ended_by_a_move_or_a_pass_raises_the_event_once() {
    for pass in [false, true] {
        in_both_orders(|h| {
            let g = h.start("aoife", "brian", "c", "hkot-1", "me");
            let moves = game_ending_in_pass(g.options, pass);
            play_out(h, "c", g.id, &moves);
            assert_eq!(ended(&h.bot), vec![g.id], "ending in a pass: {pass}");
            assert_eq!(status(h, g.id), GameStatus::Finished);
        });
    }
}

#[test]
fn resignations_timeouts_and_draws_raise_the_event_once() {
    in_both_orders(|h| {
        // A resignation after both players moved.
        let g = h.start("aoife", "brian", "c", "hkot-1", "me");
        h.opening("c");
        assert!(ended(&h.bot).is_empty());
        let confirm = Command::Resign {
            confirmed: true,
            game: None,
        };
        h.send("brian", "c", confirm.clone());
        assert_eq!(ended(&h.bot), vec![g.id]);
        assert_eq!(status(h, g.id), GameStatus::Finished);

        // An agreed draw.
        let g = h.start("aoife", "brian", "c", "hkot-1", "me");
        let offer = Command::Draw {
            answer: None,
            game: None,
        };
        h.send("aoife", "c", offer);
        assert!(ended(&h.bot).is_empty());
        let accept = Command::Draw {
            answer: Some(DrawAnswer::Accept),
            game: None,
        };
        h.send("brian", "c", accept);
        assert_eq!(ended(&h.bot), vec![g.id]);

        // A timeout after the first moves, found by the tick.
        let r = h.send(
            "aoife",
            "c",
            challenge_cmd("brian", "hkot-1", None, Some("me"), false, Some("1")),
        );
        assert!(!r[0].ephemeral, "{}", texts(&r));
        h.send("brian", "c", Command::Accept { challenge: None });
        let g = common::active(&h.db(), "c").unwrap();
        h.opening("c");
        assert!(h.bot.advance_clock(3 * 24 * 3_600_000));
        h.bot.tick();
        assert_eq!(ended(&h.bot), vec![g.id]);
        assert_eq!(status(h, g.id), GameStatus::Finished);

        // A timeout before the player's first move: aborted (no show).
        h.send(
            "aoife",
            "c",
            challenge_cmd("brian", "hkot-1", None, Some("me"), false, Some("1")),
        );
        h.send("brian", "c", Command::Accept { challenge: None });
        let g = common::active(&h.db(), "c").unwrap();
        assert!(h.bot.advance_clock(3 * 24 * 3_600_000));
        h.bot.tick();
        assert_eq!(ended(&h.bot), vec![g.id]);
        assert_eq!(status(h, g.id), GameStatus::Aborted);

        // A resignation before both players moved: aborted.
        let g = h.start("aoife", "brian", "c", "hkot-1", "me");
        h.send("aoife", "c", confirm);
        assert_eq!(ended(&h.bot), vec![g.id]);
        assert_eq!(status(h, g.id), GameStatus::Aborted);
    });
}

#[test]
fn aborts_by_a_player_or_a_moderator_raise_the_event_once() {
    in_both_orders(|h| {
        let g = h.start("aoife", "brian", "c", "hkot-1", "me");
        h.send(
            "aoife",
            "c",
            Command::Abort {
                reason: None,
                game: None,
            },
        );
        assert_eq!(ended(&h.bot), vec![g.id]);
        assert_eq!(status(h, g.id), GameStatus::Aborted);

        let g = h.start("aoife", "brian", "c", "hkot-1", "me");
        h.opening("c");
        let why = Command::Abort {
            reason: Some("a test".into()),
            game: None,
        };
        let r = h.bot.handle(&moderator("mod", "c"), why);
        assert!(!r[0].ephemeral, "{}", texts(&r));
        assert_eq!(ended(&h.bot), vec![g.id]);
        assert_eq!(status(h, g.id), GameStatus::Aborted);
    });
}

#[test]
fn a_match_game_ends_once_and_its_next_game_goes_on() {
    in_both_orders(|h| {
        let r = h.send(
            "aoife",
            "c",
            challenge_cmd("brian", "hkot-1", None, Some("me"), true, None),
        );
        assert!(!r[0].ephemeral, "{}", texts(&r));
        h.send("brian", "c", Command::Accept { challenge: None });
        let first = common::active(&h.db(), "c").unwrap();
        h.opening("c");
        let loser = first.seats.second().clone();
        h.send(
            loser.as_str(),
            "c",
            Command::Resign {
                confirmed: true,
                game: None,
            },
        );
        assert_eq!(ended(&h.bot), vec![first.id]);
        let second = common::active(&h.db(), "c").expect("game 2 of the match");
        assert_ne!(second.id, first.id);
    });
}

fn line(bot: &Bot, who: &str, channel: &str, text: &str) -> String {
    let cmd = match parse_line(text) {
        Ok(Action::Run(c)) => c,
        other => panic!("{text}: {other:?}"),
    };
    let ctx = Ctx {
        server: ServerId::new("server"),
        channel: ChannelId::new(channel),
        user: User::new(who, who),
        moderator: who == "mod",
        manager: false,
        roles: Vec::new(),
    };
    texts(&bot.handle(&ctx, cmd))
}

/// The tournament's games in progress.
fn tournament_games(h: &Harness) -> Vec<GameId> {
    let mut s = Store::open(h.db()).unwrap();
    let pairings = s.read(|tx| tx.pairings(TournamentId(1), None)).unwrap();
    pairings
        .iter()
        .filter_map(|p| p.game_id)
        .filter(|id| status(h, *id) == GameStatus::Active)
        .collect()
}

#[test]
fn a_withdrawal_and_a_tournament_called_off_raise_the_event_once_per_game() {
    in_both_orders(|h| {
        let t = "tournaments";
        line(
            &h.bot,
            "mod",
            t,
            "/tournament create Cup hkot-1 round-robin match:no",
        );
        for p in ["aoife", "brian", "ciara", "donal"] {
            line(&h.bot, p, t, "/tournament join");
        }
        line(&h.bot, "mod", t, "/tournament start");
        // A round robin plays all its games at once: six for four players.
        let playing = tournament_games(h);
        assert_eq!(playing.len(), 6);
        assert!(ended(&h.bot).is_empty());

        // A withdrawal resigns each of the player's games in progress (forfeits in a round robin),
        // each once.
        let theirs: Vec<GameId> = playing
            .iter()
            .copied()
            .filter(|id| stored(&h.db(), *id).0.seats.iter().any(|s| s == "aoife"))
            .collect();
        assert_eq!(theirs.len(), 3);
        let said = line(&h.bot, "mod", t, "/tournament withdraw aoife");
        assert!(said.contains("is withdrawn"), "{said}");
        assert_eq!(ended(&h.bot), theirs);
        for id in &theirs {
            assert_eq!(status(h, *id), GameStatus::Finished);
        }

        // Calling the tournament off aborts every game still in progress, each once.
        let left = tournament_games(h);
        assert!(!left.is_empty());
        let said = line(&h.bot, "mod", t, "/tournament cancel");
        assert!(said.contains("called off"), "{said}");
        assert_eq!(ended(&h.bot), left);
        for id in left {
            assert_eq!(status(h, id), GameStatus::Aborted);
        }
    });
}

/// A league's season ends with its division's last game, looked at once that game's end is
/// handled (after the tournament has recorded the division's end), whatever order the
/// subscribers run in; and a player whose second resignation before a move is their second
/// forfeit is withdrawn inside that game's end, their other game ended after it.
#[test]
fn a_league_season_and_a_withdrawal_by_forfeits_end_the_same_in_either_order() {
    in_both_orders(|h| {
        let c = "league";
        line(
            &h.bot,
            "mod",
            c,
            "/league create Samhain hkot-2 division-size:4 promote:1 relegate:1 match:no",
        );
        for p in ["aoife", "brian", "ciara", "donal"] {
            line(&h.bot, p, c, "/league join");
            h.bot.advance_clock(1000);
        }
        let said = line(&h.bot, "mod", c, "/league start");
        assert!(said.contains("Samhain"), "{said}");
        // Four players, all at once: a game each pair. Aoife resigns her games before anyone
        // moved, the player on move the others: forfeits; her second withdraws her (more than
        // half of her three games), inside that game's end: her third game is resigned for
        // her, its end handled after. The last game ends the season.
        let mut guard = 0;
        while let Some(id) = tournament_games(h).first().copied() {
            guard += 1;
            assert!(guard < 10, "games keep going");
            let (g, _, pos) = stored(&h.db(), id);
            let who = if g.seats.iter().any(|s| s == "aoife") {
                UserId::new("aoife")
            } else {
                g.seats[pos.to_move().expect("in progress")].clone()
            };
            let r = h.send(
                who.as_str(),
                g.channel_id.as_str(),
                Command::Resign {
                    confirmed: true,
                    game: Some(id),
                },
            );
            assert!(!r[0].ephemeral, "{}", texts(&r));
            ended(&h.bot);
        }
        let mut s = Store::open(h.db()).unwrap();
        let league = s
            .read(|tx| tx.league(tara_bot::store::LeagueId(1)))
            .unwrap()
            .unwrap();
        assert!(league.next_season_at.is_some(), "season 1 is over");
        let entrants = s.read(|tx| tx.entrants(TournamentId(1))).unwrap();
        assert!(
            entrants.iter().any(|e| e.withdrawn_at.is_some()),
            "two forfeits withdrew a player"
        );
        let aoife = entrants.iter().find(|e| e.user_id == "aoife").unwrap();
        assert!(aoife.withdrawn_at.is_some() && aoife.forfeits == 2);
        let owed = dump(&h.db());
        assert!(owed.contains("is withdrawn"), "the withdrawal announced");
        assert!(
            owed.contains("so this game is resigned"),
            "her game in progress ended by the withdrawal"
        );
        assert!(
            owed.contains("season 1 is over"),
            "the season's end announced"
        );
    });
}
