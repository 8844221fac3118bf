//! The outbox: every message the bot owes, written in the same transaction as the change that
//! causes it, kept until the platform accepts it, retried with backoff until then.

use super::db::{Result, Tx};
use super::value::params;
use crate::ids::{ChannelId, MessageId, UserId};

/// The first retry of a failed delivery comes after this long; each next one waits twice as
/// long, up to [`MAX_BACKOFF_MS`].
pub const FIRST_BACKOFF_MS: i64 = 15_000;
/// The longest wait between two attempts.
pub const MAX_BACKOFF_MS: i64 = 3_600_000;

/// A message to store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewMessage<'a> {
    /// Where it is posted (with `dm_user_id`: where it goes when the DM cannot be sent).
    pub channel_id: Option<&'a ChannelId>,
    /// Sent privately to this user instead.
    pub dm_user_id: Option<&'a UserId>,
    /// It answers a command (the platform may send it as the command's reply).
    pub answers_command: bool,
    /// The message itself, as the bot core encodes it.
    pub body: &'a str,
    /// An attached image: its file name and bytes.
    pub image: Option<(&'a str, &'a [u8])>,
    /// An edit: the outbox id of the message whose text it replaces. It is delivered only
    /// once that message is posted, and a newer edit of the same message supersedes it.
    pub edits: Option<MessageId>,
    /// The process that stores it and delivers it first (its worker name), and until when it
    /// holds it: no other process's delivery takes it before then.
    pub lease: (&'a str, i64),
}

row! {
    /// A stored message not yet sent.
    ///
    /// Fields: `id`: its id (also the platform's idempotency key); `created_at`: when the change
    /// that owes it committed (ms); `channel_id`, `dm_user_id`, `answers_command`, `body`: as in
    /// [`NewMessage`]; `image_name`, `image`: the attached image; `attempts`: failed deliveries
    /// so far; `edits`: as in [`NewMessage`].
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct OutboxRow {
        id: MessageId, created_at: i64, channel_id: Option<ChannelId>, dm_user_id: Option<UserId>,
        answers_command: bool, body: String, image_name: Option<String>, image: Option<Vec<u8>>,
        attempts: u32, edits: Option<MessageId>,
    }
}

/// Where the message an edit is for stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EditTarget {
    /// Not posted yet: the edit waits.
    Owed,
    /// Posted; the platform's id of it, if the adapter that posted it recorded one.
    Posted(Option<String>),
    /// Given up, or forgotten: the edit has nothing to edit.
    Gone,
}

/// How long to wait after the `attempts`-th failed delivery.
pub fn backoff_ms(attempts: u32) -> i64 {
    let doublings = attempts.saturating_sub(1).min(20);
    (FIRST_BACKOFF_MS << doublings).min(MAX_BACKOFF_MS)
}

impl Tx<'_> {
    /// Stores a message owed from now on; its id.
    /// An edit supersedes the edits of the same message still owed (only the latest text
    /// needs to reach it).
    pub fn insert_message(&self, m: &NewMessage, now: i64) -> Result<MessageId> {
        if let Some(target) = m.edits {
            self.exec(
                "UPDATE outbox SET given_up_at = $2, last_error = 'superseded by a newer edit'
                 WHERE edits = $1 AND sent_at IS NULL AND given_up_at IS NULL",
                params![target, now],
            )?;
        }
        self.insert(
            "INSERT INTO outbox (created_at, channel_id, dm_user_id, answers_command, body,
               image_name, image, next_attempt_at, edits, claimed_by, lease_until)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $1, $8, $9, $10)",
            params![
                now,
                m.channel_id,
                m.dm_user_id,
                m.answers_command,
                m.body,
                m.image.map(|i| i.0),
                m.image.map(|i| i.1),
                m.edits,
                m.lease.0,
                m.lease.1,
            ],
        )
        .map(MessageId)
    }

    /// Records that a message was delivered (its image is no longer kept), with the
    /// platform's id of it when the adapter has one (to edit it later). False if it was
    /// already marked, or given up (a superseded edit).
    pub fn mark_sent(&self, id: MessageId, now: i64, platform_id: Option<&str>) -> Result<bool> {
        Ok(self.exec(
            "UPDATE outbox SET sent_at = $2, image = NULL, platform_id = $3
             WHERE id = $1 AND sent_at IS NULL AND given_up_at IS NULL",
            params![id, now, platform_id],
        )? == 1)
    }

    /// Whether the message `id` stands to be edited, and how to find it.
    pub fn edit_target(&self, id: MessageId) -> Result<EditTarget> {
        let row = self.first(
            "outbox",
            "SELECT sent_at, given_up_at, platform_id FROM outbox WHERE id = $1",
            params![id],
            |c| {
                Ok((
                    c.get::<Option<i64>>("sent_at")?,
                    c.get::<Option<i64>>("given_up_at")?,
                    c.get::<Option<String>>("platform_id")?,
                ))
            },
        )?;
        Ok(match row {
            Some((Some(_), _, platform)) => EditTarget::Posted(platform),
            Some((None, None, _)) => EditTarget::Owed,
            _ => EditTarget::Gone,
        })
    }

    /// Whether an owed edit has been superseded by a newer one (or given up).
    pub fn is_given_up(&self, id: MessageId) -> Result<bool> {
        Ok(self
            .first(
                "outbox",
                "SELECT given_up_at FROM outbox WHERE id = $1",
                params![id],
                |c| c.get::<Option<i64>>("given_up_at"),
            )?
            .flatten()
            .is_some())
    }

    /// Records a failed delivery: the next attempt waits `retry_in` milliseconds when given, else
    /// by [`backoff_ms`]; with `give_up` (the platform refuses it for good) there is none. The
    /// lease on it ends: whichever process retries it first takes it.
    pub fn mark_failed(
        &self,
        id: MessageId,
        error: &str,
        give_up: bool,
        retry_in: Option<i64>,
        now: i64,
    ) -> Result<()> {
        let attempts: u32 = self
            .first(
                "outbox",
                "SELECT attempts FROM outbox WHERE id = $1",
                params![id],
                |c| c.get("attempts"),
            )?
            .unwrap_or(0)
            + 1;
        self.exec(
            "UPDATE outbox SET attempts = $2, last_error = $3, next_attempt_at = $4, lease_until = NULL,
               given_up_at = $5
             WHERE id = $1 AND sent_at IS NULL",
            params![
                id,
                attempts,
                error,
                now + retry_in.unwrap_or_else(|| backoff_ms(attempts)),
                give_up.then_some(now)
            ],
        )?;
        Ok(())
    }

    /// Claims for `worker` until `until` the owed messages due now (not sent, not given up,
    /// past their backoff by `due_by`, stored by `created_before`, and, for an edit, once its
    /// message is posted) that no other process holds: those whose lease ran out, or never had
    /// one, and those `worker` holds itself (a failed report, or its run before a restart),
    /// but for those in `held` (already on their way in this process: their leases are
    /// renewed by [`Tx::renew_message_leases`], and they do not take the places of others).
    /// At most `limit`, oldest first; rows another claimer has locked are skipped, not waited
    /// for.
    #[allow(clippy::too_many_arguments)]
    pub fn claim_due_messages(
        &self,
        due_by: i64,
        created_before: i64,
        limit: u32,
        worker: &str,
        now: i64,
        until: i64,
        held: &std::collections::HashSet<MessageId>,
    ) -> Result<Vec<OutboxRow>> {
        // Enough ids that `limit` of them are not held, whichever are.
        let ids: Vec<MessageId> = self.all(
            "outbox",
            &format!(
                "SELECT id FROM outbox
                 WHERE sent_at IS NULL AND given_up_at IS NULL AND next_attempt_at <= $1
                   AND created_at <= $2
                   AND (lease_until IS NULL OR lease_until <= $5 OR claimed_by = $4)
                   AND (edits IS NULL OR NOT EXISTS (SELECT 1 FROM outbox t
                          WHERE t.id = outbox.edits AND t.sent_at IS NULL AND t.given_up_at IS NULL))
                 ORDER BY id LIMIT $3{}",
                self.skip_locked()
            ),
            params![
                due_by,
                created_before,
                i64::from(limit) + held.len() as i64,
                worker,
                now
            ],
            |c| c.get("id"),
        )?;
        let mut rows = Vec::new();
        for id in ids.into_iter().filter(|id| !held.contains(id)) {
            if rows.len() == limit as usize {
                break;
            }
            let row = self.first(
                "outbox",
                "SELECT * FROM outbox WHERE id = $1",
                params![id],
                OutboxRow::from_row,
            )?;
            if let Some(row) = row {
                self.exec(
                    "UPDATE outbox SET claimed_by = $2, lease_until = $3 WHERE id = $1",
                    params![row.id, worker, until],
                )?;
                rows.push(row);
            }
        }
        Ok(rows)
    }

    /// Keeps the messages `held` (claimed by `worker`, still owed, on their way in its
    /// queues) its own until `until`, so that no other process takes one while it waits its
    /// turn. How many were renewed.
    pub fn renew_message_leases(
        &self,
        held: &[MessageId],
        worker: &str,
        until: i64,
    ) -> Result<usize> {
        let mut n = 0;
        for id in held {
            n += self.exec(
                "UPDATE outbox SET lease_until = $3
                 WHERE id = $1 AND claimed_by = $2 AND sent_at IS NULL AND given_up_at IS NULL",
                params![*id, worker, until],
            )?;
        }
        Ok(n)
    }

    /// How many messages are still owed (not sent, not given up).
    pub fn unsent_count(&self) -> Result<i64> {
        self.value(
            "outbox",
            "SELECT COUNT(*) AS n FROM outbox WHERE sent_at IS NULL AND given_up_at IS NULL",
            params![],
            "n",
        )
    }

    /// Forgets messages sent or given up before `before`; how many.
    pub fn prune_messages(&self, before: i64) -> Result<usize> {
        self.exec(
            "DELETE FROM outbox WHERE (sent_at IS NOT NULL AND sent_at < $1)
               OR (given_up_at IS NOT NULL AND given_up_at < $1)",
            params![before],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_an_hour() {
        assert_eq!(backoff_ms(1), 15_000);
        assert_eq!(backoff_ms(2), 30_000);
        assert_eq!(backoff_ms(3), 60_000);
        assert_eq!(backoff_ms(9), 3_600_000);
        assert_eq!(backoff_ms(200), 3_600_000);
    }
}
