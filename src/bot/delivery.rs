//! What the adapters report about owed messages: delivered, failed (retried with backoff, or
//! given up), and what is still owed (delivered at start-up and retried while running).

use super::digest;
use super::outbox::reply_of;
use super::reply::escape_markdown;
use super::reply::Reply;
use super::session::{Bot, Out};
use super::text::Builder;
use crate::store::ChannelId;
use crate::store::EditTarget;
use crate::store::MessageId;
use crate::store::StoreError;
use std::collections::HashSet;

/// Sent and abandoned messages are forgotten after this long.
const KEEP_SENT_MS: i64 = 7 * 24 * 3_600_000;
/// At most this many owed messages per claim.
const BATCH: u32 = 50;

impl Bot {
    /// The platform's thread opened for a thread key ([`crate::bot::ThreadRequest::key`]), if
    /// one has been recorded.
    pub fn thread_of(&self, key: &str) -> Option<ChannelId> {
        self.store()
            .read(|tx| tx.thread_of_key(key))
            .unwrap_or_else(|e| {
                tracing::error!(error = %e, key, "reading a thread failed");
                None
            })
    }

    /// Records the thread an adapter opened for a thread key; the games played under the key
    /// move to it. Returns the thread to use: this one, or the one recorded earlier (then the
    /// adapter should delete the one it just opened); `None` if the key is unknown or the
    /// store failed.
    pub fn thread_opened(&self, key: &str, thread_id: &ChannelId) -> Option<ChannelId> {
        let now = self.now();
        let r = self.store().write(|tx| {
            tx.record_thread(key, thread_id, now)?;
            tx.thread_of_key(key)
        });
        r.unwrap_or_else(|e| {
            tracing::error!(error = %e, key, "recording a thread failed");
            None
        })
    }

    /// Whether a thread is already recorded for a key (a game's thread): another key must not
    /// take it.
    pub fn thread_taken(&self, thread: &ChannelId) -> bool {
        self.store()
            .read(|tx| tx.key_of_thread(thread))
            .map_or(true, |k| k.is_some())
    }

    /// The thread for `key` cannot open yet (the server's threads are full, or a permission
    /// is missing): the games waiting for it, which nobody can see yet, keep their whole first
    /// turn, counted from now (the adapter tries again at least once an hour, and a turn is
    /// at least a day, so none of them runs out of time unseen).
    pub fn thread_waits(&self, key: &str) {
        let now = self.now();
        let channel = ChannelId::new(key.to_string());
        if let Err(e) = self
            .store()
            .write(|tx| tx.restart_unplayed_clocks(&channel, now))
        {
            tracing::error!(error = %e, key, "restarting the clocks of a waiting game failed");
        }
    }

    /// The server of `parent` holds as many active threads as the bot may open (`left` are
    /// left to people), so the thread `name` (and any other that is due) waits. Owes the
    /// channel a notice that says so, pinging nobody, and returns it for delivery (the adapter
    /// asks for it at most once in 10 minutes a channel).
    pub fn threads_full(&self, parent: &ChannelId, name: &str, left: usize) -> Vec<Reply> {
        let text = format!(
            "This server holds as many active threads as it can (Discord allows 1,000 active \
             threads a server, and the bot leaves the last {left} to people), so the thread for \
             **{}** (and any other that is due) cannot open yet. Nothing is lost: its messages \
             are kept and posted as soon as a place frees. Moderators can make room by \
             archiving threads that are done.",
            escape_markdown(name)
        );
        let r = self.write_owed(None, self.now(), |_, _| {
            let mut reply = Builder::new().text(text).build();
            reply.channel = Some(parent.clone());
            Ok(vec![Out::text(reply)])
        });
        r.unwrap_or_else(|e| {
            tracing::error!(error = ?e, %parent, "owing the notice that threads are full failed");
            Vec::new()
        })
    }

    /// Records that the owed message `id` was delivered.
    pub fn delivered(&self, id: MessageId) {
        self.delivered_as(id, None);
    }

    /// Records that the owed message `id` was delivered, as the platform's message
    /// `platform_id` (the first message of it, when it went as several), so that it can be
    /// edited later.
    pub fn delivered_as(&self, id: MessageId, platform_id: Option<&str>) {
        let now = self.now();
        if let Err(e) = self.store().write(|tx| tx.mark_sent(id, now, platform_id)) {
            tracing::error!(error = %e, message = id.0, "recording a delivery failed");
        }
    }

    /// Where the message an owed edit is for stands ([`Reply::edits`]): still owed (the edit
    /// waits), posted (with the platform's id of it, if recorded), or gone.
    pub fn edit_target(&self, edit: &Reply) -> EditTarget {
        let Some(target) = edit.edits else {
            return EditTarget::Gone;
        };
        self.store()
            .read(|tx| tx.edit_target(target))
            .unwrap_or_else(|e| {
                tracing::error!(error = %e, message = target.0, "reading an edit's message failed");
                EditTarget::Owed
            })
    }

    /// Whether an owed edit was superseded by a newer edit of the same message (or given up
    /// otherwise): then it need not be sent.
    pub fn superseded(&self, edit: &Reply) -> bool {
        let Some(id) = edit.outbox else { return false };
        self.store().read(|tx| tx.is_given_up(id)).unwrap_or(false)
    }

    /// Records that delivering the owed message `id` failed for now: it is tried again after
    /// `retry_in_ms` instead of the usual backoff (a rate limit's own wait, or a link to a
    /// thread still being opened).
    pub fn delivery_deferred(&self, id: MessageId, error: &str, retry_in_ms: i64) {
        self.record_failure(id, error, false, Some(retry_in_ms));
    }

    /// Records that delivering the owed message `id` failed: it is retried with backoff, or
    /// never again with `give_up` (the platform refuses it for good).
    ///
    /// A daily digest refused for good (the player's direct messages are closed) pauses their
    /// digest, and they are told once in a game's channel: that notice is owed in the same
    /// transaction and delivered with the other owed messages.
    pub fn delivery_failed(&self, id: MessageId, error: &str, give_up: bool) {
        self.record_failure(id, error, give_up, None);
    }

    /// [`Bot::delivery_failed`], the next try after `retry_in` ms when given (else the
    /// backoff).
    fn record_failure(&self, id: MessageId, error: &str, give_up: bool, retry_in: Option<i64>) {
        let now = self.now();
        let r = self.write_owed(None, now, |tx, _| {
            tx.mark_failed(id, error, give_up, retry_in, now)?;
            let notice = if give_up {
                digest::refused(tx, id)?
            } else {
                None
            };
            Ok(notice.into_iter().map(Out::text).collect())
        });
        if let Err(e) = r {
            tracing::error!(error = ?e, message = id.0, "recording a failed delivery failed");
        }
    }

    /// The owed messages due for delivery now, oldest first. At start-up (`at_start`) every
    /// one is due at once; while running, each waits out its backoff, and those still in their
    /// own command's hands are left alone.
    pub fn undelivered(&self, at_start: bool) -> Vec<Reply> {
        self.undelivered_besides(at_start.then(|| self.now()), &HashSet::new())
    }

    /// [`Bot::undelivered`], leaving out the messages `held` (already on their way in this
    /// process's delivery queues): at most [`BATCH`] others. `start_up`: the start-up sweep,
    /// of the messages created by that time (the moment before the process started); every
    /// one is due at once, but those created since are its own commands' (still being
    /// answered) and left to them.
    pub fn undelivered_besides(
        &self,
        start_up: Option<i64>,
        held: &HashSet<MessageId>,
    ) -> Vec<Reply> {
        let now = self.now();
        let in_hand = now - self.in_flight_ms();
        let (due_by, before) = match start_up {
            Some(by) => (i64::MAX, by.max(in_hand).min(now)),
            None => (now, in_hand),
        };
        // Claimed for this process: another one sharing the database leaves them alone
        // until the lease runs out (this process died before delivering them). What this
        // worker holds already (its earlier run's, at start-up) it takes again at once; the
        // answers its commands are still sending are left to them (`before`).
        let worker = self.worker().to_string();
        // (Forgetting old sent messages deletes only rows nobody claims or changes again.)
        let rows = self.store().claim(|tx| {
            tx.prune_messages(now - KEEP_SENT_MS)?;
            tx.claim_due_messages(
                due_by,
                before,
                BATCH,
                &worker,
                now,
                now + self.lease_ms(),
                held,
            )
        });
        let rows = match rows {
            Ok(rows) => rows,
            Err(e) => {
                tracing::error!(error = %e, "reading the outbox failed");
                return Vec::new();
            }
        };
        rows.into_iter()
            .filter_map(|row| {
                let id = row.id;
                // Read under the lock; drawn after it is released.
                match reply_of(row).and_then(|r| self.drawn(r)) {
                    Ok(r) => Some(r),
                    Err(e) => {
                        let e = e.to_string();
                        tracing::error!(error = %e, message = id.0, "an owed message is unreadable");
                        self.delivery_failed(id, &e, true);
                        None
                    }
                }
            })
            .collect()
    }

    /// Keeps the owed messages `held` (on their way in this process's delivery queues) this
    /// process's for another lease ([`Bot::with_lease_ms`]): another process sharing the
    /// database does not take one while it waits its turn here.
    pub fn renew_leases(&self, held: &[MessageId]) {
        if held.is_empty() {
            return;
        }
        let until = self.now() + self.lease_ms();
        let worker = self.worker().to_string();
        if let Err(e) = self
            .store()
            .claim(|tx| tx.renew_message_leases(held, &worker, until))
        {
            tracing::error!(error = %e, messages = held.len(), "renewing delivery leases failed");
        }
    }

    /// An owed reply with its board's picture drawn from what it stores (nothing to do for one
    /// without a picture, or one stored with its bytes).
    fn drawn(&self, mut reply: Reply) -> Result<Reply, StoreError> {
        let Some(spec) = &reply.board else {
            return Ok(reply);
        };
        if reply.image.is_some() {
            return Ok(reply);
        }
        let board = spec.board().map_err(|e| {
            let id = reply.outbox.map_or(0, |id| id.0);
            StoreError::Corrupt(format!(
                "outbox message {id}: its board cannot be drawn: {e}"
            ))
        })?;
        reply.draw_picture(&board);
        Ok(reply)
    }

    /// How many messages are still owed.
    pub fn owed_count(&self) -> i64 {
        self.store().read(|tx| tx.unsent_count()).unwrap_or(0)
    }
}
