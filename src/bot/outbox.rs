//! Replies as owed messages: how a reply is stored in the outbox (in the transaction of the
//! change that owes it) and read back for delivery.

use super::board::BoardSpec;
use super::reply::{Attachment, Button, Ctx, LinkButton, Part, Reply, Retire, ThreadRequest};
use crate::store::MessageId;
use crate::store::{ChannelId, UserId};
use crate::store::{NewMessage, OutboxRow, StoreError, Tx};
use serde::{Deserialize, Serialize};

/// How long a process holds the owed messages it took to deliver: another process delivers
/// them once this has passed (the first died on the way). The default of
/// [`crate::bot::Bot::with_lease_ms`].
pub const DELIVERY_LEASE_MS: i64 = 120_000;

/// A message a command owes is sent by that command's own delivery first; the retry loop
/// leaves it alone for this long, and the process that stored it holds its lease as long
/// (by default: [`crate::bot::Bot::in_flight_ms`] is half of the lease).
pub const IN_FLIGHT_MS: i64 = DELIVERY_LEASE_MS / 2;

/// The stored form of a reply (its image is stored beside it).
#[derive(Serialize, Deserialize)]
struct Body {
    parts: Vec<Part>,
    mentions: Vec<UserId>,
    #[serde(default)]
    buttons: Vec<Button>,
    #[serde(default)]
    board_text: Option<String>,
    /// The thread to archive once the message is posted.
    #[serde(default)]
    archive_channel: Option<ChannelId>,
    /// The earlier message whose buttons are spent.
    #[serde(default)]
    retire: Option<Retire>,
    /// The board it shows, drawn when it is delivered (messages owed before boards were stored
    /// this way carry their picture in the row instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    board: Option<BoardSpec>,
    /// The thread to open for it (a tournament game's).
    #[serde(default)]
    thread: Option<ThreadRequest>,
    /// Its link button ("Open on the web"), after its buttons: left out when it has none, so
    /// that a message without one is stored as before it existed, and read as none from
    /// messages stored before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    link: Option<LinkButton>,
}

/// Stores `reply` as owed, held by the worker `lease.0` until `lease.1` (its own delivery's
/// time, [`crate::bot::Bot::in_flight_ms`]); its outbox id. An answer to a command (`origin`)
/// goes to the command's channel unless it names another.
pub(crate) fn owe(
    tx: &Tx,
    origin: Option<&Ctx>,
    reply: &Reply,
    now: i64,
    lease: (&str, i64),
) -> Result<MessageId, StoreError> {
    let body = serde_json::to_string(&Body {
        parts: reply.parts.clone(),
        mentions: reply.mentions.clone(),
        buttons: reply.buttons.clone(),
        board_text: reply.board_text.clone(),
        archive_channel: reply.archive_channel.clone(),
        retire: reply.retire.clone(),
        board: reply.board.clone(),
        thread: reply.thread.clone(),
        link: reply.link.clone(),
    })
    .map_err(|e| StoreError::Corrupt(format!("a reply cannot be stored: {e}")))?;
    let channel = reply.channel.as_ref().or(origin.map(|c| &c.channel));
    if channel.is_none() && reply.dm.is_none() {
        return Err(StoreError::Corrupt(
            "a scheduled message names no channel and no user".into(),
        ));
    }
    tx.insert_message(
        &NewMessage {
            channel_id: channel,
            dm_user_id: reply.dm.as_ref(),
            answers_command: origin.is_some() && reply.channel.is_none() && reply.dm.is_none(),
            body: &body,
            image: reply
                .image
                .as_ref()
                .map(|a| (a.filename.as_str(), a.bytes.as_slice())),
            edits: reply.edits,
            lease,
        },
        now,
    )
}

/// A stored message as a reply to deliver: it names where it goes.
pub(crate) fn reply_of(row: OutboxRow) -> Result<Reply, StoreError> {
    let body: Body = serde_json::from_str(&row.body).map_err(|e| {
        StoreError::Corrupt(format!("outbox message {} cannot be read: {e}", row.id))
    })?;
    Ok(Reply {
        parts: body.parts,
        image: match (row.image_name, row.image) {
            (Some(filename), Some(bytes)) => Some(Attachment { filename, bytes }),
            _ => None,
        },
        board: body.board,
        mentions: body.mentions,
        ephemeral: false,
        buttons: body.buttons,
        link: body.link,
        // Made into its link when it was stored.
        web: None,
        board_text: body.board_text,
        channel: row.channel_id,
        dm: row.dm_user_id,
        // Delivered later, it answers no pressed button.
        pressed_message: None,
        replaces_pressed: false,
        outbox: Some(row.id),
        // Only read-only answers carry one, and those are never owed.
        document: None,
        archive_channel: body.archive_channel,
        retire: body.retire,
        thread: body.thread,
        edits: row.edits,
        // Posted again from the outbox, its platform id is recorded anyway.
        editable: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 47: a link button is stored with its message, and a message without one is
    /// stored byte for byte as before; messages stored before links existed still read.
    #[test]
    fn a_link_button_is_stored_and_rows_without_one_read_as_before() {
        let old = r#"{"parts":[{"Text":"Game on!"}],"mentions":["1"],"buttons":[{"id":"rematch:3","label":"Rematch","style":"Primary"}],"board_text":null,"archive_channel":null,"retire":null,"thread":null}"#;
        let body: Body = serde_json::from_str(old).unwrap();
        assert_eq!(body.link, None);
        assert_eq!(body.buttons.len(), 1);
        // Written again without a link, it is the same text.
        assert_eq!(serde_json::to_string(&body).unwrap(), old);
        let with = Body {
            link: Some(LinkButton {
                label: "Open on the web".into(),
                url: "https://tara.example.org/g/3".into(),
            }),
            ..body
        };
        let text = serde_json::to_string(&with).unwrap();
        assert!(
            text.ends_with(
                r#","link":{"label":"Open on the web","url":"https://tara.example.org/g/3"}}"#
            ),
            "{text}"
        );
        let back: Body = serde_json::from_str(&text).unwrap();
        assert_eq!(back.link, with.link);
    }
}
