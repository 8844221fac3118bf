//! Post-game analysis: `/analyse id [level]` on a finished game of the server, run in the
//! background and kept once done.
//!
//! The core stays synchronous: `/analyse` stores a request (and its progress message, owed in
//! the same transaction) and answers at once; an adapter runs the search off its event loop
//! (`crate::ai_runner`), asking for [`Bot::pending_analyses`] and handing back progress
//! ([`Bot::analysis_progress`], which owes an edit of the progress message) and the result
//! ([`Bot::finish_analysis`], which stores it and owes the result messages), each in one
//! transaction. A restart finds the request still running and runs it again from the start;
//! a finished analysis is never run twice, and asking again posts the stored result.
//!
//! The result is two messages: the three largest swings with the evaluation chart, and the
//! board of the worst moment (the position before the move that cost most) with the AI's
//! better move drawn: an arrow from where a piece or king stands to where it goes (Ard Rí
//! moves, High Kings' king moves), or a mark on the hill of a build or placement (Sacred Hill,
//! and High Kings' first six turns). A pass is not drawn.

use super::board::Board;
use super::buttons::Press;
use super::info::server_game;
use super::outbox;
use super::reply::{Attachment, ButtonStyle, Ctx, Reply};
use super::session::{names, replay, Bot, Fail, Out, Outcome};
use super::text::Builder;
use crate::ai::{Analysis, Level, MoveReview, ReviewRecord};
use crate::game::notation::parse_move;
use crate::game::{describe, BySide, Move, Position, Side};
use crate::render::{eval_chart_png, Cell, EvalChart, Frame};
use crate::store::AnalysisId;
use crate::store::{AnalysisRow, AnalysisStatus, GameId, GameRow, GameStatus, NewAnalysis, Tx};
use serde::{Deserialize, Serialize};

/// The level `/analyse` searches at when none is given: 1,000 playouts a position (a
/// 60-move High Kings game in about a second, a 376-ply Ard Rí game in about 20 s on one
/// core).
pub const DEFAULT_ANALYSIS_LEVEL: u8 = 3;

/// A requested analysis, with what its search needs.
#[derive(Clone, Debug)]
pub struct AnalysisJob {
    /// The analysis's id (its row).
    pub id: AnalysisId,
    /// The game's id.
    pub game: GameId,
    pub level: Level,
    /// The game's first position and its moves.
    pub start: Position,
    pub moves: Vec<Move>,
    /// The search's seed: the game's id, so that the same game and level give the same
    /// analysis in any process (and as `tara-bot analyse --seed <id>` gives it).
    pub seed: u64,
    /// Positions searched as last shown (a restarted analysis shows no less).
    pub done: u32,
    /// Positions to search.
    pub total: u32,
}

/// A finished analysis as stored (`analyses.result`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Stored {
    /// The first seat's expected score from the start to after the last move.
    curve: Vec<f64>,
    /// The three largest swings, largest first.
    swings: Vec<ReviewRecord>,
    playouts: u64,
    /// Positions searched.
    positions: u32,
    /// How long the search took, in milliseconds.
    ms: u64,
}

/// The positions a search is run on: every position of the game that is not over.
pub(crate) fn positions_to_search(start: &Position, moves: &[Move]) -> u32 {
    let mut pos = start.clone();
    let mut n = u32::from(pos.outcome().is_none());
    for &m in moves {
        pos.play_unchecked(m);
        n += u32::from(pos.outcome().is_none());
    }
    n
}

fn percent(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// "Analysing game 42 at level 3: 40 of 96 positions (41%)…".
fn progress_text(game: GameId, level: u8, done: u32, total: u32) -> String {
    let share = if total == 0 {
        100
    } else {
        u64::from(done) * 100 / u64::from(total)
    };
    format!(
        "Analysing game {} at level {level}: {done} of {} ({share}%)… The result will be \
         posted here.",
        game.0,
        describe::count(u64::from(total), "position")
    )
}

/// The level of `/analyse`, or why not.
fn level_of(level: Option<u32>) -> Outcome<Level> {
    match level {
        None => Ok(Level::new(DEFAULT_ANALYSIS_LEVEL).expect("the default level is 1 to 5")),
        Some(n) => {
            let level = u8::try_from(n)
                .ok()
                .and_then(Level::new)
                .ok_or_else(|| Fail::User(format!("The AI analyses at levels 3 to 5, not {n}.")))?;
            match crate::ai::too_weak_to_judge(level) {
                Some(why) => Err(Fail::User(why)),
                None => Ok(level),
            }
        }
    }
}

impl Bot {
    /// Every analysis asked for and not finished, in the order they are to be served: round
    /// robin over the players who asked, the one served least recently first (see
    /// `Tx::running_analyses`), so that one player's requests never hold up the others'. For an
    /// adapter to run, on start-up and after each command, taking the first again each time
    /// one ends; one left by a restart runs again from the start.
    /// Claims running the analysis `job` for this process ([`Bot::worker`]) for `lease_ms`:
    /// false while another process sharing the database holds it (or it is no longer
    /// running). A process that dies holding it loses it when the lease runs out, and the
    /// analysis starts again from its first position elsewhere.
    pub fn claim_analysis(&self, job: AnalysisId, lease_ms: i64) -> bool {
        let now = self.now();
        self.store()
            .claim(|tx| tx.claim_analysis(job, self.worker(), now, now + lease_ms))
            .unwrap_or_else(|e| {
                tracing::error!(error = %e, analysis = job.0, "claiming an analysis failed");
                false
            })
    }

    pub fn pending_analyses(&self) -> Vec<AnalysisJob> {
        let jobs = self.read(|tx| {
            let mut jobs = Vec::new();
            for row in tx.running_analyses()? {
                let Some(game) = tx.game(row.game_id)? else {
                    continue;
                };
                let Some(level) = Level::new(row.level) else {
                    continue;
                };
                let moves = tx.moves(game.id)?;
                let (_, played) = replay(&game, &moves, None)?;
                jobs.push(AnalysisJob {
                    id: row.id,
                    game: game.id,
                    level,
                    start: Position::new(game.options),
                    moves: played,
                    seed: game.id.0 as u64,
                    done: row.done,
                    total: row.total,
                });
            }
            Ok(jobs)
        });
        jobs.unwrap_or_else(|e| {
            tracing::error!(error = ?e, "reading the analyses to run failed");
            Vec::new()
        })
    }

    /// Records that `done` positions of analysis `job` are searched, and owes an edit of its
    /// progress message saying so (one transaction). Nothing, and no reply, when it shows no
    /// more than already shown, or the analysis is finished.
    pub fn analysis_progress(&self, job: AnalysisId, done: u32) -> Vec<Reply> {
        let r = self.write_owed(None, self.now(), |tx, _| {
            let Some(row) = tx.analysis(job)? else {
                return Ok(vec![]);
            };
            if !tx.analysis_progress(job, done.min(row.total))? {
                return Ok(vec![]);
            }
            let text = progress_text(row.game_id, row.level, done.min(row.total), row.total);
            Ok(edit_of(&row, text).into_iter().collect())
        });
        owed_or_logged(r, job, "recording an analysis's progress")
    }

    /// Stores the finished analysis `job` and owes its messages (one transaction): the last
    /// edit of the progress message, then the result (the swings with the chart, and the
    /// board of the worst moment). `ms` is how long the search took. Nothing, and no reply,
    /// when the analysis is not running (finished already: a repeated search never posts
    /// twice).
    pub fn finish_analysis(&self, job: AnalysisId, analysis: &Analysis, ms: u64) -> Vec<Reply> {
        let images = self.images();
        let r = self.write_owed(None, self.now(), |tx, now| {
            let Some(row) = tx.analysis(job)? else {
                return Ok(vec![]);
            };
            let stored = Stored {
                curve: analysis.curve_record(),
                swings: analysis
                    .swings(3)
                    .into_iter()
                    .map(MoveReview::record)
                    .collect(),
                playouts: analysis.playouts,
                positions: row.total,
                ms,
            };
            let json = serde_json::to_string(&stored).map_err(|e| {
                Fail::Store(crate::store::StoreError::Corrupt(format!(
                    "an analysis cannot be stored: {e}"
                )))
            })?;
            if !tx.finish_analysis(job, AnalysisStatus::Done, Some(&json), now)? {
                return Ok(vec![]);
            }
            let Some(game) = tx.game(row.game_id)? else {
                return Ok(vec![]);
            };
            let text = format!(
                "Analysed game {} at level {}: {}, {} in {}. The result follows.",
                row.game_id.0,
                row.level,
                describe::count(u64::from(row.total), "position"),
                describe::count(analysis.playouts, "playout"),
                seconds(ms)
            );
            let mut outs: Vec<Out> = edit_of(&row, text).into_iter().collect();
            let row = tx.analysis(job)?.unwrap_or(row);
            for mut o in result_outs(tx, &game, &row, images)? {
                o.reply.channel = Some(row.channel_id.clone());
                outs.push(o);
            }
            Ok(outs)
        });
        owed_or_logged(r, job, "storing an analysis")
    }

    /// Gives up analysis `job` (its search failed) and owes the edit saying so; asking again
    /// starts it afresh.
    pub fn analysis_failed(&self, job: AnalysisId) -> Vec<Reply> {
        let r = self.write_owed(None, self.now(), |tx, now| {
            let Some(row) = tx.analysis(job)? else {
                return Ok(vec![]);
            };
            if !tx.finish_analysis(job, AnalysisStatus::Failed, None, now)? {
                return Ok(vec![]);
            }
            let text = format!(
                "The analysis of game {} at level {} could not be finished. Ask again with \
                 `/analyse {}` to start it afresh.",
                row.game_id.0, row.level, row.game_id.0
            );
            Ok(edit_of(&row, text).into_iter().collect())
        });
        owed_or_logged(r, job, "giving up an analysis")
    }
}

/// "12 s", "0.4 s".
fn seconds(ms: u64) -> String {
    if ms < 10_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{} s", (ms + 500) / 1000)
    }
}

/// The private refusal of a second analysis while `row`, the player's own on this server, is
/// still queued or running (one at a time per player and server, so that nobody can fill the
/// queue).
fn one_at_a_time(row: &AnalysisRow) -> Reply {
    Builder::new()
        .text(format!(
            "You already have an analysis of game #{} running (level {}, {} of {} so far); its \
             progress and result are posted in ",
            row.game_id.0,
            row.level,
            row.done,
            describe::count(u64::from(row.total), "position")
        ))
        .channel(&row.channel_id)
        .text(
            ". Each player may have 1 analysis queued or running at a time on this server: ask \
             again once it is done.",
        )
        .private()
        .build()
}

/// The stored name of whoever asked for an analysis.
fn requester_name(tx: &Tx, row: &AnalysisRow) -> Outcome<String> {
    Ok(tx
        .user_name(&row.requested_by)?
        .unwrap_or_else(|| row.requested_by.to_string()))
}

/// An edit of an analysis's progress message, to `text` (none if it has no message).
fn edit_of(row: &AnalysisRow, text: String) -> Option<Out> {
    let target = row.message_id?;
    let mut reply = Builder::new().text(text).build();
    reply.channel = Some(row.channel_id.clone());
    reply.edits = Some(target);
    Some(Out::text(reply))
}

/// Where a move is drawn: an arrow for a move from one place to another, a mark for a build.
fn drawing(m: Move) -> (Vec<Cell>, Vec<(Cell, Cell)>) {
    let hill = |h: crate::game::Hill| Cell {
        col: h.col(),
        row: h.row(),
    };
    let square = |s: crate::game::Square| Cell {
        col: s.col(),
        row: s.row(),
    };
    match m {
        Move::Build { hill: h } => (vec![hill(h)], vec![]),
        Move::King { from, to, .. } => (vec![], vec![(hill(from), hill(to))]),
        Move::Step { from, to } => (vec![], vec![(square(from), square(to))]),
        Move::Pass => (vec![], vec![]),
    }
}

/// The result messages of a finished analysis: the swings with the chart, and the board of
/// the worst moment with the better move drawn.
fn result_outs(tx: &Tx, game: &GameRow, row: &AnalysisRow, images: bool) -> Outcome<Vec<Out>> {
    let stored: Stored = row
        .result
        .as_deref()
        .and_then(|r| serde_json::from_str(r).ok())
        .ok_or_else(|| {
            Fail::Store(crate::store::StoreError::Corrupt(format!(
                "analysis {} has no readable result",
                row.id
            )))
        })?;
    let n = names(tx, game)?;
    let variant = game.options.variant;
    let first = variant.sides()[0];
    let mut b = Builder::new()
        .text(format!(
            "**Analysis of game {}** · {} · {} ",
            game.id.0,
            variant.name(),
            game.sides()[0].name()
        ))
        .user(game.seats.first(), n.first())
        .text(format!(" vs {} ", game.sides()[1].name()))
        .user(game.seats.second(), n.second())
        .text(format!(
            " · AI level {}, {}\n",
            row.level,
            describe::count(stored.playouts, "playout")
        ));
    let side_name = |id: &str| Side::from_id(id).map_or(id.to_string(), |s| s.name().to_string());
    if stored.swings.is_empty() {
        b = b.text("No move cost its player anything the AI could see at this level.\n");
    } else {
        b = b.text(
            "The largest swings (the mover's chances after each move: a win counts 100%, a \
             draw 50%):\n",
        );
        for (i, s) in stored.swings.iter().enumerate() {
            let seat = Side::from_id(&s.side).unwrap_or(game.sides()[0]);
            b = b
                .text(format!(
                    "{}. Move {} · {} (",
                    i + 1,
                    s.ply,
                    side_name(&s.side)
                ))
                .user(&game.seats[seat], &n[seat])
                .text(format!(
                    ") played `{}`: {}; the AI preferred `{}`: {} ({:.0} points lost).\n",
                    s.played,
                    percent(s.eval_played),
                    s.best,
                    percent(s.eval_best),
                    (s.eval_best - s.eval_played) * 100.0
                ));
        }
    }
    b = b.text(format!(
        "The chart shows {} chances move by move; the numbered dots are the swings.",
        first.possessive()
    ));
    // Each swing's better move, shown privately on its board, which can be stepped through.
    for s in &stored.swings {
        let press = Press::Better {
            game: game.id,
            ply: u32::try_from(s.ply).unwrap_or(0),
            best: s.best.clone(),
        };
        if Press::parse(&press.id()).as_ref() == Some(&press) {
            let label = format!("Move {}: the better move", s.ply);
            b = b.button(press, &label, ButtonStyle::Secondary);
        }
    }
    let mut reply = b.build();
    if images {
        reply.image = Some(Attachment {
            filename: format!("analysis-{}-level-{}.png", game.id.0, row.level),
            bytes: eval_chart_png(&EvalChart {
                title: format!(
                    "Game {} · {} · analysis at level {}",
                    game.id.0,
                    variant.name(),
                    row.level
                ),
                side: first,
                curve: stored.curve.clone(),
                swings: stored.swings.iter().map(|s| s.ply).collect(),
            }),
        });
    }
    let mut outs = vec![Out::text(reply)];
    if let Some(worst) = stored.swings.first() {
        outs.extend(worst_moment(tx, game, worst, &n)?);
    }
    Ok(outs)
}

/// The position before the analysis's largest swing `worst`, the AI's better move marked on
/// it (a build on its hill, a move as an arrow), said in words.
fn worst_moment(
    tx: &Tx,
    game: &GameRow,
    worst: &ReviewRecord,
    n: &BySide<String>,
) -> Outcome<Option<Out>> {
    let variant = game.options.variant;
    let side_name = |id: &str| Side::from_id(id).map_or(id.to_string(), |s| s.name().to_string());
    let moves = tx.moves(game.id)?;
    let (pos, played) = replay(game, &moves, Some(worst.ply - 1))?;
    if let Ok(best) = parse_move(variant, &worst.best) {
        let (marks, arrows) = drawing(best);
        let how = match best {
            Move::Build { .. } => "marked on its hill",
            Move::Pass => "a pass, not drawn",
            _ => "drawn as an arrow",
        };
        let reply = Builder::new()
            .text(format!(
                "The worst moment of game {}: the position before move {}, {} to move. \
                 {} played `{}`; the AI's `{}` ({how}) was better.",
                game.id.0,
                worst.ply,
                side_name(&worst.side),
                side_name(&worst.side),
                worst.played,
                worst.best
            ))
            .build();
        let frame = Frame::new(n.clone(), played.last().copied()).with_annotations(marks, arrows);
        return Ok(Some(Out {
            reply,
            board: Some(Board::new(
                pos,
                played.clone(),
                frame,
                format!("analysis-{}-move-{}.png", game.id.0, worst.ply),
            )),
        }));
    }
    Ok(None)
}

/// `/analyse id [level]`: a finished game of this server weighed move by move at `level`
/// (default 3). Live games are refused (no engine help during play). The first request
/// stores the analysis to run and answers with its progress message; while it runs,
/// asking again says so; once done, asking again posts the stored result.
pub(crate) fn analyse(bot: &Bot, ctx: &Ctx, id: GameId, level: Option<u32>) -> Outcome<Vec<Out>> {
    let level = level_of(level)?;
    let images = bot.images();
    bot.write(ctx, |tx, now| {
        let game = server_game(tx, ctx, id)?;
        match game.status {
            GameStatus::Active => {
                return Err(Fail::User(format!(
                    "Game {id} is still being played: the AI analyses finished games only \
                     (no engine help during play). Ask again once it is over."
                )))
            }
            GameStatus::Aborted => {
                return Err(Fail::User(format!(
                    "Game {id} was aborted: it has no result to analyse."
                )))
            }
            GameStatus::Finished => {}
        }
        let existing = tx.analysis_of(game.id, level.number())?;
        match existing {
            Some(row) if row.status == AnalysisStatus::Done => {
                return result_outs(tx, &game, &row, images);
            }
            Some(row) if row.status == AnalysisStatus::Running => {
                let reply = Builder::new()
                    .text(format!(
                        "Game {id} is already being analysed at level {level} ({} of {} \
                         positions so far, asked for by ",
                        row.done, row.total
                    ))
                    .user(&row.requested_by, &requester_name(tx, &row)?)
                    .text("). Its progress and result are posted in ")
                    .channel(&row.channel_id)
                    .text(".")
                    .private()
                    .build();
                return Ok(vec![Out::text(reply)]);
            }
            _ => {}
        }
        if let Some(row) = tx.running_analysis_by(&ctx.server, &ctx.user.id)? {
            return Ok(vec![Out::text(one_at_a_time(&row))]);
        }
        tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
        let moves = tx.moves(game.id)?;
        let (_, played) = replay(&game, &moves, None)?;
        let total = positions_to_search(&Position::new(game.options), &played);
        let aid = tx.start_analysis(
            &NewAnalysis {
                game_id: game.id,
                level: level.number(),
                total,
                channel_id: &ctx.channel,
                requested_by: &ctx.user.id,
            },
            now,
        )?;
        let mut reply = Builder::new()
            .text(progress_text(game.id, level.number(), 0, total))
            .build();
        reply.editable = true;
        // Owed here, so that the analysis knows which message to edit.
        let message = outbox::owe(
            tx,
            Some(ctx),
            &reply,
            now,
            (bot.worker(), now + bot.in_flight_ms()),
        )?;
        reply.outbox = Some(message);
        tx.set_analysis_message(aid, message)?;
        Ok(vec![Out::text(reply)])
    })
}

fn owed_or_logged(r: Outcome<Vec<Reply>>, job: AnalysisId, what: &str) -> Vec<Reply> {
    match r {
        Ok(replies) => replies,
        Err(Fail::User(_)) => Vec::new(),
        Err(Fail::Store(e)) => {
            tracing::error!(error = %e, analysis = job.0, "{what} failed");
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_are_drawn_by_kind() {
        let v = crate::game::Variant::Hkot1;
        let (m, a) = drawing(parse_move(v, "D4").unwrap());
        assert_eq!((m, a.len()), (vec![Cell { col: 3, row: 3 }], 0));
        let (m, a) = drawing(parse_move(v, "G2-E3").unwrap());
        assert!(m.is_empty());
        assert_eq!(a, vec![(Cell { col: 6, row: 1 }, Cell { col: 4, row: 2 })]);
        let (m, a) = drawing(parse_move(crate::game::Variant::ArdRi, "d2-c2").unwrap());
        assert!(m.is_empty());
        assert_eq!(a, vec![(Cell { col: 3, row: 1 }, Cell { col: 2, row: 1 })]);
        assert_eq!(drawing(Move::Pass), (vec![], vec![]));
    }

    #[test]
    fn progress_reads_as_a_share_of_the_positions() {
        assert_eq!(
            progress_text(GameId(42), 3, 40, 96),
            "Analysing game 42 at level 3: 40 of 96 positions (41%)… The result will be \
             posted here."
        );
        assert!(level_of(Some(6)).is_err());
        assert_eq!(level_of(None).unwrap().number(), DEFAULT_ANALYSIS_LEVEL);
        assert_eq!(seconds(400), "0.4 s");
        assert_eq!(seconds(12_400), "12 s");
    }
}
