//! Shared helpers for the bot-level integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use tara_bot::bot::options::{Value, Values};
use tara_bot::bot::{Bot, Command, Ctx, ManualClock, Reply, User};
use tara_bot::game::playout::Rng;
use tara_bot::game::{GameOptions, Move, Position};
use tara_bot::store::{ChannelId, ServerId};
use tara_bot::store::{GameId, GameRow, Store};

/// Start of the simulated clock: 2026-11-30 00:00 UTC.
pub const T0: i64 = 1_795_996_800_000;

pub fn user(name: &str) -> User {
    User::new(name, name)
}

pub fn ctx(name: &str, channel: &str) -> Ctx {
    Ctx {
        server: ServerId::new("server"),
        channel: ChannelId::new(channel),
        user: user(name),
        moderator: false,
        manager: false,
        roles: Vec::new(),
    }
}

/// `/challenge` with its options as typed (`None` for the defaults), read through the command
/// table as an adapter reads them: `Err` with the message a user would see for a bad value.
pub fn try_challenge_cmd(
    opponent: &str,
    variant: &str,
    scoring: Option<&str>,
    first: Option<&str>,
    is_match: bool,
    days: Option<&str>,
) -> Result<Command, String> {
    let mut v = Values::new()
        .with("opponent", Value::User(user(opponent)))
        .with("variant", Value::Text(variant.into()))
        .with("match", Value::Boolean(is_match));
    for (name, text) in [("scoring", scoring), ("first", first), ("days", days)] {
        if let Some(t) = text {
            v.set(name, Value::Text(t.into()));
        }
    }
    Command::parse("challenge", &v)
}

/// `/challenge` with valid options (`None` for the defaults).
pub fn challenge_cmd(
    opponent: &str,
    variant: &str,
    scoring: Option<&str>,
    first: Option<&str>,
    is_match: bool,
    days: Option<&str>,
) -> Command {
    try_challenge_cmd(opponent, variant, scoring, first, is_match, days)
        .unwrap_or_else(|e| panic!("challenge options: {e}"))
}

/// Whether playing `moves` (with the bot's forced passes in between) forces a pass.
pub fn forces_a_pass(options: GameOptions, moves: &[Move]) -> bool {
    let mut pos = Position::new(options);
    let mut forced = false;
    for m in moves {
        pos.play(*m).unwrap();
        while pos.outcome().is_none() && pos.legal_moves().as_slice() == [Move::Pass] {
            forced = true;
            pos.play(Move::Pass).unwrap();
        }
    }
    forced
}

/// Whether the tests of this copy of the helpers run on PostgreSQL: each file declares
/// `mod common;` for itself, and the PostgreSQL modules (`postgres_suite`, which runs the files
/// of `tests/flows/` again, `postgres_storage`, `postgres_processes`) hold theirs.
pub fn on_postgres() -> bool {
    module_path!()
        .split("::")
        .any(|m| m.starts_with("postgres_"))
}

/// The PostgreSQL server of the PostgreSQL tests (`TARA_BOT_TEST_POSTGRES`), which are built
/// only when it is set (`build.rs`); a binary built with it and run without it fails.
pub fn postgres_url() -> String {
    match std::env::var("TARA_BOT_TEST_POSTGRES") {
        Ok(url) if !url.is_empty() => url,
        _ => panic!(
            "TARA_BOT_TEST_POSTGRES is not set, but the PostgreSQL tests were built with it: \
             set it again (cargo test rebuilds without them when it is unset)"
        ),
    }
}

/// A new, empty database for one test: a file in `dir` on SQLite; on PostgreSQL, a schema of
/// its own in the suite's database, named by the URL returned (which `Store::open` and
/// `--db` take as they take a file).
pub fn new_db(dir: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    if !on_postgres() {
        return dir.join("tara.db");
    }
    let base = postgres_url();
    // (One binary holds several files' tests, each with its own copy of this module and its
    // own count: the module's path keeps their schemas apart.)
    // (Without the crate's name: PostgreSQL cuts names at 63 bytes, which would cut off the
    // count.)
    let inside = module_path!().split_once("::").map_or("", |(_, m)| m);
    let schema = format!(
        "t{}_{}_{}",
        std::process::id(),
        inside.replace("::", "_"),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    assert!(
        schema.len() <= 63,
        "{schema}: longer than PostgreSQL's names"
    );
    let mut admin = postgres::Client::connect(&base, postgres::NoTls)
        .unwrap_or_else(|e| panic!("connecting to TARA_BOT_TEST_POSTGRES ({base}): {e}"));
    admin
        .batch_execute(&format!(
            "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"
        ))
        .unwrap();
    let join = if base.contains('?') { '&' } else { '?' };
    PathBuf::from(format!("{base}{join}options=-csearch_path%3D{schema}"))
}

/// A bot over a new database: a file in a temporary folder, or a PostgreSQL schema of its own
/// in the PostgreSQL test binaries.
pub struct Harness {
    pub dir: tempfile::TempDir,
    pub clock: Arc<ManualClock>,
    pub bot: Bot,
    db: PathBuf,
}

impl Harness {
    pub fn new(images: bool) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let db = new_db(dir.path());
        Harness::on(dir, db, images)
    }

    /// A bot over the database `db` (a file, or a PostgreSQL URL), with `dir` kept for it.
    pub fn on(dir: tempfile::TempDir, db: PathBuf, images: bool) -> Harness {
        let clock = Arc::new(ManualClock::new(T0));
        let bot = Bot::new(Store::open(&db).unwrap(), clock.clone(), 7).with_images(images);
        Harness {
            dir,
            clock,
            bot,
            db,
        }
    }

    /// The database: the file's path, or the PostgreSQL URL.
    pub fn db(&self) -> PathBuf {
        self.db.clone()
    }

    /// A new bot on the same file: a restarted process.
    pub fn restart(&mut self) {
        let store = Store::open(self.db()).unwrap();
        self.bot = Bot::new(store, self.clock.clone(), 8).with_images(false);
    }

    pub fn send(&self, who: &str, channel: &str, cmd: Command) -> Vec<Reply> {
        self.bot.handle(&ctx(who, channel), cmd)
    }

    /// What an adapter does with a command it has read: a bad option is answered privately
    /// with the reader's message; a good command goes to the bot.
    pub fn send_parsed(
        &self,
        who: &str,
        channel: &str,
        parsed: Result<Command, String>,
    ) -> Vec<Reply> {
        match parsed {
            Ok(cmd) => self.send(who, channel, cmd),
            Err(msg) => vec![Reply::private(msg)],
        }
    }

    pub fn mv(&self, who: &str, channel: &str, text: &str) -> Vec<Reply> {
        self.send(
            who,
            channel,
            Command::Move {
                text: text.into(),
                game: None,
            },
        )
    }

    /// Both players of the channel's game make a move (the first legal one), so that a
    /// resignation after it is a loss over the board, not an abort (docs/rules.md §9).
    pub fn opening(&self, channel: &str) {
        let g = active(&self.db(), channel).expect("a game in progress");
        for _ in 0..2 {
            let (_, _, pos) = stored(&self.db(), g.id);
            let who = &g.seats[pos.to_move().expect("in progress")];
            let r = self.mv(who.as_str(), channel, &pos.legal_moves()[0].to_string());
            assert!(!r[0].ephemeral, "{}", r[0].plain_text());
        }
    }

    /// `who` resigns the channel's game without being asked again; the answer is public.
    pub fn resign(&self, who: &str, channel: &str) -> Vec<Reply> {
        let cmd = Command::Resign {
            confirmed: true,
            game: None,
        };
        let r = self.send(who, channel, cmd);
        assert!(!r[0].ephemeral, "{}", r[0].plain_text());
        r
    }

    /// Challenges and accepts; returns the new game row.
    pub fn start(&self, a: &str, b: &str, channel: &str, variant: &str, first: &str) -> GameRow {
        let r = self.send(
            a,
            channel,
            challenge_cmd(b, variant, None, Some(first), false, None),
        );
        assert!(!r[0].ephemeral, "{}", r[0].plain_text());
        let r = self.send(b, channel, Command::Accept { challenge: None });
        assert!(!r[0].ephemeral, "{}", r[0].plain_text());
        active(&self.db(), channel).expect("game started")
    }
}

/// The active game of a channel, read through a separate connection.
pub fn active(db: &Path, channel: &str) -> Option<GameRow> {
    let mut s = Store::open(db).unwrap();
    s.read(|tx| tx.active_game(&ChannelId::new(channel)))
        .unwrap()
}

/// A stored game's moves and rebuilt position, through a separate connection.
pub fn stored(db: &Path, game_id: GameId) -> (GameRow, Vec<String>, Position) {
    let mut s = Store::open(db).unwrap();
    let (g, moves) = s
        .read(|tx| -> Result<_, tara_bot::store::StoreError> {
            Ok((tx.game(game_id)?.unwrap(), tx.moves(game_id)?))
        })
        .unwrap();
    let mut pos = Position::new(g.options);
    for m in &moves {
        pos.play_text(&m.notation).unwrap();
    }
    (g, moves.into_iter().map(|m| m.notation).collect(), pos)
}

/// A random legal game's moves as the players type them: forced passes (the bot plays those)
/// left out.
pub fn player_moves(options: GameOptions, seed: u64) -> Vec<Move> {
    let mut rng = Rng::new(seed);
    let mut pos = Position::new(options);
    let mut out = Vec::new();
    while pos.outcome().is_none() {
        let legal = pos.legal_moves();
        let m = legal[rng.below(legal.len())];
        if legal.as_slice() != [Move::Pass] {
            out.push(m);
        }
        pos.play_unchecked(m);
    }
    out
}

/// The text of all replies.
pub fn texts(replies: &[Reply]) -> String {
    replies
        .iter()
        .map(|r| r.plain_text())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Issue 28's name: a masked link, a ping of everyone, a code fence and bold text.
pub const NITRO: &str = "[Nitro](https://evil.example) @everyone ``` **x**";
/// A fence early in a name, so that a text table (which cuts long names) shows it too.
pub const FENCE: &str = "f```**y** @here";

/// What Discord would make of a message's text holding the names [`NITRO`] and [`FENCE`]: a
/// code fence is ``` wherever it stands, so the pieces between fences alternate text and code.
/// Every block must be closed, no code may hold a run of backticks, and no text a link, bold
/// text, a ping of everyone or a run of backticks. `Err` says what is wrong.
pub fn stays_text(text: &str) -> Result<(), String> {
    let pieces: Vec<&str> = text.split("```").collect();
    if pieces.len().is_multiple_of(2) {
        return Err(format!("a code block left open:\n{text}"));
    }
    for (i, piece) in pieces.iter().enumerate() {
        let bad: &[&str] = if i % 2 == 1 {
            &["``"]
        } else {
            &[
                "[Nitro](",
                "](https",
                "**x**",
                "**y**",
                "@everyone",
                "@here",
                "``",
            ]
        };
        if let Some(b) = bad.iter().find(|b| piece.contains(*b)) {
            let place = if i % 2 == 1 { "code" } else { "text" };
            return Err(format!("{b:?} in {place}:\n{text}"));
        }
    }
    Ok(())
}

/// [`stays_text`], or a panic naming `label`.
pub fn assert_stays_text(label: &str, text: &str) {
    if let Err(e) = stays_text(text) {
        panic!("{label}: {e}");
    }
}

/// Console lines sent to the bot core on server `server` (the ladder and league tests): a
/// user named `mod` is a moderator.
pub mod console {
    use super::texts;
    use tara_bot::bot::{Bot, Command, Ctx, Reply, User};
    use tara_bot::console::{parse_line, Action};
    use tara_bot::store::{ChannelId, ServerId};

    pub fn ctx(who: &str, channel: &str) -> Ctx {
        Ctx {
            server: ServerId::new("server"),
            channel: ChannelId::new(channel),
            user: User::new(who, who),
            moderator: who == "mod",
            manager: false,
            roles: Vec::new(),
        }
    }

    /// A console line read as the console reads it.
    pub fn command(line: &str) -> Command {
        match parse_line(line) {
            Ok(Action::Run(c)) => c,
            other => panic!("{line}: {other:?}"),
        }
    }

    pub fn send(bot: &Bot, who: &str, channel: &str, line: &str) -> Vec<Reply> {
        bot.handle(&ctx(who, channel), command(line))
    }

    /// Sends a line that must be accepted (every answer public).
    pub fn ok(bot: &Bot, who: &str, channel: &str, line: &str) -> Vec<Reply> {
        let r = send(bot, who, channel, line);
        assert!(r.iter().all(|r| !r.ephemeral), "{line}: {}", texts(&r));
        r
    }

    /// Sends a line that must be refused privately; the refusal.
    pub fn refused(bot: &Bot, who: &str, channel: &str, line: &str) -> String {
        let r = send(bot, who, channel, line);
        assert!(r.len() == 1 && r[0].ephemeral, "{line}: {}", texts(&r));
        r[0].plain_text()
    }

    /// Both players make a first move in the game of `channel` (the first the bot offers), so
    /// that a resignation is a loss over the board (docs/rules.md §9).
    pub fn opening(bot: &Bot, channel: &str, players: [&str; 2]) {
        for _ in 0..2 {
            let (who, m) = players
                .iter()
                .find_map(|p| {
                    let offered = bot.autocomplete_move(&ctx(p, channel), "");
                    offered.first().map(|m| (*p, m.clone()))
                })
                .expect("a player to move");
            ok(bot, who, channel, &format!("/move {m}"));
        }
    }

    /// Runs `tara-bot` with `args`, which must succeed; its standard output.
    pub fn cli(args: &[&str]) -> String {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tara-bot"))
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}
