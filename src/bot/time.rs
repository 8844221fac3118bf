//! Time: the injected clock, durations and dates in words, and time controls (days per move).

use std::sync::atomic::{AtomicI64, Ordering};

pub const MINUTE: i64 = 60_000;
pub const HOUR: i64 = 60 * MINUTE;
pub const DAY: i64 = 24 * HOUR;
/// The time controls on offer, in days per move.
pub const DAYS_CHOICES: [u32; 6] = [1, 2, 3, 5, 7, 14];

/// The current time, injected so deadlines can be tested without sleeping.
pub trait Clock: Send + Sync {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64;
    /// Moves a simulated clock forward; false for the real clock.
    fn advance_ms(&self, _ms: i64) -> bool {
        false
    }
}

/// The system clock.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0)
    }
}

/// A clock that only moves when told (tests, the console's simulated time).
pub struct ManualClock(AtomicI64);

impl ManualClock {
    pub fn new(start_ms: i64) -> ManualClock {
        ManualClock(AtomicI64::new(start_ms))
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
    fn advance_ms(&self, ms: i64) -> bool {
        self.0.fetch_add(ms, Ordering::SeqCst);
        true
    }
}

/// The system clock plus an offset that can be moved forward (the console's `/time`).
#[derive(Default)]
pub struct OffsetClock(AtomicI64);

impl OffsetClock {
    /// The system clock moved forward by `ms` from the start (where an earlier console's
    /// `/time` left it).
    pub fn starting_at(ms: i64) -> OffsetClock {
        OffsetClock(AtomicI64::new(ms))
    }
}

impl Clock for OffsetClock {
    fn now_ms(&self) -> i64 {
        SystemClock.now_ms() + self.0.load(Ordering::SeqCst)
    }
    fn advance_ms(&self, ms: i64) -> bool {
        self.0.fetch_add(ms, Ordering::SeqCst);
        true
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

/// The time left on a clock in words, the same way in every message: rounded to the nearest
/// minute, every unit shown ("3 days", "2 days 23 hours 59 minutes", "4 hours 48 minutes"), so
/// that two messages a second apart never disagree by more than a minute. Less than a whole
/// minute is "less than a minute", never rounded up to a minute that would end past the
/// deadline; nothing left is "no time".
pub fn left_text(ms: i64) -> String {
    if ms <= 0 {
        return "no time".into();
    }
    if ms < MINUTE {
        return "less than a minute".into();
    }
    let minutes = (ms + MINUTE / 2) / MINUTE;
    let (d, h, m) = (minutes / (24 * 60), minutes / 60 % 24, minutes % 60);
    [(d, "day"), (h, "hour"), (m, "minute")]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, w)| plural(n, w))
        .collect::<Vec<_>>()
        .join(" ")
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

/// At most this many days of vacation in any [`VACATION_WINDOW`].
pub const VACATION_DAYS: u32 = 14;
/// The rolling window over which vacation days are counted: 365 days.
pub const VACATION_WINDOW: i64 = 365 * DAY;

/// Vacation still available, in words ("none", "1 day", "4 days").
pub(crate) fn vacation_left(days: u32) -> String {
    match days {
        0 => "none".into(),
        d => plural(i64::from(d), "day"),
    }
}

/// "1 hour", "24 hours": a count and a noun that takes an s.
pub(crate) fn plural(n: i64, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// The part of the allowance a vacation from `start` to `end` uses, as the span it is counted
/// over: from its start, every day begun counts whole (a vacation ended early gives back the
/// whole days it did not begin).
pub(crate) fn vacation_charge(start: i64, end: i64) -> (i64, i64) {
    let days = (end - start).max(0).div_euclid(DAY) + i64::from((end - start).rem_euclid(DAY) > 0);
    (start, start + days * DAY)
}

/// Vacation time (ms) that the vacations `taken` (start, end) count in `[from, to)`.
fn vacation_in(taken: &[(i64, i64)], from: i64, to: i64) -> i64 {
    taken
        .iter()
        .map(|&(s, e)| {
            let (s, e) = vacation_charge(s, e);
            (e.min(to) - s.max(from)).max(0)
        })
        .sum()
}

/// The most whole days of vacation that can start at `now`, given the vacations already taken
/// (start, end): with it, no 365 days may hold more than [`VACATION_DAYS`] days of vacation.
///
/// Checking the 365 days that end with the new vacation is enough: a window ending earlier
/// loses at least as much of the new vacation as it gains of the old ones, and windows ending
/// later hold less of both.
pub(crate) fn vacation_days_available(taken: &[(i64, i64)], now: i64) -> u32 {
    (0..=VACATION_DAYS)
        .rev()
        .find(|&d| {
            let end = now + i64::from(d) * DAY;
            vacation_in(taken, end - VACATION_WINDOW, end) + i64::from(d) * DAY
                <= i64::from(VACATION_DAYS) * DAY
        })
        .unwrap_or(0)
}

/// A time control: days per move, or no clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeControl {
    NoClock,
    /// One of [`DAYS_CHOICES`].
    DaysPerMove(u32),
}

impl TimeControl {
    /// Every time control on offer, no clock first.
    pub const ALL: [TimeControl; 7] = [
        TimeControl::NoClock,
        TimeControl::DaysPerMove(1),
        TimeControl::DaysPerMove(2),
        TimeControl::DaysPerMove(3),
        TimeControl::DaysPerMove(5),
        TimeControl::DaysPerMove(7),
        TimeControl::DaysPerMove(14),
    ];

    /// Days per move, `None` for no clock (as stored).
    pub fn days(self) -> Option<u32> {
        match self {
            TimeControl::NoClock => None,
            TimeControl::DaysPerMove(d) => Some(d),
        }
    }

    /// From stored days per move.
    pub fn from_days(days: Option<u32>) -> TimeControl {
        days.map_or(TimeControl::NoClock, TimeControl::DaysPerMove)
    }
}

impl std::fmt::Display for TimeControl {
    /// "no clock", "1 day per move", "3 days per move".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TimeControl::NoClock => f.write_str("no clock"),
            TimeControl::DaysPerMove(d) => {
                write!(f, "{d} day{} per move", if *d == 1 { "" } else { "s" })
            }
        }
    }
}

impl std::str::FromStr for TimeControl {
    type Err = String;
    /// `none` (or `off`, `0`, empty) or one of [`DAYS_CHOICES`], with or without "days".
    fn from_str(s: &str) -> Result<TimeControl, String> {
        let t = s.trim().to_ascii_lowercase();
        let t = t.trim_end_matches("days").trim_end_matches("day").trim();
        if t.is_empty() || t == "none" || t == "0" || t == "off" || t == "no clock" {
            return Ok(TimeControl::NoClock);
        }
        match t.parse::<u32>() {
            Ok(d) if DAYS_CHOICES.contains(&d) => Ok(TimeControl::DaysPerMove(d)),
            _ => Err(format!(
                "'{s}' is not a time control: choose none or 1, 2, 3, 5, 7 or 14 days per move"
            )),
        }
    }
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
        assert_eq!(plural(1, "hour"), "1 hour");
        assert_eq!(plural(24, "hour"), "24 hours");
        assert_eq!(vacation_left(0), "none");
        assert_eq!(vacation_left(1), "1 day");
        assert_eq!(vacation_left(4), "4 days");
    }

    #[test]
    fn time_left_is_rounded_to_the_nearest_minute_never_past_the_deadline() {
        // A turn message at the start of a 3-day turn, and /status a second later.
        assert_eq!(left_text(3 * DAY), "3 days");
        assert_eq!(left_text(3 * DAY - 1_000), "3 days");
        assert_eq!(left_text(3 * DAY - 40_000), "2 days 23 hours 59 minutes");
        // The last call of a one-day turn, due with 4.8 hours left, sent a moment late.
        assert_eq!(left_text(4 * HOUR + 48 * MINUTE), "4 hours 48 minutes");
        assert_eq!(left_text(4 * HOUR + 48 * MINUTE - 2), "4 hours 48 minutes");
        assert_eq!(
            left_text(4 * HOUR + 47 * MINUTE + 29_999),
            "4 hours 47 minutes"
        );
        assert_eq!(left_text(DAY + 5 * MINUTE), "1 day 5 minutes");
        assert_eq!(left_text(90_000), "2 minutes");
        assert_eq!(left_text(MINUTE), "1 minute");
        assert_eq!(left_text(59_999), "less than a minute");
        assert_eq!(left_text(0), "no time");
        assert_eq!(left_text(-5), "no time");
    }

    #[test]
    fn vacation_is_counted_over_any_365_days() {
        let t = 1_795_996_800_000; // 2026-11-30
        assert_eq!(vacation_days_available(&[], t), 14);
        // 10 days taken 20 days ago: 4 left now. Later, no 365 days may hold more than 14 of
        // old and new together: 5 days from t + 340 would put 15 in the 365 days ending with
        // them; from t + 341 the 365 days ending with a 14-day vacation begin when the old
        // one ended.
        let taken = [(t - 20 * DAY, t - 10 * DAY)];
        assert_eq!(vacation_days_available(&taken, t), 4);
        assert_eq!(vacation_days_available(&taken, t + 340 * DAY), 4);
        assert_eq!(vacation_days_available(&taken, t + 341 * DAY), 14);
        // Late December then early January: the calendar year does not reset the allowance.
        let dec = t + 17 * DAY;
        let taken = [(dec, dec + 14 * DAY)];
        assert_eq!(date_text(dec), "2026-12-17 00:00 UTC");
        assert_eq!(date_text(dec + 16 * DAY), "2027-01-02 00:00 UTC");
        assert_eq!(vacation_days_available(&taken, dec + 16 * DAY), 0);
        assert_eq!(vacation_days_available(&taken, dec + 364 * DAY), 0);
        assert_eq!(vacation_days_available(&taken, dec + 365 * DAY), 14);
        // Ended early after 2 days 3 hours: 3 days are used, 11 come back.
        let taken = [(t, t + 2 * DAY + 3 * HOUR)];
        assert_eq!(vacation_charge(t, t + 2 * DAY + 3 * HOUR), (t, t + 3 * DAY));
        assert_eq!(vacation_charge(t, t), (t, t));
        assert_eq!(vacation_days_available(&taken, t + 2 * DAY + 3 * HOUR), 11);
    }

    #[test]
    fn time_controls_parse() {
        let parse = |s: &str| s.parse::<TimeControl>().map(TimeControl::days);
        assert_eq!(parse("3"), Ok(Some(3)));
        assert_eq!(parse("14 days"), Ok(Some(14)));
        assert_eq!(parse("none"), Ok(None));
        assert!(parse("4").is_err());
        assert!(parse("soon").is_err());
        assert_eq!(TimeControl::DaysPerMove(1).to_string(), "1 day per move");
        assert_eq!(TimeControl::from_days(Some(7)), TimeControl::DaysPerMove(7));
    }
}
