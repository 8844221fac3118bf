//! Correspondence clocks: days per move, reminders, timeouts and vacations. Deadlines and
//! reminder state live in SQLite, so [`Bot::tick`] after a restart catches up on what fell due,
//! exactly once (each game is settled in its own transaction).

use super::play::{load_game, Loaded};
use super::text::Builder;
use super::{Bot, Ctx, Fail, Out, Outcome, Reply};
use crate::game::{forfeit, EndReason};
use crate::render::Frame;
use crate::store::{GameRow, Tx};

pub const MINUTE: i64 = 60_000;
pub const HOUR: i64 = 60 * MINUTE;
pub const DAY: i64 = 24 * HOUR;
/// The time controls on offer, in days per move.
pub const DAYS_CHOICES: [u32; 6] = [1, 2, 3, 5, 7, 14];
/// At most this much vacation per calendar year.
pub const VACATION_DAYS_PER_YEAR: i64 = 14;
/// Never more than one reminder per game in this long.
const REMINDER_GAP: i64 = 12 * HOUR;
/// The first reminder, unless the server sets `reminder_hours`.
const DEFAULT_REMINDER_HOURS: i64 = 24;

/// Reads a time control: `none` (or empty, `0`) or one of [`DAYS_CHOICES`].
pub fn parse_days(s: &str) -> Result<Option<u32>, String> {
    let t = s.trim().to_ascii_lowercase();
    let t = t.trim_end_matches("days").trim_end_matches("day").trim();
    if t.is_empty() || t == "none" || t == "0" || t == "off" {
        return Ok(None);
    }
    match t.parse::<u32>() {
        Ok(d) if DAYS_CHOICES.contains(&d) => Ok(Some(d)),
        _ => Err(format!(
            "'{s}' is not a time control: choose none or 1, 2, 3, 5, 7 or 14 days per move"
        )),
    }
}

/// A duration in words: "2 days 4 hours", "5 hours 10 minutes", "3 minutes".
pub fn duration_text(ms: i64) -> String {
    if ms <= 0 {
        return "no time".into();
    }
    let (d, h, m) = (ms / DAY, (ms % DAY) / HOUR, (ms % HOUR) / MINUTE);
    let unit = |n: i64, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    if d > 0 {
        if h > 0 {
            format!("{} {}", unit(d, "day"), unit(h, "hour"))
        } else {
            unit(d, "day")
        }
    } else if h > 0 {
        if m > 0 {
            format!("{} {}", unit(h, "hour"), unit(m, "minute"))
        } else {
            unit(h, "hour")
        }
    } else {
        unit(m.max(1), "minute")
    }
}

/// A UTC date and time, "2026-12-14 08:00 UTC".
pub fn date_text(ms: i64) -> String {
    let days = ms.div_euclid(DAY);
    let rem = ms.rem_euclid(DAY);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / HOUR,
        (rem % HOUR) / MINUTE
    )
}

/// Vacation still available, in words ("none", "4 days").
fn vacation_left(ms: i64) -> String {
    if ms <= 0 {
        "none".into()
    } else {
        duration_text(ms)
    }
}

/// Milliseconds at the start of the UTC year containing `ms`, and of the next one.
fn year_bounds(ms: i64) -> (i64, i64) {
    let year: i64 = date_text(ms)[..4].parse().unwrap_or(1970);
    let days_from_civil = |y: i64| {
        // Days from 1970-01-01 to y-01-01.
        let y1 = y - 1;
        365 * (y - 1970) + (y1 / 4 - 1969 / 4) - (y1 / 100 - 1969 / 100) + (y1 / 400 - 1969 / 400)
    };
    (days_from_civil(year) * DAY, days_from_civil(year + 1) * DAY)
}

/// The clock of `mover` for a turn starting at `now`: it starts when their vacation (if any)
/// ends, and runs for the game's days per move.
pub(crate) fn turn_clock(
    tx: &Tx,
    game: &GameRow,
    mover: &str,
    now: i64,
) -> Outcome<Option<(i64, i64)>> {
    let Some(days) = game.days_per_move else {
        return Ok(None);
    };
    let start = tx.vacation_end(mover, now)?.unwrap_or(now).max(now);
    Ok(Some((start, start + i64::from(days) * DAY)))
}

/// Starts the turn of the player to move in `l` (a new clock and fresh reminders).
pub(crate) fn start_turn(tx: &Tx, l: &Loaded, now: i64) -> Outcome<()> {
    let clock = match l.pos.to_move() {
        Some(side) => turn_clock(tx, &l.game, &l.game.seats[side.index()], now)?,
        None => None,
    };
    tx.start_turn(l.game.id, now, clock)?;
    Ok(())
}

/// "2 days 4 hours left" for the player to move, or `None` without a clock. `paused_until` is
/// the end of the mover's vacation, if they are away.
pub(crate) fn time_left(game: &GameRow, now: i64, paused_until: Option<i64>) -> Option<String> {
    let deadline = game.deadline_at?;
    let start = game
        .clock_start_at
        .unwrap_or(now)
        .max(paused_until.unwrap_or(now));
    if start > now {
        Some(format!(
            "clock paused until {} (vacation), then {}",
            date_text(start),
            duration_text(deadline - start)
        ))
    } else {
        Some(format!("{} left", duration_text(deadline - now)))
    }
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
        let ids = {
            let mut store = self.store();
            match store.read(|tx| tx.clocked_games()) {
                Ok(ids) => ids,
                Err(e) => {
                    tracing::error!(error = %e, "reading clocks failed");
                    return Vec::new();
                }
            }
        };
        let mut out = Vec::new();
        for id in ids {
            let settled: Outcome<Vec<Out>> = {
                let mut store = self.store();
                store.write(|tx| self.settle(tx, id, now))
            };
            match settled {
                Ok(outs) => out.extend(outs.into_iter().map(|o| self.finish(o))),
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
        let how = tx
            .user_setting(mover, "reminders")?
            .unwrap_or_else(|| "channel".into());
        if how == "off" {
            return Ok(vec![]);
        }
        let left = duration_text(deadline - now);
        let opponent = &l.names[1 - seat];
        let mut b = Builder::new();
        let mut reply = if how == "dm" {
            b = b
                .text(format!(
                    "Reminder: it is your move in {} against {opponent} (game {}, ",
                    l.game.options.variant.name(),
                    l.game.id
                ))
                .channel(&l.game.channel_id)
                .text(format!("). {left} left."));
            let mut r = b.build();
            r.dm = Some(mover.clone());
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
            reply
                .parts
                .insert(0, super::Part::Text("**Last call.** ".into()));
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
        let now = self.now();
        let mut store = self.store();
        store.write(|tx| {
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
        reminders: Option<&str>,
        default_days: Option<&str>,
        reminder_hours: Option<u32>,
    ) -> Outcome<Vec<Out>> {
        let now = self.now();
        let reminders = match reminders.map(|r| r.trim().to_ascii_lowercase()) {
            None => None,
            Some(r) if ["channel", "dm", "off"].contains(&r.as_str()) => Some(r),
            Some(r) => {
                return Err(Fail::User(format!(
                    "'{r}' is not a reminder choice: channel, dm or off."
                )))
            }
        };
        let default_days = match default_days {
            None => None,
            Some(d) => Some(parse_days(d).map_err(|e| Fail::User(format!("{e}.")))?),
        };
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
        let mut store = self.store();
        store.write(|tx| {
            tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
            if let Some(r) = &reminders {
                tx.set_user_setting(&ctx.user.id, "reminders", r)?;
            }
            if let Some(d) = default_days {
                let v = d.map(|d| d.to_string()).unwrap_or_else(|| "none".into());
                tx.set_server_setting(&ctx.server, "default_days", &v)?;
            }
            if let Some(h) = reminder_hours {
                tx.set_server_setting(&ctx.server, "reminder_hours", &h.to_string())?;
            }
            let how = tx
                .user_setting(&ctx.user.id, "reminders")?
                .unwrap_or_else(|| "channel".into());
            let days = tx
                .server_setting(&ctx.server, "default_days")?
                .unwrap_or_else(|| "none".into());
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
                if days == "none" {
                    "none".to_string()
                } else {
                    format!("{days} days per move")
                },
            );
            Ok(vec![Out::text(Reply::private(text))])
        })
    }
}

/// The server's default time control.
pub(crate) fn default_days(tx: &Tx, server: &str) -> Outcome<Option<u32>> {
    Ok(tx
        .server_setting(server, "default_days")?
        .and_then(|d| parse_days(&d).ok())
        .flatten())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_dates_read_well() {
        assert_eq!(
            duration_text(2 * DAY + 4 * HOUR + 5 * MINUTE),
            "2 days 4 hours"
        );
        assert_eq!(duration_text(DAY), "1 day");
        assert_eq!(duration_text(5 * HOUR + 10 * MINUTE), "5 hours 10 minutes");
        assert_eq!(duration_text(30_000), "1 minute");
        assert_eq!(date_text(0), "1970-01-01 00:00 UTC");
        assert_eq!(date_text(1_795_996_800_000), "2026-11-30 00:00 UTC");
        assert_eq!(date_text(951_782_400_000), "2000-02-29 00:00 UTC");
        let (a, b) = year_bounds(1_795_996_800_000);
        assert_eq!(date_text(a), "2026-01-01 00:00 UTC");
        assert_eq!(date_text(b), "2027-01-01 00:00 UTC");
    }

    #[test]
    fn time_controls_parse() {
        assert_eq!(parse_days("3"), Ok(Some(3)));
        assert_eq!(parse_days("14 days"), Ok(Some(14)));
        assert_eq!(parse_days("none"), Ok(None));
        assert!(parse_days("4").is_err());
        assert!(parse_days("soon").is_err());
    }
}
