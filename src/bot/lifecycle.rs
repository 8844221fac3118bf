//! A game's end, raised in one place. Every way a game can end (a move or a forced pass that
//! finishes it, a resignation, a timeout, an agreed draw, an abort by the players or a
//! moderator, a withdrawal from a tournament, a tournament called off) calls [`end_game`]
//! inside the transaction of the change that ended it. It stores the end, then raises
//! [`GameEnded`]: each subscriber of the bot's list (`GAME_ENDED` in `entry.rs`) runs once and
//! writes its own part of the [`Announcement`], reading only the event and the store; the
//! parts are put together in the list's order (top to bottom), whatever order they ran in. A
//! game end or follow-up a subscriber raises waits until the one being handled is done.
//!
//! The announcement's own steps live here too: the result line ([`result_line`]) and the
//! players pinged under it ([`players_pinged`]).

use super::board::Board;
use super::reply::{OnTheWeb, WebPage};
use super::session::{
    Announcement, EndCause, FollowUp, GameEnded, Loaded, Out, Outcome, Place, QueuedEnd, Session,
};
use super::text::{self, Builder};
use crate::render::Frame;

/// Ends `ended.game` as `ended.outcome` says (a result, or aborted without one) and raises
/// [`GameEnded`]. `text` is the start of the announcement (what happened), `board` its
/// picture. Returns the announcement and the messages that follow it, then those of every game
/// end and follow-up the subscribers left ([`FollowUp`]). A game end raised while another is
/// being handled (by one of its subscribers: a withdrawn player's other games) is stored at
/// once, and announced after the one being handled: it returns nothing itself.
pub(crate) fn end_game(
    s: &Session,
    ended: GameEnded,
    text: Builder,
    board: Option<Board>,
) -> Outcome<Vec<Out>> {
    end_game_in(s, ended, text, board, None)
}

/// [`end_game`], the announcement posted in `place` instead of the game's channel.
pub(crate) fn end_game_in(
    s: &Session,
    ended: GameEnded,
    text: Builder,
    board: Option<Board>,
    place: Option<Place>,
) -> Outcome<Vec<Out>> {
    let id = ended.game.game.id;
    match ended.outcome {
        Some(o) => s.tx.finish_game(id, o, s.now)?,
        None => s.tx.abort_game(id, s.now)?,
    }
    if s.ending() {
        s.follow_up(FollowUp::GameEnded(Box::new(QueuedEnd {
            game: ended.game.clone(),
            outcome: ended.outcome.cloned(),
            reason: ended.reason,
            text,
            board,
            place,
        })));
        return Ok(Vec::new());
    }
    s.set_ending(true);
    let handled = (|| {
        let mut outs = announce(s, &ended, text, board, place)?;
        while let Some(next) = s.next_follow_up() {
            match next {
                FollowUp::GameEnded(q) => {
                    let QueuedEnd {
                        game,
                        outcome,
                        reason,
                        text,
                        board,
                        place,
                    } = *q;
                    let e = GameEnded {
                        game: &game,
                        outcome: outcome.as_ref(),
                        reason,
                    };
                    outs.extend(announce(s, &e, text, board, place)?);
                }
                FollowUp::Call(f, arg) => outs.extend(f(s, arg)?),
            }
        }
        Ok(outs)
    })();
    s.set_ending(false);
    handled
}

/// Runs every subscriber of [`GameEnded`] once (in the bot's run order), each writing its own
/// part, and puts the parts together in the list's order under `text`.
fn announce(
    s: &Session,
    ended: &GameEnded,
    text: Builder,
    board: Option<Board>,
    place: Option<Place>,
) -> Outcome<Vec<Out>> {
    let id = ended.game.game.id;
    let subscribers = s.game_ended_subscribers();
    let mut parts: Vec<Option<Announcement>> = subscribers.iter().map(|_| None).collect();
    for i in s.game_ended_run_order() {
        let (name, subscriber) = subscribers[i];
        s.traced(id, name);
        let mut part = Announcement::part();
        subscriber(s, ended, &mut part)?;
        parts[i] = Some(part);
    }
    if matches!(
        ended.reason,
        EndCause::TournamentCancelled | EndCause::MatchForfeited
    ) {
        // Nothing is announced per game: the tournament says it once.
        return Ok(Vec::new());
    }
    let mut ann = Announcement {
        text,
        board,
        retire: None,
        after: Vec::new(),
    };
    for part in parts.into_iter().flatten() {
        ann.text = ann.text.then(part.text);
        ann.retire = ann.retire.or(part.retire);
        ann.after.extend(part.after);
    }
    let mut outs = ann.into_outs();
    // The announcement links the game's page on the web (when its server is on it).
    let game = &ended.game.game;
    outs[0].reply.web = Some(OnTheWeb::new(&game.server_id, WebPage::game(game.id)));
    if let Some(place) = place {
        let reply = &mut outs[0].reply;
        reply.channel = Some(place.channel);
        reply.thread = place.thread;
    }
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
