//! Correspondence clocks: days per move, reminders, timeouts and vacations. Deadlines and
//! reminder state live in SQLite, so [`Bot::tick`] after a restart catches up on what fell due,
//! exactly once (each game is settled in its own transaction).

use super::buttons::Press;
use super::lifecycle::{self, aborted};
use super::options::{choices, Choices};
use super::reply::{ButtonStyle, Ctx, Part, Reply};
use super::session::{
    has_moved, load_game, turn_clock, Bot, EndCause, Fail, Loaded, Out, Outcome, Session,
};
use super::text::{self, Builder};
use super::time::{
    date_text, left_text, plural, vacation_charge, vacation_days_available, vacation_left, DAY,
    HOUR, VACATION_DAYS, VACATION_WINDOW,
};
use crate::game::{forfeit, EndReason};
use crate::store::GameId;
use crate::store::{GameRow, Tx};
use crate::store::{ServerId, UserId};
use crate::store::{ServerSetting, UserSetting};

/// A turn's first reminder comes at least this long before its last call; when the turn is
/// too short for that, it has no first reminder.
const REMINDER_GAP: i64 = 12 * HOUR;
/// The first reminder, unless the server sets `reminder_hours`.
const DEFAULT_REMINDER_HOURS: i64 = 24;

/// Where a player's reminders go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Reminders {
    /// In the game's channel, with a ping (the default).
    #[default]
    Channel,
    /// By direct message.
    Dm,
    Off,
}

choices!(Reminders {
    Channel => "channel", "in the game's channel";
    Dm => "dm", "by direct message";
    Off => "off", "off";
});

/// A player's reminder setting.
pub(crate) fn reminders_of(tx: &Tx, user: &UserId) -> Outcome<Reminders> {
    Ok(tx
        .user_setting(user, UserSetting::REMINDERS)?
        .and_then(|r| Reminders::parse_text(&r))
        .unwrap_or_default())
}

/// The server's first-reminder delay, in hours.
pub(crate) fn server_reminder_hours(tx: &Tx, server: &ServerId) -> Outcome<i64> {
    Ok(tx
        .server_setting(server, ServerSetting::REMINDER_HOURS)?
        .and_then(|h| h.parse::<i64>().ok())
        .unwrap_or(DEFAULT_REMINDER_HOURS))
}

/// When the reminders of a turn fall due: the first (`None` when the turn is too short for it)
/// and the last call. `control` is the time per move, `delay` the server's first-reminder
/// delay, and the turn's clock runs from `start` to `deadline`.
///
/// * The last call comes when the smaller of 24 hours and a fifth of the time per move is left
///   (with 1 day per move: 4.8 hours before the deadline), or at once if the turn starts with
///   less than that (a takeback that gave back little time).
/// * The first reminder comes after the server's delay or a quarter of the time per move,
///   whichever is later (with 14 days per move: after 3½ days), but at least 12 hours before
///   the last call. A turn too short for both is reminded only by the last call.
pub(crate) fn reminder_schedule(
    control: i64,
    delay: i64,
    start: i64,
    deadline: i64,
) -> (Option<i64>, i64) {
    let last_call = (deadline - (24 * HOUR).min(control / 5)).max(start);
    let first = (start + delay.max(control / 4)).min(last_call - REMINDER_GAP);
    ((first >= start).then_some(first), last_call)
}

/// When this turn's reminders fall due (see [`reminder_schedule`]).
fn reminder_times(tx: &Tx, game: &GameRow) -> Outcome<Option<(Option<i64>, i64)>> {
    let (Some(days), Some(start), Some(deadline)) =
        (game.days_per_move, game.clock_start_at, game.deadline_at)
    else {
        return Ok(None);
    };
    let delay = server_reminder_hours(tx, &game.server_id)? * HOUR;
    Ok(Some(reminder_schedule(
        i64::from(days) * DAY,
        delay,
        start,
        deadline,
    )))
}

/// The time (ms) left on the clock of `mover`, the player to move in `game`, if it has a
/// clock. While they are on vacation their clock stands still.
fn mover_time_left(tx: &Tx, game: &GameRow, mover: &UserId, now: i64) -> Outcome<Option<i64>> {
    let Some(deadline) = game.deadline_at else {
        return Ok(None);
    };
    let running_from = now
        .max(game.clock_start_at.unwrap_or(now))
        .max(tx.vacation_end(mover, now)?.unwrap_or(now));
    Ok(Some((deadline - running_from).max(0)))
}

/// Notes on move `ply`, just made by `mover` (the player to move in `game` before it), the time
/// they had left on their clock, so that a takeback can give it back (docs/rules.md §9).
pub(crate) fn record_clock_left(
    tx: &Tx,
    game: &GameRow,
    mover: &UserId,
    ply: u32,
    now: i64,
) -> Outcome<()> {
    if let Some(left) = mover_time_left(tx, game, mover, now)? {
        tx.set_clock_left(game.id, ply, left)?;
    }
    Ok(())
}

/// Starts again, after a takeback, the turn of the player to move in `l` (the one whose move
/// was taken back): their clock resumes with `left`, the time they had when they made that
/// move (docs/rules.md §9), after their vacation if they are on one. A move stored before that
/// time was recorded (`left` is `None`) gives a full time per move, as takebacks used to.
pub(crate) fn restore_turn(tx: &Tx, l: &Loaded, left: Option<i64>, now: i64) -> Outcome<()> {
    let Some(side) = l.pos.to_move() else {
        tx.start_turn(l.game.id, now, None)?;
        return Ok(());
    };
    let mover = &l.game.seats[side];
    let clock = match (l.game.days_per_move, left) {
        (None, _) => None,
        (Some(_), Some(left)) => {
            let start = tx.vacation_end(mover, now)?.unwrap_or(now).max(now);
            Some((start, start + left))
        }
        (Some(_), None) => turn_clock(tx, &l.game, mover, now)?,
    };
    tx.start_turn(l.game.id, now, clock)?;
    Ok(())
}

/// The whole days of vacation `user` can start at `now` ([`VACATION_DAYS`] in any 365 days).
pub(crate) fn vacation_available(tx: &Tx, user: &UserId, now: i64) -> Outcome<u32> {
    // A vacation counts from its start for at most its length rounded up to whole days, so
    // those ending more than 365 days and one day ago no longer count.
    let taken: Vec<(i64, i64)> = tx
        .vacations_since(user, now - VACATION_WINDOW - DAY)?
        .into_iter()
        .map(|v| (v.start_at, v.end_at))
        .collect();
    Ok(vacation_days_available(&taken, now))
}

/// One game's due timeout or reminder, inside a transaction.
fn settle(s: &Session, id: GameId) -> Outcome<Vec<Out>> {
    let tx = s.tx;
    let Some(game) = tx.game(id)? else {
        return Ok(vec![]);
    };
    if game.status != crate::store::GameStatus::Active {
        return Ok(vec![]);
    }
    let l = load_game(tx, game)?;
    if let Some(outs) = expire_if_due(s, &l)? {
        return Ok(outs);
    }
    remind_if_due(s, &l)
}

/// The timeout of the player to move, if their time has run out (docs/rules.md §9).
pub(crate) fn expire_if_due(s: &Session, l: &Loaded) -> Outcome<Option<Vec<Out>>> {
    let (tx, now) = (s.tx, s.now);
    let (Some(deadline), Some(side)) = (l.game.deadline_at, l.pos.to_move()) else {
        return Ok(None);
    };
    if now < deadline {
        return Ok(None);
    }
    let seat = side;
    let moved = has_moved(&l.game, &l.moves, seat);
    if !moved && l.game.pairing_id.is_none() {
        // docs/rules.md §9: a player whose time runs out before their first move does not
        // lose; outside tournaments the game is aborted. (In a tournament it is a forfeit,
        // scored by the tournament.) A match is called off rather than replayed, so that a
        // player who never comes does not restart it forever.
        let b = Builder::new()
            .text("**Time is up.** ")
            .user(&l.game.seats[seat], &l.names[seat])
            .text(format!(
                " ({}) ran out of time before making a first move, so the game is aborted: \
                 no result, no points.\n",
                side.name()
            ));
        let b = text::ping_players(b, &l.game, &l.names, " ");
        let mut outs = aborted(s, l, EndCause::NoShow, b)?;
        // In the game's channel, but what a subscriber addressed elsewhere (a ladder's own
        // channel) goes there.
        for out in &mut outs {
            if out.reply.channel.is_none() && out.reply.dm.is_none() {
                out.reply.channel = Some(l.game.channel_id.clone());
            }
        }
        return Ok(Some(outs));
    }
    // In a tournament, a timeout before a first move is a forfeit (docs/rules.md §10: forfeits): unrated,
    // and scored as unplayed by the tournament.
    let forfeited;
    let (l, what) = if !moved {
        tx.set_game_unrated(l.game.id)?;
        let mut game = l.game.clone();
        game.rated = false;
        forfeited = Loaded {
            game,
            moves: l.moves.clone(),
            pos: l.pos.clone(),
            played: l.played.clone(),
            names: l.names.clone(),
        };
        (&forfeited, " before a first move: a forfeit")
    } else {
        (l, "")
    };
    let o = forfeit(&l.pos, side, EndReason::Timeout);
    let b = Builder::new()
        .text("**Time is up.** ")
        .user(&l.game.seats[seat], &l.names[seat])
        .text(format!(
            " ({}) ran out of time{what} ({} day{} per move).",
            side.name(),
            l.game.days_per_move.unwrap_or(0),
            if l.game.days_per_move == Some(1) {
                ""
            } else {
                "s"
            }
        ));
    let mut outs = lifecycle::decided(s, l, o, EndCause::TimedOut, b)?;
    // In the game's channel, unless a message says where it goes (a tournament's next
    // round, announced in the tournament's channel).
    for out in &mut outs {
        if out.reply.channel.is_none() && out.reply.dm.is_none() {
            out.reply.channel = Some(l.game.channel_id.clone());
        }
    }
    Ok(Some(outs))
}

fn remind_if_due(s: &Session, l: &Loaded) -> Outcome<Vec<Out>> {
    let (tx, now) = (s.tx, s.now);
    let (Some(side), Some((first, second)), Some(deadline)) = (
        l.pos.to_move(),
        reminder_times(tx, &l.game)?,
        l.game.deadline_at,
    ) else {
        return Ok(vec![]);
    };
    let seat = side;
    let mover = &l.game.seats[seat];
    if l.game.clock_start_at.is_some_and(|s| s > now) || tx.vacation_end(mover, now)?.is_some() {
        return Ok(vec![]); // on vacation: the clock is not running
    }
    // After downtime only the latest due reminder goes out. The last call is never held
    // back: the schedule already keeps the first reminder well before it.
    let due = if l.game.reminders_sent < 2 && now >= second {
        2
    } else if l.game.reminders_sent < 1 && first.is_some_and(|f| now >= f) {
        1
    } else {
        return Ok(vec![]);
    };
    tx.set_reminded(l.game.id, due, now)?;
    let how = reminders_of(tx, mover)?;
    if how == Reminders::Off {
        return Ok(vec![]);
    }
    let left = left_text(deadline - now);
    let (opponent_id, opponent) = (&l.game.seats[seat.opponent()], &l.names[seat.opponent()]);
    let mut b = Builder::new();
    let mut reply = if how == Reminders::Dm {
        // Pinged, so that the same message still reaches them in the game's channel when
        // they take no direct messages.
        b = b
            .text("Reminder: ")
            .ping(mover, &l.names[seat])
            .text(format!(
                ", it is your move in {} against ",
                l.game.options.variant.name(),
            ))
            .user(opponent_id, opponent)
            .text(format!(" (game {}, ", l.game.id.0))
            .channel(&l.game.channel_id)
            .text(format!("). {left} left."));
        let mut r = b.build();
        r.dm = Some(mover.clone());
        r.channel = Some(l.game.channel_id.clone());
        r
    } else {
        b = b
            .text("Reminder: ")
            .ping(mover, &l.names[seat])
            .text(format!(", it is your move ({}) against ", side.name()))
            .user(opponent_id, opponent)
            .text(format!(": {left} left."));
        let mut r = b.build();
        r.channel = Some(l.game.channel_id.clone());
        r
    };
    if due == 2 {
        reply.parts.insert(0, Part::Text("**Last call.** ".into()));
    }
    Ok(vec![Out::text(reply)])
}

/// Settles the clocks that fell due at `now`: each game's timeout, or else its reminder.
/// Returns the messages to post (each says where: [`Reply::channel`] or [`Reply::dm`]).
/// Safe to call often and from several processes: each game is settled once, in its own
/// transaction.
pub(crate) fn settle_clocks(bot: &Bot, now: i64) -> Vec<Reply> {
    let ids = match bot.read(|tx| Ok(tx.clocked_games()?)) {
        Ok(ids) => ids,
        Err(e) => {
            tracing::error!(error = ?e, "reading clocks failed");
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for id in ids {
        let settled = bot.write_owed(None, now, |tx, now| settle(&bot.session(tx, now), id));
        match settled {
            Ok(replies) => out.extend(replies),
            Err(Fail::User(_)) => {}
            Err(Fail::Store(e)) => {
                tracing::error!(error = %e, game = id.0, "settling a clock failed")
            }
        }
    }
    out
}

/// `vacation days:N`: pauses all your clocks for N days (at most [`VACATION_DAYS`] in any
/// 365 days); with no game with a clock in progress, asks first unless `confirmed`.
/// `vacation end`: ends your vacation now.
pub(crate) fn vacation(
    bot: &Bot,
    ctx: &Ctx,
    days: Option<u32>,
    end: bool,
    confirmed: bool,
) -> Outcome<Vec<Out>> {
    match (days, end) {
        (Some(_), true) => Err(Fail::User(
            "Either start a vacation (`/vacation days:3`) or end yours (`/vacation end:true`), \
             not both at once."
                .into(),
        )),
        (None, true) => end_vacation(bot, ctx),
        (None, false) => Err(Fail::User(format!(
            "Say how many days (1 to {VACATION_DAYS}), as in `/vacation days:3`; \
             `/vacation end:true` ends your vacation early."
        ))),
        (Some(days), false) => start_vacation(bot, ctx, days, confirmed),
    }
}

fn start_vacation(bot: &Bot, ctx: &Ctx, days: u32, confirmed: bool) -> Outcome<Vec<Out>> {
    if !(1..=VACATION_DAYS).contains(&days) {
        return Err(Fail::User(format!(
            "A vacation lasts 1 to {VACATION_DAYS} days."
        )));
    }
    bot.write(ctx, |tx, now| {
        tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
        if let Some(end) = tx.vacation_end(&ctx.user.id, now)? {
            return Err(Fail::User(format!(
                "You are already on vacation until {}; `/vacation end:true` ends it early.",
                date_text(end)
            )));
        }
        let available = vacation_available(tx, &ctx.user.id, now)?;
        if days > available {
            return Err(Fail::User(format!(
                "You have {} of vacation left ({VACATION_DAYS} days in any 365 days).",
                if available == 0 {
                    "no days".to_string()
                } else {
                    plural(i64::from(available), "day")
                }
            )));
        }
        let games = tx.active_games_of(&ctx.user.id)?;
        if !confirmed && !games.iter().any(|g| g.days_per_move.is_some()) {
            let reply = Builder::new()
                .text(format!(
                    "You have no game with a clock in progress, so a vacation would pause \
                     nothing now, yet it would use {} of your allowance ({} left of \
                     {VACATION_DAYS} days in any 365 days). Take it anyway? (It would pause \
                     the clocks of games that start before it ends.)",
                    plural(i64::from(days), "day"),
                    vacation_left(available)
                ))
                .button(
                    Press::Vacation(days),
                    "Take it anyway",
                    ButtonStyle::Primary,
                )
                .private()
                .build();
            return Ok(vec![Out::text(reply)]);
        }
        let len = i64::from(days) * DAY;
        let end = now + len;
        tx.insert_vacation(&ctx.user.id, now, end)?;
        let mut outs = Vec::new();
        let mut paused = 0;
        for g in games {
            let l = load_game(tx, g)?;
            let seat = l.game.seat_of(&ctx.user.id).unwrap_or(l.game.sides()[0]);
            let on_move = l.pos.to_move() == Some(seat);
            if on_move && l.game.deadline_at.is_some() {
                // Pause: the clock starts again when the vacation ends, with the time left.
                let start = l.game.clock_start_at.unwrap_or(now);
                tx.shift_clock(l.game.id, end - start.max(now))?;
                paused += 1;
            }
            let other = seat.opponent();
            if l.game.ai_levels[other].is_some() || l.game.days_per_move.is_none() {
                // The AI has no clock and reads nothing, and a game without a clock has no
                // clock to stop: no one to tell.
                continue;
            }
            let mut r = Builder::new()
                .ping(&l.game.seats[other], &l.names[other])
                .text(", ")
                .user(&ctx.user.id, &ctx.user.name)
                .text(format!(
                    " is on vacation until {}: their clock does not run until then.",
                    date_text(end)
                ))
                .build();
            r.channel = Some(l.game.channel_id.clone());
            outs.push(Out::text(r));
        }
        let note = Reply::private(format!(
            "You are on vacation until {} ({}); clocks paused in {}. `/vacation end:true` \
             ends it early and gives back the whole days not begun. Vacation left: {} \
             ({VACATION_DAYS} days in any 365 days).",
            date_text(end),
            plural(i64::from(days), "day"),
            plural(paused, "game"),
            vacation_left(available - days)
        ));
        outs.insert(0, Out::text(note));
        Ok(outs)
    })
}

/// `vacation end`: ends the user's vacation now. Every day begun counts; the whole days not
/// begun return to the allowance, and the clocks of their games run again from now with the
/// time they had left.
fn end_vacation(bot: &Bot, ctx: &Ctx) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, now| {
        tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
        let Some(v) = tx.current_vacation(&ctx.user.id, now)? else {
            return Err(Fail::User(
                "You are not on vacation, so there is none to end; `/vacation days:3` \
                 starts one."
                    .into(),
            ));
        };
        tx.end_vacation(v.id, now)?;
        let unused = v.end_at - now;
        let returned = (v.end_at - vacation_charge(v.start_at, now).1).max(0) / DAY;
        let mut outs = Vec::new();
        let mut resumed = 0;
        for g in tx.active_games_of(&ctx.user.id)? {
            let l = load_game(tx, g)?;
            let seat = l.game.seat_of(&ctx.user.id).unwrap_or(l.game.sides()[0]);
            let on_move = l.pos.to_move() == Some(seat);
            let mut b = Builder::new()
                .ping(&l.game.seats[seat.opponent()], &l.names[seat.opponent()])
                .text(", ")
                .user(&ctx.user.id, &ctx.user.name)
                .text(" is back from vacation");
            if on_move && l.game.deadline_at.is_some() {
                // The vacation paused this clock until its planned end: resume it now.
                tx.shift_clock(l.game.id, -unused)?;
                resumed += 1;
                let game = tx.game(l.game.id)?.unwrap_or_else(|| l.game.clone());
                if let Some(left) = mover_time_left(tx, &game, &ctx.user.id, now)? {
                    b = b.text(format!(
                        ": their clock runs again, {} left.",
                        left_text(left)
                    ));
                }
            } else {
                b = b.text(".");
            }
            if l.game.ai_levels[seat.opponent()].is_some() {
                continue;
            }
            let mut r = b.build();
            r.channel = Some(l.game.channel_id.clone());
            outs.push(Out::text(r));
        }
        let note = Reply::private(format!(
            "Welcome back: your vacation has ended. {} of it not begun went back to your \
             allowance; clocks running again in {}. Vacation left: {} ({VACATION_DAYS} days \
             in any 365 days).",
            if returned == 1 {
                "1 whole day".to_string()
            } else {
                format!("{returned} whole days")
            },
            plural(resumed, "game"),
            vacation_left(vacation_available(tx, &ctx.user.id, now)?)
        ));
        outs.insert(0, Out::text(note));
        Ok(outs)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reminders_are_proportionate_and_the_last_call_is_never_pushed_back() {
        let day = 24 * HOUR;
        let s = 1_000 * DAY;
        // (days per move, first, last call) after the start of a full turn, default delay.
        for (days, first, last) in [
            (1, Some(7 * HOUR + 12 * 60_000), 19 * HOUR + 12 * 60_000),
            (2, Some(day), 2 * day - 9 * HOUR - 36 * 60_000),
            (3, Some(day), 3 * day - 14 * HOUR - 24 * 60_000),
            (5, Some(30 * HOUR), 4 * day),
            (14, Some(3 * day + 12 * HOUR), 13 * day),
        ] {
            let control = days * day;
            assert_eq!(
                reminder_schedule(control, day, s, s + control),
                (first.map(|f| s + f), s + last),
                "{days} days"
            );
        }
        // The server's delay counts when it is later than a quarter of the time.
        assert_eq!(
            reminder_schedule(5 * day, 48 * HOUR, s, s + 5 * day).0,
            Some(s + 48 * HOUR)
        );
        // A turn that starts with 10 hours left of 1 day (a takeback): no room for a first
        // reminder 12 hours before the last call, which comes 4.8 hours before the end.
        assert_eq!(
            reminder_schedule(day, day, s, s + 10 * HOUR),
            (None, s + 10 * HOUR - 4 * HOUR - 48 * 60_000)
        );
        // With less than the last call's time left, the last call comes at once.
        assert_eq!(reminder_schedule(3 * day, day, s, s + 2 * HOUR), (None, s));
    }
}
