//! Correspondence clocks: days per move, reminders, timeouts and vacations. Deadlines and
//! reminder state live in SQLite, so [`Bot::tick`] after a restart catches up on what fell due,
//! exactly once (each game is settled in its own transaction).

use super::options::{choices, Choices};
use super::reply::{Ctx, Part, Reply};
use super::session::{default_time_control, load_game, Bot, Fail, Loaded, Out, Outcome};
use super::text::Builder;
use super::time::{date_text, duration_text, vacation_left, year_bounds, TimeControl, DAY, HOUR};
use crate::game::{forfeit, EndReason};
use crate::render::Frame;
use crate::store::{GameRow, Tx};

/// At most this much vacation per calendar year.
pub const VACATION_DAYS_PER_YEAR: i64 = 14;
/// Never more than one reminder per game in this long.
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
fn reminders_of(tx: &Tx, user: &str) -> Outcome<Reminders> {
    Ok(tx
        .user_setting(user, "reminders")?
        .and_then(|r| Reminders::parse_text(&r))
        .unwrap_or_default())
}

/// When this turn's two reminders fall due.
fn reminder_times(tx: &Tx, game: &GameRow) -> Outcome<Option<(i64, i64)>> {
    let (Some(days), Some(start), Some(deadline)) =
        (game.days_per_move, game.clock_start_at, game.deadline_at)
    else {
        return Ok(None);
    };
    let control = i64::from(days) * DAY;
    let hours = tx
        .server_setting(&game.server_id, "reminder_hours")?
        .and_then(|h| h.parse::<i64>().ok())
        .unwrap_or(DEFAULT_REMINDER_HOURS);
    // The first after the server's delay, but early enough to leave 12 hours before the last
    // call (with 1 day per move: 7.2 hours in).
    // The last call: 24 hours before the deadline, or with less than 3 days per move (where a
    // day is too much of the time), when a fifth of the time is left.
    let last_call = if control >= 3 * DAY {
        24 * HOUR
    } else {
        control / 5
    };
    let second = deadline - last_call;
    let first = (start + hours * HOUR).min(second - REMINDER_GAP).max(start);
    Ok(Some((first, second)))
}

impl Bot {
    /// Settles everything that fell due: timeouts, then reminders. Returns the messages to post
    /// (each says where: [`Reply::channel`] or [`Reply::dm`]). Safe to call often and from
    /// several processes: each game is settled once, in its own transaction.
    pub fn tick(&self) -> Vec<Reply> {
        let now = self.now();
        let ids = match self.read(|tx| Ok(tx.clocked_games()?)) {
            Ok(ids) => ids,
            Err(e) => {
                tracing::error!(error = ?e, "reading clocks failed");
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for id in ids {
            let settled = self.write_owed(None, now, |tx, now| self.settle(tx, id, now));
            match settled {
                Ok(replies) => out.extend(replies),
                Err(Fail::User(_)) => {}
                Err(Fail::Store(e)) => {
                    tracing::error!(error = %e, game = id, "settling a clock failed")
                }
            }
        }
        out
    }

    /// One game's due timeout or reminder, inside a transaction.
    fn settle(&self, tx: &Tx, id: i64, now: i64) -> Outcome<Vec<Out>> {
        let Some(game) = tx.game(id)? else {
            return Ok(vec![]);
        };
        if game.status != crate::store::GameStatus::Active {
            return Ok(vec![]);
        }
        let l = load_game(tx, game)?;
        if let Some(outs) = self.expire_if_due(tx, &l, now)? {
            return Ok(outs);
        }
        self.remind_if_due(tx, &l, now)
    }

    /// The timeout of the player to move, if their time has run out (RULES.md Part E).
    pub(crate) fn expire_if_due(&self, tx: &Tx, l: &Loaded, now: i64) -> Outcome<Option<Vec<Out>>> {
        let (Some(deadline), Some(side)) = (l.game.deadline_at, l.pos.to_move()) else {
            return Ok(None);
        };
        if now < deadline {
            return Ok(None);
        }
        let seat = side.index();
        let mover = &l.game.seats[seat];
        let has_moved = l.moves.iter().any(|m| m.user_id.as_deref() == Some(mover));
        if !has_moved && l.game.pairing_id.is_none() {
            // RULES.md Part E: a player whose time runs out before their first move does not
            // lose; outside tournaments the game is aborted. (In a tournament it is a forfeit,
            // scored by the tournament.) A match is called off rather than replayed, so that a
            // player who never comes does not restart it forever.
            let b = Builder::new()
                .text(format!(
                    "**Time is up.** {} ({}) ran out of time before making a first move, so the \
                     game is aborted: no result, no points.\n",
                    l.names[seat],
                    side.name()
                ))
                .ping(&l.game.seats[0], &l.names[0])
                .text(" ")
                .ping(&l.game.seats[1], &l.names[1]);
            let mut outs = self.abort_game(tx, l, b, false, now)?;
            for out in &mut outs {
                out.reply.channel = Some(l.game.channel_id.clone());
            }
            return Ok(Some(outs));
        }
        let o = forfeit(&l.pos, side, EndReason::Timeout);
        let b = Builder::new().text(format!(
            "**Time is up.** {} ({}) ran out of time ({} day{} per move).",
            l.names[seat],
            side.name(),
            l.game.days_per_move.unwrap_or(0),
            if l.game.days_per_move == Some(1) {
                ""
            } else {
                "s"
            }
        ));
        let board = (
            l.pos.clone(),
            Frame::new(l.names.clone(), None).with_result(o),
            format!("game-{}-final.png", l.game.id),
        );
        let mut outs = self.end_game(tx, l, b, o, board, now)?;
        for out in &mut outs {
            out.reply.channel = Some(l.game.channel_id.clone());
        }
        Ok(Some(outs))
    }

    fn remind_if_due(&self, tx: &Tx, l: &Loaded, now: i64) -> Outcome<Vec<Out>> {
        let (Some(side), Some((first, second)), Some(deadline)) = (
            l.pos.to_move(),
            reminder_times(tx, &l.game)?,
            l.game.deadline_at,
        ) else {
            return Ok(vec![]);
        };
        let seat = side.index();
        let mover = &l.game.seats[seat];
        if l.game.clock_start_at.is_some_and(|s| s > now) || tx.vacation_end(mover, now)?.is_some()
        {
            return Ok(vec![]); // on vacation: the clock is not running
        }
        if l.game.reminded_at.is_some_and(|t| now - t < REMINDER_GAP) {
            return Ok(vec![]);
        }
        // After downtime only the latest due reminder goes out.
        let due = if l.game.reminders_sent < 2 && now >= second {
            2
        } else if l.game.reminders_sent < 1 && now >= first {
            1
        } else {
            return Ok(vec![]);
        };
        tx.set_reminded(l.game.id, due, now)?;
        let how = reminders_of(tx, mover)?;
        if how == Reminders::Off {
            return Ok(vec![]);
        }
        let left = duration_text(deadline - now);
        let opponent = &l.names[1 - seat];
        let mut b = Builder::new();
        let mut reply = if how == Reminders::Dm {
            // Pinged, so that the same message still reaches them in the game's channel when
            // they take no direct messages.
            b = b
                .text("Reminder: ")
                .ping(mover, &l.names[seat])
                .text(format!(
                    ", it is your move in {} against {opponent} (game {}, ",
                    l.game.options.variant.name(),
                    l.game.id
                ))
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
                .text(format!(
                    ", it is your move ({}) against {opponent}: {left} left.",
                    side.name()
                ));
            let mut r = b.build();
            r.channel = Some(l.game.channel_id.clone());
            r
        };
        if due == 2 {
            reply.parts.insert(0, Part::Text("**Last call.** ".into()));
        }
        Ok(vec![Out::text(reply)])
    }

    /// `vacation days:N`: pauses all your clocks for N days (at most 14 days a year).
    pub(crate) fn vacation(&self, ctx: &Ctx, days: u32) -> Outcome<Vec<Out>> {
        if !(1..=VACATION_DAYS_PER_YEAR as u32).contains(&days) {
            return Err(Fail::User(format!(
                "A vacation lasts 1 to {VACATION_DAYS_PER_YEAR} days."
            )));
        }
        self.write(ctx, |tx, now| {
            tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
            if let Some(end) = tx.vacation_end(&ctx.user.id, now)? {
                return Err(Fail::User(format!(
                    "You are already on vacation until {}.",
                    date_text(end)
                )));
            }
            let (from, to) = year_bounds(now);
            let taken = tx.vacation_taken(&ctx.user.id, from, to)?;
            let left = VACATION_DAYS_PER_YEAR * DAY - taken;
            let len = i64::from(days) * DAY;
            if len > left {
                return Err(Fail::User(format!(
                    "You have {} of vacation left this year ({VACATION_DAYS_PER_YEAR} days a year).",
                    if left <= 0 {
                        "no days".to_string()
                    } else {
                        duration_text(left)
                    }
                )));
            }
            let end = now + len;
            tx.insert_vacation(&ctx.user.id, now, end)?;
            let mut outs = Vec::new();
            let mut paused = 0;
            for g in tx.active_games_of(&ctx.user.id)? {
                let l = load_game(tx, g)?;
                let seat = l.game.seat_of(&ctx.user.id).unwrap_or(0);
                let on_move = l.pos.to_move().map(|s| s.index()) == Some(seat);
                if on_move && l.game.deadline_at.is_some() {
                    // Pause: the clock starts again when the vacation ends, with the time left.
                    let start = l.game.clock_start_at.unwrap_or(now);
                    tx.shift_clock(l.game.id, end - start.max(now))?;
                    paused += 1;
                }
                let other = 1 - seat;
                let mut r = Builder::new()
                    .ping(&l.game.seats[other], &l.names[other])
                    .text(format!(
                        ", {} is on vacation until {}: their clock is paused until then.",
                        ctx.user.name,
                        date_text(end)
                    ))
                    .build();
                r.channel = Some(l.game.channel_id.clone());
                outs.push(Out::text(r));
            }
            let taken_after = taken + len;
            let note = Reply::private(format!(
                "You are on vacation until {} ({} day{}); clocks paused in {paused} game{}. \
                 Vacation left this year: {}.",
                date_text(end),
                days,
                if days == 1 { "" } else { "s" },
                if paused == 1 { "" } else { "s" },
                vacation_left(VACATION_DAYS_PER_YEAR * DAY - taken_after)
            ));
            outs.insert(0, Out::text(note));
            Ok(outs)
        })
    }

    /// `settings`: your reminders (channel, dm or off); moderators: the server's default time
    /// control and first-reminder delay. Without options, shows the settings.
    pub(crate) fn settings(
        &self,
        ctx: &Ctx,
        reminders: Option<Reminders>,
        default_days: Option<TimeControl>,
        reminder_hours: Option<u32>,
    ) -> Outcome<Vec<Out>> {
        if (default_days.is_some() || reminder_hours.is_some()) && !ctx.moderator {
            return Err(Fail::User(
                "Only moderators can change the server's clock settings.".into(),
            ));
        }
        if let Some(h) = reminder_hours {
            if !(1..=168).contains(&h) {
                return Err(Fail::User(
                    "The first reminder comes after 1 to 168 hours.".into(),
                ));
            }
        }
        self.write(ctx, |tx, now| {
            tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
            if let Some(r) = reminders {
                tx.set_user_setting(&ctx.user.id, "reminders", r.id())?;
            }
            if let Some(d) = default_days {
                tx.set_server_setting(&ctx.server, "default_days", d.id())?;
            }
            if let Some(h) = reminder_hours {
                tx.set_server_setting(&ctx.server, "reminder_hours", &h.to_string())?;
            }
            let how = reminders_of(tx, &ctx.user.id)?.id();
            let days = default_time_control(tx, &ctx.server)?;
            let hours = tx
                .server_setting(&ctx.server, "reminder_hours")?
                .unwrap_or_else(|| DEFAULT_REMINDER_HOURS.to_string());
            let (from, to) = year_bounds(now);
            let taken = tx.vacation_taken(&ctx.user.id, from, to)?;
            let text = format!(
                "Your reminders: **{how}** (channel, dm or off). Vacation left this year: {}.\n\
                 This server: default time control **{}**, first reminder after {hours} hours \
                 (moderators can change these).",
                vacation_left(VACATION_DAYS_PER_YEAR * DAY - taken),
                if days == TimeControl::NoClock {
                    "none".to_string()
                } else {
                    days.to_string()
                },
            );
            Ok(vec![Out::text(Reply::private(text))])
        })
    }
}
