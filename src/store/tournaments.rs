//! Tournaments and their pairings (docs/rules.md §10). A pairing is one game, or a match; its
//! games point back at it through `games.pairing_id`.

use super::db::{Result, Tx};
use super::value::params;
use crate::game::{Scoring, Variant};
use crate::ids::*;

stored_enum! {
    /// How a tournament is paired. Values: `Swiss`: FIDE Dutch Swiss; `RoundRobin`: everyone
    /// plays everyone (Berger tables); `Knockout`: single elimination.
    pub enum TournamentFormat = "a tournament format" {
        Swiss = "swiss", RoundRobin = "round-robin", Knockout = "knockout",
    }
}

stored_enum! {
    /// Where a tournament stands. Values: `Open`: taking sign-ups; `Running`: being played;
    /// `Finished`: over, with final standings; `Cancelled`: called off.
    pub enum TournamentStatus = "a tournament status" {
        Open = "open", Running = "running", Finished = "finished", Cancelled = "cancelled",
    }
}

row! {
    /// A stored tournament.
    ///
    /// Fields: `id`: its id; `server_id`: the server it is played on; `channel_id`: the channel
    /// its round messages go to (its games are in threads); `creator_id`: who created it (an
    /// organiser); `name`: its name; `format`: swiss, round robin or knockout; `variant`: the
    /// game; `scoring`: the scoring; `days_per_move`: the time control of its games: days per
    /// move, `None` for no clock; `rated`: whether its games are rated; `status`: open,
    /// running, finished or cancelled; `created_at`: when it was created; `updated_at`: when it
    /// last changed.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct TournamentRow {
        id: TournamentId, server_id: ServerId, channel_id: ChannelId, creator_id: UserId, name: String,
        format: TournamentFormat, variant: Variant, scoring: Scoring,
        days_per_move: Option<u32>, rated: bool, status: TournamentStatus, created_at: i64,
        updated_at: i64, is_match: bool, double_rr: bool, max_players: Option<u32>,
        pace: Pace, total_rounds: Option<u32>, winner_id: Option<UserId>,
        forfeit_limit: Option<u32>,
    }
}

stored_enum! {
    /// When a round robin's games start. Values: `AllAtOnce`: every game of the table at the
    /// start (correspondence practice); `ByRound`: each round when the previous one has ended.
    pub enum Pace = "a tournament pace" {
        AllAtOnce = "all-at-once", ByRound = "by-round",
    }
}

row! {
    /// A player of a tournament.
    ///
    /// Fields: `tournament_id`; `user_id`; `signup`: the order of sign-up, from 1; `rating`: the
    /// rating when the tournament started (0 before); `seed`: the starting rank, set at the
    /// start; `forfeits`: forfeits so far; `withdrawn_at`: when they were withdrawn, `None`
    /// while playing; `joined_at`: when they joined.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct EntrantRow {
        tournament_id: TournamentId, user_id: UserId, signup: u32, rating: i32, seed: Option<u32>,
        forfeits: u32, withdrawn_at: Option<i64>, joined_at: i64,
    }
}

/// A new tournament (created open for sign-ups).
#[derive(Clone, Debug)]
pub struct NewTournament<'a> {
    /// The server.
    pub server_id: &'a ServerId,
    /// The channel for its round messages.
    pub channel_id: &'a ChannelId,
    /// Who creates it.
    pub creator_id: &'a UserId,
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
    /// Whether each pairing is a two-game match.
    pub is_match: bool,
    /// A double round robin.
    pub double_rr: bool,
    /// At most this many players; `None`: no limit.
    pub max_players: Option<u32>,
    /// When a round robin's games start.
    pub pace: Pace,
    /// A Swiss's number of rounds, when chosen (`None`: decided at the start).
    pub rounds: Option<u32>,
}

stored_enum! {
    /// The result of a pairing, from the point of view of its two players. Values: `Win0`:
    /// player 0 won over the board; `Win1`: player 1 won over the board; `Draw`: a draw over
    /// the board; `Forfeit0`: player 0 forfeited (docs/rules.md §10: forfeits): player 1 scores 1,
    /// unplayed for both; `Forfeit1`: player 1 forfeited; `Bye`: player 0 had a bye (no opponent).
    pub enum PairingResult = "a pairing result" {
        Win0 = "win0", Win1 = "win1", Draw = "draw", Forfeit0 = "forfeit0", Forfeit1 = "forfeit1", Bye = "bye",
    }
}

row! {
    /// A stored pairing: one board of one round.
    ///
    /// Fields: `id`: its id (what `games.pairing_id` names); `tournament_id`: the tournament;
    /// `round`: the round, from 1; `board`: the board, from 1; `player0`: the player who moves
    /// first (FIDE's White), or who has the bye; `player1`: the opponent; `None` for a bye;
    /// `result`: the result, `None` while undecided; `game_id`: its game (for a match: the
    /// latest game; all its games name the pairing); `match_id`: its match, when the tournament
    /// plays matches; `created_at`: when it was paired; `updated_at`: when it last changed.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct PairingRow {
        id: PairingId, tournament_id: TournamentId, round: u32, board: u32, player0: UserId = "player0_id",
        player1: Option<UserId> = "player1_id", result: Option<PairingResult>,
        game_id: Option<GameId>, match_id: Option<MatchId>, created_at: i64, updated_at: i64,
        thread_key: Option<String>, thread_id: Option<ChannelId>,
    }
}

/// A new pairing.
#[derive(Clone, Debug)]
pub struct NewPairing<'a> {
    /// The tournament.
    pub tournament_id: TournamentId,
    /// The round, from 1.
    pub round: u32,
    /// The board, from 1.
    pub board: u32,
    /// Who moves first.
    pub player0: &'a UserId,
    /// The opponent; `None` for a bye.
    pub player1: Option<&'a UserId>,
}

impl Tx<'_> {
    /// Creates a tournament, open for sign-ups; its id.
    pub fn insert_tournament(&self, t: &NewTournament, now: i64) -> Result<TournamentId> {
        self.insert(
            "INSERT INTO tournaments (server_id, channel_id, creator_id, name, format, variant,
               scoring, days_per_move, rated, status, created_at, updated_at, is_match, double_rr,
               max_players, pace, total_rounds)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'open', $10, $10, $11, $12, $13, $14,
               $15)",
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
                now,
                t.is_match,
                t.double_rr,
                t.max_players,
                t.pace.id(),
                t.rounds
            ],
        )
        .map(TournamentId)
    }

    /// A tournament by id.
    pub fn tournament(&self, id: TournamentId) -> Result<Option<TournamentRow>> {
        self.first(
            "tournaments",
            "SELECT * FROM tournaments WHERE id = $1",
            params![id],
            TournamentRow::from_row,
        )
    }

    /// A server's tournaments, newest first.
    pub fn server_tournaments(&self, server_id: &ServerId) -> Result<Vec<TournamentRow>> {
        self.all(
            "tournaments",
            "SELECT * FROM tournaments WHERE server_id = $1 ORDER BY id DESC",
            params![server_id],
            TournamentRow::from_row,
        )
    }

    /// Changes a tournament's status.
    pub fn set_tournament_status(
        &self,
        id: TournamentId,
        status: TournamentStatus,
        now: i64,
    ) -> Result<()> {
        self.exec(
            "UPDATE tournaments SET status = $2, updated_at = $3 WHERE id = $1",
            params![id, status.id(), now],
        )?;
        Ok(())
    }

    /// Records a pairing; fails if its board of that round is already paired. Its id.
    pub fn insert_pairing(&self, p: &NewPairing, now: i64) -> Result<PairingId> {
        self.insert(
            "INSERT INTO tournament_pairings (tournament_id, round, board, player0_id,
               player1_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)",
            params![p.tournament_id, p.round, p.board, p.player0, p.player1, now],
        )
        .map(PairingId)
    }

    /// A pairing by id.
    pub fn pairing(&self, id: PairingId) -> Result<Option<PairingRow>> {
        self.first(
            "tournament_pairings",
            "SELECT * FROM tournament_pairings WHERE id = $1",
            params![id],
            PairingRow::from_row,
        )
    }

    /// A tournament's pairings (of one round, or all), by round and board.
    pub fn pairings(
        &self,
        tournament_id: TournamentId,
        round: Option<u32>,
    ) -> Result<Vec<PairingRow>> {
        self.all(
            "tournament_pairings",
            "SELECT * FROM tournament_pairings WHERE tournament_id = $1
               AND (round = $2 OR $2 IS NULL) ORDER BY round, board",
            params![tournament_id, round],
            PairingRow::from_row,
        )
    }

    /// Links a pairing to its game or match (`None` keeps what is stored).
    pub fn set_pairing_game(
        &self,
        id: PairingId,
        game_id: Option<GameId>,
        match_id: Option<MatchId>,
        now: i64,
    ) -> Result<()> {
        self.exec(
            "UPDATE tournament_pairings SET game_id = COALESCE($2, game_id),
               match_id = COALESCE($3, match_id), updated_at = $4 WHERE id = $1",
            params![id, game_id, match_id, now],
        )?;
        Ok(())
    }

    /// Records a pairing's result.
    pub fn set_pairing_result(&self, id: PairingId, result: PairingResult, now: i64) -> Result<()> {
        self.exec(
            "UPDATE tournament_pairings SET result = $2, updated_at = $3 WHERE id = $1",
            params![id, result.id(), now],
        )?;
        Ok(())
    }

    /// Records that a tournament started: its number of rounds.
    pub fn start_tournament(&self, id: TournamentId, total_rounds: u32, now: i64) -> Result<()> {
        self.exec(
            "UPDATE tournaments SET status = 'running', total_rounds = $2, updated_at = $3
             WHERE id = $1",
            params![id, total_rounds, now],
        )?;
        Ok(())
    }

    /// Records that a tournament finished, and its winner.
    pub fn finish_tournament(
        &self,
        id: TournamentId,
        winner: Option<&UserId>,
        now: i64,
    ) -> Result<()> {
        self.exec(
            "UPDATE tournaments SET status = 'finished', winner_id = $2, updated_at = $3
             WHERE id = $1",
            params![id, winner, now],
        )?;
        Ok(())
    }

    /// Adds a player; their sign-up number.
    pub fn insert_entrant(
        &self,
        tournament_id: TournamentId,
        user_id: &UserId,
        now: i64,
    ) -> Result<u32> {
        let next: i64 = self.value(
            "tournament_players",
            "SELECT COALESCE(MAX(signup), 0) + 1 AS n FROM tournament_players
             WHERE tournament_id = $1",
            params![tournament_id],
            "n",
        )?;
        self.exec(
            "INSERT INTO tournament_players (tournament_id, user_id, signup, joined_at)
             VALUES ($1, $2, $3, $4)",
            params![tournament_id, user_id, next, now],
        )?;
        Ok(u32::try_from(next).unwrap_or(u32::MAX))
    }

    /// Removes a player who signed up (before the start).
    pub fn delete_entrant(&self, tournament_id: TournamentId, user_id: &UserId) -> Result<bool> {
        Ok(self.exec(
            "DELETE FROM tournament_players WHERE tournament_id = $1 AND user_id = $2",
            params![tournament_id, user_id],
        )? == 1)
    }

    /// A tournament's players, by sign-up.
    pub fn entrants(&self, tournament_id: TournamentId) -> Result<Vec<EntrantRow>> {
        self.all(
            "tournament_players",
            "SELECT * FROM tournament_players WHERE tournament_id = $1 ORDER BY signup",
            params![tournament_id],
            EntrantRow::from_row,
        )
    }

    /// Records a player's rating and seed at the start.
    pub fn seed_entrant(
        &self,
        tournament_id: TournamentId,
        user_id: &UserId,
        rating: i32,
        seed: u32,
    ) -> Result<()> {
        self.exec(
            "UPDATE tournament_players SET rating = $3, seed = $4
             WHERE tournament_id = $1 AND user_id = $2",
            params![tournament_id, user_id, rating, seed],
        )?;
        Ok(())
    }

    /// Counts a forfeit against a player; their forfeits now.
    pub fn add_forfeit(&self, tournament_id: TournamentId, user_id: &UserId) -> Result<u32> {
        self.exec(
            "UPDATE tournament_players SET forfeits = forfeits + 1
             WHERE tournament_id = $1 AND user_id = $2",
            params![tournament_id, user_id],
        )?;
        let n: i64 = self.value(
            "tournament_players",
            "SELECT forfeits AS n FROM tournament_players WHERE tournament_id = $1 AND user_id = $2",
            params![tournament_id, user_id],
            "n",
        )?;
        Ok(u32::try_from(n).unwrap_or(0))
    }

    /// Withdraws a player (not paired again); false if already withdrawn.
    pub fn withdraw_entrant(
        &self,
        tournament_id: TournamentId,
        user_id: &UserId,
        now: i64,
    ) -> Result<bool> {
        Ok(self.exec(
            "UPDATE tournament_players SET withdrawn_at = $3
             WHERE tournament_id = $1 AND user_id = $2 AND withdrawn_at IS NULL",
            params![tournament_id, user_id, now],
        )? == 1)
    }

    /// Sets the number of forfeits that withdraws a player (a league division's: more than half
    /// of their games).
    pub fn set_forfeit_limit(&self, id: TournamentId, limit: u32) -> Result<()> {
        self.exec(
            "UPDATE tournaments SET forfeit_limit = $2 WHERE id = $1",
            params![id, limit],
        )?;
        Ok(())
    }

    /// Names the thread a pairing is played in by its stable key.
    pub fn set_pairing_thread_key(&self, id: PairingId, key: &str) -> Result<()> {
        self.exec(
            "UPDATE tournament_pairings SET thread_key = $2 WHERE id = $1",
            params![id, key],
        )?;
        Ok(())
    }

    /// The platform's thread recorded for a thread key (a tournament pairing's or a ladder
    /// game's), if it has been opened.
    pub fn thread_of_key(&self, key: &str) -> Result<Option<ChannelId>> {
        if let Some(p) = self.first(
            "tournament_pairings",
            "SELECT * FROM tournament_pairings WHERE thread_key = $1",
            params![key],
            PairingRow::from_row,
        )? {
            return Ok(p.thread_id);
        }
        Ok(self.ladder_game_by_key(key)?.and_then(|g| g.thread_id))
    }

    /// Records the thread opened for a key (a tournament pairing's, a thread shared by several
    /// pairings, or a ladder game's), once: the games played under the key move to it, and the
    /// clock of one nobody has moved in yet starts now (its players see it from now). False
    /// when the key is unknown or a thread was already recorded (the earlier one stays).
    pub fn record_thread(&self, key: &str, thread_id: &ChannelId, now: i64) -> Result<bool> {
        let mut n = self.exec(
            "UPDATE tournament_pairings SET thread_id = $2, updated_at = $3
             WHERE thread_key = $1 AND thread_id IS NULL",
            params![key, thread_id, now],
        )?;
        if n == 0 {
            n = self.exec(
                "UPDATE ladder_games SET thread_id = $2 WHERE thread_key = $1 AND thread_id IS NULL",
                params![key, thread_id],
            )?;
        }
        if n >= 1 {
            self.exec(
                "UPDATE games SET channel_id = $2 WHERE channel_id = $1",
                params![key, thread_id],
            )?;
            // Its players see the game from now: its first turn starts now.
            self.restart_unplayed_clocks(thread_id, now)?;
        }
        Ok(n >= 1)
    }

    /// The key whose thread is recorded as `thread_id` (a tournament pairing's or a ladder
    /// game's), if any.
    pub fn key_of_thread(&self, thread_id: &ChannelId) -> Result<Option<String>> {
        if let Some(p) = self
            .pairing_in_thread(thread_id)?
            .filter(|p| p.thread_id.as_ref() == Some(thread_id))
        {
            return Ok(p.thread_key);
        }
        Ok(self
            .ladder_game_in(thread_id)?
            .filter(|g| g.thread_id.as_ref() == Some(thread_id))
            .map(|g| g.thread_key))
    }

    /// Forgets a thread that is gone from the platform (a moderator deleted it): its key has
    /// no thread again, and its games and the messages still owed in it go back to the key,
    /// to go to the thread opened for the key next.
    pub fn forget_thread(&self, key: &str, thread_id: &ChannelId) -> Result<()> {
        self.exec(
            "UPDATE tournament_pairings SET thread_id = NULL WHERE thread_key = $1 AND thread_id = $2",
            params![key, thread_id],
        )?;
        self.exec(
            "UPDATE ladder_games SET thread_id = NULL WHERE thread_key = $1 AND thread_id = $2",
            params![key, thread_id],
        )?;
        self.exec(
            "UPDATE games SET channel_id = $1 WHERE channel_id = $2",
            params![key, thread_id],
        )?;
        self.exec(
            "UPDATE outbox SET channel_id = $1
             WHERE channel_id = $2 AND sent_at IS NULL AND given_up_at IS NULL",
            params![key, thread_id],
        )?;
        Ok(())
    }

    /// Marks a tournament game as part of its pairing.
    pub fn set_game_pairing(&self, game_id: GameId, pairing_id: PairingId) -> Result<()> {
        self.exec(
            "UPDATE games SET pairing_id = $2 WHERE id = $1",
            params![game_id, pairing_id],
        )?;
        Ok(())
    }

    /// Makes a game unrated (a forfeit, docs/rules.md §10: forfeits), before its result is
    /// recorded.
    pub fn set_game_unrated(&self, game_id: GameId) -> Result<()> {
        self.exec("UPDATE games SET rated = 0 WHERE id = $1", params![game_id])?;
        Ok(())
    }

    /// The pairing played in a thread (by its key, or the platform's id once opened).
    pub fn pairing_in_thread(&self, channel: &ChannelId) -> Result<Option<PairingRow>> {
        self.first(
            "tournament_pairings",
            "SELECT * FROM tournament_pairings WHERE thread_key = $1 OR thread_id = $1
             ORDER BY id DESC LIMIT 1",
            params![channel],
            PairingRow::from_row,
        )
    }
}
