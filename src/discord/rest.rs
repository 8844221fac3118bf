//! The REST requests that carry what the bot says (interaction responses, follow-ups, channel
//! messages, their edits, threads), sent here rather than through serenity's calls so that a
//! refusal keeps what Discord said with it: the error code, and for a rate limit (429) how long
//! to wait (`retry_after` in the body, else the `Retry-After` header). serenity's own error
//! drops both, and with its rate limiter off (behind `DISCORD_PROXY_URL`) nothing would wait.
//!
//! Every request first waits out any rate limit still running for its route or for the whole
//! bot (a global 429), and a route whose quota is spent (the `X-RateLimit-Remaining` and
//! `-Reset-After` of its latest answer, counted down by each request sent since) waits for its
//! reset; a wait longer than [`LONGEST_WAIT`] fails the request without sending it. Requests
//! other than interaction responses and follow-ups (which Discord does not count against the
//! global limit) then take the next slot of the process's own pace, at most
//! [`budget`] a second (`discord_requests_per_second`, 40 unless configured; Discord allows
//! 50 a second in all). Discord bans a bot that sends 10,000 refused requests (401, 403, 429)
//! in 10 minutes: they are counted ([`invalid_requests`]), and past 1,000 in 10 minutes a
//! warning names the route and the code that most of them had.

use serde_json::Value;
use serenity::all::Http;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The most threads opened a second in one channel (Discord limits thread creation per server
/// beyond its documented limits; a 429 for it says how long to wait, and is waited out).
const THREADS_PER_SECOND: u32 = 5;
/// How many invalid requests in 10 minutes make the bot warn (Discord bans at 10,000).
const INVALID_WARNING: usize = 1000;
/// The window Discord counts invalid requests in.
const INVALID_WINDOW: Duration = Duration::from_secs(600);

static BUDGET: AtomicU32 = AtomicU32::new(crate::config::DEFAULT_DISCORD_RPS);

/// Sets how many requests a second this process sends at most, interactions aside (at least 1).
pub fn set_budget(per_second: u32) {
    BUDGET.store(per_second.max(1), Ordering::Relaxed);
}

/// How many requests a second this process sends at most, interactions aside.
pub fn budget() -> u32 {
    BUDGET.load(Ordering::Relaxed)
}

/// The longest rate-limit wait one request sits out; a longer one fails it now (an owed message
/// is then tried again later from the outbox).
pub(super) const LONGEST_WAIT: Duration = Duration::from_secs(30);

/// How soon a message that waits on our side is tried again (a link to a thread being opened).
pub(super) const NOT_YET: Duration = Duration::from_secs(10);

/// Why a request failed.
#[derive(Debug)]
pub(super) enum Failure {
    /// Discord answered with an error status.
    Refused {
        status: u16,
        /// Discord's JSON error code (0 when the body has none).
        code: isize,
        message: String,
        /// How long Discord asked us to wait before trying again (a 429).
        retry_after: Option<Duration>,
    },
    /// No answer: network trouble, or none in time.
    Unanswered(String),
    /// Not sent yet, on our side: it links to a thread that is not open yet. Tried again
    /// soon ([`NOT_YET`]), without a request to Discord.
    NotYet(String),
    /// A request made through serenity (boxed: its error is large).
    Serenity(Box<serenity::Error>),
    /// Never sendable, on our side: it names no place on Discord (a stored channel that is
    /// neither a Discord id nor a thread key). Given up, not tried again.
    Nowhere(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Refused {
                status,
                code,
                message,
                retry_after,
            } => {
                write!(f, "Discord answered {status}")?;
                if *code != 0 {
                    write!(f, " (code {code})")?;
                }
                if !message.is_empty() {
                    write!(f, ": {message}")?;
                }
                if let Some(d) = retry_after {
                    write!(f, " (retry after {:.2} s)", d.as_secs_f64())?;
                }
                Ok(())
            }
            Failure::Unanswered(e) | Failure::NotYet(e) | Failure::Nowhere(e) => f.write_str(e),
            Failure::Serenity(e) => write!(f, "{e}"),
        }
    }
}

impl From<serenity::Error> for Failure {
    fn from(e: serenity::Error) -> Failure {
        Failure::Serenity(Box::new(e))
    }
}

impl Failure {
    /// The Discord error code of a refused request.
    pub(super) fn code(&self) -> Option<isize> {
        match self {
            Failure::Refused { code, .. } => Some(*code),
            Failure::Serenity(e) => match e.as_ref() {
                serenity::Error::Http(serenity::http::HttpError::UnsuccessfulRequest(r)) => {
                    Some(r.error.code)
                }
                _ => None,
            },
            Failure::Unanswered(_) | Failure::NotYet(_) | Failure::Nowhere(_) => None,
        }
    }

    /// When an owed message that failed so should be tried again, if not after the usual
    /// backoff: after a rate limit's own wait (Discord's `retry_after`: a thread-creation limit
    /// may ask for a minute), or soon for one that waits on our side ([`Failure::NotYet`]).
    pub(super) fn retry_in(&self) -> Option<Duration> {
        match self {
            Failure::NotYet(_) => Some(NOT_YET),
            _ => self.retry_after(),
        }
    }

    /// How long Discord asked to wait, for a rate limit.
    pub(super) fn retry_after(&self) -> Option<Duration> {
        match self {
            Failure::Refused { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// Network trouble, server errors and rate limits (short enough to wait for) are worth
    /// another try; Discord refusing the request is not.
    pub(super) fn retriable(&self) -> bool {
        match self {
            Failure::Refused {
                status,
                retry_after,
                ..
            } => {
                *status >= 500 || (*status == 429 && retry_after.is_none_or(|d| d <= LONGEST_WAIT))
            }
            Failure::Unanswered(_) | Failure::NotYet(_) => true,
            Failure::Nowhere(_) => false,
            Failure::Serenity(e) => match e.as_ref() {
                serenity::Error::Http(h) => match h {
                    serenity::http::HttpError::UnsuccessfulRequest(r) => {
                        r.status_code.is_server_error() || r.status_code.as_u16() == 429
                    }
                    _ => true,
                },
                _ => false,
            },
        }
    }
}

/// Until when requests wait: all of them (a global rate limit), and each route.
#[derive(Default)]
struct Limits {
    global: Option<Instant>,
    routes: HashMap<String, Bucket>,
    /// When the process's next paced request may go.
    next_slot: Option<Instant>,
    /// When the next thread may be opened in each parent channel.
    next_thread: HashMap<String, Instant>,
    /// The invalid requests of the last 10 minutes: when, route, status and code.
    invalid: VecDeque<(Instant, String, u16, isize)>,
    /// When the last warning about invalid requests was logged.
    warned: Option<Instant>,
}

/// A route's bucket as its latest answer left it.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    /// Requests left until `reset`; `None`: unknown (a 429 said to wait until `reset`).
    remaining: Option<u32>,
    reset: Instant,
    /// The route's first request is out, its answer not in yet.
    probe: bool,
}

/// How often requests waiting for the answer to their route's first request look again.
const PROBE_RECHECK: Duration = Duration::from_millis(10);
/// The longest a route's first request holds the others back.
const PROBE_LONGEST: Duration = Duration::from_secs(2);

/// Lets a route's other requests go when its first request ends without telling its bucket
/// (no answer, or an answer without rate-limit headers).
struct ProbeGuard(String);

impl Drop for ProbeGuard {
    fn drop(&mut self) {
        limits().probe_done(&self.0);
    }
}

impl Limits {
    /// Takes a place for a request on `key` now, or says how long to wait first.
    fn take(&mut self, key: &str, now: Instant) -> Option<Duration> {
        let mut until = self.global.filter(|g| *g > now);
        if self.routes.get(key).is_some_and(|b| b.reset <= now) {
            self.routes.remove(key);
        }
        match self.routes.get_mut(key) {
            // The first request of a route is out: the others wait for its answer, which
            // tells the route's bucket.
            Some(b) if b.probe => until = until.max(Some(now + PROBE_RECHECK)),
            Some(b) => match b.remaining {
                Some(0) | None => until = until.max(Some(b.reset)),
                Some(n) if until.is_none() => b.remaining = Some(n - 1),
                Some(_) => {}
            },
            None if until.is_none() => {
                self.routes.insert(
                    key.to_string(),
                    Bucket {
                        remaining: Some(0),
                        reset: now + PROBE_LONGEST,
                        probe: true,
                    },
                );
            }
            None => {}
        }
        until.map(|u| u - now)
    }

    /// An answer on `key` told its bucket: `remaining` requests left until `reset`. Within a
    /// window this process already counts, the lower count holds: the answer does not know
    /// of the requests taken since it was sent (still on their way), and trusting it alone
    /// would send those twice over the limit.
    fn told(&mut self, key: &str, remaining: u32, reset: Instant, now: Instant) {
        let bucket = match self.routes.get(key) {
            Some(b) if !b.probe && b.reset > now => Bucket {
                remaining: Some(b.remaining.unwrap_or(0).min(remaining)),
                reset: b.reset.max(reset),
                probe: false,
            },
            _ => Bucket {
                remaining: Some(remaining),
                reset,
                probe: false,
            },
        };
        self.routes.insert(key.to_string(), bucket);
    }

    /// The answer to a route's first request came without its bucket: the others go.
    fn probe_done(&mut self, key: &str) {
        if self.routes.get(key).is_some_and(|b| b.probe) {
            self.routes.remove(key);
        }
    }

    /// Takes the next slot of the process's pace: when the request may go.
    fn slot(&mut self, now: Instant) -> Instant {
        let spacing = Duration::from_secs(1) / budget();
        let slot = self.next_slot.map_or(now, |n| n.max(now));
        self.next_slot = Some(slot + spacing);
        slot
    }

    /// Takes the next slot for opening a thread under `key` (a parent channel's thread route):
    /// at most [`THREADS_PER_SECOND`] a second in one channel.
    fn thread_slot(&mut self, key: &str, now: Instant) -> Instant {
        let spacing = Duration::from_secs(1) / THREADS_PER_SECOND;
        let next = self.next_thread.entry(key.to_string()).or_insert(now);
        let slot = (*next).max(now);
        *next = slot + spacing;
        slot
    }

    /// Counts an invalid request; the warning to log, when there are too many.
    fn invalid(&mut self, key: &str, status: u16, code: isize, now: Instant) -> Option<String> {
        while self
            .invalid
            .front()
            .is_some_and(|(t, ..)| now.duration_since(*t) >= INVALID_WINDOW)
        {
            self.invalid.pop_front();
        }
        self.invalid.push_back((now, key.to_string(), status, code));
        let n = self.invalid.len();
        let recently = self
            .warned
            .is_some_and(|w| now.duration_since(w) < INVALID_WINDOW);
        if n <= INVALID_WARNING || recently {
            return None;
        }
        self.warned = Some(now);
        let mut causes: HashMap<(&str, u16, isize), usize> = HashMap::new();
        for (_, route, status, code) in &self.invalid {
            *causes.entry((route.as_str(), *status, *code)).or_default() += 1;
        }
        let ((route, status, code), count) = causes.into_iter().max_by_key(|(_, c)| *c)?;
        Some(format!(
            "{n} requests refused by Discord in 10 minutes (it stops a bot at 10,000): {count} \
             of them {status} (code {code}) on {route}"
        ))
    }
}

/// The invalid requests (401, 403, 429 but a shared one) this process met in the last
/// 10 minutes.
pub fn invalid_requests() -> usize {
    let now = Instant::now();
    limits()
        .invalid
        .iter()
        .filter(|(t, ..)| now.duration_since(*t) < INVALID_WINDOW)
        .count()
}

fn limits() -> std::sync::MutexGuard<'static, Limits> {
    static LIMITS: OnceLock<Mutex<Limits>> = OnceLock::new();
    LIMITS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(reqwest::Client::new)
}

/// The route a request's rate limit belongs to: its method and path, with a message id
/// replaced (Discord counts a channel's message edits together).
fn route_key(method: &reqwest::Method, path: &str) -> String {
    let path = path.split('?').next().unwrap_or(path);
    let parts: Vec<&str> = path.split('/').collect();
    let key: Vec<&str> = parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if i >= 1 && parts[i - 1] == "messages" {
                "{id}"
            } else {
                p
            }
        })
        .collect();
    format!("{method} {}", key.join("/"))
}

/// A JSON body, and files sent with it (as `files[i]`, described in its `attachments`).
pub(super) struct Body<'a> {
    pub json: Value,
    pub files: &'a [(String, Vec<u8>)],
}

impl Body<'_> {
    /// Describes the files in `attachments` of the object at `at` (`""`: the body itself;
    /// `"/data"` for an interaction response).
    pub(super) fn attach_at(mut self, at: &str) -> Self {
        if !self.files.is_empty() {
            if let Some(Value::Object(o)) = self.json.pointer_mut(at) {
                let list = self
                    .files
                    .iter()
                    .enumerate()
                    .map(|(i, (name, _))| serde_json::json!({"id": i, "filename": name}))
                    .collect();
                o.insert("attachments".into(), Value::Array(list));
            }
        }
        self
    }
}

fn mime(filename: &str) -> &'static str {
    match filename.rsplit('.').next() {
        Some("png") => "image/png",
        Some("gif") => "image/gif",
        Some("txt" | "trf" | "pgn") => "text/plain",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

/// Sends one request (`path` under `/api/v10`) and returns the JSON answer (`None` for an empty
/// one), after waiting out the rate limits known for it.
pub(super) async fn request(
    http: &Http,
    method: reqwest::Method,
    path: &str,
    body: Option<Body<'_>>,
) -> Result<Option<Value>, Failure> {
    let key = route_key(&method, path);
    wait_out_limits(&key).await?;
    let _probe = ProbeGuard(key.clone());
    take_slots(&key, &method, path).await;
    let response = prepared(http, method, path, body)?
        .send()
        .await
        .map_err(|e| Failure::Unanswered(super::redact::error_chain(&e)))?;
    answered(&key, response).await
}

/// Waits out any rate limit still running for route `key` or for the whole bot; a 429 when
/// that would take longer than [`LONGEST_WAIT`].
async fn wait_out_limits(key: &str) -> Result<(), Failure> {
    let started = Instant::now();
    loop {
        let wait = limits().take(key, Instant::now());
        let Some(wait) = wait else { return Ok(()) };
        if started.elapsed() + wait > LONGEST_WAIT {
            return Err(Failure::Refused {
                status: 429,
                code: 0,
                message: "rate limited by Discord; not sent".into(),
                retry_after: Some(wait),
            });
        }
        tracing::debug!(route = %super::redact::redact(key, &[]), ms = wait.as_millis() as u64, "waiting out a rate limit");
        tokio::time::sleep(wait).await;
    }
}

/// Waits for the next thread-opening slot of the channel (a new thread) and the next slot of
/// the process's pace. Interaction responses and follow-ups are not counted against the global
/// limit: they are never held back behind the process's other traffic.
async fn take_slots(key: &str, method: &reqwest::Method, path: &str) {
    if *method == reqwest::Method::POST && path.ends_with("/threads") {
        let slot = limits().thread_slot(key, Instant::now());
        tokio::time::sleep_until(slot.into()).await;
    }
    if !exempt(path) {
        let slot = limits().slot(Instant::now());
        tokio::time::sleep_until(slot.into()).await;
    }
}

/// The HTTP request: to Discord (or the proxy), with the bot's token, its JSON body, and its
/// files as a multipart form when it has any.
fn prepared(
    http: &Http,
    method: reqwest::Method,
    path: &str,
    body: Option<Body<'_>>,
) -> Result<reqwest::RequestBuilder, Failure> {
    let base = http
        .proxy
        .as_deref()
        .unwrap_or("https://discord.com")
        .trim_end_matches('/');
    let req = client()
        .request(method, format!("{base}/api/v10{path}"))
        .header(reqwest::header::AUTHORIZATION, http.token())
        .header(reqwest::header::USER_AGENT, serenity::constants::USER_AGENT);
    Ok(match body {
        None => req,
        Some(b) if b.files.is_empty() => req
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(b.json.to_string()),
        Some(b) => {
            let mut form = reqwest::multipart::Form::new();
            for (i, (name, bytes)) in b.files.iter().enumerate() {
                let part = reqwest::multipart::Part::bytes(bytes.clone())
                    .file_name(name.clone())
                    .mime_str(mime(name))
                    .map_err(|e| Failure::Unanswered(e.to_string()))?;
                form = form.part(format!("files[{i}]"), part);
            }
            req.multipart(form.text("payload_json", b.json.to_string()))
        }
    })
}

/// Discord's answer on route `key`: its JSON when it succeeded, else what it refused and why.
/// The route's bucket learns what the answer's rate-limit headers say, a 429 holds back the
/// route (or, a global one, every request) for its `retry_after`, and an invalid request is
/// counted.
async fn answered(key: &str, response: reqwest::Response) -> Result<Option<Value>, Failure> {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let seconds = |name: &str| {
        header(name)
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(Duration::from_secs_f64)
    };
    let text = response
        .text()
        .await
        .map_err(|e| Failure::Unanswered(super::redact::error_chain(&e)))?;
    let json: Option<Value> = serde_json::from_str(&text).ok();
    let now = Instant::now();
    let remaining = header("x-ratelimit-remaining").and_then(|r| r.trim().parse::<u32>().ok());
    if let (Some(remaining), Some(reset)) = (remaining, seconds("x-ratelimit-reset-after")) {
        limits().told(key, remaining, now + reset, now);
    }
    if (200..300).contains(&status) {
        return Ok(json);
    }
    let field = |name: &str| json.as_ref().and_then(|j| j.get(name));
    let retry_after = (status == 429)
        .then(|| {
            field("retry_after")
                .and_then(Value::as_f64)
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(Duration::from_secs_f64)
                .or_else(|| seconds("retry-after"))
        })
        .flatten();
    if let Some(wait) = retry_after {
        let global = field("global").and_then(Value::as_bool).unwrap_or(false)
            || header("x-ratelimit-global").is_some();
        let mut l = limits();
        if global {
            l.global = Some(now + wait);
        } else {
            l.routes.insert(
                key.to_string(),
                Bucket {
                    remaining: None,
                    reset: now + wait,
                    probe: false,
                },
            );
        }
    }
    let code = field("code")
        .and_then(Value::as_i64)
        .and_then(|c| isize::try_from(c).ok())
        .unwrap_or(0);
    // Discord does not count a 429 of a limit shared with others (a thread-creation limit).
    let shared = header("x-ratelimit-scope").as_deref() == Some("shared");
    if matches!(status, 401 | 403) || (status == 429 && !shared) {
        let route = super::redact::redact(key, &[]);
        let warning = limits().invalid(&route, status, code, now);
        tracing::debug!(%route, status, code, "Discord refused a request");
        if let Some(w) = warning {
            tracing::warn!("{w}");
        }
    }
    Err(Failure::Refused {
        status,
        code,
        message: field("message")
            .and_then(Value::as_str)
            .map_or_else(|| text.chars().take(200).collect(), str::to_string),
        retry_after,
    })
}

/// Whether a request is an interaction's response or follow-up (or their edits), which
/// Discord does not count against the global limit.
fn exempt(path: &str) -> bool {
    path.starts_with("/interactions/") || path.starts_with("/webhooks/")
}

/// The id in a JSON object Discord answered with (a message, a channel).
pub(super) fn id_of(answer: Option<&Value>) -> Result<u64, Failure> {
    answer
        .and_then(|a| a.get("id"))
        .and_then(Value::as_str)
        .and_then(|s| s.parse::<u64>().ok())
        .filter(|&id| id != 0)
        .ok_or_else(|| Failure::Unanswered("Discord's answer carried no id".into()))
}

/// `d` lengthened by a random part of up to `spread` of it, so that many waiters do not all
/// come back at once.
pub(super) fn jittered(d: Duration, spread: f64) -> Duration {
    d.mul_f64(1.0 + spread * random())
}

/// A random number in 0..1 (for jitter; not for secrets).
pub(super) fn random() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::UNIX_EPOCH
            .elapsed()
            .unwrap_or_default()
            .as_nanos(),
    );
    (h.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_edits_of_a_channel_share_a_route_and_interactions_keep_theirs() {
        let patch = reqwest::Method::PATCH;
        assert_eq!(
            route_key(&patch, "/channels/5/messages/77"),
            route_key(&patch, "/channels/5/messages/78")
        );
        assert_ne!(
            route_key(&patch, "/channels/5/messages/77"),
            route_key(&patch, "/channels/6/messages/77")
        );
        assert_eq!(
            route_key(&reqwest::Method::POST, "/interactions/9/tok/callback"),
            "POST /interactions/9/tok/callback"
        );
        assert!(route_key(&patch, "/webhooks/1/tok/messages/@original").ends_with("{id}"));
    }

    #[test]
    fn a_spent_bucket_waits_for_its_reset_and_a_known_one_counts_down() {
        let now = Instant::now();
        let mut l = Limits::default();
        assert_eq!(l.take("POST /channels/5/messages", now), None);
        // Until its answer tells the bucket, the route's next request waits.
        assert_eq!(
            l.take("POST /channels/5/messages", now),
            Some(PROBE_RECHECK)
        );
        l.routes.insert(
            "POST /channels/5/messages".into(),
            Bucket {
                remaining: Some(2),
                reset: now + Duration::from_secs(3),
                probe: false,
            },
        );
        assert_eq!(l.take("POST /channels/5/messages", now), None);
        assert_eq!(l.take("POST /channels/5/messages", now), None);
        assert_eq!(
            l.take("POST /channels/5/messages", now),
            Some(Duration::from_secs(3))
        );
        // Another channel's bucket is its own; after the reset the route goes again.
        assert_eq!(l.take("POST /channels/6/messages", now), None);
        let later = now + Duration::from_secs(3);
        assert_eq!(l.take("POST /channels/5/messages", later), None);
        // A global limit holds every route.
        l.global = Some(later + Duration::from_millis(500));
        assert_eq!(
            l.take("POST /channels/6/messages", later),
            Some(Duration::from_millis(500))
        );
    }

    #[test]
    fn an_answer_does_not_give_back_places_taken_while_it_was_on_its_way() {
        let mut l = Limits::default();
        let now = Instant::now();
        let reset = now + Duration::from_secs(5);
        // A bucket of 5: the first answer says 4 are left; 4 requests go before the next.
        l.told("r", 4, reset, now);
        for _ in 0..4 {
            assert_eq!(l.take("r", now), None);
        }
        assert!(l.take("r", now).is_some(), "spent");
        // The answer to the second request (sent before the others) says 3 are left: still
        // none, until the window resets.
        l.told("r", 3, reset, now);
        assert_eq!(l.take("r", now), Some(Duration::from_secs(5)));
        // After it, an answer tells the new window as it is.
        let later = reset + Duration::from_millis(1);
        l.told("r", 4, later + Duration::from_secs(5), later);
        assert_eq!(l.take("r", later), None);
    }

    #[test]
    fn threads_are_opened_at_most_five_a_second_in_one_channel() {
        let now = Instant::now();
        let mut l = Limits::default();
        let a = "POST /channels/1/threads";
        assert_eq!(l.thread_slot(a, now), now);
        assert_eq!(l.thread_slot(a, now), now + Duration::from_millis(200));
        assert_eq!(l.thread_slot("POST /channels/2/threads", now), now);
    }

    #[test]
    fn the_pace_spaces_requests_by_the_budget() {
        let now = Instant::now();
        let mut l = Limits::default();
        let spacing = Duration::from_secs(1) / budget();
        assert_eq!(l.slot(now), now);
        assert_eq!(l.slot(now), now + spacing);
        assert_eq!(l.slot(now), now + spacing * 2);
        // After a quiet spell the next goes at once.
        let later = now + Duration::from_secs(5);
        assert_eq!(l.slot(later), later);
    }

    #[test]
    fn past_a_thousand_invalid_requests_in_ten_minutes_one_warning_names_the_cause() {
        let now = Instant::now();
        let mut l = Limits::default();
        for i in 0..INVALID_WARNING {
            let (route, code) = if i % 3 == 0 {
                ("GET /channels/1", 50001)
            } else {
                ("POST /channels/2/threads", 0)
            };
            assert_eq!(l.invalid(route, 429, code, now), None);
        }
        let w = l.invalid("POST /channels/2/threads", 429, 0, now).unwrap();
        assert!(w.starts_with("1001 requests refused"), "{w}");
        assert!(
            w.contains("667 of them 429 (code 0) on POST /channels/2/threads"),
            "{w}"
        );
        // Once in ten minutes.
        assert_eq!(l.invalid("GET /channels/1", 403, 50001, now), None);
        // Ten minutes on, the old ones are forgotten.
        let later = now + INVALID_WINDOW;
        assert_eq!(l.invalid("GET /channels/1", 403, 50001, later), None);
        assert_eq!(l.invalid.len(), 1);
    }

    #[test]
    fn a_jittered_wait_is_never_shorter_and_at_most_spread_longer() {
        let d = Duration::from_secs(1);
        for _ in 0..100 {
            let j = jittered(d, 0.2);
            assert!(j >= d && j <= Duration::from_millis(1200), "{j:?}");
        }
    }

    #[test]
    fn files_are_described_where_the_message_is() {
        let files = [("a.png".to_string(), vec![1u8]), ("b.txt".into(), vec![2])];
        let b = Body {
            json: serde_json::json!({"type": 4, "data": {"content": "x"}}),
            files: &files,
        }
        .attach_at("/data");
        assert_eq!(
            b.json["data"]["attachments"],
            serde_json::json!([{"id": 0, "filename": "a.png"}, {"id": 1, "filename": "b.txt"}])
        );
        let b = Body {
            json: serde_json::json!({"content": "x"}),
            files: &[],
        }
        .attach_at("");
        assert!(b.json.get("attachments").is_none());
    }
}
