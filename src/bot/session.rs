//! The session every capability works through: the [`Bot`] (store, clock, lots), the outcome
//! of a command ([`Fail`], [`Out`]), loading a stored game into a position ([`Loaded`]), and
//! the game lifecycle shared by lobby, play, clocks and matches: creating a game, starting a
//! turn (with its clock), announcing a start.

use super::board::Board;
use super::outbox;
use super::reply::{
    escape_markdown, Ctx, LinkButton, Reply, ThreadRequest, WebPage, OPEN_ON_THE_WEB,
};
use super::text::{self, Builder};
use super::time::{date_text, left_text, Clock, TimeControl, DAY};
use crate::game::playout::Rng;
use crate::game::{BySide, Side};
use crate::game::{EndReason, GameOptions, Move, Position, Scoring, Variant};
use crate::render::Frame;
use crate::store::MatchId;
use crate::store::ServerSetting;
use crate::store::{ChannelId, ServerId, UserId};
use crate::store::{
    GameId, GameRow, GameStatus, MoveRow, NewGame, Store, StoreError, Tx, AI_USER_ID,
};
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

/// Why a command did not go through.
#[derive(Debug)]
pub(crate) enum Fail {
    /// The user's mistake: told to them privately; nothing changed.
    User(String),
    /// Our failure: nothing changed (the transaction rolled back).
    Store(StoreError),
}

impl From<StoreError> for Fail {
    fn from(e: StoreError) -> Fail {
        Fail::Store(e)
    }
}

pub(crate) type Outcome<T> = Result<T, Fail>;

/// A reply whose board image is drawn after the transaction commits.
pub(crate) struct Out {
    pub reply: Reply,
    pub board: Option<Board>,
}

impl Out {
    pub fn text(reply: Reply) -> Out {
        Out { reply, board: None }
    }
}

/// Commands a user may send per [`RATE_WINDOW`] unless the server sets `rate_limit`.
pub(crate) const DEFAULT_RATE_LIMIT: u32 = 10;
/// The window of the command rate limit: a full bucket refills over it.
pub(crate) const RATE_WINDOW: i64 = 10_000;
/// Above this many users remembered, the buckets that have refilled are forgotten.
const BUCKETS_KEPT: usize = 4096;

/// One user's token bucket: `tokens` left at time `at` (ms). It refills continuously, `limit`
/// tokens per [`RATE_WINDOW`], up to `limit`.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: i64,
}

/// The per-user command rate limit, kept in memory: each user's bucket, and each server's
/// `rate_limit` setting as last read or set. Its locks are held only for a check, never while a
/// command runs.
#[derive(Default)]
struct RateLimits {
    on: bool,
    buckets: Mutex<HashMap<UserId, Bucket>>,
    servers: Mutex<HashMap<ServerId, u32>>,
}

/// A change in progress: its transaction, the time it runs at, and what it may ask of the bot
/// it runs in (lots, whether images are drawn, the list of what reacts to a game's end).
pub(crate) struct Session<'a> {
    pub tx: &'a Tx<'a>,
    pub now: i64,
    bot: &'a Bot,
    /// A game's end is being handled: another one raised meanwhile waits in `follow_ups`.
    ending: Cell<bool>,
    /// What waits for the game's end being handled to be done: game ends raised by its
    /// subscribers, and their follow-ups ([`FollowUp`]), first in first out.
    follow_ups: RefCell<VecDeque<FollowUp>>,
}

/// What a subscriber of [`GameEnded`] leaves to be done once the game's end it handles is
/// done (in the same transaction): so that no subscriber depends on another having run.
pub(crate) enum FollowUp {
    /// Another game ended (a withdrawn player's game, a tournament match's other game): its
    /// subscribers run after those of the game being handled.
    GameEnded(Box<QueuedEnd>),
    /// A reaction to the store as every subscriber left it (a league's season ended by its
    /// last division): the function and its argument.
    Call(fn(&Session, i64) -> Outcome<Vec<Out>>, i64),
}

/// A game's end waiting its turn: the [`GameEnded`] owned, with its announcement's start.
pub(crate) struct QueuedEnd {
    pub game: Loaded,
    pub outcome: Option<crate::game::Outcome>,
    pub reason: EndCause,
    pub text: Builder,
    pub board: Option<Board>,
    pub place: Option<Place>,
}

/// Where a game's end is announced, when not in the game's own channel: a tournament game's
/// thread (`thread`, opened under `channel` if it is not yet).
#[derive(Clone)]
pub(crate) struct Place {
    pub channel: ChannelId,
    pub thread: Option<ThreadRequest>,
}

impl Session<'_> {
    /// Draws lots: true with probability one half.
    pub fn coin(&self) -> bool {
        self.bot.coin()
    }

    /// Whether images (boards, pictures) are drawn.
    pub fn images(&self) -> bool {
        self.bot.images()
    }

    /// The subscribers of [`GameEnded`], in the order their parts of the announcement are
    /// put together; each run is noted with [`Session::traced`].
    pub fn game_ended_subscribers(&self) -> &'static [Subscriber] {
        self.bot.game_ended
    }

    /// The order the subscribers run in (indices into [`Session::game_ended_subscribers`]):
    /// the list's own, or reversed ([`Bot::with_game_end_subscribers_reversed`]); no
    /// subscriber depends on another's having run.
    pub fn game_ended_run_order(&self) -> Vec<usize> {
        self.bot.run_order()
    }

    /// Whether a game's end is being handled.
    pub fn ending(&self) -> bool {
        self.ending.get()
    }

    /// Marks that a game's end is being handled (or is done).
    pub fn set_ending(&self, on: bool) {
        self.ending.set(on);
        if !on {
            self.follow_ups.borrow_mut().clear();
        }
    }

    /// Leaves `f` to be done once the game's end being handled is done.
    pub fn follow_up(&self, f: FollowUp) {
        self.follow_ups.borrow_mut().push_back(f);
    }

    /// The next follow-up waiting, if any.
    pub fn next_follow_up(&self) -> Option<FollowUp> {
        self.follow_ups.borrow_mut().pop_front()
    }

    /// Notes that `subscriber` ran for `game` (when the bot traces them).
    pub fn traced(&self, game: GameId, subscriber: &'static str) {
        if let Some(t) = &self.bot.trace {
            t.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((game, subscriber));
        }
    }
}

/// How a game came to an end: the cause of a [`GameEnded`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EndCause {
    /// A move, or a forced pass, that finished the game on the board.
    Board,
    /// A player resigned.
    Resigned,
    /// The player to move ran out of time (after their first move, or in a tournament).
    TimedOut,
    /// The players agreed a draw.
    DrawAgreed,
    /// A player was withdrawn from its tournament: resigned for them.
    Withdrawn,
    /// Aborted by a player before the first move, or by a resignation before both players
    /// had moved: a match game is replayed.
    Aborted,
    /// Aborted because time ran out before the player's first move: a match is called off.
    NoShow,
    /// Aborted by a moderator: a match is called off.
    ModeratorAbort,
    /// Aborted because its tournament was called off (nothing announced per game).
    TournamentCancelled,
    /// Aborted because the other game of its tournament match was forfeited (nothing
    /// announced).
    MatchForfeited,
}

/// The one event of a game's end, raised by `lifecycle::end_game` inside the transaction of
/// the change that ended it: the game as it was, its result (`None`: aborted, no result), and
/// how it ended.
pub(crate) struct GameEnded<'a> {
    pub game: &'a Loaded,
    pub outcome: Option<&'a crate::game::Outcome>,
    pub reason: EndCause,
}

/// A part of the message announcing a game's end: each subscriber of [`GameEnded`] writes its
/// own (its lines of text, the message it retires, the messages that follow), and
/// `lifecycle::end_game` puts them together in the subscribers' list order, under the
/// announcement's own start and over its board.
pub(crate) struct Announcement {
    pub text: Builder,
    pub board: Option<Board>,
    pub retire: Option<super::reply::Retire>,
    /// The messages that follow the announcement, in order.
    pub after: Vec<Out>,
}

impl Announcement {
    /// An empty part, for a subscriber to write.
    pub fn part() -> Announcement {
        Announcement {
            text: Builder::new(),
            board: None,
            retire: None,
            after: Vec::new(),
        }
    }

    /// The announcement and what follows it.
    pub fn into_outs(self) -> Vec<Out> {
        let mut reply = self.text.build();
        reply.retire = self.retire;
        let mut outs = vec![Out {
            reply,
            board: self.board,
        }];
        outs.extend(self.after);
        outs
    }
}

/// One reaction to [`GameEnded`]: its name, and what it does.
pub(crate) type Subscriber = (
    &'static str,
    fn(&Session, &GameEnded, &mut Announcement) -> Outcome<()>,
);

/// The bot.
pub struct Bot {
    store: Mutex<Store>,
    clock: Arc<dyn Clock>,
    rng: Mutex<Rng>,
    images: bool,
    limits: RateLimits,
    /// The seed the AI's searches are drawn from (with each game and ply).
    ai_seed: u64,
    /// The platform's own user id for the bot (Discord: its user id; the console: `tara-bot`):
    /// naming it as an opponent means playing the AI.
    self_user: Mutex<Option<UserId>>,
    /// What reacts to a game's end, in order (the list in `entry.rs`).
    game_ended: &'static [Subscriber],
    /// Whether the subscribers of [`GameEnded`] run in reverse ([`Bot::with_game_end_subscribers_reversed`]).
    reversed: bool,
    /// When on, each subscriber's run: the game and the subscriber's name (for tests).
    trace: Option<Mutex<Vec<(GameId, &'static str)>>>,
    /// This process's name in the leases it takes on shared work ([`Bot::with_worker`]).
    worker: String,
    /// How long work claimed by a process that died waits before another takes it
    /// ([`Bot::with_lease_ms`]).
    lease_ms: i64,
    /// The web companion's public address, without a trailing slash ([`Bot::with_web_url`]).
    web_url: Option<String>,
}

impl Bot {
    /// A bot over a store; `seed` seeds the drawing of lots; `game_ended` reacts to the end of
    /// each game, in order.
    pub(crate) fn assemble(
        store: Store,
        clock: Arc<dyn Clock>,
        seed: u64,
        game_ended: &'static [Subscriber],
    ) -> Bot {
        Bot {
            store: Mutex::new(store),
            clock,
            rng: Mutex::new(Rng::new(seed)),
            images: true,
            limits: RateLimits::default(),
            ai_seed: seed,
            self_user: Mutex::new(None),
            game_ended,
            reversed: false,
            trace: None,
            worker: default_worker(),
            lease_ms: super::outbox::DELIVERY_LEASE_MS,
            web_url: None,
        }
    }

    /// The web companion's public address (`https://tara.example.org`, the configuration's
    /// `web_url`): the messages about a game, a tournament, a league or a ladder of a server
    /// that has put its games on the web (`/settings web:true`) carry an "Open on the web"
    /// button to its page there. `None` (the default): no such button anywhere. A trailing
    /// slash is dropped.
    pub fn with_web_url(mut self, url: Option<String>) -> Bot {
        self.web_url = url
            .map(|u| u.trim().trim_end_matches('/').to_string())
            .filter(|u| !u.is_empty());
        self
    }

    /// Makes `reply`'s page on the web ([`Reply::web`]) into its "Open on the web" button
    /// ([`Reply::link`]), read in `tx`: when the bot knows the site's address and the page's
    /// server is on the web. The page is dropped either way, so that it is looked at once.
    pub(crate) fn link_to_web(&self, tx: &Tx, reply: &mut Reply) -> Outcome<()> {
        let Some(web) = reply.web.take() else {
            return Ok(());
        };
        let Some(base) = &self.web_url else {
            return Ok(());
        };
        if reply.link.is_none() && on_the_web(tx, &web.server)? {
            reply.link = Some(LinkButton {
                label: OPEN_ON_THE_WEB.to_string(),
                url: format!("{base}{}", web.page.path(&web.server)),
            });
        }
        Ok(())
    }

    /// [`Bot::link_to_web`] for replies handed out without being stored (a read command's
    /// answers, private ones): one read for all of them, and only when one has a page and the
    /// bot knows the site. A store that cannot be read leaves them without their buttons.
    pub(crate) fn link_all_to_web(&self, replies: &mut [Reply]) {
        if self.web_url.is_none() || replies.iter().all(|r| r.web.is_none()) {
            for r in replies.iter_mut() {
                r.web = None;
            }
            return;
        }
        let linked = self.read(|tx| {
            for r in replies.iter_mut() {
                self.link_to_web(tx, r)?;
            }
            Ok(())
        });
        if let Err(Fail::Store(e)) = linked {
            tracing::warn!(error = %e, "reading whether a server is on the web failed");
        }
    }

    /// Names this process in the leases it takes on work that any process sharing the
    /// database may do (owed messages, the AI's moves, analyses). Each process of a deployment
    /// needs its own name, the same across its restarts: a restarted process takes back at
    /// once what its earlier run held, and another process only once those leases run out.
    /// The default is the machine's host name; `tara-bot run --shards A-B` adds its range.
    pub fn with_worker(mut self, name: impl Into<String>) -> Bot {
        self.worker = name.into();
        self
    }

    /// This process's name in its leases ([`Bot::with_worker`]).
    pub fn worker(&self) -> &str {
        &self.worker
    }

    /// Sets how long the owed messages a process took to deliver stay its own (default
    /// [`crate::bot::DELIVERY_LEASE_MS`], 2 minutes): once that has passed, another process
    /// sharing the database takes them (the first died on the way). The other leases follow
    /// it: a command's own answers are left to it for half of it ([`Bot::in_flight_ms`]), and
    /// an AI move or analysis is held for its search time plus a quarter or a half of it. A
    /// shorter lease fails over sooner, at the cost of more frequent looks at the database.
    /// Kept from 4 s to a day (the configuration refuses values outside).
    pub fn with_lease_ms(mut self, ms: u64) -> Bot {
        self.lease_ms = ms.clamp(4_000, 86_400_000) as i64;
        self
    }

    /// How long owed messages taken for delivery stay this process's ([`Bot::with_lease_ms`]).
    pub fn lease_ms(&self) -> i64 {
        self.lease_ms
    }

    /// How long a command's own delivery has its owed messages to itself: the retry loop
    /// (of any process) leaves them alone until then. Half the lease
    /// ([`crate::bot::IN_FLIGHT_MS`] by default).
    pub fn in_flight_ms(&self) -> i64 {
        self.lease_ms / 2
    }

    /// Records which subscriber of [`GameEnded`] runs for which game ([`Bot::event_trace`]).
    pub fn with_event_trace(mut self) -> Bot {
        self.trace = Some(Mutex::new(Vec::new()));
        self
    }

    /// Runs the subscribers of [`GameEnded`] in reverse order. Their parts of the announcement
    /// are put together in the list's order all the same, and none reads what another did, so
    /// the bot stores and says exactly what it does with the list's order (tests/lifecycle.rs
    /// checks that).
    pub fn with_game_end_subscribers_reversed(mut self) -> Bot {
        self.reversed = true;
        self
    }

    /// The subscriber runs recorded since the last call (with [`Bot::with_event_trace`]): the
    /// game and the subscriber's name, in order. (A run in a transaction that then rolled back
    /// is recorded too.)
    pub fn event_trace(&self) -> Vec<(GameId, &'static str)> {
        match &self.trace {
            Some(t) => std::mem::take(&mut *t.lock().unwrap_or_else(|e| e.into_inner())),
            None => Vec::new(),
        }
    }

    /// The names of what reacts to a game's end, in the list's order (the order their parts
    /// of the announcement are put together in).
    pub fn game_end_subscribers(&self) -> Vec<&'static str> {
        self.game_ended.iter().map(|(name, _)| *name).collect()
    }

    /// The names of what reacts to a game's end, in the order they run (the list's, or
    /// reversed: [`Bot::with_game_end_subscribers_reversed`]).
    pub fn game_end_run_order(&self) -> Vec<&'static str> {
        self.run_order()
            .into_iter()
            .map(|i| self.game_ended[i].0)
            .collect()
    }

    /// The order the subscribers of [`GameEnded`] run in, as indices into their list.
    fn run_order(&self) -> Vec<usize> {
        let n = self.game_ended.len();
        if self.reversed {
            (0..n).rev().collect()
        } else {
            (0..n).collect()
        }
    }

    /// The session of a change running in `tx` at `now`.
    pub(crate) fn session<'a>(&'a self, tx: &'a Tx<'a>, now: i64) -> Session<'a> {
        Session {
            tx,
            now,
            bot: self,
            ending: Cell::new(false),
            follow_ups: RefCell::new(VecDeque::new()),
        }
    }

    /// Records the platform's own user id for the bot (Discord's bot user, the console's
    /// `tara-bot`): a challenge to it is a game against the AI, and it may send no command.
    pub fn set_self_user(&self, id: &UserId) {
        *self.self_user.lock().unwrap_or_else(|e| e.into_inner()) = Some(id.clone());
    }

    /// Whether `id` stands for the bot's AI: [`AI_USER_ID`] or the bot's own platform id.
    pub fn is_ai_user(&self, id: &UserId) -> bool {
        id == AI_USER_ID
            || self
                .self_user
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_ref()
                == Some(id)
    }

    /// The seed of the AI's search for `game` at `ply`: the same for the same bot seed, game
    /// and ply (a search repeated after a restart chooses the same move at levels 1 to 4).
    pub(crate) fn ai_seed(&self, game: GameId, ply: u32) -> u64 {
        let mut x = self.ai_seed ^ (game.0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        x ^= u64::from(ply).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        x ^= x >> 31;
        x.wrapping_mul(0xBF58_476D_1CE4_E5B9)
    }

    /// Turns the per-user command rate limit on or off (off by default, as in the console
    /// and the benchmarks; `tara-bot run` turns it on). On, each user may send the server's
    /// `rate_limit` commands (10 by default) per 10 seconds, refilled continuously; more are
    /// refused without running.
    pub fn with_rate_limit(mut self, on: bool) -> Bot {
        self.limits.on = on;
        self
    }

    /// Takes one token from `user`'s bucket at `now`, on a server allowing `limit` commands per
    /// [`RATE_WINDOW`]: `Ok`, or `Err` with how long (ms) until a token is back. Always `Ok`
    /// with the rate limit off.
    pub(crate) fn take_token(&self, user: &UserId, limit: u32, now: i64) -> Result<(), i64> {
        if !self.limits.on {
            return Ok(());
        }
        let limit = f64::from(limit.max(1));
        let per_ms = limit / RATE_WINDOW as f64;
        let mut buckets = self
            .limits
            .buckets
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if buckets.len() >= BUCKETS_KEPT && !buckets.contains_key(user) {
            // Forget the users whose buckets have refilled: they are as if new.
            buckets.retain(|_, b| b.tokens + (now - b.at) as f64 * per_ms < limit);
        }
        let b = buckets.entry(user.clone()).or_insert(Bucket {
            tokens: limit,
            at: now,
        });
        let tokens = (b.tokens + (now - b.at).max(0) as f64 * per_ms).min(limit);
        b.at = b.at.max(now);
        if tokens >= 1.0 {
            b.tokens = tokens - 1.0;
            Ok(())
        } else {
            b.tokens = tokens;
            Err(((1.0 - tokens) / per_ms).ceil() as i64)
        }
    }

    /// The command rate limit of `server` as last read or set, if known.
    pub(crate) fn cached_rate_limit(&self, server: &ServerId) -> Option<u32> {
        if !self.limits.on {
            return Some(DEFAULT_RATE_LIMIT);
        }
        let servers = self
            .limits
            .servers
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        servers.get(server).copied()
    }

    /// Remembers the command rate limit of `server` (read from, or just written to, its
    /// settings).
    pub(crate) fn remember_rate_limit(&self, server: &ServerId, limit: u32) {
        let mut servers = self
            .limits
            .servers
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        servers.insert(server.clone(), limit);
    }

    /// Turns board images on or off (off: replies carry no image).
    pub fn with_images(mut self, on: bool) -> Bot {
        self.images = on;
        self
    }

    /// Whether images (boards, replays) are drawn.
    pub(crate) fn images(&self) -> bool {
        self.images
    }

    pub(crate) fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    /// Moves a simulated clock forward (false with the real clock).
    pub fn advance_clock(&self, ms: i64) -> bool {
        self.clock.advance_ms(ms)
    }

    /// [`Bot::advance_clock`] for a console playing on `server`: the total it has moved the
    /// clock is kept in the database, so that the next console on it starts at the same time
    /// ([`console_clock_offset`]) instead of before what was played.
    pub fn advance_console_clock(&self, server: &ServerId, ms: i64) -> bool {
        if !self.clock.advance_ms(ms) {
            return false;
        }
        let kept = self.store().write(|tx| {
            let before = console_offset_in(tx, server)?;
            tx.set_server_setting(
                server,
                ServerSetting::CONSOLE_CLOCK,
                &(before + ms).to_string(),
            )
        });
        if let Err(e) = kept {
            tracing::error!(error = %e, "keeping the console's clock failed");
        }
        true
    }

    pub(crate) fn store(&self) -> MutexGuard<'_, Store> {
        // A panic while holding the lock cannot leave a half-written game (SQLite rolls the
        // transaction back), so a poisoned lock is safe to take over.
        self.store.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs a command's change in one write transaction, with the time it runs at. The
    /// messages it owes (every reply that is not private) are drawn and stored in the outbox in
    /// that same transaction, so that a crash after the commit cannot lose them.
    pub(crate) fn write(
        &self,
        ctx: &Ctx,
        f: impl FnOnce(&Tx, i64) -> Outcome<Vec<Out>>,
    ) -> Outcome<Vec<Out>> {
        let replies = self.write_owed(Some(ctx), self.now(), f)?;
        Ok(replies.into_iter().map(Out::text).collect())
    }

    /// [`Bot::write`] for a change a command made (`origin`: its replies go to its channel) or
    /// the clocks made (each reply names its channel or user); the replies, drawn, each with
    /// its outbox id.
    pub(crate) fn write_owed(
        &self,
        origin: Option<&Ctx>,
        now: i64,
        f: impl FnOnce(&Tx, i64) -> Outcome<Vec<Out>>,
    ) -> Outcome<Vec<Reply>> {
        // A command in a server changes only that server's data and its user's own (on
        // PostgreSQL, commands on other servers by other users go on beside it); anything
        // else (a direct message, the clocks, the AI) takes the whole database.
        let within = origin
            .filter(|c| c.server.as_str() != super::reply::DM_SERVER)
            .map(|c| (c.server.to_string(), c.user.id.to_string()));
        let change = |tx: &Tx| -> Outcome<Vec<(Reply, Option<Board>)>> {
            let outs = f(tx, now)?;
            let mut replies = Vec::with_capacity(outs.len());
            for Out { mut reply, board } in outs {
                // Stored with its text board and what to draw; the picture is drawn once
                // the lock is released.
                if let Some(b) = &board {
                    reply.board_text = Some(b.text());
                    reply.board = self.images.then(|| b.spec());
                }
                // Its page on the web becomes its link button in this transaction (stored
                // with it, so that a delivery from the outbox carries it too).
                self.link_to_web(tx, &mut reply)?;
                // (A reply the change owed itself, to link to it, carries its id already.)
                if !reply.ephemeral && reply.outbox.is_none() {
                    reply.outbox = Some(outbox::owe(
                        tx,
                        origin,
                        &reply,
                        now,
                        (&self.worker, now + self.in_flight_ms()),
                    )?);
                }
                replies.push((reply, board));
            }
            Ok(replies)
        };
        let drawn = match &within {
            Some((server, user)) => self.store().write_within(server, user, change)?,
            None => self.store().write(change)?,
        };
        Ok(drawn
            .into_iter()
            .map(|(mut reply, board)| {
                if let (Some(board), true) = (board, self.images) {
                    reply.draw_picture(&board);
                }
                reply
            })
            .collect())
    }

    /// Runs `f` in one read transaction (a consistent snapshot).
    pub(crate) fn read<T>(&self, f: impl FnOnce(&Tx) -> Outcome<T>) -> Outcome<T> {
        self.store().read(f)
    }

    /// Draws lots: true with probability one half.
    pub(crate) fn coin(&self) -> bool {
        let mut rng = self.rng.lock().unwrap_or_else(|e| e.into_inner());
        rng.next_u64() & 1 == 1
    }

    /// Draws the board of a reply that is not owed (a read command's answer), if it has one.
    pub(crate) fn finish(&self, out: Out) -> Reply {
        let mut reply = out.reply;
        if let Some(board) = out.board {
            reply.draw(&board, self.images);
        }
        reply
    }
}

/// The position of a stored game after its first `upto` moves (all when `None`).
pub(crate) fn replay(
    game: &GameRow,
    moves: &[MoveRow],
    upto: Option<usize>,
) -> Outcome<(Position, Vec<Move>)> {
    let mut pos = Position::new(game.options);
    let mut played = Vec::with_capacity(moves.len());
    for m in moves.iter().take(upto.unwrap_or(moves.len())) {
        let mv = pos.play_text(&m.notation).map_err(|e| {
            Fail::Store(StoreError::Corrupt(format!(
                "game {} ply {} ({}): {e}",
                game.id.0, m.ply, m.notation
            )))
        })?;
        played.push(mv);
    }
    Ok((pos, played))
}

/// The active game in the context's channel, its stored moves and the position.
#[derive(Clone)]
pub(crate) struct Loaded {
    pub game: GameRow,
    pub moves: Vec<MoveRow>,
    pub pos: Position,
    /// The moves that reach `pos`, from the start.
    pub played: Vec<Move>,
    pub names: BySide<String>,
}

/// How a command that names no game picks one among several of the caller's in a thread
/// that holds several games (docs/operating.md, "Discord's limits").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pick {
    /// Only the caller's one game there (or the thread's one game).
    Any,
    /// Also the caller's one game there in which they are on move (`/move`, `/pass`).
    OnMove,
}

/// The game in progress in the context's channel that a command means: `game` when it
/// names one (it must be in progress here); else the channel's one game; else, in a thread
/// of several games, the caller's one game there (with [`Pick::OnMove`], the one where they
/// are on move). `None` when the channel has no game in progress; a refusal listing the
/// choices when it cannot tell.
pub(crate) fn active_here(
    tx: &Tx,
    ctx: &Ctx,
    game: Option<GameId>,
    pick: Pick,
) -> Outcome<Option<GameRow>> {
    let games = tx.active_games_in(&ctx.channel)?;
    if let Some(id) = game {
        return match games.into_iter().find(|g| g.id == id) {
            Some(g) => Ok(Some(g)),
            None => Err(Fail::User(not_here(tx, ctx, id)?)),
        };
    }
    if games.len() <= 1 {
        return Ok(games.into_iter().next());
    }
    let mine: Vec<&GameRow> = games
        .iter()
        .filter(|g| g.seat_of(&ctx.user.id).is_some())
        .collect();
    if let [one] = mine.as_slice() {
        return Ok(Some((*one).clone()));
    }
    let mut on_move = Vec::new();
    if pick == Pick::OnMove {
        for g in &mine {
            let l = load_game(tx, (*g).clone())?;
            if l.pos.to_move().is_some() && l.pos.to_move() == l.game.seat_of(&ctx.user.id) {
                on_move.push(l.game);
            }
        }
        if on_move.len() == 1 {
            return Ok(on_move.pop());
        }
    }
    let (choices, whose): (Vec<GameRow>, &str) = if !on_move.is_empty() {
        (on_move, "of yours where you are on move")
    } else if !mine.is_empty() {
        (mine.into_iter().cloned().collect(), "of yours")
    } else {
        (games, "")
    };
    let mut list = String::new();
    for g in choices.iter().take(GAMES_LISTED) {
        let n = names(tx, g)?;
        list.push_str(&format!(
            "\n• game {}: {} vs {}",
            g.id.0,
            escape_markdown(n.first()),
            escape_markdown(n.second())
        ));
    }
    if choices.len() > GAMES_LISTED {
        list.push_str(&format!("\n…and {} more", choices.len() - GAMES_LISTED));
    }
    let whose = if whose.is_empty() {
        String::new()
    } else {
        format!(" {whose}")
    };
    Err(Fail::User(format!(
        "This thread holds {} games{whose}: say which with `game:`, e.g. `game:{}`.{list}",
        choices.len(),
        choices[0].id.0
    )))
}

/// How many games a refusal lists at most.
const GAMES_LISTED: usize = 10;

/// Why game `id`, named in a command, is not a game in progress in this channel.
fn not_here(tx: &Tx, ctx: &Ctx, id: GameId) -> Outcome<String> {
    Ok(match tx.game(id)?.filter(|g| g.server_id == ctx.server) {
        Some(g) if g.channel_id == ctx.channel => {
            format!("Game {} is over: this names a game in progress.", id.0)
        }
        Some(_) => format!(
            "Game {} is not played in this channel: send the command in its thread, or see \
             it with `/game id:{}`.",
            id.0, id.0
        ),
        None => format!("There is no game {id} on this server."),
    })
}

/// The game in progress here that a command means ([`active_here`]), loaded; a refusal when
/// there is none.
pub(crate) fn load_here(tx: &Tx, ctx: &Ctx, game: Option<GameId>, pick: Pick) -> Outcome<Loaded> {
    let game = active_here(tx, ctx, game, pick)?.ok_or_else(|| {
        Fail::User(
            "There is no game in this channel. Start one with `/challenge`, or see `/games`."
                .into(),
        )
    })?;
    load_game(tx, game)
}

/// The channel's game for a button or command that names a game: a button left on an old
/// message must not act on a newer game.
pub(crate) fn load_pressed(tx: &Tx, ctx: &Ctx, game_id: Option<GameId>) -> Outcome<Loaded> {
    match game_id {
        Some(id) if !tx.active_games_in(&ctx.channel)?.iter().any(|g| g.id == id) => {
            Err(Fail::User(spent_button(tx, ctx, id)?))
        }
        _ => load_here(tx, ctx, game_id, Pick::Any),
    }
}

/// Why a button of game `id`, which is not this channel's game in progress, does nothing:
/// the game has ended (with its result) or was aborted.
fn spent_button(tx: &Tx, ctx: &Ctx, id: GameId) -> Outcome<String> {
    let game = tx
        .game(id)?
        .filter(|g| g.server_id == ctx.server && g.channel_id == ctx.channel);
    let Some(game) = game.filter(|g| g.status != GameStatus::Active) else {
        return Ok("That button belongs to a game that is over or not in this channel.".into());
    };
    let l = load_game(tx, game)?;
    Ok(match &l.game.outcome {
        Some(o) => format!(
            "Game {} has ended ({}), so this button no longer does anything.",
            id.0,
            text::result_sentence(&l.pos, o)
        ),
        None => format!(
            "Game {} was aborted, so this button no longer does anything.",
            id.0
        ),
    })
}

/// A stored game with its moves, position and player names.
pub(crate) fn load_game(tx: &Tx, game: GameRow) -> Outcome<Loaded> {
    let moves = tx.moves(game.id)?;
    let (pos, played) = replay(&game, &moves, None)?;
    let names = names(tx, &game)?;
    Ok(Loaded {
        game,
        moves,
        pos,
        played,
        names,
    })
}

/// Whether the player in `seat` has made a move of their own in the game (forced passes, which
/// the bot plays, do not count).
pub(crate) fn has_moved(game: &GameRow, moves: &[MoveRow], seat: Side) -> bool {
    moves
        .iter()
        .any(|m| m.user_id.as_ref().map(UserId::as_str) == Some(game.seats[seat].as_str()))
}

/// Whether both players have made a move of their own (docs/rules.md §9): before that, a
/// resignation aborts the game, or in a tournament is a forfeit.
pub(crate) fn both_moved(game: &GameRow, moves: &[MoveRow]) -> bool {
    game.sides()
        .into_iter()
        .all(|side| has_moved(game, moves, side))
}

/// The side that forfeited a game which ended in `o` (docs/rules.md §9 and §10: forfeits), if it was a
/// forfeit: a timeout before the loser's own first move, or a resignation before both players
/// had moved. (Outside tournaments such a game is aborted instead.)
pub(crate) fn forfeited_by(
    game: &GameRow,
    moves: &[MoveRow],
    o: &crate::game::Outcome,
) -> Option<Side> {
    let loser = o.winner?.opponent();
    match o.reason {
        EndReason::Timeout => (!has_moved(game, moves, loser)).then_some(loser),
        EndReason::Resigned => (!both_moved(game, moves)).then_some(loser),
        _ => None,
    }
}

/// The stored names of a game's two players (their ids when unknown); an AI seat is named
/// with its level, "Tara-bot AI (level 3)".
pub(crate) fn names(tx: &Tx, game: &GameRow) -> Outcome<BySide<String>> {
    let n = |side: Side| -> Outcome<String> {
        let id = &game.seats[side];
        let name = tx.name_or_id(id)?;
        Ok(match game.ai_levels[side] {
            Some(level) => format!("{name} (level {level})"),
            None => name,
        })
    };
    let [first, second] = game.options.variant.sides();
    Ok(BySide::new(n(first)?, n(second)?))
}

/// "there is already a game here" with the game's players.
pub(crate) fn busy_channel(tx: &Tx, game: &GameRow) -> Outcome<String> {
    let n = names(tx, game)?;
    Ok(format!(
        "A game is already running in this channel ({} {} vs {} {}). Finish it first, or play in \
         another channel or thread.",
        game.sides()[0].name(),
        escape_markdown(n.first()),
        game.sides()[1].name(),
        escape_markdown(n.second())
    ))
}

/// The announcement of a game that starts now, with its board.
pub(crate) fn game_start(game: &GameRow, names: &BySide<String>, why_first: &str) -> Out {
    let pos = Position::new(game.options);
    let first = game.options.first;
    let seat = first;
    let mut b = Builder::new()
        .text(format!("**Game on!** {} · ", game.options.variant.name()))
        .text(format!("{}: ", game.sides()[0].name()))
        .user(game.seats.first(), names.first())
        .text(format!(" · {}: ", game.sides()[1].name()))
        .user(game.seats.second(), names.second());
    if game.options.variant.allows_knots() {
        b = b.text(format!(" · scored by {}", game.options.scoring));
    }
    if let (Some(_), Some(n)) = (game.match_id, game.match_game) {
        b = b.text(format!(" · match {}", text::match_game(n)));
    }
    if let Some(d) = game.days_per_move {
        b = b.text(format!(
            " · {d} day{} per move",
            if d == 1 { "" } else { "s" }
        ));
    }
    b = b.text(format!(
        "\n{} first ({why_first}). ",
        if first.is_plural() {
            format!("The {} move", first.name().to_lowercase())
        } else {
            format!("{} moves", first.name())
        }
    ));
    if game.ai_levels[seat].is_some() {
        // The AI's first move follows as soon as it is found.
        b = b
            .user(&game.seats[seat], &names[seat])
            .text(" is thinking…");
        return Out {
            reply: b
                .on_the_web(&game.server_id, WebPage::game(game.id))
                .build(),
            board: Some(Board::new(
                pos,
                Vec::new(),
                Frame::new(names.clone(), None),
                format!("game-{}-start.png", game.id.0),
            )),
        };
    }
    b = b.ping(&game.seats[seat], &names[seat]).text(format!(
        ", your move: {}, e.g. `/move {}`.",
        game.options.variant.first_move(),
        game.options.variant.example_first_move()
    ));
    Out {
        reply: b
            .on_the_web(&game.server_id, WebPage::game(game.id))
            .build(),
        board: Some(Board::new(
            pos,
            Vec::new(),
            Frame::new(names.clone(), None),
            format!("game-{}-start.png", game.id.0),
        )),
    }
}

/// Who plays a new game: the challenger and the opponent, the AI level of each (the AI's
/// user is [`AI_USER_ID`]), and whether the challenger moves first.
pub(crate) struct Seating<'a> {
    pub players: [&'a UserId; 2],
    pub ai_levels: [Option<u8>; 2],
    pub challenger_first: bool,
}

impl<'a> Seating<'a> {
    /// Two people: the challenger and the opponent.
    pub fn people(players: [&'a UserId; 2], challenger_first: bool) -> Seating<'a> {
        Seating {
            players,
            ai_levels: [None, None],
            challenger_first,
        }
    }
}

/// A game to create: where it is played, which game, who plays it and how.
pub(crate) struct GameSpec<'a> {
    pub server: &'a ServerId,
    pub channel: &'a ChannelId,
    pub variant: Variant,
    pub scoring: Scoring,
    pub seating: Seating<'a>,
    /// The match it belongs to, and its number in the match.
    pub match_game: Option<(MatchId, i64)>,
    pub days_per_move: Option<u32>,
    pub rated: bool,
    /// The tournament pairing it is played for.
    pub pairing: Option<crate::store::PairingId>,
}

/// Creates a game (with the first mover's clock started). Tara: the challenger is Red and the
/// first player is Red or Blue; Ard Rí: whoever moves first plays the attackers.
pub(crate) fn create_game(tx: &Tx, spec: GameSpec, now: i64) -> Outcome<GameRow> {
    let GameSpec {
        server: server_id,
        channel: channel_id,
        variant,
        scoring,
        seating,
        match_game,
        days_per_move,
        rated,
        pairing,
    } = spec;
    let Seating {
        players,
        ai_levels,
        challenger_first,
    } = seating;
    let (swap, first) = variant.seating(challenger_first);
    // The challenger sits first unless the variant's seating swaps them.
    let (seats, ai_levels) = if swap {
        (
            BySide::new(players[1], players[0]),
            BySide::new(ai_levels[1], ai_levels[0]),
        )
    } else {
        (BySide::from(players), BySide::from(ai_levels))
    };
    let options = GameOptions::with(variant, Some(scoring), Some(first))
        .map_err(|e| Fail::User(format!("{e}.")))?;
    let id = tx.insert_game(
        &NewGame {
            server_id,
            channel_id,
            options,
            seats,
            match_id: match_game.map(|m| m.0),
            match_game: match_game.map(|m| m.1),
            days_per_move,
            pairing_id: pairing,
            rated,
            ai_levels,
        },
        now,
    )?;
    let game = tx
        .game(id)?
        .ok_or_else(|| Fail::Store(StoreError::Corrupt(format!("game {} vanished", id.0))))?;
    // The first mover's clock starts now.
    let first = game.seats[game.options.first].clone();
    let clock = turn_clock(tx, &game, &first, now)?;
    tx.start_turn(id, now, clock)?;
    Ok(tx.game(id)?.unwrap_or(game))
}

/// The clock of `mover` for a turn starting at `now`: it starts when their vacation (if any)
/// ends, and runs for the game's days per move. The AI has no clock: it never times out.
pub(crate) fn turn_clock(
    tx: &Tx,
    game: &GameRow,
    mover: &UserId,
    now: i64,
) -> Outcome<Option<(i64, i64)>> {
    let Some(days) = game.days_per_move else {
        return Ok(None);
    };
    if mover == AI_USER_ID {
        return Ok(None);
    }
    let start = tx.vacation_end(mover, now)?.unwrap_or(now).max(now);
    Ok(Some((start, start + i64::from(days) * DAY)))
}

/// Starts the turn of the player to move in `l` (a new clock and fresh reminders).
pub(crate) fn start_turn(tx: &Tx, l: &Loaded, now: i64) -> Outcome<()> {
    let clock = match l.pos.to_move() {
        Some(side) => turn_clock(tx, &l.game, &l.game.seats[side], now)?,
        None => None,
    };
    tx.start_turn(l.game.id, now, clock)?;
    Ok(())
}

/// "2 days 4 hours left" for the player to move, or `None` without a clock. `paused_until` is
/// the end of the mover's vacation, if they are away.
pub(crate) fn time_left(game: &GameRow, now: i64, paused_until: Option<i64>) -> Option<String> {
    let deadline = game.deadline_at?;
    let start = game
        .clock_start_at
        .unwrap_or(now)
        .max(paused_until.unwrap_or(now));
    if start > now {
        Some(format!(
            "clock paused until {} (vacation), then {}",
            date_text(start),
            left_text(deadline - start)
        ))
    } else {
        Some(format!("{} left", left_text(deadline - now)))
    }
}

/// A server's number `setting`, or `default` when unset or unreadable.
pub(crate) fn server_number(
    tx: &Tx,
    server: &ServerId,
    setting: ServerSetting,
    default: u32,
) -> Outcome<u32> {
    Ok(tx
        .server_setting(server, setting)?
        .and_then(|n| n.parse::<u32>().ok())
        .filter(|n| *n >= 1)
        .unwrap_or(default))
}

/// Whether `server` has put its games on the web companion (`/settings web:true`; off by
/// default).
pub(crate) fn on_the_web(tx: &Tx, server: &ServerId) -> Outcome<bool> {
    Ok(tx.server_setting(server, ServerSetting::WEB)?.as_deref() == Some("on"))
}

/// The server's command rate limit: commands per user per 10 seconds.
pub(crate) fn server_rate_limit(tx: &Tx, server: &ServerId) -> Outcome<u32> {
    server_number(tx, server, ServerSetting::RATE_LIMIT, DEFAULT_RATE_LIMIT)
}

/// The server's default time control.
pub(crate) fn default_time_control(tx: &Tx, server: &ServerId) -> Outcome<TimeControl> {
    Ok(tx
        .server_setting(server, ServerSetting::DEFAULT_DAYS)?
        .and_then(|d| d.parse::<TimeControl>().ok())
        .unwrap_or(TimeControl::NoClock))
}

/// The machine's host name (or `tara-bot` when it cannot be read): the default worker name.
fn default_worker() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "tara-bot".to_string())
}

fn console_offset_in(tx: &Tx, server: &ServerId) -> Result<i64, crate::store::StoreError> {
    Ok(tx
        .server_setting(server, ServerSetting::CONSOLE_CLOCK)?
        .and_then(|v| v.parse().ok())
        .unwrap_or(0))
}

/// How far the consoles on this database have moved the clock of `server` with `/time`, in
/// milliseconds (0 if never): a new console starts its clock there.
pub fn console_clock_offset(store: &mut Store, server: &ServerId) -> i64 {
    store
        .read(|tx| console_offset_in(tx, server))
        .unwrap_or_else(|e| {
            tracing::error!(error = %e, "reading the console's clock failed");
            0
        })
}
