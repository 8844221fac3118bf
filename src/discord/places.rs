//! Where a reply goes on Discord (a channel, a thread still to be opened, a DM), the bot's own
//! user, and the thread limits and error codes the delivery reacts to.

use serenity::all::{ChannelId, UserId};

/// Where a stored channel reference points on Discord. The store keeps both kinds in one
/// [`crate::store::ChannelId`]: a channel or thread by its Discord id, or the key of a game's
/// thread that may not be open yet ([`crate::bot::ThreadRequest::key`], `t3-r2-b1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Place {
    /// A channel or thread on Discord.
    Channel(ChannelId),
    /// A thread key: the thread recorded for it, once one is open.
    Key(String),
}

impl Place {
    /// What `c` names; `None` for an empty reference and for channel 0 (neither is anywhere).
    pub(super) fn of(c: &str) -> Option<Place> {
        match c.parse::<u64>() {
            Ok(0) => None,
            Ok(id) => Some(Place::Channel(ChannelId::new(id))),
            Err(_) if c.trim().is_empty() => None,
            Err(_) => Some(Place::Key(c.to_string())),
        }
    }
}

/// The Discord channel `c` names, if it names one (not a thread key).
pub(super) fn channel_of(c: &str) -> Option<ChannelId> {
    match Place::of(c)? {
        Place::Channel(id) => Some(id),
        Place::Key(_) => None,
    }
}

/// Whether `c` is a thread key (a game's thread, by its key).
pub(super) fn is_key(c: &str) -> bool {
    matches!(Place::of(c), Some(Place::Key(_)))
}

/// A user as Discord shows them: a mention; the AI (whose id is no Discord id, and whose name
/// is the bot's own, "Tara-bot AI (level 3)") by its name in bold.
pub(super) fn mention(id: &str, name: &str) -> String {
    if id.parse::<u64>().is_ok() {
        format!("<@{id}>")
    } else {
        format!(
            "**{}**",
            name.replace(['*', '<', '@', '`', '_', '|', '~'], "")
        )
    }
}

/// The bot's own user id, from READY.
pub(super) static ME: std::sync::OnceLock<UserId> = std::sync::OnceLock::new();

/// Discord's code for a server at its 1,000 active threads (also used when the server holds
/// as many as [`THREAD_MARGIN`] allows).
pub(super) const THREADS_FULL: isize = 160_006;
/// The bot opens a thread only while its server holds fewer active threads than this.
pub(super) static THREAD_MARGIN: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(crate::config::DEFAULT_THREAD_MARGIN as usize);
/// Discord's code for a channel that does not exist (a thread a moderator deleted).
pub(super) const UNKNOWN_CHANNEL: isize = 10_003;
/// Discord's code for an operation on an archived thread (editing a message in it).
pub(super) const THREAD_ARCHIVED: isize = 50_083;
