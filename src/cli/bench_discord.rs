//! `bench discord`: a 200-player league through the fake Discord with Discord's limits on
//! (issue 44's figures). The bot is this program's own `run`, a process of its own connected
//! to the fake as to Discord, on a fresh SQLite database; the players are the fake's
//! ([`crate::fake_discord::players`]).

use crate::fake_discord::players::{play_out, subcommand, told, told_where, Played};
use crate::fake_discord::{tara_bot_run, FakeDiscord, Invoker};
use crate::store::{LeagueId, Store};
use anyhow::{anyhow, Context};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

/// The league's channel.
const CHANNEL: u64 = FakeDiscord::CHANNEL_ID;
/// Threads other people keep open on the server (a busy server).
const OTHERS_THREADS: usize = 600;
/// How long the bot may take to connect.
const CONNECT_WITHIN: Duration = Duration::from_secs(30);
/// How long the flood's commands may wait for their answers.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);

/// The bot process, killed when dropped (also when the bench fails half-way).
struct Bot(Child);

impl Drop for Bot {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A temporary directory, removed when dropped.
struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `players` players join a league of two-game High Kings matches (divisions of 10, the
/// defaults) on a server that already holds 600 active threads, and the organiser starts it;
/// then division 1 is played to its end through Discord (a move by each player, then a
/// resignation confirmed with its button, in every game). Three lines: the start (the answer's
/// time, the time until every player has been told where their games are, and until every
/// game's start message is out), division 1's play (REST requests per move), and Discord's
/// limits as the fake saw them; then a fourth, [`flood`]'s.
pub fn league(players: u32) -> anyhow::Result<Vec<Value>> {
    let dir = Dir(std::env::temp_dir().join(format!("tara-bench-discord-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    std::fs::create_dir_all(&dir.0)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let mut lines = runtime.block_on(run(&dir.0, players))?;
    let flood_dir = dir.0.join("flood");
    std::fs::create_dir_all(&flood_dir)?;
    lines.push(runtime.block_on(flood(&flood_dir))?);
    Ok(lines)
}

/// One user floods the bot (rate limits on, as `TARA_BOT_RATE_LIMIT=on`) with 60 challenges
/// at once while another sends `/rules` one at a time: that user's median time from the
/// interaction to its answer, idle and during the flood (ten commands each), through the fake
/// Discord and a bot of its own on a fresh database.
async fn flood(dir: &Path) -> anyhow::Result<Value> {
    const ROUNDS: usize = 10;
    let fake = FakeDiscord::start().await;
    let _bot = spawn_bot(&fake, dir, &[("TARA_BOT_RATE_LIMIT", "on")])?;
    anyhow::ensure!(
        fake.wait_ready(CONNECT_WITHIN).await,
        "the bot did not connect"
    );
    // The readers are three people (warming up, idle, during the flood), each within their
    // own rate limit (ten commands in ten seconds).
    let flooder = Invoker::new(11, "aoife");
    let readers: Vec<Invoker> = ["brian", "cian", "dara"]
        .iter()
        .zip(12..)
        .map(|(name, id)| {
            fake.add_user(id, name);
            Invoker::new(id, name)
        })
        .collect();
    fake.add_user(11, "aoife");
    latency(&fake, &readers[0], ROUNDS).await?; // warm
    let idle = latency(&fake, &readers[1], ROUNDS).await?;
    let mut challenges = Vec::new();
    for i in 0..60u64 {
        let opponent = fake.user_option("opponent", (4_000_000_000_000_000_000 + i, "p"));
        challenges.push(
            fake.slash(
                &flooder,
                CHANNEL,
                "challenge",
                json!([opponent, {"name": "variant", "type": 3, "value": "ard-ri"},
                       {"name": "thread", "type": 5, "value": false}]),
            )
            .await,
        );
    }
    let during = latency(&fake, &readers[2], ROUNDS).await?;
    let mut refused = 0;
    for id in challenges {
        let r = fake
            .response(id, ANSWER_WITHIN)
            .await
            .ok_or_else(|| anyhow!("a challenge was not answered"))?;
        refused += usize::from(r.ephemeral());
    }
    let round = |ms: f64| (ms * 10.0).round() / 10.0;
    Ok(json!({
        "bench": "discord flood",
        "challenges": 60,
        "refused": refused,
        "idle_p50_ms": round(idle),
        "flood_p50_ms": round(during),
        "ratio": (during / idle * 100.0).round() / 100.0,
    }))
}

async fn run(dir: &Path, n: u32) -> anyhow::Result<Vec<Value>> {
    let fake = FakeDiscord::start().await;
    fake.add_threads(FakeDiscord::OTHER_CHANNEL_ID, OTHERS_THREADS);
    let _bot = spawn_bot(&fake, dir, &[])?;
    let log = || {
        let text = std::fs::read_to_string(dir.join("bot.log")).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(20).collect();
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    };
    anyhow::ensure!(
        fake.wait_ready(CONNECT_WITHIN).await,
        "the bot did not connect: {}",
        log()
    );
    let players: Vec<(u64, String)> = (0..u64::from(n))
        .map(|i| (3_000_000_000_000_000_000 + i, format!("p{i:03}")))
        .collect();
    let start = start_league(&fake, &players).await?;
    let db = dir.join("tara.db");
    // One connection, read again at each change (opening the file checks all of it).
    let mut reader = Store::open_to_read(&db)?;
    let all_out = fake
        .wait_for(Duration::from_secs(600), |_| {
            let owed = reader.read(|tx| tx.unsent_count());
            matches!(owed, Ok(0)).then(|| start.injected.elapsed())
        })
        .await
        .with_context(|| format!("messages still owed after 10 minutes: {}", log()))?;
    let divisions = {
        let mut s = Store::open_to_read(&db)?;
        s.read(|tx| tx.league_divisions(LeagueId(1), Some(1)))?
    };
    let division = divisions
        .first()
        .ok_or_else(|| anyhow!("the league has no division"))?
        .tournament_id;
    let from = fake.request_count();
    let at = Instant::now();
    let played = play_out(&fake, &db, division, &players)
        .await
        .with_context(log)?;
    let took = at.elapsed();
    let requests = fake.request_count() - from;
    Ok(vec![
        json!({
            "bench": "discord league start",
            "players": n,
            "divisions": divisions.len(),
            "threads_before": OTHERS_THREADS,
            "answered_s": secs(start.answered),
            "everyone_told_s": secs(start.told),
            "requests": start.requests,
            "every_start_message_out_s": secs(all_out),
        }),
        play_line(played, requests, took),
        json!({
            "bench": "discord limits",
            "busiest_second": fake.busiest_second(),
            "peak_active_threads": fake.peak_active_threads(FakeDiscord::GUILD_ID),
            "invalid_requests": fake.invalid_requests(),
            "max_active_threads_refusals": fake.refusals().iter().filter(|r| r.code == 160_006).count(),
        }),
    ])
}

/// The median time in milliseconds from `/rules` by `reader` to its answer, over `rounds`
/// commands sent one at a time; an error if one is refused.
async fn latency(fake: &FakeDiscord, reader: &Invoker, rounds: usize) -> anyhow::Result<f64> {
    let mut ms = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let id = fake.slash(reader, CHANNEL, "rules", json!([])).await;
        let at = fake
            .injected_at(id)
            .ok_or_else(|| anyhow!("/rules was not injected"))?;
        let r = fake
            .response(id, ANSWER_WITHIN)
            .await
            .ok_or_else(|| anyhow!("/rules was not answered"))?;
        let text = r.content().unwrap_or_default();
        anyhow::ensure!(
            text.starts_with("**High Kings of Tara (hkot-1)**"),
            "/rules refused: {text}"
        );
        ms.push(r.at.duration_since(at).as_secs_f64() * 1000.0);
    }
    ms.sort_by(f64::total_cmp);
    Ok(ms[ms.len() / 2])
}

/// Seconds, to the hundredth.
fn secs(d: Duration) -> f64 {
    (d.as_secs_f64() * 100.0).round() / 100.0
}

/// What the league's start took.
struct Start {
    /// When `/league start` was sent.
    injected: Instant,
    /// Until its answer.
    answered: Duration,
    /// Until every player was told where their games are.
    told: Duration,
    /// REST requests until then.
    requests: usize,
}

/// The league created by the organiser, joined by `players`, and started; then waits until
/// every player has been told where their games are (their line in their division's message).
async fn start_league(fake: &FakeDiscord, players: &[(u64, String)]) -> anyhow::Result<Start> {
    let moderator = Invoker::new(7, "mona").moderator();
    let league = |who: Invoker, name: &'static str, options: Value| async move {
        let (id, answer) = subcommand(fake, who, CHANNEL, ("league", name), options).await?;
        anyhow::ensure!(
            !answer.ephemeral(),
            "/league {name} refused: {:?}",
            answer.content()
        );
        Ok::<_, anyhow::Error>((id, answer))
    };
    league(
        moderator.clone(),
        "create",
        json!([
            {"name": "name", "type": 3, "value": "Mór"},
            {"name": "variant", "type": 3, "value": "hkot-2"},
            {"name": "days", "type": 3, "value": "1"},
        ]),
    )
    .await?;
    for (id, name) in players {
        fake.add_user(*id, name);
        league(Invoker::new(*id, name), "join", json!([])).await?;
    }
    let before = fake.request_count();
    let (start, answer) = league(moderator, "start", json!([])).await?;
    let injected = fake
        .injected_at(start)
        .ok_or_else(|| anyhow!("the start was not injected"))?;
    let told = fake
        .wait_for(Duration::from_secs(300), |f| {
            told_where(f, CHANNEL, players, 0, told).map(|_| injected.elapsed())
        })
        .await
        .context("not every player was told within 5 minutes")?;
    Ok(Start {
        injected,
        answered: answer.at.duration_since(injected),
        told,
        requests: fake.request_count() - before,
    })
}

/// The line of division 1's play: `requests` REST requests in `took` for what was `played`.
fn play_line(played: Played, requests: usize, took: Duration) -> Value {
    let Played {
        games,
        moves,
        refused,
        ..
    } = played;
    // A resignation takes three requests of its own (its question, the button's answer, the
    // result); a refused move one.
    let per_move = (requests - 3 * games - refused) as f64 / moves.max(1) as f64;
    let all = requests as f64 / moves.max(1) as f64;
    json!({
        "bench": "discord league play",
        "division": 1,
        "games": games,
        "moves": moves,
        "refused": refused,
        "requests": requests,
        "requests_per_move": (per_move * 100.0).round() / 100.0,
        "requests_per_move_with_resignations": (all * 100.0).round() / 100.0,
        "seconds": secs(took),
    })
}

/// `tara-bot run` (this program) connected to `fake`, on a database in `dir`, its log in
/// `dir/bot.log`, with the environment variables `env` besides.
fn spawn_bot(fake: &FakeDiscord, dir: &Path, env: &[(&str, &str)]) -> anyhow::Result<Bot> {
    let log = std::fs::File::create(dir.join("bot.log"))?;
    let child = tara_bot_run(&std::env::current_exe()?, &fake.proxy_url(), dir)
        .env("TARA_BOT_DB", dir.join("tara.db"))
        .env("RUST_LOG", "warn")
        .envs(env.iter().copied())
        .stderr(log)
        .spawn()
        .context("start tara-bot run")?;
    Ok(Bot(child))
}
