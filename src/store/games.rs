//! Games, their moves and their takeback requests. A game's truth is its move list: any
//! position is rebuilt by replaying it.

use super::db::{Cols, Result, StoreError, Tx};
use super::value::{params, Params};
use crate::game::{BySide, EndReason, GameOptions, Outcome, Points, Scoring, Side, Variant};
use crate::ids::{ChannelId, MatchId, PairingId, ServerId, UserId};
pub use crate::ids::{GameId, ParseGameIdError};
use std::ops::RangeInclusive;

/// The user id of the bot's AI. Every AI seat names this user, so the seat columns keep their
/// foreign keys; the level is stored beside it (migration 0003 creates the user). It starts
/// with `@`, which neither a Discord id (digits) nor a console name (the console strips a
/// leading `@`) can.
pub const AI_USER_ID: &str = "@ai";

/// The AI's levels: 1 (weakest) to 5 (strongest).
pub const AI_LEVELS: RangeInclusive<u8> = 1..=5;

stored_enum! {
    /// Status of a stored game. Values: `Active`: being played; `Finished`: ended with a
    /// result; `Aborted`: ended without a result.
    pub enum GameStatus = "a game status" { Active = "active", Finished = "finished", Aborted = "aborted", }
}

/// Who sits in a seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seat {
    /// A person, by user id.
    Person {
        /// Their user id.
        user_id: UserId,
    },
    /// The bot's AI at a level (see [`AI_LEVELS`]).
    Ai {
        /// Its level.
        level: u8,
    },
}

/// A stored game (without its moves).
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    /// The id, also the public id players type (see [`GameId`]).
    pub id: GameId,
    /// The server (Discord guild) it is played on.
    pub server_id: ServerId,
    /// The channel or thread it is played in.
    pub channel_id: ChannelId,
    /// Variant, scoring and first side.
    pub options: GameOptions,
    /// User ids of the first seat (Red / attackers) and the second (Blue / defenders), indexed by
    /// [`Side`]; an AI seat holds
    /// [`AI_USER_ID`].
    pub seats: BySide<UserId>,
    /// The AI level of each seat, `None` for a person (see [`GameRow::seat`]).
    pub ai_levels: BySide<Option<u8>>,
    /// Active, finished or aborted.
    pub status: GameStatus,
    /// The result, once finished.
    pub outcome: Option<Outcome>,
    /// The match it belongs to.
    pub match_id: Option<MatchId>,
    /// Its number in the match (1 or 2; a replayed game keeps its number).
    pub match_game: Option<i64>,
    /// The tournament pairing it belongs to.
    pub pairing_id: Option<PairingId>,
    /// Rated (counts for ratings) or casual.
    pub rated: bool,
    /// When it was created.
    pub created_at: i64,
    /// When it last changed.
    pub updated_at: i64,
    /// When it finished or was aborted.
    pub ended_at: Option<i64>,
    /// Since when the player to move is on move.
    pub turn_started_at: i64,
    /// The time control: days per move, `None` for no clock.
    pub days_per_move: Option<u32>,
    /// When the clock of the player to move started (after any vacation of theirs).
    pub clock_start_at: Option<i64>,
    /// When the player to move runs out of time.
    pub deadline_at: Option<i64>,
    /// Reminders sent to the player to move this turn (0, 1 or 2).
    pub reminders_sent: u32,
    /// When the last reminder of this game was sent.
    pub reminded_at: Option<i64>,
}

impl GameRow {
    /// The game's two sides, first seat first: Red and Blue, or Attackers and Defenders.
    pub fn sides(&self) -> [Side; 2] {
        self.options.variant.sides()
    }

    /// The side a user plays, if any (the first seat's when they play both).
    pub fn seat_of<U: ?Sized>(&self, user: &U) -> Option<Side>
    where
        UserId: PartialEq<U>,
    {
        self.options
            .variant
            .sides()
            .into_iter()
            .find(|&side| self.seats[side] == *user)
    }

    /// Who plays `side`.
    pub fn seat(&self, side: Side) -> Seat {
        match self.ai_levels[side] {
            Some(level) => Seat::Ai { level },
            None => Seat::Person {
                user_id: self.seats[side].clone(),
            },
        }
    }

    /// The id players type, `#123`.
    pub fn public_id(&self) -> GameId {
        self.id
    }

    /// Reads a row of `SELECT * FROM games`.
    fn from_row(c: &Cols) -> Result<GameRow> {
        let variant: Variant = c.parse("variant", "a variant", |s| s.parse().ok())?;
        let scoring: Scoring = c.parse("scoring", "a scoring", |s| s.parse().ok())?;
        let first = c.parse("first_side", "a side", Side::from_id)?;
        let options = GameOptions::with(variant, Some(scoring), Some(first))
            .map_err(|e| StoreError::Corrupt(format!("game options: {e}")))?;
        let winner = c.parse_opt("winner", "a side", Side::from_id)?;
        let reason = c.parse_opt("reason", "an end reason", EndReason::from_id)?;
        let points: [Option<u32>; 2] = [c.get("points0")?, c.get("points1")?];
        let outcome = match (reason, points) {
            (Some(reason), [Some(p0), Some(p1)]) => Some(Outcome {
                winner,
                reason,
                points: BySide::new(Points(p0), Points(p1)),
            }),
            _ => None,
        };
        let level = |column: &str| -> Result<Option<u8>> {
            let level: Option<u8> = c.get(column)?;
            match level {
                Some(l) if !AI_LEVELS.contains(&l) => Err(StoreError::Corrupt(format!(
                    "games.{column} holds {l}, which is not an AI level"
                ))),
                l => Ok(l),
            }
        };
        Ok(GameRow {
            id: c.get("id")?,
            server_id: c.get("server_id")?,
            channel_id: c.get("channel_id")?,
            options,
            seats: BySide::new(c.get("seat0_id")?, c.get("seat1_id")?),
            ai_levels: BySide::new(level("seat0_ai_level")?, level("seat1_ai_level")?),
            status: c.parse("status", "a game status", GameStatus::from_id)?,
            outcome,
            match_id: c.get("match_id")?,
            match_game: c.get("match_game")?,
            pairing_id: c.get("pairing_id")?,
            rated: c.get("rated")?,
            created_at: c.get("created_at")?,
            updated_at: c.get("updated_at")?,
            ended_at: c.get("ended_at")?,
            turn_started_at: c.get("turn_started_at")?,
            days_per_move: c.get("days_per_move")?,
            clock_start_at: c.get("clock_start_at")?,
            deadline_at: c.get("deadline_at")?,
            reminders_sent: c.get("reminders_sent")?,
            reminded_at: c.get("reminded_at")?,
        })
    }
}

/// A new game.
#[derive(Clone, Debug)]
pub struct NewGame<'a> {
    /// The server it is played on.
    pub server_id: &'a ServerId,
    /// The channel or thread it is played in.
    pub channel_id: &'a ChannelId,
    /// Variant, scoring and first side.
    pub options: GameOptions,
    /// User ids of the first and second seat, by side; an AI seat must name [`AI_USER_ID`].
    pub seats: BySide<&'a UserId>,
    /// The AI level of each seat, `None` for a person.
    pub ai_levels: BySide<Option<u8>>,
    /// The match it belongs to.
    pub match_id: Option<MatchId>,
    /// Its number in the match.
    pub match_game: Option<i64>,
    /// The tournament pairing it belongs to.
    pub pairing_id: Option<PairingId>,
    /// Rated or casual.
    pub rated: bool,
    /// The time control: days per move, `None` for no clock.
    pub days_per_move: Option<u32>,
}

impl NewGame<'_> {
    /// Who plays `side`.
    pub fn seat(&self, side: Side) -> Seat {
        match self.ai_levels[side] {
            Some(level) => Seat::Ai { level },
            None => Seat::Person {
                user_id: self.seats[side].clone(),
            },
        }
    }

    /// Checks that each seat is either a person or the AI at a known level.
    fn check_seats(&self) -> Result<()> {
        for (i, side) in self.options.variant.sides().into_iter().enumerate() {
            match (self.ai_levels[side], self.seats[side] == AI_USER_ID) {
                (Some(level), true) if AI_LEVELS.contains(&level) => {}
                (Some(level), true) => {
                    return Err(StoreError::Invalid(format!(
                        "The AI plays at levels {} to {}, not {level}.",
                        AI_LEVELS.start(),
                        AI_LEVELS.end()
                    )))
                }
                (Some(_), false) | (None, true) => {
                    return Err(StoreError::Invalid(format!(
                        "Seat {i} of a new game must name the AI's user ({AI_USER_ID}) exactly \
                         when it has an AI level."
                    )))
                }
                (None, false) => {}
            }
        }
        Ok(())
    }
}

row! {
    /// A stored move.
    ///
    /// Fields: `ply`: its number, from 0; `notation`: the canonical move; `user_id`: who played
    /// it; `None` for a pass the bot played; `created_at`: when it was played.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct MoveRow {
        ply: u32, notation: String, user_id: Option<UserId>, created_at: i64,
    }
}

row! {
    /// A pending takeback request.
    ///
    /// Fields: `game_id`: the game; `ply`: the move to undo (and everything after it);
    /// `requested_by`: who asked.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct TakebackRow {
        game_id: GameId, ply: u32, requested_by: UserId,
    }
}

/// The condition of [`Tx::finished_games_page`] (`$1` user, `$2` server, `$3` rows per
/// branch, `$4` limit, `$5` skip): one branch per seat and variant, each an index range read
/// in end order.
fn history_sql(variant: Option<Variant>) -> String {
    let variants: Vec<Variant> = match variant {
        Some(v) => vec![v],
        None => Variant::ALL.to_vec(),
    };
    let mut branches = Vec::new();
    for seat in ["seat0_id", "seat1_id"] {
        for v in &variants {
            branches.push(format!(
                "SELECT id FROM (SELECT id FROM games WHERE {seat} = $1 AND variant = '{}' \
                 AND status = 'finished' AND server_id = $2 \
                 ORDER BY ended_at DESC, id DESC LIMIT $3) AS branch",
                v.id()
            ));
        }
    }
    format!(
        "id IN ({}) ORDER BY ended_at DESC, id DESC LIMIT $4 OFFSET $5",
        branches.join(" UNION ALL ")
    )
}

row! {
    /// A pending draw offer (docs/rules.md §9).
    ///
    /// Fields: `game_id`: the game; `offered_by`: who offered; `ply`: moves played when it was
    /// offered; `created_at`: when.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct DrawOfferRow {
        game_id: GameId, offered_by: UserId, ply: u32, created_at: i64,
    }
}

impl Tx<'_> {
    pub(super) fn game_where(&self, condition: &str, params: Params) -> Result<Vec<GameRow>> {
        self.all(
            "games",
            &format!("SELECT * FROM games WHERE {condition}"),
            params,
            GameRow::from_row,
        )
    }

    fn one_game(&self, condition: &str, params: Params) -> Result<Option<GameRow>> {
        self.first(
            "games",
            &format!("SELECT * FROM games WHERE {condition}"),
            params,
            GameRow::from_row,
        )
    }

    /// The active game in a channel.
    pub fn active_game(&self, channel_id: &ChannelId) -> Result<Option<GameRow>> {
        self.one_game("channel_id = $1 AND status = 'active'", params![channel_id])
    }

    /// Every active game in a channel, oldest first: one, except in an event's thread that
    /// holds several games (docs/operating.md, "Discord's limits").
    pub fn active_games_in(&self, channel_id: &ChannelId) -> Result<Vec<GameRow>> {
        self.game_where(
            "channel_id = $1 AND status = 'active' ORDER BY id",
            params![channel_id],
        )
    }

    /// The most recent game in a channel, whatever its status.
    pub fn latest_game(&self, channel_id: &ChannelId) -> Result<Option<GameRow>> {
        self.one_game(
            "channel_id = $1 ORDER BY id DESC LIMIT 1",
            params![channel_id],
        )
    }

    /// A game by id.
    pub fn game(&self, id: GameId) -> Result<Option<GameRow>> {
        self.one_game("id = $1", params![id])
    }

    /// Active games a user plays in, oldest first.
    pub fn active_games_of(&self, user_id: &UserId) -> Result<Vec<GameRow>> {
        self.game_where(
            "status = 'active' AND (seat0_id = $1 OR seat1_id = $1) ORDER BY id",
            params![user_id],
        )
    }

    /// Active games on a server between a user and the AI, oldest first.
    pub fn active_ai_games_of(
        &self,
        server_id: &ServerId,
        user_id: &UserId,
    ) -> Result<Vec<GameRow>> {
        self.game_where(
            "server_id = $1 AND status = 'active'
               AND ((seat0_id = $2 AND seat1_id = $3) OR (seat0_id = $3 AND seat1_id = $2))
             ORDER BY id",
            params![server_id, user_id, AI_USER_ID],
        )
    }

    /// Finished games in the order they ended (then by id), of one server or all, after the
    /// game `after` (its `(ended_at, id)`), at most `limit`: a page of an export.
    pub fn finished_games_after(
        &self,
        server_id: Option<&ServerId>,
        after: (i64, GameId),
        limit: u32,
    ) -> Result<Vec<GameRow>> {
        self.game_where(
            "status = 'finished' AND (server_id = $1 OR $1 IS NULL)
             AND (ended_at > $2 OR (ended_at = $2 AND id > $3))
             ORDER BY ended_at, id LIMIT $4",
            params![server_id, after.0, after.1, limit],
        )
    }

    /// A server's games in progress, latest activity (the start of the current turn) first, at
    /// most `limit`.
    pub fn live_games(&self, server_id: &ServerId, limit: u32) -> Result<Vec<GameRow>> {
        self.game_where(
            "server_id = $1 AND status = 'active' ORDER BY turn_started_at DESC, id DESC LIMIT $2",
            params![server_id, limit],
        )
    }

    /// How many games are in progress on a server.
    pub fn live_game_count(&self, server_id: &ServerId) -> Result<i64> {
        self.value(
            "games",
            "SELECT COUNT(*) AS n FROM games WHERE server_id = $1 AND status = 'active'",
            params![server_id],
            "n",
        )
    }

    /// A server's games with a status, newest first, at most `limit`.
    pub fn server_games(
        &self,
        server_id: &ServerId,
        status: GameStatus,
        limit: u32,
    ) -> Result<Vec<GameRow>> {
        self.game_where(
            "server_id = $1 AND status = $2 ORDER BY id DESC LIMIT $3",
            params![server_id, status.id(), limit],
        )
    }

    /// A user's finished games on a server (of one variant, or all), most recently ended
    /// first, at most `limit`.
    pub fn finished_games_of(
        &self,
        server_id: &ServerId,
        user_id: &UserId,
        variant: Option<Variant>,
        limit: u32,
    ) -> Result<Vec<GameRow>> {
        let variant = variant.map(Variant::id);
        self.game_where(
            "id IN (SELECT id FROM games WHERE seat0_id = $2 AND status = 'finished'
                      AND (variant = $3 OR $3 IS NULL)
                    UNION ALL
                    SELECT id FROM games WHERE seat1_id = $2 AND status = 'finished'
                      AND (variant = $3 OR $3 IS NULL))
             AND server_id = $1 ORDER BY ended_at DESC, id DESC LIMIT $4",
            params![server_id, user_id, variant, limit],
        )
    }

    /// One page of a user's finished games on a server (of one variant, or all), most
    /// recently ended first: the games after the first `skip`, at most `limit` of them.
    ///
    /// Each (seat, variant) pair is read from its partial index (`games_seat0_finished`,
    /// `games_seat1_finished`), already in end order and cut at `skip + limit`, so the cost
    /// grows with the page asked for, never with the number of games stored.
    pub fn finished_games_page(
        &self,
        server_id: &ServerId,
        user_id: &UserId,
        variant: Option<Variant>,
        skip: u32,
        limit: u32,
    ) -> Result<Vec<GameRow>> {
        let sql = history_sql(variant);
        self.game_where(&sql, params![user_id, server_id, skip + limit, limit, skip])
    }

    /// How SQLite runs [`Tx::finished_games_page`]: the `detail` of each step of
    /// `EXPLAIN QUERY PLAN` (for tests that check it uses the indexes).
    pub fn finished_games_page_plan(&self, variant: Option<Variant>) -> Result<Vec<String>> {
        if !self.is_sqlite() {
            return Err(StoreError::Invalid(
                "EXPLAIN QUERY PLAN is SQLite's; on PostgreSQL use EXPLAIN".to_string(),
            ));
        }
        let sql = format!(
            "EXPLAIN QUERY PLAN SELECT * FROM games WHERE {}",
            history_sql(variant)
        );
        self.all("games", &sql, params!["u", "s", 10, 10, 0], |c| {
            c.get("detail")
        })
    }

    /// The games of a tournament pairing, in order.
    pub fn pairing_games(&self, pairing_id: PairingId) -> Result<Vec<GameRow>> {
        self.game_where("pairing_id = $1 ORDER BY id", params![pairing_id])
    }

    /// Creates a game; fails if the channel already has an active one, or if a seat is neither
    /// a person nor the AI at a known level.
    pub fn insert_game(&self, g: &NewGame, now: i64) -> Result<GameId> {
        g.check_seats()?;
        self.insert(
            "INSERT INTO games (server_id, channel_id, variant, scoring, first_side, seat0_id,
               seat1_id, seat0_ai_level, seat1_ai_level, status, match_id, match_game,
               pairing_id, rated, created_at, updated_at, turn_started_at, days_per_move)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'active', $10, $11, $12, $13, $14, $14,
               $14, $15)",
            params![
                g.server_id,
                g.channel_id,
                g.options.variant.id(),
                g.options.scoring.id(),
                g.options.first.id(),
                g.seats.first(),
                g.seats.second(),
                g.ai_levels.first(),
                g.ai_levels.second(),
                g.match_id,
                g.match_game,
                g.pairing_id,
                g.rated,
                now,
                g.days_per_move
            ],
        )
        .map(GameId)
    }

    /// Ends a game with a result.
    pub fn finish_game(&self, game_id: GameId, o: &Outcome, now: i64) -> Result<()> {
        self.exec(
            "UPDATE games SET status = 'finished', winner = $2, reason = $3, points0 = $4,
               points1 = $5, updated_at = $6, ended_at = $6 WHERE id = $1",
            params![
                game_id,
                o.winner.map(Side::id),
                o.reason.id(),
                o.points.first().0,
                o.points.second().0,
                now
            ],
        )?;
        Ok(())
    }

    /// Ends a game without a result.
    pub fn abort_game(&self, game_id: GameId, now: i64) -> Result<()> {
        self.exec(
            "UPDATE games SET status = 'aborted', updated_at = $2, ended_at = $2 WHERE id = $1",
            params![game_id, now],
        )?;
        Ok(())
    }

    /// Number of games stored (all statuses).
    pub fn game_count(&self) -> Result<i64> {
        self.value("games", "SELECT COUNT(*) AS n FROM games", params![], "n")
    }

    /// How many moves (plies, forced passes included) a game has.
    pub fn move_count(&self, game_id: GameId) -> Result<u32> {
        let n: i64 = self.value(
            "moves",
            "SELECT COUNT(*) AS n FROM moves WHERE game_id = $1",
            params![game_id],
            "n",
        )?;
        Ok(u32::try_from(n).unwrap_or(u32::MAX))
    }

    /// The moves of a game in order.
    pub fn moves(&self, game_id: GameId) -> Result<Vec<MoveRow>> {
        let moves = self.all(
            "moves",
            "SELECT ply, notation, user_id, created_at FROM moves WHERE game_id = $1 ORDER BY ply",
            params![game_id],
            MoveRow::from_row,
        )?;
        for (i, m) in moves.iter().enumerate() {
            if m.ply as usize != i {
                return Err(StoreError::Corrupt(format!(
                    "game {} is missing ply {i}",
                    game_id.0
                )));
            }
        }
        Ok(moves)
    }

    /// Appends a move (the primary key rejects a second move for the same ply).
    pub fn insert_move(&self, game_id: GameId, m: &MoveRow) -> Result<()> {
        self.exec(
            "INSERT INTO moves (game_id, ply, notation, user_id, created_at)
             VALUES ($1, $2, $3, $4, $5)",
            params![game_id, m.ply, m.notation, m.user_id, m.created_at],
        )?;
        Ok(())
    }

    /// Removes the moves from `ply` on (a takeback).
    pub fn delete_moves_from(&self, game_id: GameId, ply: u32) -> Result<usize> {
        self.exec(
            "DELETE FROM moves WHERE game_id = $1 AND ply >= $2",
            params![game_id, ply],
        )
    }

    /// The pending takeback request of a game.
    pub fn takeback(&self, game_id: GameId) -> Result<Option<TakebackRow>> {
        self.first(
            "takebacks",
            "SELECT game_id, ply, requested_by FROM takebacks WHERE game_id = $1",
            params![game_id],
            TakebackRow::from_row,
        )
    }

    /// Records (or replaces) a game's takeback request.
    pub fn set_takeback(&self, t: &TakebackRow, now: i64) -> Result<()> {
        self.exec(
            "INSERT INTO takebacks (game_id, ply, requested_by, created_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT(game_id) DO UPDATE SET ply = excluded.ply,
               requested_by = excluded.requested_by, created_at = excluded.created_at",
            params![t.game_id, t.ply, t.requested_by, now],
        )?;
        Ok(())
    }

    /// Drops a game's takeback request, if any.
    pub fn clear_takeback(&self, game_id: GameId) -> Result<()> {
        self.exec("DELETE FROM takebacks WHERE game_id = $1", params![game_id])?;
        Ok(())
    }

    /// The pending draw offer of a game.
    pub fn draw_offer(&self, game_id: GameId) -> Result<Option<DrawOfferRow>> {
        self.first(
            "draw_offers",
            "SELECT game_id, offered_by, ply, created_at FROM draw_offers WHERE game_id = $1",
            params![game_id],
            DrawOfferRow::from_row,
        )
    }

    /// Records a game's draw offer; fails if one is pending (one per game).
    pub fn insert_draw_offer(
        &self,
        game_id: GameId,
        offered_by: &UserId,
        ply: u32,
        now: i64,
    ) -> Result<()> {
        self.exec(
            "INSERT INTO draw_offers (game_id, offered_by, ply, created_at) VALUES ($1, $2, $3, $4)",
            params![game_id, offered_by, ply, now],
        )?;
        Ok(())
    }

    /// Drops a game's draw offer; the offer that was pending, if any.
    pub fn clear_draw_offer(&self, game_id: GameId) -> Result<Option<DrawOfferRow>> {
        let pending = self.draw_offer(game_id)?;
        if pending.is_some() {
            self.exec(
                "DELETE FROM draw_offers WHERE game_id = $1",
                params![game_id],
            )?;
        }
        Ok(pending)
    }

    /// Claims the search of the AI's move in `game` after `ply` moves for `worker` until
    /// `until`: false while another worker holds it (its lease has not run out), or once the
    /// game has moved on from `ply` (the move was played meanwhile: a search of it is wasted).
    pub fn claim_ai_turn(
        &self,
        game: GameId,
        ply: u32,
        worker: &str,
        now: i64,
        until: i64,
    ) -> Result<bool> {
        let claimed = self.claim_row(
            "games",
            ("ai_claimed_by", "ai_lease_until"),
            "status = 'active'",
            &game,
            (worker, now, until),
        )?;
        // Counted with the row claimed, so that on PostgreSQL a move committed (and its claim
        // released) just before cannot leave a claim on a ply already played.
        if claimed && self.move_count(game)? != ply {
            self.release_ai_turn(game, worker)?;
            return Ok(false);
        }
        Ok(claimed)
    }

    /// Gives up `worker`'s claim on the AI's move in `game` (its search ended).
    pub fn release_ai_turn(&self, game: GameId, worker: &str) -> Result<()> {
        self.exec(
            "UPDATE games SET ai_claimed_by = NULL, ai_lease_until = NULL
             WHERE id = $1 AND ai_claimed_by = $2",
            params![game, worker],
        )?;
        Ok(())
    }
}
