//! Runs the AI's searches for the adapters: finds the games where the AI is to move
//! ([`Bot::ai_turns`]), searches each within its time limit, and plays the move through the bot
//! core ([`Bot::apply_ai_move`], which refuses a stale ply, so a search repeated after a restart
//! or run twice never plays twice).
//!
//! Two ways to run them: [`play_pending`] searches on the calling thread, one game after
//! another (the console, and tests that drive it step by step); [`AiRunner`] searches on
//! tokio's blocking pool, at most [`AiSettings::searches`] at once, never on the async runtime
//! (Discord), and hands the replies to the adapter through a channel.
//!
//! Post-game analyses (`/analyse`) run the same two ways: [`analyse_pending`] on the calling
//! thread (the console), and the [`AiRunner`] on the blocking pool, one analysis at a time
//! beside the AI's searches (so that a long analysis never holds up the AI's moves). Both take
//! the next analysis only when the last one ends, the first of [`Bot::pending_analyses`] then:
//! round robin over the players who asked, not first come first served. Each
//! is [`run_analysis`]: the game searched position by position, its progress handed to the
//! core at every tenth of the way ([`Bot::analysis_progress`], which owes an edit of the
//! progress message), and the result at the end ([`Bot::finish_analysis`]).

use crate::ai::{analyse, think_threads, Limit};
use crate::bot::{AiTurn, AnalysisJob, Bot, Reply};
use crate::game::Move;
use crate::store::AnalysisId;
use crate::store::GameId;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, Semaphore};

/// The AI's time limit per move when none is configured, in milliseconds.
pub const DEFAULT_AI_MS: u64 = 3_000;

/// How the AI's searches run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AiSettings {
    /// The most a move may take, in milliseconds: level 5 searches until then; levels 1 to 4
    /// stop at their playout budget, normally far sooner, or at this limit.
    pub ms: u64,
    /// The most searches run at once.
    pub searches: usize,
    /// The threads each level-5 search uses (levels 1 to 4, bounded by their budgets, use one).
    pub threads: usize,
}

impl AiSettings {
    /// The default number of searches at once: one per core but one, at least one.
    pub fn default_searches() -> usize {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get().saturating_sub(1))
            .max(1)
    }

    /// The default threads of a level-5 search: one per core but one, at least one.
    pub fn default_threads() -> usize {
        AiSettings::default_searches()
    }
}

impl Default for AiSettings {
    fn default() -> AiSettings {
        AiSettings {
            ms: DEFAULT_AI_MS,
            searches: AiSettings::default_searches(),
            threads: AiSettings::default_threads(),
        }
    }
}

/// The AI's move for `turn`, found within `ms` milliseconds (levels 1 to 4: their playout
/// budget, unless the time runs out first; level 5: until the time runs out), on one thread.
pub fn find_move(turn: &AiTurn, ms: u64) -> Move {
    find_move_threads(turn, ms, 1)
}

/// [`find_move`] with level 5 searching on `threads` threads.
pub fn find_move_threads(turn: &AiTurn, ms: u64, threads: usize) -> Move {
    let deadline = Instant::now() + Duration::from_millis(ms.max(1));
    let mut stop = move || Instant::now() >= deadline;
    think_threads(
        &turn.position,
        turn.level,
        Limit::Level,
        turn.seed,
        threads,
        &mut stop,
    )
    .map(|found| found.chosen)
    // A game in progress always has a legal move (a pass when there is nothing else).
    .unwrap_or(Move::Pass)
}

/// The most an analysis should take, in milliseconds: each search gets its share of it (at
/// least [`MIN_SEARCH_MS`], at most the AI's time per move), so that a 400-ply Ard Rí game at
/// level 5 finishes in about this long; levels 1 to 4 usually stop at their playout budget
/// first (level 3: a 376-ply Ard Rí game in about 20 s).
pub const ANALYSIS_MS: u64 = 120_000;
/// The least time a search of an analysis gets.
pub const MIN_SEARCH_MS: u64 = 20;

/// How many tenths of the way `done` of `total` is.
fn tenths(done: usize, total: usize) -> usize {
    done * 10 / total.max(1)
}

/// Runs analysis `job` on this thread: each position searched at the job's level (level 5,
/// which has no budget of its own, by its share of [`ANALYSIS_MS`]; every search also stops
/// at that share or `max_ms`, whichever is larger), progress handed to the core at every tenth
/// of the way, the result stored at the end. `out` gets the replies to deliver, in order: the
/// progress edits, then the last edit and the result.
pub fn run_analysis(bot: &Bot, job: &AnalysisJob, max_ms: u64, out: &mut dyn FnMut(Vec<Reply>)) {
    let began = Instant::now();
    let searches = 2 * u64::from(job.total.max(1));
    let share = (ANALYSIS_MS / searches).max(MIN_SEARCH_MS);
    let (limit, ms) = match job.level.playouts() {
        Some(_) => (Limit::Level, share.max(max_ms)),
        None => (Limit::Clock, share.min(max_ms.max(MIN_SEARCH_MS))),
    };
    // Each position gets its own clock, started when its search starts.
    let mut current: Option<(usize, Instant)> = None;
    let mut stop = |i: usize| {
        let started = match current {
            Some((j, t)) if j == i => t,
            _ => {
                let t = Instant::now();
                current = Some((i, t));
                t
            }
        };
        started.elapsed() >= Duration::from_millis(ms)
    };
    let mut shown = job.done as usize;
    let mut progress = |done: usize, total: usize| {
        if done < total && tenths(done, total) > tenths(shown, total) {
            shown = done;
            out(bot.analysis_progress(job.id, done as u32));
        }
    };
    let a = analyse(
        &job.start,
        &job.moves,
        job.level,
        limit,
        job.seed,
        &mut stop,
        &mut progress,
    );
    let ms = began.elapsed().as_millis() as u64;
    out(bot.finish_analysis(job.id, &a, ms));
}

/// The analysis to run next: the first of [`Bot::pending_analyses`] (round robin over the
/// players who asked) not in `skip` that this process could claim (another process sharing
/// the database may be running one), claimed for as long as its search may take and a margin.
fn next_analysis(bot: &Bot, skip: &HashSet<AnalysisId>, ms: u64) -> Option<AnalysisJob> {
    bot.pending_analyses()
        .into_iter()
        .filter(|j| !skip.contains(&j.id))
        .find(|j| {
            let left = i64::from(j.total.saturating_sub(j.done)) + 1;
            // The margin: half the lease (60 s by default).
            bot.claim_analysis(j.id, left * ms as i64 + bot.lease_ms() / 2)
        })
}

/// Runs every pending analysis on this thread, one after another, each time the first in the
/// fair order then (the console, and tests that drive it step by step); the replies, in order.
/// Each runs at most once per call.
pub fn analyse_pending(bot: &Bot, max_ms: u64) -> Vec<Reply> {
    let mut replies = Vec::new();
    let mut run = HashSet::new();
    while let Some(job) = next_analysis(bot, &run, max_ms) {
        run.insert(job.id);
        run_analysis(bot, &job, max_ms, &mut |r| replies.extend(r));
    }
    replies
}

/// Plays every pending AI move on this thread, one game after another, until the AI is to
/// move nowhere (after a forced pass of the player, the AI may move twice in a row); the
/// replies, in order.
pub fn play_pending(bot: &Bot, ms: u64) -> Vec<Reply> {
    let mut out = Vec::new();
    // Each round plays at least one move or ends; a game lasts a bounded number of moves.
    loop {
        let turns = bot.ai_turns();
        if turns.is_empty() {
            return out;
        }
        let mut played = false;
        for turn in turns {
            if !bot.claim_ai_turn(turn.game, turn.ply, ms) {
                continue;
            }
            let replies = bot.apply_ai_move(turn.game, turn.ply, find_move(&turn, ms));
            bot.release_ai_turn(turn.game);
            played |= !replies.is_empty();
            out.extend(replies);
        }
        if !played {
            return out;
        }
    }
}

/// Whether the analyses are being run, and whether a kick came meanwhile.
#[derive(Default)]
struct AnalysisQueue {
    running: bool,
    wanted: bool,
}

/// Searches on tokio's blocking pool, a bounded number at once, and sends the replies of each
/// move played to the adapter.
pub struct AiRunner {
    bot: Arc<Bot>,
    settings: AiSettings,
    permits: Arc<Semaphore>,
    /// The games being searched now (one search per game at a time).
    busy: Mutex<HashSet<GameId>>,
    /// Analyses run one at a time, beside the AI's moves.
    analyses: Mutex<AnalysisQueue>,
    replies: mpsc::UnboundedSender<Vec<Reply>>,
}

impl AiRunner {
    /// A runner for `bot`; the receiver gets the replies of each move the AI plays, to deliver.
    pub fn new(
        bot: Arc<Bot>,
        settings: AiSettings,
    ) -> (Arc<AiRunner>, mpsc::UnboundedReceiver<Vec<Reply>>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let runner = AiRunner {
            bot,
            permits: Arc::new(Semaphore::new(settings.searches.max(1))),
            settings,
            busy: Mutex::new(HashSet::new()),
            analyses: Mutex::new(AnalysisQueue::default()),
            replies: tx,
        };
        (Arc::new(runner), rx)
    }

    /// The settings it runs with.
    pub fn settings(&self) -> AiSettings {
        self.settings
    }

    /// Looks for games where the AI is to move and starts a search for each that has none
    /// running, and for analyses to run (call it on start-up, after each command, and on each
    /// tick). Returns at once; must be called within a tokio runtime.
    pub fn kick(self: &Arc<Self>) {
        self.kick_but(None);
        self.kick_analyses();
    }

    /// Starts running the pending analyses unless they are being run: one at a time, each time
    /// the first in the fair order of [`Bot::pending_analyses`] as it is when the last one
    /// ends (so that a player's later request never holds up another's, as it would if every
    /// request were queued when made). A kick while they run is remembered: the worker looks
    /// again before it stops.
    fn kick_analyses(self: &Arc<Self>) {
        {
            let mut q = self.analyses.lock().unwrap_or_else(|e| e.into_inner());
            if q.running {
                q.wanted = true;
                return;
            }
            q.running = true;
            q.wanted = false;
        }
        let runner = self.clone();
        tokio::spawn(async move { runner.analyse_all().await });
    }

    /// The worker of [`AiRunner::kick_analyses`]: runs the next analysis until none is left
    /// (one whose run left it pending, a storing failure, is not run again until a later
    /// kick), then stops.
    async fn analyse_all(self: Arc<Self>) {
        let mut run = HashSet::new();
        loop {
            let (bot, skip, ms) = (self.bot.clone(), run.clone(), self.settings.ms);
            let next = tokio::task::spawn_blocking(move || next_analysis(&bot, &skip, ms))
                .await
                .unwrap_or_default();
            match next {
                Some(job) => {
                    run.insert(job.id);
                    self.analyse(job).await;
                }
                None => {
                    let mut q = self.analyses.lock().unwrap_or_else(|e| e.into_inner());
                    if q.wanted {
                        // Kicked meanwhile: a new request may have come after the last look.
                        q.wanted = false;
                    } else {
                        q.running = false;
                        return;
                    }
                }
            }
        }
    }

    /// Runs one analysis on the blocking pool, sending its replies as they come.
    async fn analyse(&self, job: AnalysisJob) {
        let id = job.id;
        let (bot, tx, ms) = (self.bot.clone(), self.replies.clone(), self.settings.ms);
        let run = tokio::task::spawn_blocking(move || {
            run_analysis(&bot, &job, ms, &mut |r| {
                if !r.is_empty() {
                    let _ = tx.send(r);
                }
            });
        })
        .await;
        if let Err(e) = run {
            tracing::error!(error = %e, analysis = id.0, "an analysis panicked");
            let bot = self.bot.clone();
            let replies = tokio::task::spawn_blocking(move || bot.analysis_failed(id))
                .await
                .unwrap_or_default();
            let _ = self.replies.send(replies);
        }
    }

    /// [`AiRunner::kick`], leaving out the search of `skip` (a game and ply just refused).
    fn kick_but(self: &Arc<Self>, skip: Option<(GameId, u32)>) {
        let runner = self.clone();
        tokio::spawn(async move {
            let bot = runner.bot.clone();
            let turns = tokio::task::spawn_blocking(move || bot.ai_turns())
                .await
                .unwrap_or_default();
            for turn in turns {
                if skip == Some((turn.game, turn.ply)) {
                    continue;
                }
                let fresh = runner
                    .busy
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(turn.game);
                if fresh {
                    let r = runner.clone();
                    tokio::spawn(async move { r.search(turn).await });
                }
            }
        });
    }

    /// Searches one game's move (when a permit is free) and plays it; then looks again, for
    /// the AI may be to move again (after the player's forced pass) or elsewhere.
    async fn search(self: Arc<Self>, turn: AiTurn) {
        let (game, ply) = (turn.game, turn.ply);
        let replies = match self.permits.clone().acquire_owned().await {
            Ok(permit) => {
                let (bot, ms, threads) =
                    (self.bot.clone(), self.settings.ms, self.settings.threads);
                tokio::task::spawn_blocking(move || {
                    // Another process sharing the database may be searching it.
                    if !bot.claim_ai_turn(turn.game, turn.ply, ms) {
                        tracing::debug!(game = game.0, ply, "the AI's move is searched elsewhere");
                        return None;
                    }
                    tracing::debug!(game = game.0, ply, "searching the AI's move");
                    let mv = find_move_threads(&turn, ms, threads);
                    drop(permit);
                    let replies = bot.apply_ai_move(turn.game, turn.ply, mv);
                    bot.release_ai_turn(turn.game);
                    Some(replies)
                })
                .await
                .unwrap_or_else(|e| {
                    tracing::error!(error = %e, game = game.0, "the AI's search panicked");
                    Some(Vec::new())
                })
            }
            Err(_) => Some(Vec::new()),
        };
        self.busy
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&game);
        // Held by another process: it plays the move (or, if it dies, a later kick finds the
        // turn again once its lease has run out).
        let Some(replies) = replies else { return };
        if replies.is_empty() {
            // Stale (a takeback while it searched): the game may have another turn by now.
            self.kick_but(Some((game, ply)));
        } else {
            let _ = self.replies.send(replies);
            self.kick();
        }
    }
}
