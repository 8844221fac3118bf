//! Interactions: a command, a button or a dialog turned into the bot core's command, run off
//! the async threads (deferred when it takes long), and answered: the response, follow-ups and
//! what goes to other places.

use super::delivery::{
    deliver_archiving_later, give_up, push_owed, report, report_as, OWED_QUEUES,
};
use super::new_threads::{has_thread_keys, link_threads, threads_needed};
use super::outgoing::{
    as_edit, as_followup, as_response, links_of, outgoing, rows, to_json, Outgoing,
};
use super::places::mention;
use super::requests::{
    archive_spent_thread, create_thread, delete_channel, permission_problem, post, post_part,
    retire_buttons,
};
use super::rest::{Body, Failure};
use super::retry::{retry, said};
use super::{commands, rest};
use crate::ai_runner::AiRunner;
use crate::bot::{self, Bot, Command, Ctx, Reply, User};
use serenity::all::{
    ActionRowComponent, ChannelId, ChannelType, CommandInteraction, ComponentInteraction, Context,
    CreateActionRow, CreateAllowedMentions, CreateAutocompleteResponse, CreateInputText,
    CreateInteractionResponse, CreateInteractionResponseFollowup, CreateInteractionResponseMessage,
    CreateModal, EditInteractionResponse, GuildId, Http, InputTextStyle, MessageId,
    ModalInteraction, Permissions,
};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// How long a command's messages elsewhere may go out before its answer (the rest follow it).
pub(super) const SEND_FIRST_FOR: Duration = Duration::from_millis(500);
/// How long a command may take before the interaction is deferred (Discord allows 3 s).
pub(super) const DEFER_AFTER: Duration = Duration::from_millis(2000);

/// The gateway's events go to it ([`super::run`]); the interactions are handled here.
pub(super) struct Handler {
    pub(super) bot: Arc<Bot>,
    /// When this process started (the bot's clock): the owed messages created before are what
    /// an earlier run left unsent; those created since belong to this process's commands.
    pub(super) started: i64,
    /// Searches the AI's moves off the async runtime.
    pub(super) ai: Arc<AiRunner>,
    pub(super) guild: Option<GuildId>,
    pub(super) registered: AtomicBool,
    pub(super) ticking: AtomicBool,
}

/// Whether a member may moderate games (abort any game).
pub(super) fn moderator(perms: Option<Permissions>) -> bool {
    perms.is_some_and(|p| {
        p.contains(Permissions::ADMINISTRATOR)
            || p.contains(Permissions::MANAGE_MESSAGES)
            || p.contains(Permissions::MANAGE_GUILD)
    })
}

/// Whether a member may change the server's settings.
pub(super) fn manager(perms: Option<Permissions>) -> bool {
    perms.is_some_and(|p| {
        p.contains(Permissions::ADMINISTRATOR) || p.contains(Permissions::MANAGE_GUILD)
    })
}

/// Who sent an interaction, and where.
pub(super) fn interaction_ctx(
    guild: Option<GuildId>,
    channel: ChannelId,
    user: &serenity::all::User,
    member: Option<&serenity::all::Member>,
) -> Ctx {
    let nick = member.and_then(|m| m.nick.as_deref());
    Ctx {
        server: guild
            .map(|g| crate::ids::ServerId::new(g.to_string()))
            .unwrap_or_else(|| crate::ids::ServerId::new(bot::commands::DM_SERVER)),
        channel: crate::ids::ChannelId::new(channel.to_string()),
        user: User::new(user.id.to_string(), commands::display_name(user, nick)),
        moderator: moderator(member.and_then(|m| m.permissions)),
        manager: manager(member.and_then(|m| m.permissions)),
        roles: member.map_or_else(Vec::new, |m| {
            m.roles.iter().map(|r| r.to_string()).collect()
        }),
    }
}

pub(super) fn command_ctx(cmd: &CommandInteraction) -> Ctx {
    interaction_ctx(
        cmd.guild_id,
        cmd.channel_id,
        &cmd.user,
        cmd.member.as_deref(),
    )
}

pub(super) fn component_ctx(c: &ComponentInteraction) -> Ctx {
    interaction_ctx(c.guild_id, c.channel_id, &c.user, c.member.as_ref())
}

pub(super) fn dialog_ctx(m: &ModalInteraction) -> Ctx {
    interaction_ctx(m.guild_id, m.channel_id, &m.user, m.member.as_ref())
}

/// A dialog the core asks for ([`bot::Dialog`]) as Discord's modal: one short text input.
pub(super) fn modal(d: bot::Dialog) -> CreateInteractionResponse {
    let input = CreateInputText::new(InputTextStyle::Short, d.label, DIALOG_INPUT)
        .placeholder(d.placeholder)
        .required(true)
        .max_length(20);
    CreateInteractionResponse::Modal(
        CreateModal::new(d.id, d.title).components(vec![CreateActionRow::InputText(input)]),
    )
}

/// The custom id of a dialog's one text input.
pub(super) const DIALOG_INPUT: &str = "value";

/// Who to answer and how.
pub(super) enum Target<'a> {
    Command(&'a CommandInteraction),
    Component(&'a ComponentInteraction),
    /// A dialog's answer (a modal submitted from a button under a message).
    Dialog(&'a ModalInteraction),
}

impl Target<'_> {
    /// The interaction's id, its application's id and its token.
    pub(super) fn ids(&self) -> (u64, u64, &str) {
        match self {
            Target::Command(c) => (c.id.get(), c.application_id.get(), &c.token),
            Target::Component(c) => (c.id.get(), c.application_id.get(), &c.token),
            Target::Dialog(m) => (m.id.get(), m.application_id.get(), &m.token),
        }
    }
    /// The message whose button was pressed (a button's, or the dialog's a button opened).
    pub(super) fn message(&self) -> Option<&serenity::all::Message> {
        match self {
            Target::Command(_) => None,
            Target::Component(c) => Some(&c.message),
            Target::Dialog(m) => m.message.as_deref(),
        }
    }
    /// `…/messages/@original` of the interaction's webhook.
    pub(super) fn original_path(&self) -> String {
        let (_, app, token) = self.ids();
        format!("/webhooks/{app}/{token}/messages/@original")
    }
    pub(super) async fn respond(
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
    pub(super) async fn followup(
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
    pub(super) async fn original(&self, http: &Http) -> Result<MessageId, Failure> {
        let answer = rest::request(http, reqwest::Method::GET, &self.original_path(), None).await?;
        rest::id_of(answer.as_ref()).map(MessageId::new)
    }
    pub(super) async fn delete_original(&self, http: &Http) -> Result<(), Failure> {
        rest::request(http, reqwest::Method::DELETE, &self.original_path(), None)
            .await
            .map(|_| ())
    }
    pub(super) async fn edit(
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
    pub(super) fn channel(&self) -> ChannelId {
        match self {
            Target::Command(c) => c.channel_id,
            Target::Component(c) => c.channel_id,
            Target::Dialog(m) => m.channel_id,
        }
    }
}

/// Whether, and how, an interaction was deferred ("thinking…").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Deferred {
    No,
    /// Seen by everyone in the channel.
    Public,
    /// Seen only by the user.
    Private,
}

/// Runs the bot core off the async threads; defers the interaction if it takes long (privately
/// for a command whose answer is private). `admitted`: the command was already counted against
/// the user's rate limit ([`Bot::admit`]).
pub(super) async fn handle_timed(
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

pub(super) fn internal_error(e: tokio::task::JoinError) -> Reply {
    tracing::error!(error = %e, "bot core panicked");
    Reply::private("Something went wrong on our side and nothing was changed; please try again.")
}

/// Sends replies: the first as the interaction response (or the edit of a deferred one), the
/// rest as follow-ups; replies for other channels are posted there (a little before the
/// answer, the rest after it). A private reply is only ever sent as a private response or
/// follow-up: when the interaction was deferred publicly, the public "thinking…" is deleted
/// and the answer follows privately. A public reply that cannot be sent as a response falls
/// back to a channel message. Owed replies are reported delivered, or failed (to be retried
/// from the outbox).
pub(super) async fn send(
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
pub(super) async fn send_elsewhere(
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
pub(super) async fn tell_privately(
    http: &Http,
    target: &Target<'_>,
    answered: bool,
    problem: String,
) {
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
pub(super) struct Answer<'a, 'b> {
    pub(super) target: &'a Target<'b>,
    pub(super) deferred: Deferred,
    pub(super) update_buttons: bool,
}

/// Where an answer stands: whether the interaction has been answered (follow-ups are possible),
/// and whether its answer is still the deferred "thinking…" waiting for its content.
pub(super) struct Answering {
    pub(super) answered: bool,
    pub(super) pending_edit: bool,
}

impl Answer<'_, '_> {
    /// Sends the replies that answer here (`here_replies`, of all the command's `replies`):
    /// the problems to tell the user, the threads to archive once every reply is out (the
    /// answer here may go in one of them), and whether the interaction was answered.
    pub(super) async fn send(
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
    /// (but its link to the web) and takes the core's new text for it, if `replies` give one
    /// (an answered challenge). Whether the interaction is answered.
    pub(super) async fn update_pressed(
        &self,
        http: &Http,
        replies: &[Reply],
        first: Option<&Reply>,
    ) -> bool {
        let target = self.target;
        if let Some(first) = first {
            let page = outgoing(first).into_iter().next();
            let m = page.as_ref().map_or_else(
                || CreateInteractionResponseMessage::new().components(vec![]),
                |o| {
                    CreateInteractionResponseMessage::new()
                        .content(o.content.clone())
                        .allowed_mentions(CreateAllowedMentions::new())
                        .components(rows(&o.buttons))
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
        let kept = target.message().map(links_of).unwrap_or_default();
        let update = CreateInteractionResponse::UpdateMessage(pressed.iter().fold(
            CreateInteractionResponseMessage::new().components(rows(&kept)),
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
    pub(super) async fn send_reply(
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
    pub(super) async fn send_part(
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
pub(super) async fn post_in_new_thread(
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
    pub(super) async fn on_command(&self, dctx: &Context, cmd: CommandInteraction) {
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
    pub(super) async fn challenge_in_thread(
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
        ctx.channel = crate::ids::ChannelId::new(thread.to_string());
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
                    .channel(&crate::ids::ChannelId::new(thread.to_string()))
                    .text(".");
                if let Some(problem) = refused {
                    note = note.text(format!(" {problem}")).private();
                }
                note.build()
            }
        };
        send(&self.bot, &dctx.http, &target, &[note], deferred, false).await;
    }

    pub(super) async fn on_autocomplete(&self, dctx: &Context, ac: CommandInteraction) {
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

    pub(super) async fn on_component(&self, dctx: &Context, c: ComponentInteraction) {
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
    pub(super) async fn run_pressed(
        &self,
        dctx: &Context,
        target: &Target<'_>,
        ctx: Ctx,
        command: Command,
    ) {
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
    pub(super) async fn on_dialog(&self, dctx: &Context, m: ModalInteraction) {
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
