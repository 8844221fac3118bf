//! Leagues (docs/rules.md §11.2): players who join at any time, and seasons of divisions, each
//! division played as a round-robin tournament; each player's season as it ended.

use super::db::{Result, Tx};
use super::value::params;
use crate::game::{Scoring, Variant};
use crate::ids::*;

stored_enum! {
    /// Where a league stands. Values: `Open`: waiting for its first season (or for players);
    /// `Running`: a season is being played or the next one is due; `Closed`: closed by its
    /// organiser.
    pub enum LeagueStatus = "a league status" {
        Open = "open", Running = "running", Closed = "closed",
    }
}

stored_enum! {
    /// Where a season took a player. Values: `Up`: promoted; `Stay`; `Down`: relegated; `Out`:
    /// left the league or was withdrawn.
    pub enum LeagueMove = "a league movement" {
        Up = "up", Stay = "stay", Down = "down", Out = "out",
    }
}

row! {
    /// A stored league.
    ///
    /// Fields: `id`; `server_id`; `channel_id`: where its messages go and its games' threads
    /// open; `creator_id`: its organiser; `name`; `variant`; `scoring`; `days_per_move`;
    /// `rated`; `is_match`: each pairing a two-game match; `division_size`; `promote`;
    /// `relegate`; `gap_days`: days between a season's last game and the next season;
    /// `status`; `season`: the latest season begun (0: none); `next_season_at`: when the next
    /// season starts by itself, once the last one has ended; `created_at`; `updated_at`;
    /// `closing`: closed by its organiser during a season, so it closes when the season ends.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct LeagueRow {
        id: LeagueId, server_id: ServerId, channel_id: ChannelId, creator_id: UserId, name: String,
        variant: Variant, scoring: Scoring, days_per_move: Option<u32>, rated: bool,
        is_match: bool, division_size: u32, promote: u32, relegate: u32, gap_days: u32,
        status: LeagueStatus, season: u32, next_season_at: Option<i64>, created_at: i64,
        updated_at: i64, closing: bool,
    }
}

row! {
    /// A league's player: `leaving` at the end of the season in progress; `left_at` once gone.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct LeaguePlayerRow {
        league_id: LeagueId, user_id: UserId, joined_at: i64, leaving: bool, left_at: Option<i64>,
    }
}

row! {
    /// A division of a season: its name ("1", "2a"), level and tournament.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct LeagueDivisionRow {
        league_id: LeagueId, season: u32, division: String, level: u32,
        tournament_id: TournamentId,
    }
}

row! {
    /// A player's season as it ended: the division, the place, and the movement.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct LeagueResultRow {
        league_id: LeagueId, season: u32, user_id: UserId, division: String, place: u32,
        movement: LeagueMove,
    }
}

/// A new league.
#[derive(Clone, Debug)]
pub struct NewLeague<'a> {
    pub server_id: &'a ServerId,
    pub channel_id: &'a ChannelId,
    pub creator_id: &'a UserId,
    pub name: &'a str,
    pub variant: Variant,
    pub scoring: Scoring,
    pub days_per_move: Option<u32>,
    pub rated: bool,
    pub is_match: bool,
    pub division_size: u32,
    pub promote: u32,
    pub relegate: u32,
    pub gap_days: u32,
}

impl Tx<'_> {
    /// Creates a league, open (no season yet).
    pub fn insert_league(&self, l: &NewLeague, now: i64) -> Result<LeagueId> {
        self.insert(
            "INSERT INTO leagues (server_id, channel_id, creator_id, name, variant, scoring,
               days_per_move, rated, is_match, division_size, promote, relegate, gap_days,
               status, season, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 'open', 0, $14, $14)",
            params![
                l.server_id,
                l.channel_id,
                l.creator_id,
                l.name,
                l.variant.id(),
                l.scoring.id(),
                l.days_per_move,
                l.rated,
                l.is_match,
                l.division_size,
                l.promote,
                l.relegate,
                l.gap_days,
                now
            ],
        )
        .map(LeagueId)
    }

    /// A league by id.
    pub fn league(&self, id: LeagueId) -> Result<Option<LeagueRow>> {
        self.first(
            "leagues",
            "SELECT * FROM leagues WHERE id = $1",
            params![id],
            LeagueRow::from_row,
        )
    }

    /// A server's leagues, newest first.
    pub fn server_leagues(&self, server_id: &ServerId) -> Result<Vec<LeagueRow>> {
        self.all(
            "leagues",
            "SELECT * FROM leagues WHERE server_id = $1 ORDER BY id DESC",
            params![server_id],
            LeagueRow::from_row,
        )
    }

    /// Every league, oldest first.
    pub fn all_leagues(&self) -> Result<Vec<LeagueRow>> {
        self.all(
            "leagues",
            "SELECT * FROM leagues ORDER BY id",
            params![],
            LeagueRow::from_row,
        )
    }

    /// The leagues with a season running (none due yet), and those whose next season is due
    /// at `now`.
    pub fn leagues_to_settle(&self, now: i64) -> Result<Vec<LeagueRow>> {
        self.all(
            "leagues",
            "SELECT * FROM leagues WHERE status = 'running'
               AND (next_season_at IS NULL OR next_season_at <= $1) ORDER BY id",
            params![now],
            LeagueRow::from_row,
        )
    }

    /// Sets how many days pass between a season's last game and the next season.
    pub fn set_league_gap(&self, id: LeagueId, days: u32, now: i64) -> Result<()> {
        self.exec(
            "UPDATE leagues SET gap_days = $2, updated_at = $3 WHERE id = $1",
            params![id, days, now],
        )?;
        Ok(())
    }

    /// Begins season `season` (the one after the league's latest), once: false when another
    /// change already began it.
    pub fn begin_season(&self, id: LeagueId, season: u32, now: i64) -> Result<bool> {
        Ok(self.exec(
            "UPDATE leagues SET season = $2, status = 'running', next_season_at = NULL,
               updated_at = $3
             WHERE id = $1 AND season = $2 - 1 AND status <> 'closed'",
            params![id, season, now],
        )? == 1)
    }

    /// Ends the league's season `season`, once: the next starts at `next`. False when another
    /// change already ended it.
    pub fn end_season(&self, id: LeagueId, season: u32, next: i64, now: i64) -> Result<bool> {
        Ok(self.exec(
            "UPDATE leagues SET next_season_at = $3, updated_at = $4
             WHERE id = $1 AND season = $2 AND next_season_at IS NULL AND status = 'running'",
            params![id, season, next, now],
        )? == 1)
    }

    /// Marks a league to close when its season in progress ends.
    pub fn set_league_closing(&self, id: LeagueId, now: i64) -> Result<()> {
        self.exec(
            "UPDATE leagues SET closing = 1, updated_at = $2 WHERE id = $1",
            params![id, now],
        )?;
        Ok(())
    }

    /// Closes a league: no season starts any more.
    pub fn close_league(&self, id: LeagueId, now: i64) -> Result<()> {
        self.exec(
            "UPDATE leagues SET status = 'closed', next_season_at = NULL, updated_at = $2
             WHERE id = $1",
            params![id, now],
        )?;
        Ok(())
    }

    /// Puts a league back to waiting for `/league start` (too few players for a season).
    pub fn pause_league(&self, id: LeagueId, now: i64) -> Result<()> {
        self.exec(
            "UPDATE leagues SET status = 'open', next_season_at = NULL, updated_at = $2
             WHERE id = $1",
            params![id, now],
        )?;
        Ok(())
    }

    /// A league's players, in the order they joined, those who left included.
    pub fn league_players(&self, id: LeagueId) -> Result<Vec<LeaguePlayerRow>> {
        self.all(
            "league_players",
            "SELECT * FROM league_players WHERE league_id = $1 ORDER BY joined_at, join_seq, user_id",
            params![id],
            LeaguePlayerRow::from_row,
        )
    }

    /// Adds a player (or takes one back who had left or was leaving).
    pub fn join_league(&self, id: LeagueId, user: &UserId, now: i64) -> Result<()> {
        self.exec(
            "INSERT INTO league_players (league_id, user_id, joined_at, leaving, left_at, join_seq)
             VALUES ($1, $2, $3, 0, NULL,
                     (SELECT COALESCE(MAX(join_seq), 0) + 1 FROM league_players WHERE league_id = $1))
             ON CONFLICT (league_id, user_id) DO UPDATE
                SET joined_at = CASE WHEN league_players.left_at IS NULL
                                     THEN league_players.joined_at ELSE excluded.joined_at END,
                    join_seq = CASE WHEN league_players.left_at IS NULL
                                    THEN league_players.join_seq ELSE excluded.join_seq END,
                    leaving = 0, left_at = NULL",
            params![id, user, now],
        )?;
        Ok(())
    }

    /// Marks a player as leaving at the end of the season in progress.
    pub fn set_league_leaving(&self, id: LeagueId, user: &UserId) -> Result<()> {
        self.exec(
            "UPDATE league_players SET leaving = 1 WHERE league_id = $1 AND user_id = $2",
            params![id, user],
        )?;
        Ok(())
    }

    /// Records that a player has left.
    pub fn set_league_left(&self, id: LeagueId, user: &UserId, now: i64) -> Result<()> {
        self.exec(
            "UPDATE league_players SET leaving = 0, left_at = $3
             WHERE league_id = $1 AND user_id = $2 AND left_at IS NULL",
            params![id, user, now],
        )?;
        Ok(())
    }

    /// Records a division of a season.
    pub fn insert_league_division(&self, d: &LeagueDivisionRow) -> Result<()> {
        self.exec(
            "INSERT INTO league_divisions (league_id, season, division, level, tournament_id)
             VALUES ($1, $2, $3, $4, $5)",
            params![d.league_id, d.season, d.division, d.level, d.tournament_id],
        )?;
        Ok(())
    }

    /// A league's divisions, by season then level and name: all, or one season's.
    pub fn league_divisions(
        &self,
        id: LeagueId,
        season: Option<u32>,
    ) -> Result<Vec<LeagueDivisionRow>> {
        let all = self.all(
            "league_divisions",
            "SELECT * FROM league_divisions WHERE league_id = $1
             ORDER BY season, level, length(division), division",
            params![id],
            LeagueDivisionRow::from_row,
        )?;
        Ok(all
            .into_iter()
            .filter(|d| season.is_none_or(|s| d.season == s))
            .collect())
    }

    /// The league division a tournament plays, if it is one.
    pub fn division_of(&self, tournament: TournamentId) -> Result<Option<LeagueDivisionRow>> {
        self.first(
            "league_divisions",
            "SELECT * FROM league_divisions WHERE tournament_id = $1",
            params![tournament],
            LeagueDivisionRow::from_row,
        )
    }

    /// Records a player's season as it ended.
    pub fn insert_league_result(&self, r: &LeagueResultRow) -> Result<()> {
        self.exec(
            "INSERT INTO league_results (league_id, season, user_id, division, place, movement)
             VALUES ($1, $2, $3, $4, $5, $6)",
            params![
                r.league_id,
                r.season,
                r.user_id,
                r.division,
                r.place,
                r.movement.id()
            ],
        )?;
        Ok(())
    }

    /// A league's results, by season then division and place.
    pub fn league_results(&self, id: LeagueId) -> Result<Vec<LeagueResultRow>> {
        self.all(
            "league_results",
            "SELECT * FROM league_results WHERE league_id = $1
             ORDER BY season, length(division), division, place",
            params![id],
            LeagueResultRow::from_row,
        )
    }
}
