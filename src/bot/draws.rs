//! Draw offers (docs/rules.md §9): either player offers a draw at any time; the offer stands
//! until the opponent accepts or declines it, or a move (a pass, a takeback) makes it lapse.
//! An accepted draw ends the game through `lifecycle::end_game`, scored by [`agreed_draw`];
//! whatever else ends a game spends its pending offer ([`game_ended`]).

use super::buttons::Press;
use super::clocks::expire_if_due;
use super::lifecycle;
use super::options::choices;
use super::reply::{escape_markdown, Ctx};
use super::session::{
    load_pressed, Announcement, Bot, EndCause, Fail, GameEnded, Loaded, Out, Outcome, Session,
};
use super::text::{self, Builder};
use crate::game::agreed_draw;
use crate::store::{DrawOfferRow, GameId, Tx};

/// An answer to a draw offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawAnswer {
    Accept,
    Decline,
}

choices!(DrawAnswer {
    Accept => "accept", "accept" | "yes" | "allow";
    Decline => "decline", "decline" | "no" | "refuse";
});

/// Subscriber: a draw offer still pending when the game ends is spent with it. When the
/// announcement gives a result (not a withdrawal, not an abort), it also closes the offer's
/// message: "the game ended before it was answered".
pub(crate) fn game_ended(s: &Session, e: &GameEnded, ann: &mut Announcement) -> Outcome<()> {
    let l = e.game;
    let spent = s.tx.clear_draw_offer(l.game.id)?;
    if e.outcome.is_none() || e.reason == EndCause::Withdrawn {
        return Ok(());
    }
    ann.retire = spent.map(|offer| {
        let seat = l
            .game
            .seat_of(&offer.offered_by)
            .unwrap_or(l.game.sides()[0]);
        text::draw_offer_closed(
            &l.game,
            (&l.game.seats[seat], l.names[seat].as_str()),
            Builder::new().text("; the game ended before it was answered."),
        )
    });
    Ok(())
}

/// Offers a draw in `l`'s game: the opponent is pinged once, with Accept and Decline buttons.
fn offer(
    tx: &Tx,
    ctx: &Ctx,
    l: &Loaded,
    pending: Option<DrawOfferRow>,
    now: i64,
) -> Outcome<Vec<Out>> {
    let seat = l.game.seat_of(&ctx.user.id).ok_or_else(|| {
        Fail::User("You are not playing in this game, so you cannot offer a draw in it.".into())
    })?;
    let other = seat.opponent();
    if l.game.ai_levels[other].is_some() {
        return Err(Fail::User(
            "The bot's AI does not take draw offers; play on, or `/resign`.".into(),
        ));
    }
    if let Some(p) = pending {
        // One pending offer per game: offering again pings nobody again.
        return Err(Fail::User(if p.offered_by == ctx.user.id {
            format!(
                "You already offered a draw in this game ({}); it stands until {} accepts or \
                 declines it, or a move is made. One offer at a time.",
                if p.ply == 0 {
                    "before the first move".to_string()
                } else {
                    format!("after move {}", p.ply)
                },
                escape_markdown(&l.names[other])
            )
        } else {
            format!(
                "{} has offered you a draw, which is waiting for your answer: `/draw \
                 answer:accept` or `/draw answer:decline` (or the buttons on the offer).",
                escape_markdown(&l.names[other])
            )
        }));
    }
    tx.insert_draw_offer(l.game.id, &ctx.user.id, l.moves.len() as u32, now)?;
    let reply = Builder::new()
        .ping(&l.game.seats[other], &l.names[other])
        .text(", ")
        .user(&ctx.user.id, &ctx.user.name)
        .text(format!(
            " ({}) offers a draw. It stands until you accept or decline it, or a move is made.",
            seat.name()
        ))
        .yes_no(
            (Press::DrawYes(l.game.id), "Accept draw"),
            (Press::DrawNo(l.game.id), "Decline"),
        )
        .build();
    Ok(vec![Out::text(reply)])
}

/// `/draw`: offers a draw to the opponent; with an answer (or a button), answers the
/// opponent's offer.
pub(crate) fn draw(
    bot: &Bot,
    ctx: &Ctx,
    answer: Option<DrawAnswer>,
    game_id: Option<GameId>,
) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, now| {
        tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
        let l = load_pressed(tx, ctx, game_id)?;
        if let Some(outs) = expire_if_due(&bot.session(tx, now), &l)? {
            // The clock ran out before this arrived: the timeout stands.
            return Ok(outs);
        }
        let pending = tx.draw_offer(l.game.id)?;
        match answer {
            None => offer(tx, ctx, &l, pending, now),
            Some(answer) => {
                answer_draw(bot, tx, ctx, &l, pending, answer == DrawAnswer::Accept, now)
            }
        }
    })
}

/// Answers the pending offer of `l`'s game: the game drawn, or the offer declined.
fn answer_draw(
    bot: &Bot,
    tx: &Tx,
    ctx: &Ctx,
    l: &Loaded,
    pending: Option<DrawOfferRow>,
    accept: bool,
    now: i64,
) -> Outcome<Vec<Out>> {
    let Some(offer) = pending else {
        return Err(Fail::User(
            "There is no draw offer to answer in this game: it was answered already, or it \
             lapsed when a move was made. `/draw` offers one."
                .into(),
        ));
    };
    let offerer_seat = l
        .game
        .seat_of(&offer.offered_by)
        .unwrap_or(l.game.sides()[0]);
    let answerer_seat = offerer_seat.opponent();
    if offer.offered_by == ctx.user.id {
        return Err(Fail::User(
            "That is your own draw offer: your opponent answers it. It stands until they do, \
             or until a move is made."
                .into(),
        ));
    }
    if l.game.seats[answerer_seat] != ctx.user.id {
        return Err(Fail::User(format!(
            "Only {} can answer this draw offer.",
            escape_markdown(&l.names[answerer_seat])
        )));
    }
    tx.clear_draw_offer(l.game.id)?;
    let offerer = (&l.game.seats[offerer_seat], l.names[offerer_seat].as_str());
    let how = if accept { "accepted by" } else { "declined by" };
    let closed = text::draw_offer_closed(
        &l.game,
        offerer,
        Builder::new()
            .text(format!(": {how} "))
            .user(&ctx.user.id, &ctx.user.name)
            .text("."),
    );
    if !accept {
        let mut reply = Builder::new()
            .ping(offerer.0, offerer.1)
            .text(", ")
            .user(&ctx.user.id, &ctx.user.name)
            .text(" declined your draw offer; the game goes on.")
            .build();
        reply.pressed_message = Some(closed.text.clone());
        reply.retire = Some(closed);
        return Ok(vec![Out::text(reply)]);
    }
    let o = agreed_draw(&l.pos);
    let b = Builder::new()
        .user(&ctx.user.id, &ctx.user.name)
        .text(" accepted the draw offered by ")
        .user(offerer.0, offerer.1)
        .text(".");
    let mut outs = lifecycle::decided(&bot.session(tx, now), l, o, EndCause::DrawAgreed, b)?;
    if let Some(first) = outs.first_mut() {
        first.reply.pressed_message = Some(closed.text.clone());
        first.reply.retire = Some(closed);
    }
    Ok(outs)
}
