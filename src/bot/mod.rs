//! The platform-agnostic bot: a [`Command`] from a user in a channel goes in, [`Reply`]s come
//! out. It knows nothing of Discord or terminals; adapters turn replies into messages.
//!
//! Every command that changes anything does so in one SQLite transaction, and a move is
//! appended only if it is legal in the position rebuilt inside that transaction. Board images
//! are drawn after the transaction has committed.

pub mod clock;
mod info;
mod lobby;
mod play;
pub mod text;

use crate::game::playout::Rng;
use crate::game::{Move, Position};
use crate::render::{self, Frame};
use crate::store::{GameRow, Store, StoreError};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// A user as the platform names them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct User {
    /// Stable id (a Discord snowflake, a console name).
    pub id: String,
    /// Display name.
    pub name: String,
}

impl User {
    pub fn new(id: impl Into<String>, name: impl Into<String>) -> User {
        User {
            id: id.into(),
            name: name.into(),
        }
    }
}

/// Who sent a command, and where.
#[derive(Clone, Debug)]
pub struct Ctx {
    pub server: String,
    /// The channel or thread the command was sent in.
    pub channel: String,
    pub user: User,
    /// Whether the user may moderate games on this server (abort any game).
    pub moderator: bool,
}

/// Everything a user can ask of the bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Challenge `opponent` to a game (or a two-game match) in this channel.
    Challenge {
        opponent: User,
        variant: String,
        scoring: Option<String>,
        /// `random` (default), `me` or `opponent`.
        first: Option<String>,
        is_match: bool,
        /// Days per move (`1`, `2`, `3`, `5`, `7`, `14`) or `none`; default: the server's.
        days: Option<String>,
    },
    /// Accept a challenge (the newest one addressed to you here when no id is given).
    Accept {
        challenge: Option<i64>,
    },
    Decline {
        challenge: Option<i64>,
    },
    /// Withdraw your challenge.
    Cancel {
        challenge: Option<i64>,
    },
    /// Play a move in this channel's game.
    Move {
        text: String,
    },
    Pass,
    /// Resign; without `confirmed` the bot asks first.
    Resign {
        confirmed: bool,
        game: Option<i64>,
    },
    /// The board now, or after `ply` moves.
    Board {
        ply: Option<u32>,
    },
    /// The game record as importable text.
    Record,
    /// Whose turn, since when, and the score so far.
    Status,
    /// Your active games everywhere.
    Games,
    /// A summary of a variant's rules.
    Rules {
        variant: Option<String>,
    },
    Help,
    /// Abort this channel's game (before any move, or by a moderator).
    Abort,
    /// Ask to take back your last move.
    Takeback,
    /// Answer your opponent's takeback request.
    TakebackAnswer {
        accept: bool,
        game: Option<i64>,
    },
    /// Pause all your clocks for some days.
    Vacation {
        days: u32,
    },
    /// Show or change settings: your reminders (`channel`, `dm`, `off`); moderators: the
    /// server's default days per move and first-reminder delay.
    Settings {
        reminders: Option<String>,
        default_days: Option<String>,
        reminder_hours: Option<u32>,
    },
}

impl Command {
    /// The command a button press stands for (see [`Button::id`]).
    pub fn from_button(id: &str) -> Option<Command> {
        let (kind, rest) = id.split_once(':')?;
        let n: i64 = rest.parse().ok()?;
        Some(match kind {
            "accept" => Command::Accept { challenge: Some(n) },
            "decline" => Command::Decline { challenge: Some(n) },
            "cancel" => Command::Cancel { challenge: Some(n) },
            "resign" => Command::Resign {
                confirmed: true,
                game: Some(n),
            },
            "takeback-yes" => Command::TakebackAnswer {
                accept: true,
                game: Some(n),
            },
            "takeback-no" => Command::TakebackAnswer {
                accept: false,
                game: Some(n),
            },
            _ => return None,
        })
    }
}

/// A piece of reply text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// Text with Markdown (`**bold**`, `` `code` ``).
    Text(String),
    /// A mention of a user (pings only if the user is in [`Reply::mentions`]).
    User { id: String, name: String },
    /// A reference to a channel or thread.
    Channel(String),
}

/// How a button looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ButtonStyle {
    Primary,
    Secondary,
    Success,
    Danger,
}

/// A button under a message; pressing it sends [`Command::from_button`]`(id)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Button {
    pub id: String,
    pub label: String,
    pub style: ButtonStyle,
}

/// An image attached to a reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    pub filename: String,
    pub bytes: Vec<u8>,
}

/// One message from the bot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    pub parts: Vec<Part>,
    pub image: Option<Attachment>,
    /// Exactly the users this message may ping.
    pub mentions: Vec<String>,
    /// Only the user who sent the command sees it.
    pub ephemeral: bool,
    pub buttons: Vec<Button>,
    /// The board drawn as text, when the reply shows a board (terminals).
    pub board_text: Option<String>,
    /// Post in this channel instead of answering the command (scheduled messages).
    pub channel: Option<String>,
    /// Send privately to this user instead (reminders by direct message).
    pub dm: Option<String>,
}

impl Reply {
    /// The text, with mentions and channels written by the adapter's functions.
    pub fn text_with(
        &self,
        user: impl Fn(&str, &str) -> String,
        channel: impl Fn(&str) -> String,
    ) -> String {
        let mut s = String::new();
        for p in &self.parts {
            match p {
                Part::Text(t) => s.push_str(t),
                Part::User { id, name } => s.push_str(&user(id, name)),
                Part::Channel(c) => s.push_str(&channel(c)),
            }
        }
        s
    }

    /// The text with `@name` mentions and `#channel` references (console, logs, tests).
    pub fn plain_text(&self) -> String {
        self.text_with(|_, name| format!("@{name}"), |c| format!("#{c}"))
    }

    /// An error or notice only the sender sees.
    pub fn private(text: impl Into<String>) -> Reply {
        Reply {
            parts: vec![Part::Text(text.into())],
            ephemeral: true,
            ..Reply::default()
        }
    }
}

/// The current time, injected so deadlines can be tested without sleeping.
pub trait Clock: Send + Sync {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64;
    /// Moves a simulated clock forward; false for the real clock.
    fn advance_ms(&self, _ms: i64) -> bool {
        false
    }
}

/// The system clock.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0)
    }
}

/// A clock that only moves when told (tests, the console's simulated time).
pub struct ManualClock(AtomicI64);

impl ManualClock {
    pub fn new(start_ms: i64) -> ManualClock {
        ManualClock(AtomicI64::new(start_ms))
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
    fn advance_ms(&self, ms: i64) -> bool {
        self.0.fetch_add(ms, Ordering::SeqCst);
        true
    }
}

/// The system clock plus an offset that can be moved forward (the console's `/time`).
#[derive(Default)]
pub struct OffsetClock(AtomicI64);

impl Clock for OffsetClock {
    fn now_ms(&self) -> i64 {
        SystemClock.now_ms() + self.0.load(Ordering::SeqCst)
    }
    fn advance_ms(&self, ms: i64) -> bool {
        self.0.fetch_add(ms, Ordering::SeqCst);
        true
    }
}

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
    pub board: Option<(Position, Frame, String)>,
}

impl Out {
    pub fn text(reply: Reply) -> Out {
        Out { reply, board: None }
    }
}

/// The bot.
pub struct Bot {
    store: Mutex<Store>,
    clock: Arc<dyn Clock>,
    rng: Mutex<Rng>,
    images: bool,
}

impl Bot {
    /// A bot over a store; `seed` seeds the drawing of lots.
    pub fn new(store: Store, clock: Arc<dyn Clock>, seed: u64) -> Bot {
        Bot {
            store: Mutex::new(store),
            clock,
            rng: Mutex::new(Rng::new(seed)),
            images: true,
        }
    }

    /// Turns board images on or off (off: replies carry no image).
    pub fn with_images(mut self, on: bool) -> Bot {
        self.images = on;
        self
    }

    pub(crate) fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    /// Moves a simulated clock forward (false with the real clock).
    pub fn advance_clock(&self, ms: i64) -> bool {
        self.clock.advance_ms(ms)
    }

    pub(crate) fn store(&self) -> MutexGuard<'_, Store> {
        // A panic while holding the lock cannot leave a half-written game (SQLite rolls the
        // transaction back), so a poisoned lock is safe to take over.
        self.store.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Draws lots: true with probability one half.
    pub(crate) fn coin(&self) -> bool {
        let mut rng = self.rng.lock().unwrap_or_else(|e| e.into_inner());
        rng.next_u64() & 1 == 1
    }

    /// Handles a command; returns the replies in order.
    pub fn handle(&self, ctx: &Ctx, cmd: Command) -> Vec<Reply> {
        let result = match cmd {
            Command::Challenge {
                opponent,
                variant,
                scoring,
                first,
                is_match,
                days,
            } => self.challenge(
                ctx,
                &opponent,
                &variant,
                scoring.as_deref(),
                first.as_deref(),
                is_match,
                days.as_deref(),
            ),
            Command::Accept { challenge } => self.accept(ctx, challenge),
            Command::Decline { challenge } => self.decline(ctx, challenge),
            Command::Cancel { challenge } => self.cancel(ctx, challenge),
            Command::Move { text } => self.play_move(ctx, &text),
            Command::Pass => self.play_move(ctx, "pass"),
            Command::Resign { confirmed, game } => self.resign(ctx, confirmed, game),
            Command::Board { ply } => self.board(ctx, ply),
            Command::Record => self.record(ctx),
            Command::Status => self.status(ctx),
            Command::Games => self.games(ctx),
            Command::Rules { variant } => self.rules(variant.as_deref()),
            Command::Help => Ok(vec![Out::text(info::help())]),
            Command::Abort => self.abort(ctx),
            Command::Takeback => self.takeback(ctx),
            Command::TakebackAnswer { accept, game } => self.takeback_answer(ctx, accept, game),
            Command::Vacation { days } => self.vacation(ctx, days),
            Command::Settings {
                reminders,
                default_days,
                reminder_hours,
            } => self.settings(
                ctx,
                reminders.as_deref(),
                default_days.as_deref(),
                reminder_hours,
            ),
        };
        match result {
            Ok(outs) => outs.into_iter().map(|o| self.finish(o)).collect(),
            Err(Fail::User(msg)) => vec![Reply::private(msg)],
            Err(Fail::Store(e)) => {
                tracing::error!(error = %e, "command failed");
                vec![Reply::private(
                    "Something went wrong on our side and nothing was changed; please try again.",
                )]
            }
        }
    }

    /// Draws the board image of an outgoing reply, if it has one.
    pub(crate) fn finish(&self, out: Out) -> Reply {
        let mut reply = out.reply;
        if let Some((pos, frame, name)) = out.board {
            reply.board_text = Some(render::text::board(&pos));
            if self.images {
                reply.image = Some(Attachment {
                    filename: name,
                    bytes: render::board_png(&pos, &frame),
                });
            }
        }
        reply
    }
}

/// The position of a stored game after its first `upto` moves (all when `None`).
pub(crate) fn replay(
    game: &GameRow,
    moves: &[crate::store::MoveRow],
    upto: Option<usize>,
) -> Outcome<(Position, Vec<Move>)> {
    let mut pos = Position::new(game.options);
    let mut played = Vec::with_capacity(moves.len());
    for m in moves.iter().take(upto.unwrap_or(moves.len())) {
        let mv = pos.play_text(&m.notation).map_err(|e| {
            Fail::Store(StoreError::Corrupt(format!(
                "game {} ply {} ({}): {e}",
                game.id, m.ply, m.notation
            )))
        })?;
        played.push(mv);
    }
    Ok((pos, played))
}
