//! Ratings (docs/rules.md §10: ratings): each player's current Glicko-2 rating per server and
//! rating id (the variant id; kingdoms and knots share one), and the change each rated game made.

use super::db::{Result, Tx};
use super::value::params;
use crate::ids::*;

row! {
    /// A player's current rating in one server and game.
    ///
    /// Fields: `server_id`, `game` (the rating id, e.g. `hkot-1`), `user_id`; `rating`, `rd`,
    /// `volatility`: the Glicko-2 values after their latest rated game; `games`, `wins`,
    /// `draws`, `losses`: their rated games; `last_game_at`: when the latest ended (ms).
    #[derive(Clone, Debug, PartialEq)]
    pub struct RatingRow {
        server_id: ServerId, game: String, user_id: UserId, rating: f64, rd: f64, volatility: f64,
        games: u32, wins: u32, draws: u32, losses: u32, last_game_at: i64,
    }
}

row! {
    /// The change one rated game made to one player's rating.
    ///
    /// Fields: `game_id`: the game; `user_id`: the player; `server_id`, `game`: the rating;
    /// `score`: 1, ½ or 0; `before_*`: the values the game was rated from (after any idle
    /// weeks' RD growth); `after_*`: the values after it; `at`: when the game ended (ms).
    #[derive(Clone, Debug, PartialEq)]
    pub struct RatingChangeRow {
        game_id: GameId, user_id: UserId, server_id: ServerId, game: String, score: f64,
        before_rating: f64, before_rd: f64, before_volatility: f64, after_rating: f64,
        after_rd: f64, after_volatility: f64, at: i64,
    }
}

impl Tx<'_> {
    /// A player's current rating in one server and game, if they have played a rated game.
    pub fn rating(
        &self,
        server_id: &ServerId,
        game: &str,
        user_id: &UserId,
    ) -> Result<Option<RatingRow>> {
        self.first(
            "ratings",
            "SELECT * FROM ratings WHERE server_id = $1 AND game = $2 AND user_id = $3",
            params![server_id, game, user_id],
            RatingRow::from_row,
        )
    }

    /// Every rating of a player on a server (one per game they have played rated).
    pub fn ratings_of(&self, server_id: &ServerId, user_id: &UserId) -> Result<Vec<RatingRow>> {
        self.all(
            "ratings",
            "SELECT * FROM ratings WHERE server_id = $1 AND user_id = $2 ORDER BY game",
            params![server_id, user_id],
            RatingRow::from_row,
        )
    }

    /// Stores a player's rating after a rated game (inserted or replaced).
    pub fn put_rating(&self, r: &RatingRow) -> Result<()> {
        self.exec(
            "INSERT INTO ratings
               (server_id, game, user_id, rating, rd, volatility, games, wins, draws, losses,
                last_game_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
             ON CONFLICT (server_id, game, user_id) DO UPDATE SET rating = excluded.rating,
               rd = excluded.rd, volatility = excluded.volatility, games = excluded.games,
               wins = excluded.wins, draws = excluded.draws, losses = excluded.losses,
               last_game_at = excluded.last_game_at",
            params![
                r.server_id,
                r.game,
                r.user_id,
                r.rating,
                r.rd,
                r.volatility,
                r.games,
                r.wins,
                r.draws,
                r.losses,
                r.last_game_at
            ],
        )?;
        Ok(())
    }

    /// Records the change a rated game made to one player's rating.
    pub fn insert_rating_change(&self, c: &RatingChangeRow) -> Result<()> {
        self.exec(
            "INSERT INTO rating_changes
               (game_id, user_id, server_id, game, score, before_rating, before_rd,
                before_volatility, after_rating, after_rd, after_volatility, at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            params![
                c.game_id,
                c.user_id,
                c.server_id,
                c.game,
                c.score,
                c.before_rating,
                c.before_rd,
                c.before_volatility,
                c.after_rating,
                c.after_rd,
                c.after_volatility,
                c.at
            ],
        )?;
        Ok(())
    }

    /// The leaderboard of one server and game: players whose latest rated game ended at or
    /// after `since`, best rating first (ties: more games, then the earlier latest game).
    pub fn leaderboard(
        &self,
        server_id: &ServerId,
        game: &str,
        since: i64,
        limit: u32,
    ) -> Result<Vec<RatingRow>> {
        self.all(
            "ratings",
            "SELECT * FROM ratings WHERE server_id = $1 AND game = $2 AND last_game_at >= $3
             ORDER BY rating DESC, games DESC, last_game_at, user_id LIMIT $4",
            params![server_id, game, since, limit],
            RatingRow::from_row,
        )
    }

    /// How many players of one server and game had a rated game at or after `since`.
    pub fn active_rated_players(
        &self,
        server_id: &ServerId,
        game: &str,
        since: i64,
    ) -> Result<u32> {
        self.value(
            "ratings",
            "SELECT COUNT(*) AS n FROM ratings
             WHERE server_id = $1 AND game = $2 AND last_game_at >= $3",
            params![server_id, game, since],
            "n",
        )
    }

    /// A player's rating changes in one server and game, oldest first; the latest `limit`.
    pub fn rating_history(
        &self,
        server_id: &ServerId,
        user_id: &UserId,
        game: &str,
        limit: u32,
    ) -> Result<Vec<RatingChangeRow>> {
        let mut rows = self.all(
            "rating_changes",
            "SELECT * FROM rating_changes WHERE server_id = $1 AND user_id = $2 AND game = $3
             ORDER BY at DESC, game_id DESC LIMIT $4",
            params![server_id, user_id, game, limit],
            RatingChangeRow::from_row,
        )?;
        rows.reverse();
        Ok(rows)
    }

    /// The rating changes a game made (none for a game that was not rated), by player.
    pub fn rating_changes_of_game(&self, game_id: GameId) -> Result<Vec<RatingChangeRow>> {
        self.all(
            "rating_changes",
            "SELECT * FROM rating_changes WHERE game_id = $1 ORDER BY user_id",
            params![game_id],
            RatingChangeRow::from_row,
        )
    }
}
