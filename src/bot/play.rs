//! Playing: moves (with forced passes played for the player), resigning, aborting and
//! takebacks.

use super::board::Board;
use super::buttons::Press;
use super::clocks::{expire_if_due, record_clock_left, restore_turn};
use super::conditionals;
use super::lifecycle::{self, aborted};
use super::moderation::record_action;
use super::options::choices;
use super::reply::{escape_markdown, ButtonStyle, Ctx, Retire, User};
use super::session::{
    both_moved, load_game, load_here, load_pressed, replay, start_turn, time_left, Bot, EndCause,
    Fail, GameEnded, Loaded, Out, Outcome, Pick, Session,
};
use super::text::{self, legal_hint, said, Builder};
use crate::game::BySide;
use crate::game::{describe, forfeit, EndReason, Move, Position, Side};
use crate::render::Frame;
use crate::store::UserId;
use crate::store::{DrawOfferRow, GameId, GameRow, MoveRow, TakebackRow, Tx};

/// An answer to a takeback request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TakebackAnswer {
    Allow,
    Refuse,
}

choices!(TakebackAnswer {
    Allow => "allow", "allow" | "accept" | "yes";
    Refuse => "refuse", "refuse" | "decline" | "no";
});
/// The side of the player on move, or why `ctx.user` may not move.
fn require_turn(l: &Loaded, ctx: &Ctx) -> Outcome<Side> {
    let seat = l.game.seat_of(&ctx.user.id).ok_or_else(|| {
        Fail::User(format!(
            "You are not playing in this game ({} {} vs {} {}).",
            l.game.sides()[0].name(),
            escape_markdown(l.names.first()),
            l.game.sides()[1].name(),
            escape_markdown(l.names.second())
        ))
    })?;
    let to_move = l
        .pos
        .to_move()
        .ok_or_else(|| Fail::User("This game is over.".into()))?;
    if to_move != seat {
        let other = to_move;
        return Err(Fail::User(format!(
            "It is not your turn: {} ({}) {} to move.",
            to_move.name(),
            escape_markdown(&l.names[other]),
            if to_move.is_plural() { "are" } else { "is" }
        )));
    }
    Ok(seat)
}

/// What the player on move is told after the previous move.
fn prompt(
    b: Builder,
    game: &GameRow,
    names: &BySide<String>,
    pos: &Position,
    left: Option<String>,
) -> Builder {
    let Some(side) = pos.to_move() else {
        return b;
    };
    let seat = side;
    if game.ai_levels[seat].is_some() {
        // The AI's move follows as soon as it is found; nobody is pinged for it.
        return b
            .text("\n")
            .user(&game.seats[seat], &names[seat])
            .text(" is thinking…");
    }
    let mut detail = side.name().to_string();
    if let Some(phase) = pos.phase() {
        detail.push_str(&format!(" · {phase}"));
    }
    if let Some(left) = left {
        detail.push_str(&format!(" · {left}"));
    }
    let mut b = b
        .text("\n")
        .ping(&game.seats[seat], &names[seat])
        .text(format!(", your move ({detail})."));
    if pos.is_last_turn() {
        b = b.text(" This is the last turn of the game.");
    }
    if let Some(h) = pos.king_that_must_move() {
        b = b.text(format!(
            " Your king on {h} stands on enemy territory and must move."
        ));
    }
    if pos.legal_moves().as_slice() == [Move::Pass] {
        b = b.text(" You have no move but `pass`.");
    }
    b
}

/// Answers the takeback request in `l`'s game: the move (and the forced passes after it) undone,
/// or the request refused.
fn answer_takeback(tx: &Tx, ctx: &Ctx, l: Loaded, accept: bool, now: i64) -> Outcome<Vec<Out>> {
    let req = tx
        .takeback(l.game.id)?
        .ok_or_else(|| Fail::User("There is no takeback request in this game.".into()))?;
    if req.requested_by == ctx.user.id {
        return Err(Fail::User(
            "You asked for this takeback; your opponent answers it.".into(),
        ));
    }
    if l.game.seat_of(&ctx.user.id).is_none() {
        return Err(Fail::User(
            "Only the players can answer a takeback request.".into(),
        ));
    }
    let seat = l
        .game
        .seat_of(&req.requested_by)
        .unwrap_or(l.game.sides()[0]);
    // Still valid: nothing but forced passes since the move.
    if takeback_ply(&l.moves, &req.requested_by).ok() != Some(req.ply) {
        tx.clear_takeback(l.game.id)?;
        return Err(Fail::User(
            "The takeback request is out of date: the game has moved on.".into(),
        ));
    }
    tx.clear_takeback(l.game.id)?;
    if !accept {
        let reply = Builder::new()
            .ping(&req.requested_by, &l.names[seat])
            .text(", ")
            .user(&ctx.user.id, &ctx.user.name)
            .text(" refused the takeback; the game goes on.")
            .build();
        return Ok(vec![Out::text(reply)]);
    }
    let undone = l.moves[req.ply as usize].notation.clone();
    // A pending draw offer lapses with the takeback, in its transaction.
    let lapsed = tx.clear_draw_offer(l.game.id)?;
    // The requester's clock resumes with the time they had left when they made the move.
    let left = tx.clock_left(l.game.id, req.ply)?;
    tx.delete_moves_from(l.game.id, req.ply)?;
    // Conditional moves were stored for the position undone.
    tx.clear_conditionals(l.game.id, None)?;
    let after = load_game(tx, l.game.clone())?;
    restore_turn(tx, &after, left, now)?;
    let (pos, played) = replay(&l.game, &l.moves, Some(req.ply as usize))?;
    let b = Builder::new()
        .user(&ctx.user.id, &ctx.user.name)
        .text(format!(" allowed the takeback: `{undone}` is undone."));
    let (b, closed) = lapse_draw_offer(&l, b, lapsed, &ctx.user, true);
    let game = tx.game(l.game.id)?.unwrap_or_else(|| l.game.clone());
    let b = prompt(b, &l.game, &l.names, &pos, time_left(&game, now, None));
    let mut reply = b.build();
    reply.retire = closed;
    Ok(vec![Out {
        reply,
        board: Some(Board::new(
            pos,
            played.clone(),
            Frame::new(l.names.clone(), played.last().copied()),
            format!("game-{}-ply-{}.png", l.game.id.0, req.ply),
        )),
    }])
}

/// A takeback in a game against the AI: as docs/rules.md §9 allows it, only of the player's last move
/// and only before the AI has answered it (while it thinks); the AI consents at once. The move
/// (and forced passes after it) is undone, and the AI's search for the position undone finds its
/// ply gone and plays nothing.
fn ai_takeback(tx: &Tx, ctx: &Ctx, l: Loaded, now: i64) -> Outcome<Vec<Out>> {
    let me = Some(ctx.user.id.as_str());
    let last_mover = l
        .moves
        .iter()
        .rev()
        .find_map(|m| m.user_id.as_ref().map(UserId::as_str));
    if last_mover.is_some()
        && last_mover != me
        && l.moves
            .iter()
            .any(|m| m.user_id.as_ref().map(UserId::as_str) == me)
    {
        return Err(Fail::User(
            "The AI has already answered your last move, so it can no longer be taken back \
             (a takeback is only possible before the opponent moves)."
                .into(),
        ));
    }
    let ply = takeback_ply(&l.moves, &ctx.user.id)?;
    let undone: Vec<String> = l.moves[ply as usize..]
        .iter()
        .filter(|m| m.user_id.is_some())
        .map(|m| format!("`{}`", m.notation))
        .collect();
    tx.clear_takeback(l.game.id)?;
    let lapsed = tx.clear_draw_offer(l.game.id)?;
    let left = tx.clock_left(l.game.id, ply)?;
    tx.delete_moves_from(l.game.id, ply)?;
    // Conditional moves were stored for the position undone.
    tx.clear_conditionals(l.game.id, None)?;
    let after = load_game(tx, l.game.clone())?;
    restore_turn(tx, &after, left, now)?;
    let ai = l
        .game
        .seat_of(&ctx.user.id)
        .unwrap_or(l.game.sides()[0])
        .opponent();
    let b = Builder::new()
        .user(&l.game.seats[ai], &l.names[ai])
        .text(format!(
            " allows the takeback: {} is undone.",
            undone.join(" ")
        ));
    let (b, closed) = lapse_draw_offer(&l, b, lapsed, &ctx.user, true);
    let game = tx.game(l.game.id)?.unwrap_or_else(|| l.game.clone());
    let b = prompt(
        b,
        &l.game,
        &l.names,
        &after.pos,
        time_left(&game, now, None),
    );
    let mut reply = b.build();
    reply.retire = closed;
    let (_, played) = replay(&l.game, &l.moves, Some(ply as usize))?;
    Ok(vec![Out {
        reply,
        board: Some(Board::new(
            after.pos,
            played.clone(),
            Frame::new(l.names.clone(), played.last().copied()),
            format!("game-{}-ply-{}.png", l.game.id.0, ply),
        )),
    }])
}

/// Says in a move's (or, with `takeback`, a takeback's) message that the draw offer it made
/// lapse has lapsed, and which offer message loses its buttons.
fn lapse_draw_offer(
    l: &Loaded,
    b: Builder,
    lapsed: Option<DrawOfferRow>,
    by: &User,
    takeback: bool,
) -> (Builder, Option<Retire>) {
    let Some(offer) = lapsed else {
        return (b, None);
    };
    let seat = l
        .game
        .seat_of(&offer.offered_by)
        .unwrap_or(l.game.sides()[0]);
    let offerer = (&l.game.seats[seat], l.names[seat].as_str());
    let b = b.text("\n").user(offerer.0, offerer.1).text(if takeback {
        "'s draw offer lapses with this takeback."
    } else {
        "'s draw offer lapses with this move."
    });
    let closed = text::draw_offer_closed(
        &l.game,
        offerer,
        if takeback {
            Builder::new().text(", which lapsed when a move was taken back.")
        } else {
            Builder::new()
                .text(", which lapsed when ")
                .user(&by.id, &by.name)
                .text(" played on.")
        },
    );
    (b, Some(closed))
}

/// The ply of `user`'s last move if only forced passes followed it.
fn takeback_ply(moves: &[MoveRow], user: &UserId) -> Outcome<u32> {
    if !moves
        .iter()
        .any(|m| m.user_id.as_ref().map(UserId::as_str) == Some(user.as_str()))
    {
        return Err(Fail::User(
            "You have not made a move in this game yet.".into(),
        ));
    }
    for m in moves.iter().rev() {
        match &m.user_id {
            None => continue,
            Some(u) if u == user => return Ok(m.ply),
            Some(_) => return Err(Fail::User(
                "Your opponent has moved since your last move, so it can no longer be taken back."
                    .into(),
            )),
        }
    }
    Err(Fail::User(
        "You have not made a move in this game yet.".into(),
    ))
}

/// Plays `mv`, already checked legal, for `mover` (the player on move in `l`), then any
/// forced passes; stores them and answers with the board and a prompt to the player on
/// move (or the end of the game). A reply foreseen by the next player's conditional moves
/// follows at once, in the same transaction, with its own message. Shared by `/move` and the
/// AI's moves.
pub(crate) fn play_checked(s: &Session, l: Loaded, mover: &User, mv: Move) -> Outcome<Vec<Out>> {
    play_as(s, l, mover, mv, false)
}

/// [`play_checked`]; `conditional` says the move was played from the mover's conditional
/// moves.
fn play_as(
    s: &Session,
    mut l: Loaded,
    mover: &User,
    mv: Move,
    conditional: bool,
) -> Outcome<Vec<Out>> {
    let (tx, now) = (s.tx, s.now);
    l.pos.play_unchecked(mv);
    l.played.push(mv);
    let mut ply = l.moves.len() as u32;
    let row = MoveRow {
        ply,
        notation: mv.to_string(),
        user_id: Some(mover.id.clone()),
        created_at: now,
    };
    tx.insert_move(l.game.id, &row)?;
    l.moves.push(row);
    record_clock_left(tx, &l.game, &mover.id, ply, now)?;
    tx.clear_takeback(l.game.id)?;
    // A pending draw offer lapses with the move, in the move's transaction.
    let lapsed = tx.clear_draw_offer(l.game.id)?;
    let mut b = Builder::new().user(&mover.id, &mover.name).text(format!(
        " · {}",
        describe::last_move(&l.pos, Some(mv)).unwrap_or_else(|| mv.to_string())
    ));
    if conditional {
        b = b.text(" (played by conditional move)");
    }
    // Forced passes are played for the player and announced.
    let mut last = mv;
    while l.pos.outcome().is_none() && l.pos.legal_moves().as_slice() == [Move::Pass] {
        l.pos.play_unchecked(Move::Pass);
        l.played.push(Move::Pass);
        ply += 1;
        let row = MoveRow {
            ply,
            notation: "pass".into(),
            user_id: None,
            created_at: now,
        };
        tx.insert_move(l.game.id, &row)?;
        l.moves.push(row);
        last = Move::Pass;
        if let Some(d) = describe::last_move(&l.pos, Some(Move::Pass)) {
            b = b.text(format!("\n{d}"));
        }
    }
    let (b, closed) = lapse_draw_offer(&l, b, lapsed, mover, false);
    if l.pos.outcome().is_none() {
        if let Some((seat, reply)) = conditionals::due(tx, &l)? {
            // The move is announced over its board; the reply, its player's turn started and
            // ended at once, follows in a message of its own.
            let mut first = b.build();
            first.retire = closed;
            let board = board_at(&l, last);
            start_turn(tx, &l, now)?;
            if let Some(game) = tx.game(l.game.id)? {
                l.game = game;
            }
            let holder = User::of(l.game.seats[seat].clone(), l.names[seat].clone());
            let mut outs = vec![Out {
                reply: first,
                board: Some(board),
            }];
            outs.extend(play_as(s, l, &holder, reply, true)?);
            return Ok(outs);
        }
    }
    let mut outs = after_move(s, &l, b, last)?;
    if let Some(first) = outs.first_mut() {
        first.reply.retire = first.reply.retire.take().or(closed);
    }
    Ok(outs)
}

/// The board of `l`'s position, `last` (the last ply) marked.
fn board_at(l: &Loaded, last: Move) -> Board {
    Board::new(
        l.pos.clone(),
        l.played.clone(),
        Frame::new(l.names.clone(), Some(last)),
        format!("game-{}-ply-{}.png", l.game.id.0, l.pos.ply()),
    )
}

/// Finishes the reply to a move: the end of the game (and the match), or a prompt to the
/// player on move.
fn after_move(s: &Session, l: &Loaded, b: Builder, last: Move) -> Outcome<Vec<Out>> {
    let (tx, now) = (s.tx, s.now);
    let board = board_at(l, last);
    if let Some(o) = l.pos.outcome().copied() {
        let ended = GameEnded {
            game: l,
            outcome: Some(&o),
            reason: EndCause::Board,
        };
        return lifecycle::end_game(s, ended, b, Some(board));
    }
    start_turn(tx, l, now)?;
    let game = tx.game(l.game.id)?.unwrap_or_else(|| l.game.clone());
    let b = prompt(b, &l.game, &l.names, &l.pos, time_left(&game, now, None));
    Ok(vec![Out {
        reply: b.build(),
        board: Some(board),
    }])
}

/// `/pass`.
pub(crate) fn pass(bot: &Bot, ctx: &Ctx, game: Option<GameId>) -> Outcome<Vec<Out>> {
    play_move(bot, ctx, "pass".into(), game)
}

/// `/move`: plays a move, then any forced passes.
pub(crate) fn play_move(
    bot: &Bot,
    ctx: &Ctx,
    text_in: String,
    game: Option<GameId>,
) -> Outcome<Vec<Out>> {
    let text_in = text_in.as_str();
    bot.write(ctx, |tx, now| {
        tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
        let l = load_here(tx, ctx, game, Pick::OnMove)?;
        if let Some(outs) = expire_if_due(&bot.session(tx, now), &l)? {
            // The clock ran out before this move arrived: the timeout stands.
            return Ok(outs);
        }
        require_turn(&l, ctx)?;
        // Echoed in a code span, which a backtick in it could close.
        let shown: String = text_in
            .trim()
            .chars()
            .filter(|c| *c != '`' && !c.is_control())
            .take(24)
            .collect();
        let mv = l
            .pos
            .parse_move(text_in)
            .map_err(|e| Fail::User(format!("`{shown}`: {}. {}", said(&e), legal_hint(&l.pos))))?;
        if let Err(e) = l.pos.check(mv) {
            let hint = if e.lists_moves() {
                String::new()
            } else {
                format!(" {}", legal_hint(&l.pos))
            };
            return Err(Fail::User(format!("`{mv}` is not legal: {e}.{hint}")));
        }
        play_checked(&bot.session(tx, now), l, &ctx.user, mv)
    })
}

pub(crate) fn resign(
    bot: &Bot,
    ctx: &Ctx,
    confirmed: bool,
    game_id: Option<GameId>,
) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, now| {
        let l = load_pressed(tx, ctx, game_id)?;
        let seat = l.game.seat_of(&ctx.user.id).ok_or_else(|| {
            Fail::User("You are not playing in this game, so you cannot resign it.".into())
        })?;
        let opponent = &l.names[seat.opponent()];
        // docs/rules.md §9: before both players have moved, a resignation aborts the game
        // (in a tournament, a league or a ladder game: a forfeit, unrated, so that nobody
        // dodges a pairing or a challenge).
        let started = both_moved(&l.game, &l.moves);
        let ladder = tx.ladder_game_of(l.game.id)?.is_some();
        let tournament = l.game.pairing_id.is_some() || ladder;
        if !confirmed {
            let question = format!("Resign this game against {}?", escape_markdown(opponent));
            let question = match (started, tournament) {
                (true, _) => format!(
                    "{question} {} will win. This cannot be undone.",
                    seat.opponent().name()
                ),
                (false, false) => format!(
                    "Before both players have moved, resigning aborts the game: no result, \
                     no points, no rating change. {question}"
                ),
                (false, true) if ladder => format!(
                    "Before both players have moved, resigning a ladder game is a forfeit: \
                     {} wins it, as the ladder counts it, and the game is not rated. {question}",
                    escape_markdown(opponent)
                ),
                (false, true) => format!(
                    "Before both players have moved, resigning a tournament game is a \
                     forfeit: {} scores the point, and the game is not rated. {question}",
                    escape_markdown(opponent)
                ),
            };
            let reply = Builder::new()
                .text(question)
                .button(Press::Resign(l.game.id), "Resign", ButtonStyle::Danger)
                .private()
                .build();
            return Ok(vec![Out::text(reply)]);
        }
        let side: Side = seat;
        if !started && !tournament {
            return abort_unstarted(bot, tx, &l, seat, now);
        }
        let mut b = Builder::new()
            .user(&ctx.user.id, &ctx.user.name)
            .text(format!(" ({}) resigned", side.name()));
        let forfeited;
        let l = if started {
            b = b.text(".");
            &l
        } else {
            // A forfeit (docs/rules.md §10: forfeits): unrated; a tournament scores it as
            // unplayed, a ladder as a result.
            tx.set_game_unrated(l.game.id)?;
            b = b.text(" before both players had moved: a forfeit, not rated.");
            let mut game = l.game.clone();
            game.rated = false;
            forfeited = Loaded { game, ..l };
            &forfeited
        };
        let o = forfeit(&l.pos, side, EndReason::Resigned);
        lifecycle::decided(&bot.session(tx, now), l, o, EndCause::Resigned, b)
    })
}

/// A resignation before both players have moved, outside tournaments (docs/rules.md §9):
/// the game is aborted (no result, no points, unrated); a match game is replayed, as after
/// a player's `/abort`.
fn abort_unstarted(bot: &Bot, tx: &Tx, l: &Loaded, seat: Side, now: i64) -> Outcome<Vec<Out>> {
    let mut b = Builder::new()
        .text("**Game aborted.** ")
        .user(&l.game.seats[seat], &l.names[seat])
        .text(format!(
            " ({}) resigned before both players had moved, so the game does not count: no \
             result, no points, no rating change.",
            seat.name()
        ));
    // The opponent learns of it (in a match, the replayed game's start pings instead).
    let other = seat.opponent();
    if l.game.match_id.is_none() && l.game.ai_levels[other].is_none() {
        b = b
            .text(" ")
            .ping(&l.game.seats[other], &l.names[other])
            .text(", the channel is free for a new game.");
    }
    aborted(&bot.session(tx, now), l, EndCause::Aborted, b)
}

/// `/abort [reason]`: a player's before the first move (a match game is replayed), or a
/// moderator's at any time: that ends the whole match, pings both players with who did it
/// and why, and goes in the audit log.
pub(crate) fn abort(
    bot: &Bot,
    ctx: &Ctx,
    reason: Option<String>,
    game: Option<GameId>,
) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, now| {
        let l = load_here(tx, ctx, game, Pick::Any)?;
        if l.game.pairing_id.is_some() {
            return Err(Fail::User(
                "A tournament game cannot be aborted: resign it, or ask the organiser to \
                 `/tournament withdraw` a player who cannot play."
                    .into(),
            ));
        }
        let player = l.game.seat_of(&ctx.user.id).is_some();
        let by_right = player && l.moves.is_empty();
        if ctx.moderator && !by_right {
            return moderator_abort(bot, tx, ctx, &l, reason.as_deref(), now);
        }
        if !ctx.moderator {
            if !player {
                return Err(Fail::User(
                    "Only the players (before the first move) or a moderator can abort this game."
                        .into(),
                ));
            }
            if !l.moves.is_empty() {
                return Err(Fail::User(
                    "The game has started, so it can no longer be aborted; you can `/resign`, \
                     or ask a moderator."
                        .into(),
                ));
            }
        }
        let mut b = Builder::new()
            .text("Game aborted by ")
            .user(&ctx.user.id, &ctx.user.name)
            .text(": no result, no points.");
        // The opponent learns of it (in a match, the replayed game's start pings instead).
        if let (Some(seat), None) = (l.game.seat_of(&ctx.user.id), l.game.match_id) {
            let other = seat.opponent();
            // Against the AI there is nobody to tell.
            if l.game.ai_levels[other].is_none() {
                b = b
                    .text(" ")
                    .ping(&l.game.seats[other], &l.names[other])
                    .text(", the channel is free for a new game.");
            }
        }
        aborted(&bot.session(tx, now), &l, EndCause::Aborted, b)
    })
}

/// A moderator's abort: no result, the match (if any) called off rather than replayed,
/// both players pinged, the action in the audit log.
fn moderator_abort(
    bot: &Bot,
    tx: &Tx,
    ctx: &Ctx,
    l: &Loaded,
    reason: Option<&str>,
    now: i64,
) -> Outcome<Vec<Out>> {
    let reason = reason.map(str::trim).filter(|r| !r.is_empty());
    let b = Builder::new()
        .text("**Game aborted by a moderator**, ")
        .user(&ctx.user.id, &ctx.user.name);
    let b = match reason {
        Some(r) => b.text(", because: ").verbatim(r).text(". "),
        None => b.text(" (no reason given). "),
    };
    let b = text::ping_players(b.text("No result, no points. "), &l.game, &l.names, ", ").text(".");
    let mut outs = aborted(&bot.session(tx, now), l, EndCause::ModeratorAbort, b)?;
    let subject = format!("game #{} in <#{}>", l.game.id.0, l.game.channel_id);
    let detail = format!(
        "aborted{}; reason: {}",
        if l.game.match_id.is_some() {
            ", match called off"
        } else {
            ""
        },
        reason.map_or("none given".to_string(), escape_markdown)
    );
    outs.extend(record_action(tx, ctx, "abort", &subject, &detail, now)?);
    Ok(outs)
}

/// `/takeback`: asks to undo your last move; with an answer, answers your opponent's request.
pub(crate) fn takeback(
    bot: &Bot,
    ctx: &Ctx,
    answer: Option<TakebackAnswer>,
    game_id: Option<GameId>,
) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, now| {
        let l = load_pressed(tx, ctx, game_id)?;
        if let Some(answer) = answer {
            return answer_takeback(tx, ctx, l, answer == TakebackAnswer::Allow, now);
        }
        let seat = l
            .game
            .seat_of(&ctx.user.id)
            .ok_or_else(|| Fail::User("You are not playing in this game.".into()))?;
        if l.game.ai_levels[seat.opponent()].is_some() {
            return ai_takeback(tx, ctx, l, now);
        }
        let ply = takeback_ply(&l.moves, &ctx.user.id)?;
        if let Some(pending) = tx.takeback(l.game.id)? {
            // One pending request per game: asking again pings nobody again.
            let still_valid =
                takeback_ply(&l.moves, &pending.requested_by).ok() == Some(pending.ply);
            if still_valid {
                return Err(Fail::User(if pending.requested_by == ctx.user.id {
                    format!(
                        "You have already asked to take back `{}`; wait for your opponent's \
                         answer (one request per game at a time).",
                        l.moves[pending.ply as usize].notation
                    )
                } else {
                    "Your opponent's takeback request is waiting for your answer: \
                     `/takeback answer:allow` or `/takeback answer:refuse` first."
                        .to_string()
                }));
            }
        }
        tx.set_takeback(
            &TakebackRow {
                game_id: l.game.id,
                ply,
                requested_by: ctx.user.id.clone(),
            },
            now,
        )?;
        let other = seat.opponent();
        let reply = Builder::new()
            .ping(&l.game.seats[other], &l.names[other])
            .text(", ")
            .user(&ctx.user.id, &ctx.user.name)
            .text(format!(
                " asks to take back `{}`. Allow it?",
                l.moves[ply as usize].notation
            ))
            .yes_no(
                (Press::TakebackYes(l.game.id), "Allow"),
                (Press::TakebackNo(l.game.id), "Refuse"),
            )
            .build();
        Ok(vec![Out::text(reply)])
    })
}
