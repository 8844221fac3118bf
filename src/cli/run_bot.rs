//! The bot itself: `run` (Discord) and `local` (the terminal).

use super::args::{LocalArgs, RunArgs};
use super::logging::{init_logging, init_logging_at};
use super::run_store::about_file;
use crate::bot::Clock;
use crate::ids::ServerId;
use crate::render;
use anyhow::Result;
use std::process::ExitCode;

pub(crate) fn run_local(args: LocalArgs) -> Result<()> {
    use crate::bot::{Bot, OffsetClock, SystemClock};
    use std::io::IsTerminal;
    init_logging();
    let config = crate::config::Config::load()?;
    let db = args.db.unwrap_or(config.database);
    let mut store = crate::store::Store::open(&db)
        .map_err(|e| anyhow::anyhow!(about_file("opening", &db, &e)))?;
    // The binary's own target, as when this was in `src/main.rs`.
    tracing::info!(
        target: "tara_bot",
        database = %crate::store::shown(&db),
        schema = store.schema_version().unwrap_or_default(),
        "database opened and checked"
    );
    let seed = SystemClock.now_ms() as u64;
    // Real time, which `/time +2d` can move forward to try the clocks, from where an earlier
    // console on this database left it.
    let offset = crate::bot::console_clock_offset(
        &mut store,
        &ServerId::new(crate::console::CONSOLE_SERVER),
    );
    let clock = std::sync::Arc::new(OffsetClock::starting_at(offset));
    let bot = Bot::new(store, clock, seed)
        .with_images(!args.no_images)
        .with_web_url(config.web_url);
    let images = (!args.no_images).then(|| args.images.unwrap_or(config.images));
    let mut console =
        crate::console::Console::new(&bot, &args.user, images).with_ai_ms(config.ai.ms);
    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    let mut out = std::io::stdout().lock();
    if interactive {
        console.run_terminal(&mut out)?;
    } else {
        console.run(stdin.lock(), &mut out, false)?;
    }
    Ok(())
}

pub(crate) fn run_discord(args: RunArgs) -> ExitCode {
    use crate::bot::{Bot, SystemClock};
    let shards = match args.shard_range() {
        Ok(s) => s,
        Err(e) => {
            say!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let config = match crate::config::Config::load() {
        Ok(c) => c,
        Err(e) => {
            say!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let token = match crate::discord::token(config.discord_token_file.as_deref()) {
        Ok(t) => t,
        Err(message) => {
            say!("{message}");
            return ExitCode::from(2);
        }
    };
    init_logging_at("tara_bot=info,warn", vec![token.clone()]);
    let db = args.db.unwrap_or(config.database);
    let store = match crate::store::Store::open(&db) {
        Ok(s) => s,
        Err(e) => {
            say!("error: {}", about_file("opening", &db, &e));
            return ExitCode::from(1);
        }
    };
    tracing::info!(target: "tara_bot", database = %crate::store::shown(&db), "database opened and checked");
    render::warm_up();
    let bot = Bot::new(
        store,
        std::sync::Arc::new(SystemClock),
        SystemClock.now_ms() as u64,
    )
    .with_rate_limit(config.rate_limit)
    .with_lease_ms(config.lease_ms)
    .with_web_url(config.web_url);
    // Each process of a deployment names itself in the leases it takes: its host and shards.
    let bot = match shards {
        Some(r) => {
            let worker = format!("{}:shards-{}-{}", bot.worker(), r.first, r.last);
            bot.with_worker(worker)
        }
        None => bot,
    };
    let bot = std::sync::Arc::new(bot);
    let settings = crate::discord::Settings {
        token,
        guild: config.discord_guild_id,
        proxy_url: config.discord_proxy_url,
        requests_per_second: config.discord_requests_per_second,
        thread_margin: config.discord_thread_margin,
        shards,
        ai: config.ai,
    };
    let runtime = match runtime() {
        Ok(r) => r,
        Err(code) => return code,
    };
    // The last handle on the bot is this one, dropped after the runtime has stopped: the
    // tasks' handles go with the runtime, and a PostgreSQL store (a synchronous client that
    // runs a runtime of its own to close) must not be closed inside one.
    let kept = bot.clone();
    let result = runtime.block_on(crate::discord::run(bot, settings));
    runtime.shutdown_timeout(std::time::Duration::from_secs(5));
    drop(kept);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            say!("error: {}", crate::discord::error_chain(&*e));
            ExitCode::from(1)
        }
    }
}

/// `tara-bot web`: serves the web companion on `listen` over the database (`--db`, else the
/// configuration's), until stopped. The database is opened once first, so that a wrong one is
/// said at once (exit status 1) rather than on the first page.
pub(crate) fn run_web(
    listen: std::net::SocketAddr,
    db: Option<std::path::PathBuf>,
    url: Option<String>,
    rate_limit: u32,
) -> ExitCode {
    super::logging::init_logging();
    let db = match super::run_store::database(db) {
        Ok(db) => db,
        Err(code) => return code,
    };
    // The public address: `--url`, else the bot's own `web_url` (the address its link buttons
    // lead to), else none (the host each request names). Checked as `web_url` is.
    let url = match url {
        Some(u) => crate::config::web_url("--url", &u).map(Some),
        None => crate::config::Config::load().map(|c| c.web_url),
    };
    let url = match url {
        Ok(url) => url,
        Err(e) => {
            say!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = crate::store::Store::open_to_read(&db) {
        say!(
            "error: {}",
            super::run_store::about_file("opening", &db, &e)
        );
        return ExitCode::from(1);
    }
    let runtime = match runtime() {
        Ok(r) => r,
        Err(code) => return code,
    };
    let result = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(listen).await?;
        say!(
            "tara-bot web: serving {} on http://{}",
            crate::store::shown(&db),
            listener.local_addr()?
        );
        let options = crate::web::Options {
            public_url: url,
            clock: std::sync::Arc::new(crate::bot::SystemClock),
            rate_limit,
        };
        crate::web::serve(listener, db.clone(), options).await
    });
    runtime.shutdown_timeout(std::time::Duration::from_secs(5));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            say!("error: tara-bot web on {listen}: {e}");
            ExitCode::from(1)
        }
    }
}

/// The async runtime of a service (`run`, `web`); one that cannot start is said (exit status
/// 1).
fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| {
            say!("error: cannot start the async runtime: {e}");
            ExitCode::from(1)
        })
}
