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

/// A harness whose bot records each subscriber's run.
fn traced() -> Harness {
    let mut h = Harness::new(false);
    h.bot = Bot::new(Store::open(h.db()).unwrap(), h.clock.clone(), 7)
        .with_images(false)
        .with_event_trace();
    h
}

/// The games the recorded runs were for: each must have seen every subscriber exactly once,
/// in order.
fn ended(bot: &Bot) -> Vec<GameId> {
    let all = bot.game_end_subscribers();
    let core: Vec<&str> = all.iter().copied().filter(|s| CORE.contains(s)).collect();
    assert_eq!(core, CORE);
    let mut by_game: BTreeMap<GameId, Vec<&str>> = BTreeMap::new();
    for (game, name) in bot.event_trace() {
        by_game.entry(game).or_default().push(name);
    }
    for (game, names) in &by_game {
        assert_eq!(names, &all, "game {game}");
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
            h.send(&who, channel, Command::Pass { game: None })
        } else {
            h.mv(&who, channel, &m.to_string())
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
        let h = traced();
        let g = h.start("aoife", "brian", "c", "hkot-1", "me");
        let moves = game_ending_in_pass(g.options, pass);
        play_out(&h, "c", g.id, &moves);
        assert_eq!(ended(&h.bot), vec![g.id], "ending in a pass: {pass}");
        assert_eq!(status(&h, g.id), GameStatus::Finished);
    }
}

#[test]
fn resignations_timeouts_and_draws_raise_the_event_once() {
    let h = traced();
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
    assert_eq!(status(&h, g.id), GameStatus::Finished);

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
    assert_eq!(status(&h, g.id), GameStatus::Finished);

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
    assert_eq!(status(&h, g.id), GameStatus::Aborted);

    // A resignation before both players moved: aborted.
    let g = h.start("aoife", "brian", "c", "hkot-1", "me");
    h.send("aoife", "c", confirm);
    assert_eq!(ended(&h.bot), vec![g.id]);
    assert_eq!(status(&h, g.id), GameStatus::Aborted);
}

#[test]
fn aborts_by_a_player_or_a_moderator_raise_the_event_once() {
    let h = traced();
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
    assert_eq!(status(&h, g.id), GameStatus::Aborted);

    let g = h.start("aoife", "brian", "c", "hkot-1", "me");
    h.opening("c");
    let why = Command::Abort {
        reason: Some("a test".into()),
        game: None,
    };
    let r = h.bot.handle(&moderator("mod", "c"), why);
    assert!(!r[0].ephemeral, "{}", texts(&r));
    assert_eq!(ended(&h.bot), vec![g.id]);
    assert_eq!(status(&h, g.id), GameStatus::Aborted);
}

#[test]
fn a_match_game_ends_once_and_its_next_game_goes_on() {
    let h = traced();
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
        &loser,
        "c",
        Command::Resign {
            confirmed: true,
            game: None,
        },
    );
    assert_eq!(ended(&h.bot), vec![first.id]);
    let second = common::active(&h.db(), "c").expect("game 2 of the match");
    assert_ne!(second.id, first.id);
}

fn line(bot: &Bot, who: &str, channel: &str, text: &str) -> String {
    let cmd = match parse_line(text) {
        Ok(Action::Run(c)) => c,
        other => panic!("{text}: {other:?}"),
    };
    let ctx = Ctx {
        server: "server".into(),
        channel: channel.into(),
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
    let h = traced();
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
    let playing = tournament_games(&h);
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
        assert_eq!(status(&h, *id), GameStatus::Finished);
    }

    // Calling the tournament off aborts every game still in progress, each once.
    let left = tournament_games(&h);
    assert!(!left.is_empty());
    let said = line(&h.bot, "mod", t, "/tournament cancel");
    assert!(said.contains("called off"), "{said}");
    assert_eq!(ended(&h.bot), left);
    for id in left {
        assert_eq!(status(&h, id), GameStatus::Aborted);
    }
}
