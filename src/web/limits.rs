//! Per-address rate limits of the web companion: each address may make a number of requests
//! (by default [`PER_WINDOW`]) every [`WINDOW`]; more are answered 429 with `Retry-After`. The address is the
//! peer's, or, when the peer is this machine (a reverse proxy in front), the first address of
//! the proxy's `X-Forwarded-For`.

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The window of a rate limit.
pub const WINDOW: Duration = Duration::from_secs(10);
/// Requests an address may make in a window by default (a page, its style sheet, script and
/// pictures, and some stepping).
pub const PER_WINDOW: u32 = 200;
/// Addresses remembered at most; past it, windows that have ended are forgotten first.
const REMEMBERED: usize = 100_000;

/// The requests of each address in its current window, and how many it may make (0: no
/// limit).
pub(super) struct Limits {
    per_window: u32,
    seen: Mutex<HashMap<IpAddr, (Instant, u32)>>,
}

impl Limits {
    pub(super) fn new(per_window: u32) -> Limits {
        Limits {
            per_window,
            seen: Mutex::new(HashMap::new()),
        }
    }

    /// Counts a request of `who` at `now`; the time to wait when it is over the limit.
    fn take(&self, who: IpAddr, now: Instant) -> Option<Duration> {
        if self.per_window == 0 {
            return None;
        }
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.len() >= REMEMBERED {
            seen.retain(|_, (start, _)| now.duration_since(*start) < WINDOW);
        }
        let entry = seen.entry(who).or_insert((now, 0));
        if now.duration_since(entry.0) >= WINDOW {
            *entry = (now, 0);
        }
        entry.1 += 1;
        (entry.1 > self.per_window).then(|| WINDOW.saturating_sub(now.duration_since(entry.0)))
    }
}

/// The address a request counts against: the peer, or behind a proxy on this machine the
/// client the proxy names first.
fn client(peer: SocketAddr, req: &Request) -> IpAddr {
    if peer.ip().is_loopback() {
        let forwarded = req
            .headers()
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .and_then(|v| v.trim().parse::<IpAddr>().ok());
        if let Some(ip) = forwarded {
            return ip;
        }
    }
    peer.ip()
}

/// The middleware: a request over its address's limit is answered 429.
pub(super) async fn limit(
    State(limits): State<Arc<Limits>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    req: Request,
    next: Next,
) -> Response {
    let who = client(peer, &req);
    match limits.take(who, Instant::now()) {
        None => next.run(req).await,
        Some(wait) => {
            let secs = wait.as_secs().max(1).to_string();
            let mut r = (
                StatusCode::TOO_MANY_REQUESTS,
                "Too many requests from this address; try again in a few seconds.\n",
            )
                .into_response();
            if let Ok(v) = HeaderValue::from_str(&secs) {
                r.headers_mut().insert(axum::http::header::RETRY_AFTER, v);
            }
            r
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_over_its_limit_waits_for_the_next_window_and_others_do_not() {
        let limits = Limits::new(PER_WINDOW);
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let t0 = Instant::now();
        for _ in 0..PER_WINDOW {
            assert_eq!(limits.take(a, t0), None);
        }
        let wait = limits
            .take(a, t0 + Duration::from_secs(4))
            .expect("over the limit");
        assert_eq!(wait, Duration::from_secs(6));
        assert_eq!(
            limits.take(b, t0),
            None,
            "another address has its own count"
        );
        assert_eq!(limits.take(a, t0 + WINDOW), None, "a new window");
        let open = Limits::new(0);
        for _ in 0..=PER_WINDOW {
            assert_eq!(open.take(a, t0), None, "no limit");
        }
    }
}
