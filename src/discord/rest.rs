//! The REST requests that carry what the bot says (interaction responses, follow-ups, channel
//! messages, their edits, threads), sent here rather than through serenity's calls so that a
//! refusal keeps what Discord said with it: the error code, and for a rate limit (429) how long
//! to wait (`retry_after` in the body, else the `Retry-After` header). serenity's own error
//! drops both, and with its rate limiter off (behind `DISCORD_PROXY_URL`) nothing would wait.
//!
//! Every request first waits out any rate limit still running for its route or for the whole
//! bot (a global 429), and a route whose quota a response says is spent
//! (`X-RateLimit-Remaining: 0`) waits for its reset; a wait longer than [`LONGEST_WAIT`] fails
//! the request without sending it. Discord bans a bot that sends 10,000 refused requests in
//! 10 minutes.

use serde_json::Value;
use serenity::all::Http;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The longest rate-limit wait one request sits out; a longer one fails it now (an owed message
/// is then tried again later from the outbox).
pub(super) const LONGEST_WAIT: Duration = Duration::from_secs(30);

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
    /// A request made through serenity (boxed: its error is large).
    Serenity(Box<serenity::Error>),
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
            Failure::Unanswered(e) => f.write_str(e),
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
            Failure::Unanswered(_) => None,
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
            Failure::Unanswered(_) => true,
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
    routes: HashMap<String, Instant>,
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
    let wait = {
        let l = limits();
        let until = l
            .global
            .into_iter()
            .chain(l.routes.get(&key).copied())
            .max();
        until.map(|u| u.saturating_duration_since(Instant::now()))
    };
    if let Some(wait) = wait.filter(|w| !w.is_zero()) {
        if wait > LONGEST_WAIT {
            return Err(Failure::Refused {
                status: 429,
                code: 0,
                message: "rate limited by Discord; not sent".into(),
                retry_after: Some(wait),
            });
        }
        tracing::debug!(route = %super::redact::redact(&key, &[]), ms = wait.as_millis() as u64, "waiting out a rate limit");
        tokio::time::sleep(wait).await;
    }
    let base = http
        .proxy
        .as_deref()
        .unwrap_or("https://discord.com")
        .trim_end_matches('/');
    let mut req = client()
        .request(method, format!("{base}/api/v10{path}"))
        .header(reqwest::header::AUTHORIZATION, http.token())
        .header(reqwest::header::USER_AGENT, serenity::constants::USER_AGENT);
    req = match body {
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
    };
    let response = req
        .send()
        .await
        .map_err(|e| Failure::Unanswered(super::redact::error_chain(&e)))?;
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
    if header("x-ratelimit-remaining").as_deref() == Some("0") {
        if let Some(reset) = seconds("x-ratelimit-reset-after") {
            limits().routes.insert(key.clone(), now + reset);
        }
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
            l.routes.insert(key, now + wait);
        }
    }
    Err(Failure::Refused {
        status,
        code: field("code")
            .and_then(Value::as_i64)
            .and_then(|c| isize::try_from(c).ok())
            .unwrap_or(0),
        message: field("message")
            .and_then(Value::as_str)
            .map_or_else(|| text.chars().take(200).collect(), str::to_string),
        retry_after,
    })
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
