//! What the rating pictures show: rows of a leaderboard, points of a rating history, and the
//! ratings and open games on a player's profile. Filled in by the bot from the store.

/// One row of a leaderboard picture.
#[derive(Clone, Debug, PartialEq)]
pub struct LeaderboardRow {
    pub rank: u32,
    pub name: String,
    pub rating: f64,
    pub rd: f64,
    pub provisional: bool,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// One point of a rating history: the rating after a rated game.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingPoint {
    /// When the game ended, in milliseconds since the Unix epoch.
    pub at_ms: i64,
    pub rating: f64,
    pub rd: f64,
}

/// One game's rating on a profile.
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileRating {
    /// The game's name and id, e.g. "High Kings of Tara (hkot-1)".
    pub game: String,
    pub rating: f64,
    pub rd: f64,
    pub provisional: bool,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// The current streak in words, e.g. "3 wins", "1 draw", or "" for none.
    pub streak: String,
    /// The last results, newest first: 'W', 'D' or 'L' (only the first five are drawn).
    pub last_five: Vec<char>,
    /// The rating after each rated game, oldest first.
    pub history: Vec<RatingPoint>,
}

/// A player's profile card.
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileCard {
    pub name: String,
    pub ratings: Vec<ProfileRating>,
    /// One line per open game, e.g. "#12 hkot-1 vs Brian, your turn, 2 days left".
    pub open_games: Vec<String>,
}
