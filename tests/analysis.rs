//! `/analyse` through the bot core, the analyses run synchronously by
//! `ai_runner::analyse_pending` (as the console runs them): a finished game analysed in the
//! background (deterministic: the search's seed is the game's id and the level has a fixed
//! budget), its progress message edited then the result posted, each exactly once; only the
//! latest edit still owed; the result cached per game and level; a restart mid-analysis
//! resumes it and finishes it once; live, aborted, unknown and other servers' games refused.

mod common;

use common::{active, ctx, player_moves, stored, texts, Harness};
use tara_bot::ai::{analyse, Level, Limit};
use tara_bot::ai_runner::analyse_pending;
use tara_bot::bot::{Command, EditTarget, Reply};
use tara_bot::game::{GameOptions, Move, Position, Variant};
use tara_bot::store::{AnalysisRow, AnalysisStatus, GameId, GameStatus, Store};

const CH: &str = "table";
/// A generous time limit per search: levels 1 to 4 stop at their budget long before it.
const MS: u64 = 60_000;

fn analyse_cmd(id: i64, level: Option<u32>) -> Command {
    Command::Analyse {
        id: GameId(id),
        level,
    }
}

/// Plays a whole random game of `variant` between aoife (Red or the attackers, first) and
/// brian in channel `ch`; its id. `finish`: play it to its end (else leave it in progress).
fn game(h: &Harness, variant: Variant, ch: &str, seed: u64, finish: bool) -> i64 {
    let g = h.start("aoife", "brian", ch, variant.id(), "me");
    let moves = player_moves(GameOptions::new(variant), seed);
    let stop = if finish { moves.len() } else { 4 };
    for m in &moves[..stop] {
        let (_, _, pos) = stored(&h.db(), g.id);
        let side = pos.to_move().expect("in progress");
        let who = &g.seats[side.index()];
        let r = h.mv(who, ch, &m.to_string());
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

fn analysis_row(h: &Harness, game: i64, level: u8) -> Option<AnalysisRow> {
    let mut s = Store::open(h.db()).unwrap();
    s.read(|tx| tx.analysis_of(game, level)).unwrap()
}

/// The stored moves of a game, as moves.
fn moves_of(h: &Harness, game: i64) -> (Position, Vec<Move>) {
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

    let r = h.send("ciara", CH, analyse_cmd(id, Some(1)));
    assert_eq!(r.len(), 1, "{}", texts(&r));
    let progress = &r[0];
    assert!(!progress.ephemeral && progress.editable);
    let message = progress.outbox.expect("the progress message is owed");
    assert!(
        progress
            .plain_text()
            .starts_with(&format!("Analysing game {id} at level 1: 0 of ")),
        "{}",
        progress.plain_text()
    );
    let row = analysis_row(&h, id, 1).expect("stored");
    assert_eq!(row.status, AnalysisStatus::Running);
    assert_eq!(row.message_id, Some(message));
    assert_eq!(row.channel_id, CH);
    assert!(row.total as usize >= moves.len() / 2 && row.total as usize <= moves.len() + 1);

    // Asked again while it runs: pointed to it, nothing new.
    let again = h.send("brian", "elsewhere", analyse_cmd(id, Some(1)));
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
        assert_eq!(e.channel.as_deref(), Some(CH));
        assert!(e.outbox.is_some() && e.mentions.is_empty());
    }
    let shares: Vec<u32> = edits[..edits.len() - 1].iter().map(|e| share(e)).collect();
    assert!(shares.windows(2).all(|w| w[0] < w[1]), "{shares:?}");
    let last = edits.last().unwrap().plain_text();
    assert!(
        last.starts_with(&format!("Analysed game {id} at level 1: ")),
        "{last}"
    );
    // The edits come before the result, which is two messages to the channel.
    assert!(replies[..edits.len()].iter().all(|r| r.edits.is_some()));
    assert_eq!(results.len(), 2, "{}", texts(&replies));
    for r in &results {
        assert_eq!(r.channel.as_deref(), Some(CH));
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
        Level::new(1).unwrap(),
        Limit::Level,
        id as u64,
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
    let row = analysis_row(&h, id, 1).unwrap();
    assert_eq!(row.status, AnalysisStatus::Done);
    assert_eq!(row.done, row.total);
    let owed = h.bot.undelivered(true);
    let owed_ids: Vec<i64> = owed.iter().filter_map(|r| r.outbox).collect();
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
    let r = h.send("aoife", CH, analyse_cmd(id, Some(2)));
    assert_eq!(r.len(), 1);
    let first = analyse_pending(&h.bot, MS);
    let (_, results) = split(&first);
    assert_eq!(results.len(), 2);
    let before = analysis_row(&h, id, 2).unwrap();

    // Asked again: the stored result, at once, without a search.
    let r = h.send("brian", CH, analyse_cmd(id, Some(2)));
    assert_eq!(r.len(), 2, "{}", texts(&r));
    assert_eq!(r[0].plain_text(), results[0].plain_text());
    assert_eq!(r[1].plain_text(), results[1].plain_text());
    assert!(r
        .iter()
        .all(|x| !x.ephemeral && x.outbox.is_some() && x.edits.is_none()));
    assert!(h.bot.pending_analyses().is_empty());
    assert!(analyse_pending(&h.bot, MS).is_empty());
    assert_eq!(
        analysis_row(&h, id, 2).unwrap(),
        before,
        "the row is untouched"
    );

    // Another level is another analysis.
    let r = h.send("brian", CH, analyse_cmd(id, Some(1)));
    assert!(r[0]
        .plain_text()
        .starts_with(&format!("Analysing game {id} at level 1")));
    assert_eq!(h.bot.pending_analyses().len(), 1);
}

#[test]
fn a_restart_mid_analysis_resumes_it_and_finishes_it_once() {
    let mut h = Harness::new(false);
    let id = game(&h, Variant::ArdRi, CH, 9, true);
    let r = h.send("aoife", CH, analyse_cmd(id, Some(1)));
    let message = r[0].outbox.unwrap();
    let jobs = h.bot.pending_analyses();
    assert_eq!(jobs.len(), 1);
    let job = &jobs[0];
    assert_eq!((job.game, job.done, job.seed), (id, 0, id as u64));
    // A runner got half way and the process stopped.
    let half = job.total / 2;
    let edit = h.bot.analysis_progress(job.id, half);
    assert_eq!(edit.len(), 1);
    assert_eq!(edit[0].edits, Some(message));
    // Progress that shows nothing new is not edited again.
    assert!(h.bot.analysis_progress(job.id, half).is_empty());
    // The edit waits until the message it edits is posted.
    let owed: Vec<i64> = h
        .bot
        .undelivered(true)
        .iter()
        .filter_map(|r| r.outbox)
        .collect();
    assert_eq!(owed, vec![message]);
    h.bot.delivered_as(message, Some("m-7"));
    let owed: Vec<i64> = h
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
        analysis_row(&h, id, 1).unwrap().status,
        AnalysisStatus::Done
    );
    // A result handed back twice (a search repeated) is not stored or posted again.
    let (start, moves) = moves_of(&h, id);
    let a = analyse(
        &start,
        &moves,
        Level::new(1).unwrap(),
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
    let r = h.send("ciara", "other", Command::Abort { reason: None });
    assert!(!r[0].ephemeral, "{}", texts(&r));
    let r = h.send("ciara", "other", analyse_cmd(aborted, None));
    assert!(r[0].ephemeral && r[0].plain_text().contains("aborted"));

    let r = h.send("aoife", CH, analyse_cmd(9999, None));
    assert!(r[0].ephemeral);
    assert_eq!(r[0].plain_text(), "There is no game #9999 on this server.");

    // Another server's finished game is answered as a missing one.
    let done = game(&h, Variant::Hkot1, "third", 3, true);
    let elsewhere = tara_bot::bot::Ctx {
        server: "elsewhere".into(),
        ..ctx("xena", "x1")
    };
    let r = h.bot.handle(&elsewhere, analyse_cmd(done, None));
    assert!(r[0].ephemeral);
    assert_eq!(
        r[0].plain_text(),
        format!("There is no game #{done} on this server.")
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
        let who = g.seats[side.index()].clone();
        c.user = User::new(who.clone(), who);
        let (out, _) = c.line(&m.to_string());
        assert!(!out.contains("only"), "{out}");
    }
    c.delivered();
    c.user = User::new("ciara", "ciara");
    let (out, _) = c.line(&format!("/analyse {} level:1", g.id));
    let first = out.find("Analysing game").expect("the progress message");
    let edit = out.find("(edit) Analysing game").expect("a progress edit");
    let last = out.find("(edit) Analysed game").expect("the last edit");
    let result = out.find("Analysis of game").expect("the result");
    assert!(first < edit && edit < last && last < result, "{out}");
    assert_eq!(out.matches("Analysis of game").count(), 1);
    // Asked again: the stored result, at once, and no edit.
    let (again, _) = c.line(&format!("/analyse {} level:1", g.id));
    assert!(again.contains("Analysis of game") && !again.contains("(edit)"));
}
