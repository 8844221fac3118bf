//! Threads an event's replies ask for: opened (within the server's thread limit and the bot's
//! margin) and their links put into the replies that name them.

use super::places::{channel_of, is_key, THREADS_FULL, THREAD_MARGIN};
use super::requests::{create_thread, delete_channel};
use super::rest::Failure;
use super::retry::retry;
use super::threads;
use crate::bot::{self, Bot, Reply};
use serenity::all::{ChannelId, Http};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Whether a reply links to a pseudo-channel (a thread key such as `t3-r2-b1`).
pub(super) fn has_thread_keys(reply: &Reply) -> bool {
    !thread_keys(reply).is_empty()
}

/// The thread keys a reply links to.
pub(super) fn thread_keys(reply: &Reply) -> Vec<String> {
    reply
        .parts
        .iter()
        .filter_map(|p| match p {
            bot::Part::Channel(c) if is_key(c.as_str()) => Some(c.to_string()),
            _ => None,
        })
        .collect()
}

/// A reply for a tournament game's thread ([`Reply::thread`]), addressed to the thread: the one
/// recorded for its key, or one opened now in its parent channel (found first among the
/// parent's active threads by its name, in case an earlier attempt opened it but stopped
/// before recording it) and recorded once. Links to thread keys become links to the threads.
pub(super) async fn open_thread(
    bot: &Arc<Bot>,
    http: &Http,
    reply: &Reply,
) -> Result<Reply, Failure> {
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
                let Some(parent) = channel_of(req.parent.as_str()) else {
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
                    let (b, c) = (bot.clone(), crate::ids::ChannelId::new(id.to_string()));
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
                    crate::ids::ChannelId::new(made.to_string()),
                );
                let recorded = tokio::task::spawn_blocking(move || b.thread_opened(&key, &id))
                    .await
                    .ok()
                    .flatten()
                    .unwrap_or_else(|| crate::ids::ChannelId::new(made.to_string()));
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
pub(super) async fn link_threads(
    bot: &Arc<Bot>,
    reply: &mut Reply,
    wait: bool,
) -> Result<(), Failure> {
    for part in &mut reply.parts {
        let bot::Part::Channel(c) = part else {
            continue;
        };
        if !is_key(c.as_str()) {
            continue;
        }
        let b = bot.clone();
        let key = c.clone();
        match tokio::task::spawn_blocking(move || b.thread_of(key.as_str())).await {
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

/// When a command started more games in threads than the server has room for (an event's
/// start): what the one who started it is told privately, with the numbers, and what to do.
pub(super) async fn threads_needed(http: &Http, replies: &[Reply]) -> Option<String> {
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
    let parent = channel_of(parent.as_str())?;
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
