//! A game's end, raised in one place. Every way a game can end (a move or a forced pass that
//! finishes it, a resignation, a timeout, an agreed draw, an abort by the players or a
//! moderator, a withdrawal from a tournament, a tournament called off) calls [`end_game`]
//! inside the transaction of the change that ended it. It stores the end, then raises
//! [`GameEnded`]: each subscriber of the bot's list (`GAME_ENDED` in `entry.rs`, read top to
//! bottom) runs once, in that order, and builds on the same [`Announcement`].
//!
//! The announcement's own steps live here too: the result line ([`result_line`]) and the
//! players pinged under it ([`players_pinged`]).

use super::board::Board;
use super::session::{Announcement, EndCause, GameEnded, Loaded, Out, Outcome, Session};
use super::text::{self, Builder};
use crate::render::Frame;

/// Ends `ended.game` as `ended.outcome` says (a result, or aborted without one) and raises
/// [`GameEnded`]. `text` is the start of the announcement (what happened), `board` its
/// picture. Returns the announcement and the messages that follow it.
pub(crate) fn end_game(
    s: &Session,
    ended: GameEnded,
    text: Builder,
    board: Option<Board>,
) -> Outcome<Vec<Out>> {
    let id = ended.game.game.id;
    match ended.outcome {
        Some(o) => s.tx.finish_game(id, o, s.now)?,
        None => s.tx.abort_game(id, s.now)?,
    }
    let mut ann = Announcement {
        text,
        board,
        retire: None,
        next_game: false,
        after: Vec::new(),
    };
    for (name, subscriber) in s.game_ended_subscribers() {
        s.traced(id, name);
        subscriber(s, &ended, &mut ann)?;
    }
    let mut outs = ann.into_outs();
    // The game's channel, once nothing more goes on in it (no next game of a match, no open
    // challenge): archived by the adapter after the last of these messages, if it is a thread
    // the adapter opened (Discord holds at most 1,000 active threads a server).
    let channel = &ended.game.game.channel_id;
    let idle =
        s.tx.active_games_in(channel)?.is_empty() && s.tx.open_challenges(channel)?.is_empty();
    if let (true, Some(last)) = (idle, outs.last_mut()) {
        last.reply.archive_channel = Some(channel.clone());
    }
    Ok(outs)
}

/// Ends `l`'s game with the result `o` decided off the board (a resignation, a timeout, an
/// agreed draw), announced by `text` over the final board: [`end_game`].
pub(crate) fn decided(
    s: &Session,
    l: &Loaded,
    o: crate::game::Outcome,
    reason: EndCause,
    text: Builder,
) -> Outcome<Vec<Out>> {
    let board = Board::new(
        l.pos.clone(),
        l.played.clone(),
        Frame::new(l.names.clone(), None).with_result(o),
        format!("game-{}-final.png", l.game.id.0),
    );
    let ended = GameEnded {
        game: l,
        outcome: Some(&o),
        reason,
    };
    end_game(s, ended, text, Some(board))
}

/// Whether the announcement says the result in a line of its own: a game decided on the board,
/// by resignation, by time or by agreement (a withdrawal says why instead).
fn result_announced(e: &GameEnded) -> bool {
    e.outcome.is_some() && e.reason != EndCause::Withdrawn
}

/// Subscriber: "**Game over.** (result). Points: …" and the counts of the final position.
pub(crate) fn result_line(_: &Session, e: &GameEnded, ann: &mut Announcement) -> Outcome<()> {
    let (Some(o), true) = (e.outcome, result_announced(e)) else {
        return Ok(());
    };
    let l = e.game;
    let b = std::mem::take(&mut ann.text).text(format!(
        "\n**Game over.** {}. Points: ",
        text::result_sentence(&l.pos, o),
    ));
    let mut b = text::points_line(b, &l.game, &l.names, o).text(".");
    if let Some(c) = text::counts_line(&l.pos) {
        b = b.text(format!("\n{c}"));
    }
    ann.text = b;
    Ok(())
}

/// Subscriber: both players pinged under a result (an abort's message pings whom it tells in
/// its own words).
pub(crate) fn players_pinged(_: &Session, e: &GameEnded, ann: &mut Announcement) -> Outcome<()> {
    if e.outcome.is_some() {
        let l = e.game;
        let b = std::mem::take(&mut ann.text).text("\n");
        ann.text = text::ping_players(b, &l.game, &l.names, " ");
    }
    Ok(())
}

/// Aborts `l`'s game (no result, no points) for `reason`, announced by `text`: [`end_game`]
/// without a result or a board.
pub(crate) fn aborted(
    s: &Session,
    l: &Loaded,
    reason: EndCause,
    text: Builder,
) -> Outcome<Vec<Out>> {
    let ended = GameEnded {
        game: l,
        outcome: None,
        reason,
    };
    end_game(s, ended, text, None)
}
