//! Discord's own limits, as the fake enforces them (on by default, [`Limits::default`]):
//!
//! - **Active threads**: a guild holds at most [`Limits::active_threads`] (Discord: 1,000)
//!   unarchived threads; creating one more, unarchiving one (`PATCH {archived: false}`) or
//!   posting in an archived one (which unarchives it, as Discord does) is answered 400, code
//!   160006. A thread is archived by `PATCH /channels/{id}` with `archived: true`, or by itself
//!   once it has had no message for its `auto_archive_duration` on the fake's clock
//!   ([`super::FakeDiscord::advance_clock`] moves that clock on). Editing a message in an
//!   archived thread is refused with 50083, and so is posting in an archived, locked one.
//! - **The global limit**: at most [`Limits::global_per_second`] requests (Discord: 50) in any
//!   second, interaction callbacks and follow-ups excepted (Discord exempts them too); one more
//!   gets a 429 with `"global": true`, `X-RateLimit-Global: true` and `X-RateLimit-Scope: global`.
//! - **Per-route buckets**, by route and major parameter (the channel, guild or webhook token),
//!   with Discord's headers on every answer (`X-RateLimit-Limit`, `-Remaining`, `-Reset`,
//!   `-Reset-After`, `-Bucket`); a request past a spent bucket gets a 429 (`X-RateLimit-Scope:
//!   user`) with the bucket's `retry_after`.
//! - **Thread creation per guild**: every `(count, window)` of [`Limits::thread_creation`]
//!   (e.g. 10 a second and 50 a minute); one more gets a 429 with `X-RateLimit-Scope: shared`
//!   (which, as on Discord, does not count as an invalid request).
//!
//! Every 401, 403 and 429 (but a shared one) is counted as an invalid request
//! ([`super::FakeDiscord::invalid_requests`]), as Discord counts them toward its ban at 10,000
//! in 10 minutes.

use super::wire::{discord_error, id_of, now_iso, Answer, GUILD_ID};
use axum::http::StatusCode;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// The limits the fake enforces.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Unarchived threads a guild may hold (Discord: 1,000).
    pub active_threads: usize,
    /// Requests in any one second, interactions excepted (Discord: 50).
    pub global_per_second: usize,
    /// Thread creations a guild allows: each `(count, window)` pair holds.
    pub thread_creation: Vec<(usize, Duration)>,
    /// `POST /channels/{c}/messages`, per channel.
    pub channel_messages: (usize, Duration),
    /// `PATCH` and `DELETE /channels/{c}/messages/{m}`, per channel.
    pub message_edits: (usize, Duration),
    /// Every other route but interactions, per route and major parameter.
    pub other_routes: (usize, Duration),
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            active_threads: 1000,
            global_per_second: 50,
            thread_creation: vec![(10, Duration::from_secs(1)), (50, Duration::from_secs(60))],
            channel_messages: (5, Duration::from_secs(5)),
            message_edits: (5, Duration::from_secs(5)),
            other_routes: (10, Duration::from_secs(1)),
        }
    }
}

impl Limits {
    /// No limits at all (for a test about something else that needs a burst).
    pub fn none() -> Limits {
        let lots = (usize::MAX, Duration::from_secs(1));
        Limits {
            active_threads: usize::MAX,
            global_per_second: usize::MAX,
            thread_creation: Vec::new(),
            channel_messages: lots,
            message_edits: lots,
            other_routes: lots,
        }
    }
}

/// A request refused for a limit.
#[derive(Clone, Debug)]
pub struct Refusal {
    pub at: Instant,
    pub method: String,
    pub path: String,
    pub status: u16,
    /// Discord's error code (0 for a 429).
    pub code: u64,
    /// For a 429: "global", "user" or "shared".
    pub scope: Option<&'static str>,
}

/// What the limits keep between requests.
#[derive(Default)]
pub(super) struct LimitState {
    pub limits: Limits,
    /// How far the fake's clock is ahead of the real one.
    pub skew: Duration,
    /// When each request counted against the global limit arrived (the last second's).
    global: VecDeque<Instant>,
    /// Route buckets: key -> (requests left, when it refills).
    buckets: HashMap<String, (usize, Instant)>,
    /// Thread creations per guild (the longest window's).
    creations: HashMap<u64, VecDeque<Instant>>,
    /// Last activity of each thread (its creation, unarchiving or latest message), fake clock.
    pub activity: HashMap<u64, Instant>,
    /// Every refusal of a limit, and every other 401 / 403 / 429 answered.
    pub refusals: Vec<Refusal>,
    /// The most active threads each guild ever held.
    pub peak_threads: HashMap<u64, usize>,
}

/// What [`Places::admit`] decided: a refusal, or headers for the answer.
pub(super) struct Gate {
    pub refused: Option<Answer>,
    pub headers: Vec<(String, String)>,
}

fn limited(
    retry_after: Duration,
    global: bool,
    scope: &'static str,
) -> (Answer, Vec<(String, String)>) {
    let secs = (retry_after.as_secs_f64() * 1000.0).ceil() / 1000.0;
    let mut headers = vec![
        ("retry-after".to_string(), format!("{}", secs.ceil() as u64)),
        ("x-ratelimit-scope".to_string(), scope.to_string()),
    ];
    if global {
        headers.push(("x-ratelimit-global".into(), "true".into()));
    }
    let body = json!({
        "message": "You are being rate limited.",
        "retry_after": secs,
        "global": global,
        "code": if global { 0 } else { 20028 },
    });
    ((StatusCode::TOO_MANY_REQUESTS, Some(body), None), headers)
}

/// The bucket of a route: its key (route with the major parameter kept, minor ids replaced)
/// and limit; `None` for interaction endpoints, which have none here.
fn bucket_of(limits: &Limits, method: &str, seg: &[&str]) -> Option<(String, (usize, Duration))> {
    if matches!(seg.first(), Some(&"interactions") | Some(&"webhooks")) {
        return None;
    }
    let mut key = vec![method.to_string()];
    for (i, s) in seg.iter().enumerate() {
        let major = i == 1 && matches!(seg[0], "channels" | "guilds");
        let id = s.chars().all(|c| c.is_ascii_digit());
        key.push(if id && !major {
            "{id}".into()
        } else {
            (*s).to_string()
        });
    }
    let limit = match (method, seg) {
        ("POST", ["channels", _, "messages"]) => limits.channel_messages,
        ("PATCH" | "DELETE", ["channels", _, "messages", _]) => limits.message_edits,
        _ => limits.other_routes,
    };
    Some((key.join("/"), limit))
}

/// An opaque bucket id for `X-RateLimit-Bucket` (the same for every major parameter).
fn bucket_hash(key: &str) -> String {
    let template: Vec<&str> = key
        .split('/')
        .enumerate()
        .map(|(i, s)| {
            if i == 2 && s.chars().all(|c| c.is_ascii_digit()) {
                "{major}"
            } else {
                s
            }
        })
        .collect();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in template.join("/").bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The guilds' channels (text channels, threads, DM channels, as JSON objects) and the
/// limits' state: what the limits read and change.
#[derive(Default)]
pub(super) struct Places {
    pub channels: HashMap<u64, Value>,
    pub lim: LimitState,
}

impl Places {
    /// The guild a channel belongs to (its `guild_id`; [`super::FakeDiscord::GUILD_ID`] for a
    /// channel the fake does not know, or a DM).
    pub(super) fn guild_of(&self, channel: u64) -> u64 {
        self.channels
            .get(&channel)
            .map(|c| id_of(&c["guild_id"]))
            .filter(|g| *g != 0)
            .unwrap_or(GUILD_ID)
    }

    /// The fake's clock: real time plus how far it was moved on.
    pub(super) fn now(&self) -> Instant {
        Instant::now() + self.lim.skew
    }

    /// Checks a request against the global limit and its route's bucket (taking its place in
    /// both when admitted); the headers to answer with.
    pub(super) fn admit(&mut self, method: &str, path: &str) -> Gate {
        let seg: Vec<&str> = path
            .strip_prefix("/api/v10/")
            .or_else(|| path.strip_prefix("/api/v9/"))
            .unwrap_or("")
            .trim_end_matches('/')
            .split('/')
            .collect();
        let real = Instant::now();
        let Some((key, (limit, window))) = bucket_of(&self.lim.limits, method, &seg) else {
            return Gate {
                refused: None,
                headers: Vec::new(),
            };
        };
        let second = Duration::from_secs(1);
        while self
            .lim
            .global
            .front()
            .is_some_and(|t| real.duration_since(*t) >= second)
        {
            self.lim.global.pop_front();
        }
        if self.lim.global.len() >= self.lim.limits.global_per_second {
            let wait = second.saturating_sub(real.duration_since(self.lim.global[0]));
            let (answer, headers) = limited(wait.max(Duration::from_millis(1)), true, "global");
            return Gate {
                refused: Some(answer),
                headers,
            };
        }
        self.lim.global.push_back(real);
        let bucket = self
            .lim
            .buckets
            .entry(key.clone())
            .or_insert((limit, real + window));
        if real >= bucket.1 {
            *bucket = (limit, real + window);
        }
        let reset_after = bucket.1.saturating_duration_since(real);
        if bucket.0 == 0 {
            let (answer, mut headers) = limited(reset_after, false, "user");
            headers.extend(bucket_headers(&key, limit, 0, reset_after));
            return Gate {
                refused: Some(answer),
                headers,
            };
        }
        bucket.0 -= 1;
        let left = bucket.0;
        Gate {
            refused: None,
            headers: bucket_headers(&key, limit, left, reset_after),
        }
    }

    /// Records a refused request (401, 403, 429 count as invalid but a shared 429).
    pub(super) fn refuse(
        &mut self,
        method: &str,
        path: &str,
        status: u16,
        code: u64,
        scope: Option<&'static str>,
    ) {
        self.lim.refusals.push(Refusal {
            at: Instant::now(),
            method: method.to_string(),
            path: path.to_string(),
            status,
            code,
            scope,
        });
    }

    /// Whether `id` is a thread.
    pub(super) fn is_thread(&self, id: u64) -> bool {
        self.channels
            .get(&id)
            .is_some_and(|c| matches!(c["type"].as_u64(), Some(10..=12)))
    }

    /// Archives every thread whose auto-archive time has passed on the fake's clock.
    pub(super) fn sweep_threads(&mut self) {
        let now = self.now();
        let due: Vec<u64> = self
            .channels
            .iter()
            .filter(|(_, c)| matches!(c["type"].as_u64(), Some(10..=12)))
            .filter(|(_, c)| c["thread_metadata"]["archived"] != json!(true))
            .filter(|(id, c)| {
                let minutes = c["thread_metadata"]["auto_archive_duration"]
                    .as_u64()
                    .unwrap_or(1440);
                let since = self.lim.activity.get(id).copied().unwrap_or(now);
                now.saturating_duration_since(since) >= Duration::from_secs(minutes * 60)
            })
            .map(|(id, _)| *id)
            .collect();
        for id in due {
            if let Some(c) = self.channels.get_mut(&id) {
                c["thread_metadata"]["archived"] = json!(true);
                c["thread_metadata"]["archive_timestamp"] = json!(now_iso());
            }
        }
    }

    /// The active (unarchived) threads of a guild.
    pub(super) fn active_threads(&mut self, guild: u64) -> Vec<Value> {
        self.sweep_threads();
        let mut v: Vec<Value> = self
            .channels
            .values()
            .filter(|c| matches!(c["type"].as_u64(), Some(10..=12)))
            .filter(|c| id_of(&c["guild_id"]) == guild)
            .filter(|c| c["thread_metadata"]["archived"] != json!(true))
            .cloned()
            .collect();
        v.sort_by_key(id_of);
        v
    }

    /// Notes the active-thread count of a guild for [`super::FakeDiscord::peak_active_threads`].
    pub(super) fn note_peak(&mut self, guild: u64) {
        let n = self.active_threads(guild).len();
        let peak = self.lim.peak_threads.entry(guild).or_default();
        *peak = (*peak).max(n);
    }

    /// 160006 when the guild has no room for one more active thread.
    fn thread_room(&mut self, guild: u64, method: &str, path: &str) -> Option<Answer> {
        if self.active_threads(guild).len() < self.lim.limits.active_threads {
            return None;
        }
        self.refuse(method, path, 400, 160_006, None);
        let (s, v) = discord_error(
            StatusCode::BAD_REQUEST,
            160_006,
            "Maximum number of active threads reached",
        );
        Some((s, Some(v), None))
    }

    /// Whether a thread may be created in `guild` now: room for it, and within the guild's
    /// thread-creation limits (a shared 429 otherwise). Counts the creation when it may.
    pub(super) fn may_create_thread(
        &mut self,
        guild: u64,
        method: &str,
        path: &str,
    ) -> Result<(), (Answer, Vec<(String, String)>)> {
        if let Some(full) = self.thread_room(guild, method, path) {
            return Err((full, Vec::new()));
        }
        let real = Instant::now();
        let longest = self
            .lim
            .limits
            .thread_creation
            .iter()
            .map(|(_, w)| *w)
            .max()
            .unwrap_or_default();
        let made = self.lim.creations.entry(guild).or_default();
        while made
            .front()
            .is_some_and(|t| real.duration_since(*t) >= longest)
        {
            made.pop_front();
        }
        let mut wait = Duration::ZERO;
        for (count, window) in &self.lim.limits.thread_creation {
            let inside: Vec<Instant> = made
                .iter()
                .copied()
                .filter(|t| real.duration_since(*t) < *window)
                .collect();
            if inside.len() >= *count {
                // Free again once the oldest that keeps the window full leaves it.
                let oldest = inside[inside.len() - count];
                wait = wait.max((oldest + *window).saturating_duration_since(real));
            }
        }
        if !wait.is_zero() {
            return Err(limited(wait, false, "shared"));
        }
        made.push_back(real);
        Ok(())
    }

    /// A thread was created (or unarchived): it is active from now.
    pub(super) fn thread_started(&mut self, id: u64) {
        let now = self.now();
        self.lim.activity.insert(id, now);
        let guild = self.guild_of(id);
        self.note_peak(guild);
    }

    /// A message is about to be posted in `channel`: an archived thread is unarchived first
    /// (when the guild has room and it is not locked); `Some` refusal otherwise.
    pub(super) fn posting_in(&mut self, channel: u64, method: &str, path: &str) -> Option<Answer> {
        if !self.is_thread(channel) {
            return None;
        }
        self.sweep_threads();
        let meta = self.channels[&channel]["thread_metadata"].clone();
        if meta["archived"] == json!(true) {
            if meta["locked"] == json!(true) {
                return Some(archived_thread(self, method, path));
            }
            let guild = self.guild_of(channel);
            if let Some(full) = self.thread_room(guild, method, path) {
                return Some(full);
            }
            if let Some(c) = self.channels.get_mut(&channel) {
                c["thread_metadata"]["archived"] = json!(false);
                c["thread_metadata"]["archive_timestamp"] = json!(now_iso());
            }
            self.thread_started(channel);
        }
        let now = self.now();
        self.lim.activity.insert(channel, now);
        None
    }

    /// An interaction's response or follow-up is posted in `channel`: an archived thread is
    /// unarchived when there is room (the answer is posted either way).
    pub(super) fn responding_in(&mut self, channel: u64) {
        if !self.is_thread(channel) {
            return;
        }
        self.sweep_threads();
        let meta = self.channels[&channel]["thread_metadata"].clone();
        if meta["archived"] == json!(true) {
            let guild = self.guild_of(channel);
            let room = self.active_threads(guild).len() < self.lim.limits.active_threads;
            if meta["locked"] == json!(true) || !room {
                return;
            }
            if let Some(c) = self.channels.get_mut(&channel) {
                c["thread_metadata"]["archived"] = json!(false);
            }
            self.thread_started(channel);
        }
        let now = self.now();
        self.lim.activity.insert(channel, now);
    }

    /// A message in `channel` is about to be edited: refused (50083) in an archived thread.
    pub(super) fn editing_in(&mut self, channel: u64, method: &str, path: &str) -> Option<Answer> {
        if !self.is_thread(channel) {
            return None;
        }
        self.sweep_threads();
        (self.channels[&channel]["thread_metadata"]["archived"] == json!(true))
            .then(|| archived_thread(self, method, path))
    }

    /// A `PATCH /channels/{id}` body for a thread: unarchiving needs room (160006).
    pub(super) fn patching_thread(
        &mut self,
        id: u64,
        body: &Value,
        method: &str,
        path: &str,
    ) -> Option<Answer> {
        if !self.is_thread(id) {
            return None;
        }
        self.sweep_threads();
        let archived = self.channels[&id]["thread_metadata"]["archived"] == json!(true);
        if archived && body.get("archived") == Some(&json!(false)) {
            let guild = self.guild_of(id);
            if let Some(full) = self.thread_room(guild, method, path) {
                return Some(full);
            }
        }
        None
    }
}

fn archived_thread(st: &mut Places, method: &str, path: &str) -> Answer {
    st.refuse(method, path, 400, 50_083, None);
    let (s, v) = discord_error(StatusCode::BAD_REQUEST, 50_083, "Thread is archived");
    (s, Some(v), None)
}

fn bucket_headers(
    key: &str,
    limit: usize,
    left: usize,
    reset_after: Duration,
) -> Vec<(String, String)> {
    let reset = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        + reset_after;
    let limit = if limit == usize::MAX {
        u32::MAX as usize
    } else {
        limit
    };
    vec![
        ("x-ratelimit-limit".into(), limit.to_string()),
        ("x-ratelimit-remaining".into(), left.min(limit).to_string()),
        (
            "x-ratelimit-reset".into(),
            format!("{:.3}", reset.as_secs_f64()),
        ),
        (
            "x-ratelimit-reset-after".into(),
            format!("{:.3}", reset_after.as_secs_f64()),
        ),
        ("x-ratelimit-bucket".into(), bucket_hash(key)),
    ]
}
