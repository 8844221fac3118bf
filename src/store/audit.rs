//! The moderators' audit log: every moderator action, per server.

use super::db::{Result, Tx};
use super::value::params;
use crate::ids::{AuditId, ServerId, UserId};

row! {
    /// One moderator action.
    ///
    /// Fields: `id`: its id; `server_id`: the server; `moderator_id`: who did it; `action`:
    /// what kind of action (`abort`, `settings`, `audit-log`); `subject`: what it acted on;
    /// `detail`: what changed, with the reason given, as Markdown (the reason escaped, schema
    /// version 12); `created_at`: when (ms).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct AuditRow {
        id: AuditId, server_id: ServerId, moderator_id: UserId, action: String, subject: String,
        detail: String, created_at: i64,
    }
}

impl Tx<'_> {
    /// Records a moderator action; its id.
    pub fn insert_audit(
        &self,
        server_id: &ServerId,
        moderator_id: &UserId,
        action: &str,
        subject: &str,
        detail: &str,
        now: i64,
    ) -> Result<AuditId> {
        self.insert(
            "INSERT INTO audit (server_id, moderator_id, action, subject, detail, created_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
            params![server_id, moderator_id, action, subject, detail, now],
        )
        .map(AuditId)
    }

    /// A server's latest moderator actions, newest first.
    pub fn audit_log(&self, server_id: &ServerId, limit: u32) -> Result<Vec<AuditRow>> {
        self.all(
            "audit",
            "SELECT * FROM audit WHERE server_id = $1 ORDER BY id DESC LIMIT $2",
            params![server_id, limit],
            AuditRow::from_row,
        )
    }
}
