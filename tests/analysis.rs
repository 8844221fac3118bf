//! `/analyse` through the bot core, the analyses run synchronously by
//! `ai_runner::analyse_pending` (as the console runs them): a finished game analysed in the
//! background (deterministic: the search's seed is the game's id and the level has a fixed
//! budget), its progress message edited then the result posted, each exactly once; only the
//! latest edit still owed; the result cached per game and level; a restart mid-analysis
//! resumes it and finishes it once; live, aborted, unknown and other servers' games refused.

mod common;

use common::{active, challenge_cmd, ctx, player_moves, stored, texts, Harness};
use tara_bot::ai::{analyse, Level, Limit};
use tara_bot::ai_runner::analyse_pending;
use tara_bot::bot::{Command, Ctx, EditTarget, Reply};
use tara_bot::game::{GameOptions, Move, Position, Variant};
use tara_bot::store::MessageId;
use tara_bot::store::{AnalysisRow, AnalysisStatus, GameId, GameStatus, Store};
use tara_bot::store::{ChannelId, ServerId};

const CH: &str = "table";
/// A generous time limit per search: levels 3 and 4 stop at their budget long before it.
const MS: u64 = 60_000;

fn analyse_cmd(id: GameId, level: Option<u32>) -> Command {
    Command::Analyse { id, level }
}

/// Plays a whole random game of `variant` between aoife (Red or the attackers, first) and
/// brian in channel `ch`; its id. `finish`: play it to its end (else leave it in progress).
fn game(h: &Harness, variant: Variant, ch: &str, seed: u64, finish: bool) -> GameId {
    game_on(h, "server", variant, ch, seed, finish)
}

/// A user in a channel of `server`.
fn on(server: &str, who: &str, ch: &str) -> Ctx {
    Ctx {
        server: ServerId::new(server),
        ..ctx(who, ch)
    }
}

/// [`game`] on `server`.
fn game_on(
    h: &Harness,
    server: &str,
    variant: Variant,
    ch: &str,
    seed: u64,
    finish: bool,
) -> GameId {
    let send = |who: &str, cmd: Command| h.bot.handle(&on(server, who, ch), cmd);
    let r = send(
        "aoife",
        challenge_cmd("brian", variant.id(), None, Some("me"), false, None),
    );
    assert!(!r[0].ephemeral, "{}", texts(&r));
    let r = send("brian", Command::Accept { challenge: None });
    assert!(!r[0].ephemeral, "{}", texts(&r));
    let g = active(&h.db(), ch).expect("game started");
    let moves = player_moves(GameOptions::new(variant), seed);
    let stop = if finish { moves.len() } else { 4 };
    for m in &moves[..stop] {
        let (_, _, pos) = stored(&h.db(), g.id);
        let side = pos.to_move().expect("in progress");
        let who = &g.seats[side];
        let r = send(
            who.as_str(),
            Command::Move {
                text: m.to_string(),
                game: None,
            },
        );
        assert!(!r[0].ephemeral, "{m}: {}", texts(&r));
    }
    // Delivered, as an adapter reports them.
    loop {
        let owed = h.bot.undelivered(true);
        if owed.is_empty() {
            break;
        }
        for r in owed {
            h.bot.delivered(r.outbox.unwrap());
        }
    }
    let (row, _, _) = stored(&h.db(), g.id);
    assert_eq!(
        row.status,
        if finish {
            GameStatus::Finished
        } else {
            GameStatus::Active
        }
    );
    g.id
}

fn analysis_row(h: &Harness, game: GameId, level: u8) -> Option<AnalysisRow> {
    let mut s = Store::open(h.db()).unwrap();
    s.read(|tx| tx.analysis_of(game, level)).unwrap()
}

/// The stored moves of a game, as moves.
fn moves_of(h: &Harness, game: GameId) -> (Position, Vec<Move>) {
    let (g, notation, _) = stored(&h.db(), game);
    let start = Position::new(g.options);
    let mut pos = start.clone();
    let moves = notation.iter().map(|n| pos.play_text(n).unwrap()).collect();
    (start, moves)
}

/// Splits what an analysis run handed back: the edits, then the other messages.
fn split(replies: &[Reply]) -> (Vec<&Reply>, Vec<&Reply>) {
    replies.iter().partition(|r| r.edits.is_some())
}

/// The percentages in a progress text ("… 40 of 96 positions (41%)…").
fn share(r: &Reply) -> u32 {
    let t = r.plain_text();
    let open = t.find('(').unwrap();
    let close = t.find("%)").unwrap();
    t[open + 1..close].parse().unwrap()
}

#[test]
fn a_finished_game_is_analysed_once_with_its_progress_edited_then_the_result() {
    let h = Harness::new(true);
    let id = game(&h, Variant::Hkot1, CH, 3, true);
    let (start, moves) = moves_of(&h, id);

    let r = h.send("ciara", CH, analyse_cmd(id, Some(3)));
    assert_eq!(r.len(), 1, "{}", texts(&r));
    let progress = &r[0];
    assert!(!progress.ephemeral && progress.editable);
    let message = progress.outbox.expect("the progress message is owed");
    assert!(
        progress
            .plain_text()
            .starts_with(&format!("Analysing game {} at level 3: 0 of ", id.0)),
        "{}",
        progress.plain_text()
    );
    let row = analysis_row(&h, id, 3).expect("stored");
    assert_eq!(row.status, AnalysisStatus::Running);
    assert_eq!(row.message_id, Some(message));
    assert_eq!(row.channel_id, CH);
    assert!(row.total as usize >= moves.len() / 2 && row.total as usize <= moves.len() + 1);

    // Asked again while it runs: pointed to it, nothing new.
    let again = h.send("brian", "elsewhere", analyse_cmd(id, Some(3)));
    assert_eq!(again.len(), 1);
    assert!(again[0].ephemeral && again[0].outbox.is_none());
    let t = again[0].plain_text();
    assert!(
        t.contains("already being analysed") && t.contains(&format!("#{CH}")),
        "{t}"
    );

    // The progress message is posted; the analysis runs.
    assert_eq!(
        h.bot.edit_target(&Reply {
            edits: Some(message),
            ..Reply::default()
        }),
        EditTarget::Owed
    );
    h.bot.delivered_as(message, Some("m-1"));
    let replies = analyse_pending(&h.bot, MS);
    let (edits, results) = split(&replies);
    // Progress at every tenth of the way (not every position), then the last edit.
    assert!(
        (3..=10).contains(&edits.len()),
        "{} edits: {}",
        edits.len(),
        texts(&replies)
    );
    for e in &edits {
        assert_eq!(e.edits, Some(message));
        assert_eq!(e.channel.as_ref().map(ChannelId::as_str), Some(CH));
        assert!(e.outbox.is_some() && e.mentions.is_empty());
    }
    let shares: Vec<u32> = edits[..edits.len() - 1].iter().map(|e| share(e)).collect();
    assert!(shares.windows(2).all(|w| w[0] < w[1]), "{shares:?}");
    let last = edits.last().unwrap().plain_text();
    assert!(
        last.starts_with(&format!("Analysed game {} at level 3: ", id.0)),
        "{last}"
    );
    // The edits come before the result, which is two messages to the channel.
    assert!(replies[..edits.len()].iter().all(|r| r.edits.is_some()));
    assert_eq!(results.len(), 2, "{}", texts(&replies));
    for r in &results {
        assert_eq!(r.channel.as_ref().map(ChannelId::as_str), Some(CH));
        assert!(r.outbox.is_some() && !r.ephemeral);
    }
    let chart = results[0].image.as_ref().expect("the evaluation chart");
    assert!(chart.bytes.starts_with(b"\x89PNG") && chart.filename.ends_with(".png"));
    let board = results[1];
    assert!(board.board_text.is_some() && board.image.is_some());

    // The swings are the search's own, with the game's id as the seed.
    let a = analyse(
        &start,
        &moves,
        Level::new(3).unwrap(),
        Limit::Level,
        id.0 as u64,
        &mut |_| false,
        &mut |_, _| {},
    );
    let swings = a.swings(3);
    assert!(!swings.is_empty(), "random moves cost something");
    let text = results[0].plain_text();
    for s in &swings {
        assert!(
            text.contains(&format!("Move {} · {}", s.ply, s.side.name()))
                && text.contains(&format!("played `{}`", s.played))
                && text.contains(&format!("preferred `{}`", s.best)),
            "{s:?} in {text}"
        );
    }
    assert!(text.contains(&format!("{:.0}%", swings[0].eval_played * 100.0)));
    let worst = swings[0];
    let t = board.plain_text();
    assert!(
        t.contains(&format!("before move {}", worst.ply))
            && t.contains(&format!("`{}`", worst.best)),
        "{t}"
    );

    // Stored once; only the latest edit is still owed (the others were superseded).
    let row = analysis_row(&h, id, 3).unwrap();
    assert_eq!(row.status, AnalysisStatus::Done);
    assert_eq!(row.done, row.total);
    let owed = h.bot.undelivered(true);
    let owed_ids: Vec<MessageId> = owed.iter().filter_map(|r| r.outbox).collect();
    let latest = edits.last().unwrap().outbox.unwrap();
    assert_eq!(
        owed_ids,
        vec![
            latest,
            results[0].outbox.unwrap(),
            results[1].outbox.unwrap()
        ]
    );
    for e in &edits[..edits.len() - 1] {
        assert!(h.bot.superseded(e));
    }
    assert!(!h.bot.superseded(edits.last().unwrap()));
    assert_eq!(
        h.bot.edit_target(edits.last().unwrap()),
        EditTarget::Posted(Some("m-1".into()))
    );

    // Nothing more to run.
    assert!(analyse_pending(&h.bot, MS).is_empty());
    assert!(h.bot.pending_analyses().is_empty());
}

#[test]
fn the_result_is_kept_per_game_and_level_and_posted_again_at_once() {
    let h = Harness::new(false);
    let id = game(&h, Variant::SacredHill1, CH, 5, true);
    let r = h.send("aoife", CH, analyse_cmd(id, Some(4)));
    assert_eq!(r.len(), 1);
    let first = analyse_pending(&h.bot, MS);
    let (_, results) = split(&first);
    assert_eq!(results.len(), 2);
    let before = analysis_row(&h, id, 4).unwrap();

    // Asked again: the stored result, at once, without a search.
    let r = h.send("brian", CH, analyse_cmd(id, Some(4)));
    assert_eq!(r.len(), 2, "{}", texts(&r));
    assert_eq!(r[0].plain_text(), results[0].plain_text());
    assert_eq!(r[1].plain_text(), results[1].plain_text());
    assert!(r
        .iter()
        .all(|x| !x.ephemeral && x.outbox.is_some() && x.edits.is_none()));
    assert!(h.bot.pending_analyses().is_empty());
    assert!(analyse_pending(&h.bot, MS).is_empty());
    assert_eq!(
        analysis_row(&h, id, 4).unwrap(),
        before,
        "the row is untouched"
    );

    // Another level is another analysis.
    let r = h.send("brian", CH, analyse_cmd(id, Some(3)));
    assert!(r[0]
        .plain_text()
        .starts_with(&format!("Analysing game {} at level 3", id.0)));
    assert_eq!(h.bot.pending_analyses().len(), 1);
}

#[test]
fn a_restart_mid_analysis_resumes_it_and_finishes_it_once() {
    let mut h = Harness::new(false);
    let id = game(&h, Variant::ArdRi, CH, 9, true);
    let r = h.send("aoife", CH, analyse_cmd(id, Some(3)));
    let message = r[0].outbox.unwrap();
    let jobs = h.bot.pending_analyses();
    assert_eq!(jobs.len(), 1);
    let job = &jobs[0];
    assert_eq!((job.game, job.done, job.seed), (id, 0, id.0 as u64));
    // A runner got half way and the process stopped.
    let half = job.total / 2;
    let edit = h.bot.analysis_progress(job.id, half);
    assert_eq!(edit.len(), 1);
    assert_eq!(edit[0].edits, Some(message));
    // Progress that shows nothing new is not edited again.
    assert!(h.bot.analysis_progress(job.id, half).is_empty());
    // The edit waits until the message it edits is posted.
    let owed: Vec<MessageId> = h
        .bot
        .undelivered(true)
        .iter()
        .filter_map(|r| r.outbox)
        .collect();
    assert_eq!(owed, vec![message]);
    h.bot.delivered_as(message, Some("m-7"));
    let owed: Vec<MessageId> = h
        .bot
        .undelivered(true)
        .iter()
        .filter_map(|r| r.outbox)
        .collect();
    assert_eq!(owed, vec![edit[0].outbox.unwrap()]);

    h.restart();
    let jobs = h.bot.pending_analyses();
    assert_eq!(jobs.len(), 1, "the request survives the restart");
    assert_eq!(jobs[0].done, half);
    let replies = analyse_pending(&h.bot, MS);
    let (edits, results) = split(&replies);
    assert_eq!(results.len(), 2, "{}", texts(&replies));
    assert!(edits.len() >= 2);
    // The side's possessive reads as English: "the attackers'", not "Attackers's".
    assert!(
        texts(&replies).contains("The chart shows the attackers' chances move by move;"),
        "{}",
        texts(&replies)
    );
    // The progress shown never goes back.
    let shown = edits[0].plain_text();
    let done: u32 = shown
        .split(": ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(done > half, "{shown}");
    assert!(analyse_pending(&h.bot, MS).is_empty(), "finished once");
    assert_eq!(
        analysis_row(&h, id, 3).unwrap().status,
        AnalysisStatus::Done
    );
    // A result handed back twice (a search repeated) is not stored or posted again.
    let (start, moves) = moves_of(&h, id);
    let a = analyse(
        &start,
        &moves,
        Level::new(3).unwrap(),
        Limit::Level,
        1,
        &mut |_| false,
        &mut |_, _| {},
    );
    assert!(h.bot.finish_analysis(job.id, &a, 1).is_empty());
}

#[test]
fn live_aborted_unknown_and_other_servers_games_are_refused() {
    let h = Harness::new(false);
    let live = game(&h, Variant::Hkot2, CH, 4, false);
    let r = h.send("aoife", CH, analyse_cmd(live, None));
    assert_eq!(r.len(), 1);
    assert!(r[0].ephemeral);
    assert!(
        r[0].plain_text().contains("still being played"),
        "{}",
        r[0].plain_text()
    );
    assert!(analysis_row(&h, live, 3).is_none());

    // Aborted before any move.
    h.start("ciara", "dara", "other", "hkot-1", "me");
    let aborted = active(&h.db(), "other").unwrap().id;
    let r = h.send(
        "ciara",
        "other",
        Command::Abort {
            reason: None,
            game: None,
        },
    );
    assert!(!r[0].ephemeral, "{}", texts(&r));
    let r = h.send("ciara", "other", analyse_cmd(aborted, None));
    assert!(r[0].ephemeral && r[0].plain_text().contains("aborted"));

    let r = h.send("aoife", CH, analyse_cmd(GameId(9999), None));
    assert!(r[0].ephemeral);
    assert_eq!(r[0].plain_text(), "There is no game #9999 on this server.");

    // Another server's finished game is answered as a missing one.
    let done = game(&h, Variant::Hkot1, "third", 3, true);
    let r = h
        .bot
        .handle(&on("elsewhere", "xena", "x1"), analyse_cmd(done, None));
    assert!(r[0].ephemeral);
    assert_eq!(
        r[0].plain_text(),
        format!("There is no game {done} on this server.")
    );
    assert!(h.bot.pending_analyses().is_empty());
}

#[test]
fn the_console_shows_the_progress_as_edits_then_the_result() {
    use tara_bot::bot::User;
    use tara_bot::console::Console;
    let h = Harness::new(false);
    let mut c = Console::new(&h.bot, "aoife", None);
    c.channel = CH.into();
    c.line("/challenge brian sacred-hill-2 first:me");
    c.user = User::new("brian", "brian");
    c.line("/accept");
    let g = active(&h.db(), CH).expect("a game");
    for m in player_moves(GameOptions::new(Variant::SacredHill2), 21) {
        let (_, _, pos) = stored(&h.db(), g.id);
        let side = pos.to_move().expect("in progress");
        let who = g.seats[side].clone();
        c.user = User::of(who.clone(), who.into_string());
        let (out, _) = c.line(&m.to_string());
        assert!(!out.contains("only"), "{out}");
    }
    c.delivered();
    c.user = User::new("ciara", "ciara");
    let (out, _) = c.line(&format!("/analyse {} level:3", g.id.0));
    let first = out.find("Analysing game").expect("the progress message");
    let edit = out.find("(edit) Analysing game").expect("a progress edit");
    let last = out.find("(edit) Analysed game").expect("the last edit");
    let result = out.find("Analysis of game").expect("the result");
    assert!(first < edit && edit < last && last < result, "{out}");
    assert_eq!(out.matches("Analysis of game").count(), 1);
    // Asked again: the stored result, at once, and no edit.
    let (again, _) = c.line(&format!("/analyse {} level:3", g.id.0));
    assert!(again.contains("Analysis of game") && !again.contains("(edit)"));
}

/// The games whose results ("**Analysis of game N** · …") were posted, in order.
fn analysed(replies: &[Reply]) -> Vec<GameId> {
    replies
        .iter()
        .filter_map(|r| {
            let t = r.plain_text();
            let rest = t.strip_prefix("**Analysis of game ")?;
            rest.split("**").next()?.parse().ok().map(GameId)
        })
        .collect()
}

#[test]
fn a_player_has_one_analysis_queued_or_running_per_server_and_a_refusal_posts_nothing() {
    let h = Harness::new(false);
    let first = game(&h, Variant::Hkot1, CH, 3, true);
    let second = game(&h, Variant::Hkot1, "t2", 4, true);
    let r = h.send("ciara", CH, analyse_cmd(first, Some(4)));
    assert!(!r[0].ephemeral, "{}", texts(&r));
    let total = analysis_row(&h, first, 4).unwrap().total;
    let owed = h.bot.undelivered(true).len();
    let limit = |done: u32| {
        format!(
            "You already have an analysis of game #{} running (level 4, {done} of {total} \
             positions so far); its progress and result are posted in #{CH}. Each player may \
             have 1 analysis queued or running at a time on this server: ask again once it is \
             done.",
            first.0
        )
    };
    // Another game, or the same game at another level, from any channel: refused privately,
    // naming the analysis in progress, pinging nobody, storing and owing nothing.
    for (id, level) in [(second, None), (first, Some(3)), (second, Some(5))] {
        let r = h.send("ciara", "t3", analyse_cmd(id, level));
        assert_eq!(r.len(), 1, "{}", texts(&r));
        assert!(r[0].ephemeral && r[0].outbox.is_none() && r[0].mentions.is_empty());
        assert_eq!(r[0].plain_text(), limit(0));
    }
    assert_eq!(
        h.bot.undelivered(true).len(),
        owed,
        "nothing public is owed"
    );
    assert!(analysis_row(&h, second, 3).is_none() && analysis_row(&h, first, 3).is_none());
    assert_eq!(h.bot.pending_analyses().len(), 1);
    // The refusal shows the progress as last shown.
    let job = h.bot.pending_analyses()[0].clone();
    h.bot.analysis_progress(job.id, 7);
    let r = h.send("ciara", "t3", analyse_cmd(second, None));
    assert_eq!(r[0].plain_text(), limit(7));
    // The same analysis asked for again is pointed to, as before; others are not held back.
    let r = h.send("ciara", "t3", analyse_cmd(first, Some(4)));
    assert!(r[0].ephemeral && r[0].plain_text().contains("already being analysed"));
    let r = h.send("brian", CH, analyse_cmd(second, Some(3)));
    assert!(!r[0].ephemeral, "{}", texts(&r));

    // Once hers is done, Ciara may ask for another; a stored result is posted at once even
    // while that one waits (it costs no search).
    assert_eq!(analysed(&analyse_pending(&h.bot, MS)), vec![first, second]);
    let r = h.send("ciara", "t3", analyse_cmd(second, Some(4)));
    assert!(!r[0].ephemeral && r[0].editable, "{}", texts(&r));
    let r = h.send("ciara", "t3", analyse_cmd(first, Some(4)));
    assert_eq!(analysed(&r), vec![first], "{}", texts(&r));
    assert!(r.iter().all(|x| !x.ephemeral));
}

#[test]
fn analyses_are_served_round_robin_by_requester_not_first_come_first_served() {
    let h = Harness::new(false);
    // Ciara asks for two analyses (one per server, her limit), then Dara for one.
    let a1 = game_on(&h, "server", Variant::Hkot1, "s1", 3, true);
    let a2 = game_on(&h, "second", Variant::Hkot1, "s2", 4, true);
    let b1 = game_on(&h, "server", Variant::Hkot1, "s3", 5, true);
    for (server, who, ch, id) in [
        ("server", "ciara", "s1", a1),
        ("second", "ciara", "s2", a2),
        ("server", "dara", "s3", b1),
    ] {
        let r = h.bot.handle(&on(server, who, ch), analyse_cmd(id, Some(3)));
        assert!(!r[0].ephemeral, "{}", texts(&r));
    }
    // Dara's comes before Ciara's second.
    let order =
        |h: &Harness| -> Vec<GameId> { h.bot.pending_analyses().iter().map(|j| j.game).collect() };
    assert_eq!(order(&h), vec![a1, b1, a2]);
    // A run serves them in that order, one a second.
    let mut served = Vec::new();
    while let Some(job) = h.bot.pending_analyses().first().cloned() {
        h.bot.advance_clock(1_000);
        let mut replies = Vec::new();
        tara_bot::ai_runner::run_analysis(&h.bot, &job, MS, &mut |r| replies.extend(r));
        served.extend(analysed(&replies));
    }
    assert_eq!(served, vec![a1, b1, a2]);

    // Ciara was served last, Dara before her: Dara's next request goes first, though Ciara
    // asked first.
    let r = h
        .bot
        .handle(&on("server", "ciara", "s1"), analyse_cmd(a1, Some(4)));
    assert!(!r[0].ephemeral, "{}", texts(&r));
    let r = h
        .bot
        .handle(&on("server", "dara", "s3"), analyse_cmd(b1, Some(4)));
    assert!(!r[0].ephemeral, "{}", texts(&r));
    assert_eq!(order(&h), vec![b1, a1]);
    // The in-line runner (the console's) serves them in that order too.
    assert_eq!(analysed(&analyse_pending(&h.bot, MS)), vec![b1, a1]);
}

#[test]
fn each_swing_shows_its_better_move_on_a_private_board_to_step_through() {
    use tara_bot::bot::Clock;
    for (variant, seed) in [(Variant::Hkot1, 3), (Variant::ArdRi, 5)] {
        // With images, so that the reply carries the board as drawn.
        let h = Harness::new(true);
        let id = game(&h, variant, CH, seed, true);
        h.send("ciara", CH, analyse_cmd(id, Some(3)));
        let replies = analyse_pending(&h.bot, MS);
        let (_, results) = split(&replies);
        let swings = results[0];
        assert!(!swings.buttons.is_empty(), "{}", swings.plain_text());
        for b in &swings.buttons {
            let press = tara_bot::bot::Press::parse(&b.id).expect("a button of ours");
            let tara_bot::bot::Press::Better { game, ply, best } = press else {
                panic!("{}", b.id)
            };
            assert_eq!(game, id);
            assert_eq!(b.label, format!("Move {ply}: the better move"));
            // The text names the same move the button draws.
            assert!(
                swings.plain_text().contains(&format!("preferred `{best}`")),
                "{}",
                swings.plain_text()
            );
            let cmd = Command::from_button(&b.id).unwrap();
            // Pressed any time later: an analysis's buttons do not expire.
            h.clock.advance_ms(86_400_000);
            let r = h.send("dara", CH, cmd).remove(0);
            assert!(r.ephemeral && !r.replaces_pressed, "{}", r.plain_text());
            let text = r.plain_text();
            assert!(
                text.contains(&format!("position after {} of", ply - 1)),
                "{text}"
            );
            // The picture is the board before the move with the better move drawn: as typed
            // with it marked (a build) or as an arrow, and unlike the bare board.
            let typed = |marks: Option<&str>, arrows: Option<&str>| {
                let cmd = Command::Game {
                    id,
                    ply: Some(ply - 1),
                    marks: marks.map(str::to_string),
                    arrows: arrows.map(str::to_string),
                    drawn: None,
                    shared: false,
                };
                h.send("dara", CH, cmd).remove(0).image.unwrap().bytes
            };
            let shown = &r.image.as_ref().unwrap().bytes;
            let plain = best.trim_end_matches('*');
            if plain == "pass" {
                continue;
            }
            let with = if plain.contains('-') {
                typed(None, Some(plain))
            } else {
                typed(Some(plain), None)
            };
            assert!(*shown == with, "{best}");
            assert!(*shown != typed(None, None), "{best} is drawn");
            assert!(r.buttons.iter().any(|b| b.id.starts_with("step:")));
        }
    }
}

/// Issue 45: levels 1 and 2 search too little to judge moves (40 and 200 playouts a position),
/// so an analysis at either is refused with the reason, in the bot and on the command line
/// (where `--budget` or `--ms` gives the search its own bound instead).
#[test]
fn levels_that_cannot_judge_are_refused_with_the_reason() {
    let h = Harness::new(false);
    let id = game(&h, Variant::Hkot1, CH, 3, true);
    for level in [1, 2] {
        let r = h.send("ciara", CH, analyse_cmd(id, Some(level)));
        assert!(r[0].ephemeral, "{}", texts(&r));
        let said = r[0].plain_text();
        assert!(
            said.starts_with(&format!("Level {level} searches too little to judge moves"))
                && said.contains("Analyse at level 3 (the default), 4 or 5."),
            "{said}"
        );
        assert!(analysis_row(&h, id, level as u8).is_none());
    }
    let analyse = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tara-bot"))
            .arg("analyse")
            .args(["--variant", "hkot-1", "--moves", "D4 B2"])
            .args(args)
            .output()
            .unwrap()
    };
    let out = analyse(&["--level", "1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--level 1: Level 1 searches too little to judge moves"),
        "{err}"
    );
    assert!(analyse(&["--level", "1", "--budget", "500"])
        .status
        .success());
}
