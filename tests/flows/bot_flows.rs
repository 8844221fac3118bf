//! The bot core with a real SQLite file: whole games of every variant, restarts, matches,
//! challenges, takebacks, resignations, aborts, and bad input that must change nothing.

#[path = "../common/mod.rs"]
mod common;

use common::*;
use tara_bot::bot::options::{Value, Values};
use tara_bot::bot::{AuditLog, Command, Reply, TakebackAnswer};
use tara_bot::game::BySide;
use tara_bot::game::{GameOptions, Move, Position, Scoring, Variant};
use tara_bot::store::ChallengeId;
use tara_bot::store::ServerId;
use tara_bot::store::{ChannelId, UserId};
use tara_bot::store::{GameId, GameStatus};

/// Plays `moves` through the bot by whoever is on move; restarts the bot halfway when asked.
/// Returns every reply.
fn play_through(
    h: &mut Harness,
    channel: &str,
    moves: &[Move],
    restart_at: Option<usize>,
) -> Vec<Reply> {
    let game = active(&h.db(), channel).unwrap();
    let mut mirror = Position::new(game.options);
    let mut all = Vec::new();
    for (i, m) in moves.iter().enumerate() {
        if restart_at == Some(i) {
            h.restart();
        }
        let seat = mirror.to_move().unwrap();
        let who = game.seats[seat].clone();
        let replies = h.mv(who.as_str(), channel, &m.to_string());
        assert!(
            !replies[0].ephemeral,
            "move {i} ({m}) by {who} refused: {}",
            replies[0].plain_text()
        );
        mirror.play(*m).unwrap();
        while mirror.outcome().is_none() && mirror.legal_moves().as_slice() == [Move::Pass] {
            mirror.play(Move::Pass).unwrap();
        }
        // The reply pings exactly the player on move (or both players at the end).
        match mirror.to_move() {
            Some(side) => assert_eq!(replies[0].mentions, vec![game.seats[side].clone()]),
            None => assert_eq!(replies[0].mentions.len(), 2),
        }
        all.extend(replies);
    }
    let (g, _, pos) = stored(&h.db(), game.id);
    assert_eq!(g.status, GameStatus::Finished);
    assert_eq!(g.outcome.as_ref(), pos.outcome());
    assert_eq!(pos.outcome(), mirror.outcome());
    all
}

#[test]
fn whole_games_of_every_variant_survive_a_restart() {
    for (i, variant) in Variant::ALL.into_iter().enumerate() {
        let mut h = Harness::new(false);
        let channel = format!("chan-{i}");
        h.start("aoife", "brian", &channel, variant.id(), "random");
        let moves = player_moves(active(&h.db(), &channel).unwrap().options, 100 + i as u64);
        let replies = play_through(&mut h, &channel, &moves, Some(moves.len() / 2));
        let last = replies.last().unwrap().plain_text();
        assert!(last.contains("Game over."), "{variant}: {last}");
        assert!(last.contains("Points:"), "{variant}: {last}");
        assert!(active(&h.db(), &channel).is_none());
    }
}

#[test]
fn move_replies_carry_a_board_png_and_the_text_board() {
    let h = Harness::new(true);
    h.start("aoife", "brian", "c", "sacred-hill-1", "me");
    let r = h.mv("aoife", "c", "d4");
    let img = r[0].image.as_ref().expect("a board image");
    assert!(img.filename.ends_with(".png"));
    assert_eq!(&img.bytes[1..4], b"PNG");
    assert!(r[0].board_text.as_ref().unwrap().contains(" r "));
    assert!(
        r[0].plain_text().contains("Red built on D4"),
        "{}",
        r[0].plain_text()
    );
}

#[test]
fn forced_passes_are_played_and_announced() {
    // Find a Sacred Hill game in which a player is forced to pass.
    let options = GameOptions::new(Variant::SacredHill1);
    let (seed, moves) = (0..500u64)
        .map(|s| (s, player_moves(options, s)))
        .find(|(_, moves)| forces_a_pass(options, moves))
        .expect("a game with a forced pass");
    let mut h = Harness::new(false);
    h.start("aoife", "brian", "c", "sacred-hill-1", "me");
    let replies = play_through(&mut h, "c", &moves, None);
    let all = texts(&replies);
    assert!(
        all.contains("had no legal move and passed"),
        "seed {seed}: {all}"
    );
    let g = tara_bot::store::Store::open(h.db())
        .unwrap()
        .read(|tx| tx.latest_game(&ChannelId::new("c")))
        .unwrap()
        .unwrap();
    let mut store = tara_bot::store::Store::open(h.db()).unwrap();
    let stored = store.read(|tx| tx.moves(g.id)).unwrap();
    assert!(stored
        .iter()
        .any(|m| m.user_id.is_none() && m.notation == "pass"));
}

#[test]
fn challenges_are_checked() {
    let h = Harness::new(false);
    let ch = |who: &str, opp: &str, v: &str, s: Option<&str>| {
        h.send_parsed(who, "c", try_challenge_cmd(opp, v, s, None, false, None))
    };
    let r = ch("aoife", "aoife", "hkot-1", None);
    assert!(r[0].ephemeral && r[0].plain_text().contains("cannot challenge yourself"));
    let r = ch("aoife", "brian", "chess", None);
    assert!(r[0].ephemeral && r[0].plain_text().contains("'chess' is not a variant"));
    let r = ch("aoife", "brian", "hkot-2", Some("knots"));
    assert!(r[0].ephemeral && r[0].plain_text().contains("always scored by kingdoms"));
    let r = ch("aoife", "brian", "hkot-1", Some("goals"));
    assert!(r[0].ephemeral && r[0].plain_text().contains("not a scoring"));
    // A good challenge pings only the opponent and offers buttons.
    let r = ch("aoife", "brian", "hkot-1", Some("knots"));
    assert!(!r[0].ephemeral);
    assert_eq!(r[0].mentions, vec!["brian".to_string()]);
    assert_eq!(r[0].buttons.len(), 2);
    let accept = Command::from_button(&r[0].buttons[0].id).unwrap();
    // Only the opponent may accept.
    let r2 = h.send("aoife", "c", accept.clone());
    assert!(r2[0].ephemeral && r2[0].plain_text().contains("cannot accept your own"));
    let r2 = h.send("carol", "c", accept.clone());
    assert!(r2[0].ephemeral && r2[0].plain_text().contains("Only brian"));
    let r2 = h.send("brian", "c", accept.clone());
    assert!(!r2[0].ephemeral, "{}", r2[0].plain_text());
    assert!(r2[0].plain_text().contains("Game on!"));
    let g = active(&h.db(), "c").unwrap();
    assert_eq!(g.options.scoring, Scoring::Knots);
    // Accepting again, or challenging in a busy channel, fails.
    let r3 = h.send("brian", "c", accept);
    assert!(r3[0].plain_text().contains("no longer open"));
    let r4 = ch("carol", "dana", "ard-ri", None);
    assert!(r4[0].ephemeral && r4[0].plain_text().contains("already running"));
}

#[test]
fn accepting_from_another_channel_announces_the_game_where_it_is_played() {
    let h = Harness::new(false);
    h.send(
        "aoife",
        "arena",
        challenge_cmd("brian", "ard-ri", None, Some("me"), false, None),
    );
    let r = h.send(
        "brian",
        "lobby",
        Command::Accept {
            challenge: Some(ChallengeId(1)),
        },
    );
    assert_eq!(r.len(), 2);
    assert!(
        r[0].ephemeral && r[0].plain_text().contains("#arena"),
        "{}",
        r[0].plain_text()
    );
    assert_eq!(r[1].channel.as_ref().map(ChannelId::as_str), Some("arena"));
    assert!(r[1].plain_text().contains("Game on!"));
    assert!(active(&h.db(), "arena").is_some());
    assert!(active(&h.db(), "lobby").is_none());
}

#[test]
fn decline_and_cancel() {
    let h = Harness::new(false);
    let challenge = |who: &str, opp: &str| {
        h.send(
            who,
            "c",
            challenge_cmd(opp, "ard-ri", None, None, false, None),
        )
    };
    challenge("aoife", "brian");
    let r = h.send("brian", "c", Command::Decline { challenge: None });
    assert!(r[0].plain_text().contains("declined"));
    assert_eq!(r[0].mentions, vec!["aoife".to_string()]);
    let r = h.send("brian", "c", Command::Accept { challenge: None });
    assert!(r[0].ephemeral && r[0].plain_text().contains("no open challenge"));
    challenge("aoife", "brian");
    let r = h.send("brian", "c", Command::Cancel { challenge: None });
    assert!(r[0].ephemeral);
    let r = h.send(
        "carol",
        "c",
        Command::Cancel {
            challenge: Some(ChallengeId(2)),
        },
    );
    assert!(
        r[0].plain_text().contains("not yours to cancel"),
        "{}",
        r[0].plain_text()
    );
    let r = h.send("aoife", "c", Command::Cancel { challenge: None });
    assert!(r[0].plain_text().contains("withdrew"));
    assert!(active(&h.db(), "c").is_none());
}

#[test]
fn who_starts_follows_the_challenge_and_ard_ri_gives_the_starter_the_attackers() {
    let h = Harness::new(false);
    let g = h.start("aoife", "brian", "a", "ard-ri", "opponent");
    assert_eq!(
        g.seats,
        BySide::new("brian".to_string(), "aoife".to_string())
    );
    let g = h.start("aoife", "brian", "b", "hkot-1", "opponent");
    assert_eq!(*g.seats.first(), "aoife", "the challenger is Red");
    assert_eq!(g.options.first, tara_bot::game::Side::Blue);
    let g = h.start("aoife", "brian", "c", "hkot-1", "me");
    assert_eq!(g.options.first, tara_bot::game::Side::Red);
}

/// A snapshot of everything stored about a channel's games.
fn snapshot(h: &Harness, channel: &str) -> String {
    let mut s = tara_bot::store::Store::open(h.db()).unwrap();
    s.read(|tx| -> Result<String, tara_bot::store::StoreError> {
        let g = tx.latest_game(&ChannelId::new(channel))?;
        let moves = match &g {
            Some(g) => tx.moves(g.id)?,
            None => vec![],
        };
        let c = tx.open_challenges(&ChannelId::new(channel))?;
        Ok(format!("{g:?}\n{moves:?}\n{c:?}"))
    })
    .unwrap()
}

#[test]
fn bad_input_gets_the_right_message_and_changes_nothing() {
    let h = Harness::new(false);
    h.start("aoife", "brian", "c", "hkot-1", "me");
    h.mv("aoife", "c", "D4");
    let before = snapshot(&h, "c");
    let cases: Vec<(&str, Command, &str)> = vec![
        (
            "brian",
            Command::Move {
                text: "Z9".into(),
                game: None,
            },
            "'Z9' is not a hill",
        ),
        (
            "brian",
            Command::Move {
                text: "A1".into(),
                game: None,
            },
            "corners",
        ),
        (
            "brian",
            Command::Move {
                text: "D4".into(),
                game: None,
            },
            "not vacant",
        ),
        (
            "brian",
            Command::Move {
                text: "D4-E6".into(),
                game: None,
            },
            "Placement",
        ),
        (
            "brian",
            Command::Move {
                text: "".into(),
                game: None,
            },
            "no move given",
        ),
        (
            "brian",
            Command::Move {
                text: "x".repeat(100_000),
                game: None,
            },
            "too long",
        ),
        (
            "brian",
            Command::Move {
                text: "Ｄ４".into(),
                game: None,
            },
            "is not a move",
        ),
        (
            "brian",
            Command::Move {
                text: "🐉🐉".into(),
                game: None,
            },
            "is not a move",
        ),
        (
            "brian",
            Command::Move {
                text: "d4\u{0}".into(),
                game: None,
            },
            "is not a move",
        ),
        (
            "aoife",
            Command::Move {
                text: "E2".into(),
                game: None,
            },
            "not your turn",
        ),
        (
            "carol",
            Command::Move {
                text: "E2".into(),
                game: None,
            },
            "not playing in this game",
        ),
        (
            "carol",
            Command::Resign {
                confirmed: true,
                game: None,
            },
            "not playing",
        ),
        (
            "carol",
            Command::Abort {
                reason: None,
                game: None,
            },
            "Only the players",
        ),
        (
            "aoife",
            Command::Abort {
                reason: None,
                game: None,
            },
            "can no longer be aborted",
        ),
        (
            "brian",
            Command::Takeback {
                answer: None,
                game: None,
            },
            "not made a move",
        ),
        (
            "aoife",
            Command::Takeback {
                answer: Some(TakebackAnswer::Allow),
                game: None,
            },
            "no takeback request",
        ),
        (
            "brian",
            Command::Board {
                ply: Some(99),
                marks: None,
                arrows: None,
                game: None,
            },
            "only 1 move so far",
        ),
        (
            "brian",
            Command::Accept {
                challenge: Some(ChallengeId(999)),
            },
            "no challenge #999",
        ),
    ];
    for (who, cmd, expect) in cases {
        let r = h.send(who, "c", cmd.clone());
        assert_eq!(r.len(), 1, "{cmd:?}");
        assert!(r[0].ephemeral, "{cmd:?}: {}", r[0].plain_text());
        assert!(r[0].mentions.is_empty(), "errors ping nobody");
        assert!(
            r[0].plain_text().contains(expect),
            "{cmd:?}: expected '{expect}' in: {}",
            r[0].plain_text()
        );
        assert!(r[0].plain_text().len() < 2000, "messages stay short");
        assert_eq!(snapshot(&h, "c"), before, "{cmd:?} changed something");
    } // A bad option value is refused where the adapter reads it, with a message that says why.
    let bad = Command::parse(
        "rules",
        &Values::new().with("variant", Value::Text("tafl".into())),
    );
    assert_eq!(
        bad,
        Err("'tafl' is not a variant: choose hkot-1, hkot-2, sacred-hill-1, sacred-hill-2 or ard-ri.".into())
    );

    // An illegal move names the reason and some legal moves.
    h.mv("brian", "c", "B2");
    let r = h.mv("aoife", "c", "E4");
    let t = r[0].plain_text();
    assert!(r[0].ephemeral, "{t}");
    assert!(
        t.contains("`E4` is not legal: E4 is next to your ringfort on D4"),
        "{t}"
    );
    assert!(t.contains("Legal moves: "), "{t}");
    // No game here at all.
    let r = h.mv("brian", "elsewhere", "D5");
    assert!(r[0].plain_text().contains("no game in this channel"));
    // A finished game takes no more moves.
    h.send(
        "brian",
        "c",
        Command::Resign {
            confirmed: true,
            game: None,
        },
    );
    let before = snapshot(&h, "c");
    let r = h.mv("aoife", "c", "E2");
    assert!(r[0].ephemeral && r[0].plain_text().contains("no game in this channel"));
    assert_eq!(snapshot(&h, "c"), before);
}

#[test]
fn resign_asks_first_and_scores_part_e() {
    let h = Harness::new(false);
    h.start("aoife", "brian", "c", "sacred-hill-1", "me");
    h.mv("aoife", "c", "D4");
    h.mv("brian", "c", "B2");
    let r = h.send(
        "brian",
        "c",
        Command::Resign {
            confirmed: false,
            game: None,
        },
    );
    assert!(r[0].ephemeral);
    assert_eq!(r[0].buttons.len(), 1);
    assert!(active(&h.db(), "c").is_some(), "asking changes nothing");
    let cmd = Command::from_button(&r[0].buttons[0].id).unwrap();
    let r = h.send("brian", "c", cmd);
    let t = r[0].plain_text();
    assert!(t.contains("resigned") && t.contains("Red wins"), "{t}");
    let g = tara_bot::store::Store::open(h.db())
        .unwrap()
        .read(|tx| tx.latest_game(&ChannelId::new("c")))
        .unwrap()
        .unwrap();
    let o = g.outcome.unwrap();
    assert_eq!(o.reason, tara_bot::game::EndReason::Resigned);
    // Scoring now would give Red less (a kingdom each), so Red gets the minimum 2 + 0 kings.
    assert_eq!(*o.points.first(), tara_bot::game::Points::whole(2));
    assert_eq!(*o.points.second(), tara_bot::game::Points(0));
}

#[test]
fn abort_before_the_first_move_or_by_a_moderator() {
    let h = Harness::new(false);
    h.start("aoife", "brian", "c", "hkot-2", "me");
    let r = h.send(
        "brian",
        "c",
        Command::Abort {
            reason: None,
            game: None,
        },
    );
    assert!(
        r[0].plain_text().contains("aborted"),
        "{}",
        r[0].plain_text()
    );
    // The opponent is pinged, the player who aborted is not.
    assert!(
        r[0].mentions.contains(&UserId::new("aoife".to_string()))
            && !r[0].mentions.contains(&UserId::new("brian")),
        "{:?}",
        r[0].mentions
    );
    assert!(active(&h.db(), "c").is_none());
    h.start("aoife", "brian", "c", "hkot-2", "me");
    h.mv("aoife", "c", "D4");
    let mut mod_ctx = ctx("mona", "c");
    mod_ctx.moderator = true;
    let r = h.bot.handle(
        &mod_ctx,
        Command::Abort {
            reason: None,
            game: None,
        },
    );
    let text = r[0].plain_text();
    assert!(
        text.contains("aborted by a moderator") && text.contains("@mona"),
        "{text}"
    );
    assert!(text.contains("no reason given"), "{text}");
}

/// A moderator's `/abort` of a match game ends the whole match (no replay), pings both
/// players with who did it and why, and is written to the audit log, which moderators list
/// with `/audit` and which a server manager can have posted in a channel.
#[test]
fn a_moderator_ends_a_match_with_a_reason_and_the_audit_log_keeps_it() {
    let h = Harness::new(false);
    let r = h.send(
        "aoife",
        "c",
        challenge_cmd("brian", "hkot-1", None, Some("me"), true, None),
    );
    assert!(!r[0].ephemeral);
    h.send("brian", "c", Command::Accept { challenge: None });
    h.mv("aoife", "c", "D4");
    let mut mona = ctx("mona", "c");
    mona.moderator = true;
    // Only moderators read the log; choosing its channel needs Manage Server.
    let r = h.send("aoife", "c", Command::Audit { log: None });
    assert!(r[0].ephemeral && r[0].plain_text().contains("Only moderators"));
    let mut log_here = ctx("mona", "mod-log");
    log_here.moderator = true;
    let r = h.bot.handle(
        &log_here,
        Command::Audit {
            log: Some(AuditLog::Here),
        },
    );
    assert!(
        r[0].plain_text().contains("Manage Server"),
        "{}",
        r[0].plain_text()
    );
    log_here.manager = true;
    let r = h.bot.handle(
        &log_here,
        Command::Audit {
            log: Some(AuditLog::Here),
        },
    );
    assert!(r[0].ephemeral);
    assert!(r[0].plain_text().contains("also posted in #mod-log"));
    assert_eq!(
        r[1].channel.as_ref().map(ChannelId::as_str),
        Some("mod-log"),
        "that choice is logged too"
    );

    let r = h.bot.handle(
        &mona,
        Command::Abort {
            reason: Some("players asked to *stop*".into()),
            game: None,
        },
    );
    let text = r[0].plain_text();
    assert!(!r[0].ephemeral);
    assert!(
        text.contains("@mona") && text.contains("players asked to *stop*"),
        "{text}"
    );
    assert!(text.contains("The match is called off"), "{text}");
    let mut pinged = r[0].mentions.clone();
    pinged.sort();
    assert_eq!(pinged, vec!["aoife".to_string(), "brian".to_string()]);
    assert!(
        r[0].outbox.is_some(),
        "owed: it is delivered even after a crash"
    );
    // No replay: the channel is free.
    assert!(active(&h.db(), "c").is_none());
    assert_eq!(r.len(), 2, "{:?}", texts(&r));
    // The entry as Discord gets it: the channel a mention, the moderator's reason escaped
    // (shown as typed, never read as Markdown).
    let entry = r[1].markdown_with(|id, _| format!("<@{id}>"), |c| format!("<#{c}>"));
    assert_eq!(
        r[1].channel.as_ref().map(ChannelId::as_str),
        Some("mod-log")
    );
    assert!(
        entry.contains("abort · game #")
            && entry.contains(" in <#c>: ")
            && entry.contains("reason: players asked to \\*stop\\*"),
        "{entry}"
    );
    assert!(r[1].mentions.is_empty(), "the log pings no one");
    // The log lists both actions, newest first.
    let r = h.bot.handle(&mona, Command::Audit { log: None });
    assert!(r[0].ephemeral);
    let log = r[0].markdown_with(|id, _| format!("<@{id}>"), |c| format!("<#{c}>"));
    assert!(log.contains("entries are posted in <#mod-log>"), "{log}");
    let abort = log.find("abort · game #").expect("the abort is listed");
    let choice = log
        .find("audit-log")
        .expect("the log channel choice is listed");
    assert!(abort < choice, "{log}");
    assert!(
        log.contains("match called off; reason: players asked to \\*stop\\*"),
        "{log}"
    );
}

#[test]
fn takeback_with_consent_before_the_opponent_moves() {
    let h = Harness::new(false);
    let g = h.start("aoife", "brian", "c", "ard-ri", "me");
    h.mv("aoife", "c", "d2-c2");
    let r = h.send(
        "aoife",
        "c",
        Command::Takeback {
            answer: None,
            game: None,
        },
    );
    assert_eq!(r[0].mentions, vec!["brian".to_string()]);
    let r2 = h.send(
        "aoife",
        "c",
        Command::Takeback {
            answer: Some(TakebackAnswer::Allow),
            game: None,
        },
    );
    assert!(r2[0].ephemeral, "the asker cannot answer");
    let yes = Command::from_button(&r[0].buttons[0].id).unwrap();
    let r = h.send("brian", "c", yes);
    assert!(
        r[0].plain_text().contains("undone"),
        "{}",
        r[0].plain_text()
    );
    assert_eq!(r[0].mentions, vec!["aoife".to_string()]);
    assert!(stored(&h.db(), g.id).1.is_empty());
    // After the opponent has moved, no takeback.
    h.mv("aoife", "c", "d2-c2");
    h.mv("brian", "c", "c3-b3");
    let r = h.send(
        "aoife",
        "c",
        Command::Takeback {
            answer: None,
            game: None,
        },
    );
    assert!(r[0].ephemeral && r[0].plain_text().contains("has moved"));
    // A refused request leaves the move.
    h.mv("aoife", "c", "c2-c3");
    h.send(
        "aoife",
        "c",
        Command::Takeback {
            answer: None,
            game: None,
        },
    );
    let r = h.send(
        "brian",
        "c",
        Command::Takeback {
            answer: Some(TakebackAnswer::Refuse),
            game: None,
        },
    );
    assert!(r[0].plain_text().contains("refused"));
    assert_eq!(stored(&h.db(), g.id).1.len(), 3);
}

#[test]
fn a_match_plays_two_games_with_the_other_player_starting_the_second() {
    let mut h = Harness::new(false);
    let r = h.send(
        "aoife",
        "c",
        challenge_cmd("brian", "ard-ri", None, Some("me"), true, None),
    );
    assert!(r[0].plain_text().contains("two-game match"));
    h.send("brian", "c", Command::Accept { challenge: None });
    let g1 = active(&h.db(), "c").unwrap();
    assert_eq!(
        *g1.seats.first(),
        "aoife",
        "aoife starts game 1 as the attackers"
    );
    assert_eq!(g1.match_game, Some(1));
    let moves = player_moves(g1.options, 5);
    let replies = play_through(&mut h, "c", &moves, None);
    let end = replies.iter().map(|r| r.plain_text()).collect::<Vec<_>>();
    assert!(
        end.iter()
            .any(|t| t.contains("after game 1. Game 2 starts now")),
        "{end:?}"
    );
    let g2 = active(&h.db(), "c").expect("game 2 started");
    assert_eq!(g2.match_game, Some(2));
    assert_eq!(
        *g2.seats.first(),
        "brian",
        "brian starts game 2 as the attackers"
    );
    // Brian resigns game 2 (once both have moved): the match ends with a total.
    h.opening("c");
    let r = h.send(
        "brian",
        "c",
        Command::Resign {
            confirmed: true,
            game: None,
        },
    );
    let t = r[0].plain_text();
    assert!(t.contains("Match over"), "{t}");
}

#[test]
fn an_aborted_match_game_is_replayed() {
    let h = Harness::new(false);
    h.send(
        "aoife",
        "c",
        challenge_cmd("brian", "hkot-1", None, Some("opponent"), true, None),
    );
    h.send("brian", "c", Command::Accept { challenge: None });
    let g1 = active(&h.db(), "c").unwrap();
    let r = h.send(
        "aoife",
        "c",
        Command::Abort {
            reason: None,
            game: None,
        },
    );
    assert!(texts(&r).contains("is replayed"), "{}", texts(&r));
    let again = active(&h.db(), "c").unwrap();
    assert_ne!(again.id, g1.id);
    assert_eq!(again.match_game, Some(1));
    assert_eq!(again.options.first, g1.options.first);
}

#[test]
fn board_record_status_games_rules_help() {
    let h = Harness::new(true);
    h.start("aoife", "brian", "c", "hkot-1", "me");
    for (who, m) in [("aoife", "D4"), ("brian", "B2"), ("aoife", "F6")] {
        h.mv(who, "c", m);
    }
    let r = h.send(
        "carol",
        "c",
        Command::Board {
            ply: Some(1),
            marks: None,
            arrows: None,
            game: None,
        },
    );
    assert!(!r[0].ephemeral && r[0].image.is_some());
    assert!(
        r[0].plain_text().contains("after 1 of 3 moves"),
        "{}",
        r[0].plain_text()
    );
    let r = h.send("carol", "c", Command::Record { game: None });
    let rec = r[0].plain_text();
    let body: String = rec
        .lines()
        .filter(|l| !l.starts_with("```"))
        .collect::<Vec<_>>()
        .join("\n");
    let parsed = tara_bot::game::GameRecord::parse(&body).unwrap();
    assert_eq!(parsed.moves.len(), 3, "the record imports: {rec}");
    let r = h.send("brian", "c", Command::Status { game: None });
    assert!(
        r[0].ephemeral && r[0].plain_text().contains("to move"),
        "{}",
        r[0].plain_text()
    );
    let r = h.send("brian", "c", Command::Games {});
    assert!(
        r[0].plain_text().contains("your move"),
        "{}",
        r[0].plain_text()
    );
    let r = h.send(
        "brian",
        "c",
        Command::Rules {
            variant: Some(Variant::ArdRi),
            page: None,
        },
    );
    assert!(r[0].plain_text().contains("throne"));
    let r = h.send("brian", "c", Command::Help {});
    assert!(r[0].plain_text().contains("/challenge"));
}

#[test]
fn autocomplete_offers_legal_moves_for_the_player_on_move_only() {
    let h = Harness::new(false);
    h.start("aoife", "brian", "c", "hkot-1", "me");
    let all = h.bot.autocomplete_move(&ctx("aoife", "c"), "");
    assert_eq!(all.len(), 25, "Discord's limit");
    let d = h.bot.autocomplete_move(&ctx("aoife", "c"), "d");
    assert!(
        !d.is_empty() && d.iter().all(|m| m.starts_with('D')),
        "{d:?}"
    );
    assert!(h.bot.autocomplete_move(&ctx("brian", "c"), "").is_empty());
    assert!(h.bot.autocomplete_move(&ctx("carol", "c"), "").is_empty());
    let none = h.bot.autocomplete_move(&ctx("aoife", "c"), "zz");
    assert!(none.is_empty());
}

#[test]
fn any_game_of_the_server_is_reached_by_its_number() {
    let h = Harness::new(true);
    let g = h.start("aoife", "brian", "arena", "ard-ri", "me");
    h.mv("aoife", "arena", "d2-c2");
    h.mv("brian", "arena", "c3-b3");
    // From another channel, by anyone: the board now, and after one move.
    let r = h.send(
        "carol",
        "lobby",
        Command::Game {
            id: g.id,
            ply: None,
            marks: None,
            arrows: None,
            drawn: None,
            shared: false,
        },
    );
    assert_eq!(r.len(), 1);
    assert!(!r[0].ephemeral);
    let text = r[0].plain_text();
    assert!(
        text.contains("Ard Rí") && text.contains("position now (after 2 moves)"),
        "{text}"
    );
    assert!(text.contains("Played in #arena"), "{text}");
    assert!(r[0].image.is_some() && r[0].mentions.is_empty());
    let r = h.send(
        "carol",
        "lobby",
        Command::Game {
            id: g.id,
            ply: Some(1),
            marks: None,
            arrows: None,
            drawn: None,
            shared: false,
        },
    );
    assert!(r[0].plain_text().contains("position after 1 of 2 moves"));
    let r = h.send(
        "carol",
        "lobby",
        Command::Game {
            id: g.id,
            ply: Some(5),
            marks: None,
            arrows: None,
            drawn: None,
            shared: false,
        },
    );
    assert!(r[0].ephemeral && r[0].plain_text().contains("only 2 moves"));
    // Not a game of this server: the same answer as for a number that does not exist.
    let mut elsewhere = ctx("carol", "lobby");
    elsewhere.server = ServerId::new("another server");
    let r = h.bot.handle(
        &elsewhere,
        Command::Game {
            id: g.id,
            ply: None,
            marks: None,
            arrows: None,
            drawn: None,
            shared: false,
        },
    );
    assert!(r[0].ephemeral);
    assert_eq!(
        r[0].plain_text(),
        format!("There is no game #{} on this server.", g.id.0)
    );
    let r = h.send(
        "carol",
        "lobby",
        Command::Game {
            id: GameId(999),
            ply: None,
            marks: None,
            arrows: None,
            drawn: None,
            shared: false,
        },
    );
    assert_eq!(r[0].plain_text(), "There is no game #999 on this server.");
}

/// The new text a pressed button's message is given, with `@name` mentions.
fn pressed(r: &[Reply]) -> Option<String> {
    r.iter()
        .find_map(|r| r.pressed_text_with(|_, name| format!("@{name}"), |c| format!("#{c}")))
}

#[test]
fn an_answered_challenge_no_longer_asks_to_be_accepted() {
    let h = Harness::new(false);
    let r = h.send(
        "aoife",
        "c",
        challenge_cmd("brian", "hkot-1", None, Some("me"), false, None),
    );
    assert!(r[0].plain_text().contains("`/accept` or `/decline`"));
    assert_eq!(pressed(&r), None, "a new challenge rewrites nothing");
    let accept = Command::from_button(&r[0].buttons[0].id).unwrap();
    let r = h.send("brian", "c", accept);
    let g = active(&h.db(), "c").unwrap();
    assert_eq!(
        pressed(&r).as_deref(),
        Some(
            format!(
                "@aoife challenged @brian to **High Kings of Tara (Level 1)** (challenge #1): \
                 accepted, game {} has started.",
                g.id.0
            )
            .as_str()
        )
    );
    // Declined, and withdrawn: the message says so, by whom.
    let r = h.send(
        "aoife",
        "d",
        challenge_cmd("brian", "ard-ri", None, None, false, None),
    );
    let decline = Command::from_button(&r[0].buttons[1].id).unwrap();
    let r = h.send("brian", "d", decline);
    let text = pressed(&r).unwrap();
    assert!(
        text.ends_with("**Ard Rí** (challenge #2): declined by @brian."),
        "{text}"
    );
    assert!(!text.contains("/accept"), "{text}");
    h.send(
        "aoife",
        "d",
        challenge_cmd("brian", "ard-ri", None, None, false, None),
    );
    let r = h.send("aoife", "d", Command::from_button("cancel:3").unwrap());
    assert!(
        pressed(&r)
            .unwrap()
            .ends_with("(challenge #3): withdrawn by @aoife."),
        "{:?}",
        pressed(&r)
    );
    // A refusal leaves the message as it is.
    h.send(
        "aoife",
        "d",
        challenge_cmd("brian", "ard-ri", None, None, false, None),
    );
    let r = h.send("carol", "d", Command::from_button("accept:4").unwrap());
    assert!(r[0].ephemeral);
    assert_eq!(pressed(&r), None);
}

#[test]
fn counts_of_one_are_singular() {
    let h = Harness::new(false);
    h.start("aoife", "brian", "c", "sacred-hill-1", "me");
    h.mv("aoife", "c", "D4");
    h.bot.advance_clock(90 * 60_000);
    let r = h.send("brian", "c", Command::Status { game: None });
    let t = r[0].plain_text();
    assert!(t.contains("· 1 move played"), "{t}");
    assert!(t.contains("since 1 hour ago"), "{t}");
    let r = h.send(
        "brian",
        "c",
        Command::Board {
            ply: Some(3),
            marks: None,
            arrows: None,
            game: None,
        },
    );
    assert_eq!(
        r[0].plain_text(),
        "The game has only 1 move so far; choose a ply from 0 to 1."
    );
    let r = h.send(
        "brian",
        "c",
        Command::Board {
            ply: None,
            marks: None,
            arrows: None,
            game: None,
        },
    );
    assert!(
        r[0].plain_text().contains("position now (after 1 move)"),
        "{}",
        r[0].plain_text()
    );
    let r = h.send(
        "brian",
        "c",
        Command::Board {
            ply: Some(0),
            marks: None,
            arrows: None,
            game: None,
        },
    );
    assert!(
        r[0].plain_text().contains("position after 0 of 1 move"),
        "{}",
        r[0].plain_text()
    );
}

#[test]
fn a_scored_result_says_fewer_kingdoms_win() {
    // A random Sacred Hill game won on kingdoms.
    let options = GameOptions::new(Variant::SacredHill1);
    let moves = (0..200u64)
        .map(|s| player_moves(options, s))
        .find(|moves| {
            let mut pos = Position::new(options);
            for m in moves {
                pos.play(*m).unwrap();
                while pos.outcome().is_none() && pos.legal_moves().as_slice() == [Move::Pass] {
                    pos.play(Move::Pass).unwrap();
                }
            }
            let Position::Tara(t) = &pos else {
                return false;
            };
            let (r, b) = (
                t.counts(tara_bot::game::Player::Red),
                t.counts(tara_bot::game::Player::Blue),
            );
            pos.outcome().unwrap().reason == tara_bot::game::EndReason::Score
                && r.kingdoms != b.kingdoms
        })
        .expect("a game won on kingdoms");
    let mut h = Harness::new(false);
    h.start("aoife", "brian", "c", "sacred-hill-1", "me");
    let replies = play_through(&mut h, "c", &moves, None);
    let last = replies.last().unwrap().plain_text();
    assert!(last.contains("wins with fewer kingdoms: "), "{last}");
    assert!(!last.contains("kingdoms to "), "{last}");
}

#[test]
fn status_and_board_of_an_ended_game_say_how_it_ended() {
    let h = Harness::new(false);
    let r = h.send("brian", "c", Command::Status { game: None });
    assert!(
        r[0].ephemeral
            && r[0]
                .plain_text()
                .contains("There is no game in this channel"),
        "{}",
        r[0].plain_text()
    );
    let g = h.start("aoife", "brian", "c", "sacred-hill-1", "me");
    h.mv("aoife", "c", "D4");
    h.mv("brian", "c", "B2");
    h.send(
        "brian",
        "c",
        Command::Resign {
            confirmed: true,
            game: None,
        },
    );
    h.bot.advance_clock(3 * 3_600_000);
    let r = h.send("carol", "c", Command::Status { game: None });
    let t = r[0].plain_text().replace("**", "");
    assert!(r[0].ephemeral, "{t}");
    assert!(t.contains(&format!("(game {})", g.id.0)), "{t}");
    assert!(
        t.contains(
            "This game is over (it ended 3 hours ago): Red wins: Blue resigned. Points: @aoife \
             (Red) 2 – 0 @brian (Blue)."
        ),
        "{t}"
    );
    assert!(t.contains("`/challenge` starts a new one"), "{t}");
    assert!(!t.contains("to move"), "{t}");
    let r = h.send(
        "carol",
        "c",
        Command::Board {
            ply: None,
            marks: None,
            arrows: None,
            game: None,
        },
    );
    let t = r[0].plain_text();
    assert!(
        t.contains("The game is over: Red wins: Blue resigned."),
        "{t}"
    );
    let r = h.send(
        "carol",
        "c",
        Command::Board {
            ply: Some(0),
            marks: None,
            arrows: None,
            game: None,
        },
    );
    let t = r[0].plain_text();
    // Said of the position shown, not of "its last position" (issue 45).
    assert!(
        t.contains("The game went on from here for 2 more moves and is over: `/board` without a move shows how it ended."),
        "{t}"
    );
    // An aborted game says so.
    let g = h.start("aoife", "brian", "c", "hkot-1", "me");
    h.send(
        "aoife",
        "c",
        Command::Abort {
            reason: None,
            game: None,
        },
    );
    let r = h.send("carol", "c", Command::Status { game: None });
    let t = r[0].plain_text().replace("**", "");
    assert!(t.contains(&format!("(game {})", g.id.0)), "{t}");
    assert!(
        t.contains("This game was aborted just now: no result, no points."),
        "{t}"
    );
    // A newer game in progress is shown instead.
    let g = h.start("aoife", "brian", "c", "ard-ri", "me");
    let r = h.send("carol", "c", Command::Status { game: None });
    let t = r[0].plain_text();
    assert!(
        t.contains(&format!("(game {})", g.id.0)) && t.contains("to move"),
        "{t}"
    );
    assert!(!t.contains("over") && !t.contains("aborted"), "{t}");
}

/// Hostile display names and text: in every public message kind a name is a mention (never
/// its raw text) and a moderator's reason is escaped, so neither makes a link or breaks out
/// of formatting in Discord's Markdown.
#[test]
fn hostile_names_and_reasons_never_become_markdown() {
    let h = Harness::new(false);
    let evil = "[Free Nitro](https://evil.example/a)";
    let fence = "x```y";
    let discord = |r: &Reply| r.markdown_with(|id, _| format!("<@{id}>"), |c| format!("<#{c}>"));
    let mut seen = Vec::new();
    let as_user = |name: &str, channel: &str| {
        let mut c = ctx(name, channel);
        c.user.name = if name == "eve" {
            evil.into()
        } else {
            fence.into()
        };
        c
    };
    let eve = as_user("eve", "c");
    let fen = as_user("fen", "c");
    seen.extend(h.bot.handle(
        &eve,
        challenge_cmd("fen", "ard-ri", None, Some("me"), false, None),
    ));
    seen.extend(h.bot.handle(&fen, Command::Accept { challenge: None }));
    seen.extend(h.bot.handle(
        &eve,
        Command::Move {
            text: "d2-c2".into(),
            game: None,
        },
    ));
    seen.extend(h.bot.handle(
        &eve,
        Command::Takeback {
            answer: None,
            game: None,
        },
    ));
    seen.extend(h.bot.handle(
        &fen,
        Command::Takeback {
            answer: Some(TakebackAnswer::Allow),
            game: None,
        },
    ));
    seen.extend(h.bot.handle(
        &eve,
        Command::Move {
            text: "d2-c2".into(),
            game: None,
        },
    ));
    seen.extend(h.bot.handle(
        &fen,
        Command::Move {
            text: "`oops".into(),
            game: None,
        },
    ));
    seen.extend(h.bot.handle(
        &fen,
        Command::Resign {
            confirmed: true,
            game: None,
        },
    ));
    // The record names the players in its header: their backticks are kept apart (a joiner
    // between two), so that they cannot close the block.
    let rec = h.bot.handle(&eve, Command::Record { game: None });
    let rec = discord(&rec[0]);
    // (After the line saying that the game has ended.)
    let (ended, rec) = rec.split_once('\n').unwrap();
    assert!(ended.starts_with("Game 1 has ended"), "{ended}");
    assert!(rec.starts_with("```\n") && rec.ends_with("```"), "{rec}");
    assert!(rec.contains("x`\u{200D}`\u{200D}`y"), "{rec}");
    h.start("eve", "fen", "d", "hkot-1", "me");
    let mut mona = ctx("mona", "d");
    mona.moderator = true;
    seen.extend(h.bot.handle(
        &mona,
        Command::Abort {
            reason: Some(format!("{evil} <@123> @everyone")),
            game: None,
        },
    ));
    assert!(seen.len() >= 9, "{:?}", texts(&seen));
    for r in &seen {
        let text = discord(r);
        assert!(!text.contains("](http"), "a link in: {text}");
        assert!(!text.contains("```"), "a fence in: {text}");
        assert!(!text.contains("<@123>"), "a mention in: {text}");
        assert!(!text.contains("@everyone"), "@everyone in: {text}");
    }
    let abort = discord(seen.last().unwrap());
    assert!(
        abort.contains(r"\[Free Nitro\]\(https\://evil.example/a\)"),
        "{abort}"
    );
}

#[test]
fn game_commands_sent_in_a_direct_message_are_refused_privately_and_change_nothing() {
    let h = Harness::new(false);
    let dm = |name: &str| tara_bot::bot::Ctx {
        server: ServerId::new(tara_bot::bot::commands::DM_SERVER),
        channel: ChannelId::new(format!("dm-{name}")),
        user: user(name),
        moderator: false,
        manager: false,
        roles: Vec::new(),
    };
    let r = h.bot.handle(
        &dm("aoife"),
        challenge_cmd("brian", "hkot-1", None, Some("me"), false, Some("3")),
    );
    assert_eq!(r.len(), 1, "{}", texts(&r));
    assert!(r[0].ephemeral && r[0].mentions.is_empty() && r[0].buttons.is_empty());
    let t = r[0].plain_text();
    assert!(
        t.contains("`/challenge` works only in a server's channels") && t.contains("`/help`"),
        "{t}"
    );
    // Nothing was stored: no challenge to accept, from the DM or from a server.
    let mut s = tara_bot::store::Store::open(h.db()).unwrap();
    let open = s
        .read(|tx| tx.open_challenges(&ChannelId::new("dm-aoife")))
        .unwrap();
    assert!(open.is_empty());
    let r = h.send(
        "brian",
        "c",
        Command::Accept {
            challenge: Some(ChallengeId(1)),
        },
    );
    assert!(r[0].ephemeral, "{}", r[0].plain_text());
    let r = h.bot.handle(
        &dm("brian"),
        Command::Accept {
            challenge: Some(ChallengeId(1)),
        },
    );
    assert!(r[0].ephemeral && r[0].plain_text().contains("`/accept` works only"));
    // Every game command is refused in a DM; /help and /rules are answered there.
    for c in tara_bot::bot::commands::table() {
        assert_eq!(
            c.in_dms,
            c.name == "help" || c.name == "rules",
            "/{}",
            c.name
        );
    }
    let r = h.bot.handle(&dm("brian"), Command::Help {});
    assert!(r[0].ephemeral && r[0].plain_text().contains("`/challenge"));
    let r = h.bot.handle(
        &dm("brian"),
        Command::Rules {
            variant: Some(Variant::ArdRi),
            page: None,
        },
    );
    assert!(r[0].ephemeral && !r[0].plain_text().contains("works only"));
    // The same challenge from a server's channel goes through.
    let r = h.send(
        "aoife",
        "c",
        challenge_cmd("brian", "hkot-1", None, Some("me"), false, None),
    );
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
}

/// The context of `who` in `channel` on `server`.
fn ctx_on(server: &str, who: &str, channel: &str, moderator: bool) -> tara_bot::bot::Ctx {
    tara_bot::bot::Ctx {
        server: ServerId::new(server),
        channel: ChannelId::new(channel),
        user: user(who),
        moderator,
        manager: moderator,
        roles: Vec::new(),
    }
}

#[test]
fn twenty_challenges_to_the_same_person_ping_them_once() {
    let h = Harness::new(false);
    let first = h.send(
        "aoife",
        "c0",
        challenge_cmd("brian", "hkot-1", None, None, false, None),
    );
    assert!(!first[0].ephemeral);
    assert_eq!(first[0].mentions, vec!["brian".to_string()]);
    for i in 1..20 {
        let r = h.send(
            "aoife",
            &format!("c{i}"),
            challenge_cmd("brian", "ard-ri", None, None, false, None),
        );
        assert_eq!(r.len(), 1);
        assert!(r[0].ephemeral, "{}", r[0].plain_text());
        assert!(r[0].mentions.is_empty(), "a refusal pings nobody");
        assert_eq!(
            r[0].plain_text(),
            "There is already an open challenge between you and @brian: challenge #1 in #c0. \
             Wait for an answer, or `/cancel` it first."
        );
        // The link to the open challenge's channel is a channel reference.
        assert!(r[0]
            .parts
            .contains(&tara_bot::bot::Part::Channel(ChannelId::new("c0"))));
    }
    // The other direction is the same pair.
    let r = h.send(
        "brian",
        "c5",
        challenge_cmd("aoife", "hkot-1", None, None, false, None),
    );
    assert!(r[0].ephemeral && r[0].mentions.is_empty());
    assert!(
        r[0].plain_text()
            .contains("challenge #1 in #c0. It is addressed to you: `/accept` or `/decline` it."),
        "{}",
        r[0].plain_text()
    );
    // Once answered, a new challenge between them is welcome.
    let r = h.send("brian", "c0", Command::Decline { challenge: None });
    assert!(!r[0].ephemeral);
    let r = h.send(
        "brian",
        "c5",
        challenge_cmd("aoife", "hkot-1", None, None, false, None),
    );
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    assert!(r[0].plain_text().contains("challenge #2"));
}

#[test]
fn a_player_has_at_most_ten_open_challenges_unless_the_server_says_otherwise() {
    let h = Harness::new(false);
    for i in 0..10 {
        let r = h.send(
            "aoife",
            &format!("c{i}"),
            challenge_cmd(&format!("p{i}"), "hkot-1", None, None, false, None),
        );
        assert!(!r[0].ephemeral, "{i}: {}", r[0].plain_text());
    }
    let r = h.send(
        "aoife",
        "c10",
        challenge_cmd("p10", "hkot-1", None, None, false, None),
    );
    assert!(r[0].ephemeral && r[0].mentions.is_empty());
    assert_eq!(
        r[0].plain_text(),
        "You already have 10 open challenges on this server, and it allows at most 10. Wait \
         for answers, or `/cancel` one first (open challenges expire after 7 days)."
    );
    // Challenges to her do not count against her, nor do other servers'.
    let r = h.send(
        "p10",
        "c10",
        challenge_cmd("aoife", "hkot-1", None, None, false, None),
    );
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    let r = h.bot.handle(
        &ctx_on("elsewhere", "aoife", "e0", false),
        challenge_cmd("p11", "hkot-1", None, None, false, None),
    );
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    // An answered challenge frees a place.
    let r = h.send("p3", "c3", Command::Decline { challenge: None });
    assert!(!r[0].ephemeral);
    let r = h.send(
        "aoife",
        "c11",
        challenge_cmd("p11", "hkot-1", None, None, false, None),
    );
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());

    // A moderator lowers the limit; players cannot.
    let settings = |max: u32| Command::Settings {
        reminders: None,
        digest: None,
        tz: None,
        default_days: None,
        reminder_hours: None,
        challenge_days: None,
        max_challenges: Some(max),
        rate_limit: None,
        max_ai_games: None,
        tournament_role: None,
        rules_url: None,
        web: None,
    };
    let r = h
        .bot
        .handle(&ctx_on("elsewhere", "bob", "e1", false), settings(1));
    assert!(
        r[0].plain_text()
            .contains("Only members with Manage Server"),
        "{}",
        r[0].plain_text()
    );
    let r = h
        .bot
        .handle(&ctx_on("elsewhere", "mod", "e1", true), settings(1));
    assert!(
        r[0].plain_text()
            .contains("each player may have 1 challenge open"),
        "{}",
        r[0].plain_text()
    );
    let r = h.bot.handle(
        &ctx_on("elsewhere", "aoife", "e2", false),
        challenge_cmd("p12", "hkot-1", None, None, false, None),
    );
    assert!(
        r[0].ephemeral
            && r[0].plain_text().starts_with(
                "You already have 1 open challenge on this server, and it allows at most 1."
            ),
        "{}",
        r[0].plain_text()
    );
    // A limit lowered below what is open already: the refusal says how many are open.
    h.bot
        .handle(&ctx_on("server", "mod", "c0", true), settings(3));
    let r = h.send(
        "aoife",
        "c12",
        challenge_cmd("p12", "hkot-1", None, None, false, None),
    );
    assert!(
        r[0].plain_text().starts_with(
            "You already have 10 open challenges on this server, and it allows at most 3."
        ),
        "{}",
        r[0].plain_text()
    );
}

#[test]
fn ten_takeback_requests_ping_the_opponent_once() {
    let h = Harness::new(false);
    h.start("aoife", "brian", "c", "hkot-1", "me");
    h.mv("aoife", "c", "D4");
    let first = h.send("aoife", "c", takeback());
    assert!(!first[0].ephemeral);
    assert_eq!(first[0].mentions, vec!["brian".to_string()]);
    for _ in 1..10 {
        let r = h.send("aoife", "c", takeback());
        assert_eq!(r.len(), 1);
        assert!(r[0].ephemeral && r[0].mentions.is_empty());
        assert_eq!(
            r[0].plain_text(),
            "You have already asked to take back `D4`; wait for your opponent's answer (one \
             request per game at a time)."
        );
    }
    // Answered, the request can be made again.
    let r = h.send(
        "brian",
        "c",
        Command::Takeback {
            answer: Some(TakebackAnswer::Refuse),
            game: None,
        },
    );
    assert!(r[0].plain_text().contains("refused the takeback"));
    let again = h.send("aoife", "c", takeback());
    assert!(!again[0].ephemeral, "{}", again[0].plain_text());
    assert_eq!(again[0].mentions, vec!["brian".to_string()]);
}

fn takeback() -> Command {
    Command::Takeback {
        answer: None,
        game: None,
    }
}

#[test]
fn a_challenge_of_another_server_answers_like_a_missing_one() {
    let h = Harness::new(false);
    let r = h.bot.handle(
        &ctx_on("guild-a", "aoife", "a-chan", false),
        challenge_cmd("brian", "hkot-1", None, None, false, None),
    );
    assert!(r[0].plain_text().contains("challenge #1"));
    let missing = h.bot.handle(
        &ctx_on("guild-b", "brian", "b-chan", false),
        Command::Accept {
            challenge: Some(ChallengeId(2)),
        },
    )[0]
    .plain_text();
    assert_eq!(missing, "There is no challenge #2.");
    for (who, cmd) in [
        (
            "brian",
            Command::Accept {
                challenge: Some(ChallengeId(1)),
            },
        ),
        (
            "carl",
            Command::Accept {
                challenge: Some(ChallengeId(1)),
            },
        ),
        (
            "brian",
            Command::Decline {
                challenge: Some(ChallengeId(1)),
            },
        ),
        (
            "aoife",
            Command::Cancel {
                challenge: Some(ChallengeId(1)),
            },
        ),
    ] {
        let r = h.bot.handle(&ctx_on("guild-b", who, "b-chan", false), cmd);
        assert_eq!(r.len(), 1);
        assert!(r[0].ephemeral && r[0].mentions.is_empty());
        assert_eq!(r[0].plain_text(), "There is no challenge #1.");
    }
    // On its own server it is still open and can be accepted.
    let r = h.bot.handle(
        &ctx_on("guild-a", "brian", "a-chan", false),
        Command::Accept {
            challenge: Some(ChallengeId(1)),
        },
    );
    assert!(
        r[0].plain_text().contains("Game on!"),
        "{}",
        r[0].plain_text()
    );
    // Games too: another server's game is not there.
    let r = h.bot.handle(
        &ctx_on("guild-b", "brian", "b-chan", false),
        Command::Game {
            id: GameId(1),
            ply: None,
            marks: None,
            arrows: None,
            drawn: None,
            shared: false,
        },
    );
    assert_eq!(r[0].plain_text(), "There is no game #1 on this server.");
}

#[test]
fn a_closed_challenge_in_a_channel_without_games_names_it_for_archiving() {
    let h = Harness::new(false);
    h.send(
        "aoife",
        "t1",
        challenge_cmd("brian", "hkot-1", None, None, false, None),
    );
    let r = h.send("brian", "t1", Command::Decline { challenge: None });
    assert_eq!(
        r[0].archive_channel.as_ref().map(ChannelId::as_str),
        Some("t1")
    );
    // The challenge's message, answered by a typed command, loses its buttons too.
    let retire = r[0]
        .retire
        .as_ref()
        .expect("the challenge's buttons are retired");
    assert_eq!(
        (retire.channel.as_str(), retire.button.as_str()),
        ("t1", "accept:1")
    );
    assert_eq!(
        retire.text_with(|_, n| format!("@{n}"), |c| format!("#{c}")),
        "@aoife challenged @brian to **High Kings of Tara (Level 1)** (challenge #1): declined \
         by @brian."
    );
    h.send(
        "aoife",
        "t2",
        challenge_cmd("brian", "hkot-1", None, None, false, None),
    );
    let r = h.send("aoife", "t2", Command::Cancel { challenge: None });
    assert_eq!(
        r[0].archive_channel.as_ref().map(ChannelId::as_str),
        Some("t2")
    );
    // A channel that holds a game, or another open challenge, is left alone.
    h.start("aoife", "brian", "played", "hkot-1", "me");
    h.send(
        "aoife",
        "played",
        Command::Resign {
            confirmed: true,
            game: None,
        },
    );
    h.send(
        "aoife",
        "played",
        challenge_cmd("brian", "hkot-1", None, None, false, None),
    );
    let r = h.send("aoife", "played", Command::Cancel { challenge: None });
    assert!(!r[0].ephemeral && r[0].archive_channel.is_none());
    h.send(
        "aoife",
        "busy",
        challenge_cmd("brian", "hkot-1", None, None, false, None),
    );
    h.send(
        "carl",
        "busy",
        challenge_cmd("dana", "hkot-1", None, None, false, None),
    );
    let r = h.send("aoife", "busy", Command::Cancel { challenge: None });
    assert!(!r[0].ephemeral && r[0].archive_channel.is_none());
}

/// A bot over the harness's database with the command rate limit on.
fn limited(h: &Harness) -> tara_bot::bot::Bot {
    tara_bot::bot::Bot::new(
        tara_bot::store::Store::open(h.db()).unwrap(),
        h.clock.clone(),
        5,
    )
    .with_images(false)
    .with_rate_limit(true)
}

#[test]
fn the_rate_limit_refuses_a_fast_user_only_and_refills_continuously() {
    let h = Harness::new(false);
    let bot = limited(&h);
    let help = || Command::Help {};
    for i in 0..10 {
        let r = bot.handle(&ctx("aoife", "c"), help());
        assert!(r[0].plain_text().contains("tara-bot"), "{i}");
    }
    let r = bot.handle(&ctx("aoife", "c"), help());
    assert_eq!(
        r[0].plain_text(),
        "You are sending commands too fast: this server allows 10 every 10 seconds. Nothing was \
         done; try again in 1 second."
    );
    assert!(r[0].ephemeral && r[0].mentions.is_empty());
    // Another user is not affected.
    assert!(bot.handle(&ctx("brian", "c"), help())[0]
        .plain_text()
        .contains("tara-bot"));
    // Autocomplete is not counted.
    for _ in 0..50 {
        bot.autocomplete_move(&ctx("brian", "c"), "d");
    }
    // A token comes back every second.
    assert!(bot.advance_clock(999));
    assert!(bot.handle(&ctx("aoife", "c"), help())[0]
        .plain_text()
        .contains("too fast"));
    assert!(bot.advance_clock(1));
    assert!(bot.handle(&ctx("aoife", "c"), help())[0]
        .plain_text()
        .contains("tara-bot"));
    // A moderator raises the limit: it applies from the next command.
    let r = bot.handle(
        &ctx_on("server", "mod", "c", true),
        Command::Settings {
            reminders: None,
            digest: None,
            tz: None,
            default_days: None,
            reminder_hours: None,
            challenge_days: None,
            max_challenges: None,
            rate_limit: Some(30),
            max_ai_games: None,
            tournament_role: None,
            rules_url: None,
            web: None,
        },
    );
    assert!(r[0]
        .plain_text()
        .contains("send 30 commands per 10 seconds"));
    assert!(bot.advance_clock(10_000));
    for i in 0..30 {
        let r = bot.handle(&ctx("carl", "c"), help());
        assert!(r[0].plain_text().contains("tara-bot"), "{i}");
    }
    assert!(bot.handle(&ctx("carl", "c"), help())[0]
        .plain_text()
        .contains("allows 30 every 10 seconds"));
}

/// Median of latencies, in microseconds.
/// Latency under a flood is measured in `tara-bot bench service` (its `flood` line: other
/// users' median `/board` idle and during a flood); this test checks what must hold whatever
/// the machine's load: the flood is refused without changing anything, and other users'
/// commands, running at the same time, are all answered.
#[test]
fn a_flood_from_one_user_is_refused_and_other_users_are_answered_meanwhile() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let h = Harness::new(false);
    h.start("aoife", "brian", "game", "hkot-1", "me");
    let bot = limited(&h);

    // 60 challenges from one user: the limits let the first few through, refuse the rest.
    let mut accepted = 0;
    let mut too_fast = 0;
    for i in 0..60 {
        let r = bot.handle(
            &ctx("flood", &format!("f{i}")),
            challenge_cmd(&format!("victim{i}"), "hkot-1", None, None, false, None),
        );
        if !r[0].ephemeral {
            accepted += 1;
        } else {
            assert!(r[0].mentions.is_empty());
            if r[0].plain_text().contains("too fast") {
                too_fast += 1;
            }
        }
    }
    assert_eq!((accepted, too_fast), (10, 50));
    // Later, with tokens back, the open-challenge limit still holds.
    assert!(bot.advance_clock(60_000));
    let r = bot.handle(
        &ctx("flood", "f60"),
        challenge_cmd("victim60", "hkot-1", None, None, false, None),
    );
    assert!(r[0].plain_text().contains("10 open challenges"));

    // Other users' commands, each a /board of the game by a user of their own, while the
    // flooding user sends challenges from another thread.
    let stop = AtomicBool::new(false);
    let flooded = AtomicUsize::new(0);
    let refused = AtomicUsize::new(0);
    let (answered, sent_meanwhile) = std::thread::scope(|s| {
        s.spawn(|| {
            let mut i = 0;
            while !stop.load(Ordering::Relaxed) {
                let r = bot.handle(
                    &ctx("flood", "f0"),
                    challenge_cmd(&format!("v{i}"), "hkot-1", None, None, false, None),
                );
                if r.len() == 1 && r[0].ephemeral && r[0].mentions.is_empty() {
                    refused.fetch_add(1, Ordering::Relaxed);
                }
                i += 1;
                flooded.store(i, Ordering::Relaxed);
            }
        });
        // Let the flood get going.
        while flooded.load(Ordering::Relaxed) < 100 {
            std::thread::yield_now();
        }
        let before = flooded.load(Ordering::Relaxed);
        let mut answered = 0;
        // At least 300 reads, and on until the flood has sent more meanwhile (on a loaded
        // machine its thread may wait for a core; the bound only stops a hang).
        let mut i = 0;
        while i < 300 || (flooded.load(Ordering::Relaxed) == before && i < 1_000_000) {
            i += 1;
            let r = bot.handle(
                &ctx(&format!("busy{i}"), "game"),
                Command::Board {
                    ply: None,
                    marks: None,
                    arrows: None,
                    game: None,
                },
            );
            assert_eq!(r.len(), 1);
            assert!(!r[0].ephemeral, "{}", r[0].plain_text());
            answered += 1;
        }
        let meanwhile = flooded.load(Ordering::Relaxed) - before;
        stop.store(true, Ordering::Relaxed);
        (answered, meanwhile)
    });
    assert!(answered >= 300);
    assert!(
        sent_meanwhile > 0,
        "the flood ran while the others were answered"
    );
    // Every flood command was refused privately, and nothing it sent was stored.
    let n = flooded.load(Ordering::Relaxed);
    assert_eq!(refused.load(Ordering::Relaxed), n);
    let r = bot.handle(
        &ctx("flood", "f61"),
        challenge_cmd("victim61", "hkot-1", None, None, false, None),
    );
    assert!(r[0].ephemeral);
    assert!(bot.advance_clock(60_000));
    let r = bot.handle(
        &ctx("flood", "f62"),
        challenge_cmd("victim62", "hkot-1", None, None, false, None),
    );
    assert!(
        r[0].plain_text().contains("10 open challenges"),
        "{}",
        r[0].plain_text()
    );
}

fn resign_cmd(confirmed: bool) -> Command {
    Command::Resign {
        confirmed,
        game: None,
    }
}

/// docs/rules.md §9: a resignation before both players have moved aborts the game (no result,
/// no points, unrated), whoever resigns; after both have moved it is a loss.
#[test]
fn a_resignation_before_both_players_moved_aborts_the_game() {
    let h = Harness::new(false);
    let g = h.start("aoife", "brian", "c", "sacred-hill-1", "me");
    let r = h.send("brian", "c", resign_cmd(false));
    assert!(r[0].ephemeral);
    assert_eq!(
        r[0].plain_text(),
        "Before both players have moved, resigning aborts the game: no result, no points, no \
         rating change. Resign this game against aoife?"
    );
    let r = h.send("brian", "c", resign_cmd(true));
    assert_eq!(r.len(), 1, "{}", texts(&r));
    assert_eq!(
        r[0].plain_text(),
        "**Game aborted.** @brian (Blue) resigned before both players had moved, so the game \
         does not count: no result, no points, no rating change. @aoife, the channel is free \
         for a new game."
    );
    assert_eq!(r[0].mentions, vec!["aoife".to_string()]);
    let (row, _, _) = stored(&h.db(), g.id);
    assert_eq!((row.status, row.outcome), (GameStatus::Aborted, None));
    // One player has moved: still aborted, whoever resigns.
    let g = h.start("aoife", "brian", "c", "sacred-hill-1", "me");
    h.mv("aoife", "c", "D4");
    let r = h.send("aoife", "c", resign_cmd(true));
    assert!(
        r[0].plain_text()
            .starts_with("**Game aborted.** @aoife (Red) resigned before both players had moved"),
        "{}",
        r[0].plain_text()
    );
    assert_eq!(stored(&h.db(), g.id).0.status, GameStatus::Aborted);
    // Both have moved: a resignation is a loss.
    let g = h.start("aoife", "brian", "c", "sacred-hill-1", "me");
    h.mv("aoife", "c", "D4");
    h.mv("brian", "c", "B2");
    let r = h.send("aoife", "c", resign_cmd(false));
    assert_eq!(
        r[0].plain_text(),
        "Resign this game against brian? Blue will win. This cannot be undone."
    );
    let r = h.send("aoife", "c", resign_cmd(true));
    assert!(
        r[0].plain_text()
            .starts_with("@aoife (Red) resigned.\n**Game over.** Blue wins"),
        "{}",
        r[0].plain_text()
    );
    assert_eq!(stored(&h.db(), g.id).0.status, GameStatus::Finished);
}

/// In a match, a resignation before both players moved aborts the game as a player's
/// `/abort` does: the game is replayed.
#[test]
fn a_match_game_resigned_before_both_players_moved_is_replayed() {
    let h = Harness::new(false);
    h.send(
        "aoife",
        "c",
        challenge_cmd("brian", "hkot-1", None, Some("me"), true, None),
    );
    h.send("brian", "c", Command::Accept { challenge: None });
    let g1 = active(&h.db(), "c").unwrap();
    h.mv("aoife", "c", "D4");
    let r = h.send("aoife", "c", resign_cmd(true));
    assert_eq!(
        r[0].plain_text(),
        "**Game aborted.** @aoife (Red) resigned before both players had moved, so the game \
         does not count: no result, no points, no rating change. Match game 1 is replayed."
    );
    assert!(r[1].plain_text().contains("**Game on!**"), "{}", texts(&r));
    let again = active(&h.db(), "c").unwrap();
    assert_ne!(again.id, g1.id);
    assert_eq!(again.match_game, Some(1));
    assert_eq!(stored(&h.db(), g1.id).0.status, GameStatus::Aborted);
}

/// `/status` of a match's second game lists only the games before it as earlier, also once
/// it has ended.
#[test]
fn the_status_of_a_matchs_second_game_lists_only_the_first_as_earlier() {
    let h = Harness::new(false);
    h.send(
        "aoife",
        "c",
        challenge_cmd("brian", "sacred-hill-1", None, Some("me"), true, None),
    );
    h.send("brian", "c", Command::Accept { challenge: None });
    h.mv("aoife", "c", "D4");
    h.mv("brian", "c", "B2");
    h.send("brian", "c", resign_cmd(true));
    let g2 = active(&h.db(), "c").expect("game 2");
    h.mv("brian", "c", "D4");
    h.mv("aoife", "c", "B2");
    h.send("aoife", "c", resign_cmd(true));
    assert_eq!(stored(&h.db(), g2.id).0.status, GameStatus::Finished);
    let t = h.send("carol", "c", Command::Status { game: None })[0].plain_text();
    let line = t
        .lines()
        .find(|l| l.starts_with("Match "))
        .unwrap_or_else(|| panic!("{t}"));
    assert_eq!(
        line,
        "Match game 2 of 2 · earlier: game 1: aoife 2 – 0 brian"
    );
}
