//! Ladders (docs/rules.md §11): a ladder's players in rank order, and its games, each one
//! challenge played at once in a thread named by its stable key.

use super::db::{Result, Tx};
use super::value::params;
use crate::game::{Scoring, Variant};
use crate::ids::*;

stored_enum! {
    /// Where a ladder stands. Values: `Open`: taking players and challenges; `Closed`: closed by
    /// its organiser (its games in progress are played out, nothing moves any more).
    pub enum LadderStatus = "a ladder status" {
        Open = "open", Closed = "closed",
    }
}

stored_enum! {
    /// How a ladder game ended for the ladder. Values: `Challenger`: the challenger won;
    /// `Defender`: the defender won; `Draw`: a draw; `Aborted`: no result.
    pub enum LadderResult = "a ladder game result" {
        Challenger = "challenger", Defender = "defender", Draw = "draw", Aborted = "aborted",
    }
}

row! {
    /// A stored ladder.
    ///
    /// Fields: `id`; `server_id`; `channel_id`: where its games' threads open; `creator_id`:
    /// its organiser; `name`; `variant`; `scoring`; `days_per_move`: `None` for no clock;
    /// `rated`: whether its games are rated; `status`; `created_at`; `updated_at`.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct LadderRow {
        id: LadderId, server_id: ServerId, channel_id: ChannelId, creator_id: UserId, name: String,
        variant: Variant, scoring: Scoring, days_per_move: Option<u32>, rated: bool,
        status: LadderStatus, created_at: i64, updated_at: i64,
    }
}

row! {
    /// A ladder's player: `rank` 1 is the top; ranks run 1..n without gaps.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct LadderPlayerRow {
        ladder_id: LadderId, user_id: UserId, rank: u32, joined_at: i64,
    }
}

row! {
    /// A ladder game: one challenge, accepted at once.
    ///
    /// Fields: `id`; `ladder_id`; `challenger_id`; `defender_id`; `game_id`: its game;
    /// `thread_key`: the stable key of its thread; `thread_id`: the platform's thread once
    /// opened; `result`: `None` while in progress; `created_at`; `ended_at`.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct LadderGameRow {
        id: LadderGameId, ladder_id: LadderId, challenger_id: UserId, defender_id: UserId,
        game_id: Option<GameId>, thread_key: String, thread_id: Option<ChannelId>,
        result: Option<LadderResult>, created_at: i64, ended_at: Option<i64>,
    }
}

/// A new ladder.
#[derive(Clone, Debug)]
pub struct NewLadder<'a> {
    pub server_id: &'a ServerId,
    pub channel_id: &'a ChannelId,
    pub creator_id: &'a UserId,
    pub name: &'a str,
    pub variant: Variant,
    pub scoring: Scoring,
    pub days_per_move: Option<u32>,
    pub rated: bool,
}

impl Tx<'_> {
    /// Creates a ladder, open.
    pub fn insert_ladder(&self, l: &NewLadder, now: i64) -> Result<LadderId> {
        self.insert(
            "INSERT INTO ladders (server_id, channel_id, creator_id, name, variant, scoring,
               days_per_move, rated, status, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'open', $9, $9)",
            params![
                l.server_id,
                l.channel_id,
                l.creator_id,
                l.name,
                l.variant.id(),
                l.scoring.id(),
                l.days_per_move,
                l.rated,
                now
            ],
        )
        .map(LadderId)
    }

    /// A ladder by id.
    pub fn ladder(&self, id: LadderId) -> Result<Option<LadderRow>> {
        self.first(
            "ladders",
            "SELECT * FROM ladders WHERE id = $1",
            params![id],
            LadderRow::from_row,
        )
    }

    /// A server's ladders, newest first.
    pub fn server_ladders(&self, server_id: &ServerId) -> Result<Vec<LadderRow>> {
        self.all(
            "ladders",
            "SELECT * FROM ladders WHERE server_id = $1 ORDER BY id DESC",
            params![server_id],
            LadderRow::from_row,
        )
    }

    /// Every ladder, oldest first (`tara-bot ladder export`).
    pub fn all_ladders(&self) -> Result<Vec<LadderRow>> {
        self.all(
            "ladders",
            "SELECT * FROM ladders ORDER BY id",
            params![],
            LadderRow::from_row,
        )
    }

    /// Closes a ladder.
    pub fn close_ladder(&self, id: LadderId, now: i64) -> Result<()> {
        self.exec(
            "UPDATE ladders SET status = 'closed', updated_at = $2 WHERE id = $1",
            params![id, now],
        )?;
        Ok(())
    }

    /// A ladder's players, top first.
    pub fn ladder_players(&self, id: LadderId) -> Result<Vec<LadderPlayerRow>> {
        self.all(
            "ladder_players",
            "SELECT * FROM ladder_players WHERE ladder_id = $1 ORDER BY rank",
            params![id],
            LadderPlayerRow::from_row,
        )
    }

    /// Puts a player at the bottom of a ladder; their rank.
    pub fn add_ladder_player(&self, id: LadderId, user: &UserId, now: i64) -> Result<u32> {
        let n: i64 = self.value(
            "ladder_players",
            "SELECT COUNT(*) AS n FROM ladder_players WHERE ladder_id = $1",
            params![id],
            "n",
        )?;
        let rank = n + 1;
        self.exec(
            "INSERT INTO ladder_players (ladder_id, user_id, rank, joined_at)
             VALUES ($1, $2, $3, $4)",
            params![id, user, rank, now],
        )?;
        Ok(u32::try_from(rank).unwrap_or(u32::MAX))
    }

    /// Takes a player off a ladder (everyone below moves up one); whether they were on it.
    pub fn remove_ladder_player(&self, id: LadderId, user: &UserId) -> Result<bool> {
        let Some(p) = self.first(
            "ladder_players",
            "SELECT * FROM ladder_players WHERE ladder_id = $1 AND user_id = $2",
            params![id, user],
            LadderPlayerRow::from_row,
        )?
        else {
            return Ok(false);
        };
        self.exec(
            "DELETE FROM ladder_players WHERE ladder_id = $1 AND user_id = $2",
            params![id, user],
        )?;
        self.exec(
            "UPDATE ladder_players SET rank = rank - 1 WHERE ladder_id = $1 AND rank > $2",
            params![id, p.rank],
        )?;
        Ok(true)
    }

    /// Moves the player at rank `from` up to rank `to` (`to < from`): everyone from `to` to
    /// `from - 1` moves down one.
    pub fn raise_ladder_player(
        &self,
        id: LadderId,
        user: &UserId,
        from: u32,
        to: u32,
    ) -> Result<()> {
        self.exec(
            "UPDATE ladder_players SET rank = rank + 1
             WHERE ladder_id = $1 AND rank >= $2 AND rank < $3",
            params![id, to, from],
        )?;
        self.exec(
            "UPDATE ladder_players SET rank = $3 WHERE ladder_id = $1 AND user_id = $2",
            params![id, user, to],
        )?;
        Ok(())
    }

    /// Records a new ladder game (its game is created next, in its thread); its id and
    /// thread key (`l2-g7`: the ladder's seventh game).
    pub fn insert_ladder_game(
        &self,
        id: LadderId,
        challenger: &UserId,
        defender: &UserId,
        now: i64,
    ) -> Result<(LadderGameId, String)> {
        let n: i64 = self.value(
            "ladder_games",
            "SELECT COUNT(*) AS n FROM ladder_games WHERE ladder_id = $1",
            params![id],
            "n",
        )?;
        let key = format!("l{}-g{}", id.0, n + 1);
        let gid = self.insert(
            "INSERT INTO ladder_games (ladder_id, challenger_id, defender_id, thread_key,
               created_at)
             VALUES ($1, $2, $3, $4, $5)",
            params![id, challenger, defender, key, now],
        )?;
        Ok((LadderGameId(gid), key))
    }

    /// Names the game a ladder game is played as.
    pub fn set_ladder_game_game(&self, id: LadderGameId, game: GameId) -> Result<()> {
        self.exec(
            "UPDATE ladder_games SET game_id = $2 WHERE id = $1",
            params![id, game],
        )?;
        Ok(())
    }

    /// The ladder game a game is, if it is one.
    pub fn ladder_game_of(&self, game: GameId) -> Result<Option<LadderGameRow>> {
        self.first(
            "ladder_games",
            "SELECT * FROM ladder_games WHERE game_id = $1",
            params![game],
            LadderGameRow::from_row,
        )
    }

    /// The ladder game played in the thread of `key`, if any.
    pub fn ladder_game_by_key(&self, key: &str) -> Result<Option<LadderGameRow>> {
        self.first(
            "ladder_games",
            "SELECT * FROM ladder_games WHERE thread_key = $1",
            params![key],
            LadderGameRow::from_row,
        )
    }

    /// The ladder game played in a thread (by its key, or the platform's id once opened).
    pub fn ladder_game_in(&self, channel: &ChannelId) -> Result<Option<LadderGameRow>> {
        self.first(
            "ladder_games",
            "SELECT * FROM ladder_games WHERE thread_key = $1 OR thread_id = $1
             ORDER BY id DESC LIMIT 1",
            params![channel],
            LadderGameRow::from_row,
        )
    }

    /// A ladder's games, oldest first: all of them, or only those in progress.
    pub fn ladder_games(&self, id: LadderId, only_open: bool) -> Result<Vec<LadderGameRow>> {
        self.all(
            "ladder_games",
            if only_open {
                "SELECT * FROM ladder_games WHERE ladder_id = $1 AND ended_at IS NULL ORDER BY id"
            } else {
                "SELECT * FROM ladder_games WHERE ladder_id = $1 ORDER BY id"
            },
            params![id],
            LadderGameRow::from_row,
        )
    }

    /// Records how a ladder game ended, once; whether this call recorded it.
    pub fn end_ladder_game(
        &self,
        id: LadderGameId,
        result: LadderResult,
        now: i64,
    ) -> Result<bool> {
        Ok(self.exec(
            "UPDATE ladder_games SET result = $2, ended_at = $3 WHERE id = $1 AND ended_at IS NULL",
            params![id, result.id(), now],
        )? == 1)
    }
}
