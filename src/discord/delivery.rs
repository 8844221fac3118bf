//! The owed messages: delivered from the outbox in order per place (the delivery queues), each
//! reported delivered or failed; the clocks' and the start-up's sweeps; a reply posted in its
//! place, its thread opened first when it needs one.

use super::new_threads::{has_thread_keys, open_thread, thread_keys};
use super::outgoing::outgoing;
use super::places::{channel_of, mention, Place, THREADS_FULL, THREAD_MARGIN, UNKNOWN_CHANNEL};
use super::requests::{
    archive_spent_thread, dm_channel, edit_message_anywhere, permission_problem, post,
    recent_messages, retire_buttons,
};
use super::rest::Failure;
use super::retry::{discord_code, gone, retry, said};
use super::split::split_content;
use super::{queues, rest, threads};
use crate::ai_runner::AiRunner;
use crate::bot::{Bot, EditTarget, Reply};
use serenity::all::{ChannelId, CreateAllowedMentions, EditMessage, Http, MessageId, UserId};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often the clocks are checked for reminders and timeouts, and owed messages retried
/// (often enough that a message held back by a rate limit's wait, or by a thread being
/// opened, goes soon after).
pub(super) const TICK_EVERY: Duration = Duration::from_secs(10);

/// Delivers what the clocks brought due (reminders and timeouts, to their channels or by DM)
/// and every message still owed: at once on start-up (what a crash or an outage left unsent),
/// then every 10 s (failed deliveries, each after its backoff), or four times a lease when the
/// lease is shorter than 40 s (so that work a dead process held is taken over soon after
/// its lease runs out). The clocks and the owed messages each keep their own schedule, and
/// both go through the delivery queues ([`queues`]): a backlog never holds back the clocks,
/// nor one thread's rate limit another thread's messages.
pub(super) async fn tick_forever(
    bot: Arc<Bot>,
    ai: Arc<AiRunner>,
    http: Arc<Http>,
    me: UserId,
    started: i64,
) {
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
pub(super) async fn clocks_forever(
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
pub(super) struct Owed {
    pub(super) reply: Reply,
    /// Owed from before (not just made by the clocks): it may have been posted already by a
    /// delivery that stopped before recording it, so it is looked for first.
    pub(super) look_first: bool,
    /// A command's own message elsewhere: it takes no turn of [`AT_ONCE`] (a command's messages
    /// never waited for the backlog's), its thread is archived by the command once all its
    /// messages are out, and the command hears what became of it: a problem to tell its user,
    /// and the reply whose thread is to be archived.
    pub(super) command: Option<tokio::sync::oneshot::Sender<(Option<String>, Option<Reply>)>>,
}

/// The delivery queues of this process, once connected ([`owed_queues`]): commands queue their
/// messages elsewhere there too, so that each place gets its messages in the order owed.
pub(super) static OWED_QUEUES: std::sync::OnceLock<Arc<queues::Queues<Owed>>> =
    std::sync::OnceLock::new();

/// How many owed messages are delivered at once, in all places: what a command posts itself
/// (a move, an answer) then finds room in the request budget within a second, whatever the
/// backlog.
pub(super) const AT_ONCE: usize = 16;

/// How long a message that links to threads waits for them to open before it is tried (and,
/// if they are still not open, left owed for its next try).
pub(super) const LINKS_WAIT: Duration = Duration::from_secs(10);
/// How often it looks.
pub(super) const LINKS_RECHECK: Duration = Duration::from_millis(250);

/// This process's delivery queues ([`queues`]): each owed message waits for the threads it
/// links to (up to [`LINKS_WAIT`]), then for one of [`AT_ONCE`] turns, and is delivered.
pub(super) fn owed_queues(bot: Arc<Bot>, http: Arc<Http>, me: UserId) -> Arc<queues::Queues<Owed>> {
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
pub(super) fn push_owed(
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
pub(super) fn place_of(reply: &Reply) -> String {
    if let Some(t) = &reply.thread {
        return format!("key {}", t.key);
    }
    if let Some(user) = &reply.dm {
        return format!("dm {user}");
    }
    match reply
        .channel
        .as_ref()
        .map(crate::ids::ChannelId::as_str)
        .and_then(Place::of)
    {
        Some(Place::Key(key)) => format!("key {key}"),
        Some(Place::Channel(c)) => format!("channel {c}"),
        None => String::new(),
    }
}

/// Waits, up to [`LINKS_WAIT`], until the threads a message links to are open (a round's
/// "Your games:" goes out as its games' threads are being opened, side by side): then it links
/// them at once, instead of waiting, owed, for its next try.
pub(super) async fn threads_linked(bot: &Arc<Bot>, reply: &Reply) {
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
pub(super) async fn deliver_owed(bot: &Arc<Bot>, http: &Http, me: UserId, job: &Owed) {
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
pub(super) async fn already_posted(http: &Http, me: UserId, reply: &Reply) -> Option<MessageId> {
    let first = outgoing(reply).into_iter().next()?;
    let channel = reply
        .channel
        .as_ref()
        .map(crate::ids::ChannelId::as_str)
        .and_then(channel_of);
    // A direct message is looked for in the player's DM channel (Discord remembers a nonce for
    // a few minutes only), then in the channel it falls back to when DMs are closed.
    let mut places = Vec::new();
    if let Some(user) = reply
        .dm
        .as_ref()
        .map(crate::ids::UserId::as_str)
        .and_then(|u| u.parse::<u64>().ok())
    {
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
pub(super) async fn report(
    bot: &Arc<Bot>,
    id: Option<crate::store::MessageId>,
    result: Result<(), &Failure>,
) {
    report_as(bot, id, result, None).await;
}

/// Records that an owed message will never be sent.
pub(super) async fn give_up(
    bot: &Arc<Bot>,
    id: Option<crate::store::MessageId>,
    why: &'static str,
) {
    let Some(id) = id else { return };
    let b = bot.clone();
    let _ = tokio::task::spawn_blocking(move || b.delivery_failed(id, why, true)).await;
}

/// [`report`], with the id of the (first) message posted, so that it can be edited later.
pub(super) async fn report_as(
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
pub(super) async fn deliver_edit(bot: &Arc<Bot>, http: &Http, reply: &Reply) {
    let (b, r) = (bot.clone(), reply.clone());
    let target =
        tokio::task::spawn_blocking(move || (!b.superseded(&r)).then(|| b.edit_target(&r)))
            .await
            .ok()
            .flatten();
    let Some(target) = target else { return };
    let channel = reply
        .channel
        .as_ref()
        .map(crate::ids::ChannelId::as_str)
        .and_then(channel_of);
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

/// Posts an owed or scheduled message where it belongs: by DM (falling back to its channel
/// when the user takes no DMs) or to its channel; reports the outcome to the outbox. A refusal
/// for want of a permission is logged and returned, to tell whoever asked.
pub(super) async fn deliver(bot: &Arc<Bot>, http: &Http, reply: &Reply) -> Option<String> {
    if reply.edits.is_some() {
        deliver_edit(bot, http, reply).await;
        return None;
    }
    // A message for a game whose thread is to open again (the old one was deleted): it goes
    // to the thread open for its key, or waits, owed, until there is one.
    let keyed;
    let reply = match reply
        .channel
        .as_ref()
        .map(crate::ids::ChannelId::as_str)
        .and_then(Place::of)
    {
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
                let parent = reply
                    .thread
                    .as_ref()
                    .and_then(|t| channel_of(t.parent.as_str()))?;
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
    let channel = reply
        .channel
        .as_ref()
        .map(crate::ids::ChannelId::as_str)
        .and_then(channel_of);
    if let Some(user) = reply
        .dm
        .as_ref()
        .map(crate::ids::UserId::as_str)
        .and_then(|u| u.parse::<u64>().ok())
    {
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
pub(super) async fn moved_to_a_new_thread(
    bot: &Arc<Bot>,
    http: &Http,
    channel: ChannelId,
    reply: &Reply,
    e: &Failure,
) -> bool {
    threads::closed(channel.get());
    let (b, gone) = (bot.clone(), crate::ids::ChannelId::new(channel.to_string()));
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

/// Says in `parent` that a game's thread cannot open because the server holds Discord's
/// 1,000 active threads (at most once in 10 minutes a channel; the game's messages stay owed
/// and are posted once a place frees).
pub(super) async fn threads_full(bot: &Arc<Bot>, http: &Http, parent: ChannelId, name: &str) {
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
        crate::ids::ChannelId::new(parent.to_string()),
        name.to_string(),
    );
    let owed = tokio::task::spawn_blocking(move || b.threads_full(&channel, &name, left))
        .await
        .unwrap_or_default();
    for m in owed {
        Box::pin(deliver(bot, http, &m)).await;
    }
}

/// [`deliver`], leaving the thread the reply archives to `spent` (archived once every reply of
/// the command is out).
pub(super) async fn deliver_archiving_later(
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
