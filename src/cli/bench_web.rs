//! `bench web`: the web companion (`tara-bot web`) on a store of 100,000 games, in this
//! process over loopback: a game page's and a 64-player tournament page's latency, and 1,000
//! live pages of one game (the memory they take, and how long a move takes to reach them all).

use crate::bot::{Bot, Command, Ctx, ManualClock, User};
use crate::game::Position;
use crate::ids::{ChannelId, GameId, ServerId, TournamentId, UserId};
use crate::store::{ServerSetting, Store};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The games in the store besides the tournament's.
const GAMES: usize = 100_000;
/// The tournament's players (a round robin: 2,016 games).
const PLAYERS: u32 = 64;
/// Moves played in the game whose page is measured.
const MOVES: usize = 40;
/// Live pages held open at once.
const LIVE_PAGES: usize = 1_000;

/// The resident memory of this process, in KiB (Linux; 0 elsewhere).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn ctx(user: &str, channel: &str) -> Ctx {
    Ctx {
        server: ServerId::new("bench"),
        channel: ChannelId::new(channel),
        user: User::new(user, user),
        moderator: user == "mod",
        manager: user == "mod",
        roles: Vec::new(),
    }
}

/// The store: [`GAMES`] rated games, a round robin of [`PLAYERS`] started, [`MOVES`] moves
/// played in its first game, the server on the web. The bot, and the game with moves.
fn seeded(db: &std::path::Path, clock: Arc<ManualClock>) -> anyhow::Result<(Bot, GameId)> {
    let mut store = Store::open(db)?;
    super::bench::seed_rated_games(&mut store, GAMES, 500, clock_now(&clock))?;
    store.write(|tx| tx.set_server_setting(&ServerId::new("bench"), ServerSetting::WEB, "on"))?;
    let bot = Bot::new(store, clock, 1).with_images(false);
    super::bench::round_robin_joined(&bot, &ctx, PLAYERS)?;
    let r = bot.handle(&ctx("mod", "t"), Command::TournamentStart { id: None });
    anyhow::ensure!(!r.iter().any(|r| r.ephemeral), "start");
    let mut store = Store::open_to_read(db)?;
    let game = store
        .read(|tx| tx.pairings(TournamentId(1), Some(1)))?
        .first()
        .and_then(|p| p.game_id)
        .ok_or_else(|| anyhow::anyhow!("the tournament has no game"))?;
    for _ in 0..MOVES {
        if !play_one(&bot, &mut store, game)? {
            break;
        }
    }
    Ok((bot, game))
}

fn clock_now(clock: &ManualClock) -> i64 {
    use crate::bot::Clock;
    clock.now_ms()
}

/// Plays the first legal move of `game` as the player on move; false when it has ended.
fn play_one(bot: &Bot, store: &mut Store, game: GameId) -> anyhow::Result<bool> {
    let (row, moves) = store.read(|tx| -> Result<_, crate::store::StoreError> {
        Ok((tx.game(game)?, tx.moves(game)?))
    })?;
    let row = row.ok_or_else(|| anyhow::anyhow!("no game {game}"))?;
    let mut pos = Position::new(row.options);
    for m in &moves {
        pos.play_text(&m.notation)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let Some(side) = pos.to_move() else {
        return Ok(false);
    };
    let mover: &UserId = &row.seats[side];
    let mv = pos.legal_moves()[0].to_string();
    let r = bot.handle(
        &ctx(mover.as_str(), row.channel_id.as_str()),
        Command::Move {
            text: mv,
            game: Some(game),
        },
    );
    anyhow::ensure!(!r.iter().any(|r| r.ephemeral), "the move was refused");
    Ok(true)
}

/// p50, p99 and max of `times` (sorted here), in milliseconds.
fn percentiles(times: &mut [Duration]) -> (f64, f64, f64) {
    times.sort();
    let at = |q: f64| {
        let i = ((times.len() as f64 * q).ceil() as usize).clamp(1, times.len()) - 1;
        (times[i].as_secs_f64() * 1000.0 * 100.0).round() / 100.0
    };
    (at(0.5), at(0.99), at(1.0))
}

/// Requests `url` again and again for `seconds` (at least 100 times), one at a time.
async fn latency(
    client: &reqwest::Client,
    url: &str,
    seconds: f64,
) -> anyhow::Result<Vec<Duration>> {
    let mut times = Vec::new();
    let end = Instant::now() + Duration::from_secs_f64(seconds);
    while Instant::now() < end || times.len() < 100 {
        let t = Instant::now();
        let r = client.get(url).send().await?;
        anyhow::ensure!(r.status().is_success(), "{url}: {}", r.status());
        r.bytes().await?;
        times.push(t.elapsed());
    }
    Ok(times)
}

/// `bench web`.
pub fn web(seconds: f64) -> anyhow::Result<Vec<serde_json::Value>> {
    let dir = std::env::temp_dir().join(format!("tara-bench-web-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let db = dir.join("web.db");
    let _ = std::fs::remove_file(&db);
    let clock = Arc::new(ManualClock::new(1_795_996_800_000));
    let t = Instant::now();
    let (bot, game) = seeded(&db, clock.clone())?;
    let seed_s = t.elapsed().as_secs_f64();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let out = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let site = format!("http://{}", listener.local_addr()?);
        // The server's own time is measured: no rate limit.
        let options = crate::web::Options {
            rate_limit: 0,
            ..crate::web::Options::new(clock.clone())
        };
        tokio::spawn(crate::web::serve(listener, db.clone(), options));
        let client = reqwest::Client::new();
        let mut out = Vec::new();
        for (page, path) in [
            ("game", format!("/g/{}", game.0)),
            ("tournament-64", "/t/1".to_string()),
        ] {
            let url = format!("{site}{path}");
            latency(&client, &url, 0.5).await?;
            let mut times = latency(&client, &url, seconds).await?;
            let (p50, p99, max) = percentiles(&mut times);
            out.push(json!({
                "bench": "web", "page": page, "games_in_store": GAMES + 2016,
                "requests": times.len(), "p50_ms": p50, "p99_ms": p99, "max_ms": max,
            }));
        }
        // 1,000 live pages of one game, each its own connection.
        let before = rss_kib();
        let events = format!("{site}/g/{}/events", game.0);
        let (opened_tx, mut opened) = tokio::sync::mpsc::channel::<()>(LIVE_PAGES);
        let mut pages = Vec::with_capacity(LIVE_PAGES);
        for _ in 0..LIVE_PAGES {
            let client = client.clone();
            let url = events.clone();
            let opened = opened_tx.clone();
            pages.push(tokio::spawn(async move {
                let mut r = client.get(url).send().await?;
                anyhow::ensure!(r.status().is_success(), "{}", r.status());
                opened.send(()).await.ok();
                let mut heard = String::new();
                while !heard.contains("event: changed") {
                    let Some(chunk) = r.chunk().await? else {
                        anyhow::bail!("the stream ended");
                    };
                    heard.push_str(&String::from_utf8_lossy(&chunk));
                }
                Ok(Instant::now())
            }));
        }
        drop(opened_tx);
        let mut open = 0;
        while open < LIVE_PAGES {
            match tokio::time::timeout(Duration::from_secs(60), opened.recv()).await {
                Ok(Some(())) => open += 1,
                _ => anyhow::bail!("only {open} of {LIVE_PAGES} live pages opened"),
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        let held = rss_kib();
        let mut store = Store::open_to_read(&db)?;
        let moved = Instant::now();
        let bot_store = tokio::task::block_in_place(|| play_one(&bot, &mut store, game))?;
        anyhow::ensure!(bot_store, "the game had ended");
        let mut last = Duration::ZERO;
        for p in pages {
            let heard = p.await??;
            last = last.max(heard.duration_since(moved));
        }
        out.push(json!({
            "bench": "web", "live_pages": LIVE_PAGES,
            "rss_before_kib": before, "rss_held_kib": held,
            "kib_per_page": ((held.saturating_sub(before)) as f64 / LIVE_PAGES as f64 * 10.0).round() / 10.0,
            "move_to_all_pages_ms": (last.as_secs_f64() * 1000.0).round(),
        }));
        anyhow::Ok(out)
    })?;
    runtime.shutdown_timeout(Duration::from_secs(2));
    drop(bot);
    let _ = std::fs::remove_dir_all(&dir);
    let mut lines = vec![json!({"bench": "web", "seeded_s": (seed_s * 10.0).round() / 10.0})];
    lines.extend(out);
    Ok(lines)
}
