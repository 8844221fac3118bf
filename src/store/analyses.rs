//! Post-game analyses: one per finished game and AI level, requested by `/analyse`, run in the
//! background and kept once done (the cache).

use super::db::{Result, Tx};
use super::value::params;
use crate::ids::*;

stored_enum! {
    /// Where an analysis stands.
    pub enum AnalysisStatus = "an analysis status" {
        /// Asked for and not finished (run, or run again after a restart).
        Running = "running",
        /// Finished: its result is stored.
        Done = "done",
        /// Given up (the search failed); asking again starts it afresh.
        Failed = "failed",
    }
}

row! {
    /// One analysis.
    ///
    /// Fields: `id`; `game_id`; `level` (1 to 5); `status`; `done`: positions searched as last
    /// shown; `total`: positions to search; `result`: the result (JSON, written by the bot
    /// core) once done; `channel_id`: where it was asked for; `requested_by`: who asked;
    /// `message_id`: the outbox id of its progress message; `created_at`, `finished_at` (ms).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct AnalysisRow {
        id: AnalysisId, game_id: GameId, level: u8, status: AnalysisStatus, done: u32, total: u32,
        result: Option<String>, channel_id: ChannelId, requested_by: UserId,
        message_id: Option<MessageId>, created_at: i64, finished_at: Option<i64>,
    }
}

/// An analysis to store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewAnalysis<'a> {
    pub game_id: GameId,
    pub level: u8,
    pub total: u32,
    pub channel_id: &'a ChannelId,
    pub requested_by: &'a UserId,
}

impl Tx<'_> {
    /// The analysis of `game_id` at `level`, if one was ever asked for.
    pub fn analysis_of(&self, game_id: GameId, level: u8) -> Result<Option<AnalysisRow>> {
        self.first(
            "analyses",
            "SELECT * FROM analyses WHERE game_id = $1 AND level = $2",
            params![game_id, level],
            AnalysisRow::from_row,
        )
    }

    /// An analysis by its id.
    pub fn analysis(&self, id: AnalysisId) -> Result<Option<AnalysisRow>> {
        self.first(
            "analyses",
            "SELECT * FROM analyses WHERE id = $1",
            params![id],
            AnalysisRow::from_row,
        )
    }

    /// Starts an analysis (a failed one of the same game and level starts afresh); its id.
    pub fn start_analysis(&self, a: &NewAnalysis, now: i64) -> Result<AnalysisId> {
        self.exec(
            "DELETE FROM analyses WHERE game_id = $1 AND level = $2 AND status = 'failed'",
            params![a.game_id, a.level],
        )?;
        self.insert(
            "INSERT INTO analyses (game_id, level, status, done, total, channel_id,
               requested_by, created_at)
             VALUES ($1, $2, 'running', 0, $3, $4, $5, $6)",
            params![
                a.game_id,
                a.level,
                a.total,
                a.channel_id,
                a.requested_by,
                now
            ],
        )
        .map(AnalysisId)
    }

    /// Records the outbox id of an analysis's progress message.
    pub fn set_analysis_message(&self, id: AnalysisId, message_id: MessageId) -> Result<()> {
        self.exec(
            "UPDATE analyses SET message_id = $2 WHERE id = $1",
            params![id, message_id],
        )?;
        Ok(())
    }

    /// The analyses still running, in the order they are served: round robin over the users
    /// who asked for them, so that one user's requests never hold up everyone else's. Each
    /// user's requests are taken oldest first, one per round; within a round, the user served
    /// least recently (whose last analysis finished earliest, or never) goes first, then the
    /// user whose first waiting request is oldest.
    pub fn running_analyses(&self) -> Result<Vec<AnalysisRow>> {
        self.all(
            "analyses",
            "WITH waiting AS (
               SELECT *,
                 ROW_NUMBER() OVER (PARTITION BY requested_by ORDER BY id) AS turn,
                 MIN(id) OVER (PARTITION BY requested_by) AS first_id
               FROM analyses WHERE status = 'running'
             ),
             served AS (
               SELECT requested_by, MAX(finished_at) AS last_served FROM analyses
               WHERE finished_at IS NOT NULL GROUP BY requested_by
             )
             SELECT waiting.* FROM waiting LEFT JOIN served USING (requested_by)
             ORDER BY turn, COALESCE(last_served, 0), first_id",
            params![],
            AnalysisRow::from_row,
        )
    }

    /// The analysis `user` asked for on server `server_id` that is still running, if any.
    pub fn running_analysis_by(
        &self,
        server_id: &ServerId,
        user: &UserId,
    ) -> Result<Option<AnalysisRow>> {
        self.first(
            "analyses",
            "SELECT analyses.* FROM analyses JOIN games ON games.id = analyses.game_id
             WHERE analyses.status = 'running' AND analyses.requested_by = $2
               AND games.server_id = $1
             ORDER BY analyses.id LIMIT 1",
            params![server_id, user],
            AnalysisRow::from_row,
        )
    }

    /// Records the positions searched of a running analysis, if more than recorded; whether
    /// it changed anything.
    pub fn analysis_progress(&self, id: AnalysisId, done: u32) -> Result<bool> {
        Ok(self.exec(
            "UPDATE analyses SET done = $2 WHERE id = $1 AND status = 'running' AND done < $2",
            params![id, done],
        )? == 1)
    }

    /// Finishes a running analysis with its result (`Done`) or without (`Failed`); false if
    /// it was not running (finished already).
    pub fn finish_analysis(
        &self,
        id: AnalysisId,
        status: AnalysisStatus,
        result: Option<&str>,
        now: i64,
    ) -> Result<bool> {
        Ok(self.exec(
            "UPDATE analyses SET status = $2, result = $3, finished_at = $4,
               done = CASE WHEN $2 = 'done' THEN total ELSE done END
             WHERE id = $1 AND status = 'running'",
            params![id, status.id(), result, now],
        )? == 1)
    }

    /// Claims running the analysis `id` for `worker` until `until`: false while another
    /// worker holds it, or when it is no longer running.
    pub fn claim_analysis(
        &self,
        id: AnalysisId,
        worker: &str,
        now: i64,
        until: i64,
    ) -> Result<bool> {
        self.claim_row(
            "analyses",
            ("claimed_by", "lease_until"),
            "status = 'running'",
            &id,
            (worker, now, until),
        )
    }
}
