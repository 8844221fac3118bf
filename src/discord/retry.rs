//! Requests tried again: network trouble, server errors and rate limits are retried a few
//! times with a pause that grows (or Discord's own `retry_after`); what Discord said, in words.

use super::redact::redact;
use super::rest;
use super::rest::Failure;
use std::time::Duration;

/// How long one HTTP request may take before it is abandoned and retried.
pub(super) const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// The error of a request abandoned after [`REQUEST_TIMEOUT`].
pub(super) const TIMED_OUT: &str = "Discord did not answer in time";
/// How many times a request is tried before it counts as failed.
pub(super) const ATTEMPTS: u32 = 4;

/// An error in words, for logs and the outbox: without the interaction token that a failed
/// request's URL carries.
pub(super) fn said(e: &Failure) -> String {
    redact(&e.to_string(), &[])
}

/// The Discord error code of a refused request.
pub(super) fn discord_code(e: &Failure) -> Option<isize> {
    e.code()
}

/// Whether a refusal is for good: the channel or user no longer exists.
pub(super) fn gone(e: &Failure) -> bool {
    // An unknown channel or user, or a user who takes no direct messages from the bot (a
    // message that may go only to them: one with a channel to fall back on never gets here),
    // or a place that is none on Discord.
    matches!(e, Failure::Nowhere(_)) || matches!(discord_code(e), Some(10003 | 10013 | 50007))
}

/// Runs an HTTP call up to [`ATTEMPTS`] times: network trouble, server errors and rate limits
/// are retried after a growing, jittered pause (a rate limit after the `retry_after` Discord
/// gave, plus up to a tenth more); Discord refusing the request is reported at once. The
/// adapter's own requests ([`rest`]) also wait out every rate limit known for their route
/// before they are sent, so a retry never comes early.
pub(super) async fn retry<T, E, F, Fut>(what: &str, mut f: F) -> Result<T, Failure>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, E>>,
    E: Into<Failure>,
{
    let mut attempt = 1;
    loop {
        // A request Discord does not answer in time counts as failed (serenity sets no timeout).
        let answer = match tokio::time::timeout(REQUEST_TIMEOUT, f()).await {
            Ok(a) => a.map_err(Into::into),
            Err(_) => Err(Failure::Unanswered(TIMED_OUT.into())),
        };
        match answer {
            Ok(v) => return Ok(v),
            Err(e) if attempt < ATTEMPTS && e.retriable() => {
                let pause = retry_pause(attempt, e.retry_after());
                tracing::warn!(error = %said(&e), attempt, ms = pause.as_millis() as u64, "{what} failed; retrying");
                tokio::time::sleep(pause).await;
                attempt += 1;
            }
            Err(e) if e.code() == Some(CANNOT_DM) => {
                // Not a failure of ours: the user's privacy settings refuse the bot's direct
                // messages; whatever has a channel to fall back on goes there.
                tracing::warn!(
                    error = %said(&e),
                    "{what}: the user takes no direct messages from the bot (their privacy settings, Discord code 50007)"
                );
                return Err(e);
            }
            Err(e) => {
                tracing::error!(error = %said(&e), "{what} failed");
                return Err(e);
            }
        }
    }
}

/// Discord's code for a direct message the user's settings refuse.
pub(super) const CANNOT_DM: isize = 50007;

/// The pause before try `attempt + 1`: 250 ms, 750 ms, 2.25 s… plus up to half again at
/// random; after a rate limit, the wait Discord asked for plus up to a tenth more (and never
/// less than the growing pause would be).
pub(super) fn retry_pause(attempt: u32, retry_after: Option<Duration>) -> Duration {
    let growing = Duration::from_millis(250) * 3u32.pow(attempt.saturating_sub(1).min(6));
    match retry_after {
        Some(wait) => rest::jittered(wait.max(growing / 2), 0.1),
        None => rest::jittered(growing, 0.5),
    }
}
