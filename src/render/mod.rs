//! Board images: a position in, PNG bytes out (and an animated GIF of a whole game); and the
//! rating pictures: leaderboards, profile cards and rating-history charts; and the tournament
//! pictures: standings, crosstables and knockout brackets. Pure: no rules
//! decisions are made here; everything shown comes from the engine or the caller.

mod ard_ri;
pub mod canvas;
mod card;
mod chart;
mod digest;
mod draw;
mod eval_chart;
mod fonts;
mod frame;
mod fx;
mod header;
mod indexed;
mod ladder;
mod layout;
mod leaderboard;
mod lzw;
mod profile;
mod ratings;
mod replay;
mod tara;
pub mod text;
mod theme;
mod tiles;
mod tournament_cards;
mod tournaments;

pub use chart::rating_chart_png;
pub use digest::{digest_png, DIGEST_BOARDS};
pub use draw::{board_png, board_png_scaled, draw, warm_up};
pub use eval_chart::{eval_chart_png, EvalChart};
pub use frame::{Cell, Frame};
pub use ladder::{ladder_png, LadderCard, LadderRow, MAX_LADDER_ROWS};
pub use layout::{HEIGHT, WIDTH};
pub use leaderboard::leaderboard_png;
pub use profile::profile_png;
pub use ratings::{LeaderboardRow, ProfileCard, ProfileRating, RatingPoint};
pub use replay::{replay_gif, replay_gif_within, Replay, PART_DELAY, UPLOAD_LIMIT};
pub use tournament_cards::{bracket_png, crosstable_png, division_png, standings_png, LevelMove};
pub use tournaments::{
    BracketCard, BracketSeat, BracketTie, CrossPlayer, Crosstable, StandingsCard, StandingsRow,
};
