//! The AI: a Monte Carlo tree search for the Tara games and an alpha-beta search for Ard Rí, at
//! five levels, and the plain players (random, greedy) they are measured against. Pure like the
//! engine: no I/O and no clock (a time limit comes in as a `stop` check from the caller); a
//! level-5 search may run on several threads of its own, joined before it returns.

mod analyse;
mod endgame;
mod levels;
mod mcts;
mod tafl;

pub use analyse::{
    analyse, analyse_with, round3, too_weak_to_judge, Analysis, MoveReview, ReviewRecord,
};
pub use levels::{greedy_move, random_move, think, think_threads, Level, Limit};
pub use mcts::{result_for, search, search_threads, winning_move, Found, MoveStat, Settings};
