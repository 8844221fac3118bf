//! What this process knows of each server's active threads: asked of Discord
//! (`GET /guilds/{id}/threads/active`, the same for every process) at most once in
//! [`FRESH`] a server, and kept up to date in between with the threads this process opens and
//! archives itself. Opening a thread then costs one request, not three, and the margin
//! ([`super::THREAD_MARGIN`]) is checked against a count at most a few seconds old; the threads
//! people open in between are what the margin leaves room for.

use super::rest::{self, Failure};
use serenity::all::{ChannelId, Http};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a server's list of active threads is used before it is asked for again.
const FRESH: Duration = Duration::from_secs(10);

/// An active thread: its id, parent channel and name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Thread {
    pub id: u64,
    pub parent: u64,
    pub name: String,
}

#[derive(Default)]
struct Known {
    /// The server of each parent channel asked about.
    guild_of: HashMap<u64, u64>,
    /// Each server's active threads, and when Discord listed them.
    lists: HashMap<u64, (Instant, Vec<Thread>)>,
}

static KNOWN: Mutex<Option<Known>> = Mutex::new(None);

fn with<T>(f: impl FnOnce(&mut Known) -> T) -> T {
    let mut k = KNOWN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    f(k.get_or_insert_with(Known::default))
}

/// The server of `parent` (`None` when Discord could not say).
pub(super) async fn guild_of(http: &Http, parent: ChannelId) -> Option<u64> {
    if let Some(g) = with(|k| k.guild_of.get(&parent.get()).copied()) {
        return Some(g);
    }
    let path = format!("/channels/{parent}");
    let c = rest::request(http, reqwest::Method::GET, &path, None)
        .await
        .ok()??;
    let g = c["guild_id"].as_str()?.parse::<u64>().ok()?;
    with(|k| k.guild_of.insert(parent.get(), g));
    Some(g)
}

/// The turn of one thread opening in `guild`: deliveries that run side by side open a
/// server's threads one after another, each counting the ones opened before it against the
/// margin.
pub(super) async fn opening(guild: u64) -> tokio::sync::OwnedMutexGuard<()> {
    static TURNS: Mutex<Option<HashMap<u64, Arc<tokio::sync::Mutex<()>>>>> = Mutex::new(None);
    let turn = {
        let mut turns = TURNS.lock().unwrap_or_else(PoisonError::into_inner);
        turns
            .get_or_insert_with(HashMap::new)
            .entry(guild)
            .or_default()
            .clone()
    };
    turn.lock_owned().await
}

/// The server of `parent` and its active threads (`None` when Discord could not say).
pub(super) async fn active(http: &Http, parent: ChannelId) -> Option<(u64, Vec<Thread>)> {
    let guild = guild_of(http, parent).await?;
    let fresh = with(|k| {
        k.lists
            .get(&guild)
            .filter(|(at, _)| at.elapsed() < FRESH)
            .map(|(_, l)| l.clone())
    });
    if let Some(list) = fresh {
        return Some((guild, list));
    }
    let list = list_active(http, guild).await.ok()?;
    with(|k| k.lists.insert(guild, (Instant::now(), list.clone())));
    Some((guild, list))
}

/// `GET /guilds/{g}/threads/active`.
async fn list_active(http: &Http, guild: u64) -> Result<Vec<Thread>, Failure> {
    let path = format!("/guilds/{guild}/threads/active");
    let answer = rest::request(http, reqwest::Method::GET, &path, None).await?;
    let id = |v: &serde_json::Value| v.as_str().and_then(|s| s.parse::<u64>().ok());
    Ok(answer
        .and_then(|a| a.get("threads").and_then(|t| t.as_array()).cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|t| {
            Some(Thread {
                id: id(&t["id"])?,
                parent: id(&t["parent_id"]).unwrap_or(0),
                name: t["name"].as_str().unwrap_or("").to_string(),
            })
        })
        .collect())
}

/// This process opened a thread in `guild`.
pub(super) fn opened(guild: u64, thread: Thread) {
    with(|k| {
        if let Some((_, list)) = k.lists.get_mut(&guild) {
            if !list.iter().any(|t| t.id == thread.id) {
                list.push(thread);
            }
        }
    });
}

/// This process archived or deleted a thread.
pub(super) fn closed(thread: u64) {
    with(|k| {
        for (_, list) in k.lists.values_mut() {
            list.retain(|t| t.id != thread);
        }
    });
}
