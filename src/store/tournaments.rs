//! Tournaments and their pairings (RULES.md Part F). A pairing is one game, or a match; its
//! games point back at it through `games.pairing_id`.

use super::db::{Cols, Result, Tx};
use crate::game::{Scoring, Variant};
use rusqlite::params;

stored_enum! {
    /// How a tournament is paired.
    pub enum TournamentFormat {
        /// FIDE Dutch Swiss.
        Swiss = "swiss",
        /// Everyone plays everyone (Berger tables).
        RoundRobin = "round-robin",
        /// Single elimination.
        Knockout = "knockout",
    }
}

stored_enum! {
    /// Where a tournament stands.
    pub enum TournamentStatus {
        /// Taking sign-ups.
        Open = "open",
        /// Being played.
        Running = "running",
        /// Over, with final standings.
        Finished = "finished",
        /// Called off.
        Cancelled = "cancelled",
    }
}

/// A stored tournament.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentRow {
    /// Its id.
    pub id: i64,
    /// The server it is played on.
    pub server_id: String,
    /// The channel its round messages go to (its games are in threads).
    pub channel_id: String,
    /// Who created it (an organiser).
    pub creator_id: String,
    /// Its name.
    pub name: String,
    /// Swiss, round robin or knockout.
    pub format: TournamentFormat,
    /// The game.
    pub variant: Variant,
    /// The scoring.
    pub scoring: Scoring,
    /// The time control of its games: days per move, `None` for no clock.
    pub days_per_move: Option<u32>,
    /// Whether its games are rated.
    pub rated: bool,
    /// Open, running, finished or cancelled.
    pub status: TournamentStatus,
    /// When it was created.
    pub created_at: i64,
    /// When it last changed.
    pub updated_at: i64,
}

impl TournamentRow {
    fn from_row(c: &Cols) -> Result<TournamentRow> {
        Ok(TournamentRow {
            id: c.get("id")?,
            server_id: c.get("server_id")?,
            channel_id: c.get("channel_id")?,
            creator_id: c.get("creator_id")?,
            name: c.get("name")?,
            format: c.parse("format", "a tournament format", TournamentFormat::from_id)?,
            variant: c.parse("variant", "a variant", |s| s.parse().ok())?,
            scoring: c.parse("scoring", "a scoring", |s| s.parse().ok())?,
            days_per_move: c.get("days_per_move")?,
            rated: c.get("rated")?,
            status: c.parse("status", "a tournament status", TournamentStatus::from_id)?,
            created_at: c.get("created_at")?,
            updated_at: c.get("updated_at")?,
        })
    }
}

/// A new tournament (created open for sign-ups).
#[derive(Clone, Debug)]
pub struct NewTournament<'a> {
    /// The server.
    pub server_id: &'a str,
    /// The channel for its round messages.
    pub channel_id: &'a str,
    /// Who creates it.
    pub creator_id: &'a str,
    /// Its name.
    pub name: &'a str,
    /// Swiss, round robin or knockout.
    pub format: TournamentFormat,
    /// The game.
    pub variant: Variant,
    /// The scoring.
    pub scoring: Scoring,
    /// Days per move, `None` for no clock.
    pub days_per_move: Option<u32>,
    /// Whether its games are rated.
    pub rated: bool,
}

stored_enum! {
    /// The result of a pairing, from the point of view of its two players.
    pub enum PairingResult {
        /// Player 0 won over the board.
        Win0 = "win0",
        /// Player 1 won over the board.
        Win1 = "win1",
        /// A draw over the board.
        Draw = "draw",
        /// Player 0 forfeited (Part F.1): player 1 scores 1, unplayed for both.
        Forfeit0 = "forfeit0",
        /// Player 1 forfeited.
        Forfeit1 = "forfeit1",
        /// Player 0 had a bye (no opponent).
        Bye = "bye",
    }
}

/// A stored pairing: one board of one round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairingRow {
    /// Its id (what `games.pairing_id` names).
    pub id: i64,
    /// The tournament.
    pub tournament_id: i64,
    /// The round, from 1.
    pub round: u32,
    /// The board, from 1.
    pub board: u32,
    /// The player who moves first (FIDE's White), or who has the bye.
    pub player0: String,
    /// The opponent; `None` for a bye.
    pub player1: Option<String>,
    /// The result, `None` while undecided.
    pub result: Option<PairingResult>,
    /// Its game (for a match: the latest game; all its games name the pairing).
    pub game_id: Option<i64>,
    /// Its match, when the tournament plays matches.
    pub match_id: Option<i64>,
    /// When it was paired.
    pub created_at: i64,
    /// When it last changed.
    pub updated_at: i64,
}

impl PairingRow {
    fn from_row(c: &Cols) -> Result<PairingRow> {
        Ok(PairingRow {
            id: c.get("id")?,
            tournament_id: c.get("tournament_id")?,
            round: c.get("round")?,
            board: c.get("board")?,
            player0: c.get("player0_id")?,
            player1: c.get("player1_id")?,
            result: c.parse_opt("result", "a pairing result", PairingResult::from_id)?,
            game_id: c.get("game_id")?,
            match_id: c.get("match_id")?,
            created_at: c.get("created_at")?,
            updated_at: c.get("updated_at")?,
        })
    }
}

/// A new pairing.
#[derive(Clone, Debug)]
pub struct NewPairing<'a> {
    /// The tournament.
    pub tournament_id: i64,
    /// The round, from 1.
    pub round: u32,
    /// The board, from 1.
    pub board: u32,
    /// Who moves first.
    pub player0: &'a str,
    /// The opponent; `None` for a bye.
    pub player1: Option<&'a str>,
}

impl Tx<'_> {
    /// Creates a tournament, open for sign-ups; its id.
    pub fn insert_tournament(&self, t: &NewTournament, now: i64) -> Result<i64> {
        self.insert(
            "INSERT INTO tournaments (server_id, channel_id, creator_id, name, format, variant,
               scoring, days_per_move, rated, status, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'open', ?10, ?10)",
            params![
                t.server_id,
                t.channel_id,
                t.creator_id,
                t.name,
                t.format.id(),
                t.variant.id(),
                t.scoring.id(),
                t.days_per_move,
                t.rated,
                now
            ],
        )
    }

    /// A tournament by id.
    pub fn tournament(&self, id: i64) -> Result<Option<TournamentRow>> {
        self.first(
            "tournaments",
            "SELECT * FROM tournaments WHERE id = ?1",
            [id],
            TournamentRow::from_row,
        )
    }

    /// A server's tournaments, newest first.
    pub fn server_tournaments(&self, server_id: &str) -> Result<Vec<TournamentRow>> {
        self.all(
            "tournaments",
            "SELECT * FROM tournaments WHERE server_id = ?1 ORDER BY id DESC",
            [server_id],
            TournamentRow::from_row,
        )
    }

    /// Changes a tournament's status.
    pub fn set_tournament_status(&self, id: i64, status: TournamentStatus, now: i64) -> Result<()> {
        self.exec(
            "UPDATE tournaments SET status = ?2, updated_at = ?3 WHERE id = ?1",
            params![id, status.id(), now],
        )?;
        Ok(())
    }

    /// Records a pairing; fails if its board of that round is already paired. Its id.
    pub fn insert_pairing(&self, p: &NewPairing, now: i64) -> Result<i64> {
        self.insert(
            "INSERT INTO tournament_pairings (tournament_id, round, board, player0_id,
               player1_id, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
            params![p.tournament_id, p.round, p.board, p.player0, p.player1, now],
        )
    }

    /// A pairing by id.
    pub fn pairing(&self, id: i64) -> Result<Option<PairingRow>> {
        self.first(
            "tournament_pairings",
            "SELECT * FROM tournament_pairings WHERE id = ?1",
            [id],
            PairingRow::from_row,
        )
    }

    /// A tournament's pairings (of one round, or all), by round and board.
    pub fn pairings(&self, tournament_id: i64, round: Option<u32>) -> Result<Vec<PairingRow>> {
        self.all(
            "tournament_pairings",
            "SELECT * FROM tournament_pairings WHERE tournament_id = ?1
               AND (?2 IS NULL OR round = ?2) ORDER BY round, board",
            params![tournament_id, round],
            PairingRow::from_row,
        )
    }

    /// Links a pairing to its game or match (`None` keeps what is stored).
    pub fn set_pairing_game(
        &self,
        id: i64,
        game_id: Option<i64>,
        match_id: Option<i64>,
        now: i64,
    ) -> Result<()> {
        self.exec(
            "UPDATE tournament_pairings SET game_id = COALESCE(?2, game_id),
               match_id = COALESCE(?3, match_id), updated_at = ?4 WHERE id = ?1",
            params![id, game_id, match_id, now],
        )?;
        Ok(())
    }

    /// Records a pairing's result.
    pub fn set_pairing_result(&self, id: i64, result: PairingResult, now: i64) -> Result<()> {
        self.exec(
            "UPDATE tournament_pairings SET result = ?2, updated_at = ?3 WHERE id = ?1",
            params![id, result.id(), now],
        )?;
        Ok(())
    }
}
