//! A fake Discord (REST API + WebSocket gateway) on 127.0.0.1 that a real serenity 0.12.5 bot
//! connects to, for end-to-end tests of the Discord adapter.
//!
//! One port serves both: `GET /` with a WebSocket upgrade is the gateway, everything under
//! `/api/v10/` is the REST API. Point the bot at it with
//! `HttpBuilder::new(token).proxy(fake.proxy_url()).ratelimiter_disabled(true)` (the bot does that
//! when `DISCORD_PROXY_URL` is set); `GET /api/v10/gateway` and `/gateway/bot` hand serenity the
//! `ws://` URL of the same port.
//!
//! The fake knows one guild ([`FakeDiscord::GUILD_ID`]) with two text channels
//! ([`FakeDiscord::CHANNEL_ID`], [`FakeDiscord::OTHER_CHANNEL_ID`]); any other channel id used in an
//! interaction is treated as a text channel of that guild too, and threads the bot creates become
//! channels of their parent's guild. [`FakeDiscord::start_two_guilds`] adds a second guild
//! ([`FakeDiscord::SECOND_GUILD_ID`], on the other shard of two) with a text channel of its own
//! ([`FakeDiscord::SECOND_CHANNEL_ID`]): an interaction in a channel goes to the shard of the
//! channel's guild. Every REST request is recorded ([`Recorded`]); requests that create or
//! edit a message also get the message object the fake stored (`Recorded::message`), so a test can
//! click a button on it ([`FakeDiscord::message_from`]).
//!
//! Like Discord, it answers 400 (code 40060) to a second callback for the same interaction, 400
//! (50035) to a callback type the interaction type does not allow (e.g. a message answering an
//! autocomplete), 404 (10015 "Unknown Webhook") to a follow-up or `@original` edit before the
//! interaction was acknowledged, 400 (50035) to a message whose buttons Discord refuses (more
//! than five a row or five rows, a link button without a URL or with a custom id, any other
//! without a custom id: `components_fault`), and 404 with a Discord-style JSON error to
//! unknown routes. Edits follow Discord's attachment rule: an `attachments` array in an edit
//! lists the attachments to keep (serenity's `UpdateMessage` always sends `[]`, which drops the
//! message's images).
//!
//! Discord's limits are on from the start ([`limits`]): 1,000 active threads a guild (160006),
//! the global 50 requests a second, per-route buckets with Discord's `X-RateLimit-*` headers, a
//! thread-creation limit per guild, and a count of invalid requests; [`FakeDiscord::set_limits`]
//! changes them, [`FakeDiscord::advance_clock`] moves the clock threads auto-archive on.
//!
//! Interactions injected while no shard is connected (before the bot is up, or between
//! [`FakeDiscord::drop_gateway`] and serenity's RESUME) are queued and delivered once the guild's
//! shard is READY or RESUMED; a RESUME replays the dispatches the shard missed, like Discord.
//!
//! User options (type 6) and mentionables (type 9) are resolved automatically: `data.resolved`
//! gets a `users` and `members` entry for every user option, using the name registered with
//! [`FakeDiscord::user_option`] / [`FakeDiscord::add_user`] (or `user{id}` if none). Channel (7) and
//! role (8) options are resolved the same way.
//!
//! ```ignore
//! let fake = FakeDiscord::start().await;
//! std::env::set_var("DISCORD_PROXY_URL", fake.proxy_url()); // or pass it to the bot directly
//! tokio::spawn(run_the_bot("any-token"));
//! assert!(fake.wait_ready(Duration::from_secs(10)).await);
//! fake.registered_commands(Duration::from_secs(10)).await.unwrap();
//! let id = fake.slash((1, "alice"), FakeDiscord::CHANNEL_ID, "play",
//!                     json!([{"name": "move", "type": 3, "value": "D4"}])).await;
//! let reply = fake.response(id, Duration::from_secs(10)).await.unwrap();
//! assert_eq!(reply.files[0].0, "board.png");
//! let click = fake.button((2, "bob"), FakeDiscord::CHANNEL_ID, fake.message_from(&reply), "accept").await;
//! ```

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message as WsMessage, WebSocket, WebSocketUpgrade};
use axum::extract::{DefaultBodyLimit, State as AxState};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::serve::ListenerExt;
use axum::Router;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Map, Value};
use tokio::sync::{mpsc, watch};

pub mod limits;
pub mod players;
pub mod proxy;
mod wire;

pub use limits::{Limits, Refusal};
use wire::{discord_error, id_of, now_iso, Answer};

/// One REST request the bot made.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    /// Path without the query, e.g. `/api/v10/interactions/123/tok123/callback`.
    pub path: String,
    /// The query string, if any (without `?`).
    pub query: Option<String>,
    /// The JSON body, or the multipart `payload_json` part.
    pub json: Option<Value>,
    /// Multipart files, in order: (filename, bytes).
    pub files: Vec<(String, Vec<u8>)>,
    pub at: Instant,
    /// The HTTP status the fake answered with.
    pub status: u16,
    /// The JSON body the fake answered with (`None` for 204).
    pub answer: Option<Value>,
    /// The message object this request created or edited, as the fake stored it (also set for
    /// interaction callbacks of type 4, 5 and 7, whose HTTP answer is an empty 204).
    pub message: Option<Value>,
    /// It came through the test's REST proxy ([`proxy::RestProxy`], which marks what it
    /// forwards).
    pub proxied: bool,
}

impl Recorded {
    /// `true` if this is an interaction callback (`POST /interactions/{id}/{token}/callback`).
    pub fn is_callback(&self) -> bool {
        self.method == "POST" && self.path.ends_with("/callback")
    }

    /// The callback type (`json.type`: 4 message, 5 deferred, 6 deferred update, 7 update,
    /// 8 autocomplete result, 9 modal), for callbacks.
    pub fn callback_type(&self) -> Option<u64> {
        self.json.as_ref()?.get("type")?.as_u64()
    }

    /// The message part of the body: `json.data` for callbacks, the body itself otherwise.
    pub fn data(&self) -> Option<&Value> {
        let json = self.json.as_ref()?;
        if self.is_callback() {
            json.get("data")
        } else {
            Some(json)
        }
    }

    /// `data().content`.
    pub fn content(&self) -> Option<&str> {
        self.data()?.get("content")?.as_str()
    }

    /// `data().flags` (64 = ephemeral), 0 if absent.
    pub fn flags(&self) -> u64 {
        self.data()
            .and_then(|d| d.get("flags"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    }

    /// `true` if the message is ephemeral (flag 64).
    pub fn ephemeral(&self) -> bool {
        self.flags() & 64 != 0
    }

    /// Every `custom_id` in `data().components`, in order.
    pub fn custom_ids(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(rows) = self.data().and_then(|d| d.get("components")) {
            collect_custom_ids(rows, &mut out);
        }
        out
    }

    /// Every link button (type 2, style 5) in `data().components`, in order: its label and
    /// its `url`.
    pub fn links(&self) -> Vec<(String, String)> {
        let rows = self.data().and_then(|d| d.get("components"));
        buttons_in(rows.unwrap_or(&Value::Null))
            .into_iter()
            .filter(|b| b["style"] == 5)
            .map(|b| {
                let text = |k: &str| b[k].as_str().unwrap_or_default().to_string();
                (text("label"), text("url"))
            })
            .collect()
    }
}

/// The buttons (type 2) of a message's action rows, in order.
fn buttons_in(rows: &Value) -> Vec<&Value> {
    rows.as_array()
        .into_iter()
        .flatten()
        .filter_map(|row| row["components"].as_array())
        .flatten()
        .filter(|c| c["type"] == 2)
        .collect()
}

/// What Discord refuses in a message's `components`: more than 5 action rows, a row without
/// components or with more than 5 buttons, a button with a label over 80 characters or a
/// style outside 1 to 5; a link button (style 5) without a `url` of 1 to 512 characters
/// (http, https or discord), or with a `custom_id`; any other button without a `custom_id` of
/// 1 to 100 characters, or with a `url`.
fn components_fault(rows: &Value) -> Option<String> {
    let len = |v: &Value| v.as_str().map(|s| s.chars().count());
    let Some(rows) = rows.as_array() else {
        return (!rows.is_null()).then(|| "components: not an array".into());
    };
    if rows.len() > 5 {
        return Some(format!("components: {} action rows, at most 5", rows.len()));
    }
    for (r, row) in rows.iter().enumerate() {
        let items = row["components"].as_array().cloned().unwrap_or_default();
        if row["type"] != 1 || items.is_empty() {
            return Some(format!("components.{r}: not an action row with components"));
        }
        let buttons = items.iter().filter(|c| c["type"] == 2).count();
        if buttons > 5 {
            return Some(format!("components.{r}: {buttons} buttons, at most 5"));
        }
        for (i, b) in items.iter().enumerate().filter(|(_, c)| c["type"] == 2) {
            let at = format!("components.{r}.components.{i}");
            if len(&b["label"]).is_some_and(|n| n > 80) {
                return Some(format!("{at}.label: must be 80 or fewer characters"));
            }
            match b["style"].as_u64() {
                Some(5) => {
                    let url = b["url"].as_str().unwrap_or_default();
                    let scheme = ["http://", "https://", "discord://"]
                        .iter()
                        .any(|s| url.starts_with(s));
                    if !matches!(len(&b["url"]), Some(1..=512)) || !scheme {
                        return Some(format!(
                            "{at}.url: a link button needs a URL of 1 to 512 characters"
                        ));
                    }
                    if !b["custom_id"].is_null() {
                        return Some(format!("{at}.custom_id: a link button cannot have one"));
                    }
                }
                Some(1..=4) => {
                    if !matches!(len(&b["custom_id"]), Some(1..=100)) {
                        return Some(format!("{at}.custom_id: must be 1 to 100 characters"));
                    }
                    if !b["url"].is_null() {
                        return Some(format!("{at}.url: only a link button has one"));
                    }
                }
                _ => return Some(format!("{at}.style: not a button style")),
            }
        }
    }
    None
}

fn collect_custom_ids(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Array(items) => items.iter().for_each(|i| collect_custom_ids(i, out)),
        Value::Object(map) => {
            if let Some(id) = map.get("custom_id").and_then(Value::as_str) {
                out.push(id.to_string());
            }
            if let Some(c) = map.get("components") {
                collect_custom_ids(c, out);
            }
        }
        _ => {}
    }
}

/// Who invokes an interaction: a guild member with a name, roles and channel permissions.
///
/// `(u64, &str)` converts into a regular member ([`FakeDiscord::PERMS_MEMBER`]).
#[derive(Clone, Debug)]
pub struct Invoker {
    pub id: u64,
    pub name: String,
    /// The member's permissions in the channel, as Discord sends them (a decimal string).
    pub permissions: String,
    pub roles: Vec<u64>,
    pub locale: String,
}

impl Invoker {
    /// A regular member with [`FakeDiscord::PERMS_MEMBER`] and no roles.
    pub fn new(id: u64, name: &str) -> Invoker {
        Invoker {
            id,
            name: name.to_string(),
            permissions: FakeDiscord::PERMS_MEMBER.to_string(),
            roles: Vec::new(),
            locale: "en-US".to_string(),
        }
    }

    /// With the moderator role ([`FakeDiscord::MODERATOR_ROLE_ID`]) and
    /// [`FakeDiscord::PERMS_MODERATOR`] (adds MANAGE_CHANNELS, MANAGE_MESSAGES, MANAGE_THREADS,
    /// MODERATE_MEMBERS ...).
    pub fn moderator(mut self) -> Invoker {
        self.permissions = FakeDiscord::PERMS_MODERATOR.to_string();
        if !self.roles.contains(&FakeDiscord::MODERATOR_ROLE_ID) {
            self.roles.push(FakeDiscord::MODERATOR_ROLE_ID);
        }
        self
    }

    /// An administrator: every permission bit, as Discord computes it for admins.
    pub fn admin(mut self) -> Invoker {
        self.permissions = FakeDiscord::PERMS_ADMIN.to_string();
        self
    }

    /// Exact channel permissions (decimal string, e.g. "0" or "8").
    pub fn permissions(mut self, permissions: &str) -> Invoker {
        self.permissions = permissions.to_string();
        self
    }

    pub fn roles(mut self, roles: &[u64]) -> Invoker {
        self.roles = roles.to_vec();
        self
    }

    pub fn locale(mut self, locale: &str) -> Invoker {
        self.locale = locale.to_string();
        self
    }
}

impl From<(u64, &str)> for Invoker {
    fn from((id, name): (u64, &str)) -> Invoker {
        Invoker::new(id, name)
    }
}

impl From<&Invoker> for Invoker {
    fn from(i: &Invoker) -> Invoker {
        i.clone()
    }
}

/// Handle on a running fake Discord; cheap to clone.
#[derive(Clone)]
pub struct FakeDiscord {
    inner: Arc<Inner>,
}

struct Inner {
    port: u16,
    shards: u64,
    state: Mutex<St>,
    changed: watch::Sender<u64>,
}

enum Out {
    Text(String),
    Close(u16, String),
}

struct Conn {
    id: u64,
    tx: mpsc::UnboundedSender<Out>,
    /// Identified or resumed: dispatches may be sent.
    live: bool,
    shard: [u64; 2],
    session: Option<String>,
}

struct Session {
    seq: u64,
    /// Every dispatch sent in this session: (seq, frame), for replay on RESUME.
    log: Vec<(u64, String)>,
    shard: [u64; 2],
}

struct Interaction {
    token: String,
    channel: u64,
    kind: u64,
    /// For component interactions: the message the component was on.
    message_id: Option<u64>,
    acknowledged: bool,
    injected_at: Instant,
}

#[derive(Default)]
struct St {
    requests: Vec<Recorded>,
    next_id: u64,
    next_conn: u64,
    identifies: Vec<Value>,
    resumes: Vec<Value>,
    sessions: HashMap<String, Session>,
    conns: Vec<Conn>,
    /// Dispatches waiting for the guild's shard: (guild, t, d).
    pending: Vec<(u64, String, Value)>,
    dispatched: Vec<(String, Value)>,
    ready_count: usize,
    guild_ready_count: usize,
    commands: Vec<Value>,
    interactions: HashMap<u64, Interaction>,
    tokens: HashMap<String, u64>,
    /// token -> message id of the original response.
    originals: HashMap<String, u64>,
    messages: HashMap<u64, Value>,
    message_order: Vec<u64>,
    users: HashMap<u64, String>,
    /// user id -> DM channel id.
    dms: HashMap<u64, u64>,
    /// Failures to answer with, in order of registration.
    faults: Vec<Fault>,
    /// Users whose DMs are closed to the bot (50007).
    closed_dms: Vec<u64>,
    /// (channel, nonce) -> the message created with that nonce (`enforce_nonce`).
    nonces: HashMap<(u64, String), u64>,
    /// The guilds the bot is in (the first: [`FakeDiscord::GUILD_ID`]).
    guilds: Vec<u64>,
    /// The guilds' channels, Discord's limits and what they keep ([`limits`]).
    places: limits::Places,
    /// Headers for the answer [`route`] is giving (a limit's).
    answer_headers: Vec<(String, String)>,
    /// Channels deleted (`DELETE /channels/{id}`): anything sent there is answered 10003.
    deleted: Vec<u64>,
}

/// A failure the fake answers a matching request with, `times` times.
#[derive(Clone, Debug)]
pub struct Fault {
    pub method: String,
    /// Matches a request whose path contains this.
    pub path: String,
    pub status: u16,
    pub body: Value,
    pub times: usize,
    /// Do what the request asks first, then answer with the failure (a lost answer).
    pub after_doing_it: bool,
    /// Hang this long before answering (a request that times out).
    pub delay: Duration,
    /// HTTP headers sent with the failure (a 429's `Retry-After`).
    pub headers: Vec<(String, String)>,
}

impl Fault {
    /// `status` with a Discord error body `{code, message}`.
    pub fn new(method: &str, path: &str, status: u16, code: u64, message: &str) -> Fault {
        Fault {
            method: method.into(),
            path: path.into(),
            status,
            body: json!({"code": code, "message": message}),
            times: 1,
            after_doing_it: false,
            delay: Duration::ZERO,
            headers: Vec::new(),
        }
    }

    /// Hangs for `delay` before answering.
    pub fn slow(mut self, delay: Duration) -> Fault {
        self.delay = delay;
        self
    }

    /// A 429: `global` or for this route, with Discord's body and headers (`Retry-After` in
    /// whole seconds, rounded up).
    pub fn rate_limited(method: &str, path: &str, retry_after: f64, global: bool) -> Fault {
        let mut headers = vec![(
            "retry-after".to_string(),
            format!("{}", retry_after.ceil() as u64),
        )];
        if global {
            headers.push(("x-ratelimit-global".into(), "true".into()));
        }
        Fault {
            body: json!({
                "message": "You are being rate limited.",
                "retry_after": retry_after,
                "global": global,
                "code": if global { 0 } else { 20028 },
            }),
            headers,
            ..Fault::new(method, path, 429, 0, "")
        }
    }

    /// A 429 whose wait is given only by its `Retry-After` header (as a proxy in front of
    /// Discord may answer).
    pub fn header_only(mut self) -> Fault {
        if let Some(body) = self.body.as_object_mut() {
            body.remove("retry_after");
        }
        self
    }

    pub fn times(mut self, n: usize) -> Fault {
        self.times = n;
        self
    }

    /// The request takes effect, but its answer is an error (as when a connection drops).
    pub fn after_doing_it(mut self) -> Fault {
        self.after_doing_it = true;
        self
    }
}

impl St {
    fn new_id(&mut self) -> u64 {
        self.next_id += 1;
        // Snowflake-like: a plausible timestamp part plus a counter.
        1_300_000_000_000_000_000 + self.next_id
    }

    fn user_name(&self, id: u64) -> String {
        if id == FakeDiscord::BOT_USER_ID {
            return FakeDiscord::BOT_NAME.to_string();
        }
        self.users
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("user{id}"))
    }

    fn store_message(&mut self, msg: Value) {
        let id = id_of(&msg);
        if !self.messages.contains_key(&id) {
            self.message_order.push(id);
        }
        self.messages.insert(id, msg);
    }

    fn channel_object(&self, id: u64) -> Value {
        self.places
            .channels
            .get(&id)
            .cloned()
            .unwrap_or_else(|| text_channel(id, &format!("channel-{id}"), 9))
    }
}

/// `tara-bot run` (the program at `exe`, in `dir`) set to connect to a fake Discord at
/// `proxy_url` (its own or a [`proxy::RestProxy`]'s) with a made-up token, the players' own
/// command rate limit off (they play at machine speed), and nothing of the caller's set-up
/// (no `DISCORD_GUILD_ID`, token file, config file or PostgreSQL URL). The caller names the
/// database (`TARA_BOT_DB` or `TARA_BOT_DATABASE_URL`) and the log.
pub fn tara_bot_run(
    exe: &std::path::Path,
    proxy_url: &str,
    dir: &std::path::Path,
) -> std::process::Command {
    let mut run = std::process::Command::new(exe);
    run.arg("run")
        .current_dir(dir)
        .env("DISCORD_TOKEN", "fake-token")
        .env("DISCORD_PROXY_URL", proxy_url)
        .env("TARA_BOT_RATE_LIMIT", "off")
        .env_remove("TARA_BOT_DATABASE_URL")
        .env_remove("DISCORD_GUILD_ID")
        .env_remove("DISCORD_TOKEN_FILE")
        .env_remove("TARA_BOT_CONFIG")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null());
    run
}

impl FakeDiscord {
    pub const APP_ID: u64 = 1_100_000_000_000_000_001;
    /// Discord gives a bot user the id of its application.
    pub const BOT_USER_ID: u64 = Self::APP_ID;
    pub const BOT_NAME: &'static str = "tara-bot";
    pub const GUILD_ID: u64 = wire::GUILD_ID;
    /// The second guild of [`FakeDiscord::start_two_guilds`]: with two shards, on the shard
    /// that does not own [`FakeDiscord::GUILD_ID`] (`(id >> 22) % 2` differs).
    pub const SECOND_GUILD_ID: u64 = Self::GUILD_ID + (1 << 22);
    /// A text channel ("second") in the second guild.
    pub const SECOND_CHANNEL_ID: u64 = 1_100_000_000_000_000_202;
    pub const GUILD_OWNER_ID: u64 = 1_100_000_000_000_000_400;
    /// A text channel in the guild ("general").
    pub const CHANNEL_ID: u64 = 1_100_000_000_000_000_200;
    /// A second text channel in the guild ("tara").
    pub const OTHER_CHANNEL_ID: u64 = 1_100_000_000_000_000_201;
    pub const MODERATOR_ROLE_ID: u64 = 1_100_000_000_000_000_300;
    /// CREATE_INSTANT_INVITE, ADD_REACTIONS, VIEW_CHANNEL, SEND_MESSAGES, EMBED_LINKS, ATTACH_FILES,
    /// READ_MESSAGE_HISTORY, USE_EXTERNAL_EMOJIS, CONNECT, SPEAK, CHANGE_NICKNAME,
    /// USE_APPLICATION_COMMANDS, CREATE_PUBLIC/PRIVATE_THREADS, SEND_MESSAGES_IN_THREADS.
    pub const PERMS_MEMBER: &'static str = "380175240257";
    /// PERMS_MEMBER + MANAGE_CHANNELS, MANAGE_MESSAGES, MANAGE_ROLES, MANAGE_THREADS,
    /// MODERATE_MEMBERS, KICK_MEMBERS.
    pub const PERMS_MODERATOR: &'static str = "1497135180883";
    /// Every bit (what Discord sends for an administrator).
    pub const PERMS_ADMIN: &'static str = "2251799813685247";
    /// What `app_permissions` says the bot may do in every channel (PERMS_MEMBER + MANAGE_MESSAGES,
    /// MANAGE_THREADS).
    pub const PERMS_BOT: &'static str = "397355117633";

    /// Starts a fake with one shard (`GET /gateway/bot` says `shards: 1`).
    pub async fn start() -> FakeDiscord {
        Self::start_with_shards(1).await
    }

    /// Starts a fake whose `GET /gateway/bot` recommends `shards` shards. Each shard's READY lists
    /// the guild only if it owns it (`(guild_id >> 22) % total == id`, from its Identify's
    /// `shard`), and interactions go to that shard.
    pub async fn start_with_shards(shards: u64) -> FakeDiscord {
        Self::start_with(shards, false).await
    }

    /// Starts a fake recommending `shards` shards, with a second guild
    /// ([`FakeDiscord::SECOND_GUILD_ID`]) holding the text channel
    /// [`FakeDiscord::SECOND_CHANNEL_ID`]. With two shards, each guild is on its own shard.
    pub async fn start_two_guilds(shards: u64) -> FakeDiscord {
        Self::start_with(shards, true).await
    }

    async fn start_with(shards: u64, second_guild: bool) -> FakeDiscord {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let port = listener.local_addr().unwrap().port();
        let (changed, _) = watch::channel(0u64);
        let mut st = St::default();
        st.places.channels.insert(
            Self::CHANNEL_ID,
            text_channel(Self::CHANNEL_ID, "general", 0),
        );
        st.places.channels.insert(
            Self::OTHER_CHANNEL_ID,
            text_channel(Self::OTHER_CHANNEL_ID, "tara", 1),
        );
        st.users.insert(Self::GUILD_OWNER_ID, "owner".to_string());
        st.guilds.push(Self::GUILD_ID);
        if second_guild {
            st.guilds.push(Self::SECOND_GUILD_ID);
            let mut c = text_channel(Self::SECOND_CHANNEL_ID, "second", 0);
            c["guild_id"] = json!(Self::SECOND_GUILD_ID.to_string());
            st.places.channels.insert(Self::SECOND_CHANNEL_ID, c);
        }
        let inner = Arc::new(Inner {
            port,
            shards: shards.max(1),
            state: Mutex::new(st),
            changed,
        });
        let app = Router::new()
            .route("/", get(gateway_upgrade))
            .fallback(rest)
            .layer(DefaultBodyLimit::max(256 * 1024 * 1024))
            .with_state(inner.clone());
        tokio::spawn(async move {
            // Without TCP_NODELAY a small write that follows another waits for the bot's
            // delayed acknowledgement (40 ms): the gateway's events one after another.
            let listener = listener.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            });
            axum::serve(listener, app).await.ok();
        });
        FakeDiscord { inner }
    }

    /// Value for `DISCORD_PROXY_URL`, e.g. `http://127.0.0.1:PORT`.
    pub fn proxy_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.inner.port)
    }

    /// The gateway URL handed out by `GET /gateway`, e.g. `ws://127.0.0.1:PORT`.
    pub fn gateway_url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.inner.port)
    }

    fn st(&self) -> MutexGuard<'_, St> {
        self.inner.st()
    }

    /// Waits until `f` returns `Some`, re-checking after every change of the fake's state.
    pub async fn wait_for<T>(
        &self,
        timeout: Duration,
        mut f: impl FnMut(&FakeDiscord) -> Option<T>,
    ) -> Option<T> {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut rx = self.inner.changed.subscribe();
        loop {
            if let Some(v) = f(self) {
                return Some(v);
            }
            match tokio::time::timeout_at(deadline, rx.changed()).await {
                Ok(Ok(())) => {}
                _ => return f(self),
            }
        }
    }

    /// The shard owning the guild identified and got READY and the guild's GUILD_CREATE.
    pub async fn wait_ready(&self, timeout: Duration) -> bool {
        self.wait_for(timeout, |f| (f.st().guild_ready_count > 0).then_some(()))
            .await
            .is_some()
    }

    /// Waits until `n` READYs were sent in total (one per shard, plus one per re-identify).
    pub async fn wait_ready_count(&self, n: usize, timeout: Duration) -> bool {
        self.wait_for(timeout, |f| (f.st().ready_count >= n).then_some(()))
            .await
            .is_some()
    }

    /// The JSON body of the bot's first `PUT .../commands` (global or guild), waiting for it.
    pub async fn registered_commands(&self, timeout: Duration) -> Option<Value> {
        self.wait_request(
            |r| r.method == "PUT" && r.path.ends_with("/commands"),
            timeout,
        )
        .await
        .and_then(|r| r.json)
    }

    /// Records a user name for `id`, used wherever the fake builds a user object for it.
    /// Answers matching requests with a failure from now on (see [`Fault`]).
    pub fn fail(&self, fault: Fault) {
        self.st().faults.push(fault);
    }

    /// Stops every failure registered with [`FakeDiscord::fail`].
    pub fn heal(&self) {
        self.st().faults.clear();
    }

    /// How many failures are still to be answered.
    pub fn faults_left(&self) -> usize {
        self.st().faults.iter().map(|f| f.times).sum()
    }

    /// The user no longer accepts direct messages from the bot (50007).
    /// Discord remembers a message's nonce for a few minutes only: forgets every nonce, as
    /// if they had passed.
    pub fn forget_nonces(&self) {
        self.st().nonces.clear();
    }

    pub fn close_dms(&self, user: u64) {
        self.st().closed_dms.push(user);
    }

    pub fn add_user(&self, id: u64, name: &str) {
        self.st().users.insert(id, name.to_string());
    }

    /// A user option (type 6) for `slash`'s options: `{"name":name,"type":6,"value":"<id>"}`.
    /// Registers the user's name; `slash` fills `data.resolved.users/members` for every user
    /// option automatically.
    pub fn user_option(&self, name: &str, user: (u64, &str)) -> Value {
        self.add_user(user.0, user.1);
        json!({"name": name, "type": 6, "value": user.0.to_string()})
    }

    /// Injects an INTERACTION_CREATE of type 2 (slash command) and returns the interaction id.
    /// `options` is Discord's option array, e.g. `[{"name":"move","type":3,"value":"D4"}]`
    /// (or `[{"name":"sub","type":1,"options":[..]}]` for a subcommand).
    pub async fn slash(
        &self,
        user: impl Into<Invoker>,
        channel: u64,
        name: &str,
        options: Value,
    ) -> u64 {
        self.command_interaction(user.into(), channel, name, options, 2)
    }

    /// Injects a slash command sent in the user's direct messages with the bot, as Discord
    /// sends it: no `guild_id`, no `member` (a `user` instead), a DM channel (type 1, opened for
    /// the user if the bot has none with them yet) and context 1 (bot DM). Returns the
    /// interaction id.
    pub async fn dm_slash(&self, user: impl Into<Invoker>, name: &str, options: Value) -> u64 {
        let who: Invoker = user.into();
        let payload = {
            let mut st = self.st();
            let channel = match st.dms.get(&who.id) {
                Some(c) => *c,
                None => {
                    let c = st.new_id();
                    st.dms.insert(who.id, c);
                    let dm = json!({
                        "id": c.to_string(),
                        "type": 1,
                        "last_message_id": null,
                        "flags": 0,
                        "recipients": [user_object(who.id, &who.name)],
                    });
                    st.places.channels.insert(c, dm);
                    c
                }
            };
            let (id, token) = new_interaction(&mut st, &who, channel, 2, None);
            let cmd_id = st
                .commands
                .iter()
                .find(|c| c["name"] == name && c["type"].as_u64().unwrap_or(1) == 1)
                .map(|c| id_of(&c["id"]))
                .unwrap_or(0);
            let cmd_id = if cmd_id == 0 { st.new_id() } else { cmd_id };
            let options = if options.is_null() {
                json!([])
            } else {
                options
            };
            let resolved = resolve_options(&st, &options);
            let mut p = interaction_base(&st, &who, channel, id, &token, 2);
            if let Some(o) = p.as_object_mut() {
                for k in ["guild_id", "member", "guild", "guild_locale"] {
                    o.remove(k);
                }
            }
            p["user"] = user_object(who.id, &who.name);
            p["channel"] = json!({
                "id": channel.to_string(),
                "type": 1,
                "flags": 0,
                "last_message_id": null,
                "recipients": [user_object(who.id, &who.name)],
            });
            p["context"] = json!(1);
            p["authorizing_integration_owners"] = json!({"0": FakeDiscord::APP_ID.to_string()});
            p["data"] = json!({
                "id": cmd_id.to_string(),
                "name": name,
                "type": 1,
                "options": options,
                "resolved": resolved,
            });
            p
        };
        let id = id_of(&payload["id"]);
        self.inner
            .dispatch(Self::GUILD_ID, "INTERACTION_CREATE", payload);
        id
    }

    /// Injects an autocomplete interaction (type 4); mark the option being typed with
    /// `"focused": true` (its value is sent as a string, like Discord does).
    pub async fn autocomplete(
        &self,
        user: impl Into<Invoker>,
        channel: u64,
        name: &str,
        options: Value,
    ) -> u64 {
        self.command_interaction(user.into(), channel, name, options, 4)
    }

    /// Injects a button click (type 3) on `message` (a full message object, e.g. from
    /// [`Self::message_from`], [`Self::original`] or [`Self::message`]).
    pub async fn button(
        &self,
        user: impl Into<Invoker>,
        channel: u64,
        message: Value,
        custom_id: &str,
    ) -> u64 {
        let data = json!({"custom_id": custom_id, "component_type": 2});
        self.component_interaction(user.into(), channel, message, data)
    }

    /// Injects a string-select choice (type 3, component_type 3) on `message`.
    pub async fn select(
        &self,
        user: impl Into<Invoker>,
        channel: u64,
        message: Value,
        custom_id: &str,
        values: &[&str],
    ) -> u64 {
        let data = json!({"custom_id": custom_id, "component_type": 3, "values": values});
        self.component_interaction(user.into(), channel, message, data)
    }

    /// Injects the answer to a dialog (a modal submit, type 5) that a button under `message`
    /// opened: `custom_id` is the modal's, `value` what was typed in its text input
    /// `input`.
    pub async fn submit_dialog(
        &self,
        user: impl Into<Invoker>,
        channel: u64,
        message: Value,
        custom_id: &str,
        input: &str,
        value: &str,
    ) -> u64 {
        let data = json!({
            "custom_id": custom_id,
            "components": [{"type": 1, "components": [
                {"type": 4, "custom_id": input, "value": value}
            ]}]
        });
        self.interaction_on(user.into(), channel, message, data, 5)
    }

    /// The interaction callback (`POST /interactions/{id}/{token}/callback`), waiting for it.
    pub async fn response(&self, interaction: u64, timeout: Duration) -> Option<Recorded> {
        let prefix = format!("/api/v10/interactions/{interaction}/");
        self.wait_request(
            move |r| r.method == "POST" && r.path.starts_with(&prefix) && r.is_callback(),
            timeout,
        )
        .await
    }

    /// Follow-ups and edits for the interaction's token so far: `POST /webhooks/{app}/{token}`,
    /// `PATCH|DELETE /webhooks/{app}/{token}/messages/{@original|id}`, in order.
    pub async fn followups(&self, interaction: u64) -> Vec<Recorded> {
        self.followups_now(interaction)
    }

    /// Waits until there are at least `n` follow-ups/edits for the interaction; returns them all
    /// (fewer on timeout).
    pub async fn wait_followups(
        &self,
        interaction: u64,
        n: usize,
        timeout: Duration,
    ) -> Vec<Recorded> {
        self.wait_for(timeout, |f| {
            let v = f.followups_now(interaction);
            (v.len() >= n).then_some(v)
        })
        .await
        .unwrap_or_else(|| self.followups_now(interaction))
    }

    fn followups_now(&self, interaction: u64) -> Vec<Recorded> {
        let st = self.st();
        let Some(token) = st.interactions.get(&interaction).map(|i| i.token.clone()) else {
            return Vec::new();
        };
        let prefix = format!("/api/v10/webhooks/{}/{token}", Self::APP_ID);
        st.requests
            .iter()
            .filter(|r| {
                r.method != "GET"
                    && (r.path == prefix || r.path.starts_with(&format!("{prefix}/messages/")))
            })
            .cloned()
            .collect()
    }

    /// Every REST request so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.st().requests.clone()
    }

    /// How many REST requests were made so far.
    pub fn request_count(&self) -> usize {
        self.st().requests.len()
    }

    /// The first request (in order) matching `pred`, waiting for it.
    pub async fn wait_request(
        &self,
        pred: impl Fn(&Recorded) -> bool,
        timeout: Duration,
    ) -> Option<Recorded> {
        self.wait_for(timeout, |f| {
            f.st().requests.iter().find(|r| pred(r)).cloned()
        })
        .await
    }

    /// The first request after the first `skip` requests matching `pred`, waiting for it.
    pub async fn wait_request_after(
        &self,
        skip: usize,
        pred: impl Fn(&Recorded) -> bool,
        timeout: Duration,
    ) -> Option<Recorded> {
        self.wait_for(timeout, |f| {
            f.st().requests.iter().skip(skip).find(|r| pred(r)).cloned()
        })
        .await
    }

    /// The message object a recorded request created or edited (see [`Recorded::message`]), in
    /// its current state; built from the request body if the fake stored none.
    pub fn message_from(&self, rec: &Recorded) -> Value {
        if let Some(m) = &rec.message {
            return self.message(id_of(m)).unwrap_or_else(|| m.clone());
        }
        let mut st = self.st();
        let data = rec.data().cloned().unwrap_or(json!({}));
        let channel = path_channel(&rec.path).unwrap_or(Self::CHANNEL_ID);
        let msg = build_message(&mut st, channel, &data, &rec.files, None);
        st.store_message(msg.clone());
        msg
    }

    /// A message in its current state.
    pub fn message(&self, id: u64) -> Option<Value> {
        self.st().messages.get(&id).cloned()
    }

    /// The current state of an interaction's original response (after callbacks and edits).
    pub fn original(&self, interaction: u64) -> Option<Value> {
        let st = self.st();
        let token = &st.interactions.get(&interaction)?.token;
        let id = st.originals.get(token)?;
        st.messages.get(id).cloned()
    }

    /// Messages stored for a channel (sent, interaction responses, follow-ups), in creation order.
    pub fn channel_messages(&self, channel: u64) -> Vec<Value> {
        let st = self.st();
        st.message_order
            .iter()
            .filter_map(|id| st.messages.get(id))
            .filter(|m| id_of(&m["channel_id"]) == channel)
            .cloned()
            .collect()
    }

    /// The boards of game `game` posted in `channel` (attachments named
    /// `game-{game}-ply-{ply}.png`, in answers and posts alike): ply -> how many messages carry
    /// it.
    pub fn boards_posted(&self, channel: u64, game: i64) -> HashMap<usize, usize> {
        let prefix = format!("game-{game}-ply-");
        let mut out = HashMap::new();
        for m in self.channel_messages(channel) {
            let names: Vec<&str> = m["attachments"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|f| f["filename"].as_str())
                .collect();
            for ply in names.iter().filter_map(|n| {
                n.strip_prefix(&prefix)?
                    .strip_suffix(".png")?
                    .parse::<usize>()
                    .ok()
            }) {
                *out.entry(ply).or_insert(0) += 1;
            }
        }
        out
    }

    /// The DM channel the bot opened with `user` (`POST /users/@me/channels`), if any.
    pub fn dm_channel(&self, user: u64) -> Option<u64> {
        self.st().dms.get(&user).copied()
    }

    /// Messages the bot sent to `user` in DMs, in order.
    pub fn dms(&self, user: u64) -> Vec<Value> {
        match self.dm_channel(user) {
            Some(c) => self.channel_messages(c),
            None => Vec::new(),
        }
    }

    /// A channel object (the guild's text channels, threads and DM channels the bot created).
    pub fn channel(&self, id: u64) -> Option<Value> {
        self.st().places.channels.get(&id).cloned()
    }

    /// Threads the bot created, in creation order of their ids.
    pub fn threads(&self) -> Vec<Value> {
        let st = self.st();
        let mut v: Vec<Value> = st
            .places
            .channels
            .values()
            .filter(|c| matches!(c["type"].as_u64(), Some(10..=12)))
            .cloned()
            .collect();
        v.sort_by_key(id_of);
        v
    }

    /// Sets the limits the fake enforces from now on ([`Limits::default`] at start).
    pub fn set_limits(&self, limits: Limits) {
        self.st().places.lim.limits = limits;
    }

    /// The limits in force.
    pub fn limits(&self) -> Limits {
        self.st().places.lim.limits.clone()
    }

    /// Moves the fake's clock on (threads auto-archive on it).
    pub fn advance_clock(&self, by: Duration) {
        self.st().places.lim.skew += by;
        self.inner.bump();
    }

    /// Opens `n` active threads in `parent` that someone else started (a busy server), each
    /// archived after a week of quiet like any thread. Their ids.
    pub fn add_threads(&self, parent: u64, n: usize) -> Vec<u64> {
        let mut st = self.st();
        let guild = st.places.guild_of(parent);
        let mut ids = Vec::with_capacity(n);
        for i in 0..n {
            let id = st.new_id();
            let mut t = thread_channel(
                id,
                parent,
                11,
                &json!({"name": format!("chat {i}"), "auto_archive_duration": 10080}),
            );
            t["guild_id"] = json!(guild.to_string());
            t["owner_id"] = json!(FakeDiscord::GUILD_OWNER_ID.to_string());
            st.places.channels.insert(id, t);
            st.places.thread_started(id);
            ids.push(id);
        }
        ids
    }

    /// How many active (unarchived) threads a guild holds now, on the fake's clock.
    pub fn active_threads(&self, guild: u64) -> usize {
        self.st().places.active_threads(guild).len()
    }

    /// The most active threads the guild ever held at once.
    pub fn peak_active_threads(&self, guild: u64) -> usize {
        let mut st = self.st();
        st.places.note_peak(guild);
        st.places.lim.peak_threads.get(&guild).copied().unwrap_or(0)
    }

    /// Whether a thread (or any channel) is archived now, on the fake's clock.
    pub fn is_archived(&self, channel: u64) -> bool {
        let mut st = self.st();
        st.places.sweep_threads();
        st.places
            .channels
            .get(&channel)
            .is_some_and(|c| c["thread_metadata"]["archived"] == json!(true))
    }

    /// Every refused request that Discord counts or that a limit caused: each 401, 403 and 429,
    /// and each 400 with 160006 or 50083.
    pub fn refusals(&self) -> Vec<Refusal> {
        self.st().places.lim.refusals.clone()
    }

    /// The invalid requests (401, 403 and 429 but a shared 429) in the last 10 minutes, as
    /// Discord counts them toward its ban of 10,000.
    pub fn invalid_requests(&self) -> usize {
        let window = Duration::from_secs(600);
        self.st()
            .places
            .lim
            .refusals
            .iter()
            .filter(|r| r.at.elapsed() < window)
            .filter(|r| matches!(r.status, 401 | 403 | 429) && r.scope != Some("shared"))
            .count()
    }

    /// The most requests in any one second that count against the global limit (not
    /// interactions).
    pub fn busiest_second(&self) -> usize {
        let st = self.st();
        let times: Vec<Instant> = st
            .requests
            .iter()
            .filter(|r| !r.path.contains("/interactions/") && !r.path.contains("/webhooks/"))
            .map(|r| r.at)
            .collect();
        let mut best = 0;
        let mut start = 0;
        for end in 0..times.len() {
            while times[end].duration_since(times[start]) >= Duration::from_secs(1) {
                start += 1;
            }
            best = best.max(end + 1 - start);
        }
        best
    }

    /// The interaction's token (`faketoken<id>`).
    pub fn token(&self, interaction: u64) -> Option<String> {
        self.st()
            .interactions
            .get(&interaction)
            .map(|i| i.token.clone())
    }

    /// When the interaction was injected.
    pub fn injected_at(&self, interaction: u64) -> Option<Instant> {
        self.st()
            .interactions
            .get(&interaction)
            .map(|i| i.injected_at)
    }

    /// Closes every gateway connection with code 4000 (serenity RESUMEs at once). Dispatches
    /// injected until a shard is back are queued.
    pub async fn drop_gateway(&self) {
        self.close_gateway(4000, "fake: unknown error").await;
    }

    /// Closes every gateway connection with `code` (4000: serenity resumes; 4009 session timed
    /// out: serenity re-identifies).
    pub async fn close_gateway(&self, code: u16, reason: &str) {
        {
            let mut st = self.st();
            for c in st.conns.iter_mut() {
                c.live = false;
                let _ = c.tx.send(Out::Close(code, reason.to_string()));
            }
            if code == 4009 || code == 4006 {
                st.sessions.clear();
            }
        }
        self.inner.bump();
    }

    /// Sends op 9 (invalid session, not resumable) on every connection; serenity re-identifies
    /// after about 5 s.
    pub async fn invalidate_session(&self) {
        {
            let mut st = self.st();
            st.sessions.clear();
            for c in st.conns.iter_mut() {
                c.live = false;
                c.session = None;
                let _ =
                    c.tx.send(Out::Text(json!({"op": 9, "d": false}).to_string()));
            }
        }
        self.inner.bump();
    }

    /// Every gateway dispatch sent so far (`t`, `d`), in order (replays on RESUME not repeated).
    pub fn dispatched(&self) -> Vec<(String, Value)> {
        self.st().dispatched.clone()
    }

    /// Number of Identify (op 2) payloads received.
    pub fn identify_count(&self) -> usize {
        self.st().identifies.len()
    }

    /// Number of Resume (op 6) payloads received.
    pub fn resume_count(&self) -> usize {
        self.st().resumes.len()
    }

    /// The `d` of every Identify, in order (`token` is `"Bot <token>"`, `intents`, `shard`).
    pub fn identifies(&self) -> Vec<Value> {
        self.st().identifies.clone()
    }

    /// Waits until at least `n` RESUMEs were accepted.
    pub async fn wait_resumes(&self, n: usize, timeout: Duration) -> bool {
        self.wait_for(timeout, |f| (f.resume_count() >= n).then_some(()))
            .await
            .is_some()
    }

    /// Sends any gateway dispatch (`t`, `d`) to the shard owning the guild (queued if none is
    /// connected).
    pub async fn dispatch(&self, t: &str, d: Value) {
        self.inner.dispatch(Self::GUILD_ID, t, d);
    }

    fn command_interaction(
        &self,
        who: Invoker,
        channel: u64,
        name: &str,
        options: Value,
        kind: u64,
    ) -> u64 {
        let mut options = if options.is_null() {
            json!([])
        } else {
            options
        };
        if kind == 4 {
            stringify_focused(&mut options);
        }
        // The interaction goes to the shard of the channel's guild.
        let guild = self.st().places.guild_of(channel);
        let payload = {
            let mut st = self.st();
            let (id, token) = new_interaction(&mut st, &who, channel, kind, None);
            let (cmd_id, cmd_guild) = st
                .commands
                .iter()
                .find(|c| c["name"] == name && c["type"].as_u64().unwrap_or(1) == 1)
                .map(|c| (id_of(&c["id"]), c.get("guild_id").cloned()))
                .unwrap_or((0, None));
            let cmd_id = if cmd_id == 0 { st.new_id() } else { cmd_id };
            let resolved = resolve_options(&st, &options);
            let mut data = json!({
                "id": cmd_id.to_string(),
                "name": name,
                "type": 1,
                "options": options,
                "resolved": resolved,
            });
            if let Some(g) = cmd_guild.filter(|g| !g.is_null()) {
                data["guild_id"] = g;
            }
            let mut p = interaction_base(&st, &who, channel, id, &token, kind);
            p["data"] = data;
            p
        };
        let id = id_of(&payload["id"]);
        self.inner.dispatch(guild, "INTERACTION_CREATE", payload);
        id
    }

    fn component_interaction(
        &self,
        who: Invoker,
        channel: u64,
        message: Value,
        data: Value,
    ) -> u64 {
        self.interaction_on(who, channel, message, data, 3)
    }

    /// Injects an interaction of type `kind` (3 a component, 5 a modal submit) on `message`.
    fn interaction_on(
        &self,
        who: Invoker,
        channel: u64,
        message: Value,
        data: Value,
        kind: u64,
    ) -> u64 {
        let guild = self.st().places.guild_of(channel);
        let payload = {
            let mut st = self.st();
            let mid = id_of(&message["id"]);
            if mid != 0 && !st.messages.contains_key(&mid) {
                st.store_message(message.clone());
            }
            let (id, token) = new_interaction(&mut st, &who, channel, kind, Some(mid));
            let mut p = interaction_base(&st, &who, channel, id, &token, kind);
            p["data"] = data;
            p["message"] = message;
            p
        };
        let id = id_of(&payload["id"]);
        self.inner.dispatch(guild, "INTERACTION_CREATE", payload);
        id
    }
}

impl Inner {
    fn st(&self) -> MutexGuard<'_, St> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn bump(&self) {
        self.changed.send_modify(|v| *v += 1);
    }

    fn dispatch(&self, guild: u64, t: &str, d: Value) {
        {
            let mut st = self.st();
            if !send_guild(&mut st, guild, t, &d) {
                st.pending.push((guild, t.to_string(), d));
            }
        }
        self.bump();
    }
}

fn owns(shard: [u64; 2], guild: u64) -> bool {
    shard[1] <= 1 || (guild >> 22) % shard[1] == shard[0]
}

/// Sends a dispatch on connection `ci` (which must have a session); false if it cannot.
fn send_on(st: &mut St, ci: usize, t: &str, d: &Value) -> bool {
    let St {
        conns,
        sessions,
        dispatched,
        ..
    } = st;
    let conn = &conns[ci];
    let Some(session) = conn.session.as_ref().and_then(|s| sessions.get_mut(s)) else {
        return false;
    };
    session.seq += 1;
    let frame = json!({"op": 0, "s": session.seq, "t": t, "d": d}).to_string();
    session.log.push((session.seq, frame.clone()));
    dispatched.push((t.to_string(), d.clone()));
    conn.tx.send(Out::Text(frame)).is_ok()
}

/// Sends a dispatch on the live connection of the shard owning `guild`; false if there is none.
fn send_guild(st: &mut St, guild: u64, t: &str, d: &Value) -> bool {
    // The newest connection wins (a restarted bot may overlap its predecessor for a moment).
    match st
        .conns
        .iter()
        .rposition(|c| c.live && owns(c.shard, guild))
    {
        Some(ci) => send_on(st, ci, t, d),
        None => false,
    }
}

fn flush_pending(st: &mut St) {
    let pending = std::mem::take(&mut st.pending);
    for (g, t, d) in pending {
        if !send_guild(st, g, &t, &d) {
            st.pending.push((g, t, d));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Gateway

async fn gateway_upgrade(AxState(inner): AxState<Arc<Inner>>, ws: WebSocketUpgrade) -> Response {
    ws.max_message_size(64 << 20)
        .on_upgrade(move |socket| gateway_conn(inner, socket))
}

async fn gateway_conn(inner: Arc<Inner>, socket: WebSocket) {
    let (mut sink, mut stream) = socket.split();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let conn_id = {
        let mut st = inner.st();
        st.next_conn += 1;
        let id = st.next_conn;
        st.conns.push(Conn {
            id,
            tx,
            live: false,
            shard: [0, inner.shards],
            session: None,
        });
        id
    };
    let hello = json!({"op": 10, "s": null, "t": null, "d": {"heartbeat_interval": 41250}});
    if sink
        .send(WsMessage::Text(hello.to_string().into()))
        .await
        .is_ok()
    {
        loop {
            tokio::select! {
                out = rx.recv() => match out {
                    Some(Out::Text(s)) => {
                        if sink.send(WsMessage::Text(s.into())).await.is_err() {
                            break;
                        }
                    }
                    Some(Out::Close(code, reason)) => {
                        let frame = CloseFrame { code, reason: reason.into() };
                        let _ = sink.send(WsMessage::Close(Some(frame))).await;
                        break;
                    }
                    None => break,
                },
                msg = stream.next() => match msg {
                    Some(Ok(WsMessage::Text(t))) => gateway_frame(&inner, conn_id, t.as_str()),
                    Some(Ok(WsMessage::Binary(b))) => {
                        if let Ok(s) = std::str::from_utf8(&b) {
                            gateway_frame(&inner, conn_id, s);
                        }
                    }
                    Some(Ok(WsMessage::Close(_))) | Some(Err(_)) | None => break,
                    Some(Ok(_)) => {}
                },
            }
        }
    }
    inner.st().conns.retain(|c| c.id != conn_id);
    inner.bump();
}

fn gateway_frame(inner: &Inner, conn_id: u64, text: &str) {
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return;
    };
    let op = v["op"].as_u64().unwrap_or(u64::MAX);
    let d = v.get("d").cloned().unwrap_or(Value::Null);
    {
        let mut st = inner.st();
        let Some(ci) = st.conns.iter().position(|c| c.id == conn_id) else {
            return;
        };
        match op {
            1 => {
                let _ = st.conns[ci]
                    .tx
                    .send(Out::Text(json!({"op": 11, "d": null}).to_string()));
            }
            2 => identify(inner, &mut st, ci, d),
            6 => resume(&mut st, ci, d),
            _ => {}
        }
    }
    inner.bump();
}

fn identify(inner: &Inner, st: &mut St, ci: usize, d: Value) {
    let shard = match d["shard"].as_array() {
        Some(a) if a.len() == 2 => [a[0].as_u64().unwrap_or(0), a[1].as_u64().unwrap_or(1)],
        _ => [0, 1],
    };
    st.identifies.push(d);
    let session_id = format!("fake-session-{}", st.identifies.len());
    st.sessions.insert(
        session_id.clone(),
        Session {
            seq: 0,
            log: Vec::new(),
            shard,
        },
    );
    {
        let conn = &mut st.conns[ci];
        conn.shard = shard;
        conn.session = Some(session_id.clone());
        conn.live = true;
    }
    let ours: Vec<u64> = st
        .guilds
        .iter()
        .copied()
        .filter(|g| owns(shard, *g))
        .collect();
    let guilds: Vec<Value> = ours
        .iter()
        .map(|g| json!({"id": g.to_string(), "unavailable": true}))
        .collect();
    let mut user = user_object(FakeDiscord::BOT_USER_ID, FakeDiscord::BOT_NAME);
    user["bot"] = json!(true);
    user["verified"] = json!(true);
    user["mfa_enabled"] = json!(false);
    user["flags"] = json!(0);
    user["global_name"] = Value::Null;
    let ready = json!({
        "v": 10,
        "user": user,
        "guilds": guilds,
        "session_id": session_id,
        "resume_gateway_url": format!("ws://127.0.0.1:{}", inner.port),
        "shard": shard,
        "application": {"id": FakeDiscord::APP_ID.to_string(), "flags": 0},
        "private_channels": [],
        "relationships": [],
        "presences": [],
        "geo_ordered_rtc_regions": [],
        "guild_join_requests": [],
        "user_settings": {},
        "session_type": "normal",
        "_trace": ["fake-discord"],
    });
    send_on(st, ci, "READY", &ready);
    for g in ours {
        let guild = guild_object(st, g);
        send_on(st, ci, "GUILD_CREATE", &guild);
        st.guild_ready_count += 1;
    }
    st.ready_count += 1;
    flush_pending(st);
}

fn resume(st: &mut St, ci: usize, d: Value) {
    st.resumes.push(d.clone());
    let sid = d["session_id"].as_str().unwrap_or_default().to_string();
    let last = d["seq"].as_u64().unwrap_or(0);
    let Some(session) = st.sessions.get(&sid) else {
        let _ = st.conns[ci]
            .tx
            .send(Out::Text(json!({"op": 9, "d": false}).to_string()));
        return;
    };
    let shard = session.shard;
    let replay: Vec<String> = session
        .log
        .iter()
        .filter(|(s, _)| *s > last)
        .map(|(_, f)| f.clone())
        .collect();
    // Any other connection still holding this session is stale.
    for c in st.conns.iter_mut() {
        if c.session.as_deref() == Some(sid.as_str()) {
            c.live = false;
            c.session = None;
        }
    }
    let conn = &mut st.conns[ci];
    conn.shard = shard;
    conn.session = Some(sid);
    conn.live = true;
    for f in replay {
        let _ = conn.tx.send(Out::Text(f));
    }
    send_on(st, ci, "RESUMED", &json!({"_trace": ["fake-discord"]}));
    flush_pending(st);
}

// ---------------------------------------------------------------------------------------------
// REST

fn not_found() -> (StatusCode, Value) {
    discord_error(StatusCode::NOT_FOUND, 0, "404: Not Found")
}

async fn rest(
    AxState(inner): AxState<Arc<Inner>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let at = Instant::now();
    let path = uri.path().to_string();
    let query = uri.query().map(str::to_string);
    let proxied = headers.contains_key(proxy::MARK);
    let ctype = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let (json, files) = if ctype.starts_with("multipart/form-data") {
        parse_multipart(&ctype, &body)
    } else if body.is_empty() {
        (None, Vec::new())
    } else {
        (serde_json::from_slice(&body).ok(), Vec::new())
    };
    let fault = inner
        .st()
        .faults
        .iter_mut()
        .find(|f| f.times > 0 && f.method == method.as_str() && path.contains(&f.path))
        .map(|f| {
            f.times -= 1;
            f.clone()
        });
    if let Some(f) = &fault {
        // A fault was spent (`faults_left` changed): wake whoever waits for that.
        inner.bump();
        // A slow answer: the request hangs this long first.
        tokio::time::sleep(f.delay).await;
    }
    let fault_headers: Vec<(String, String)> = fault
        .as_ref()
        .map(|f| f.headers.clone())
        .unwrap_or_default();
    let mut limit_headers: Vec<(String, String)> = Vec::new();
    let (status, answer) = {
        let mut st = inner.st();
        let gate = if fault.is_none() {
            Some(st.places.admit(method.as_str(), &path))
        } else {
            None
        };
        let refused = gate.as_ref().and_then(|g| g.refused.clone());
        limit_headers.extend(gate.map(|g| g.headers).unwrap_or_default());
        let (status, answer, message) = match fault {
            _ if refused.is_some() => refused.unwrap_or_else(|| err(not_found())),
            Some(f) => {
                if f.after_doing_it {
                    route(&inner, &mut st, &method, &path, &json, &files);
                }
                (
                    StatusCode::from_u16(f.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                    Some(f.body),
                    None,
                )
            }
            None => route(&inner, &mut st, &method, &path, &json, &files),
        };
        limit_headers.append(&mut st.answer_headers);
        if matches!(status.as_u16(), 401 | 403 | 429) {
            let scope = limit_headers
                .iter()
                .chain(&fault_headers)
                .find(|(n, _)| n == "x-ratelimit-scope")
                .map(|(_, v)| match v.as_str() {
                    "global" => "global",
                    "shared" => "shared",
                    _ => "user",
                });
            let code = answer
                .as_ref()
                .and_then(|a| a["code"].as_u64())
                .unwrap_or(0);
            st.places
                .refuse(method.as_str(), &path, status.as_u16(), code, scope);
        }
        st.requests.push(Recorded {
            method: method.to_string(),
            path,
            query,
            json,
            files,
            at,
            status: status.as_u16(),
            answer: answer.clone(),
            message,
            proxied,
        });
        (status, answer)
    };
    inner.bump();
    let mut response = match answer {
        None => status.into_response(),
        Some(v) => (
            status,
            [("content-type", "application/json")],
            v.to_string(),
        )
            .into_response(),
    };
    for (name, value) in limit_headers.into_iter().chain(fault_headers) {
        if let (Ok(n), Ok(v)) = (
            axum::http::HeaderName::from_bytes(name.as_bytes()),
            axum::http::HeaderValue::from_str(&value),
        ) {
            response.headers_mut().insert(n, v);
        }
    }
    response
}

fn ok(v: Value) -> Answer {
    (StatusCode::OK, Some(v), None)
}

fn ok_msg(v: Value) -> Answer {
    (StatusCode::OK, Some(v.clone()), Some(v))
}

fn err((status, v): (StatusCode, Value)) -> Answer {
    (status, Some(v), None)
}

fn no_content() -> Answer {
    (StatusCode::NO_CONTENT, None, None)
}

fn route(
    inner: &Inner,
    st: &mut St,
    method: &Method,
    path: &str,
    json: &Option<Value>,
    files: &[(String, Vec<u8>)],
) -> Answer {
    let Some(rest) = path
        .strip_prefix("/api/v10/")
        .or_else(|| path.strip_prefix("/api/v9/"))
    else {
        return err(not_found());
    };
    let seg: Vec<&str> = rest.trim_end_matches('/').split('/').collect();
    let body = json.clone().unwrap_or(Value::Null);
    // A deleted channel is gone for every request.
    if seg.len() >= 2 && seg[0] == "channels" && st.deleted.contains(&parse_id(seg[1])) {
        return err(discord_error(
            StatusCode::NOT_FOUND,
            10003,
            "Unknown Channel",
        ));
    }
    // A message's buttons, as Discord checks them (a modal's text inputs have their own check).
    let message = match (method.as_str(), seg.as_slice()) {
        ("POST", ["interactions", _, _, "callback"]) => {
            matches!(body["type"].as_u64(), Some(4 | 7)).then(|| &body["data"])
        }
        ("POST" | "PATCH", ["webhooks", ..]) => Some(&body),
        ("POST" | "PATCH", ["channels", _, "messages", ..]) => Some(&body),
        _ => None,
    };
    if let Some(why) = message.and_then(|m| components_fault(&m["components"])) {
        return err(discord_error(
            StatusCode::BAD_REQUEST,
            50035,
            &format!("Invalid Form Body ({why})"),
        ));
    }
    let app = FakeDiscord::APP_ID.to_string();
    let req = Req {
        inner,
        m: method.as_str(),
        seg: &seg,
        body: &body,
        files,
        path,
        app: &app,
    };
    match seg.first().copied() {
        Some("guilds") => guild_route(st, &req),
        Some("interactions" | "webhooks") => interaction_route(st, &req),
        Some("channels") if matches!(seg.get(2).copied(), Some("messages" | "threads")) => {
            channel_content_route(st, &req)
        }
        Some("channels") => channel_route(st, &req),
        _ => app_route(st, &req),
    }
}

/// A REST request as [`route`] reads it: its method, its path's segments after the API's
/// version, its JSON body (`Null` for none) and files, and the application's id.
struct Req<'a> {
    inner: &'a Inner,
    m: &'a str,
    seg: &'a [&'a str],
    body: &'a Value,
    files: &'a [(String, Vec<u8>)],
    path: &'a str,
    app: &'a str,
}

/// The gateway's address, users, DM channels and the application's commands.
fn app_route(st: &mut St, req: &Req) -> Answer {
    let Req {
        inner,
        m,
        seg,
        body,
        app,
        ..
    } = *req;
    match (m, seg) {
        ("GET", ["gateway"]) => ok(json!({"url": format!("ws://127.0.0.1:{}", inner.port)})),
        ("GET", ["gateway", "bot"]) => ok(json!({
            "url": format!("ws://127.0.0.1:{}", inner.port),
            "shards": inner.shards,
            "session_start_limit": {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1},
        })),
        ("GET", ["users", "@me"]) => {
            let mut u = user_object(FakeDiscord::BOT_USER_ID, FakeDiscord::BOT_NAME);
            u["bot"] = json!(true);
            ok(u)
        }
        ("POST", ["users", "@me", "channels"]) => {
            let user = id_of(&body["recipient_id"]);
            if user == 0 {
                return err(discord_error(
                    StatusCode::BAD_REQUEST,
                    50035,
                    "Invalid Form Body (recipient_id)",
                ));
            }
            let id = match st.dms.get(&user) {
                Some(id) => *id,
                None => {
                    let id = st.new_id();
                    st.dms.insert(user, id);
                    id
                }
            };
            let dm = json!({
                "id": id.to_string(),
                "type": 1,
                "last_message_id": null,
                "flags": 0,
                "recipients": [user_object(user, &st.user_name(user))],
            });
            st.places.channels.insert(id, dm.clone());
            ok(dm)
        }
        ("GET", ["users", id]) => {
            let id = parse_id(id);
            ok(user_object(id, &st.user_name(id)))
        }
        ("GET", ["oauth2", "applications", "@me"]) | ("GET", ["applications", "@me"]) => {
            ok(application_info(st))
        }
        // Commands.
        ("PUT", ["applications", a, "commands"]) if *a == app => {
            ok(register_commands(st, body, None))
        }
        ("PUT", ["applications", a, "guilds", g, "commands"]) if *a == app => {
            ok(register_commands(st, body, Some(parse_id(g))))
        }
        ("GET", ["applications", a, "commands"]) if *a == app => ok(Value::Array(
            st.commands
                .iter()
                .filter(|c| c.get("guild_id").is_none_or(Value::is_null))
                .cloned()
                .collect(),
        )),
        ("GET", ["applications", a, "guilds", g, "commands"]) if *a == app => {
            let g = json!(g.to_string());
            ok(Value::Array(
                st.commands
                    .iter()
                    .filter(|c| c.get("guild_id") == Some(&g))
                    .cloned()
                    .collect(),
            ))
        }
        ("POST", ["applications", a, "commands"]) if *a == app => {
            let cmd = command_object(st, body, None);
            st.commands
                .retain(|c| !(c["name"] == cmd["name"] && c["guild_id"].is_null()));
            st.commands.push(cmd.clone());
            ok(cmd)
        }
        ("POST", ["applications", a, "guilds", g, "commands"]) if *a == app => {
            let g = parse_id(g);
            let cmd = command_object(st, body, Some(g));
            st.commands
                .retain(|c| !(c["name"] == cmd["name"] && c["guild_id"] == cmd["guild_id"]));
            st.commands.push(cmd.clone());
            ok(cmd)
        }
        _ => err(not_found()),
    }
}

/// A guild, its members, channels and active threads.
fn guild_route(st: &mut St, req: &Req) -> Answer {
    let Req { m, seg, .. } = *req;
    match (m, seg) {
        ("GET", ["guilds", g]) if st.guilds.contains(&parse_id(g)) => {
            let mut g = guild_object(st, parse_id(g));
            if let Some(o) = g.as_object_mut() {
                for k in [
                    "members",
                    "channels",
                    "threads",
                    "presences",
                    "voice_states",
                    "stage_instances",
                    "guild_scheduled_events",
                    "joined_at",
                    "large",
                    "member_count",
                ] {
                    o.remove(k);
                }
            }
            ok(g)
        }
        ("GET", ["guilds", g, "members", u]) if st.guilds.contains(&parse_id(g)) => {
            let id = parse_id(u);
            let mut mem = member_object(&user_object(id, &st.user_name(id)), &[], None);
            mem["guild_id"] = json!(g.to_string());
            ok(mem)
        }
        ("GET", ["guilds", g, "threads", "active"]) if st.guilds.contains(&parse_id(g)) => {
            let threads = st.places.active_threads(parse_id(g));
            ok(json!({"threads": threads, "members": []}))
        }
        ("GET", ["guilds", g, "channels"]) if st.guilds.contains(&parse_id(g)) => {
            let g = parse_id(g);
            let mut chans: Vec<Value> = st
                .places
                .channels
                .values()
                .filter(|c| c["type"] == 0 && id_of(&c["guild_id"]) == g)
                .cloned()
                .collect();
            chans.sort_by_key(id_of);
            ok(Value::Array(chans))
        }
        _ => err(not_found()),
    }
}

/// Interaction callbacks, follow-ups and their edits.
fn interaction_route(st: &mut St, req: &Req) -> Answer {
    let Req {
        m,
        seg,
        body,
        files,
        app,
        ..
    } = *req;
    match (m, seg) {
        ("POST", ["interactions", id, token, "callback"]) => {
            interaction_callback(st, parse_id(id), token, body, files)
        }
        ("POST", ["webhooks", a, token]) if *a == app => {
            let Some(ch) = acknowledged_channel(st, token) else {
                return err(discord_error(
                    StatusCode::NOT_FOUND,
                    10015,
                    "Unknown Webhook",
                ));
            };
            // A follow-up in an archived thread unarchives it when there is room.
            st.places.responding_in(ch);
            let mut msg = build_message(st, ch, body, files, Some(20));
            msg["webhook_id"] = json!(app);
            st.store_message(msg.clone());
            ok_msg(msg)
        }
        (_, ["webhooks", a, token, "messages", mid]) if *a == app => {
            if acknowledged_channel(st, token).is_none() {
                return err(discord_error(
                    StatusCode::NOT_FOUND,
                    10015,
                    "Unknown Webhook",
                ));
            }
            let mid = if *mid == "@original" {
                match st.originals.get(*token) {
                    Some(id) => *id,
                    None => {
                        return err(discord_error(
                            StatusCode::NOT_FOUND,
                            10008,
                            "Unknown Message",
                        ))
                    }
                }
            } else {
                parse_id(mid)
            };
            message_op(st, m, mid, body, files)
        }
        _ => err(not_found()),
    }
}

/// A channel: read, changed (a thread archived), deleted; typing, pins, reactions.
fn channel_route(st: &mut St, req: &Req) -> Answer {
    let Req {
        m, seg, body, path, ..
    } = *req;
    match (m, seg) {
        ("GET", ["channels", c]) => match st.places.channels.get(&parse_id(c)) {
            Some(ch) => ok(ch.clone()),
            None => err(discord_error(
                StatusCode::NOT_FOUND,
                10003,
                "Unknown Channel",
            )),
        },
        ("PATCH", ["channels", c]) => {
            let id = parse_id(c);
            if let Some(refused) = st.places.patching_thread(id, body, m, path) {
                return refused;
            }
            let was_archived = st
                .places
                .channels
                .get(&id)
                .is_some_and(|ch| ch["thread_metadata"]["archived"] == json!(true));
            match st.places.channels.get_mut(&id) {
                Some(ch) => {
                    for (k, v) in body.as_object().into_iter().flatten() {
                        if k == "archived" || k == "locked" || k == "auto_archive_duration" {
                            ch["thread_metadata"][k] = v.clone();
                            if k == "archived" {
                                ch["thread_metadata"]["archive_timestamp"] = json!(now_iso());
                            }
                        } else {
                            ch[k] = v.clone();
                        }
                    }
                    let ch = ch.clone();
                    if was_archived && ch["thread_metadata"]["archived"] != json!(true) {
                        st.places.thread_started(id);
                    }
                    ok(ch)
                }
                None => err(discord_error(
                    StatusCode::NOT_FOUND,
                    10003,
                    "Unknown Channel",
                )),
            }
        }
        ("PUT" | "DELETE", ["channels", _, "thread-members", _]) => no_content(),
        ("POST", ["channels", _, "typing"]) => no_content(),
        ("PUT" | "DELETE", ["channels", _, "messages", _, "reactions", ..]) => no_content(),
        ("PUT" | "DELETE", ["channels", _, "pins", _]) => no_content(),
        ("DELETE", ["channels", c]) => match st.places.channels.remove(&parse_id(c)) {
            Some(ch) => {
                st.deleted.push(parse_id(c));
                ok(ch)
            }
            None => err(discord_error(
                StatusCode::NOT_FOUND,
                10003,
                "Unknown Channel",
            )),
        },
        _ => err(not_found()),
    }
}

/// A channel's messages and its threads.
fn channel_content_route(st: &mut St, req: &Req) -> Answer {
    let Req {
        m,
        seg,
        body,
        files,
        path,
        ..
    } = *req;
    match (m, seg) {
        ("POST", ["channels", c, "messages"]) => {
            let c = parse_id(c);
            if let Some(refused) = st.places.posting_in(c, m, path) {
                return refused;
            }
            if st.closed_dms.iter().any(|u| st.dms.get(u) == Some(&c)) {
                return err(discord_error(
                    StatusCode::FORBIDDEN,
                    50007,
                    "Cannot send messages to this user",
                ));
            }
            let nonce = match &body["nonce"] {
                Value::String(n) => Some(n.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            };
            if let (Some(n), true) = (&nonce, body["enforce_nonce"] == json!(true)) {
                if let Some(existing) = st.nonces.get(&(c, n.clone())) {
                    if let Some(m) = st.messages.get(existing) {
                        return ok(m.clone());
                    }
                }
            }
            let msg = build_message(st, c, body, files, None);
            if let Some(n) = nonce {
                st.nonces.insert((c, n), id_of(&msg));
            }
            st.store_message(msg.clone());
            ok_msg(msg)
        }
        ("GET", ["channels", c, "messages"]) => {
            let c = parse_id(c);
            let mut v: Vec<Value> = st
                .message_order
                .iter()
                .filter_map(|id| st.messages.get(id))
                .filter(|m| id_of(&m["channel_id"]) == c)
                .cloned()
                .collect();
            v.reverse();
            ok(Value::Array(v))
        }
        (_, ["channels", c, "messages", mid]) => {
            if m == "PATCH" {
                if let Some(refused) = st.places.editing_in(parse_id(c), m, path) {
                    return refused;
                }
            }
            message_op(st, m, parse_id(mid), body, files)
        }
        ("POST", ["channels", c, "threads"]) => {
            let c = parse_id(c);
            if let Err((refused, headers)) =
                st.places.may_create_thread(st.places.guild_of(c), m, path)
            {
                st.answer_headers = headers;
                return refused;
            }
            let id = st.new_id();
            let kind = body["type"].as_u64().unwrap_or(11);
            let mut t = thread_channel(id, c, kind, body);
            t["guild_id"] = json!(st.places.guild_of(c).to_string());
            st.places.channels.insert(id, t.clone());
            st.places.thread_started(id);
            ok(t)
        }
        ("POST", ["channels", c, "messages", mid, "threads"]) => {
            let c = parse_id(c);
            let id = parse_id(mid);
            if st.places.channels.contains_key(&id) {
                return err(discord_error(
                    StatusCode::BAD_REQUEST,
                    160004,
                    "A thread has already been created for this message",
                ));
            }
            if let Err((refused, headers)) =
                st.places.may_create_thread(st.places.guild_of(c), m, path)
            {
                st.answer_headers = headers;
                return refused;
            }
            let mut t = thread_channel(id, c, 11, body);
            t["guild_id"] = json!(st.places.guild_of(c).to_string());
            st.places.channels.insert(id, t.clone());
            st.places.thread_started(id);
            if let Some(msg) = st.messages.get_mut(&id) {
                msg["thread"] = t.clone();
            }
            ok(t)
        }
        _ => err(not_found()),
    }
}

fn acknowledged_channel(st: &St, token: &str) -> Option<u64> {
    let iid = st.tokens.get(token)?;
    let i = st.interactions.get(iid)?;
    i.acknowledged.then_some(i.channel)
}

/// GET / PATCH / DELETE of a stored message.
fn message_op(
    st: &mut St,
    method: &str,
    mid: u64,
    body: &Value,
    files: &[(String, Vec<u8>)],
) -> Answer {
    let Some(existing) = st.messages.get(&mid).cloned() else {
        return err(discord_error(
            StatusCode::NOT_FOUND,
            10008,
            "Unknown Message",
        ));
    };
    match method {
        "GET" => ok(existing),
        "PATCH" => {
            let msg = edit_message(st, existing, body, files);
            st.store_message(msg.clone());
            ok_msg(msg)
        }
        "DELETE" => {
            st.messages.remove(&mid);
            st.message_order.retain(|i| *i != mid);
            no_content()
        }
        _ => err(not_found()),
    }
}

fn interaction_callback(
    st: &mut St,
    id: u64,
    token: &str,
    body: &Value,
    files: &[(String, Vec<u8>)],
) -> Answer {
    let Some(i) = st.interactions.get(&id) else {
        return err(discord_error(
            StatusCode::NOT_FOUND,
            10062,
            "Unknown interaction",
        ));
    };
    if i.token != token {
        return err(discord_error(
            StatusCode::UNAUTHORIZED,
            50027,
            "Invalid Webhook Token",
        ));
    }
    if i.acknowledged {
        return err(discord_error(
            StatusCode::BAD_REQUEST,
            40060,
            "Interaction has already been acknowledged.",
        ));
    }
    let (channel, component_msg) = (i.channel, i.message_id);
    let kind = body["type"].as_u64().unwrap_or(0);
    // Which callback types Discord accepts for which interaction type.
    let allowed: &[u64] = match i.kind {
        2 => &[4, 5, 9, 10, 12],
        3 => &[4, 5, 6, 7, 9, 10, 12],
        4 => &[8],
        5 => &[4, 5, 6, 7, 10, 12],
        _ => &[1],
    };
    if !allowed.contains(&kind) {
        return err(discord_error(
            StatusCode::BAD_REQUEST,
            50035,
            &format!(
                "Invalid Form Body (callback type {kind} is not valid for interaction type {})",
                i.kind
            ),
        ));
    }
    let data = body.get("data").cloned().unwrap_or(json!({}));
    if kind == 9 {
        if let Some(why) = modal_fault(&data) {
            return err(discord_error(
                StatusCode::BAD_REQUEST,
                50035,
                &format!("Invalid Form Body ({why})"),
            ));
        }
    }
    let mut message = None;
    if matches!(kind, 4 | 5) {
        // A response in an archived thread unarchives it when there is room.
        st.places.responding_in(channel);
    }
    match kind {
        4 => {
            let msg = build_message(st, channel, &data, files, Some(20));
            st.originals.insert(token.to_string(), id_of(&msg));
            st.store_message(msg.clone());
            message = Some(msg);
        }
        5 => {
            let mut d = data.clone();
            let flags = d["flags"].as_u64().unwrap_or(0) | 128;
            d["flags"] = json!(flags);
            d["content"] = json!("");
            let msg = build_message(st, channel, &d, &[], Some(20));
            st.originals.insert(token.to_string(), id_of(&msg));
            st.store_message(msg.clone());
            message = Some(msg);
        }
        6 | 7 => {
            if let Some(mid) = component_msg {
                st.originals.insert(token.to_string(), mid);
                if kind == 7 {
                    if let Some(existing) = st.messages.get(&mid).cloned() {
                        let msg = edit_message(st, existing, &data, files);
                        st.store_message(msg.clone());
                        message = Some(msg);
                    }
                }
            }
        }
        _ => {}
    }
    if let Some(i) = st.interactions.get_mut(&id) {
        i.acknowledged = true;
    }
    (StatusCode::NO_CONTENT, None, message)
}

/// What Discord refuses in a modal (callback type 9): a title of 1 to 45 characters, a custom
/// id of 1 to 100, and 1 to 5 action rows each holding one text input (type 4) with a custom
/// id, a label of 1 to 45 characters and a style of 1 (short) or 2 (paragraph).
fn modal_fault(data: &Value) -> Option<String> {
    let len = |v: &Value| v.as_str().map(|s| s.chars().count());
    if !matches!(len(&data["title"]), Some(1..=45)) {
        return Some("data.title: must be 1 to 45 characters".into());
    }
    if !matches!(len(&data["custom_id"]), Some(1..=100)) {
        return Some("data.custom_id: must be 1 to 100 characters".into());
    }
    let rows = data["components"].as_array().cloned().unwrap_or_default();
    if rows.is_empty() || rows.len() > 5 {
        return Some("data.components: 1 to 5 action rows".into());
    }
    for row in &rows {
        let inputs = row["components"].as_array().cloned().unwrap_or_default();
        let ok = row["type"] == 1
            && inputs.len() == 1
            && inputs[0]["type"] == 4
            && matches!(len(&inputs[0]["custom_id"]), Some(1..=100))
            && matches!(len(&inputs[0]["label"]), Some(1..=45))
            && matches!(inputs[0]["style"].as_u64(), Some(1 | 2));
        if !ok {
            return Some(format!("data.components: not one valid text input: {row}"));
        }
    }
    None
}

fn register_commands(st: &mut St, body: &Value, guild: Option<u64>) -> Value {
    let gid = guild.map(|g| json!(g.to_string())).unwrap_or(Value::Null);
    st.commands
        .retain(|c| c.get("guild_id").cloned().unwrap_or(Value::Null) != gid);
    let mut out = Vec::new();
    for c in body.as_array().into_iter().flatten() {
        let cmd = command_object(st, c, guild);
        st.commands.push(cmd.clone());
        out.push(cmd);
    }
    Value::Array(out)
}

fn command_object(st: &mut St, body: &Value, guild: Option<u64>) -> Value {
    let mut cmd = body.clone();
    if !cmd.is_object() {
        cmd = json!({});
    }
    let id = st.new_id();
    cmd["id"] = json!(id.to_string());
    cmd["version"] = json!(id.to_string());
    cmd["application_id"] = json!(FakeDiscord::APP_ID.to_string());
    if cmd.get("type").is_none_or(Value::is_null) {
        cmd["type"] = json!(1);
    }
    if cmd.get("description").is_none_or(Value::is_null) {
        cmd["description"] = json!("");
    }
    if cmd.get("default_member_permissions").is_none() {
        cmd["default_member_permissions"] = Value::Null;
    }
    if cmd.get("nsfw").is_none_or(Value::is_null) {
        cmd["nsfw"] = json!(false);
    }
    cmd["guild_id"] = match guild {
        Some(g) => json!(g.to_string()),
        None => Value::Null,
    };
    if cmd["guild_id"].is_null() {
        if let Some(o) = cmd.as_object_mut() {
            o.remove("guild_id");
        }
    }
    cmd
}

// ---------------------------------------------------------------------------------------------
// Objects

fn parse_id(s: &str) -> u64 {
    s.parse().unwrap_or(0)
}

fn path_channel(path: &str) -> Option<u64> {
    let mut it = path.split('/');
    it.by_ref().find(|s| *s == "channels")?;
    it.next()?.parse().ok()
}

fn user_object(id: u64, name: &str) -> Value {
    json!({
        "id": id.to_string(),
        "username": name,
        "discriminator": "0",
        "global_name": name,
        "avatar": null,
        "bot": id == FakeDiscord::BOT_USER_ID,
        "public_flags": 0,
        "flags": 0,
        "banner": null,
        "accent_color": null,
        "avatar_decoration_data": null,
    })
}

fn member_object(user: &Value, roles: &[u64], permissions: Option<&str>) -> Value {
    let mut m = json!({
        "user": user,
        "nick": null,
        "avatar": null,
        "banner": null,
        "roles": roles.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
        "joined_at": "2024-01-01T00:00:00.000000+00:00",
        "premium_since": null,
        "deaf": false,
        "mute": false,
        "flags": 0,
        "pending": false,
        "communication_disabled_until": null,
        "unusual_dm_activity_until": null,
    });
    if let Some(p) = permissions {
        m["permissions"] = json!(p);
    }
    m
}

fn text_channel(id: u64, name: &str, position: u64) -> Value {
    json!({
        "id": id.to_string(),
        "type": 0,
        "guild_id": FakeDiscord::GUILD_ID.to_string(),
        "name": name,
        "position": position,
        "permission_overwrites": [],
        "nsfw": false,
        "parent_id": null,
        "topic": null,
        "last_message_id": null,
        "rate_limit_per_user": 0,
        "flags": 0,
    })
}

fn thread_channel(id: u64, parent: u64, kind: u64, body: &Value) -> Value {
    let now = now_iso();
    let name = body["name"].as_str().unwrap_or("thread").to_string();
    let archive = body["auto_archive_duration"].as_u64().unwrap_or(1440);
    json!({
        "id": id.to_string(),
        "type": kind,
        "guild_id": FakeDiscord::GUILD_ID.to_string(),
        "parent_id": parent.to_string(),
        "owner_id": FakeDiscord::BOT_USER_ID.to_string(),
        "name": name,
        "last_message_id": null,
        "rate_limit_per_user": body["rate_limit_per_user"].as_u64().unwrap_or(0),
        "message_count": 0,
        "member_count": 1,
        "total_message_sent": 0,
        "flags": 0,
        "thread_metadata": {
            "archived": false,
            "auto_archive_duration": archive,
            "archive_timestamp": now,
            "locked": false,
            "create_timestamp": now,
            "invitable": body["invitable"].as_bool().unwrap_or(true),
        },
        "member": {"join_timestamp": now, "flags": 0},
    })
}

fn role_object(id: u64, name: &str, permissions: &str, position: u64) -> Value {
    json!({
        "id": id.to_string(),
        "name": name,
        "color": 0,
        "colors": {"primary_color": 0, "secondary_color": null, "tertiary_color": null},
        "hoist": false,
        "icon": null,
        "unicode_emoji": null,
        "position": position,
        "permissions": permissions,
        "managed": false,
        "mentionable": false,
        "flags": 0,
    })
}

fn guild_object(st: &St, id: u64) -> Value {
    let bot = {
        let mut u = user_object(FakeDiscord::BOT_USER_ID, FakeDiscord::BOT_NAME);
        u["bot"] = json!(true);
        u
    };
    let here = |c: &&Value| id_of(&c["guild_id"]) == id;
    let mut channels: Vec<Value> = st
        .places
        .channels
        .values()
        .filter(|c| c["type"] == 0)
        .filter(here)
        .cloned()
        .collect();
    channels.sort_by_key(id_of);
    // Active threads only, as Discord sends them.
    let threads: Vec<Value> = st
        .places
        .channels
        .values()
        .filter(|c| matches!(c["type"].as_u64(), Some(10..=12)))
        .filter(|c| c["thread_metadata"]["archived"] != json!(true))
        .filter(here)
        .cloned()
        .collect();
    let (name, system_channel) = if id == FakeDiscord::GUILD_ID {
        ("Tara Test Guild", FakeDiscord::CHANNEL_ID)
    } else {
        ("Second Test Guild", FakeDiscord::SECOND_CHANNEL_ID)
    };
    let mut guild = json!({
        "id": id.to_string(),
        "name": name,
        "icon": null,
        "icon_hash": null,
        "splash": null,
        "discovery_splash": null,
        "owner_id": FakeDiscord::GUILD_OWNER_ID.to_string(),
        "widget_enabled": false,
        "widget_channel_id": null,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "roles": [
            role_object(id, "@everyone", FakeDiscord::PERMS_MEMBER, 0),
            role_object(FakeDiscord::MODERATOR_ROLE_ID, "Moderator", FakeDiscord::PERMS_MODERATOR, 1),
        ],
        "emojis": [],
        "features": [],
        "mfa_level": 0,
        "application_id": null,
        "system_channel_id": system_channel.to_string(),
        "system_channel_flags": 0,
        "rules_channel_id": null,
        "max_presences": null,
        "max_members": 500000,
        "vanity_url_code": null,
        "description": null,
        "banner": null,
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "preferred_locale": "en-US",
        "public_updates_channel_id": null,
        "max_video_channel_users": 25,
        "max_stage_video_channel_users": 50,
        "nsfw_level": 0,
        "stickers": [],
        "premium_progress_bar_enabled": false,
        "safety_alerts_channel_id": null,
        "incidents_data": null,
    });
    // GUILD_CREATE's extra fields (split: one json! this size exceeds the macro recursion limit).
    let extra = json!({
        "joined_at": "2024-01-01T00:00:00.000000+00:00",
        "large": false,
        "unavailable": false,
        "member_count": 2,
        "voice_states": [],
        "members": [member_object(&bot, &[], None)],
        "channels": channels,
        "threads": threads,
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "lazy": true,
    });
    if let (Some(g), Value::Object(extra)) = (guild.as_object_mut(), extra) {
        g.extend(extra);
    }
    guild
}

fn application_info(st: &St) -> Value {
    json!({
        "id": FakeDiscord::APP_ID.to_string(),
        "name": FakeDiscord::BOT_NAME,
        "icon": null,
        "description": "",
        "rpc_origins": [],
        "bot_public": true,
        "bot_require_code_grant": false,
        "owner": user_object(FakeDiscord::GUILD_OWNER_ID, &st.user_name(FakeDiscord::GUILD_OWNER_ID)),
        "verify_key": "0000000000000000000000000000000000000000000000000000000000000000",
        "team": null,
        "flags": 0,
    })
}

fn partial_channel(st: &St, channel: u64) -> Value {
    let c = st.channel_object(channel);
    let mut p = json!({
        "id": c["id"],
        "type": c["type"],
        "name": c["name"],
        "guild_id": st.places.guild_of(channel).to_string(),
        "parent_id": c.get("parent_id").cloned().unwrap_or(Value::Null),
        "permissions": FakeDiscord::PERMS_BOT,
        "flags": 0,
        "nsfw": false,
        "position": c.get("position").cloned().unwrap_or(json!(0)),
        "rate_limit_per_user": 0,
        "topic": null,
        "last_message_id": null,
    });
    if let Some(meta) = c.get("thread_metadata") {
        p["thread_metadata"] = meta.clone();
    }
    p
}

fn new_interaction(
    st: &mut St,
    who: &Invoker,
    channel: u64,
    kind: u64,
    message_id: Option<u64>,
) -> (u64, String) {
    st.users.insert(who.id, who.name.clone());
    let id = st.new_id();
    let token = format!("faketoken{id}");
    st.tokens.insert(token.clone(), id);
    st.interactions.insert(
        id,
        Interaction {
            token: token.clone(),
            channel,
            kind,
            message_id,
            acknowledged: false,
            injected_at: Instant::now(),
        },
    );
    (id, token)
}

fn interaction_base(
    st: &St,
    who: &Invoker,
    channel: u64,
    id: u64,
    token: &str,
    kind: u64,
) -> Value {
    let user = user_object(who.id, &who.name);
    let guild = st.places.guild_of(channel).to_string();
    json!({
        "id": id.to_string(),
        "application_id": FakeDiscord::APP_ID.to_string(),
        "type": kind,
        "token": token,
        "version": 1,
        "guild_id": guild,
        "channel_id": channel.to_string(),
        "channel": partial_channel(st, channel),
        "member": member_object(&user, &who.roles, Some(&who.permissions)),
        "app_permissions": FakeDiscord::PERMS_BOT,
        "locale": who.locale,
        "guild_locale": "en-US",
        "guild": {"id": guild, "locale": "en-US", "features": []},
        "entitlements": [],
        "entitlement_sku_ids": [],
        "authorizing_integration_owners": {"0": guild},
        "context": 0,
        "attachment_size_limit": 26_214_400,
    })
}

/// Autocomplete values are strings on the wire, even for integer/number options.
fn stringify_focused(options: &mut Value) {
    for o in options.as_array_mut().into_iter().flatten() {
        if o["focused"] == json!(true) {
            let v = match &o["value"] {
                Value::String(_) => None,
                Value::Null => Some(json!("")),
                other => Some(json!(other.to_string())),
            };
            if let Some(v) = v {
                o["value"] = v;
            }
        }
        if let Some(sub) = o.get_mut("options") {
            stringify_focused(sub);
        }
    }
}

fn resolve_options(st: &St, options: &Value) -> Value {
    let mut users = Map::new();
    let mut members = Map::new();
    let mut channels = Map::new();
    let mut roles = Map::new();
    fn walk(
        st: &St,
        opts: &Value,
        users: &mut Map<String, Value>,
        members: &mut Map<String, Value>,
        channels: &mut Map<String, Value>,
        roles: &mut Map<String, Value>,
    ) {
        for o in opts.as_array().into_iter().flatten() {
            let id = id_of(&o["value"]);
            let focused = o["focused"] == json!(true);
            match o["type"].as_u64() {
                Some(6) | Some(9) if id != 0 && !focused => {
                    if id == FakeDiscord::GUILD_ID || id == FakeDiscord::MODERATOR_ROLE_ID {
                        roles.insert(id.to_string(), resolved_role(id));
                    } else {
                        let name = st.user_name(id);
                        users.insert(id.to_string(), user_object(id, &name));
                        let mut m =
                            member_object(&Value::Null, &[], Some(FakeDiscord::PERMS_MEMBER));
                        if let Some(m) = m.as_object_mut() {
                            m.remove("user");
                        }
                        members.insert(id.to_string(), m);
                    }
                }
                Some(7) if id != 0 && !focused => {
                    channels.insert(id.to_string(), partial_channel(st, id));
                }
                Some(8) if id != 0 && !focused => {
                    roles.insert(id.to_string(), resolved_role(id));
                }
                _ => {}
            }
            if let Some(sub) = o.get("options") {
                walk(st, sub, users, members, channels, roles);
            }
        }
    }
    walk(
        st,
        options,
        &mut users,
        &mut members,
        &mut channels,
        &mut roles,
    );
    let mut r = Map::new();
    for (k, v) in [
        ("users", users),
        ("members", members),
        ("channels", channels),
        ("roles", roles),
    ] {
        if !v.is_empty() {
            r.insert(k.to_string(), Value::Object(v));
        }
    }
    Value::Object(r)
}

fn resolved_role(id: u64) -> Value {
    if id == FakeDiscord::GUILD_ID {
        role_object(id, "@everyone", FakeDiscord::PERMS_MEMBER, 0)
    } else if id == FakeDiscord::MODERATOR_ROLE_ID {
        role_object(id, "Moderator", FakeDiscord::PERMS_MODERATOR, 1)
    } else {
        role_object(id, &format!("role{id}"), "0", 2)
    }
}

fn mentions_in(st: &St, content: &str) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut rest = content;
    while let Some(i) = rest.find("<@") {
        rest = &rest[i + 2..];
        let s = rest.strip_prefix('!').unwrap_or(rest);
        let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() && s[digits.len()..].starts_with('>') {
            let id = parse_id(&digits);
            if !out.iter().any(|u| id_of(u) == id) {
                out.push(user_object(id, &st.user_name(id)));
            }
        }
    }
    out
}

fn attachment_object(st: &mut St, channel: u64, name: &str, bytes: &[u8]) -> Value {
    let id = st.new_id();
    let url = format!("https://cdn.discordapp.com/attachments/{channel}/{id}/{name}");
    let ctype = match name
        .rsplit('.')
        .next()
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("png") => "image/png",
        Some("gif") => "image/gif",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("webp") => "image/webp",
        Some("txt") => "text/plain; charset=utf-8",
        Some("json") => "application/json; charset=utf-8",
        _ => "application/octet-stream",
    };
    let mut a = json!({
        "id": id.to_string(),
        "filename": name,
        "size": bytes.len(),
        "url": url,
        "proxy_url": url.replace("cdn.discordapp.com", "media.discordapp.net"),
        "content_type": ctype,
    });
    if let Some((w, h)) = image_size(bytes) {
        a["width"] = json!(w);
        a["height"] = json!(h);
    }
    a
}

fn image_size(b: &[u8]) -> Option<(u32, u32)> {
    if b.len() >= 24 && b.starts_with(b"\x89PNG\r\n\x1a\n") {
        let w = u32::from_be_bytes(b[16..20].try_into().ok()?);
        let h = u32::from_be_bytes(b[20..24].try_into().ok()?);
        return Some((w, h));
    }
    if b.len() >= 10 && (b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a")) {
        let w = u16::from_le_bytes([b[6], b[7]]) as u32;
        let h = u16::from_le_bytes([b[8], b[9]]) as u32;
        return Some((w, h));
    }
    None
}

/// A message object for a new message built from a create-message body.
fn build_message(
    st: &mut St,
    channel: u64,
    data: &Value,
    files: &[(String, Vec<u8>)],
    kind: Option<u64>,
) -> Value {
    let id = st.new_id();
    let content = data["content"].as_str().unwrap_or("").to_string();
    let attachments: Vec<Value> = files
        .iter()
        .map(|(n, b)| attachment_object(st, channel, n, b))
        .collect();
    let mut author = user_object(FakeDiscord::BOT_USER_ID, FakeDiscord::BOT_NAME);
    author["bot"] = json!(true);
    let mut msg = json!({
        "id": id.to_string(),
        "type": kind.unwrap_or(0),
        "channel_id": channel.to_string(),
        "guild_id": st.places.guild_of(channel).to_string(),
        "author": author,
        "content": content,
        "timestamp": now_iso(),
        "edited_timestamp": null,
        "tts": data["tts"].as_bool().unwrap_or(false),
        "mention_everyone": false,
        "mentions": mentions_in(st, &content),
        "mention_roles": [],
        "mention_channels": [],
        "attachments": attachments,
        "embeds": data.get("embeds").cloned().filter(Value::is_array).unwrap_or(json!([])),
        "reactions": [],
        "pinned": false,
        "flags": data["flags"].as_u64().unwrap_or(0),
        "components": data.get("components").cloned().filter(Value::is_array).unwrap_or(json!([])),
        "sticker_items": [],
    });
    if st
        .places
        .channels
        .get(&channel)
        .is_some_and(|c| c["type"] == 1)
    {
        if let Some(o) = msg.as_object_mut() {
            o.remove("guild_id");
        }
    }
    if kind.is_some() {
        msg["webhook_id"] = json!(FakeDiscord::APP_ID.to_string());
        msg["application_id"] = json!(FakeDiscord::APP_ID.to_string());
    }
    if let Some(r) = data.get("message_reference").filter(|r| r.is_object()) {
        msg["message_reference"] = r.clone();
        msg["type"] = json!(19);
    }
    msg
}

/// Applies an edit-message body (PATCH, or an UPDATE_MESSAGE callback) to a stored message.
fn edit_message(st: &mut St, mut msg: Value, data: &Value, files: &[(String, Vec<u8>)]) -> Value {
    let channel = id_of(&msg["channel_id"]);
    if let Some(c) = data.get("content") {
        let content = c.as_str().unwrap_or("").to_string();
        msg["mentions"] = json!(mentions_in(st, &content));
        msg["content"] = json!(content);
    }
    for key in ["components", "embeds"] {
        if let Some(v) = data.get(key) {
            msg[key] = if v.is_array() { v.clone() } else { json!([]) };
        }
    }
    if let Some(f) = data.get("flags").and_then(Value::as_u64) {
        msg["flags"] = json!(f);
    }
    // A deferred response loses its "loading" flag once edited.
    if let Some(f) = msg["flags"].as_u64() {
        msg["flags"] = json!(f & !128);
    }
    let mut attachments: Vec<Value> = match data.get("attachments").and_then(Value::as_array) {
        Some(keep) => msg["attachments"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|a| keep.iter().any(|k| id_of(&k["id"]) == id_of(&a["id"])))
            .cloned()
            .collect(),
        None => msg["attachments"].as_array().cloned().unwrap_or_default(),
    };
    for (n, b) in files {
        attachments.push(attachment_object(st, channel, n, b));
    }
    msg["attachments"] = json!(attachments);
    msg["edited_timestamp"] = json!(now_iso());
    msg
}

// ---------------------------------------------------------------------------------------------
// Multipart and time

/// Parses a `multipart/form-data` body: returns the `payload_json` part and the file parts.
fn parse_multipart(ctype: &str, body: &[u8]) -> (Option<Value>, Vec<(String, Vec<u8>)>) {
    let Some(boundary) = ctype.split(';').find_map(|p| {
        p.trim()
            .strip_prefix("boundary=")
            .map(|b| b.trim_matches('"').to_string())
    }) else {
        return (None, Vec::new());
    };
    let delim = format!("--{boundary}").into_bytes();
    let mut json = None;
    let mut files = Vec::new();
    let mut positions = Vec::new();
    let mut i = 0;
    while let Some(p) = find(&body[i..], &delim) {
        positions.push(i + p);
        i += p + delim.len();
    }
    for w in positions.windows(2) {
        let mut part = &body[w[0] + delim.len()..w[1]];
        part = part.strip_prefix(b"\r\n").unwrap_or(part);
        part = part.strip_suffix(b"\r\n").unwrap_or(part);
        let Some(h_end) = find(part, b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&part[..h_end]).to_string();
        let data = &part[h_end + 4..];
        let mut name = None;
        let mut filename = None;
        for line in head.lines() {
            if line.to_ascii_lowercase().starts_with("content-disposition") {
                name = header_param(line, "name");
                filename = header_param(line, "filename");
            }
        }
        match (name.as_deref(), filename) {
            (_, Some(f)) => files.push((f, data.to_vec())),
            (Some("payload_json"), None) => json = serde_json::from_slice(data).ok(),
            _ => {}
        }
    }
    (json, files)
}

fn header_param(line: &str, key: &str) -> Option<String> {
    for p in line.split(';').skip(1) {
        let p = p.trim();
        if let Some(v) = p.strip_prefix(&format!("{key}=")) {
            return Some(percent_decode(v.trim_matches('"')));
        }
    }
    None
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).to_string()
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::components_fault;
    use serde_json::json;

    /// The fake refuses the buttons Discord refuses: a link button needs a URL and no custom
    /// id, any other a custom id and no URL; five buttons a row, five rows, labels of 80.
    #[test]
    fn buttons_are_checked_as_discord_checks_them() {
        let row = |buttons: serde_json::Value| json!([{"type": 1, "components": buttons}]);
        let link = json!({"type": 2, "style": 5, "label": "Open on the web", "url": "https://tara.example.org/g/1"});
        let step = json!({"type": 2, "style": 2, "label": "◀", "custom_id": "step:1:0:s:0"});
        assert_eq!(components_fault(&row(json!([step, link]))), None);
        assert_eq!(components_fault(&serde_json::Value::Null), None);
        let mut with_id = link.clone();
        with_id["custom_id"] = json!("open");
        let mut no_url = link.clone();
        no_url["url"] = serde_json::Value::Null;
        let mut long_url = link.clone();
        long_url["url"] = json!(format!("https://tara.example.org/{}", "a".repeat(500)));
        let mut not_http = link.clone();
        not_http["url"] = json!("javascript:alert(1)");
        let mut with_url = step.clone();
        with_url["url"] = json!("https://tara.example.org");
        let mut long_label = step.clone();
        long_label["label"] = json!("x".repeat(81));
        for bad in [with_id, no_url, long_url, not_http, with_url, long_label] {
            assert!(components_fault(&row(json!([bad]))).is_some(), "{bad}");
        }
        let six: Vec<_> = (0..6).map(|_| step.clone()).collect();
        assert!(components_fault(&row(json!(six))).is_some());
        let rows: Vec<_> = (0..6)
            .map(|_| json!({"type": 1, "components": [step.clone()]}))
            .collect();
        assert!(components_fault(&json!(rows)).is_some());
    }
}
