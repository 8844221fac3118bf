//! Moderators' tools: the audit log of every moderator action (`/audit`), and the server's log
//! channel that receives each entry as it happens.

use super::options::choices;
use super::reply::{Ctx, Reply};
use super::session::{Bot, Fail, Out, Outcome};
use super::text::Builder;
use super::time::date_text;
use crate::store::ChannelId;
use crate::store::ServerSetting;
use crate::store::Tx;

/// How many entries `/audit` shows.
const SHOWN: u32 = 20;

/// Where a server's audit entries are also posted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AuditLog {
    /// This channel.
    Here,
    /// Nowhere (only `/audit` lists them).
    Off,
}

choices!(AuditLog {
    Here => "here", "post each entry in this channel";
    Off => "off", "stop posting entries";
});

/// Records a moderator action in the audit log, in the transaction of the action itself; the
/// entry as a message for the server's log channel, if it has one (owed like any message).
/// `detail` is Markdown, shown as it is (so a channel or role mention in it works): whatever a
/// user wrote in it (a reason) the caller escapes
/// ([`escape_markdown`](super::reply::escape_markdown)).
pub(crate) fn record_action(
    tx: &Tx,
    ctx: &Ctx,
    action: &str,
    subject: &str,
    detail: &str,
    now: i64,
) -> Outcome<Option<Out>> {
    tx.insert_audit(&ctx.server, &ctx.user.id, action, subject, detail, now)?;
    let channel = tx
        .server_setting(&ctx.server, ServerSetting::LOG_CHANNEL)?
        .filter(|c| !c.is_empty());
    Ok(channel.map(|c| {
        let mut r = Builder::new()
            .text("**Moderator action** · ")
            .user(&ctx.user.id, &ctx.user.name)
            .text(format!(" · {action} · {subject}: {detail}"))
            .build();
        r.channel = Some(ChannelId::new(c));
        Out::text(r)
    }))
}

/// `/audit [log]`: the server's latest moderator actions (moderators); with `log`, where
/// each new entry is also posted (Manage Server).
pub(crate) fn audit(bot: &Bot, ctx: &Ctx, log: Option<AuditLog>) -> Outcome<Vec<Out>> {
    if !ctx.moderator {
        return Err(Fail::User(
            "Only moderators (Manage Messages or Manage Server) can read the audit log.".into(),
        ));
    }
    if let Some(log) = log {
        if !ctx.manager {
            return Err(Fail::User(
                "Only members with Manage Server can choose the audit log channel.".into(),
            ));
        }
        return bot.write(ctx, |tx, now| {
            let value = match log {
                AuditLog::Here => ctx.channel.as_str(),
                AuditLog::Off => "",
            };
            tx.set_server_setting(&ctx.server, ServerSetting::LOG_CHANNEL, value)?;
            let detail = match log {
                AuditLog::Here => format!("entries are posted in <#{}>", ctx.channel),
                AuditLog::Off => "entries are no longer posted".to_string(),
            };
            let mut outs: Vec<Out> =
                record_action(tx, ctx, "audit-log", "the audit log", &detail, now)?
                    .into_iter()
                    .collect();
            let mut answer = Builder::new().text("From now on, each moderator action is ");
            answer = match log {
                AuditLog::Here => answer
                    .text("also posted in ")
                    .channel(&ctx.channel)
                    .text("."),
                AuditLog::Off => answer.text("only listed by `/audit`."),
            };
            outs.insert(0, Out::text(answer.private().build()));
            Ok(outs)
        });
    }
    bot.read(|tx| {
        let rows = tx.audit_log(&ctx.server, SHOWN)?;
        if rows.is_empty() {
            return Ok(vec![Out::text(Reply::private(
                "No moderator actions have been recorded on this server.",
            ))]);
        }
        let mut b = Builder::new().text(format!(
            "**Audit log** (the latest {}, newest first):",
            rows.len()
        ));
        for r in rows {
            let who = tx
                .user_name(&r.moderator_id)?
                .unwrap_or_else(|| r.moderator_id.to_string());
            b = b
                .text(format!("\n{} · ", date_text(r.created_at)))
                .user(&r.moderator_id, &who)
                .text(format!(" · {} · {}: {}", r.action, r.subject, r.detail));
        }
        Ok(vec![Out::text(b.private().build())])
    })
}
