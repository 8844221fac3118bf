//! A reply made into what Discord takes: its text split into messages (or a file when long),
//! its pictures, buttons and allowed mentions, as a response, a follow-up, a message or an edit.

use super::places::mention;
use super::rest::Failure;
use super::split::split_content;
use crate::bot::{ButtonStyle, Reply};
use serenity::all::{
    ActionRowComponent, ButtonKind, ButtonStyle as DButtonStyle, CreateActionRow,
    CreateAllowedMentions, CreateButton, CreateInteractionResponseFollowup,
    CreateInteractionResponseMessage, CreateMessage, EditInteractionResponse, Message, Nonce,
    UserId,
};

/// Text longer than this goes as a file when the reply offers one ([`Reply::document`]).
pub(super) const FILE_AFTER: usize = 1900;

/// The most buttons Discord takes in one action row, and the most rows under a message.
const PER_ROW: usize = 5;
const ROWS: usize = 5;

/// A message's buttons in action rows of five (Discord's most a row), in order: a sixth button
/// (a board's four steps, its jump and its link to the web) starts a second row.
pub(super) fn rows(buttons: &[CreateButton]) -> Vec<CreateActionRow> {
    buttons
        .chunks(PER_ROW)
        .take(ROWS)
        .map(|row| CreateActionRow::Buttons(row.to_vec()))
        .collect()
}

/// A reply's buttons as Discord takes them: those that run a command, then its link button
/// (Discord's link style, a URL and no id), unless the others already fill every row.
fn buttons_of(reply: &Reply) -> Vec<CreateButton> {
    let mut buttons: Vec<CreateButton> = reply
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
        .collect();
    if let Some(link) = reply
        .link
        .as_ref()
        .filter(|_| buttons.len() < PER_ROW * ROWS)
    {
        buttons.push(CreateButton::new_link(link.url.clone()).label(link.label.clone()));
    }
    buttons
}

/// The link buttons of a posted message (its "Open on the web"), to keep when its other
/// buttons are taken away (a pressed or spent button's message).
pub(super) fn links_of(message: &Message) -> Vec<CreateButton> {
    message
        .components
        .iter()
        .flat_map(|row| &row.components)
        .filter_map(|c| match c {
            ActionRowComponent::Button(b) => match &b.data {
                ButtonKind::Link { url } => Some(
                    CreateButton::new_link(url.clone()).label(b.label.clone().unwrap_or_default()),
                ),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// One Discord message built from a reply.
pub(super) struct Outgoing {
    pub(super) content: String,
    pub(super) ephemeral: bool,
    /// The users this message pings: those whose mention it carries.
    pub(super) mentions: Vec<UserId>,
    pub(super) files: Vec<(String, Vec<u8>)>,
    pub(super) buttons: Vec<CreateButton>,
}

pub(super) fn outgoing(reply: &Reply) -> Vec<Outgoing> {
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
        .filter_map(|m| m.as_str().parse::<u64>().ok())
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
                buttons: if last { buttons_of(reply) } else { vec![] },
            }
        })
        .collect()
}

pub(super) fn allowed(o: &Outgoing) -> CreateAllowedMentions {
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
            m.components(rows(&o.buttons))
        }
    }};
}

pub(super) fn as_response(o: &Outgoing) -> CreateInteractionResponseMessage {
    fill!(
        CreateInteractionResponseMessage::new().ephemeral(o.ephemeral),
        o
    )
}

pub(super) fn as_followup(o: &Outgoing) -> CreateInteractionResponseFollowup {
    fill!(
        CreateInteractionResponseFollowup::new().ephemeral(o.ephemeral),
        o
    )
}

pub(super) fn as_message(o: &Outgoing, nonce: Option<String>) -> CreateMessage {
    let m = fill!(CreateMessage::new(), o);
    match nonce {
        Some(n) => m.nonce(Nonce::String(n)).enforce_nonce(true),
        None => m,
    }
}

/// A request body from one of serenity's builders.
pub(super) fn to_json(builder: &impl serde::Serialize) -> Result<serde_json::Value, Failure> {
    serde_json::to_value(builder).map_err(|e| Failure::Unanswered(e.to_string()))
}

pub(super) fn as_edit(o: &Outgoing) -> EditInteractionResponse {
    fill!(EditInteractionResponse::new(), o)
}
