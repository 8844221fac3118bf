//! Games against the bot's AI through the bot core, the AI's moves driven synchronously by
//! `ai_runner::play_pending` (as the console does): whole games at level 1 (deterministic for
//! the bot's seed), exactly one message per AI move, a restart while the AI is to move, stale
//! moves refused, takebacks, draw offers, clocks, and the rules (unrated, no matches, the AI
//! takes no commands).

mod common;

use common::{active, ctx, stored, texts, Harness, T0};
use tara_bot::ai_runner::{find_move, play_pending};
use tara_bot::bot::time::DAY;
use tara_bot::bot::{Clock, Command, Reply};
use tara_bot::game::playout::Rng;
use tara_bot::game::BySide;
use tara_bot::game::{Move, Position, Scoring, Variant};
use tara_bot::store::UserId;
use tara_bot::store::{ChannelId, ServerId};
use tara_bot::store::{FirstChoice, GameStatus, AI_USER_ID};

/// A generous time limit: level 1 stops at its 40 playouts long before it.
const MS: u64 = 60_000;

fn play_ai(variant: Variant, level: Option<u32>, first: Option<FirstChoice>) -> Command {
    Command::PlayAi {
        variant,
        level,
        first,
        scoring: None,
        thread: None,
    }
}

/// A random legal move for the human, typed as text.
fn human_move(pos: &Position, rng: &mut Rng) -> String {
    let legal = pos.legal_moves();
    legal[rng.below(legal.len())].to_string()
}

/// Plays a whole game as `aoife` (random moves from `seed`) against the AI at level 1; checks
/// every reply on the way; returns the stored moves.
fn whole_game(h: &Harness, variant: Variant, first: FirstChoice, seed: u64) -> Vec<String> {
    let ch = "ai";
    let r = h.send("aoife", ch, play_ai(variant, Some(1), Some(first)));
    assert_eq!(r.len(), 1, "{}", texts(&r));
    assert!(!r[0].ephemeral && r[0].plain_text().contains("Game on!"));
    assert!(r[0].board_text.is_some(), "the start shows the board");
    let game = active(&h.db(), ch).expect("a game against the AI");
    assert!(!game.rated, "games against the AI are never rated");
    let ai_seat = game.seat_of(AI_USER_ID).expect("the AI has a seat");
    assert_eq!(game.ai_levels[ai_seat], Some(1));
    assert_eq!(game.ai_levels[ai_seat.opponent()], None);
    let mut rng = Rng::new(seed);
    let mut ai_moves = 0;
    for _ in 0..1000 {
        let (g, moves, pos) = stored(&h.db(), game.id);
        if g.status != GameStatus::Active {
            break;
        }
        let to_move = pos.to_move().expect("an active game has a side to move");
        if to_move == ai_seat {
            let replies = play_pending(&h.bot, MS);
            assert_eq!(
                replies.len(),
                1,
                "one message per AI move: {}",
                texts(&replies)
            );
            let r: &Reply = &replies[0];
            assert!(!r.ephemeral && r.outbox.is_some(), "owed to the channel");
            assert_eq!(r.channel.as_ref().map(ChannelId::as_str), Some(ch));
            assert!(r.board_text.is_some(), "the AI's move shows the board");
            assert!(
                r.mentions.iter().any(|m| m == "aoife"),
                "the player is pinged: {}",
                r.plain_text()
            );
            let (_, after, _) = stored(&h.db(), game.id);
            assert!(after.len() > moves.len(), "the AI moved");
            ai_moves += 1;
            // Nothing more to do until the player moves.
            assert!(play_pending(&h.bot, MS).is_empty());
        } else {
            let r = h.mv("aoife", ch, &human_move(&pos, &mut rng));
            assert!(!r[0].ephemeral, "{}", texts(&r));
        }
    }
    let (g, moves, pos) = stored(&h.db(), game.id);
    assert_eq!(g.status, GameStatus::Finished, "the game ends");
    assert!(pos.outcome().is_some() && ai_moves > 0);
    moves
}

#[test]
fn whole_games_against_the_ai_every_move_legal_and_deterministic() {
    for (i, variant) in Variant::ALL.into_iter().enumerate() {
        let first = if i % 2 == 0 {
            FirstChoice::Challenger
        } else {
            FirstChoice::Opponent
        };
        let a = Harness::new(false);
        let moves = whole_game(&a, variant, first, 11 + i as u64);
        // Every stored move replays legally (`stored` replays them) and the AI's are its own.
        let b = Harness::new(false);
        assert_eq!(
            whole_game(&b, variant, first, 11 + i as u64),
            moves,
            "{variant:?}: the same seed and moves give the same game"
        );
    }
}

#[test]
fn the_ai_moves_first_when_asked_and_its_moves_are_stored_as_its_own() {
    let h = Harness::new(false);
    let r = h.send(
        "aoife",
        "c",
        play_ai(Variant::ArdRi, Some(2), Some(FirstChoice::Opponent)),
    );
    let start = r[0].plain_text();
    assert!(start.contains("is thinking"), "{start}");
    assert!(
        r[0].mentions.iter().all(|m| m != AI_USER_ID),
        "nobody pings the AI"
    );
    let g = active(&h.db(), "c").unwrap();
    assert_eq!(*g.seats.first(), AI_USER_ID, "the AI attacks, moving first");
    assert_eq!(g.ai_levels, BySide::new(Some(2), None));
    let replies = play_pending(&h.bot, MS);
    assert_eq!(replies.len(), 1);
    assert!(replies[0].plain_text().contains("Tara-bot AI (level 2)"));
    assert_eq!(replies[0].mentions, vec!["aoife".to_string()]);
    let mut s = tara_bot::store::Store::open(h.db()).unwrap();
    let moves = s.read(|tx| tx.moves(g.id)).unwrap();
    assert_eq!(moves.len(), 1);
    assert_eq!(
        moves[0].user_id.as_ref().map(UserId::as_str),
        Some(AI_USER_ID)
    );
}

#[test]
fn after_a_restart_the_ai_moves_exactly_once_and_a_stale_move_is_refused() {
    let mut h = Harness::new(false);
    h.send(
        "aoife",
        "c",
        play_ai(Variant::Hkot1, Some(1), Some(FirstChoice::Challenger)),
    );
    let g = active(&h.db(), "c").unwrap();
    h.mv("aoife", "c", "D4");
    assert_eq!(stored(&h.db(), g.id).1.len(), 1);
    // The process stops before the AI's move is found; a new one takes over.
    h.restart();
    let turns = h.bot.ai_turns();
    assert_eq!(turns.len(), 1);
    assert_eq!((turns[0].game, turns[0].ply), (g.id, 1));
    let mv = find_move(&turns[0], MS);
    // Two searches of the same turn (a repeat after a restart): only the first plays.
    let first = h.bot.apply_ai_move(g.id, 1, mv);
    assert_eq!(first.len(), 1, "{}", texts(&first));
    assert!(h.bot.apply_ai_move(g.id, 1, mv).is_empty());
    assert!(play_pending(&h.bot, MS).is_empty(), "nothing more to play");
    let (_, moves, _) = stored(&h.db(), g.id);
    assert_eq!(moves.len(), 2, "{moves:?}");
    // An illegal move, or one when the player is to move, is refused too.
    assert!(h.bot.apply_ai_move(g.id, 2, Move::Pass).is_empty());
    assert!(h.bot.ai_turns().is_empty());
}

#[test]
fn a_takeback_against_the_ai_is_granted_at_once_before_it_answers() {
    let h = Harness::new(false);
    h.send(
        "aoife",
        "c",
        play_ai(Variant::Hkot2, Some(1), Some(FirstChoice::Challenger)),
    );
    let g = active(&h.db(), "c").unwrap();
    h.mv("aoife", "c", "D4");
    // The AI is thinking (its search not yet done): the takeback is granted at once.
    let turn = h.bot.ai_turns().pop().expect("the AI is to move");
    let r = h.send(
        "aoife",
        "c",
        Command::Takeback {
            answer: None,
            game: None,
        },
    );
    assert_eq!(r.len(), 1, "{}", texts(&r));
    let text = r[0].plain_text();
    assert!(
        !r[0].ephemeral && text.contains("allows the takeback: `D4` is undone"),
        "{text}"
    );
    assert!(
        r[0].mentions.contains(&UserId::new("aoife".to_string())),
        "your move again"
    );
    let (_, moves, pos) = stored(&h.db(), g.id);
    assert!(moves.is_empty() && pos.to_move().map(|s| s.index()) == Some(0));
    assert!(h.bot.ai_turns().is_empty(), "the player is to move");
    // The search begun before the takeback finds its ply gone.
    assert!(h
        .bot
        .apply_ai_move(g.id, turn.ply, find_move(&turn, MS))
        .is_empty());
    assert!(stored(&h.db(), g.id).1.is_empty());
    // Once the AI has answered, the move can no longer be taken back (docs/rules.md §9).
    h.mv("aoife", "c", "D4");
    assert_eq!(play_pending(&h.bot, MS).len(), 1);
    let r = h.send(
        "aoife",
        "c",
        Command::Takeback {
            answer: None,
            game: None,
        },
    );
    assert!(
        r[0].ephemeral && r[0].plain_text().contains("already answered"),
        "{}",
        texts(&r)
    );
    assert_eq!(stored(&h.db(), g.id).1.len(), 2);
}

#[test]
fn the_ai_takes_no_draw_offer_and_no_command_and_plays_no_rated_game_or_match() {
    let h = Harness::new(false);
    h.bot.set_self_user(&UserId::new("tara-bot"));
    // `/challenge` naming the bot: a game against the AI at level 3.
    let r = h.send(
        "aoife",
        "c",
        common::challenge_cmd("tara-bot", "sacred-hill-1", None, Some("me"), false, None),
    );
    assert!(r[0].plain_text().contains("Game on!"), "{}", texts(&r));
    let g = active(&h.db(), "c").unwrap();
    assert_eq!(*g.ai_levels.second(), Some(3));
    assert!(!g.rated);
    let r = h.send(
        "aoife",
        "c",
        Command::Draw {
            answer: None,
            game: None,
        },
    );
    assert!(r[0].ephemeral && r[0].plain_text().contains("does not take draw offers"));
    for (is_match, rated, why) in [(true, None, "matches"), (false, Some(true), "never rated")] {
        let mut cmd = common::challenge_cmd(AI_USER_ID, "hkot-1", None, None, is_match, None);
        if let Command::Challenge { rated: r, .. } = &mut cmd {
            *r = rated;
        }
        let r = h.send("brian", "d", cmd);
        assert!(
            r[0].ephemeral && r[0].plain_text().contains(why),
            "{}",
            texts(&r)
        );
    }
    assert!(active(&h.db(), "d").is_none());
    // The bot's own user sends nothing: not a move, not a tournament sign-up.
    for cmd in [
        Command::Move {
            text: "D4".into(),
            game: None,
        },
        Command::TournamentJoin { id: None },
    ] {
        let r = h.bot.handle(&ctx("tara-bot", "c"), cmd);
        assert!(r[0].ephemeral && r[0].plain_text().contains("takes no commands"));
        assert!(!r[0].plain_text().contains("  "), "{}", r[0].plain_text());
    }
    // A busy channel refuses a second game; a bad level is refused by the table.
    let r = h.send("brian", "c", play_ai(Variant::ArdRi, None, None));
    assert!(r[0].ephemeral && r[0].plain_text().contains("already running"));
    let bad = Command::parse(
        "play-ai",
        &tara_bot::bot::options::Values::new()
            .with(
                "variant",
                tara_bot::bot::options::Value::Text("ard-ri".into()),
            )
            .with("level", tara_bot::bot::options::Value::Integer(6)),
    );
    assert_eq!(bad, Err("`level` must be from 1 to 5.".into()));
    // Knots scoring is kept.
    let r = h.send(
        "brian",
        "e",
        Command::PlayAi {
            variant: Variant::Hkot1,
            level: Some(5),
            first: None,
            scoring: Some(Scoring::Knots),
            thread: None,
        },
    );
    assert!(!r[0].ephemeral, "{}", texts(&r));
    assert_eq!(
        active(&h.db(), "e").unwrap().options.scoring,
        Scoring::Knots
    );
}

#[test]
fn the_players_clock_runs_and_the_ais_never_does() {
    let h = Harness::new(false);
    // A server default of 1 day per move applies to the player.
    let mut mod_ctx = ctx("mod", "c");
    mod_ctx.moderator = true;
    mod_ctx.manager = true;
    let r = h.bot.handle(
        &mod_ctx,
        Command::parse(
            "settings",
            &tara_bot::bot::options::Values::new().with(
                "default-days",
                tara_bot::bot::options::Value::Text("1".into()),
            ),
        )
        .unwrap(),
    );
    assert!(!texts(&r).contains("only moderators"), "{}", texts(&r));
    h.send(
        "aoife",
        "c",
        play_ai(Variant::Hkot1, Some(1), Some(FirstChoice::Challenger)),
    );
    let g = active(&h.db(), "c").unwrap();
    assert_eq!(g.days_per_move, Some(1));
    assert_eq!(g.deadline_at, Some(T0 + DAY), "the player's clock runs");
    h.mv("aoife", "c", "D4");
    let g = active(&h.db(), "c").unwrap();
    assert_eq!(g.deadline_at, None, "the AI has no clock");
    // Days pass with the AI to move (its search never ran): it does not time out.
    h.clock.advance_ms(5 * DAY);
    h.bot.tick();
    assert!(active(&h.db(), "c").is_some());
    assert_eq!(play_pending(&h.bot, MS).len(), 1);
    // A vacation pauses the player's clock; nobody is told but the player (the AI reads
    // nothing), and the same when it ends.
    let before = active(&h.db(), "c").unwrap().deadline_at.unwrap();
    for (cmd, says) in [
        (
            Command::Vacation {
                days: Some(2),
                end: false,
                confirmed: true,
            },
            "You are on vacation",
        ),
        (
            Command::Vacation {
                days: None,
                end: true,
                confirmed: false,
            },
            "Welcome back",
        ),
    ] {
        let r = h.send("aoife", "c", cmd);
        assert_eq!(r.len(), 1, "{}", texts(&r));
        assert!(
            r[0].ephemeral && r[0].plain_text().contains(says),
            "{}",
            texts(&r)
        );
        if says == "You are on vacation" {
            let paused = active(&h.db(), "c").unwrap().deadline_at.unwrap();
            assert!(paused > before, "the clock is paused");
        }
    }
    assert_eq!(active(&h.db(), "c").unwrap().deadline_at, Some(before));
    let g = active(&h.db(), "c").unwrap();
    let deadline = g.deadline_at.expect("the player's clock runs again");
    // The player's clock runs out as in any game.
    h.clock.advance_ms(deadline - h.clock.now_ms() + 1);
    let due = h.bot.tick();
    assert!(texts(&due).contains("time"), "{}", texts(&due));
    let (g, _, _) = stored(&h.db(), g.id);
    assert_eq!(g.status, GameStatus::Finished);
}

#[test]
fn the_players_move_says_the_ai_is_thinking_and_pings_nobody() {
    let h = Harness::new(false);
    h.send(
        "aoife",
        "c",
        play_ai(Variant::Hkot1, Some(1), Some(FirstChoice::Challenger)),
    );
    let r = h.mv("aoife", "c", "D4");
    let text = r[0].plain_text();
    assert!(text.contains("Tara-bot AI (level 1) is thinking"), "{text}");
    assert!(r[0].mentions.is_empty(), "{:?}", r[0].mentions);
}

/// Aborting a game against the AI before the first move pings nobody (the AI reads nothing).
#[test]
fn aborting_a_game_against_the_ai_pings_nobody() {
    let h = Harness::new(false);
    h.send(
        "aoife",
        "c",
        play_ai(Variant::ArdRi, Some(1), Some(FirstChoice::Challenger)),
    );
    let r = h.send(
        "aoife",
        "c",
        Command::Abort {
            reason: None,
            game: None,
        },
    );
    assert_eq!(r.len(), 1, "{}", texts(&r));
    let text = r[0].plain_text();
    assert!(text.starts_with("Game aborted by @aoife"), "{text}");
    assert!(!text.contains("channel is free"), "{text}");
    assert!(r[0].mentions.is_empty(), "{:?}", r[0].mentions);
    assert!(active(&h.db(), "c").is_none());
}

/// `/settings` with one option as typed, read through the command table.
fn settings(option: &str, value: i64) -> Command {
    use tara_bot::bot::options::{Value, Values};
    Command::parse(
        "settings",
        &Values::new().with(option, Value::Integer(value)),
    )
    .unwrap_or_else(|e| panic!("settings: {e}"))
}

#[test]
fn a_player_may_have_three_games_against_the_ai_and_a_refusal_is_private_and_posts_nothing() {
    let h = Harness::new(false);
    h.bot.set_self_user(&UserId::new("tara-bot"));
    let hkot = || play_ai(Variant::Hkot1, Some(5), Some(FirstChoice::Challenger));
    for ch in ["a1", "a2", "a3"] {
        let r = h.send("aoife", ch, hkot());
        assert!(!r[0].ephemeral, "{}", texts(&r));
    }
    let owed = h.bot.undelivered(true).len();
    let limit = "You already have 3 games against the AI in progress on this server: #1 in #a1, \
                 #2 in #a2, #3 in #a3. This server allows 3 at a time: finish one of them (or \
                 `/resign` it) first.";
    // A fourth, by `/play-ai` or by a challenge to the bot: refused privately, naming the
    // games in progress, pinging nobody, storing and owing nothing.
    let to_bot = common::challenge_cmd("tara-bot", "ard-ri", None, None, false, None);
    for cmd in [hkot(), to_bot] {
        let r = h.send("aoife", "a4", cmd);
        assert_eq!(r.len(), 1, "{}", texts(&r));
        assert!(r[0].ephemeral && r[0].outbox.is_none() && r[0].mentions.is_empty());
        assert_eq!(r[0].plain_text(), limit);
        assert!(active(&h.db(), "a4").is_none());
        assert_eq!(
            h.bot.undelivered(true).len(),
            owed,
            "nothing public is owed"
        );
    }
    // The adapter's check before it opens a thread for the game says the same.
    let c = ctx("aoife", "a4");
    assert_eq!(h.bot.ai_game_refusal(&c).unwrap().plain_text(), limit);
    let bot = tara_bot::bot::User::new("tara-bot", "Tara-bot");
    assert_eq!(
        h.bot
            .challenge_refusal(&c, Some(&bot))
            .unwrap()
            .plain_text(),
        limit
    );
    // Another player is not held back, nor is Aoife on another server.
    assert!(h.bot.ai_game_refusal(&ctx("brian", "b1")).is_none());
    assert!(!h.send("brian", "b1", hkot())[0].ephemeral);
    let elsewhere = tara_bot::bot::Ctx {
        server: ServerId::new("elsewhere"),
        ..ctx("aoife", "x1")
    };
    assert!(!h.bot.handle(&elsewhere, hkot())[0].ephemeral);

    // Once one of them is over, another is welcome.
    let r = h.send(
        "aoife",
        "a2",
        Command::Abort {
            reason: None,
            game: None,
        },
    );
    assert!(!r[0].ephemeral, "{}", texts(&r));
    assert!(h.bot.ai_game_refusal(&c).is_none());
    assert!(!h.send("aoife", "a4", hkot())[0].ephemeral);
    let r = h.send("aoife", "a5", hkot());
    assert!(
        r[0].ephemeral
            && r[0]
                .plain_text()
                .contains("#1 in #a1, #3 in #a3, #6 in #a4."),
        "{}",
        texts(&r)
    );

    // Manage Server changes the limit in /settings, which shows it; the change is audited.
    let r = h.send("aoife", "a5", settings("max-ai-games", 4));
    assert!(
        r[0].ephemeral
            && r[0]
                .plain_text()
                .contains("Only members with Manage Server")
    );
    let mut m = ctx("mona", "a5");
    m.moderator = true;
    m.manager = true;
    let r = h.bot.handle(&m, settings("max-ai-games", 4));
    let t = r[0].plain_text();
    assert!(
        r[0].ephemeral && t.contains("and play 4 games against the AI at once"),
        "{t}"
    );
    let log = h.bot.handle(&m, Command::Audit { log: None });
    assert!(
        log[0].plain_text().contains("max-ai-games set to 4"),
        "{}",
        log[0].plain_text()
    );
    assert!(!h.send("aoife", "a5", hkot())[0].ephemeral);
    // Lowered below what a player has: the refusal says so plainly.
    h.bot.handle(&m, settings("max-ai-games", 1));
    let r = h.send("aoife", "a6", hkot());
    assert!(
        r[0].plain_text().starts_with(
            "You already have 4 games against the AI in progress on this server: #1 in #a1,"
        ) && r[0].plain_text().ends_with(
            "This server allows 1 at a time: finish one of them (or `/resign` it) first."
        ),
        "{}",
        texts(&r)
    );
    // The table keeps the setting within 1 to 20.
    let bad = Command::parse(
        "settings",
        &tara_bot::bot::options::Values::new()
            .with("max-ai-games", tara_bot::bot::options::Value::Integer(21)),
    );
    assert_eq!(bad, Err("`max-ai-games` must be from 1 to 20.".into()));
}

fn resign() -> Command {
    Command::Resign {
        confirmed: true,
        game: None,
    }
}

/// The AI is never pinged: not at the end of a game (by resignation, by a timeout, by a
/// moderator's abort), nor when a resignation before both players moved aborts the game.
#[test]
fn the_ai_is_never_pinged_at_the_end_of_a_game() {
    let h = Harness::new(false);
    let start = |ch: &str| {
        h.send(
            "aoife",
            ch,
            play_ai(Variant::Hkot1, Some(1), Some(FirstChoice::Challenger)),
        );
        h.mv("aoife", ch, "D4");
        assert_eq!(play_pending(&h.bot, MS).len(), 1, "the AI answers");
    };
    // A resignation once both have moved: only the player is pinged, on the last line.
    start("c");
    let r = h.send("aoife", "c", resign());
    let text = r[0].plain_text();
    assert!(text.contains("**Game over.**"), "{text}");
    assert_eq!(text.lines().last(), Some("@aoife"), "{text}");
    assert_eq!(r[0].mentions, vec!["aoife".to_string()]);
    // A moderator's abort names and pings the player only.
    start("d");
    let mut mod_ctx = ctx("mona", "d");
    mod_ctx.moderator = true;
    let r = h.bot.handle(
        &mod_ctx,
        Command::Abort {
            reason: None,
            game: None,
        },
    );
    let text = r[0].plain_text();
    assert!(text.ends_with("No result, no points. @aoife."), "{text}");
    assert_eq!(r[0].mentions, vec!["aoife".to_string()]);
    // A resignation before the AI has moved aborts the game and pings nobody.
    h.send(
        "aoife",
        "e",
        play_ai(Variant::Hkot1, Some(1), Some(FirstChoice::Challenger)),
    );
    h.mv("aoife", "e", "D4");
    let r = h.send("aoife", "e", resign());
    assert_eq!(
        r[0].plain_text(),
        "**Game aborted.** @aoife (Red) resigned before both players had moved, so the game \
         does not count: no result, no points, no rating change."
    );
    assert!(r[0].mentions.is_empty(), "{:?}", r[0].mentions);
}

/// A timeout in a game against the AI pings the player, never the AI: before the player's
/// first move (the game is aborted) and after it (the AI wins).
#[test]
fn a_timeout_against_the_ai_pings_only_the_player() {
    let h = Harness::new(false);
    let mut mod_ctx = ctx("mod", "x");
    mod_ctx.moderator = true;
    mod_ctx.manager = true;
    h.bot.handle(
        &mod_ctx,
        Command::parse(
            "settings",
            &tara_bot::bot::options::Values::new().with(
                "default-days",
                tara_bot::bot::options::Value::Text("1".into()),
            ),
        )
        .unwrap(),
    );
    // The AI moves first; the player never does.
    h.send(
        "aoife",
        "c",
        play_ai(Variant::Hkot1, Some(1), Some(FirstChoice::Opponent)),
    );
    assert_eq!(play_pending(&h.bot, MS).len(), 1);
    // The player moves once, then lets the clock run out, in another game.
    h.send(
        "aoife",
        "d",
        play_ai(Variant::Hkot1, Some(1), Some(FirstChoice::Challenger)),
    );
    h.mv("aoife", "d", "D4");
    assert_eq!(play_pending(&h.bot, MS).len(), 1);
    h.clock.advance_ms(DAY + 1);
    let due = h.bot.tick();
    assert_eq!(due.len(), 2, "{}", texts(&due));
    for r in &due {
        let text = r.plain_text();
        assert!(text.contains("**Time is up.**"), "{text}");
        assert_eq!(text.lines().last(), Some("@aoife"), "{text}");
        assert_eq!(r.mentions, vec!["aoife".to_string()], "{text}");
    }
}
