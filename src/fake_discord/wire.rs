//! Discord's wire format as the fake answers it: a route's answer, Discord's JSON errors, and
//! ids read from JSON (a snowflake string, a number, or an object's `id`).

use axum::http::StatusCode;
use serde_json::{json, Value};
use std::time::{SystemTime, UNIX_EPOCH};

/// The first guild ([`super::FakeDiscord::GUILD_ID`]): where a channel the fake does not know is.
pub(super) const GUILD_ID: u64 = 1_100_000_000_000_000_100;

/// A route's answer: status, body, and the message it made or changed.
pub(super) type Answer = (StatusCode, Option<Value>, Option<Value>);

/// Discord's JSON error.
pub(super) fn discord_error(status: StatusCode, code: u64, message: &str) -> (StatusCode, Value) {
    (status, json!({"message": message, "code": code}))
}

/// The id in a snowflake string, a number, or an object's `id` (0 if none).
pub(super) fn id_of(v: &Value) -> u64 {
    match v {
        Value::String(s) => s.parse().unwrap_or(0),
        Value::Number(n) => n.as_u64().unwrap_or(0),
        Value::Object(o) => o.get("id").map(id_of).unwrap_or(0),
        _ => 0,
    }
}

/// The current time as Discord formats it, e.g. `2025-01-31T12:34:56.789000+00:00`.
pub(super) fn now_iso() -> String {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil-from-days (Howard Hinnant).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:06}+00:00",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_micros()
    )
}
