//! `tara-bot web`: the web companion. Every game of a server that has opted in
//! (`/settings web:true`, Manage Server) on a page of its own, with the bot's own board
//! pictures, and the server's front page. It only reads the bot's store (an SQLite file beside
//! a running bot, or PostgreSQL), holds no state of its own, and answers GET and HEAD only.
//!
//! Privacy first: a page of a server that has not opted in, of a game that does not exist, or
//! of anything else unknown is the same 404, so no page tells whether a private server or game
//! exists. Pages show display names, never user ids, notes, conditional moves or anything said
//! privately.

mod limits;
mod pages;
mod pool;

use crate::store::{GameId, LadderId, LeagueId, ServerId, TournamentId};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use pages::{Broken, Found, Site};
use pool::Pool;
use std::sync::Arc;
use std::time::Duration;
use tower_http::set_header::SetResponseHeaderLayer;

/// The Content-Security-Policy of every answer: the page's own style sheet, script and
/// pictures only; no inline script or style, no frames, no forms.
pub const CSP: &str = "default-src 'none'; img-src 'self'; style-src 'self'; \
                       script-src 'self'; connect-src 'self'; base-uri 'none'; \
                       form-action 'none'; frame-ancestors 'none'";

/// How long a request may take before it is answered 408.
const REQUEST_TIME: Duration = Duration::from_secs(10);

/// What the handlers share: the store's connections, the public address of the site, and the
/// clock (what "now" is for the clocks and the leaderboards' last 90 days).
struct Web {
    pool: Pool,
    site: Site,
    clock: Arc<dyn crate::bot::Clock>,
    live: Live,
}

/// How the web companion runs.
pub struct Options {
    /// The site's address as the world reaches it (for the links a pasted page unfolds
    /// with), or `None` to take it from each request's `Host`.
    pub public_url: Option<String>,
    /// What "now" is (the clocks of games in progress, the leaderboards' last 90 days).
    pub clock: Arc<dyn crate::bot::Clock>,
    /// Requests an address may make in 10 seconds; 0 for no limit.
    pub rate_limit: u32,
}

impl Options {
    /// The defaults with `clock`: the address from each request, the default rate limit.
    pub fn new(clock: Arc<dyn crate::bot::Clock>) -> Options {
        Options {
            public_url: None,
            clock,
            rate_limit: limits::PER_WINDOW,
        }
    }
}

/// The web companion's routes over the database at `db` (a file or a PostgreSQL URL).
pub fn router(db: std::path::PathBuf, options: Options) -> Router {
    let web = Arc::new(Web {
        pool: Pool::new(db),
        site: Site::new(options.public_url),
        clock: options.clock,
        live: Live::default(),
    });
    Router::new()
        .route("/", get(index))
        .route("/style.css", get(style))
        .route("/app.js", get(script))
        .route("/favicon.svg", get(icon))
        .route("/favicon.ico", get(icon))
        .route("/s/{server}", get(server_page))
        .route("/s/{server}/p/{user}", get(player_page))
        .route("/s/{server}/p/{user}/profile.png", get(player_picture))
        .route("/g/{id}", get(game_page))
        .route("/g/{id}/events", get(game_events))
        .route("/ladder/{id}", get(ladder_page))
        .route("/ladder/{id}/ladder.png", get(ladder_picture))
        .route("/l/{id}", get(league_page))
        .route("/l/{id}/{picture}", get(league_picture))
        .route("/t/{id}", get(tournament_page))
        .route("/t/{id}/trf", get(tournament_trf))
        .route("/t/{id}/{picture}", get(tournament_picture))
        .route("/g/{id}/{picture}", get(game_picture))
        .fallback(not_found)
        .with_state(web)
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(limits::Limits::new(options.rate_limit)),
            limits::limit,
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ))
        .layer(tower_http::compression::CompressionLayer::new())
        .layer(tower_http::limit::RequestBodyLimitLayer::new(1024))
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIME,
        ))
}

/// Serves the web companion on `listener` until the process is stopped.
pub async fn serve(
    listener: tokio::net::TcpListener,
    db: std::path::PathBuf,
    options: Options,
) -> std::io::Result<()> {
    let app = router(db, options);
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<std::net::SocketAddr>(),
    )
    .await
}

/// The same answer for everything that is not there or not public.
async fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        Html(pages::not_found().into_string()),
    )
        .into_response()
}

/// A page, or the one 404; a store that cannot be read is a 503 that says so (without the
/// details, which go to the log).
fn answer(found: Result<Found, Broken>) -> Response {
    match found {
        Ok(Found::Page(markup)) => Html(markup.into_string()).into_response(),
        Ok(Found::Picture { png, cache }) => (
            [
                (header::CONTENT_TYPE, HeaderValue::from_static("image/png")),
                (header::CACHE_CONTROL, HeaderValue::from_static(cache)),
            ],
            png,
        )
            .into_response(),
        Ok(Found::File { text, name }) => (
            [
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("text/plain; charset=utf-8"),
                ),
                (
                    header::CONTENT_DISPOSITION,
                    HeaderValue::from_str(&format!("attachment; filename=\"{name}\""))
                        .unwrap_or(HeaderValue::from_static("attachment")),
                ),
            ],
            text,
        )
            .into_response(),
        Ok(Found::Nothing) => (
            StatusCode::NOT_FOUND,
            Html(pages::not_found().into_string()),
        )
            .into_response(),
        Err(Broken(e)) => {
            tracing::error!(error = %e, "web: reading the store");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Html(pages::unavailable().into_string()),
            )
                .into_response()
        }
    }
}

/// Runs `f` on a connection of the pool, on a blocking thread.
async fn with_store<F>(web: &Arc<Web>, headers: &HeaderMap, f: F) -> Response
where
    F: FnOnce(&mut crate::store::Store, &Site) -> Result<Found, Broken> + Send + 'static,
{
    let web = web.clone();
    let site = web.site.for_request(headers);
    let found = tokio::task::spawn_blocking(move || web.pool.with(|store| f(store, &site)))
        .await
        .unwrap_or_else(|e| Err(Broken(format!("a page panicked: {e}"))));
    answer(found)
}

async fn index() -> Response {
    Html(pages::index().into_string()).into_response()
}

/// One of the site's own files, cached an hour.
fn asset(kind: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        body,
    )
        .into_response()
}

async fn style() -> Response {
    asset("text/css; charset=utf-8", pages::STYLE)
}

async fn script() -> Response {
    asset("text/javascript; charset=utf-8", pages::SCRIPT)
}

async fn icon() -> Response {
    asset("image/svg+xml", pages::ICON)
}

async fn server_page(
    State(web): State<Arc<Web>>,
    headers: HeaderMap,
    Path(server): Path<String>,
) -> Response {
    let server = ServerId::new(server);
    let now = web.clock.now_ms();
    with_store(&web, &headers, move |store, site| {
        pages::server(store, site, &server, now)
    })
    .await
}

/// `?ply=N` of a game page.
#[derive(serde::Deserialize)]
struct PlyQuery {
    ply: Option<String>,
}

async fn game_page(
    State(web): State<Arc<Web>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(q): Query<PlyQuery>,
) -> Response {
    let Ok(id) = id.parse::<i64>() else {
        return not_found().await;
    };
    // A ply that is not a number shows the game as it stands, like no ply at all.
    let ply = q.ply.and_then(|p| p.parse::<usize>().ok());
    with_store(&web, &headers, move |store, site| {
        pages::game(store, site, GameId(id), ply)
    })
    .await
}

/// `?v=…` of a board picture: the version of the page that links it.
#[derive(serde::Deserialize)]
struct VersionQuery {
    v: Option<String>,
}

async fn game_picture(
    State(web): State<Arc<Web>>,
    headers: HeaderMap,
    Path((id, picture)): Path<(String, String)>,
    Query(q): Query<VersionQuery>,
) -> Response {
    let parsed = picture
        .strip_suffix(".png")
        .and_then(|p| p.parse::<usize>().ok());
    let (Ok(id), Some(ply)) = (id.parse::<i64>(), parsed) else {
        return not_found().await;
    };
    with_store(&web, &headers, move |store, _| {
        pages::picture(store, GameId(id), ply, q.v.as_deref())
    })
    .await
}

/// How often a watched game is looked at: an update reaches its pages within this and their
/// reload.
const LIVE_POLL: Duration = Duration::from_millis(500);

/// The state of public game `id` on a blocking thread; `None` when it is not public.
async fn state_of(web: &Arc<Web>, id: GameId) -> Result<Option<pages::GameState>, Broken> {
    let web = web.clone();
    tokio::task::spawn_blocking(move || web.pool.with(|store| pages::game_state(store, id)))
        .await
        .unwrap_or_else(|e| Err(Broken(format!("a live page panicked: {e}"))))
}

/// The games live pages watch: one watcher a game however many pages are open on it, which
/// looks at the store every [`LIVE_POLL`] and tells every page at once.
#[derive(Default)]
struct Live {
    watched: std::sync::Mutex<
        std::collections::HashMap<GameId, tokio::sync::watch::Receiver<Option<pages::GameState>>>,
    >,
}

/// A page's view of game `id`'s state: the watcher's, started when the first page opens and
/// ended when the last one closes (or the game stops being public: its state becomes `None`).
fn watch(
    web: &Arc<Web>,
    id: GameId,
    first: pages::GameState,
) -> tokio::sync::watch::Receiver<Option<pages::GameState>> {
    let mut watched = web.live.watched.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(rx) = watched.get(&id).filter(|rx| rx.has_changed().is_ok()) {
        return rx.clone();
    }
    let (tx, rx) = tokio::sync::watch::channel(Some(first));
    watched.insert(id, rx.clone());
    let web = web.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(LIVE_POLL).await;
            if tx.receiver_count() <= 1 {
                // Only the map's own receiver is left: no page is open.
                break;
            }
            match state_of(&web, id).await {
                Ok(now) => {
                    let gone = now.is_none();
                    tx.send_if_modified(|last| {
                        let changed = *last != now;
                        *last = now;
                        changed
                    });
                    if gone {
                        break;
                    }
                }
                // The store could not be read this time: no change, try again.
                Err(_) => continue,
            }
        }
        let mut watched = web.live.watched.lock().unwrap_or_else(|e| e.into_inner());
        if watched
            .get(&id)
            .is_some_and(|rx| rx.same_channel(&tx.subscribe()))
        {
            watched.remove(&id);
        }
    });
    rx
}

/// `/g/123/events`: server-sent events for a live game page: `changed` (with the number of
/// moves) each time the game changes, through any bot process; the stream ends when the game
/// stops being public.
/// `?since=…` of a game's events: the state the page was drawn in ([`pages::GameState::token`]).
#[derive(serde::Deserialize)]
struct SinceQuery {
    since: Option<String>,
}

async fn game_events(
    State(web): State<Arc<Web>>,
    Path(id): Path<String>,
    Query(q): Query<SinceQuery>,
) -> Response {
    use axum::response::sse::{Event, KeepAlive, Sse};
    let Ok(id) = id.parse::<i64>() else {
        return not_found().await;
    };
    let id = GameId(id);
    let first = match state_of(&web, id).await {
        Ok(Some(state)) => state,
        Ok(None) => return not_found().await,
        Err(e) => return answer(Err(e)),
    };
    // A page drawn before the game's latest change (made while the page was on its way)
    // hears of it at once; otherwise it hears of the next one.
    let behind = q
        .since
        .as_deref()
        .is_some_and(|since| since != first.token());
    let mut rx = watch(&web, id, first);
    if behind {
        rx.mark_changed();
    } else {
        rx.mark_unchanged();
    }
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.changed().await.ok()?;
        let now = (*rx.borrow_and_update())?;
        let event = Event::default()
            .event("changed")
            .data(now.plies.to_string());
        Some((Ok::<_, std::convert::Infallible>(event), rx))
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// What a route of a numbered thing answers: `f` with the id the path names (made by
/// `make`), or the 404 for a path that is not a number.
async fn by_id<Id, F>(
    web: &Arc<Web>,
    headers: &HeaderMap,
    id: &str,
    make: fn(i64) -> Id,
    f: F,
) -> Response
where
    Id: Send + 'static,
    F: FnOnce(&mut crate::store::Store, &Site, Id) -> Result<Found, Broken> + Send + 'static,
{
    match id.parse::<i64>() {
        Ok(n) => {
            let id = make(n);
            with_store(web, headers, move |store, site| f(store, site, id)).await
        }
        Err(_) => not_found().await,
    }
}

async fn tournament_page(
    State(web): State<Arc<Web>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    by_id(&web, &headers, &id, TournamentId, pages::tournament).await
}

async fn tournament_picture(
    State(web): State<Arc<Web>>,
    headers: HeaderMap,
    Path((id, picture)): Path<(String, String)>,
) -> Response {
    let which = picture
        .strip_suffix(".png")
        .filter(|w| ["standings", "crosstable", "bracket"].contains(w))
        .map(str::to_string);
    let Some(which) = which else {
        return not_found().await;
    };
    by_id(&web, &headers, &id, TournamentId, move |store, _, id| {
        pages::tournament_png(store, id, &which)
    })
    .await
}

async fn tournament_trf(
    State(web): State<Arc<Web>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    by_id(&web, &headers, &id, TournamentId, |store, _, id| {
        pages::tournament_trf(store, id)
    })
    .await
}

async fn league_page(
    State(web): State<Arc<Web>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    by_id(&web, &headers, &id, LeagueId, pages::league).await
}

async fn league_picture(
    State(web): State<Arc<Web>>,
    headers: HeaderMap,
    Path((id, picture)): Path<(String, String)>,
) -> Response {
    let Some(division) = picture.strip_suffix(".png").map(str::to_string) else {
        return not_found().await;
    };
    by_id(&web, &headers, &id, LeagueId, move |store, _, id| {
        pages::league_png(store, id, &division)
    })
    .await
}

async fn ladder_page(
    State(web): State<Arc<Web>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    by_id(&web, &headers, &id, LadderId, pages::ladder).await
}

async fn ladder_picture(
    State(web): State<Arc<Web>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    by_id(&web, &headers, &id, LadderId, |store, _, id| {
        pages::ladder_png(store, id)
    })
    .await
}

async fn player_page(
    State(web): State<Arc<Web>>,
    headers: HeaderMap,
    Path((server, user)): Path<(String, String)>,
) -> Response {
    let (server, user) = (ServerId::new(server), crate::store::UserId::new(user));
    let now = web.clock.now_ms();
    with_store(&web, &headers, move |store, site| {
        pages::player(store, site, &server, &user, now)
    })
    .await
}

async fn player_picture(
    State(web): State<Arc<Web>>,
    headers: HeaderMap,
    Path((server, user)): Path<(String, String)>,
) -> Response {
    let (server, user) = (ServerId::new(server), crate::store::UserId::new(user));
    let now = web.clock.now_ms();
    with_store(&web, &headers, move |store, _| {
        pages::player_png(store, &server, &user, now)
    })
    .await
}
