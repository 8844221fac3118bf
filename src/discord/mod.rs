//! The Discord adapter (serenity): slash commands, autocomplete and buttons in, bot-core
//! replies out. No game logic here: every command goes to [`Bot::handle`], which commits before
//! anything is sent.

mod commands;
mod queues;
mod redact;
mod rest;
mod shards;
mod split;
mod threads;

use crate::ai_runner::{AiRunner, AiSettings};
use crate::bot::{self, Bot, ButtonStyle, Command, Ctx, EditTarget, Reply, User};
pub use redact::{error_chain, redact};
use rest::{Body, Failure};
use serenity::all::{
    ActionRowComponent, AutoArchiveDuration, ButtonKind, ButtonStyle as DButtonStyle, ChannelId,
    ChannelType, CommandInteraction, ComponentInteraction, Context, CreateActionRow,
    CreateAllowedMentions, CreateAutocompleteResponse, CreateButton, CreateInputText,
    CreateInteractionResponse, CreateInteractionResponseFollowup, CreateInteractionResponseMessage,
    CreateMessage, CreateModal, CreateThread, EditInteractionResponse, EditMessage, EventHandler,
    GatewayIntents, GuildId, Http, InputTextStyle, Interaction, MessageId, ModalInteraction, Nonce,
    Permissions, Ready, UserId,
};
pub use shards::ShardRange;
use split::split_content;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a command's messages elsewhere may go out before its answer (the rest follow it).
const SEND_FIRST_FOR: Duration = Duration::from_millis(500);
/// How long a command may take before the interaction is deferred (Discord allows 3 s).
const DEFER_AFTER: Duration = Duration::from_millis(2000);
/// How long one HTTP request may take before it is abandoned and retried.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// The error of a request abandoned after [`REQUEST_TIMEOUT`].
const TIMED_OUT: &str = "Discord did not answer in time";
/// How many times a request is tried before it counts as failed.
const ATTEMPTS: u32 = 4;

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

struct Handler {
    bot: Arc<Bot>,
    /// When this process started (the bot's clock): the owed messages created before are what
    /// an earlier run left unsent; those created since belong to this process's commands.
    started: i64,
    /// Searches the AI's moves off the async runtime.
    ai: Arc<AiRunner>,
    guild: Option<GuildId>,
    registered: AtomicBool,
    ticking: AtomicBool,
}

/// How often the clocks are checked for reminders and timeouts, and owed messages retried
/// (often enough that a message held back by a rate limit's wait, or by a thread being
/// opened, goes soon after).
const TICK_EVERY: Duration = Duration::from_secs(10);

/// Delivers what the clocks brought due (reminders and timeouts, to their channels or by DM)
/// and every message still owed: at once on start-up (what a crash or an outage left unsent),
/// then every 10 s (failed deliveries, each after its backoff), or four times a lease when the
/// lease is shorter than 40 s (so that work a dead process held is taken over soon after
/// its lease runs out). The clocks and the owed messages each keep their own schedule, and
/// both go through the delivery queues ([`queues`]): a backlog never holds back the clocks,
/// nor one thread's rate limit another thread's messages.
async fn tick_forever(bot: Arc<Bot>, ai: Arc<AiRunner>, http: Arc<Http>, me: UserId, started: i64) {
    let quarter = Duration::from_millis(bot.lease_ms() as u64 / 4);
    let every = TICK_EVERY.min(quarter);
    let deliveries = owed_queues(bot.clone(), http, me);
    let _ = OWED_QUEUES.set(deliveries.clone());
    // The clocks start once what was owed from before is queued: it goes first.
    let mut clocks = Some(ai);
    let mut interval = tokio::time::interval(every);
    let mut at_start = true;
    let mut invalid_logged = 0;
    loop {
        interval.tick().await;
        // What waits in the queues stays this process's.
        let (b, held) = (bot.clone(), deliveries.held());
        let _ = tokio::task::spawn_blocking(move || {
            b.renew_leases(&held.into_iter().collect::<Vec<_>>())
        })
        .await;
        // Then what is owed and not queued yet, oldest first, up to what the queues hold.
        let mut taken = 0;
        loop {
            let held = deliveries.held();
            if held.len() >= queues::MOST_HELD {
                break;
            }
            let b = bot.clone();
            // At start-up, what an earlier run left; a command of this process answered
            // meanwhile sends its own answer.
            let start_up = at_start.then_some(started - 1);
            let owed = tokio::task::spawn_blocking(move || b.undelivered_besides(start_up, &held))
                .await
                .unwrap_or_default();
            if owed.is_empty() {
                break;
            }
            taken += owed.len();
            for reply in owed {
                push_owed(&deliveries, reply, true, None);
            }
        }
        if taken > 0 {
            tracing::info!(messages = taken, "delivering owed messages");
        }
        at_start = false;
        if let Some(ai) = clocks.take() {
            tokio::spawn(clocks_forever(bot.clone(), ai, deliveries.clone(), every));
        }
        let invalid = rest::invalid_requests();
        if invalid != invalid_logged {
            tracing::info!(
                invalid,
                "requests Discord refused (401, 403, 429) in the last 10 minutes"
            );
            invalid_logged = invalid;
        }
    }
}

/// The clocks, every `every`: reminders, timeouts, expired challenges, digests and league
/// seasons, what they owe queued for delivery; then the AI's turns nobody searches.
async fn clocks_forever(
    bot: Arc<Bot>,
    ai: Arc<AiRunner>,
    deliveries: Arc<queues::Queues<Owed>>,
    every: Duration,
) {
    let mut interval = tokio::time::interval(every);
    loop {
        interval.tick().await;
        let b = bot.clone();
        let due = tokio::task::spawn_blocking(move || b.tick())
            .await
            .unwrap_or_default();
        for reply in due {
            push_owed(&deliveries, reply, false, None);
        }
        // Games where the AI is to move and no search runs (at start-up: those left by a
        // restart).
        ai.kick();
    }
}

/// One owed message for the delivery queues.
struct Owed {
    reply: Reply,
    /// Owed from before (not just made by the clocks): it may have been posted already by a
    /// delivery that stopped before recording it, so it is looked for first.
    look_first: bool,
    /// A command's own message elsewhere: it takes no turn of [`AT_ONCE`] (a command's messages
    /// never waited for the backlog's), its thread is archived by the command once all its
    /// messages are out, and the command hears what became of it: a problem to tell its user,
    /// and the reply whose thread is to be archived.
    command: Option<tokio::sync::oneshot::Sender<(Option<String>, Option<Reply>)>>,
}

/// The delivery queues of this process, once connected ([`owed_queues`]): commands queue their
/// messages elsewhere there too, so that each place gets its messages in the order owed.
static OWED_QUEUES: std::sync::OnceLock<Arc<queues::Queues<Owed>>> = std::sync::OnceLock::new();

/// How many owed messages are delivered at once, in all places: what a command posts itself
/// (a move, an answer) then finds room in the request budget within a second, whatever the
/// backlog.
const AT_ONCE: usize = 16;

/// How long a message that links to threads waits for them to open before it is tried (and,
/// if they are still not open, left owed for its next try).
const LINKS_WAIT: Duration = Duration::from_secs(10);
/// How often it looks.
const LINKS_RECHECK: Duration = Duration::from_millis(250);

/// This process's delivery queues ([`queues`]): each owed message waits for the threads it
/// links to (up to [`LINKS_WAIT`]), then for one of [`AT_ONCE`] turns, and is delivered.
fn owed_queues(bot: Arc<Bot>, http: Arc<Http>, me: UserId) -> Arc<queues::Queues<Owed>> {
    let turns = Arc::new(tokio::sync::Semaphore::new(AT_ONCE));
    queues::Queues::new(Box::new(move |job: Owed| {
        let (bot, http, turns) = (bot.clone(), http.clone(), turns.clone());
        Box::pin(async move {
            threads_linked(&bot, &job.reply).await;
            if let Some(done) = job.command {
                // A command's: delivered as the command would, its thread archived by it.
                let mut archive = Vec::new();
                let problem = deliver_archiving_later(&bot, &http, &job.reply, &mut archive).await;
                let _ = done.send((problem, archive.pop()));
                return;
            }
            let _turn = turns.acquire().await;
            deliver_owed(&bot, &http, me, &job).await;
        })
    }))
}

/// Queues an owed message behind the others of its place (a command's own with `command`,
/// which hears what became of it: [`Owed::command`]).
fn push_owed(
    queues: &Arc<queues::Queues<Owed>>,
    reply: Reply,
    look_first: bool,
    command: Option<tokio::sync::oneshot::Sender<(Option<String>, Option<Reply>)>>,
) {
    let (place, id) = (place_of(&reply), reply.outbox);
    let job = Owed {
        reply,
        look_first,
        command,
    };
    queues.push(place, id, job);
}

/// The queue a message waits in: its game's thread (by key, whether open yet or not), the
/// player's direct messages, or its channel.
fn place_of(reply: &Reply) -> String {
    if let Some(t) = &reply.thread {
        return format!("key {}", t.key);
    }
    if let Some(user) = &reply.dm {
        return format!("dm {user}");
    }
    match reply.channel.as_deref().and_then(Place::of) {
        Some(Place::Key(key)) => format!("key {key}"),
        Some(Place::Channel(c)) => format!("channel {c}"),
        None => String::new(),
    }
}

/// Waits, up to [`LINKS_WAIT`], until the threads a message links to are open (a round's
/// "Your games:" goes out as its games' threads are being opened, side by side): then it links
/// them at once, instead of waiting, owed, for its next try.
async fn threads_linked(bot: &Arc<Bot>, reply: &Reply) {
    let keys = thread_keys(reply);
    if keys.is_empty() {
        return;
    }
    let started = Instant::now();
    while started.elapsed() < LINKS_WAIT {
        let (b, k) = (bot.clone(), keys.clone());
        let open =
            tokio::task::spawn_blocking(move || k.iter().all(|key| b.thread_of(key).is_some()))
                .await
                .unwrap_or(false);
        if open {
            return;
        }
        tokio::time::sleep(LINKS_RECHECK).await;
    }
}

/// Delivers one owed message from the queues.
async fn deliver_owed(bot: &Arc<Bot>, http: &Http, me: UserId, job: &Owed) {
    if !job.look_first {
        deliver(bot, http, &job.reply).await;
        return;
    }
    // A message for a game's thread is looked for in that thread.
    let reply = if job.reply.thread.is_some() {
        open_thread(bot, http, &job.reply)
            .await
            .unwrap_or_else(|_| job.reply.clone())
    } else {
        job.reply.clone()
    };
    // (An edit is never a copy of a posted message: it is delivered as it is.)
    let posted = match reply.edits {
        None => already_posted(http, me, &reply).await,
        Some(_) => None,
    };
    match posted {
        Some(id) => report_as(bot, reply.outbox, Ok(()), Some(id)).await,
        None => {
            deliver(bot, http, &reply).await;
        }
    }
}

/// Whether an owed message is already in its channel or the player's direct messages: its
/// delivery went through (as a command's reply, which carries no nonce, or longer ago than
/// Discord remembers a nonce) but the bot stopped before recording it. The id of the copy
/// found.
async fn already_posted(http: &Http, me: UserId, reply: &Reply) -> Option<MessageId> {
    let first = outgoing(reply).into_iter().next()?;
    let channel = reply.channel.as_deref().and_then(channel_of);
    // A direct message is looked for in the player's DM channel (Discord remembers a nonce for
    // a few minutes only), then in the channel it falls back to when DMs are closed.
    let mut places = Vec::new();
    if let Some(user) = reply.dm.as_deref().and_then(|u| u.parse::<u64>().ok()) {
        if let Ok(dm) = dm_channel(http, UserId::new(user)).await {
            places.push(dm);
        }
    }
    places.extend(channel);
    for place in places {
        if let Ok(messages) = recent_messages(http, place).await {
            if let Some(m) = messages
                .iter()
                .find(|m| m.author.id == me && m.content == first.content)
            {
                return Some(m.id);
            }
        }
    }
    None
}

/// Records what became of an owed message.
async fn report(bot: &Arc<Bot>, id: Option<crate::store::MessageId>, result: Result<(), &Failure>) {
    report_as(bot, id, result, None).await;
}

/// Records that an owed message will never be sent.
async fn give_up(bot: &Arc<Bot>, id: Option<crate::store::MessageId>, why: &'static str) {
    let Some(id) = id else { return };
    let b = bot.clone();
    let _ = tokio::task::spawn_blocking(move || b.delivery_failed(id, why, true)).await;
}

/// [`report`], with the id of the (first) message posted, so that it can be edited later.
async fn report_as(
    bot: &Arc<Bot>,
    id: Option<crate::store::MessageId>,
    result: Result<(), &Failure>,
    posted: Option<MessageId>,
) {
    let Some(id) = id else { return };
    let b = bot.clone();
    let failure = result.err().map(|e| (said(e), gone(e), e.retry_in()));
    let _ = tokio::task::spawn_blocking(move || match failure {
        None => b.delivered_as(id, posted.map(|m| m.to_string()).as_deref()),
        Some((error, false, Some(wait))) => {
            b.delivery_deferred(id, &error, wait.as_millis() as i64 + 250)
        }
        Some((error, give_up, _)) => b.delivery_failed(id, &error, give_up),
    })
    .await;
}

/// Delivers an owed edit ([`Reply::edits`]: an analysis's progress): the text of the message
/// it is for replaced (`PATCH /channels/{c}/messages/{m}`), pinging nobody. It waits (stays
/// owed, for the retry loop) while that message is not posted yet; one superseded by a newer
/// edit is not sent; one whose message is gone, or was posted without its id recorded, is
/// given up.
async fn deliver_edit(bot: &Arc<Bot>, http: &Http, reply: &Reply) {
    let (b, r) = (bot.clone(), reply.clone());
    let target =
        tokio::task::spawn_blocking(move || (!b.superseded(&r)).then(|| b.edit_target(&r)))
            .await
            .ok()
            .flatten();
    let Some(target) = target else { return };
    let channel = reply.channel.as_deref().and_then(channel_of);
    let message = match &target {
        EditTarget::Owed => return,
        EditTarget::Posted(Some(m)) => m.parse::<u64>().ok().filter(|&m| m != 0),
        _ => None,
    };
    let (Some(channel), Some(message)) = (channel, message) else {
        if let Some(id) = reply.outbox {
            let b = bot.clone();
            let _ = tokio::task::spawn_blocking(move || {
                b.delivery_failed(id, "the message to edit is gone or unknown", true)
            })
            .await;
        }
        return;
    };
    let text = reply.markdown_with(mention, |c| format!("<#{c}>"));
    let content = split_content(&text).into_iter().next().unwrap_or_default();
    let edit = EditMessage::new()
        .content(content)
        .allowed_mentions(CreateAllowedMentions::new());
    let r = retry("editing a message", || {
        edit_message_anywhere(http, channel, MessageId::new(message), &edit)
    })
    .await;
    report(bot, reply.outbox, r.as_ref().map(|_| ())).await;
}

/// An error in words, for logs and the outbox: without the interaction token that a failed
/// request's URL carries.
fn said(e: &Failure) -> String {
    redact(&e.to_string(), &[])
}

/// The Discord error code of a refused request.
fn discord_code(e: &Failure) -> Option<isize> {
    e.code()
}

/// Whether a refusal is for good: the channel or user no longer exists.
fn gone(e: &Failure) -> bool {
    // An unknown channel or user, or a user who takes no direct messages from the bot (a
    // message that may go only to them: one with a channel to fall back on never gets here),
    // or a place that is none on Discord.
    matches!(e, Failure::Nowhere(_)) || matches!(discord_code(e), Some(10003 | 10013 | 50007))
}

/// Where a stored channel reference points on Discord. The store keeps both kinds in one
/// [`crate::store::ChannelId`]: a channel or thread by its Discord id, or the key of a game's
/// thread that may not be open yet ([`crate::bot::ThreadRequest::key`], `t3-r2-b1`).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Place {
    /// A channel or thread on Discord.
    Channel(ChannelId),
    /// A thread key: the thread recorded for it, once one is open.
    Key(String),
}

impl Place {
    /// What `c` names; `None` for an empty reference and for channel 0 (neither is anywhere).
    fn of(c: &str) -> Option<Place> {
        match c.parse::<u64>() {
            Ok(0) => None,
            Ok(id) => Some(Place::Channel(ChannelId::new(id))),
            Err(_) if c.trim().is_empty() => None,
            Err(_) => Some(Place::Key(c.to_string())),
        }
    }
}

/// The Discord channel `c` names, if it names one (not a thread key).
fn channel_of(c: &str) -> Option<ChannelId> {
    match Place::of(c)? {
        Place::Channel(id) => Some(id),
        Place::Key(_) => None,
    }
}

/// Whether `c` is a thread key (a game's thread, by its key).
fn is_key(c: &str) -> bool {
    matches!(Place::of(c), Some(Place::Key(_)))
}

/// A user as Discord shows them: a mention; the AI (whose id is no Discord id, and whose name
/// is the bot's own, "Tara-bot AI (level 3)") by its name in bold.
fn mention(id: &str, name: &str) -> String {
    if id.parse::<u64>().is_ok() {
        format!("<@{id}>")
    } else {
        format!(
            "**{}**",
            name.replace(['*', '<', '@', '`', '_', '|', '~'], "")
        )
    }
}

/// What a refusal means, when it is about the bot's permissions in `channel`: a sentence for
/// the user who asked.
fn permission_problem(e: &Failure, channel: ChannelId, action: &str) -> Option<String> {
    let missing = match discord_code(e)? {
        50001 => "View Channel (Missing Access)",
        50013 => match action {
            "thread" => "Create Public Threads and Send Messages in Threads",
            "thread post" => "Send Messages in Threads",
            _ => "Send Messages, Attach Files and Embed Links",
        },
        _ => return None,
    };
    Some(format!(
        "I could not {} in <#{channel}>: I need the permission {missing} there. A moderator can \
         grant it in the channel's settings.",
        match action {
            "thread" => "open a thread for the game",
            "thread post" => "post the challenge",
            _ => "post the game's messages",
        }
    ))
}

/// Posts an owed or scheduled message where it belongs: by DM (falling back to its channel
/// when the user takes no DMs) or to its channel; reports the outcome to the outbox. A refusal
/// for want of a permission is logged and returned, to tell whoever asked.
async fn deliver(bot: &Arc<Bot>, http: &Http, reply: &Reply) -> Option<String> {
    if reply.edits.is_some() {
        deliver_edit(bot, http, reply).await;
        return None;
    }
    // A message for a game whose thread is to open again (the old one was deleted): it goes
    // to the thread open for its key, or waits, owed, until there is one.
    let keyed;
    let reply = match reply.channel.as_deref().and_then(Place::of) {
        Some(Place::Key(key)) if reply.thread.is_none() => {
            let (b, k) = (bot.clone(), key.clone());
            match tokio::task::spawn_blocking(move || b.thread_of(&k))
                .await
                .ok()
                .flatten()
            {
                Some(thread) => {
                    keyed = Reply {
                        channel: Some(thread),
                        ..reply.clone()
                    };
                    &keyed
                }
                None => {
                    let why = Failure::NotYet(format!("the thread of {key} is not open yet"));
                    report(bot, reply.outbox, Err(&why)).await;
                    return None;
                }
            }
        }
        _ => reply,
    };
    let opened;
    let reply = if reply.thread.is_some() || has_thread_keys(reply) {
        match open_thread(bot, http, reply).await {
            Ok(r) => {
                opened = r;
                &opened
            }
            Err(e) => {
                report(bot, reply.outbox, Err(&e)).await;
                if let Some(t) = &reply.thread {
                    // Its players cannot see the game yet: its clock waits too.
                    let (b, key) = (bot.clone(), t.key.clone());
                    let _ = tokio::task::spawn_blocking(move || b.thread_waits(&key)).await;
                }
                let parent = reply.thread.as_ref().and_then(|t| channel_of(&t.parent))?;
                if discord_code(&e) == Some(THREADS_FULL) {
                    if let Some(t) = &reply.thread {
                        threads_full(bot, http, parent, &t.name).await;
                    }
                }
                return permission_problem(&e, parent, "thread");
            }
        }
    } else {
        reply
    };
    let channel = reply.channel.as_deref().and_then(channel_of);
    if let Some(user) = reply.dm.as_deref().and_then(|u| u.parse::<u64>().ok()) {
        let dm = match dm_channel(http, UserId::new(user)).await {
            Ok(dm) => post(http, dm, reply).await,
            Err(e) => Err(e),
        };
        match (dm, channel) {
            (Ok(_), _) => {
                report(bot, reply.outbox, Ok(())).await;
                return None;
            }
            (Err(e), Some(_)) => {
                tracing::warn!(error = %said(&e), user, "cannot send a direct message; posting in the game's channel");
            }
            (Err(e), None) => {
                report(bot, reply.outbox, Err(&e)).await;
                return None;
            }
        }
    }
    let channel = channel?;
    let r = post(http, channel, reply).await;
    if let Err(e) = &r {
        if discord_code(e) == Some(UNKNOWN_CHANNEL)
            && reply.dm.is_none()
            && moved_to_a_new_thread(bot, http, channel, reply, e).await
        {
            return None;
        }
    }
    report_as(
        bot,
        reply.outbox,
        r.as_ref().map(|_| ()),
        r.as_ref().ok().copied().flatten(),
    )
    .await;
    if r.is_ok() {
        retire_buttons(http, reply).await;
        archive_spent_thread(bot, http, reply).await;
    }
    let problem = permission_problem(r.as_ref().err()?, channel, "post")?;
    tracing::error!(%channel, "{problem}");
    Some(problem)
}

/// After `reply` met Discord's "unknown channel" (`e`) in `channel`: when that was a game's
/// thread a moderator deleted, the game moves to a new thread, and this message (moved with
/// it in the outbox) and the others moved go there. Whether the game moved.
async fn moved_to_a_new_thread(
    bot: &Arc<Bot>,
    http: &Http,
    channel: ChannelId,
    reply: &Reply,
    e: &Failure,
) -> bool {
    threads::closed(channel.get());
    let (b, gone) = (
        bot.clone(),
        crate::store::ChannelId::from(channel.to_string()),
    );
    let moved = tokio::task::spawn_blocking(move || b.thread_gone(&gone))
        .await
        .unwrap_or_default();
    if moved.is_empty() {
        return false;
    }
    tracing::warn!(%channel, "a game's thread was deleted: the game moves to a new thread");
    if let Some(id) = reply.outbox {
        let (b, why) = (bot.clone(), said(e));
        let _ = tokio::task::spawn_blocking(move || b.delivery_failed(id, &why, false)).await;
    }
    for m in moved {
        Box::pin(deliver(bot, http, &m)).await;
    }
    true
}

/// Whether a reply links to a pseudo-channel (a thread key such as `t3-r2-b1`).
fn has_thread_keys(reply: &Reply) -> bool {
    !thread_keys(reply).is_empty()
}

/// The thread keys a reply links to.
fn thread_keys(reply: &Reply) -> Vec<String> {
    reply
        .parts
        .iter()
        .filter_map(|p| match p {
            bot::Part::Channel(c) if is_key(c) => Some(c.to_string()),
            _ => None,
        })
        .collect()
}

/// A reply for a tournament game's thread ([`Reply::thread`]), addressed to the thread: the one
/// recorded for its key, or one opened now in its parent channel (found first among the
/// parent's active threads by its name, in case an earlier attempt opened it but stopped
/// before recording it) and recorded once. Links to thread keys become links to the threads.
async fn open_thread(bot: &Arc<Bot>, http: &Http, reply: &Reply) -> Result<Reply, Failure> {
    let mut reply = reply.clone();
    if let Some(req) = reply.thread.clone() {
        let b = bot.clone();
        let key = req.key.clone();
        let known = tokio::task::spawn_blocking(move || b.thread_of(&key))
            .await
            .unwrap_or_default();
        let thread = match known {
            Some(t) => t,
            None => {
                let Some(parent) = channel_of(&req.parent) else {
                    return Err(Failure::Nowhere(format!(
                        "the thread {} was to open in \"{}\", which is no Discord channel",
                        req.key, req.parent
                    )));
                };
                let name: String = req.name.chars().take(100).collect();
                // One opening at a time in a server, each seeing the ones before it.
                let _turn = match threads::guild_of(http, parent).await {
                    Some(guild) => Some(threads::opening(guild).await),
                    None => None,
                };
                // The server's active threads: one opened by an earlier attempt that stopped
                // before recording it is taken, and none is opened past the margin.
                let active = threads::active(http, parent).await;
                // (By its name, and not already another key's: two pairings may share a name.)
                let candidates: Vec<u64> = active
                    .iter()
                    .flat_map(|(_, list)| list)
                    .filter(|t| t.parent == parent.get() && t.name == name)
                    .map(|t| t.id)
                    .collect();
                let mut existing = None;
                for id in candidates {
                    let (b, c) = (bot.clone(), crate::store::ChannelId::from(id.to_string()));
                    let taken = tokio::task::spawn_blocking(move || b.thread_taken(&c))
                        .await
                        .unwrap_or(true);
                    if !taken {
                        existing = Some(ChannelId::new(id));
                        break;
                    }
                }
                let held = active.as_ref().map_or(0, |(_, list)| list.len());
                let margin = THREAD_MARGIN.load(Ordering::Relaxed);
                if existing.is_none() && held >= margin {
                    return Err(Failure::Refused {
                        status: 400,
                        code: THREADS_FULL,
                        message: format!(
                            "the server holds {held} active threads, the most the bot fills \
                             (Discord allows 1,000); not sent"
                        ),
                        retry_after: None,
                    });
                }
                let made = match existing {
                    Some(id) => id,
                    None => {
                        let made =
                            retry("creating a thread", || create_thread(http, parent, &name))
                                .await?;
                        if let Some((guild, _)) = &active {
                            let thread = threads::Thread {
                                id: made.get(),
                                parent: parent.get(),
                                name: name.clone(),
                            };
                            threads::opened(*guild, thread);
                        }
                        made
                    }
                };
                let b = bot.clone();
                let (key, id) = (
                    req.key.clone(),
                    crate::store::ChannelId::from(made.to_string()),
                );
                let recorded = tokio::task::spawn_blocking(move || b.thread_opened(&key, &id))
                    .await
                    .ok()
                    .flatten()
                    .unwrap_or_else(|| made.to_string().into());
                if recorded != made.to_string() && existing.is_none() {
                    // Another delivery opened it first: ours goes.
                    let _ = delete_channel(http, made).await;
                }
                recorded
            }
        };
        reply.channel = Some(thread);
    }
    let owed = reply.outbox.is_some();
    link_threads(bot, &mut reply, owed).await?;
    Ok(reply)
}

/// Links to thread keys become links to their threads. A link to a thread not open yet would
/// link nowhere: an owed message (`wait`) waits, owed and tried again, until it is open;
/// anything else shows that the thread is being opened instead of a link.
async fn link_threads(bot: &Arc<Bot>, reply: &mut Reply, wait: bool) -> Result<(), Failure> {
    for part in &mut reply.parts {
        let bot::Part::Channel(c) = part else {
            continue;
        };
        if !is_key(c) {
            continue;
        }
        let b = bot.clone();
        let key = c.clone();
        match tokio::task::spawn_blocking(move || b.thread_of(&key)).await {
            Ok(Some(t)) => *c = t,
            _ if wait => {
                return Err(Failure::NotYet(format!(
                    "the thread {c} it links to is not open yet"
                )))
            }
            _ => *part = bot::Part::Text("*(its thread is being opened)*".into()),
        }
    }
    Ok(())
}

/// Takes the buttons off the earlier message a posted reply makes useless ([`Reply::retire`]:
/// a challenge answered by a typed command, or expired): found among its channel's 50 latest
/// messages by the id of one of its buttons, its text replaced, pinging nobody.
async fn retire_buttons(http: &Http, reply: &Reply) {
    let Some(r) = &reply.retire else { return };
    let Some(channel) = channel_of(&r.channel) else {
        return;
    };
    let Ok(recent) = recent_messages(http, channel).await else {
        return;
    };
    let carries_button = |m: &&serenity::all::Message| {
        m.components.iter().flat_map(|row| &row.components).any(|c| {
            matches!(c, ActionRowComponent::Button(b)
                if matches!(&b.data, ButtonKind::NonLink { custom_id, .. } if *custom_id == r.button))
        })
    };
    let Some(message) = recent.iter().find(carries_button) else {
        return;
    };
    let text = r.text_with(mention, |c| format!("<#{c}>"));
    let edit = EditMessage::new()
        .content(text)
        .components(vec![])
        .allowed_mentions(CreateAllowedMentions::new());
    if let Err(e) = retry("taking the buttons off a message", || {
        edit_message_anywhere(http, channel, message.id, &edit)
    })
    .await
    {
        tracing::warn!(error = %e, %channel, "could not take the buttons off a spent message");
    }
}

/// The bot's own user id, from READY.
static ME: std::sync::OnceLock<UserId> = std::sync::OnceLock::new();

/// Archives the thread a posted reply names ([`Reply::archive_channel`]: a challenge's thread
/// that no game will use, or the thread of a game that ended with nothing more to come there),
/// if it is a thread this bot opened and still active; any other channel is left alone. A
/// game's thread key names the thread opened for it. Archived for a day of quiet: a later
/// message (an analysis) unarchives it, and it archives itself a day after.
async fn archive_spent_thread(bot: &Arc<Bot>, http: &Http, reply: &Reply) {
    let Some(c) = reply.archive_channel.clone() else {
        return;
    };
    let channel = match Place::of(&c) {
        Some(Place::Channel(id)) => Some(id),
        Some(Place::Key(key)) => {
            let b = bot.clone();
            tokio::task::spawn_blocking(move || b.thread_of(&key))
                .await
                .ok()
                .flatten()
                .and_then(|t| channel_of(&t))
        }
        None => None,
    };
    let Some(channel) = channel else {
        return;
    };
    let Ok(thread) = get_channel(http, channel).await else {
        return;
    };
    let is_thread = matches!(thread["type"].as_u64(), Some(11 | 12));
    let mine = ME
        .get()
        .is_some_and(|me| thread["owner_id"].as_str() == Some(me.to_string().as_str()));
    let archived = thread["thread_metadata"]["archived"].as_bool() == Some(true);
    if !is_thread || !mine || archived {
        return;
    }
    match set_archived(http, channel, true).await {
        Ok(()) => tracing::info!(%channel, "archived a thread with nothing more to come"),
        Err(e) => tracing::warn!(error = %said(&e), %channel, "could not archive a spent thread"),
    }
}

/// Posts every part of a reply to a channel, each with its own nonce when the reply is owed,
/// so that posting it again after a crash cannot make a second copy; the id of the first.
async fn post(
    http: &Http,
    channel: ChannelId,
    reply: &Reply,
) -> Result<Option<MessageId>, Failure> {
    let mut first = None;
    for (i, m) in outgoing(reply).into_iter().enumerate() {
        let m = Outgoing {
            ephemeral: false,
            ..m
        };
        let id = post_part(http, channel, &m, reply.outbox, i).await?;
        first = first.or(Some(id));
    }
    Ok(first)
}

/// Posts part `i` of a reply to a channel; an owed reply's parts carry the nonce
/// `tara-{outbox id}-{i}`, which Discord enforces.
async fn post_part(
    http: &Http,
    channel: ChannelId,
    m: &Outgoing,
    outbox: Option<crate::store::MessageId>,
    i: usize,
) -> Result<MessageId, Failure> {
    let nonce = outbox.map(|id| format!("tara-{id}-{i}"));
    let message = as_message(m, nonce);
    retry("posting to the channel", || {
        send_message(http, channel, &message, &m.files)
    })
    .await
}

/// `POST /channels/{c}/messages`: the new message's id.
async fn send_message(
    http: &Http,
    channel: ChannelId,
    m: &CreateMessage,
    files: &[(String, Vec<u8>)],
) -> Result<MessageId, Failure> {
    let body = Body {
        json: to_json(m)?,
        files,
    }
    .attach_at("");
    let path = format!("/channels/{channel}/messages");
    let answer = rest::request(http, reqwest::Method::POST, &path, Some(body)).await?;
    rest::id_of(answer.as_ref()).map(MessageId::new)
}

/// Discord's code for a server at its 1,000 active threads (also used when the server holds
/// as many as [`THREAD_MARGIN`] allows).
const THREADS_FULL: isize = 160_006;
/// The bot opens a thread only while its server holds fewer active threads than this.
static THREAD_MARGIN: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(crate::config::DEFAULT_THREAD_MARGIN as usize);
/// Discord's code for a channel that does not exist (a thread a moderator deleted).
const UNKNOWN_CHANNEL: isize = 10_003;
/// Discord's code for an operation on an archived thread (editing a message in it).
const THREAD_ARCHIVED: isize = 50_083;

/// When a command started more games in threads than the server has room for (an event's
/// start): what the one who started it is told privately, with the numbers, and what to do.
async fn threads_needed(http: &Http, replies: &[Reply]) -> Option<String> {
    let mut keys: Vec<&str> = replies
        .iter()
        .filter_map(|r| r.thread.as_ref())
        .map(|t| t.key.as_str())
        .collect();
    keys.sort_unstable();
    keys.dedup();
    let parent = replies
        .iter()
        .find_map(|r| r.thread.as_ref())?
        .parent
        .clone();
    let parent = channel_of(&parent)?;
    let needed = keys.len();
    let (_, active) = threads::active(http, parent).await?;
    let margin = THREAD_MARGIN.load(Ordering::Relaxed);
    let held = active.len();
    let free = margin.saturating_sub(held);
    (needed > free).then(|| {
        format!(
            "This needs {needed} threads, one per game, and the server has room for {free} \
             more: it holds {held} active threads, and the bot opens none past {margin} (Discord \
             allows 1,000 a server). {free} of the games start in their threads now; the other \
             {} start as threads are archived (each game's thread is archived when the game \
             ends), and each game's clock starts only when its thread opens. Nothing is lost. \
             To start everything at once, archive threads that are done, or choose an event \
             that needs fewer threads at a time (`pace:by-round`, smaller divisions).",
            needed - free
        )
    })
}

/// Says in `parent` that a game's thread cannot open because the server holds Discord's
/// 1,000 active threads (at most once in 10 minutes a channel; the game's messages stay owed
/// and are posted once a place frees).
async fn threads_full(bot: &Arc<Bot>, http: &Http, parent: ChannelId, name: &str) {
    static SAID: std::sync::Mutex<Vec<(ChannelId, Instant)>> = std::sync::Mutex::new(Vec::new());
    {
        let mut said = SAID
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        said.retain(|(_, at)| at.elapsed() < Duration::from_secs(600));
        if said.iter().any(|(c, _)| *c == parent) {
            return;
        }
        said.push((parent, Instant::now()));
    }
    tracing::warn!(%parent, "the server holds as many active threads as it can: a game's thread waits");
    let left = 1000usize.saturating_sub(THREAD_MARGIN.load(Ordering::Relaxed));
    let (b, channel, name) = (
        bot.clone(),
        crate::store::ChannelId::from(parent.to_string()),
        name.to_string(),
    );
    let owed = tokio::task::spawn_blocking(move || b.threads_full(&channel, &name, left))
        .await
        .unwrap_or_default();
    for m in owed {
        Box::pin(deliver(bot, http, &m)).await;
    }
}

/// [`edit_message`] wherever the message is: in an archived thread (50083) the thread is
/// unarchived first (it archives itself again after its quiet time).
async fn edit_message_anywhere(
    http: &Http,
    channel: ChannelId,
    message: MessageId,
    e: &EditMessage,
) -> Result<(), Failure> {
    match edit_message(http, channel, message, e).await {
        Err(f) if discord_code(&f) == Some(THREAD_ARCHIVED) => {
            set_archived(http, channel, false).await?;
            tracing::info!(%channel, "unarchived a thread to edit a message in it");
            edit_message(http, channel, message, e).await
        }
        r => r,
    }
}

/// `PATCH /channels/{c}/messages/{m}`.
async fn edit_message(
    http: &Http,
    channel: ChannelId,
    message: MessageId,
    e: &EditMessage,
) -> Result<(), Failure> {
    let body = Body {
        json: to_json(e)?,
        files: &[],
    };
    let path = format!("/channels/{channel}/messages/{message}");
    rest::request(http, reqwest::Method::PATCH, &path, Some(body))
        .await
        .map(|_| ())
}

/// `GET /channels/{c}/messages?limit=50`: the channel's 50 latest messages, newest first.
async fn recent_messages(
    http: &Http,
    channel: ChannelId,
) -> Result<Vec<serenity::all::Message>, Failure> {
    let path = format!("/channels/{channel}/messages?limit=50");
    let answer = rest::request(http, reqwest::Method::GET, &path, None).await?;
    serde_json::from_value(answer.unwrap_or(serde_json::Value::Null))
        .map_err(|e| Failure::Unanswered(format!("Discord's list of messages was unreadable: {e}")))
}

/// `POST /users/@me/channels`: the direct-message channel with a user.
async fn dm_channel(http: &Http, user: UserId) -> Result<ChannelId, Failure> {
    // A user's DM channel never changes: asked for once per process.
    static KNOWN: std::sync::LazyLock<
        std::sync::Mutex<std::collections::HashMap<UserId, ChannelId>>,
    > = std::sync::LazyLock::new(Default::default);
    let known = || {
        KNOWN
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    let cached = known().get(&user).copied();
    if let Some(dm) = cached {
        return Ok(dm);
    }
    let dm = open_dm_channel(http, user).await?;
    known().insert(user, dm);
    Ok(dm)
}

/// `POST /users/@me/channels`: the DM channel with `user`.
async fn open_dm_channel(http: &Http, user: UserId) -> Result<ChannelId, Failure> {
    let body = Body {
        json: serde_json::json!({ "recipient_id": user.to_string() }),
        files: &[],
    };
    let answer = rest::request(
        http,
        reqwest::Method::POST,
        "/users/@me/channels",
        Some(body),
    )
    .await?;
    rest::id_of(answer.as_ref()).map(ChannelId::new)
}

/// `GET /channels/{c}`: a channel as Discord describes it (type, guild, owner of a thread).
async fn get_channel(http: &Http, channel: ChannelId) -> Result<serde_json::Value, Failure> {
    let path = format!("/channels/{channel}");
    rest::request(http, reqwest::Method::GET, &path, None)
        .await?
        .ok_or_else(|| Failure::Unanswered("Discord's answer carried no channel".into()))
}

/// `PATCH /channels/{c}`: archives a thread (to archive itself again after a day of quiet
/// when a later message unarchives it), or unarchives it.
async fn set_archived(http: &Http, thread: ChannelId, archived: bool) -> Result<(), Failure> {
    let json = if archived {
        serde_json::json!({ "archived": true, "auto_archive_duration": 1440 })
    } else {
        serde_json::json!({ "archived": false })
    };
    let body = Body { json, files: &[] };
    let path = format!("/channels/{thread}");
    rest::request(http, reqwest::Method::PATCH, &path, Some(body)).await?;
    if archived {
        threads::closed(thread.get());
    }
    Ok(())
}

/// `DELETE /channels/{c}`: deletes a channel (a thread opened for nothing).
async fn delete_channel(http: &Http, channel: ChannelId) -> Result<(), Failure> {
    let path = format!("/channels/{channel}");
    rest::request(http, reqwest::Method::DELETE, &path, None).await?;
    threads::closed(channel.get());
    Ok(())
}

/// `POST /channels/{c}/threads`: a public thread (archived after a week of quiet), its id.
async fn create_thread(http: &Http, parent: ChannelId, name: &str) -> Result<ChannelId, Failure> {
    let thread = CreateThread::new(name)
        .kind(ChannelType::PublicThread)
        .auto_archive_duration(AutoArchiveDuration::OneWeek);
    let body = Body {
        json: to_json(&thread)?,
        files: &[],
    };
    let path = format!("/channels/{parent}/threads");
    let answer = rest::request(http, reqwest::Method::POST, &path, Some(body)).await?;
    rest::id_of(answer.as_ref()).map(ChannelId::new)
}

#[serenity::async_trait]
impl EventHandler for Handler {
    async fn ready(&self, ctx: Context, ready: Ready) {
        tracing::info!(user = %ready.user.name, shard = ?ready.shard, "connected to Discord");
        // A challenge to the bot's own user is a game against the AI.
        self.bot.set_self_user(&ready.user.id.to_string().into());
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

/// Whether a member may moderate games (abort any game).
fn moderator(perms: Option<Permissions>) -> bool {
    perms.is_some_and(|p| {
        p.contains(Permissions::ADMINISTRATOR)
            || p.contains(Permissions::MANAGE_MESSAGES)
            || p.contains(Permissions::MANAGE_GUILD)
    })
}

/// Whether a member may change the server's settings.
fn manager(perms: Option<Permissions>) -> bool {
    perms.is_some_and(|p| {
        p.contains(Permissions::ADMINISTRATOR) || p.contains(Permissions::MANAGE_GUILD)
    })
}

/// Who sent an interaction, and where.
fn interaction_ctx(
    guild: Option<GuildId>,
    channel: ChannelId,
    user: &serenity::all::User,
    member: Option<&serenity::all::Member>,
) -> Ctx {
    let nick = member.and_then(|m| m.nick.as_deref());
    Ctx {
        server: guild
            .map(|g| g.to_string().into())
            .unwrap_or_else(|| bot::commands::DM_SERVER.into()),
        channel: channel.to_string().into(),
        user: User::new(user.id.to_string(), commands::display_name(user, nick)),
        moderator: moderator(member.and_then(|m| m.permissions)),
        manager: manager(member.and_then(|m| m.permissions)),
        roles: member.map_or_else(Vec::new, |m| {
            m.roles.iter().map(|r| r.to_string()).collect()
        }),
    }
}

fn command_ctx(cmd: &CommandInteraction) -> Ctx {
    interaction_ctx(
        cmd.guild_id,
        cmd.channel_id,
        &cmd.user,
        cmd.member.as_deref(),
    )
}

fn component_ctx(c: &ComponentInteraction) -> Ctx {
    interaction_ctx(c.guild_id, c.channel_id, &c.user, c.member.as_ref())
}

fn dialog_ctx(m: &ModalInteraction) -> Ctx {
    interaction_ctx(m.guild_id, m.channel_id, &m.user, m.member.as_ref())
}

/// A dialog the core asks for ([`bot::Dialog`]) as Discord's modal: one short text input.
fn modal(d: bot::Dialog) -> CreateInteractionResponse {
    let input = CreateInputText::new(InputTextStyle::Short, d.label, DIALOG_INPUT)
        .placeholder(d.placeholder)
        .required(true)
        .max_length(20);
    CreateInteractionResponse::Modal(
        CreateModal::new(d.id, d.title).components(vec![CreateActionRow::InputText(input)]),
    )
}

/// The custom id of a dialog's one text input.
const DIALOG_INPUT: &str = "value";

/// Text longer than this goes as a file when the reply offers one ([`Reply::document`]).
const FILE_AFTER: usize = 1900;

/// One Discord message built from a reply.
struct Outgoing {
    content: String,
    ephemeral: bool,
    /// The users this message pings: those whose mention it carries.
    mentions: Vec<UserId>,
    files: Vec<(String, Vec<u8>)>,
    buttons: Vec<CreateButton>,
}

fn outgoing(reply: &Reply) -> Vec<Outgoing> {
    let text = reply.markdown_with(mention, |c| format!("<#{c}>"));
    // A long text the core also gives as a file (a game record) goes as that file.
    let (chunks, document) = match &reply.document {
        Some(d) if d.always || text.chars().count() > FILE_AFTER => (
            vec![d.note.clone()],
            Some((d.filename.clone(), d.text.clone().into_bytes())),
        ),
        _ => (split_content(&text), None),
    };
    let n = chunks.len();
    let mentions: Vec<UserId> = reply
        .mentions
        .iter()
        .filter_map(|m| m.parse::<u64>().ok())
        .filter(|&m| m != 0)
        .map(UserId::new)
        .collect();
    // Each user is pinged by the first message that shows their mention (by the first
    // message when none does).
    let pinged_in: Vec<usize> = mentions
        .iter()
        .map(|u| {
            let tag = format!("<@{u}>");
            chunks.iter().position(|c| c.contains(&tag)).unwrap_or(0)
        })
        .collect();
    let mut document = document;
    chunks
        .into_iter()
        .enumerate()
        .map(|(i, content)| {
            let last = i + 1 == n;
            let mut files = Vec::new();
            if last {
                files.extend(document.take());
                files.extend(
                    reply
                        .image
                        .as_ref()
                        .map(|a| (a.filename.clone(), a.bytes.clone())),
                );
            }
            Outgoing {
                content,
                ephemeral: reply.ephemeral,
                mentions: mentions
                    .iter()
                    .zip(&pinged_in)
                    .filter(|(_, &at)| at == i)
                    .map(|(u, _)| *u)
                    .collect(),
                files,
                buttons: if last {
                    reply
                        .buttons
                        .iter()
                        .map(|b| {
                            CreateButton::new(b.id.clone())
                                .label(b.label.clone())
                                .style(match b.style {
                                    ButtonStyle::Primary => DButtonStyle::Primary,
                                    ButtonStyle::Secondary => DButtonStyle::Secondary,
                                    ButtonStyle::Success => DButtonStyle::Success,
                                    ButtonStyle::Danger => DButtonStyle::Danger,
                                })
                        })
                        .collect()
                } else {
                    vec![]
                },
            }
        })
        .collect()
}

fn allowed(o: &Outgoing) -> CreateAllowedMentions {
    CreateAllowedMentions::new()
        .users(o.mentions.clone())
        .everyone(false)
        .all_roles(false)
        .replied_user(false)
}

/// Fills any of serenity's message builders from an [`Outgoing`]: content, allowed mentions
/// and the buttons. (Its files go with the request: [`rest::Body`].)
macro_rules! fill {
    ($builder:expr, $o:expr) => {{
        let o: &Outgoing = $o;
        let m = $builder
            .content(o.content.clone())
            .allowed_mentions(allowed(o));
        if o.buttons.is_empty() {
            m
        } else {
            m.components(vec![CreateActionRow::Buttons(o.buttons.clone())])
        }
    }};
}

fn as_response(o: &Outgoing) -> CreateInteractionResponseMessage {
    fill!(
        CreateInteractionResponseMessage::new().ephemeral(o.ephemeral),
        o
    )
}

fn as_followup(o: &Outgoing) -> CreateInteractionResponseFollowup {
    fill!(
        CreateInteractionResponseFollowup::new().ephemeral(o.ephemeral),
        o
    )
}

fn as_message(o: &Outgoing, nonce: Option<String>) -> CreateMessage {
    let m = fill!(CreateMessage::new(), o);
    match nonce {
        Some(n) => m.nonce(Nonce::String(n)).enforce_nonce(true),
        None => m,
    }
}

/// A request body from one of serenity's builders.
fn to_json(builder: &impl serde::Serialize) -> Result<serde_json::Value, Failure> {
    serde_json::to_value(builder).map_err(|e| Failure::Unanswered(e.to_string()))
}

fn as_edit(o: &Outgoing) -> EditInteractionResponse {
    fill!(EditInteractionResponse::new(), o)
}

/// Runs an HTTP call up to [`ATTEMPTS`] times: network trouble, server errors and rate limits
/// are retried after a growing, jittered pause (a rate limit after the `retry_after` Discord
/// gave, plus up to a tenth more); Discord refusing the request is reported at once. The
/// adapter's own requests ([`rest`]) also wait out every rate limit known for their route
/// before they are sent, so a retry never comes early.
async fn retry<T, E, F, Fut>(what: &str, mut f: F) -> Result<T, Failure>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, E>>,
    E: Into<Failure>,
{
    let mut attempt = 1;
    loop {
        // A request Discord does not answer in time counts as failed (serenity sets no timeout).
        let answer = match tokio::time::timeout(REQUEST_TIMEOUT, f()).await {
            Ok(a) => a.map_err(Into::into),
            Err(_) => Err(Failure::Unanswered(TIMED_OUT.into())),
        };
        match answer {
            Ok(v) => return Ok(v),
            Err(e) if attempt < ATTEMPTS && e.retriable() => {
                let pause = retry_pause(attempt, e.retry_after());
                tracing::warn!(error = %said(&e), attempt, ms = pause.as_millis() as u64, "{what} failed; retrying");
                tokio::time::sleep(pause).await;
                attempt += 1;
            }
            Err(e) if e.code() == Some(CANNOT_DM) => {
                // Not a failure of ours: the user's privacy settings refuse the bot's direct
                // messages; whatever has a channel to fall back on goes there.
                tracing::warn!(
                    error = %said(&e),
                    "{what}: the user takes no direct messages from the bot (their privacy settings, Discord code 50007)"
                );
                return Err(e);
            }
            Err(e) => {
                tracing::error!(error = %said(&e), "{what} failed");
                return Err(e);
            }
        }
    }
}

/// Discord's code for a direct message the user's settings refuse.
const CANNOT_DM: isize = 50007;

/// The pause before try `attempt + 1`: 250 ms, 750 ms, 2.25 s… plus up to half again at
/// random; after a rate limit, the wait Discord asked for plus up to a tenth more (and never
/// less than the growing pause would be).
fn retry_pause(attempt: u32, retry_after: Option<Duration>) -> Duration {
    let growing = Duration::from_millis(250) * 3u32.pow(attempt.saturating_sub(1).min(6));
    match retry_after {
        Some(wait) => rest::jittered(wait.max(growing / 2), 0.1),
        None => rest::jittered(growing, 0.5),
    }
}

/// Who to answer and how.
enum Target<'a> {
    Command(&'a CommandInteraction),
    Component(&'a ComponentInteraction),
    /// A dialog's answer (a modal submitted from a button under a message).
    Dialog(&'a ModalInteraction),
}

impl Target<'_> {
    /// The interaction's id, its application's id and its token.
    fn ids(&self) -> (u64, u64, &str) {
        match self {
            Target::Command(c) => (c.id.get(), c.application_id.get(), &c.token),
            Target::Component(c) => (c.id.get(), c.application_id.get(), &c.token),
            Target::Dialog(m) => (m.id.get(), m.application_id.get(), &m.token),
        }
    }
    /// `…/messages/@original` of the interaction's webhook.
    fn original_path(&self) -> String {
        let (_, app, token) = self.ids();
        format!("/webhooks/{app}/{token}/messages/@original")
    }
    async fn respond(
        &self,
        http: &Http,
        r: &CreateInteractionResponse,
        files: &[(String, Vec<u8>)],
    ) -> Result<(), Failure> {
        let (id, _, token) = self.ids();
        let body = Body {
            json: to_json(r)?,
            files,
        }
        .attach_at("/data");
        let path = format!("/interactions/{id}/{token}/callback");
        rest::request(http, reqwest::Method::POST, &path, Some(body))
            .await
            .map(|_| ())
    }
    async fn followup(
        &self,
        http: &Http,
        f: &CreateInteractionResponseFollowup,
        files: &[(String, Vec<u8>)],
    ) -> Result<MessageId, Failure> {
        let (_, app, token) = self.ids();
        let body = Body {
            json: to_json(f)?,
            files,
        }
        .attach_at("");
        let path = format!("/webhooks/{app}/{token}");
        let answer = rest::request(http, reqwest::Method::POST, &path, Some(body)).await?;
        rest::id_of(answer.as_ref()).map(MessageId::new)
    }
    /// The id of the response, once sent (`GET …/messages/@original`).
    async fn original(&self, http: &Http) -> Result<MessageId, Failure> {
        let answer = rest::request(http, reqwest::Method::GET, &self.original_path(), None).await?;
        rest::id_of(answer.as_ref()).map(MessageId::new)
    }
    async fn delete_original(&self, http: &Http) -> Result<(), Failure> {
        rest::request(http, reqwest::Method::DELETE, &self.original_path(), None)
            .await
            .map(|_| ())
    }
    async fn edit(
        &self,
        http: &Http,
        e: &EditInteractionResponse,
        files: &[(String, Vec<u8>)],
    ) -> Result<MessageId, Failure> {
        let body = Body {
            json: to_json(e)?,
            files,
        }
        .attach_at("");
        let answer = rest::request(
            http,
            reqwest::Method::PATCH,
            &self.original_path(),
            Some(body),
        )
        .await?;
        rest::id_of(answer.as_ref()).map(MessageId::new)
    }
    fn channel(&self) -> ChannelId {
        match self {
            Target::Command(c) => c.channel_id,
            Target::Component(c) => c.channel_id,
            Target::Dialog(m) => m.channel_id,
        }
    }
}

/// Whether, and how, an interaction was deferred ("thinking…").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Deferred {
    No,
    /// Seen by everyone in the channel.
    Public,
    /// Seen only by the user.
    Private,
}

/// Runs the bot core off the async threads; defers the interaction if it takes long (privately
/// for a command whose answer is private). `admitted`: the command was already counted against
/// the user's rate limit ([`Bot::admit`]).
async fn handle_timed(
    bot: &Arc<Bot>,
    http: &Http,
    target: &Target<'_>,
    ctx: Ctx,
    cmd: Command,
    admitted: bool,
) -> (Vec<Reply>, Deferred) {
    let b = bot.clone();
    let private = cmd.answers_privately();
    let mut job = tokio::task::spawn_blocking(move || {
        if admitted {
            b.handle_admitted(&ctx, cmd)
        } else {
            b.handle(&ctx, cmd)
        }
    });
    tokio::select! {
        done = &mut job => (done.unwrap_or_else(|e| vec![internal_error(e)]), Deferred::No),
        _ = tokio::time::sleep(DEFER_AFTER) => {
            let defer = CreateInteractionResponse::Defer(
                CreateInteractionResponseMessage::new().ephemeral(private),
            );
            let deferred = retry("deferring", || target.respond(http, &defer, &[])).await;
            let how = match (deferred, private) {
                (Err(_), _) => Deferred::No,
                (Ok(()), true) => Deferred::Private,
                (Ok(()), false) => Deferred::Public,
            };
            (job.await.unwrap_or_else(|e| vec![internal_error(e)]), how)
        }
    }
}

fn internal_error(e: tokio::task::JoinError) -> Reply {
    tracing::error!(error = %e, "bot core panicked");
    Reply::private("Something went wrong on our side and nothing was changed; please try again.")
}

/// [`deliver`], leaving the thread the reply archives to `spent` (archived once every reply of
/// the command is out).
async fn deliver_archiving_later(
    bot: &Arc<Bot>,
    http: &Http,
    reply: &Reply,
    spent: &mut Vec<Reply>,
) -> Option<String> {
    if reply.archive_channel.is_none() {
        return deliver(bot, http, reply).await;
    }
    spent.push(reply.clone());
    let now = Reply {
        archive_channel: None,
        ..reply.clone()
    };
    deliver(bot, http, &now).await
}

/// Sends replies: the first as the interaction response (or the edit of a deferred one), the
/// rest as follow-ups; replies for other channels are posted there (a little before the
/// answer, the rest after it). A private reply is only ever sent as a private response or
/// follow-up: when the interaction was deferred publicly, the public "thinking…" is deleted
/// and the answer follows privately. A public reply that cannot be sent as a response falls
/// back to a channel message. Owed replies are reported delivered, or failed (to be retried
/// from the outbox).
async fn send(
    bot: &Arc<Bot>,
    http: &Http,
    target: &Target<'_>,
    replies: &[Reply],
    deferred: Deferred,
    update_buttons: bool,
) {
    let here = target.channel().to_string();
    let elsewhere_of = |r: &Reply| {
        r.dm.is_some() || r.thread.is_some() || r.channel.as_ref().is_some_and(|c| *c != here)
    };
    // An answer here: a reply with no channel of its own, even if it links to threads.
    let answer_here = |r: &Reply| !elsewhere_of(r) && (r.channel.is_none() || !has_thread_keys(r));
    let (elsewhere, here_replies): (Vec<&Reply>, Vec<&Reply>) =
        replies.iter().partition(|r| !answer_here(r));
    // What goes elsewhere (other channels, threads, DMs) goes first when it is little (a
    // challenge's thread, so that the answer can link it); an event's hundreds of games
    // follow the answer, so that the command is answered within Discord's 3 seconds whatever
    // it brought about. Each is owed in the outbox, so a stop in between loses none.
    // Both go side by side: the answer waits for what goes elsewhere at most
    // SEND_FIRST_FOR, and never for a delivery held up by a rate limit beyond it.
    let first_out = tokio::sync::Notify::new();
    let elsewhere_part = async {
        let out = send_elsewhere(bot, http, elsewhere).await;
        first_out.notify_one();
        out
    };
    let answer_part = async {
        let _ = tokio::time::timeout(SEND_FIRST_FOR, first_out.notified()).await;
        let answer = Answer {
            target,
            deferred,
            update_buttons,
        };
        answer.send(bot, http, replies, here_replies).await
    };
    let ((elsewhere_problems, elsewhere_spent), (answer_problems, answer_spent, answered)) =
        tokio::join!(elsewhere_part, answer_part);
    let mut problems = elsewhere_problems;
    problems.extend(answer_problems);
    for r in elsewhere_spent.iter().chain(&answer_spent) {
        archive_spent_thread(bot, http, r).await;
    }
    problems.dedup();
    for p in problems {
        tell_privately(http, target, answered, p).await;
    }
}

/// Delivers the replies of a command that go elsewhere (other channels, threads, DMs), each
/// behind what its place already waits for (in the order owed), the places side by side: the
/// problems to tell the user, and the threads to archive once every reply is out.
async fn send_elsewhere(
    bot: &Arc<Bot>,
    http: &Http,
    elsewhere: Vec<&Reply>,
) -> (Vec<String>, Vec<Reply>) {
    let (mut problems, mut spent) = (Vec::new(), Vec::new());
    match OWED_QUEUES.get() {
        Some(queues) => {
            let mut outcomes = Vec::with_capacity(elsewhere.len());
            for r in elsewhere {
                let (done, outcome) = tokio::sync::oneshot::channel();
                push_owed(queues, r.clone(), false, Some(done));
                outcomes.push(outcome);
            }
            for outcome in outcomes {
                // (Dropped unsent: the message was already on its way in the queues.)
                if let Ok((problem, archive)) = outcome.await {
                    problems.extend(problem);
                    spent.extend(archive);
                }
            }
        }
        None => {
            for r in elsewhere {
                problems.extend(deliver_archiving_later(bot, http, r, &mut spent).await);
            }
        }
    }
    (problems, spent)
}

/// A problem told to the user privately: as a follow-up once the interaction is `answered`,
/// else as its response.
async fn tell_privately(http: &Http, target: &Target<'_>, answered: bool, problem: String) {
    let m = Outgoing {
        content: problem,
        ephemeral: true,
        mentions: vec![],
        files: vec![],
        buttons: vec![],
    };
    let _ = if answered {
        let followup = as_followup(&m);
        retry("sending a follow-up", || {
            target.followup(http, &followup, &[])
        })
        .await
        .map(|_| ())
    } else {
        let response = CreateInteractionResponse::Message(as_response(&m));
        retry("responding", || target.respond(http, &response, &[])).await
    };
}

/// The answer to an interaction: where, whether it was deferred (and to whom), and whether a
/// pressed button's message is updated.
struct Answer<'a, 'b> {
    target: &'a Target<'b>,
    deferred: Deferred,
    update_buttons: bool,
}

/// Where an answer stands: whether the interaction has been answered (follow-ups are possible),
/// and whether its answer is still the deferred "thinking…" waiting for its content.
struct Answering {
    answered: bool,
    pending_edit: bool,
}

impl Answer<'_, '_> {
    /// Sends the replies that answer here (`here_replies`, of all the command's `replies`):
    /// the problems to tell the user, the threads to archive once every reply is out (the
    /// answer here may go in one of them), and whether the interaction was answered.
    async fn send(
        &self,
        bot: &Arc<Bot>,
        http: &Http,
        replies: &[Reply],
        here_replies: Vec<&Reply>,
    ) -> (Vec<String>, Vec<Reply>, bool) {
        let (mut problems, mut spent): (Vec<String>, Vec<Reply>) = (Vec::new(), Vec::new());
        // An answer that links to threads: linked to those open, the others said to be opening
        // (an answer cannot wait for them).
        let mut linked: Vec<Reply> = Vec::with_capacity(here_replies.len());
        for r in here_replies {
            let mut r = r.clone();
            if has_thread_keys(&r) {
                let _ = link_threads(bot, &mut r, false).await;
            }
            linked.push(r);
        }
        let mut replies_here: Vec<&Reply> = linked.iter().collect();
        let mut state = Answering {
            answered: self.deferred != Deferred::No,
            pending_edit: self.deferred != Deferred::No,
        };
        if self.update_buttons && self.deferred == Deferred::No {
            let replaces = replies_here.first().is_some_and(|r| r.replaces_pressed);
            let first = replaces.then(|| replies_here.remove(0));
            state.answered = self.update_pressed(http, replies, first).await;
        }
        for reply in replies_here {
            let result = self
                .send_reply(bot, http, reply, &mut state, &mut problems)
                .await;
            if result.is_ok() {
                if !self.update_buttons {
                    // (A pressed button's own message was updated above.)
                    retire_buttons(http, reply).await;
                }
                if reply.archive_channel.is_some() {
                    spent.push(reply.clone());
                }
            }
        }
        (problems, spent, state.answered)
    }

    /// A pressed button's message updated: to the answer `first`, text and buttons, pinging
    /// nobody, when the answer takes its place (a page of /history); else it loses its buttons
    /// and takes the core's new text for it, if `replies` give one (an answered challenge).
    /// Whether the interaction is answered.
    async fn update_pressed(&self, http: &Http, replies: &[Reply], first: Option<&Reply>) -> bool {
        let target = self.target;
        if let Some(first) = first {
            let page = outgoing(first).into_iter().next();
            let m = page.as_ref().map_or_else(
                || CreateInteractionResponseMessage::new().components(vec![]),
                |o| {
                    CreateInteractionResponseMessage::new()
                        .content(o.content.clone())
                        .allowed_mentions(CreateAllowedMentions::new())
                        .components(if o.buttons.is_empty() {
                            vec![]
                        } else {
                            vec![CreateActionRow::Buttons(o.buttons.clone())]
                        })
                },
            );
            let update = CreateInteractionResponse::UpdateMessage(m);
            // Its picture (a board stepped to) replaces the message's, as Discord takes the files
            // listed in an update for all the message keeps.
            let files = page.map(|o| o.files).unwrap_or_default();
            return retry("replacing the message", || {
                target.respond(http, &update, &files)
            })
            .await
            .is_ok();
        }
        let pressed = replies
            .iter()
            .find_map(|r| r.pressed_text_with(mention, |c| format!("<#{c}>")));
        let update = CreateInteractionResponse::UpdateMessage(pressed.iter().fold(
            CreateInteractionResponseMessage::new().components(vec![]),
            |m, text| {
                m.content(text.clone())
                    .allowed_mentions(CreateAllowedMentions::new())
            },
        ));
        retry("updating the message", || {
            target.respond(http, &update, &[])
        })
        .await
        .is_ok()
    }

    /// Sends one reply's messages as the response, the deferred answer's edit or follow-ups (a
    /// public one that cannot be falls back to a channel message), reports it delivered or
    /// failed, and notes a missing permission in `problems`.
    async fn send_reply(
        &self,
        bot: &Arc<Bot>,
        http: &Http,
        reply: &Reply,
        state: &mut Answering,
        problems: &mut Vec<String>,
    ) -> Result<(), Failure> {
        let target = self.target;
        let mut result: Result<(), Failure> = Ok(());
        // The id of the reply's first message, for a reply that will be edited.
        let mut first_id: Option<MessageId> = None;
        for (i, m) in outgoing(reply).into_iter().enumerate() {
            let sent = self.send_part(http, reply, i, &m, state).await;
            if i == 0 {
                first_id = sent.as_ref().ok().copied().flatten();
            }
            let sent = match sent {
                Ok(_) => Ok(()),
                Err(_) if m.ephemeral => {
                    // Never shown to anyone else instead.
                    tracing::error!("a private reply could not be delivered");
                    Ok(())
                }
                Err(_) => {
                    let r = post_part(http, target.channel(), &m, reply.outbox, i).await;
                    if let Err(e) = &r {
                        if let Some(p) = permission_problem(e, target.channel(), "post") {
                            tracing::error!(channel = %target.channel(), error = %said(e), "{p}");
                            problems.push(p);
                        }
                    }
                    if i == 0 {
                        first_id = r.as_ref().ok().copied();
                    }
                    r.map(|_| ())
                }
            };
            if result.is_ok() {
                result = sent;
            }
        }
        report_as(bot, reply.outbox, result.as_ref().map(|_| ()), first_id).await;
        result
    }

    /// Sends message `i` of `reply`: the deferred answer's edit, the response or a follow-up;
    /// the id of the message when it is known.
    async fn send_part(
        &self,
        http: &Http,
        reply: &Reply,
        i: usize,
        m: &Outgoing,
        state: &mut Answering,
    ) -> Result<Option<MessageId>, Failure> {
        let target = self.target;
        if state.pending_edit && m.ephemeral == (self.deferred == Deferred::Private) {
            state.pending_edit = false;
            let edit = as_edit(m);
            return retry("editing the deferred response", || {
                target.edit(http, &edit, &m.files)
            })
            .await
            .map(Some);
        }
        if state.pending_edit {
            // The deferral shows to the wrong audience: drop it, answer as a follow-up.
            state.pending_edit = false;
            let _ = retry("deleting the deferred response", || {
                target.delete_original(http)
            })
            .await;
        } else if !state.answered {
            state.answered = true;
            let response = CreateInteractionResponse::Message(as_response(m));
            let r = retry("responding", || target.respond(http, &response, &m.files)).await;
            return match r {
                // A response does not come back with its id: asked for when it is needed.
                Ok(()) if reply.editable && i == 0 => {
                    Ok(retry("reading the response", || target.original(http))
                        .await
                        .ok())
                }
                r => r.map(|()| None),
            };
        }
        let followup = as_followup(m);
        retry("sending a follow-up", || {
            target.followup(http, &followup, &m.files)
        })
        .await
        .map(Some)
    }
}

/// Posts a new challenge's (or AI game's) replies in its thread; the problem if the thread
/// refuses the bot's posts (Send Messages in Threads denied). A challenge's replies not posted
/// then are given up (the challenge is withdrawn); an AI game's are left owed.
async fn post_in_new_thread(
    bot: &Arc<Bot>,
    http: &Http,
    thread: ChannelId,
    replies: &[Reply],
    against_ai: bool,
) -> Option<String> {
    let mut refused: Option<String> = None;
    for r in replies {
        let posted = post(http, thread, r).await;
        if let Err(e) = &posted {
            if let Some(p) = permission_problem(e, thread, "thread post") {
                tracing::error!(channel = %thread, error = %said(e), "{p}");
                refused.get_or_insert(p);
            }
        }
        if refused.is_some() && !against_ai {
            // Never to be posted: the challenge is withdrawn.
            give_up(
                bot,
                r.outbox,
                "the challenge's thread refused the bot's posts",
            )
            .await;
        } else {
            report(bot, r.outbox, posted.as_ref().map(|_| ())).await;
        }
    }
    refused
}

impl Handler {
    async fn on_command(&self, dctx: &Context, cmd: CommandInteraction) {
        let ctx = command_ctx(&cmd);
        let parsed = commands::parse(&cmd);
        let target = Target::Command(&cmd);
        let command = match parsed {
            Ok(x) => x,
            Err(msg) => {
                let reply = [Reply::private(msg)];
                send(&self.bot, &dctx.http, &target, &reply, Deferred::No, false).await;
                return;
            }
        };
        let in_text_channel = cmd.guild_id.is_some()
            && cmd
                .channel
                .as_ref()
                .is_some_and(|c| c.kind == ChannelType::Text);
        let in_thread = match (&command, in_text_channel) {
            (
                Command::Challenge {
                    opponent,
                    variant,
                    thread,
                    ..
                },
                true,
            ) if thread.unwrap_or(true) => Some((
                opponent
                    .as_ref()
                    .map_or_else(|| "anyone".to_string(), |o| o.name.clone()),
                variant.id(),
            )),
            (
                Command::PlayAi {
                    variant, thread, ..
                },
                true,
            ) if thread.unwrap_or(true) => Some(("the AI".to_string(), variant.id())),
            _ => None,
        };
        if let Some((opponent, variant)) = in_thread {
            self.challenge_in_thread(dctx, &cmd, ctx.clone(), command, opponent, variant)
                .await;
            return;
        }
        let (mut replies, deferred) =
            handle_timed(&self.bot, &dctx.http, &target, ctx, command, false).await;
        if let Some(note) = threads_needed(&dctx.http, &replies).await {
            replies.push(Reply::private(note));
        }
        send(&self.bot, &dctx.http, &target, &replies, deferred, false).await;
    }

    /// A challenge (or a game against the AI) played out in a new thread of the channel: the
    /// thread is created first, the challenge or the game's start is posted in it, and the
    /// command is answered with a link.
    async fn challenge_in_thread(
        &self,
        dctx: &Context,
        cmd: &CommandInteraction,
        mut ctx: Ctx,
        command: Command,
        opponent: String,
        variant: &str,
    ) {
        let target = Target::Command(cmd);
        // The rate limit and the challenge limits (or the limit on games against the AI)
        // first: a refused command opens no thread and posts nothing.
        let (b, check) = (self.bot.clone(), ctx.clone());
        let to = match &command {
            Command::Challenge { opponent, .. } => Some(opponent.clone()),
            _ => None,
        };
        let command_kind = to.clone();
        let refusal = tokio::task::spawn_blocking(move || {
            b.admit(&check).or_else(|| match to {
                Some(o) => b.challenge_refusal(&check, o.as_ref()),
                None => b.ai_game_refusal(&check),
            })
        })
        .await
        .unwrap_or(None);
        if let Some(refusal) = refusal {
            send(
                &self.bot,
                &dctx.http,
                &target,
                &[refusal],
                Deferred::No,
                false,
            )
            .await;
            return;
        }
        let name = format!("{variant}: {} vs {opponent}", ctx.user.name);
        let name: String = name.chars().take(90).collect();
        let thread = retry("creating a thread", || {
            create_thread(&dctx.http, cmd.channel_id, &name)
        })
        .await;
        let thread = match thread {
            Ok(t) => t,
            Err(e) => {
                // No thread: the game is played in the channel itself, and the challenger is
                // told why.
                let why = permission_problem(&e, cmd.channel_id, "thread").unwrap_or_else(|| {
                    "I could not open a thread for the game (Discord refused it).".into()
                });
                let (mut replies, deferred) =
                    handle_timed(&self.bot, &dctx.http, &target, ctx, command, true).await;
                if replies.first().is_some_and(|r| !r.ephemeral) {
                    replies.push(Reply::private(format!(
                        "{why} The challenge is posted in this channel instead, and the game \
                         will be played here."
                    )));
                }
                send(&self.bot, &dctx.http, &target, &replies, deferred, false).await;
                return;
            }
        };
        ctx.channel = thread.to_string().into();
        let (replies, deferred) =
            handle_timed(&self.bot, &dctx.http, &target, ctx.clone(), command, true).await;
        if replies.first().is_none_or(|r| r.ephemeral) {
            let _ = delete_channel(&dctx.http, thread).await;
            send(&self.bot, &dctx.http, &target, &replies, deferred, false).await;
            return;
        }
        let against_ai = match &command_kind {
            Some(Some(o)) => self.bot.is_ai_user(&o.id),
            Some(None) => false,
            None => true,
        };
        let refused = post_in_new_thread(&self.bot, &dctx.http, thread, &replies, against_ai).await;
        let note = match refused {
            Some(problem) if !against_ai => {
                // Nobody could see the challenge: it is withdrawn (not left open, unseen, until
                // it expires), its empty thread deleted, and the challenger told privately.
                let b = self.bot.clone();
                let withdrawn = tokio::task::spawn_blocking(move || {
                    b.handle_admitted(&ctx, Command::Cancel { challenge: None })
                })
                .await
                .unwrap_or_default();
                for r in &withdrawn {
                    give_up(&self.bot, r.outbox, "the challenge was never seen").await;
                }
                let _ = delete_channel(&dctx.http, thread).await;
                Reply::private(format!(
                    "{problem} Nobody could see your challenge there, so it is withdrawn. Ask a \
                     moderator for that permission, or challenge again with `thread: False` to \
                     play in this channel."
                ))
            }
            refused => {
                let mut note = bot::text::Builder::new()
                    .text(if against_ai {
                        "Your game against the AI is in "
                    } else {
                        "Challenge posted: the game will be played in "
                    })
                    .channel(&thread.to_string().into())
                    .text(".");
                if let Some(problem) = refused {
                    note = note.text(format!(" {problem}")).private();
                }
                note.build()
            }
        };
        send(&self.bot, &dctx.http, &target, &[note], deferred, false).await;
    }

    async fn on_autocomplete(&self, dctx: &Context, ac: CommandInteraction) {
        let focused = ac.data.autocomplete();
        let typed = focused
            .as_ref()
            .map(|o| o.value.to_string())
            .unwrap_or_default();
        let for_game = focused.is_some_and(|o| o.name == "game");
        // The game the command names already, if any (a thread that holds several).
        let game = ac
            .data
            .options()
            .into_iter()
            .find(|o| o.name == "game")
            .and_then(|o| match o.value {
                serenity::all::ResolvedValue::Integer(n) => Some(crate::store::GameId(n)),
                _ => None,
            });
        let ctx = command_ctx(&ac);
        let b = self.bot.clone();
        let choices = tokio::task::spawn_blocking(move || {
            if for_game {
                b.autocomplete_game(&ctx)
                    .into_iter()
                    .map(|(label, id)| serenity::all::AutocompleteChoice::new(label, id))
                    .collect()
            } else {
                b.autocomplete_move_in(&ctx, &typed, game)
                    .into_iter()
                    .map(|m| serenity::all::AutocompleteChoice::new(m.clone(), m))
                    .collect()
            }
        })
        .await
        .unwrap_or_default();
        let _ = ac
            .create_response(
                &dctx.http,
                CreateInteractionResponse::Autocomplete(
                    CreateAutocompleteResponse::new().set_choices(choices),
                ),
            )
            .await;
    }

    async fn on_component(&self, dctx: &Context, c: ComponentInteraction) {
        let target = Target::Component(&c);
        // A button that asks for a value first (the jump of the stepping buttons, unless they
        // have expired).
        if let Some(d) = self.bot.dialog_of(&c.data.custom_id) {
            let m = modal(d);
            let _ = retry("opening a dialog", || target.respond(&dctx.http, &m, &[])).await;
            return;
        }
        let Some(command) = Command::from_button(&c.data.custom_id) else {
            let reply = [Reply::private("That button is no longer in use.")];
            send(&self.bot, &dctx.http, &target, &reply, Deferred::No, false).await;
            return;
        };
        self.run_pressed(dctx, &target, component_ctx(&c), command)
            .await;
    }

    /// Runs the command of a pressed button (or of a dialog a button opened) and answers it.
    async fn run_pressed(&self, dctx: &Context, target: &Target<'_>, ctx: Ctx, command: Command) {
        let (replies, deferred) =
            handle_timed(&self.bot, &dctx.http, target, ctx, command, false).await;
        // A refusal leaves the buttons for the right person; anything else removes them.
        // (A reply that replaces the pressed message, a page of /history, is no refusal.)
        let refused = replies
            .first()
            .is_some_and(|r| r.ephemeral && !r.replaces_pressed);
        send(&self.bot, &dctx.http, target, &replies, deferred, !refused).await;
    }

    /// A dialog's answer: the command it stands for, answered as the button that opened it
    /// would be (in place of a private message, or privately under a public one).
    async fn on_dialog(&self, dctx: &Context, m: ModalInteraction) {
        let target = Target::Dialog(&m);
        let value = m
            .data
            .components
            .iter()
            .flat_map(|row| row.components.iter())
            .find_map(|c| match c {
                ActionRowComponent::InputText(t) if t.custom_id == DIALOG_INPUT => t.value.clone(),
                _ => None,
            })
            .unwrap_or_default();
        let command = match Command::from_dialog(&m.data.custom_id, &value) {
            Some(Ok(command)) => command,
            Some(Err(why)) => {
                let reply = [Reply::private(why)];
                send(&self.bot, &dctx.http, &target, &reply, Deferred::No, false).await;
                return;
            }
            None => {
                let reply = [Reply::private("That dialog is no longer in use.")];
                send(&self.bot, &dctx.http, &target, &reply, Deferred::No, false).await;
                return;
            }
        };
        self.run_pressed(dctx, &target, dialog_ctx(&m), command)
            .await;
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
    use super::*;

    #[test]
    fn a_message_waits_behind_others_of_its_thread_its_channel_or_its_player() {
        let reply = |channel: Option<&str>, dm: Option<&str>, key: Option<&str>| Reply {
            channel: channel.map(|c| c.to_string().into()),
            dm: dm.map(|u| u.to_string().into()),
            thread: key.map(|k| bot::ThreadRequest {
                key: k.into(),
                parent: "10".into(),
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
                    id: bob.into(),
                    name: "bob".into(),
                },
                Part::Text(", your move.".into()),
            ],
            mentions: vec![bob.into()],
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
