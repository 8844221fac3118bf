//! The outbox: every message the bot owes, written in the same transaction as the change that
//! causes it, kept until the platform accepts it, retried with backoff until then.

use super::db::{Result, Tx};
use rusqlite::params;

/// The first retry of a failed delivery comes after this long; each next one waits twice as
/// long, up to [`MAX_BACKOFF_MS`].
pub const FIRST_BACKOFF_MS: i64 = 15_000;
/// The longest wait between two attempts.
pub const MAX_BACKOFF_MS: i64 = 3_600_000;

/// A message to store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewMessage<'a> {
    /// Where it is posted (with `dm_user_id`: where it goes when the DM cannot be sent).
    pub channel_id: Option<&'a str>,
    /// Sent privately to this user instead.
    pub dm_user_id: Option<&'a str>,
    /// It answers a command (the platform may send it as the command's reply).
    pub answers_command: bool,
    /// The message itself, as the bot core encodes it.
    pub body: &'a str,
    /// An attached image: its file name and bytes.
    pub image: Option<(&'a str, &'a [u8])>,
}

row! {
    /// A stored message not yet sent.
    ///
    /// Fields: `id`: its id (also the platform's idempotency key); `created_at`: when the change
    /// that owes it committed (ms); `channel_id`, `dm_user_id`, `answers_command`, `body`: as in
    /// [`NewMessage`]; `image_name`, `image`: the attached image; `attempts`: failed deliveries
    /// so far.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct OutboxRow {
        id: i64, created_at: i64, channel_id: Option<String>, dm_user_id: Option<String>,
        answers_command: bool, body: String, image_name: Option<String>, image: Option<Vec<u8>>,
        attempts: u32,
    }
}

/// How long to wait after the `attempts`-th failed delivery.
pub fn backoff_ms(attempts: u32) -> i64 {
    let doublings = attempts.saturating_sub(1).min(20);
    (FIRST_BACKOFF_MS << doublings).min(MAX_BACKOFF_MS)
}

impl Tx<'_> {
    /// Stores a message owed from now on; its id.
    pub fn insert_message(&self, m: &NewMessage, now: i64) -> Result<i64> {
        self.insert(
            "INSERT INTO outbox (created_at, channel_id, dm_user_id, answers_command, body,
               image_name, image, next_attempt_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?1)",
            params![
                now,
                m.channel_id,
                m.dm_user_id,
                m.answers_command,
                m.body,
                m.image.map(|i| i.0),
                m.image.map(|i| i.1),
            ],
        )
    }

    /// Records that a message was delivered (its image is no longer kept). False if it was
    /// already marked, or given up.
    pub fn mark_sent(&self, id: i64, now: i64) -> Result<bool> {
        Ok(self.exec(
            "UPDATE outbox SET sent_at = ?2, image = NULL
             WHERE id = ?1 AND sent_at IS NULL AND given_up_at IS NULL",
            params![id, now],
        )? == 1)
    }

    /// Records a failed delivery: the next attempt waits by [`backoff_ms`]; with `give_up` (the
    /// platform refuses it for good) there is none.
    pub fn mark_failed(&self, id: i64, error: &str, give_up: bool, now: i64) -> Result<()> {
        let attempts: u32 = self
            .first(
                "outbox",
                "SELECT attempts FROM outbox WHERE id = ?1",
                params![id],
                |c| c.get("attempts"),
            )?
            .unwrap_or(0)
            + 1;
        self.exec(
            "UPDATE outbox SET attempts = ?2, last_error = ?3, next_attempt_at = ?4,
               given_up_at = CASE WHEN ?5 THEN ?6 ELSE NULL END
             WHERE id = ?1 AND sent_at IS NULL",
            params![
                id,
                attempts,
                error,
                now + backoff_ms(attempts),
                give_up,
                now
            ],
        )?;
        Ok(())
    }

    /// Messages still owed whose next attempt is due by `due_by`, oldest first, skipping those
    /// created after `created_before` (still being sent by the command that made them).
    pub fn due_messages(
        &self,
        due_by: i64,
        created_before: i64,
        limit: u32,
    ) -> Result<Vec<OutboxRow>> {
        self.all(
            "outbox",
            "SELECT * FROM outbox
             WHERE sent_at IS NULL AND given_up_at IS NULL AND next_attempt_at <= ?1
               AND created_at <= ?2
             ORDER BY id LIMIT ?3",
            params![due_by, created_before, limit],
            OutboxRow::from_row,
        )
    }

    /// How many messages are still owed (not sent, not given up).
    pub fn unsent_count(&self) -> Result<i64> {
        self.value(
            "outbox",
            "SELECT COUNT(*) AS n FROM outbox WHERE sent_at IS NULL AND given_up_at IS NULL",
            [],
            "n",
        )
    }

    /// Forgets messages sent or given up before `before`; how many.
    pub fn prune_messages(&self, before: i64) -> Result<usize> {
        self.exec(
            "DELETE FROM outbox WHERE (sent_at IS NOT NULL AND sent_at < ?1)
               OR (given_up_at IS NOT NULL AND given_up_at < ?1)",
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
