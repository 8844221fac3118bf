//! The Discord adapter (serenity): slash commands, autocomplete and buttons in, bot-core
//! replies out. No game logic here: every command goes to [`Bot::handle`], which commits before
//! anything is sent.
//!
//! This file starts the gateway (and waits for Discord at start-up) and registers the
//! commands; the rest is one concern a file, each using only those below it:
//! [`interactions`] (commands, buttons and dialogs answered), [`delivery`] (the owed messages,
//! the clocks' sweeps, a reply posted in its place), [`new_threads`] (threads opened for
//! replies that ask for them), [`requests`] (the REST calls for messages and channels),
//! [`outgoing`] (a reply made into Discord's messages), [`places`] (where a reply goes),
//! [`retry`] and [`rest`] (requests tried again, and sent within Discord's rate limits).

mod commands;
mod delivery;
mod interactions;
mod new_threads;
mod outgoing;
mod places;
mod queues;
mod redact;
mod requests;
mod rest;
mod retry;
mod shards;
mod split;
mod threads;

use crate::ai_runner::{AiRunner, AiSettings};
use crate::bot::Bot;
use delivery::{deliver, push_owed, tick_forever, OWED_QUEUES};
use interactions::Handler;
use places::{ME, THREAD_MARGIN};
pub use redact::{error_chain, redact};
use rest::Failure;
use retry::said;
use serenity::all::{Context, EventHandler, GatewayIntents, GuildId, Http, Interaction, Ready};
pub use shards::ShardRange;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What `tara-bot run` needs.
pub struct Settings {
    pub token: String,
    pub guild: Option<u64>,
    pub proxy_url: Option<String>,
    /// The most REST requests a second this process sends, interaction answers aside.
    pub requests_per_second: u32,
    /// The bot opens a thread only while its server holds fewer active threads than this.
    pub thread_margin: u32,
    /// The shards this process runs; `None` for every shard Discord recommends.
    pub shards: Option<ShardRange>,
    /// How the AI's searches run (time per move, searches at once).
    pub ai: AiSettings,
}

/// Connects and serves until stopped (Ctrl-C or SIGTERM).
pub async fn run(bot: Arc<Bot>, settings: Settings) -> anyhow::Result<()> {
    rest::set_budget(settings.requests_per_second);
    THREAD_MARGIN.store(settings.thread_margin as usize, Ordering::Relaxed);
    let mut http = serenity::http::HttpBuilder::new(&settings.token);
    if let Some(url) = &settings.proxy_url {
        // With the ratelimiter on, serenity builds requests without the proxy.
        http = http
            .proxy(url.trim_end_matches('/'))
            .ratelimiter_disabled(true);
    }
    let (ai, mut ai_replies) = AiRunner::new(bot.clone(), settings.ai);
    let b = bot.clone();
    let handler = Handler {
        started: bot.now(),
        bot,
        ai,
        guild: settings.guild.map(GuildId::new),
        registered: AtomicBool::new(false),
        ticking: AtomicBool::new(false),
    };
    let http = http.build();
    tokio::select! {
        reached = wait_for_discord(&http) => reached?,
        () = shutdown_signal() => {
            tracing::info!("stopped before Discord could be reached");
            return Ok(());
        }
    }
    let mut client = serenity::all::ClientBuilder::new_with_http(http, GatewayIntents::GUILDS)
        .event_handler(handler)
        .await?;
    // The AI's moves, posted as they are found (each owed in the outbox like any message).
    let h = client.http.clone();
    tokio::spawn(async move {
        while let Some(replies) = ai_replies.recv().await {
            for reply in replies {
                // Behind what its channel already waits for, once the queues run.
                match OWED_QUEUES.get() {
                    Some(queues) => push_owed(queues, reply, false, None),
                    None => {
                        deliver(&b, &h, &reply).await;
                    }
                }
            }
        }
    });
    let shards = client.shard_manager.clone();
    tokio::spawn(async move {
        shutdown_signal().await;
        tracing::info!("shutting down");
        shards.shutdown_all().await;
    });
    match settings.shards {
        // serenity's range end is the last shard, included.
        Some(r) => client.start_shard_range(r.first..r.last, r.total).await?,
        None => client.start_autosharded().await?,
    }
    Ok(())
}

/// Asks Discord where to connect (`GET /gateway/bot`) until it answers, as a service manager
/// expects of a bot started before the network is up: network trouble, server errors and rate
/// limits are logged and tried again after [`startup_pause`]; a refused token (401) or any
/// other refusal ends the start with a clear error.
async fn wait_for_discord(http: &Http) -> anyhow::Result<()> {
    let mut attempt = 1;
    loop {
        let e = match http.get_bot_gateway().await {
            Ok(_) => return Ok(()),
            Err(e) => e,
        };
        let status = match &e {
            serenity::Error::Http(serenity::http::HttpError::UnsuccessfulRequest(r)) => {
                Some(r.status_code.as_u16())
            }
            _ => None,
        };
        if status == Some(401) {
            anyhow::bail!(
                "Discord refused the bot token (401 Unauthorized): check DISCORD_TOKEN or the \
                 file DISCORD_TOKEN_FILE names; a token that was reset on the Developer Portal \
                 must be replaced there."
            );
        }
        let failure = Failure::from(e);
        if !failure.retriable() {
            anyhow::bail!("Discord refused to start the bot: {}", said(&failure));
        }
        let pause = startup_pause(attempt, rest::random());
        let error = match &failure {
            Failure::Serenity(e) => redact(&error_chain(e.as_ref()), &[]),
            other => said(other),
        };
        tracing::warn!(
            attempt,
            retry_in_s = pause.as_secs_f64(),
            "cannot reach Discord: {error}; trying again"
        );
        tokio::time::sleep(pause).await;
        attempt += 1;
    }
}

/// The pause after start-up try `attempt` failed: 1 s, doubling each time up to 5 minutes, of
/// which a random part (`r` in 0..1, up to half of it) is taken off so that many bots do not
/// all come back at once.
pub fn startup_pause(attempt: u32, r: f64) -> Duration {
    let full = Duration::from_secs(1 << attempt.saturating_sub(1).min(9)).min(STARTUP_PAUSE_MAX);
    full.mul_f64(1.0 - 0.5 * r.clamp(0.0, 1.0))
}

/// The longest pause between start-up tries.
const STARTUP_PAUSE_MAX: Duration = Duration::from_secs(300);

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

#[serenity::async_trait]
impl EventHandler for Handler {
    async fn ready(&self, ctx: Context, ready: Ready) {
        tracing::info!(user = %ready.user.name, shard = ?ready.shard, "connected to Discord");
        // A challenge to the bot's own user is a game against the AI.
        self.bot
            .set_self_user(&crate::ids::UserId::new(ready.user.id.to_string()));
        let _ = ME.set(ready.user.id);
        if !self.ticking.swap(true, Ordering::SeqCst) {
            // The clocks: caught up at once (what fell due while down), then every 10 s.
            tokio::spawn(tick_forever(
                self.bot.clone(),
                self.ai.clone(),
                ctx.http.clone(),
                ready.user.id,
                self.started,
            ));
        }
        // Register once per process, not once per shard.
        if self.registered.swap(true, Ordering::SeqCst) {
            return;
        }
        let defs = commands::definitions();
        let result = match self.guild {
            Some(g) => g.set_commands(&ctx.http, defs).await.map(|c| c.len()),
            None => serenity::all::Command::set_global_commands(&ctx.http, defs)
                .await
                .map(|c| c.len()),
        };
        match result {
            Ok(n) => tracing::info!(commands = n, guild = ?self.guild, "slash commands registered"),
            Err(e) => {
                self.registered.store(false, Ordering::SeqCst);
                let e = Failure::from(e);
                tracing::error!(error = %said(&e), "registering slash commands failed");
            }
        }
    }

    async fn interaction_create(&self, ctx: Context, interaction: Interaction) {
        let started = Instant::now();
        match interaction {
            Interaction::Command(cmd) => self.on_command(&ctx, cmd).await,
            Interaction::Autocomplete(ac) => return self.on_autocomplete(&ctx, ac).await,
            Interaction::Component(c) => self.on_component(&ctx, c).await,
            Interaction::Modal(m) => self.on_dialog(&ctx, m).await,
            _ => {}
        }
        // The command may have made it the AI's turn (a move, a new game, a takeback).
        self.ai.kick();
        tracing::debug!(
            ms = started.elapsed().as_secs_f64() * 1000.0,
            "interaction handled"
        );
    }
}

/// Reads the bot token: `DISCORD_TOKEN`, else the file named by `DISCORD_TOKEN_FILE` (or the
/// config file).
pub fn token(file: Option<&std::path::Path>) -> Result<String, String> {
    if let Ok(t) = std::env::var("DISCORD_TOKEN") {
        if !t.trim().is_empty() {
            return Ok(t.trim().to_string());
        }
    }
    if let Some(path) = file {
        let token = std::fs::read_to_string(path)
            .map(|t| t.trim().to_string())
            .map_err(|e| format!("cannot read the token file {}: {e}", path.display()))?;
        if token.is_empty() {
            return Err(format!(
                "The token file {} is empty: put the bot token in it (the whole file is the \
                 token), or set DISCORD_TOKEN instead.",
                path.display()
            ));
        }
        return Ok(token);
    }
    Err(NO_TOKEN.to_string())
}

/// What `tara-bot run` says without a token.
pub const NO_TOKEN: &str =
    "No Discord bot token: set DISCORD_TOKEN (or DISCORD_TOKEN_FILE to a file \
holding it).\n\nTo get one: open https://discord.com/developers/applications, create an \
application, open its Bot page and press Reset Token; invite the bot with the URL from the \
README. To try the bot without Discord, run `tara-bot local` (the same bot in your terminal).";

#[cfg(test)]
mod tests {
    use super::delivery::place_of;
    use super::outgoing::outgoing;
    use super::places::{channel_of, is_key, Place};
    use super::retry::{gone, retry_pause};
    use super::*;
    use crate::bot::{self, Reply};
    use serenity::all::{ChannelId, UserId};

    #[test]
    fn a_message_waits_behind_others_of_its_thread_its_channel_or_its_player() {
        let reply = |channel: Option<&str>, dm: Option<&str>, key: Option<&str>| Reply {
            channel: channel.map(|c| crate::ids::ChannelId::new(c.to_string())),
            dm: dm.map(|u| crate::ids::UserId::new(u.to_string())),
            thread: key.map(|k| bot::ThreadRequest {
                key: k.into(),
                parent: crate::ids::ChannelId::new("10"),
                name: "game".into(),
            }),
            ..Reply::default()
        };
        // A game's thread by its key, opened or not, whatever channel the message names.
        assert_eq!(
            place_of(&reply(Some("t3-r1-b1"), None, Some("t3-r1-b1"))),
            "key t3-r1-b1"
        );
        assert_eq!(
            place_of(&reply(Some("t3-r1-b1"), None, None)),
            "key t3-r1-b1"
        );
        // A direct message, whichever channel it falls back to.
        assert_eq!(place_of(&reply(Some("42"), Some("7"), None)), "dm 7");
        assert_eq!(place_of(&reply(Some("42"), None, None)), "channel 42");
        assert_eq!(place_of(&reply(None, None, None)), "");
        assert_eq!(place_of(&reply(Some("0"), None, None)), "");
    }
    use crate::bot::{Document, Part};

    /// Issue 45: a stored channel is a Discord channel or a thread key, told apart once; a
    /// reference that is neither is nowhere (never channel 1, as an `unwrap_or(1)` made it).
    #[test]
    fn a_stored_channel_is_a_discord_channel_or_a_thread_key() {
        assert_eq!(
            Place::of("123456789"),
            Some(Place::Channel(ChannelId::new(123_456_789)))
        );
        assert_eq!(Place::of("t3-r2-b1"), Some(Place::Key("t3-r2-b1".into())));
        assert_eq!(Place::of("0"), None);
        assert_eq!(Place::of(""), None);
        assert_eq!(channel_of("t3"), None);
        assert!(is_key("t3") && !is_key("42"));
        let nowhere = Failure::Nowhere("no channel".into());
        assert!(gone(&nowhere) && !nowhere.retriable());
    }

    /// An error with a text and a source, as serenity's and reqwest's are.
    #[derive(Debug)]
    struct Nested(&'static str, Option<Box<Nested>>);

    impl std::fmt::Display for Nested {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Nested {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|n| n as _)
        }
    }

    fn nested(texts: &[&'static str]) -> Nested {
        let (first, rest) = texts.split_first().unwrap();
        Nested(first, (!rest.is_empty()).then(|| Box::new(nested(rest))))
    }

    #[test]
    fn an_error_chain_says_each_cause_once() {
        let e = nested(&[
            "Error while sending HTTP request.",
            "Error while sending HTTP request.",
            "error sending request for url (http://127.0.0.1:9/api/v10/gateway/bot)",
            "client error (Connect)",
            "tcp connect error: Connection refused (os error 111)",
            "Connection refused (os error 111)",
        ]);
        assert_eq!(
            error_chain(&e),
            "Error while sending HTTP request.: error sending request for url \
             (http://127.0.0.1:9/api/v10/gateway/bot): client error (Connect): tcp connect \
             error: Connection refused (os error 111)"
        );
        // Distinct causes all show; a lone error is itself.
        assert_eq!(error_chain(&nested(&["a", "b", "c"])), "a: b: c");
        assert_eq!(error_chain(&nested(&["only"])), "only");
    }

    #[test]
    fn start_up_tries_wait_one_second_doubling_up_to_five_minutes_with_jitter() {
        let secs = |attempt, r| startup_pause(attempt, r).as_secs_f64();
        let full: Vec<f64> = (1..=12).map(|a| secs(a, 0.0)).collect();
        assert_eq!(
            full,
            [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 300.0, 300.0, 300.0]
        );
        // The jitter takes up to half off, never adds.
        assert_eq!(secs(1, 0.999_999_9).round(), 1.0);
        assert!((secs(3, 0.5) - 3.0).abs() < 1e-9);
        assert!((secs(40, 1.0) - 150.0).abs() < 1e-9);
        for _ in 0..50 {
            let p = secs(4, rest::random());
            assert!((4.0..=8.0).contains(&p), "{p}");
        }
    }

    #[test]
    fn a_rate_limited_retry_waits_what_discord_asked_and_up_to_a_tenth_more() {
        for attempt in 1..4 {
            let p = retry_pause(attempt, Some(Duration::from_secs(1)));
            assert!(
                p >= Duration::from_secs(1) && p <= Duration::from_millis(1100)
                    || attempt == 3 && p <= Duration::from_millis(1300),
                "{attempt}: {p:?}"
            );
        }
        let p = retry_pause(1, None);
        assert!(p >= Duration::from_millis(250) && p <= Duration::from_millis(375));
    }

    #[test]
    fn an_empty_token_file_is_refused() {
        let dir = std::env::temp_dir().join(format!("tara-token-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("token");
        std::fs::write(&file, " \n\t\n").unwrap();
        if std::env::var("DISCORD_TOKEN").is_err() {
            let e = token(Some(&file)).unwrap_err();
            assert!(e.contains("is empty") && e.contains("token"), "{e}");
            std::fs::write(&file, "abc.def\n").unwrap();
            assert_eq!(token(Some(&file)).unwrap(), "abc.def");
        }
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn the_ping_goes_with_the_message_that_shows_the_mention() {
        let bob = "1000000000000000002";
        let reply = Reply {
            parts: vec![
                Part::Text(format!("Move by {}. ", "x".repeat(1990))),
                Part::User {
                    id: crate::ids::UserId::new(bob),
                    name: "bob".into(),
                },
                Part::Text(", your move.".into()),
            ],
            mentions: vec![crate::ids::UserId::new(bob)],
            ..Reply::default()
        };
        let out = outgoing(&reply);
        assert_eq!(out.len(), 2);
        assert!(out[0].mentions.is_empty() && !out[0].content.contains(bob));
        assert!(out[1].content.contains(&format!("<@{bob}>")));
        assert_eq!(
            out[1].mentions,
            vec![UserId::new(2 + 1_000_000_000_000_000_000)]
        );
    }

    /// Issue 47: the link to the web is a link button (style 5, a URL, no id) after the
    /// others; rows hold five buttons, so a board's five and its link make two rows; a
    /// message whose buttons fill all five rows goes without its link.
    #[test]
    fn the_link_button_comes_last_in_rows_of_five() {
        use super::outgoing::{as_message, to_json};
        let button = |i: usize| bot::Button {
            id: format!("step:1:{i}:s:0"),
            label: format!("b{i}"),
            style: bot::ButtonStyle::Secondary,
        };
        let mut reply = Reply {
            parts: vec![Part::Text("A board.".into())],
            buttons: (0..5).map(button).collect(),
            link: Some(bot::LinkButton {
                label: bot::OPEN_ON_THE_WEB.into(),
                url: "https://tara.example.org/g/1?ply=3".into(),
            }),
            ..Reply::default()
        };
        let json = |reply: &Reply| {
            let out = outgoing(reply);
            to_json(&as_message(&out[0], None)).unwrap()
        };
        let m = json(&reply);
        let rows = m["components"].as_array().unwrap();
        assert_eq!(rows.len(), 2, "{m}");
        assert_eq!(rows[0]["components"].as_array().unwrap().len(), 5);
        let link = &rows[1]["components"][0];
        assert_eq!(link["type"], 2);
        assert_eq!(link["style"], 5);
        assert_eq!(link["url"], "https://tara.example.org/g/1?ply=3");
        assert_eq!(link["label"], "Open on the web");
        assert!(link.get("custom_id").is_none(), "{link}");
        // Alone, it is the one button of one row.
        reply.buttons.clear();
        let m = json(&reply);
        assert_eq!(m["components"].as_array().unwrap().len(), 1);
        assert_eq!(m["components"][0]["components"][0]["style"], 5);
        // Twenty-five buttons fill the five rows: no room for the link.
        reply.buttons = (0..25).map(button).collect();
        let m = json(&reply);
        let rows = m["components"].as_array().unwrap();
        assert_eq!(rows.len(), 5);
        assert!(rows
            .iter()
            .flat_map(|r| r["components"].as_array().unwrap())
            .all(|b| b["style"] != 5));
        // Without one, a message's buttons are one row as before.
        reply.link = None;
        reply.buttons = (0..2).map(button).collect();
        assert_eq!(json(&reply)["components"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn a_long_text_with_a_document_goes_as_that_file() {
        let record = format!("variant: ard-ri\nmoves: {}\n", "c3-d4 ".repeat(400));
        let mut reply = Reply {
            parts: vec![Part::Text(format!("```\n{record}```"))],
            document: Some(Document {
                filename: "game-12.txt".into(),
                text: record.clone(),
                note: "The record of game 12 is attached.".into(),
                always: false,
            }),
            ..Reply::default()
        };
        let out = outgoing(&reply);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].content, "The record of game 12 is attached.");
        assert_eq!(
            out[0].files,
            vec![("game-12.txt".into(), record.into_bytes())]
        );
        // A short one is shown as text.
        reply.parts = vec![Part::Text("```\nvariant: hkot-1\n```".into())];
        let out = outgoing(&reply);
        assert!(out[0].files.is_empty() && out[0].content.contains("hkot-1"));
        // Unless it must always be a file (`/export`).
        if let Some(d) = reply.document.as_mut() {
            d.always = true;
        }
        let out = outgoing(&reply);
        assert_eq!(out[0].content, "The record of game 12 is attached.");
        assert_eq!(out[0].files[0].0, "game-12.txt");
    }
}
