//! The REST requests for messages and channels: posting, editing, finding what was posted,
//! DM channels, threads opened, archived and deleted, buttons retired.

use super::outgoing::{as_message, links_of, outgoing, rows, to_json, Outgoing};
use super::places::{channel_of, mention, Place, ME, THREAD_ARCHIVED};
use super::rest::{Body, Failure};
use super::retry::{discord_code, retry, said};
use super::{rest, threads};
use crate::bot::{Bot, Reply};
use serenity::all::{
    ActionRowComponent, AutoArchiveDuration, ButtonKind, ChannelId, ChannelType,
    CreateAllowedMentions, CreateMessage, CreateThread, EditMessage, Http, MessageId, UserId,
};
use std::sync::Arc;

/// What a refusal means, when it is about the bot's permissions in `channel`: a sentence for
/// the user who asked.
pub(super) fn permission_problem(e: &Failure, channel: ChannelId, action: &str) -> Option<String> {
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

/// Takes the buttons off the earlier message a posted reply makes useless ([`Reply::retire`]:
/// a challenge answered by a typed command, or expired): found among its channel's 50 latest
/// messages by the id of one of its buttons, its text replaced, pinging nobody.
pub(super) async fn retire_buttons(http: &Http, reply: &Reply) {
    let Some(r) = &reply.retire else { return };
    let Some(channel) = channel_of(r.channel.as_str()) else {
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
        .components(rows(&links_of(message)))
        .allowed_mentions(CreateAllowedMentions::new());
    if let Err(e) = retry("taking the buttons off a message", || {
        edit_message_anywhere(http, channel, message.id, &edit)
    })
    .await
    {
        tracing::warn!(error = %e, %channel, "could not take the buttons off a spent message");
    }
}

/// Archives the thread a posted reply names ([`Reply::archive_channel`]: a challenge's thread
/// that no game will use, or the thread of a game that ended with nothing more to come there),
/// if it is a thread this bot opened and still active; any other channel is left alone. A
/// game's thread key names the thread opened for it. Archived for a day of quiet: a later
/// message (an analysis) unarchives it, and it archives itself a day after.
pub(super) async fn archive_spent_thread(bot: &Arc<Bot>, http: &Http, reply: &Reply) {
    let Some(c) = reply.archive_channel.clone() else {
        return;
    };
    let channel = match Place::of(c.as_str()) {
        Some(Place::Channel(id)) => Some(id),
        Some(Place::Key(key)) => {
            let b = bot.clone();
            tokio::task::spawn_blocking(move || b.thread_of(&key))
                .await
                .ok()
                .flatten()
                .and_then(|t| channel_of(t.as_str()))
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
pub(super) async fn post(
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
pub(super) async fn post_part(
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
pub(super) async fn send_message(
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

/// [`edit_message`] wherever the message is: in an archived thread (50083) the thread is
/// unarchived first (it archives itself again after its quiet time).
pub(super) async fn edit_message_anywhere(
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
pub(super) async fn edit_message(
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
pub(super) async fn recent_messages(
    http: &Http,
    channel: ChannelId,
) -> Result<Vec<serenity::all::Message>, Failure> {
    let path = format!("/channels/{channel}/messages?limit=50");
    let answer = rest::request(http, reqwest::Method::GET, &path, None).await?;
    serde_json::from_value(answer.unwrap_or(serde_json::Value::Null))
        .map_err(|e| Failure::Unanswered(format!("Discord's list of messages was unreadable: {e}")))
}

/// `POST /users/@me/channels`: the direct-message channel with a user.
pub(super) async fn dm_channel(http: &Http, user: UserId) -> Result<ChannelId, Failure> {
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
pub(super) async fn open_dm_channel(http: &Http, user: UserId) -> Result<ChannelId, Failure> {
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
pub(super) async fn get_channel(
    http: &Http,
    channel: ChannelId,
) -> Result<serde_json::Value, Failure> {
    let path = format!("/channels/{channel}");
    rest::request(http, reqwest::Method::GET, &path, None)
        .await?
        .ok_or_else(|| Failure::Unanswered("Discord's answer carried no channel".into()))
}

/// `PATCH /channels/{c}`: archives a thread (to archive itself again after a day of quiet
/// when a later message unarchives it), or unarchives it.
pub(super) async fn set_archived(
    http: &Http,
    thread: ChannelId,
    archived: bool,
) -> Result<(), Failure> {
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
pub(super) async fn delete_channel(http: &Http, channel: ChannelId) -> Result<(), Failure> {
    let path = format!("/channels/{channel}");
    rest::request(http, reqwest::Method::DELETE, &path, None).await?;
    threads::closed(channel.get());
    Ok(())
}

/// `POST /channels/{c}/threads`: a public thread (archived after a week of quiet), its id.
pub(super) async fn create_thread(
    http: &Http,
    parent: ChannelId,
    name: &str,
) -> Result<ChannelId, Failure> {
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
