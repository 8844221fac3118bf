//! A shared REST proxy for tests, standing in for twilight's `http-proxy` or nirn-proxy in front
//! of the fake Discord: every bot process sends its REST calls to it (`DISCORD_PROXY_URL`), and
//! it forwards them through one global queue, each sent at least `1 / per_second` after the one
//! before whichever process sent them, as those proxies hold a bot to Discord's global rate limit
//! across processes. It marks each request it forwards ([`MARK`]) so the fake can tell what
//! came through it, and keeps when each went out.

use axum::body::Bytes;
use axum::extract::State as AxState;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt;
use axum::Router;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The header the proxy adds to every request it forwards.
pub const MARK: &str = "x-tara-test-proxy";

/// The request headers a client sends that the proxy passes on.
const REQUEST_HEADERS: [&str; 4] = [
    "authorization",
    "content-type",
    "user-agent",
    "x-audit-log-reason",
];

/// A running proxy.
pub struct RestProxy {
    inner: Arc<Inner>,
}

struct Inner {
    upstream: String,
    port: u16,
    client: reqwest::Client,
    /// The time between two requests going out.
    spacing: Duration,
    /// When the next request may go out.
    next: tokio::sync::Mutex<Instant>,
    /// When each forwarded request went out.
    sent: Mutex<Vec<Instant>>,
}

impl RestProxy {
    /// A proxy on 127.0.0.1 forwarding to `upstream` (e.g. the fake's `proxy_url()`), at most
    /// `per_second` requests a second in all.
    pub async fn start(upstream: &str, per_second: u32) -> RestProxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let port = listener.local_addr().unwrap().port();
        let inner = Arc::new(Inner {
            upstream: upstream.trim_end_matches('/').to_string(),
            port,
            client: reqwest::Client::new(),
            spacing: Duration::from_secs(1) / per_second.max(1),
            next: tokio::sync::Mutex::new(Instant::now()),
            sent: Mutex::new(Vec::new()),
        });
        let app = Router::new().fallback(forward).with_state(inner.clone());
        tokio::spawn(async move {
            // Without TCP_NODELAY a small write that follows another waits for the bot's
            // delayed acknowledgement (40 ms): the gateway's events one after another.
            let listener = listener.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            });
            axum::serve(listener, app).await.ok();
        });
        RestProxy { inner }
    }

    /// Its URL, for `DISCORD_PROXY_URL`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.inner.port)
    }

    /// How many requests it forwarded.
    pub fn forwarded(&self) -> usize {
        self.inner.sent.lock().unwrap().len()
    }
}

async fn forward(
    AxState(p): AxState<Arc<Inner>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    // One queue for every client: each request takes the next free slot.
    let slot = {
        let mut next = p.next.lock().await;
        let slot = (*next).max(Instant::now());
        *next = slot + p.spacing;
        slot
    };
    tokio::time::sleep_until(slot.into()).await;
    p.sent.lock().unwrap().push(Instant::now());
    let target = format!(
        "{}{}",
        p.upstream,
        uri.path_and_query().map_or("/", |pq| pq.as_str())
    );
    let mut request = p.client.request(method, target).header(MARK, "1");
    for name in REQUEST_HEADERS {
        if let Some(v) = headers.get(name) {
            request = request.header(name, v.clone());
        }
    }
    let answer = match request.body(body).send().await {
        Ok(a) => a,
        Err(e) => return (StatusCode::BAD_GATEWAY, e.to_string()).into_response(),
    };
    let status = answer.status();
    let kept: Vec<_> = answer
        .headers()
        .iter()
        .filter(|(n, _)| {
            let n = n.as_str();
            n == "content-type" || n == "retry-after" || n.starts_with("x-ratelimit")
        })
        .map(|(n, v)| (n.clone(), v.clone()))
        .collect();
    let bytes = answer.bytes().await.unwrap_or_default();
    let mut response = (status, bytes).into_response();
    for (n, v) in kept {
        response.headers_mut().insert(n, v);
    }
    response
}
