//! `bench processes --db postgres://…`: several bot processes on one PostgreSQL database. Each
//! process is this program started again (`bench process-moves` / `bench process-ai`, hidden),
//! so the processes share nothing but the database, as a deployment's do:
//!
//! - **moves**: each process plays games between people through the bot core, as fast as it can
//!   (`drive`, the loop of `bench service`, without pictures: they are drawn by the process that
//!   delivers, outside the database); the total moves/s of 1 and of 2 processes;
//! - **AI moves**: games in which the AI plays both seats at level 3 (so that there is always an
//!   AI move to search), searched by every process through the same claims as `tara-bot run`
//!   (a lease per game and ply): the same work for 1 and for 2 processes, the first
//!   6 moves of 100 new games (the cost of a search changes as a game goes
//!   on, so a fixed time would compare different work); the AI moves/s of 1 and of 2.
//!
//! One JSON line per measurement.

use super::bench::{drive, seed_games, BenchSchema};
use crate::game::{BySide, GameOptions, Variant};
use crate::ids::ServerId;
use crate::store::{GameId, NewGame, UserId, AI_USER_ID};
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Games stored before the moves are measured.
const STORED: usize = 1_000;
/// Games of the AI against itself searched by each AI measurement (new ones for each, so that
/// each starts from the opening; enough that none ends within the measurement).
const AI_GAMES: usize = 100;
/// The moves of each game the AI measurement plays.
const AI_PLIES: u32 = 6;
/// The AI's level in them (a playout budget: the same work a move whatever the machine).
const AI_LEVEL: u8 = 3;
/// The environment variable naming a child process (its players and channels).
const WORKER: &str = "TARA_BOT_BENCH_WORKER";

/// `bench processes`: the lines of the measurements on a schema of its own in `url`.
pub fn processes(url: &str, seconds: f64) -> anyhow::Result<Vec<Value>> {
    let schema = BenchSchema::new(url, "bench processes")?;
    let measured = measure(&schema.db, seconds);
    schema.drop()?;
    measured
}

fn measure(db: &Path, seconds: f64) -> anyhow::Result<Vec<Value>> {
    let mut store = crate::store::Store::open(db)?;
    seed_games(&mut store, STORED, 0)?;
    let mut out = Vec::new();
    let mut ai_games = Vec::new();
    for (work, unit) in [("moves", "moves"), ("ai", "ai_moves")] {
        for n in [1, 2] {
            if work == "ai" {
                ai_games = seed_ai_games(&mut store, &ai_games)?;
            }
            // The AI's work is fixed: at most this long to do it.
            let limit = if work == "ai" { 600.0 } else { seconds };
            let children = run_children(db, work, n, limit)?;
            let total: u64 = children.iter().map(|c| c[unit].as_u64().unwrap_or(0)).sum();
            if work == "ai" {
                let all = (AI_GAMES as u64) * u64::from(AI_PLIES);
                anyhow::ensure!(total == all, "{total} AI moves were played, not {all}");
            }
            let secs = children
                .iter()
                .map(|c| c["seconds"].as_f64().unwrap_or(limit))
                .fold(0.0, f64::max);
            let mut line = json!({
                "bench": "processes",
                "backend": "postgres",
                "work": work,
                "processes": n,
            });
            line[unit] = json!(total);
            line[format!("{unit}_per_s")] = json!((total as f64 / secs * 10.0).round() / 10.0);
            if work == "moves" {
                // The slowest process's percentiles.
                for key in ["p50_ms", "p99_ms"] {
                    let worst = children
                        .iter()
                        .map(|c| c[key].as_f64().unwrap_or(0.0))
                        .fold(0.0, f64::max);
                    line[key] = json!(worst);
                }
            }
            out.push(line);
        }
    }
    Ok(out)
}

/// Stores [`AI_GAMES`] games of the AI against itself (level [`AI_LEVEL`], hkot-1), unstarted,
/// after aborting the games `old` (an earlier measurement's); their ids.
fn seed_ai_games(store: &mut crate::store::Store, old: &[GameId]) -> anyhow::Result<Vec<GameId>> {
    let ids = store.write(|tx| -> Result<_, crate::store::StoreError> {
        for id in old {
            tx.abort_game(*id, 0)?;
        }
        let ai = UserId::new(AI_USER_ID);
        tx.upsert_user(&ai, "Tara-bot AI", 0)?;
        let mut ids = Vec::new();
        for i in 0..AI_GAMES {
            let id = tx.insert_game(
                &NewGame {
                    server_id: &ServerId::new("bench"),
                    channel_id: &crate::ids::ChannelId::new(format!("ai-{}-{i}", old.len())),
                    options: GameOptions::new(Variant::Hkot1),
                    seats: BySide::new(&ai, &ai),
                    match_id: None,
                    match_game: None,
                    pairing_id: None,
                    rated: false,
                    ai_levels: BySide::new(Some(AI_LEVEL), Some(AI_LEVEL)),
                    days_per_move: None,
                },
                0,
            )?;
            ids.push(id);
        }
        Ok(ids)
    })?;
    Ok(ids)
}

/// Starts `n` processes doing `work` on `db` for `seconds` at once; the JSON line each printed.
fn run_children(db: &Path, work: &str, n: usize, seconds: f64) -> anyhow::Result<Vec<Value>> {
    let exe = std::env::current_exe()?;
    let target = format!("process-{work}");
    let children = (0..n)
        .map(|i| {
            Command::new(&exe)
                .args(["bench", &target, "--seconds", &seconds.to_string(), "--db"])
                .arg(db)
                .env(WORKER, format!("p{n}-{i}"))
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
        })
        .collect::<Result<Vec<_>, _>>()?;
    // Every process is waited for, even when one fails, so none outlives the schema.
    let outputs: Vec<_> = children.into_iter().map(|c| c.wait_with_output()).collect();
    let mut lines = Vec::new();
    for output in outputs {
        let output = output?;
        anyhow::ensure!(
            output.status.success(),
            "a benchmark process failed ({})",
            output.status
        );
        let text = String::from_utf8_lossy(&output.stdout);
        let line = text.lines().last().unwrap_or_default();
        lines.push(serde_json::from_str(line)?);
    }
    Ok(lines)
}

/// The child of the moves measurement: plays moves for `seconds`; one JSON line with how many
/// and their percentiles.
pub fn process_moves(db: &Path, seconds: f64) -> anyhow::Result<Value> {
    use crate::bot::{Bot, SystemClock};
    let tag = std::env::var(WORKER).unwrap_or_else(|_| "p".into());
    let store = crate::store::Store::open(db)?;
    let bot = Bot::new(store, std::sync::Arc::new(SystemClock), 1)
        .with_images(false)
        .with_worker(tag.clone());
    let t = Instant::now();
    let (mut lat, refused) = drive(&bot, seconds, &tag);
    let secs = t.elapsed().as_secs_f64();
    anyhow::ensure!(refused == 0, "{refused} benchmark moves were refused");
    anyhow::ensure!(!lat.is_empty(), "no move was played");
    lat.sort_by(f64::total_cmp);
    let pct = |p: f64| {
        let v = lat[((lat.len() as f64 - 1.0) * p).round() as usize];
        (v * 1000.0).round() / 1000.0
    };
    Ok(json!({
        "moves": lat.len(),
        "seconds": secs,
        "p50_ms": pct(0.5),
        "p99_ms": pct(0.99),
    }))
}

/// The child of the AI measurement: searches and plays the AI's moves until every game has
/// [`AI_PLIES`] moves (or `seconds` have passed), claiming each as `tara-bot run` does (another
/// process may hold it); one JSON line with how many it played and how long it took.
pub fn process_ai(db: &Path, seconds: f64) -> anyhow::Result<Value> {
    use crate::ai_runner::find_move;
    use crate::bot::{Bot, SystemClock};
    // The level's playout budget ends each search long before this.
    const MS: u64 = 10_000;
    let tag = std::env::var(WORKER).unwrap_or_else(|_| "p".into());
    let store = crate::store::Store::open(db)?;
    let bot = Bot::new(store, std::sync::Arc::new(SystemClock), 1)
        .with_images(false)
        .with_worker(tag);
    let t = Instant::now();
    let mut played = 0u64;
    'outer: while t.elapsed().as_secs_f64() < seconds {
        let turns: Vec<_> = bot
            .ai_turns()
            .into_iter()
            .filter(|t| t.ply < AI_PLIES)
            .collect();
        if turns.is_empty() {
            break;
        }
        let mut claimed = false;
        for turn in turns {
            if t.elapsed().as_secs_f64() >= seconds {
                break 'outer;
            }
            if !bot.claim_ai_turn(turn.game, turn.ply, MS) {
                continue;
            }
            claimed = true;
            let replies = bot.apply_ai_move(turn.game, turn.ply, find_move(&turn, MS));
            bot.release_ai_turn(turn.game);
            if !replies.is_empty() {
                played += 1;
            }
        }
        if !claimed {
            // The other process holds every turn left: wait for it rather than spin.
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
    Ok(json!({
        "ai_moves": played,
        "seconds": t.elapsed().as_secs_f64(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The AI measurement's games have an AI move to search at every ply, and a process plays
    /// them (on SQLite here; `bench processes` runs it on PostgreSQL).
    #[test]
    fn a_process_plays_the_ais_moves_of_the_seeded_games() {
        let dir = std::env::temp_dir().join(format!("tara-bench-proc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("ai.db");
        let _ = std::fs::remove_file(&db);
        let mut store = crate::store::Store::open(&db).unwrap();
        let first = seed_ai_games(&mut store, &[]).unwrap();
        let second = seed_ai_games(&mut store, &first).unwrap();
        drop(store);
        let line = process_ai(&db, 0.3).unwrap();
        assert!(line["ai_moves"].as_u64().unwrap() > 0, "{line}");
        // Only the second batch is played: the first was aborted.
        let mut store = crate::store::Store::open(&db).unwrap();
        let (a, b) = store
            .read(|tx| -> Result<_, crate::store::StoreError> {
                Ok((tx.move_count(first[0])?, tx.move_count(second[0])?))
            })
            .unwrap();
        assert_eq!((a, b > 0), (0, true));
        std::fs::remove_dir_all(&dir).ok();
    }
}
