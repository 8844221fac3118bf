//! The bot's entry points that tie the capabilities together: making a bot (with the list of
//! what reacts to a game's end) and the clock tick. Nothing below this module calls up into
//! it; the capabilities react to a game's end only through [`GAME_ENDED`].

use super::reply::Reply;
use super::session::{Bot, Subscriber};
use super::time::Clock;
use super::{
    conditionals, draws, ladders, leagues, lifecycle, lobby, matches, ratings, tournaments,
};
use crate::store::Store;
use std::sync::Arc;

/// What reacts to the end of a game (`lifecycle::end_game` raises `GameEnded` once per game, in
/// the transaction that ends it), in this order, each once. Each builds on the same
/// announcement: its text grows line by line, and what follows it is queued in order.
pub(crate) const GAME_ENDED: &[Subscriber] = &[
    // Conditional moves are dropped.
    ("conditionals", conditionals::game_ended),
    // A pending draw offer is spent; under a result, its message is closed.
    ("draws", draws::game_ended),
    // "Game over. (result). Points: …" and the final counts (not for a withdrawal or an abort).
    ("result", lifecycle::result_line),
    // A rated game's Glicko-2 update, with the players' new ratings.
    ("ratings", ratings::game_ended),
    // Both players pinged under a result.
    ("players", lifecycle::players_pinged),
    // A match's score and its second game; an aborted match game replayed or called off.
    ("matches", matches::game_ended),
    // The Rematch button, when nothing follows (no next game, no tournament, no AI).
    ("rematch", lobby::offer_rematch),
    // A tournament game's pairing scored, and the tournament moved on (next round, the end).
    ("tournaments", tournaments::game_ended),
    // A ladder game's result moves the ladder (a challenger who won climbs; a no-show is
    // taken off).
    ("ladders", ladders::game_ended),
    // A league's season ended by its last game: places, promotions and relegations stored,
    // the next season set (after the tournament has recorded the division's end).
    ("leagues", leagues::game_ended),
];

impl Bot {
    /// A bot over a store; `seed` seeds the drawing of lots.
    pub fn new(store: Store, clock: Arc<dyn Clock>, seed: u64) -> Bot {
        Bot::assemble(store, clock, seed, GAME_ENDED)
    }

    /// Settles everything that fell due: timeouts, then reminders (each game once, in its own
    /// transaction), then expired challenges, then the daily digests (each player's once a
    /// day), then the leagues (seasons ended and started). Returns the messages to post (each says where:
    /// [`Reply::channel`] or [`Reply::dm`]). Safe to call often and from several processes.
    pub fn tick(&self) -> Vec<Reply> {
        let now = self.now();
        let mut out = super::clocks::settle_clocks(self, now);
        out.extend(super::lobby::expire_challenges(self, now));
        out.extend(super::digest::send_due(self, now));
        out.extend(super::leagues::settle(self, now));
        out
    }
}
