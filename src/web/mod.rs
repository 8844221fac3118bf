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
mod live;
mod pages;
mod pool;

use crate::store::{GameId, LadderId, LeagueId, ServerId, TournamentId};
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use live::Subject;
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
    pool: Arc<Pool>,
    site: Site,
    clock: Arc<dyn crate::bot::Clock>,
    live: Arc<live::Live>,
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
    let pool = Arc::new(Pool::new(db));
    let site = Site::new(options.public_url);
    let web = Arc::new(Web {
        live: Arc::new(live::Live::new(pool.clone(), site.clone())),
        pool,
        site,
        clock: options.clock,
    });
    Router::new()
        .route("/", get(index))
        .route("/style.css", get(style))
        .route("/app.js", get(script))
        .route("/favicon.svg", get(icon))
        .route("/favicon.ico", get(icon))
        .route("/s/{server}", get(server_page))
        .route("/s/{server}/p/{user}", player_route(false))
        .route("/s/{server}/p/{user}/profile.png", player_route(true))
        .route("/g/{id}", get(game_page))
        .route("/g/{id}/events", events_route(|n| Subject::Game(GameId(n))))
        .route(
            "/t/{id}/events",
            events_route(|n| Subject::Tournament(TournamentId(n))),
        )
        .route(
            "/l/{id}/events",
            events_route(|n| Subject::League(LeagueId(n))),
        )
        .route(
            "/ladder/{id}/events",
            events_route(|n| Subject::Ladder(LadderId(n))),
        )
        .route("/ladder/{id}", numbered(LadderId, pages::ladder))
        .route(
            "/ladder/{id}/ladder.png",
            numbered(LadderId, |store, _, id| pages::ladder_png(store, id)),
        )
        .route("/l/{id}", get(league_page))
        .route("/l/{id}/{picture}", get(league_picture))
        .route("/t/{id}", numbered(TournamentId, pages::tournament))
        .route(
            "/t/{id}/trf",
            numbered(TournamentId, |store, _, id| {
                pages::tournament_trf(store, id)
            }),
        )
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
    marks: Option<String>,
    arrows: Option<String>,
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
    let drawn = pages::Drawn {
        marks: q.marks,
        arrows: q.arrows,
    };
    with_store(&web, &headers, move |store, site| {
        pages::game(store, site, GameId(id), ply, &drawn)
    })
    .await
}

/// `?v=…` of a board picture: the version of the page that links it.
#[derive(serde::Deserialize)]
struct VersionQuery {
    v: Option<String>,
    marks: Option<String>,
    arrows: Option<String>,
}

async fn game_picture(
    State(web): State<Arc<Web>>,
    headers: HeaderMap,
    Path((id, picture)): Path<(String, String)>,
    Query(q): Query<VersionQuery>,
) -> Response {
    // `17.png`, or `17@2x.png` for a screen of two pixels to a point.
    let parsed = picture.strip_suffix(".png").and_then(|p| {
        let (ply, scale) = p.strip_suffix("@2x").map_or((p, 1), |p| (p, 2));
        Some((ply.parse::<usize>().ok()?, scale))
    });
    let (Ok(id), Some((ply, scale))) = (id.parse::<i64>(), parsed) else {
        return not_found().await;
    };
    let drawn = pages::Drawn {
        marks: q.marks,
        arrows: q.arrows,
    };
    with_store(&web, &headers, move |store, _| {
        pages::picture(store, GameId(id), ply, scale, q.v.as_deref(), &drawn)
    })
    .await
}

/// `?since=…` of a live page's events: the state the page was drawn in.
#[derive(serde::Deserialize)]
struct SinceQuery {
    since: Option<String>,
}

/// The events of the subject `make` names by the number in the path ([`live::events`]); the
/// one 404 when it is not public.
async fn events(
    web: Arc<Web>,
    id: &str,
    make: fn(i64) -> live::Subject,
    since: Option<String>,
) -> Response {
    let Ok(n) = id.parse::<i64>() else {
        return not_found().await;
    };
    match live::events(&web.live, make(n), since).await {
        Ok(Some(stream)) => stream,
        Ok(None) => not_found().await,
        Err(e) => answer(Err(e)),
    }
}

/// The route of the events of a numbered subject (`/g/123/events`: a live game page's, with
/// the number of moves; `/t/7/events`, `/l/3/events`, `/ladder/2/events`: an event page's, on
/// a result, a round, a withdrawal, a challenge…), the subject made from the number by `make`.
fn events_route(make: fn(i64) -> live::Subject) -> axum::routing::MethodRouter<Arc<Web>> {
    get(
        move |State(web): State<Arc<Web>>, Path(id): Path<String>, Query(q): Query<SinceQuery>| async move {
            events(web, &id, make, q.since).await
        },
    )
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

/// The route of a page or picture of a numbered thing: `f` with the id the path names (made
/// by `make`), or the 404 for a path that is not a number.
fn numbered<Id, F>(make: fn(i64) -> Id, f: F) -> axum::routing::MethodRouter<Arc<Web>>
where
    Id: Send + 'static,
    F: Fn(&mut crate::store::Store, &Site, Id) -> Result<Found, Broken>
        + Clone
        + Send
        + Sync
        + 'static,
{
    get(
        move |State(web): State<Arc<Web>>, headers: HeaderMap, Path(id): Path<String>| {
            let f = f.clone();
            async move { by_id(&web, &headers, &id, make, f).await }
        },
    )
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

/// `?season=…` of a league's page or picture: a past season.
#[derive(serde::Deserialize)]
struct SeasonQuery {
    season: Option<u32>,
}

async fn league_page(
    State(web): State<Arc<Web>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(q): Query<SeasonQuery>,
) -> Response {
    by_id(&web, &headers, &id, LeagueId, move |store, site, id| {
        pages::league(store, site, id, q.season)
    })
    .await
}

async fn league_picture(
    State(web): State<Arc<Web>>,
    headers: HeaderMap,
    Path((id, picture)): Path<(String, String)>,
    Query(q): Query<SeasonQuery>,
) -> Response {
    let Some(division) = picture.strip_suffix(".png").map(str::to_string) else {
        return not_found().await;
    };
    by_id(&web, &headers, &id, LeagueId, move |store, _, id| {
        pages::league_png(store, id, &division, q.season)
    })
    .await
}

/// The route of a player's page (`/s/<server>/p/<user>`), or with `picture` of its picture
/// (`…/profile.png`).
fn player_route(picture: bool) -> axum::routing::MethodRouter<Arc<Web>> {
    get(
        move |State(web): State<Arc<Web>>,
              headers: HeaderMap,
              Path((server, user)): Path<(String, String)>| async move {
            let (server, user) = (ServerId::new(server), crate::store::UserId::new(user));
            let now = web.clock.now_ms();
            with_store(&web, &headers, move |store, site| match picture {
                true => pages::player_png(store, &server, &user, now),
                false => pages::player(store, site, &server, &user, now),
            })
            .await
        },
    )
}
