//! Two `tara-bot run` processes, shards 0 and 1 of 2, on one PostgreSQL database, against a fake
//! Discord with a server on each shard: games and games against the AI on both, one process
//! killed with SIGKILL in the middle of a burst. The other delivers what the dead one owed and
//! plays the AI's move it was searching; the dead one's server goes on after its restart; no
//! move is lost and no announcement is posted twice.
//!
//! Runs only on PostgreSQL: built only when `TARA_BOT_TEST_POSTGRES` is set (`build.rs`).

mod common;
use tara_bot::fake_discord;

use fake_discord::proxy::RestProxy;
use fake_discord::{FakeDiscord, Fault, Recorded};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Proc};
use std::time::Duration;
use tara_bot::game::{GameOptions, Move, Position, Variant};
use tara_bot::store::{GameId, Store, StoreError};

const T: Duration = Duration::from_secs(30);
/// Short leases, so that the survivor takes over within seconds: an owed message is left to
/// its command for 2 s, an AI move is held for two searches (6 s) and 1 s.
const LEASE_MS: &str = "4000";
/// Level 5 searches this long: long enough to kill a process in the middle of a search.
const AI_MS: &str = "3000";

// Server A (FakeDiscord::GUILD_ID) and server B (SECOND_GUILD_ID) are on different shards.
const AOIFE: (u64, &str) = (1_000_000_000_000_000_001, "aoife");
const BRIAN: (u64, &str) = (1_000_000_000_000_000_002, "brian");
const CIARA: (u64, &str) = (1_000_000_000_000_000_003, "ciara");
const DARA: (u64, &str) = (1_000_000_000_000_000_004, "dara");
const EIMEAR: (u64, &str) = (1_000_000_000_000_000_005, "eimear");
const FIONN: (u64, &str) = (1_000_000_000_000_000_006, "fionn");

/// A bot process, killed when dropped.
struct BotProcess(Child);

impl Drop for BotProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `tara-bot run --shards S-S --shard-total 2` on the database `db`, logging to `dir`, sending
/// its REST calls to `rest` (the fake itself, or a proxy in front of it).
fn spawn(rest: &str, db: &Path, dir: &Path, shard: u64) -> BotProcess {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(format!("bot-{shard}.log")))
        .unwrap();
    let range = format!("{shard}-{shard}");
    let exe = Path::new(env!("CARGO_BIN_EXE_tara-bot"));
    let child = fake_discord::tara_bot_run(exe, rest, dir)
        .args(["--shards", &range, "--shard-total", "2"])
        .env("TARA_BOT_DB", db)
        .env("RUST_LOG", "warn,tara_bot=debug")
        .env("TARA_BOT_LEASE_MS", LEASE_MS)
        .env("TARA_BOT_AI_MS", AI_MS)
        .env("TARA_BOT_AI_SEARCHES", "1")
        .stderr(log)
        .spawn()
        .expect("start tara-bot run");
    BotProcess(child)
}

fn logs(dir: &Path) -> String {
    (0..2)
        .map(|s| std::fs::read_to_string(dir.join(format!("bot-{s}.log"))).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n----\n")
}

/// The messages in `channel` carrying the board of `game` after `ply` moves: that move's
/// announcements (its answer, or the post that stood in for it).
fn announcements(fake: &FakeDiscord, channel: u64, game: GameId, ply: usize) -> usize {
    boards(fake, channel, game).get(&ply).copied().unwrap_or(0)
}

/// Every board of `game` posted in `channel`: ply -> how many times.
fn boards(fake: &FakeDiscord, channel: u64, game: GameId) -> HashMap<usize, usize> {
    fake.boards_posted(channel, game.0)
}

/// Runs `f`, which uses the synchronous PostgreSQL client (it starts a runtime of its own),
/// outside the test's async runtime.
fn blocking<R>(f: impl FnOnce() -> R) -> R {
    tokio::task::block_in_place(f)
}

/// The number of messages still owed.
fn unsent(db: &Path) -> i64 {
    blocking(|| {
        Store::open(db)
            .unwrap()
            .read(|tx| -> Result<i64, StoreError> { tx.unsent_count() })
            .unwrap()
    })
}

/// The stored moves of a game and the position they lead to.
fn position(db: &Path, game: GameId) -> (usize, Position) {
    let (_, moves, pos) = blocking(|| common::stored(db, game));
    (moves.len(), pos)
}

/// Which process holds the search of the AI's move in `game`, if any (read straight from the
/// database).
fn ai_claimed_by(db: &Path, game: GameId) -> Option<String> {
    let url = db.to_str().unwrap();
    blocking(|| {
        let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
        c.query_one("SELECT ai_claimed_by FROM games WHERE id = $1", &[&game.0])
            .unwrap()
            .get(0)
    })
}

/// Polls `f` (which reads the database, whose changes wake no one) until it gives a value, for
/// at most [`T`].
async fn poll<R>(mut f: impl FnMut() -> Option<R>) -> Option<R> {
    let deadline = tokio::time::Instant::now() + T;
    loop {
        if let Some(r) = f() {
            return Some(r);
        }
        if tokio::time::Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The process searching the AI's move in `game`, waiting for one to claim it.
async fn claimed(db: &Path, game: GameId) -> String {
    poll(|| ai_claimed_by(db, game))
        .await
        .unwrap_or_else(|| panic!("no process searches the AI's move in game {}", game.0))
}

/// A challenge in `channel` by `a`, accepted by `b` with the button: the game's id.
async fn human_game(
    fake: &FakeDiscord,
    db: &Path,
    channel: u64,
    a: (u64, &str),
    b: (u64, &str),
) -> GameId {
    let opponent = fake.user_option("opponent", b);
    let id = fake
        .slash(
            a,
            channel,
            "challenge",
            json!([
                opponent,
                {"name": "variant", "type": 3, "value": "hkot-1"},
                {"name": "first", "type": 3, "value": "me"},
                {"name": "thread", "type": 5, "value": false}
            ]),
        )
        .await;
    let r = fake.response(id, T).await.expect("challenge answered");
    let accept = r.custom_ids().into_iter().next().expect("an accept button");
    let click = fake
        .button(b, channel, fake.message_from(&r), &accept)
        .await;
    let start = fake.wait_followups(click, 1, T).await;
    assert!(
        start
            .first()
            .and_then(Recorded::content)
            .is_some_and(|c| c.contains("Game on!")),
        "{start:?}"
    );
    blocking(|| common::active(db, &channel.to_string()))
        .expect("the game is stored")
        .id
}

/// A level-5 game against the AI for `who`, in a thread of `channel`, the player first: the
/// game and its thread.
async fn ai_game(fake: &FakeDiscord, db: &Path, channel: u64, who: (u64, &str)) -> (GameId, u64) {
    let id = fake
        .slash(
            who,
            channel,
            "play-ai",
            json!([
                {"name": "variant", "type": 3, "value": "hkot-1"},
                {"name": "level", "type": 4, "value": 5},
                {"name": "first", "type": 3, "value": "me"}
            ]),
        )
        .await;
    let r = fake.response(id, T).await.expect("/play-ai answered");
    let text = r.content().unwrap_or_default().to_string();
    let thread: u64 = text
        .split("<#")
        .nth(1)
        .and_then(|t| t.split('>').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no thread named: {text}"));
    let game = blocking(|| common::active(db, &thread.to_string()))
        .expect("the game against the AI is stored")
        .id;
    (game, thread)
}

/// Sends `/move` and waits for its public answer.
async fn play_move(fake: &FakeDiscord, who: (u64, &str), channel: u64, m: Move) -> Recorded {
    let id = fake
        .slash(
            who,
            channel,
            "move",
            json!([{"name": "move", "type": 3, "value": m.to_string()}]),
        )
        .await;
    let r = fake
        .response(id, T)
        .await
        .unwrap_or_else(|| panic!("no answer to /move {m}"));
    assert!(!r.ephemeral(), "/move {m} refused: {:?}", r.content());
    r
}

/// A game between two people, played from a list of legal moves.
struct Human {
    channel: u64,
    players: [(u64, &'static str); 2],
    pos: Position,
    moves: Vec<Move>,
}

impl Human {
    fn new(channel: u64, players: [(u64, &'static str); 2], seed: u64) -> Human {
        let options = GameOptions::new(Variant::Hkot1);
        Human {
            channel,
            players,
            pos: Position::new(options),
            moves: common::player_moves(options, seed),
        }
    }

    /// Whose move it is and the move.
    fn next(&mut self) -> ((u64, &'static str), Move) {
        let side = self.pos.to_move().expect("the game goes on");
        let m = self.moves.remove(0);
        self.pos.play(m).unwrap();
        while self.pos.outcome().is_none() && self.pos.legal_moves().as_slice() == [Move::Pass] {
            self.pos.play(Move::Pass).unwrap();
        }
        (self.players[side.index()], m)
    }

    async fn play(&mut self, fake: &FakeDiscord, n: usize) {
        for _ in 0..n {
            let (who, m) = self.next();
            play_move(fake, who, self.channel, m).await;
        }
    }
}

/// The player's move in a game against the AI (the first legal one), then the AI's answer in
/// the thread: waits until the board after the AI's move is there.
async fn exchange(fake: &FakeDiscord, db: &Path, game: GameId, thread: u64, who: (u64, &str)) {
    let (ply, pos) = position(db, game);
    let m = pos.legal_moves()[0];
    play_move(fake, who, thread, m).await;
    let ai = fake
        .wait_for(T, |f| {
            (announcements(f, thread, game, ply + 2) > 0).then_some(())
        })
        .await;
    assert!(ai.is_some(), "the AI did not answer {m} in game {}", game.0);
}

/// One server: its shard's process, its channel, a game between two people and a game
/// against the AI.
struct Server {
    shard: u64,
    process: BotProcess,
    channel: u64,
    human: Human,
    game: GameId,
    ai: GameId,
    thread: u64,
    ai_player: (u64, &'static str),
}

impl Server {
    /// The worker name its process uses in its leases.
    fn worker_suffix(&self) -> String {
        format!(":shards-{0}-{0}", self.shard)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_on_one_database_survive_a_kill_mid_burst() {
    let _ = common::postgres_url();
    let dir = tempfile::tempdir().unwrap();
    let db: PathBuf = blocking(|| common::new_db(dir.path()));
    let fake = FakeDiscord::start_two_guilds(2).await;
    let guilds = [FakeDiscord::GUILD_ID, FakeDiscord::SECOND_GUILD_ID];
    let shards = guilds.map(|g| (g >> 22) % 2);
    assert_ne!(shards[0], shards[1], "one server on each shard");
    let channels = [FakeDiscord::CHANNEL_ID, FakeDiscord::SECOND_CHANNEL_ID];

    // Both processes start at once on the same, empty database.
    let processes = shards.map(|s| spawn(&fake.proxy_url(), &db, dir.path(), s));
    assert!(
        fake.wait_ready_count(2, T).await,
        "no READY: {}",
        logs(dir.path())
    );
    let identified: Vec<Value> = fake
        .identifies()
        .iter()
        .map(|d| d["shard"].clone())
        .collect();
    assert_eq!(identified.len(), 2, "{identified:?}");

    // A game between two people and a game against the AI on each server.
    let people = [[AOIFE, BRIAN], [CIARA, DARA]];
    let ai_players = [EIMEAR, FIONN];
    let mut servers = Vec::new();
    for (i, process) in processes.into_iter().enumerate() {
        let [a, b] = people[i];
        let game = human_game(&fake, &db, channels[i], a, b).await;
        let (ai, thread) = ai_game(&fake, &db, channels[i], ai_players[i]).await;
        assert_eq!(
            fake.channel(thread).unwrap()["guild_id"],
            json!(guilds[i].to_string()),
            "the thread is in its server"
        );
        servers.push(Server {
            shard: shards[i],
            process,
            channel: channels[i],
            human: Human::new(channels[i], people[i], 11 + i as u64),
            game,
            ai,
            thread,
            ai_player: ai_players[i],
        });
    }

    // A burst on both servers at once.
    {
        let [x, y] = &mut servers[..] else {
            unreachable!()
        };
        tokio::join!(
            x.human.play(&fake, 6),
            y.human.play(&fake, 6),
            exchange(&fake, &db, x.ai, x.thread, x.ai_player),
            exchange(&fake, &db, y.ai, y.thread, y.ai_player),
        );
    }

    // The first server's player moves against the AI, which starts thinking (2 s) in one of
    // the processes: that one is killed. First a move on its own server whose answer hangs on
    // its way to Discord; then SIGKILL while the other server's burst goes on. It dies owing
    // that answer and holding the AI's search.
    let (ai_ply, pos) = position(&db, servers[0].ai);
    play_move(&fake, EIMEAR, servers[0].thread, pos.legal_moves()[0]).await;
    let holder = claimed(&db, servers[0].ai).await;
    let victim = servers
        .iter()
        .position(|s| holder.ends_with(&s.worker_suffix()))
        .unwrap_or_else(|| panic!("{holder} is neither process"));
    fake.fail(Fault::new("POST", "/callback", 500, 0, "Internal Server Error").slow(T));
    let (who, hung) = servers[victim].human.next();
    let hung_id = fake
        .slash(
            who,
            servers[victim].channel,
            "move",
            json!([{"name": "move", "type": 3, "value": hung.to_string()}]),
        )
        .await;
    assert!(
        fake.wait_for(T, |f| (f.faults_left() == 0).then_some(()))
            .await
            .is_some(),
        "the answer to {hung} was never sent"
    );
    let hung_ply = servers[victim].human.pos.ply() as usize;
    {
        let (dead, alive) = if victim == 0 {
            let [d, a] = &mut servers[..] else {
                unreachable!()
            };
            (d, a)
        } else {
            let [a, d] = &mut servers[..] else {
                unreachable!()
            };
            (d, a)
        };
        // (The survivor's own game against the AI goes on too, unless it is the first
        // server's, whose AI move the dead process holds.)
        let alive_ai = victim == 0;
        let burst = async {
            alive.human.play(&fake, 6).await;
            if alive_ai {
                exchange(&fake, &db, alive.ai, alive.thread, alive.ai_player).await;
            }
        };
        let kill = async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            // SIGKILL: no shutdown, no cleanup.
            dead.process.0.kill().unwrap();
            dead.process.0.wait().unwrap();
        };
        tokio::join!(burst, kill);
    }
    assert!(
        fake.response(hung_id, Duration::ZERO).await.is_none(),
        "the killed process never answered {hung}"
    );
    // It died holding the AI's search, before the move was played.
    assert_eq!(
        position(&db, servers[0].ai).0,
        ai_ply + 1,
        "the AI moved before {holder} was killed: nothing was left to take over"
    );
    assert_eq!(
        ai_claimed_by(&db, servers[0].ai).as_deref(),
        Some(holder.as_str())
    );

    // The dead process's server has no gateway, yet its work is done by the survivor: the
    // hung answer is posted in the channel once its lease runs out, and the AI moves.
    let dead = &servers[victim];
    let (moves, _) = position(&db, dead.game);
    assert_eq!(moves, hung_ply, "the move whose answer hung is stored");
    let posted = fake
        .wait_for(T, |f| {
            (announcements(f, dead.channel, dead.game, hung_ply) > 0).then_some(())
        })
        .await;
    assert!(
        posted.is_some(),
        "the survivor did not post the dead process's owed answer: {}",
        logs(dir.path())
    );
    let ai = &servers[0];
    let ai_moved = fake
        .wait_for(T, |f| {
            (announcements(f, ai.thread, ai.ai, ai_ply + 2) > 0).then_some(())
        })
        .await;
    assert!(
        ai_moved.is_some(),
        "the AI's move was not played after {holder} was killed: {}",
        logs(dir.path())
    );

    // The dead process restarts (the same worker name) and its server's games go on.
    let readies = fake.identifies().len();
    servers[victim].process = spawn(&fake.proxy_url(), &db, dir.path(), servers[victim].shard);
    assert!(
        fake.wait_ready_count(readies + 1, T).await,
        "no READY after the restart: {}",
        logs(dir.path())
    );
    {
        let [x, y] = &mut servers[..] else {
            unreachable!()
        };
        let (dead, alive) = if victim == 0 { (x, y) } else { (y, x) };
        tokio::join!(
            dead.human.play(&fake, 4),
            alive.human.play(&fake, 2),
            exchange(&fake, &db, dead.ai, dead.thread, dead.ai_player),
        );
    }

    // Nothing lost, nothing doubled: every move of every game is stored and announced exactly
    // once, and nothing is owed any more.
    let owed = poll(|| (unsent(&db) == 0).then_some(())).await;
    assert!(owed.is_some(), "messages still owed: {}", logs(dir.path()));
    for s in &servers {
        for (game, channel, expected) in [
            (s.game, s.channel, Some(s.human.pos.ply() as usize)),
            (s.ai, s.thread, None),
        ] {
            let (plies, _) = position(&db, game);
            if let Some(n) = expected {
                assert_eq!(plies, n, "game {} lost or gained a move", game.0);
            }
            let posted = boards(&fake, channel, game);
            for ply in 1..=plies {
                assert_eq!(
                    posted.get(&ply).copied().unwrap_or(0),
                    1,
                    "game {}: the board after move {ply} was posted {:?} times ({posted:?})",
                    game.0,
                    posted.get(&ply)
                );
            }
            assert!(
                posted.keys().all(|p| *p <= plies),
                "game {}: a board of a move never stored: {posted:?}",
                game.0
            );
        }
    }
}

/// Two processes behind one shared REST proxy (as twilight's `http-proxy` or nirn-proxy would
/// be): every REST call of both goes through it, serenity's own rate limiter is off behind it
/// (the proxy alone spaces the calls), and every move is answered and announced exactly once
/// while the proxy holds both to one rate.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_share_one_rest_proxy() {
    const RATE: u32 = 10;
    let _ = common::postgres_url();
    let dir = tempfile::tempdir().unwrap();
    let db: PathBuf = blocking(|| common::new_db(dir.path()));
    let fake = FakeDiscord::start_two_guilds(2).await;
    let proxy = RestProxy::start(&fake.proxy_url(), RATE).await;
    let guilds = [FakeDiscord::GUILD_ID, FakeDiscord::SECOND_GUILD_ID];
    let _processes = guilds.map(|g| spawn(&proxy.url(), &db, dir.path(), (g >> 22) % 2));
    assert!(
        fake.wait_ready_count(2, T).await,
        "no READY: {}",
        logs(dir.path())
    );
    let (ch_a, ch_b) = (FakeDiscord::CHANNEL_ID, FakeDiscord::SECOND_CHANNEL_ID);
    let game_a = human_game(&fake, &db, ch_a, AOIFE, BRIAN).await;
    let game_b = human_game(&fake, &db, ch_b, CIARA, DARA).await;
    let mut human_a = Human::new(ch_a, [AOIFE, BRIAN], 21);
    let mut human_b = Human::new(ch_b, [CIARA, DARA], 22);
    // Both servers at once, each process answering its own.
    tokio::join!(human_a.play(&fake, 10), human_b.play(&fake, 10));
    let settled = poll(|| {
        let n = fake.requests().len();
        (unsent(&db) == 0 && n == proxy.forwarded()).then_some(n)
    })
    .await;
    let requests = settled.expect("every request forwarded and nothing owed");
    let all = fake.requests();
    assert!(
        all.iter().all(|r| r.proxied),
        "a request bypassed the proxy: {:?}",
        all.iter().find(|r| !r.proxied).map(|r| &r.path)
    );
    assert!(requests > 2 * 10, "{requests} requests");
    for (game, channel, human) in [(game_a, ch_a, &human_a), (game_b, ch_b, &human_b)] {
        let plies = human.pos.ply() as usize;
        assert_eq!(position(&db, game).0, plies);
        let posted = boards(&fake, channel, game);
        for ply in 1..=plies {
            assert_eq!(posted.get(&ply), Some(&1), "game {}: {posted:?}", game.0);
        }
    }
}

/// `/tournament sub` with these options, as a SUB_COMMAND option.
fn tournament_sub(name: &str, options: Value) -> Value {
    json!([{"name": name, "type": 1, "options": options}])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_start_events_at_once_within_one_shared_budget() {
    // The proxy holds both processes to 45 requests a second in all, under Discord's 50.
    const RATE: u32 = 45;
    let _ = common::postgres_url();
    let dir = tempfile::tempdir().unwrap();
    let db: PathBuf = blocking(|| common::new_db(dir.path()));
    let fake = FakeDiscord::start_two_guilds(2).await;
    let proxy = RestProxy::start(&fake.proxy_url(), RATE).await;
    let guilds = [FakeDiscord::GUILD_ID, FakeDiscord::SECOND_GUILD_ID];
    let _processes = guilds.map(|g| spawn(&proxy.url(), &db, dir.path(), (g >> 22) % 2));
    assert!(
        fake.wait_ready_count(2, T).await,
        "no READY: {}",
        logs(dir.path())
    );
    let channels = [FakeDiscord::CHANNEL_ID, FakeDiscord::SECOND_CHANNEL_ID];
    let moderator = fake_discord::Invoker::new(7, "mona").moderator();
    // A six-player round robin on each server: fifteen games, each in a thread of its own.
    // Every player shows as "player", so the threads of a round share their name, and each
    // pairing still gets a thread of its own.
    for (i, ch) in channels.into_iter().enumerate() {
        let create = json!([
            {"name": "name", "type": 3, "value": format!("Cup {i}")},
            {"name": "variant", "type": 3, "value": "ard-ri"},
            {"name": "system", "type": 3, "value": "round-robin"},
        ]);
        let id = fake
            .slash(
                moderator.clone(),
                ch,
                "tournament",
                tournament_sub("create", create),
            )
            .await;
        assert!(fake.response(id, T).await.is_some(), "{}", logs(dir.path()));
        for p in 0..6u64 {
            let who = (3_000_000_000_000_000_000 + 10 * i as u64 + p, "player");
            fake.add_user(who.0, &format!("player{i}{p}"));
            let id = fake
                .slash(who, ch, "tournament", tournament_sub("join", json!([])))
                .await;
            assert!(fake.response(id, T).await.is_some());
        }
    }
    let before = fake.requests().len();
    // Both started at the same moment, each by its own process.
    let starts = [
        fake.slash(
            moderator.clone(),
            channels[0],
            "tournament",
            tournament_sub("start", json!([])),
        )
        .await,
        fake.slash(
            moderator.clone(),
            channels[1],
            "tournament",
            tournament_sub("start", json!([])),
        )
        .await,
    ];
    for s in starts {
        let r = fake.response(s, T).await.expect("the start answered");
        let waited = r.at.duration_since(fake.injected_at(s).unwrap());
        assert!(
            waited < Duration::from_secs(3),
            "a start answered after {waited:?}"
        );
    }
    // Every game's thread opens and each server's start message links them all.
    let done = poll(|| {
        let posted = |ch: u64| {
            fake.channel_messages(ch)
                .iter()
                .any(|m| m["content"].as_str().unwrap_or("").contains("Your games:"))
        };
        (fake.threads().len() == 30 && posted(channels[0]) && posted(channels[1])).then_some(())
    })
    .await;
    assert!(
        done.is_some(),
        "{} threads: {}",
        fake.threads().len(),
        logs(dir.path())
    );
    // One thread a game. (A delivery that takes longer than the in-flight time, 2 s with
    // this lease, races the other process's retry for its last messages: the thread the loser
    // opens for a key already recorded is deleted at once.)
    let ours = |g: u64| {
        fake.threads()
            .iter()
            .filter(|t| t["guild_id"] == json!(g.to_string()))
            .count()
    };
    for g in guilds {
        assert_eq!(fake.active_threads(g), 15, "{}", logs(dir.path()));
        assert_eq!(ours(g), 15);
    }
    // Everything went through the shared proxy, within its budget: no second above 50, and
    // nothing Discord would count against the bot.
    let all = fake.requests();
    assert!(all.iter().all(|r| r.proxied));
    let busiest = fake.busiest_second();
    assert!(busiest <= 50, "{busiest} requests in one second");
    assert_eq!(fake.invalid_requests(), 0, "{:?}", fake.refusals());
    println!(
        "two processes, two 6-player starts: {} requests, busiest second {busiest}",
        all.len() - before
    );
}

/// Issue 45: SIGTERM stops `tara-bot run` on PostgreSQL cleanly: exit status 0 and no panic in
/// its log (the synchronous PostgreSQL client must not be closed inside the async runtime).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_stops_a_process_on_postgres_without_a_panic() {
    let _ = common::postgres_url();
    let dir = tempfile::tempdir().unwrap();
    let db: PathBuf = blocking(|| common::new_db(dir.path()));
    let fake = FakeDiscord::start_two_guilds(2).await;
    let shard = (FakeDiscord::GUILD_ID >> 22) % 2;
    let mut process = spawn(&fake.proxy_url(), &db, dir.path(), shard);
    assert!(
        fake.wait_ready_count(1, T).await,
        "no READY: {}",
        logs(dir.path())
    );
    // The store in use: a game played, one against the AI started.
    human_game(&fake, &db, FakeDiscord::CHANNEL_ID, AOIFE, BRIAN).await;
    ai_game(&fake, &db, FakeDiscord::CHANNEL_ID, EIMEAR).await;
    let pid = process.0.id().to_string();
    let sent = Proc::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(sent.success());
    let mut status = None;
    for _ in 0..300 {
        status = process.0.try_wait().unwrap();
        if status.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let log = logs(dir.path());
    assert_eq!(status.and_then(|s| s.code()), Some(0), "{log}");
    assert!(!log.contains("panicked"), "{log}");
    assert!(!log.contains("Cannot start a runtime"), "{log}");
}
