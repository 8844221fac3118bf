//! `tara-bot bench engine`: random complete games on one thread, per variant.

use crate::game::playout::{random_playout, Rng};
use crate::game::{BySide, GameOptions, MoveList, Position, Scoring, Variant};
use crate::ids::{ChannelId, ServerId};
use crate::store::UserId;
use serde_json::json;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The engine benchmark configurations: every variant, plus knots scoring where allowed.
pub fn engine_configs() -> Vec<GameOptions> {
    let mut v = Vec::new();
    for variant in Variant::ALL {
        v.push(GameOptions::new(variant));
        if variant.allows_knots() {
            let mut o = GameOptions::new(variant);
            o.scoring = Scoring::Knots;
            v.push(o);
        }
    }
    v
}

/// Plays random games of one configuration for about `seconds`; returns the JSON line.
pub fn engine_one(options: GameOptions, seconds: f64, seed: u64) -> serde_json::Value {
    let mut rng = Rng::new(seed);
    let start_pos = Position::new(options);
    let mut list = MoveList::new();
    let budget = Duration::from_secs_f64(seconds);
    let t0 = Instant::now();
    let (mut games, mut plies) = (0u64, 0u64);
    // Positions met along the way, to time move generation alone afterwards.
    let mut samples: Vec<Position> = Vec::new();
    loop {
        for _ in 0..64 {
            let mut pos = start_pos.clone();
            plies += u64::from(random_playout(&mut pos, &mut rng, &mut list));
            games += 1;
            black_box(pos.outcome());
        }
        if samples.len() < 2000 {
            let mut pos = start_pos.clone();
            while pos.outcome().is_none() {
                samples.push(pos.clone());
                let moves = pos.legal_moves();
                pos.play_unchecked(moves[rng.below(moves.len())]);
            }
        }
        if t0.elapsed() >= budget {
            break;
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    // Move generation alone, averaged over the sampled positions.
    let rounds = 200;
    let t1 = Instant::now();
    let mut total = 0usize;
    for _ in 0..rounds {
        for p in &samples {
            total += black_box(p).legal_moves().len();
        }
    }
    black_box(total);
    let movegen_ns = t1.elapsed().as_secs_f64() * 1e9 / (rounds * samples.len()) as f64;
    let mut line = json!({
        "bench": "engine",
        "variant": options.variant.id(),
        "games_per_s": (games as f64 / secs).round(),
        "plies_per_s": (plies as f64 / secs).round(),
        "plies_per_game": ((plies as f64 / games as f64) * 10.0).round() / 10.0,
        "movegen_ns": (movegen_ns * 10.0).round() / 10.0,
    });
    if options.variant.is_tara() {
        line["scoring"] = json!(options.scoring.id());
    }
    line
}

/// Times board PNGs of the positions of a random game (median and maximum ms and bytes), and
/// the replay GIF of the whole game (ms and bytes per frame), for one variant; `replay_ratio`
/// is the replay's ms per frame over the median board's ms, both measured in this run. The
/// bytes per frame are over the replays of [`REPLAY_GAMES`] games, with the most a game took.
pub fn render_one(variant: Variant, seconds: f64) -> serde_json::Value {
    use crate::game::playout::random_game;
    use crate::render::{board_png, replay_gif, warm_up, Frame};
    warm_up();
    let options = GameOptions::new(variant);
    let mut rng = Rng::new(0xb0a4d);
    let (_, moves) = random_game(options, &mut rng);
    // Positions along the game: start, middle and end, cycled.
    let mut positions = Vec::new();
    let mut pos = Position::new(options);
    positions.push((pos.clone(), None));
    for m in &moves {
        pos.play_unchecked(*m);
        positions.push((pos.clone(), Some(*m)));
    }
    let names = ["Aoife".to_string(), "Brian".to_string()];
    let scripts = [SCRIPT_NAMES[0].to_string(), SCRIPT_NAMES[1].to_string()];
    let budget = Duration::from_secs_f64(seconds / 2.0);
    let t0 = Instant::now();
    let mut times = Vec::new();
    let mut bytes = Vec::new();
    let mut i = 0;
    while t0.elapsed() < budget || times.len() < 20 {
        let (p, last) = &positions[(i * 7) % positions.len()];
        let t = Instant::now();
        let png = board_png(p, &Frame::new(names.clone(), *last));
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        bytes.push(png.len());
        i += 1;
    }
    times.sort_by(f64::total_cmp);
    bytes.sort_unstable();
    // Replays of the whole game, the median of as many as fit the other half of the time.
    let frames = moves.len() + 1;
    let t1 = Instant::now();
    let mut replay_times = Vec::new();
    let mut gif_bytes = 0;
    while t1.elapsed() < budget || replay_times.len() < 3 {
        let t = Instant::now();
        let gif = replay_gif(options, &moves, &names);
        replay_times.push(t.elapsed().as_secs_f64() * 1000.0);
        gif_bytes = gif.len();
    }
    replay_times.sort_by(f64::total_cmp);
    let (bytes_per_frame, worst) = replay_sizes(options, &rng, gif_bytes, frames, &names);
    // The board with names in other scripts, as many times as the Latin ones above.
    let mut script_times: Vec<f64> = positions
        .iter()
        .cycle()
        .step_by(7)
        .take(times.len())
        .map(|(p, last)| {
            let t = Instant::now();
            black_box(board_png(p, &Frame::new(scripts.clone(), *last)));
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    script_times.sort_by(f64::total_cmp);
    let png_ms = times[times.len() / 2];
    let frame_ms = replay_times[replay_times.len() / 2] / frames as f64;
    let round = |x: f64, places: i32| (x * 10f64.powi(places)).round() / 10f64.powi(places);
    json!({
        "bench": "render",
        "variant": variant.id(),
        "png_ms_median": round(png_ms, 3),
        "png_ms_max": round(times[times.len() - 1], 3),
        "png_bytes": bytes[bytes.len() / 2],
        "png_bytes_max": bytes[bytes.len() - 1],
        "replay_frames": frames,
        "replay_ms_per_frame": round(frame_ms, 3),
        "replay_games": REPLAY_GAMES,
        "replay_bytes_per_frame": bytes_per_frame.round(),
        "replay_bytes_per_frame_max": worst.round(),
        "replay_ratio": round(frame_ms / png_ms, 3),
        "png_ms_median_scripts": round(script_times[script_times.len() / 2], 3),
    })
}

/// How many random games of a variant `bench render` replays for the bytes per frame (the
/// first one is also timed).
const REPLAY_GAMES: usize = 8;

/// Bytes per frame of the replays of [`REPLAY_GAMES`] games, the first one's (timed) given
/// (`gif_bytes` for `frames` frames) and the others played on from `rng`: over all their
/// frames, and of the game with the most.
fn replay_sizes(
    options: GameOptions,
    rng: &Rng,
    gif_bytes: usize,
    frames: usize,
    names: &[String; 2],
) -> (f64, f64) {
    use crate::game::playout::random_game;
    let mut rng = rng.clone();
    let (mut bytes, mut all) = (gif_bytes, frames);
    let mut worst = gif_bytes as f64 / frames as f64;
    for _ in 1..REPLAY_GAMES {
        let (_, moves) = random_game(options, &mut rng);
        let gif = crate::render::replay_gif(options, &moves, names);
        bytes += gif.len();
        all += moves.len() + 1;
        worst = worst.max(gif.len() as f64 / (moves.len() + 1) as f64);
    }
    (bytes as f64 / all as f64, worst)
}

/// Names in other scripts for the benchmarks: Arabic with an emoji, Chinese and Devanagari,
/// Hebrew, Japanese and Korean.
const SCRIPT_NAMES: [&str; 4] = ["محمد الأول 🐉", "张伟 अर्जुन", "דוד כהן", "さくら 김민준"];

/// A rating history for the benchmarks: `n` rated games, one a day, ending now-ish.
fn bench_history(n: usize, rng: &mut Rng) -> Vec<crate::render::RatingPoint> {
    let (mut rating, mut rd) = (1500.0f64, 350.0f64);
    (0..n)
        .map(|i| {
            rating += (rng.below(200) as f64 - 95.0) * rd / 300.0;
            rd = (rd * 0.95).max(50.0);
            crate::render::RatingPoint {
                at_ms: 1_795_996_800_000 - (n - 1 - i) as i64 * 86_400_000,
                rating,
                rd,
            }
        })
        .collect()
}

/// Times `draw` for about `seconds` (at least 20 times); the JSON line of the rating
/// picture `name`.
fn time_picture(name: &str, seconds: f64, mut draw: impl FnMut() -> Vec<u8>) -> serde_json::Value {
    let budget = Duration::from_secs_f64(seconds);
    let t0 = Instant::now();
    let (mut times, mut bytes) = (Vec::new(), Vec::new());
    while t0.elapsed() < budget || times.len() < 20 {
        let t = Instant::now();
        let png = black_box(draw());
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        bytes.push(png.len());
    }
    times.sort_by(f64::total_cmp);
    bytes.sort_unstable();
    json!({
        "bench": "render",
        "picture": name,
        "png_ms_median": (times[times.len() / 2] * 100.0).round() / 100.0,
        "png_ms_max": (times[times.len() - 1] * 100.0).round() / 100.0,
        "png_bytes": bytes[bytes.len() / 2],
        "png_bytes_max": bytes[bytes.len() - 1],
    })
}

/// The rating pictures: a leaderboard of 25 rows, a profile with five games of 200 rated
/// games each (and open games), and a chart of 200 points; one JSON line each.
pub fn render_ratings(seconds: f64) -> Vec<serde_json::Value> {
    use crate::render::{
        leaderboard_png, profile_png, rating_chart_png, LeaderboardRow, ProfileCard, ProfileRating,
    };
    let mut rng = Rng::new(0x5a7e);
    let rows: Vec<LeaderboardRow> = (0..25u32)
        .map(|i| LeaderboardRow {
            rank: i + 1,
            name: format!("Player {} Ó Briain", i + 1),
            rating: 1900.0 - 17.3 * f64::from(i),
            rd: 45.0 + 6.5 * f64::from(i),
            provisional: i >= 18,
            games: 80 - 2 * i,
            wins: 40 - i,
            draws: 5,
            losses: 35 - i,
        })
        .collect();
    let ratings: Vec<ProfileRating> = Variant::ALL
        .into_iter()
        .map(|v| {
            let history = bench_history(200, &mut rng);
            let last = history.last().cloned().expect("200 points");
            ProfileRating {
                game: format!("{} ({})", v.name(), v.id()),
                rating: last.rating,
                rd: last.rd,
                provisional: false,
                wins: 110,
                draws: 12,
                losses: 78,
                streak: "3 wins".into(),
                last_five: vec!['W', 'W', 'W', 'L', 'D'],
                history,
            }
        })
        .collect();
    let card = ProfileCard {
        name: "Aoife Ní Bhriain".into(),
        open_games: (0..8)
            .map(|i| {
                format!(
                    "#{} hkot-1 vs Brian, your turn, {} days left",
                    100 + i,
                    i + 1
                )
            })
            .collect(),
        ratings,
    };
    let history = card.ratings[0].history.clone();
    // The same leaderboard with names in other scripts (shaped, in fallback faces).
    let scripts: Vec<LeaderboardRow> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| LeaderboardRow {
            name: format!("{} {}", SCRIPT_NAMES[i % SCRIPT_NAMES.len()], i + 1),
            ..r.clone()
        })
        .collect();
    vec![
        time_picture("leaderboard-25", seconds, || {
            leaderboard_png(
                "High Kings of Tara (hkot-1)",
                "Players with a rated game in the last 90 days",
                &rows,
            )
        }),
        time_picture("leaderboard-25-scripts", seconds, || {
            leaderboard_png(
                "High Kings of Tara (hkot-1)",
                "Players with a rated game in the last 90 days",
                &scripts,
            )
        }),
        time_picture("profile-5x200", seconds, || profile_png(&card)),
        time_picture("chart-200", seconds, || {
            rating_chart_png("Aoife Ní Bhriain: High Kings of Tara (hkot-1)", &history)
        }),
    ]
}

/// Fills a database with `n` games (half finished, half in progress), in one transaction.
pub(super) fn seed_games(
    store: &mut crate::store::Store,
    n: usize,
    now: i64,
) -> Result<(), crate::store::StoreError> {
    use crate::game::playout::random_game;
    use crate::store::{MoveRow, NewGame};
    store.write(|tx| {
        for i in 0..n {
            let variant = Variant::ALL[i % Variant::ALL.len()];
            let options = GameOptions::new(variant);
            let (a, b) = (
                UserId::new(format!("seed-a{i}")),
                UserId::new(format!("seed-b{i}")),
            );
            tx.upsert_user(&a, a.as_str(), now)?;
            tx.upsert_user(&b, b.as_str(), now)?;
            let id = tx.insert_game(
                &NewGame {
                    server_id: &ServerId::new("bench"),
                    channel_id: &crate::ids::ChannelId::new(format!("seed-{i}")),
                    options,
                    seats: BySide::new(&a, &b),
                    match_id: None,
                    match_game: None,
                    pairing_id: None,
                    rated: false,
                    ai_levels: BySide::new(None, None),
                    days_per_move: None,
                },
                now,
            )?;
            let (pos, moves) = random_game(options, &mut Rng::new(i as u64));
            let keep = if i % 2 == 0 {
                moves.len()
            } else {
                moves.len() / 2
            };
            for (ply, m) in moves.iter().take(keep).enumerate() {
                tx.insert_move(
                    id,
                    &MoveRow {
                        ply: ply as u32,
                        notation: m.to_string(),
                        user_id: Some(if ply % 2 == 0 { a.clone() } else { b.clone() }),
                        created_at: now,
                    },
                )?;
            }
            if keep == moves.len() {
                if let Some(o) = pos.outcome() {
                    tx.finish_game(id, o, now)?;
                }
            }
        }
        Ok(())
    })
}

/// Plays moves through the bot core for about `seconds`; returns per-move latencies (ms).
pub(super) fn drive(bot: &crate::bot::Bot, seconds: f64, tag: &str) -> (Vec<f64>, usize) {
    use crate::bot::{Command, Ctx, User};
    use crate::game::playout::random_game;
    use crate::store::FirstChoice;
    let budget = Duration::from_secs_f64(seconds);
    let t0 = Instant::now();
    let mut lat = Vec::new();
    let mut refused = 0;
    let mut g = 0u64;
    // Each driver's own players and server, so that drivers running at once never share a
    // player, as processes serving different servers do not.
    let (red, blue) = (format!("red-{tag}"), format!("blue-{tag}"));
    let server = format!("bench-{tag}");
    while t0.elapsed() < budget {
        let variant = Variant::ALL[(g as usize) % Variant::ALL.len()];
        let channel = format!("{tag}-{g}");
        let ctx = |u: &str| Ctx {
            server: ServerId::new(server.as_str()),
            channel: ChannelId::new(channel.as_str()),
            user: User::new(u, u),
            moderator: false,
            manager: false,
            roles: Vec::new(),
        };
        bot.handle(
            &ctx(&red),
            Command::Challenge {
                opponent: Some(User::new(blue.as_str(), blue.as_str())),
                variant,
                scoring: None,
                first: Some(FirstChoice::Challenger),
                is_match: false,
                days: None,
                rated: None,
                thread: None,
            },
        );
        bot.handle(&ctx(&blue), Command::Accept { challenge: None });
        let options = GameOptions::with(variant, None, Some(variant.sides()[0])).expect("options");
        let (_, moves) = random_game(options, &mut Rng::new(g));
        let mut pos = Position::new(options);
        for m in moves {
            if pos.outcome().is_some() || t0.elapsed() >= budget {
                break;
            }
            let forced = pos.legal_moves().as_slice() == [crate::game::Move::Pass];
            pos.play_unchecked(m);
            if forced {
                continue; // the bot played it already
            }
            // Tara: the challenger is Red; Ard Rí: the first player is the attackers.
            let who = if pos.ply() % 2 == 1 { &red } else { &blue };
            let t = Instant::now();
            let r = bot.handle(
                &ctx(who),
                Command::Move {
                    text: m.to_string(),
                    game: None,
                },
            );
            lat.push(t.elapsed().as_secs_f64() * 1000.0);
            if r[0].ephemeral {
                refused += 1;
            }
        }
        g += 1;
    }
    (lat, refused)
}

/// `bench service`: the bot core on a temporary database holding `stored` games; with
/// `postgres` (a URL), on PostgreSQL too, in a schema of its own dropped afterwards. Each line
/// names its backend.
pub fn service(
    seconds: f64,
    stored: usize,
    postgres: Option<&str>,
) -> anyhow::Result<Vec<serde_json::Value>> {
    let dir = std::env::temp_dir().join(format!("tara-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let db = dir.join("bench.db");
    let _ = std::fs::remove_file(&db);
    let mut out = service_on(&db, "sqlite", seconds, stored)?;
    std::fs::remove_dir_all(&dir).ok();
    if let Some(url) = postgres {
        let schema = BenchSchema::new(url, "bench service")?;
        let measured = service_on(&schema.db, "postgres", seconds, stored);
        schema.drop()?;
        out.extend(measured?);
    }
    out.push(flood(1000)?);
    out.push(ai_turns(200)?);
    Ok(out)
}

/// A schema of its own for a benchmark in a PostgreSQL database, dropped by [`BenchSchema::drop`].
pub(super) struct BenchSchema {
    admin: postgres::Client,
    name: String,
    /// The URL that opens the schema (`--db` for a store or a child process).
    pub(super) db: std::path::PathBuf,
}

impl BenchSchema {
    /// Creates the schema (`bench` names the command in the error for a URL that is not one).
    pub(super) fn new(url: &str, bench: &str) -> anyhow::Result<BenchSchema> {
        anyhow::ensure!(
            url.starts_with("postgres://") || url.starts_with("postgresql://"),
            "--db must be a postgres:// URL for {bench}"
        );
        let name = format!("tara_bench_{}", std::process::id());
        let mut admin = postgres::Client::connect(url, postgres::NoTls)?;
        admin.batch_execute(&format!(
            "DROP SCHEMA IF EXISTS {name} CASCADE; CREATE SCHEMA {name}"
        ))?;
        let join = if url.contains('?') { '&' } else { '?' };
        let db = std::path::PathBuf::from(format!("{url}{join}options=-csearch_path%3D{name}"));
        Ok(BenchSchema { admin, name, db })
    }

    /// Drops the schema and everything in it.
    pub(super) fn drop(mut self) -> anyhow::Result<()> {
        self.admin
            .batch_execute(&format!("DROP SCHEMA {} CASCADE", self.name))?;
        Ok(())
    }
}

/// How many bytes the database takes on disk: the SQLite file and its write-ahead log, or
/// every table of the PostgreSQL schema with its indexes and TOAST.
fn stored_bytes(db: &std::path::Path) -> anyhow::Result<u64> {
    let text = db.to_string_lossy();
    if crate::store::is_url(&text) {
        let mut c = postgres::Client::connect(&text, postgres::NoTls)?;
        let row = c.query_one(
            "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::BIGINT
               FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname = current_schema() AND c.relkind = 'r'",
            &[],
        )?;
        return Ok(row.get::<_, i64>(0).max(0) as u64);
    }
    let wal = std::path::PathBuf::from(format!("{text}-wal"));
    let size = |p: &std::path::Path| std::fs::metadata(p).map_or(0, |m| m.len());
    Ok(size(db) + size(&wal))
}

/// `bench service` on one database (`backend` names it in the lines).
fn service_on(
    db: &std::path::Path,
    backend: &str,
    seconds: f64,
    stored: usize,
) -> anyhow::Result<Vec<serde_json::Value>> {
    use crate::bot::{Bot, SystemClock};
    use std::sync::Arc;
    let mut store = crate::store::Store::open(db)?;
    let t = Instant::now();
    seed_games(&mut store, stored, 0)?;
    let seed_s = t.elapsed().as_secs_f64();
    let mut out = vec![json!({
        "bench": "service",
        "backend": backend,
        "stored_games": stored,
        "bytes_per_game": stored_bytes(db)? / stored.max(1) as u64,
    })];
    let mut bot = Some(Bot::new(store, Arc::new(SystemClock), 1).with_images(false));
    crate::render::warm_up();
    // Boards are drawn outside the store's lock, so with images a second thread moves while
    // the first draws: `threads` players move at once, each in games of their own.
    for (images, threads) in [(false, 1), (true, 1), (true, 2)] {
        let b = bot.take().expect("bot").with_images(images);
        let t = Instant::now();
        let runs: Vec<(Vec<f64>, usize)> = std::thread::scope(|scope| {
            let b = &b;
            let workers: Vec<_> = (0..threads)
                .map(|i| {
                    let tag = format!("{}{threads}-{i}", if images { "img" } else { "txt" });
                    scope.spawn(move || drive(b, seconds, &tag))
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().expect("a benchmark thread panicked"))
                .collect()
        });
        let refused: usize = runs.iter().map(|r| r.1).sum();
        anyhow::ensure!(refused == 0, "{refused} benchmark moves were refused");
        let mut lat: Vec<f64> = runs.into_iter().flat_map(|r| r.0).collect();
        let secs = t.elapsed().as_secs_f64();
        lat.sort_by(f64::total_cmp);
        let pct = |p: f64| lat[((lat.len() as f64 - 1.0) * p).round() as usize];
        out.push(json!({
            "bench": "service",
            "backend": backend,
            "images": images,
            "threads": threads,
            "stored_games": stored,
            "seed_s": (seed_s * 100.0).round() / 100.0,
            "moves": lat.len(),
            "moves_per_s": (lat.len() as f64 / secs).round(),
            "p50_ms": (pct(0.5) * 1000.0).round() / 1000.0,
            "p99_ms": (pct(0.99) * 1000.0).round() / 1000.0,
            "max_ms": (pct(1.0) * 1000.0).round() / 1000.0,
        }));
        bot = Some(b);
    }
    Ok(out)
}

/// What looking for the AI's turns costs when the person is to move in every live game
/// against the AI (the common case in correspondence play): `games` Ard Rí games of up to 80
/// plies each; one JSON line with the median of [`crate::bot::Bot::ai_turns`] in µs.
pub fn ai_turns(games: usize) -> anyhow::Result<serde_json::Value> {
    use crate::bot::{Bot, SystemClock};
    use crate::game::playout::random_game;
    use crate::store::{MoveRow, NewGame, AI_USER_ID};
    use std::sync::Arc;
    let dir = std::env::temp_dir().join(format!("tara-bench-ai-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let db = dir.join("ai.db");
    let _ = std::fs::remove_file(&db);
    let mut store = crate::store::Store::open(&db)?;
    let mut plies = 0;
    store.write(|tx| -> Result<(), crate::store::StoreError> {
        let ai = UserId::new(AI_USER_ID);
        tx.upsert_user(&ai, "Tara-bot AI", 0)?;
        for i in 0..games {
            let options = GameOptions::new(Variant::ArdRi);
            let human = UserId::new(format!("human{i}"));
            tx.upsert_user(&human, human.as_str(), 0)?;
            let id = tx.insert_game(
                &NewGame {
                    server_id: &ServerId::new("bench"),
                    channel_id: &crate::ids::ChannelId::new(format!("ai-{i}")),
                    options,
                    seats: BySide::new(&human, &ai),
                    match_id: None,
                    match_game: None,
                    pairing_id: None,
                    rated: false,
                    ai_levels: BySide::new(None, Some(3)),
                    days_per_move: None,
                },
                0,
            )?;
            // An even number of plies short of the end: the person (the attackers) to move.
            let (_, moves) = random_game(options, &mut Rng::new(i as u64));
            let keep = (moves.len() - 1).min(80) & !1;
            plies += keep;
            for (ply, m) in moves.iter().take(keep).enumerate() {
                let user = if ply % 2 == 0 {
                    human.as_str()
                } else {
                    AI_USER_ID
                };
                tx.insert_move(
                    id,
                    &MoveRow {
                        ply: ply as u32,
                        notation: m.to_string(),
                        user_id: Some(UserId::new(user)),
                        created_at: 0,
                    },
                )?;
            }
        }
        Ok(())
    })?;
    let bot = Bot::new(store, Arc::new(SystemClock), 1).with_images(false);
    let mut lat = Vec::new();
    for _ in 0..21 {
        let t = Instant::now();
        let turns = bot.ai_turns();
        lat.push(t.elapsed().as_secs_f64() * 1e6);
        anyhow::ensure!(turns.is_empty(), "the person is to move in every game");
    }
    lat.sort_by(f64::total_cmp);
    drop(bot);
    std::fs::remove_dir_all(&dir).ok();
    Ok(json!({
        "bench": "service",
        "ai_turns_games": games,
        "plies_per_game": plies / games.max(1),
        "ai_turns_us": lat[lat.len() / 2].round(),
    }))
}

/// Other users' `/board` latency, idle and while one user floods the rate-limited bot with
/// challenges from another thread: one JSON line with both medians (µs), their ratio and how
/// many flood commands were sent (and refused) meanwhile.
pub fn flood(rounds: usize) -> anyhow::Result<serde_json::Value> {
    use crate::bot::{Bot, Command, Ctx, SystemClock, User};
    use crate::store::FirstChoice;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Arc;
    let dir = std::env::temp_dir().join(format!("tara-bench-flood-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let db = dir.join("flood.db");
    let _ = std::fs::remove_file(&db);
    let bot = Bot::new(crate::store::Store::open(&db)?, Arc::new(SystemClock), 5)
        .with_images(false)
        .with_rate_limit(true);
    let ctx = |u: &str, channel: &str| Ctx {
        server: ServerId::new("bench"),
        channel: ChannelId::new(channel),
        user: User::new(u, u),
        moderator: false,
        manager: false,
        roles: Vec::new(),
    };
    let challenge = |opponent: String| Command::Challenge {
        opponent: Some(User::new(opponent.clone(), opponent)),
        variant: Variant::Hkot1,
        scoring: None,
        first: Some(FirstChoice::Challenger),
        is_match: false,
        days: None,
        rated: None,
        thread: None,
    };
    bot.handle(&ctx("aoife", "game"), challenge("brian".into()));
    bot.handle(&ctx("brian", "game"), Command::Accept { challenge: None });
    let board = || Command::Board {
        ply: None,
        marks: None,
        arrows: None,
        game: None,
    };
    // Each read by a user of its own, so that no bucket of theirs runs dry.
    let measure = |tag: &str| -> anyhow::Result<f64> {
        let mut lat = Vec::with_capacity(rounds);
        for i in 0..rounds {
            let t = Instant::now();
            let r = bot.handle(&ctx(&format!("{tag}{i}"), "game"), board());
            lat.push(t.elapsed().as_secs_f64() * 1e6);
            anyhow::ensure!(!r[0].ephemeral, "/board refused: {}", r[0].plain_text());
        }
        lat.sort_by(f64::total_cmp);
        Ok(lat[lat.len() / 2])
    };
    measure("warm")?;
    let idle = measure("idle")?;
    let stop = AtomicBool::new(false);
    let flooded = AtomicUsize::new(0);
    let during = std::thread::scope(|s| {
        s.spawn(|| {
            let mut i = 0;
            while !stop.load(Ordering::Relaxed) {
                bot.handle(&ctx("flood", "f0"), challenge(format!("v{i}")));
                i += 1;
                flooded.store(i, Ordering::Relaxed);
            }
        });
        while flooded.load(Ordering::Relaxed) < 1000 {
            std::thread::yield_now();
        }
        let m = measure("busy");
        stop.store(true, Ordering::Relaxed);
        m
    })?;
    drop(bot);
    std::fs::remove_dir_all(&dir).ok();
    Ok(json!({
        "bench": "flood",
        "reads": rounds,
        "idle_p50_us": idle.round(),
        "flood_p50_us": during.round(),
        "ratio": (during / idle * 100.0).round() / 100.0,
        "flood_commands": flooded.load(Ordering::Relaxed),
    }))
}

/// Fills a database with `n` finished rated games between `players` people on one server,
/// each rated as the bot rates it, one game every ten minutes ending at `now`.
pub(super) fn seed_rated_games(
    store: &mut crate::store::Store,
    n: usize,
    players: usize,
    now: i64,
) -> Result<(), crate::store::StoreError> {
    use crate::game::{BySide, EndReason, Outcome, Points};
    use crate::store::NewGame;
    let mut rng = Rng::new(0x5eed);
    store.write(|tx| {
        for p in 0..players {
            let id = UserId::new(format!("player-{p}"));
            tx.upsert_user(&id, &format!("Player {p}"), now)?;
        }
        for i in 0..n {
            let at = now - (n - i) as i64 * 600_000;
            let variant = Variant::ALL[i % Variant::ALL.len()];
            let a = rng.below(players);
            let b = (a + 1 + rng.below(players - 1)) % players;
            let (a, b) = (
                UserId::new(format!("player-{a}")),
                UserId::new(format!("player-{b}")),
            );
            let id = tx.insert_game(
                &NewGame {
                    server_id: &ServerId::new("bench"),
                    channel_id: &crate::ids::ChannelId::new(format!("rated-{i}")),
                    options: GameOptions::new(variant),
                    seats: BySide::new(&a, &b),
                    match_id: None,
                    match_game: None,
                    pairing_id: None,
                    rated: true,
                    ai_levels: BySide::new(None, None),
                    days_per_move: None,
                },
                at,
            )?;
            let [first, second] = variant.sides();
            let winner = match rng.below(5) {
                0 => None,
                1 | 2 => Some(first),
                _ => Some(second),
            };
            let mut points = BySide::default();
            match winner {
                Some(w) => points[w] = Points::whole(1),
                None => {
                    points[first] = Points::HALF;
                    points[second] = Points::HALF;
                }
            }
            let o = Outcome {
                winner,
                reason: if winner.is_some() {
                    EndReason::Resigned
                } else {
                    EndReason::MoveLimit
                },
                points,
            };
            tx.finish_game(id, &o, at)?;
            let game = tx.game(id)?.expect("just inserted");
            crate::bot::rate(tx, &game, &o, at)?;
        }
        Ok(())
    })
}

/// A benchmarked command, made from the run's number.
type CommandAt = Box<dyn Fn(usize) -> crate::bot::Command>;

/// `bench service`, archive rows: `/leaderboard`, `/profile` and `/history` (pictures included) on a
/// database of `games` rated games between 500 players; p50, p99 and max per command.
pub fn archive(seconds: f64, games: usize) -> anyhow::Result<Vec<serde_json::Value>> {
    use crate::bot::{Bot, Clock, Command, Ctx, SystemClock, User};
    use std::sync::Arc;
    let dir = std::env::temp_dir().join(format!("tara-bench-archive-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let db = dir.join("bench.db");
    let _ = std::fs::remove_file(&db);
    let mut store = crate::store::Store::open(&db)?;
    let players = 500;
    let now = SystemClock.now_ms();
    let t = Instant::now();
    seed_rated_games(&mut store, games, players, now)?;
    let seed_s = t.elapsed().as_secs_f64();
    let bot = Bot::new(store, Arc::new(SystemClock), 1).with_images(true);
    crate::render::warm_up();
    let ctx = |u: usize| Ctx {
        server: ServerId::new("bench"),
        channel: ChannelId::new("archive"),
        user: User::new(format!("player-{u}"), format!("Player {u}")),
        moderator: false,
        manager: false,
        roles: Vec::new(),
    };
    let commands: [(&str, CommandAt); 3] = [
        (
            "leaderboard",
            Box::new(|i| Command::Leaderboard {
                variant: (i % 6 < 5).then(|| Variant::ALL[i % 5]),
            }),
        ),
        ("profile", Box::new(|_| Command::Profile { user: None })),
        (
            "history",
            Box::new(|i| Command::History {
                user: None,
                variant: (i % 2 == 1).then(|| Variant::ALL[i % 5]),
                page: Some(1 + (i % 3) as u32),
            }),
        ),
    ];
    let mut out = Vec::new();
    let mut rng = Rng::new(7);
    for (name, command) in &commands {
        let budget = Duration::from_secs_f64(seconds);
        let t0 = Instant::now();
        let mut lat = Vec::new();
        let mut bytes = Vec::new();
        while t0.elapsed() < budget || lat.len() < 100 {
            let who = rng.below(players);
            let t = Instant::now();
            let r = bot.handle(&ctx(who), command(lat.len()));
            lat.push(t.elapsed().as_secs_f64() * 1000.0);
            // `/history` answers privately; the others are public unless refused.
            anyhow::ensure!(
                *name == "history" || !r[0].ephemeral,
                "/{name} refused: {}",
                r[0].plain_text()
            );
            bytes.push(r[0].image.as_ref().map_or(0, |i| i.bytes.len()));
        }
        lat.sort_by(f64::total_cmp);
        bytes.sort_unstable();
        let pct = |p: f64| lat[((lat.len() as f64 - 1.0) * p).round() as usize];
        out.push(json!({
            "bench": "service",
            "command": name,
            "stored_games": games,
            "players": players,
            "seed_s": (seed_s * 100.0).round() / 100.0,
            "runs": lat.len(),
            "p50_ms": (pct(0.5) * 1000.0).round() / 1000.0,
            "p99_ms": (pct(0.99) * 1000.0).round() / 1000.0,
            "max_ms": (pct(1.0) * 1000.0).round() / 1000.0,
            "image_bytes_median": bytes[bytes.len() / 2],
        }));
    }
    drop(bot);
    std::fs::remove_dir_all(&dir).ok();
    Ok(out)
}

/// `tara-bot bench tournament`: an all-at-once round robin of `n` players started through the
/// bot core on a database file (every game of the Berger table created, with its board drawn
/// when `images`, and owed in one transaction), then one result (which updates the standings
/// in its own transaction) and a `/tournament standings` read. One JSON object per size.
pub fn tournament(sizes: &[u32]) -> anyhow::Result<Vec<serde_json::Value>> {
    use crate::bot::{Bot, Command, Ctx, ManualClock, User};
    use std::sync::Arc;
    let dir = std::env::temp_dir().join(format!("tara-bench-t-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    crate::render::warm_up();
    let mut out = Vec::new();
    for &n in sizes {
        for images in [false, true] {
            let db = dir.join(format!("t{n}-{images}.db"));
            let _ = std::fs::remove_file(&db);
            let store = crate::store::Store::open(&db)?;
            let bot = Bot::new(store, Arc::new(ManualClock::new(1_795_996_800_000)), 1)
                .with_images(images);
            let ctx = |u: &str, channel: &str| Ctx {
                server: ServerId::new("bench"),
                channel: ChannelId::new(channel),
                user: User::new(u, u),
                moderator: u == "mod",
                manager: false,
                roles: Vec::new(),
            };
            let refused = |r: &[crate::bot::Reply]| r.iter().any(|r| r.ephemeral);
            round_robin_joined(&bot, &ctx, n)?;
            let t = Instant::now();
            let r = bot.handle(&ctx("mod", "t"), Command::TournamentStart { id: None });
            let start_ms = t.elapsed().as_secs_f64() * 1000.0;
            anyhow::ensure!(!refused(&r), "start");
            let games = r.iter().filter(|r| r.thread.is_some()).count();
            // One result: the first game's second player resigns it, naming it (a round's
            // games share their thread).
            let game = crate::store::Store::open_to_read(&db)?
                .read(|tx| -> Result<_, crate::store::StoreError> {
                    let p = tx.pairings(crate::store::TournamentId(1), Some(1))?;
                    let id = p.first().and_then(|p| p.game_id);
                    Ok(match id {
                        Some(id) => tx.game(id)?,
                        None => None,
                    })
                })?
                .ok_or_else(|| anyhow::anyhow!("round 1 has no game"))?;
            let loser = game.seats[game.sides()[1]].clone();
            let t = Instant::now();
            let r = bot.handle(
                &ctx(loser.as_str(), game.channel_id.as_str()),
                Command::Resign {
                    confirmed: true,
                    game: Some(game.id),
                },
            );
            let result_ms = t.elapsed().as_secs_f64() * 1000.0;
            anyhow::ensure!(!refused(&r), "resign");
            let t = Instant::now();
            let r = bot.handle(&ctx("p0", "t"), Command::TournamentStandings { id: None });
            let standings_ms = t.elapsed().as_secs_f64() * 1000.0;
            anyhow::ensure!(!refused(&r), "standings");
            out.push(json!({
                "bench": "tournament",
                "system": "round-robin",
                "players": n,
                "games": games,
                "images": images,
                "start_ms": (start_ms * 10.0).round() / 10.0,
                "result_ms": (result_ms * 100.0).round() / 100.0,
                "standings_ms": (standings_ms * 100.0).round() / 100.0,
            }));
            drop(bot);
            let _ = std::fs::remove_file(&db);
        }
    }
    let _ = std::fs::remove_dir(&dir);
    Ok(out)
}

/// A round robin of High Kings created by `mod` in channel `t` (`ctx` makes each sender's
/// context) and joined by `p0`…`p{n-1}`, not yet started.
pub(super) fn round_robin_joined(
    bot: &crate::bot::Bot,
    ctx: &dyn Fn(&str, &str) -> crate::bot::Ctx,
    n: u32,
) -> anyhow::Result<()> {
    use crate::bot::{Command, TournamentSystem};
    let refused = |r: &[crate::bot::Reply]| r.iter().any(|r| r.ephemeral);
    let create = Command::TournamentCreate {
        name: "Bench".into(),
        variant: Variant::Hkot1,
        system: TournamentSystem::RoundRobin,
        scoring: None,
        rounds: None,
        days: None,
        is_match: false,
        rated: None,
        max_players: None,
        pace: None,
        double: false,
    };
    anyhow::ensure!(!refused(&bot.handle(&ctx("mod", "t"), create)), "create");
    for i in 0..n {
        let r = bot.handle(
            &ctx(&format!("p{i}"), "t"),
            Command::TournamentJoin { id: None },
        );
        anyhow::ensure!(!refused(&r), "join");
    }
    Ok(())
}

/// `bench league`: a league of `n` players in divisions of 10 (two-game matches, the
/// defaults) started through the bot core: season 1 by `/league start`, then (every division
/// called off, the season ended, the gap passed) season 2 by the tick, placed from season 1's
/// results. Each start creates and announces every game of the season in one transaction.
pub fn league(n: u32) -> anyhow::Result<Vec<serde_json::Value>> {
    use crate::bot::{Bot, Command, Ctx, ManualClock, User};
    use std::sync::Arc;
    let dir = std::env::temp_dir().join(format!("tara-bench-l-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let db = dir.join(format!("l{n}.db"));
    let _ = std::fs::remove_file(&db);
    let clock = Arc::new(ManualClock::new(1_795_996_800_000));
    let bot = Bot::new(crate::store::Store::open(&db)?, clock, 1).with_images(true);
    let ctx = |u: &str| Ctx {
        server: ServerId::new("bench"),
        channel: ChannelId::new("league"),
        user: User::new(u, u),
        moderator: u == "mod",
        manager: false,
        roles: Vec::new(),
    };
    let refused = |r: &[crate::bot::Reply]| r.iter().any(|r| r.ephemeral);
    let create = Command::LeagueCreate {
        name: "Bench".into(),
        variant: Variant::Hkot1,
        scoring: None,
        division_size: None,
        promote: None,
        relegate: None,
        days: None,
        is_match: None,
        rated: None,
        gap_days: None,
    };
    anyhow::ensure!(!refused(&bot.handle(&ctx("mod"), create)), "create");
    for i in 0..n {
        bot.advance_clock(1);
        let r = bot.handle(&ctx(&format!("p{i}")), Command::LeagueJoin { id: None });
        anyhow::ensure!(!refused(&r), "join");
    }
    let t = Instant::now();
    let r = bot.handle(&ctx("mod"), Command::LeagueStart { id: None });
    let start_ms = t.elapsed().as_secs_f64() * 1000.0;
    anyhow::ensure!(!refused(&r), "start");
    let games = r.iter().filter(|r| r.thread.is_some()).count();
    let divisions = {
        let mut s = crate::store::Store::open(&db)?;
        s.read(|tx| tx.league_divisions(crate::store::LeagueId(1), Some(1)))?
    };
    for d in &divisions {
        let r = bot.handle(
            &ctx("mod"),
            Command::TournamentCancel {
                id: Some(d.tournament_id),
            },
        );
        anyhow::ensure!(!refused(&r), "cancel");
    }
    bot.tick();
    bot.advance_clock(8 * 86_400_000);
    let t = Instant::now();
    let r = bot.tick();
    let next_ms = t.elapsed().as_secs_f64() * 1000.0;
    let next_games = r.iter().filter(|r| r.thread.is_some()).count();
    anyhow::ensure!(next_games > 0, "season 2 did not start");
    drop(bot);
    let _ = std::fs::remove_file(&db);
    let _ = std::fs::remove_dir(&dir);
    Ok(vec![json!({
        "bench": "league",
        "players": n,
        "divisions": divisions.len(),
        "games": games,
        "start_ms": (start_ms * 10.0).round() / 10.0,
        "next_season_games": next_games,
        "next_season_ms": (next_ms * 10.0).round() / 10.0,
    })])
}
