//! The web companion's pages, server-rendered with `maud` (which escapes every value it
//! writes, so a name is always text): a game, a server's front page, the index and the 404.

use crate::bot::text::counts_line;
use crate::bot::{
    division_picture, ladder_view, leaderboards, league_view, names, public_game,
    public_game_plies, public_ladder, public_league, public_player, public_server_games,
    public_tournament, read_notes, replay, shown_with_rd, tournament_picture, tournament_view,
    trf_text, DivisionView, Fail, LadderView, Notes,
};
use crate::game::{describe, BySide, Position};
use crate::render::LevelMove;
use crate::render::{board_png_scaled, Frame, HEIGHT as BOARD_HEIGHT, WIDTH as BOARD_WIDTH};
use crate::store::{
    GameId, GameRow, GameStatus, LadderId, LeagueId, MoveRow, ServerId, Store, TournamentFormat,
    TournamentId, TournamentStatus, Tx, UserId,
};
use axum::http::{header, HeaderMap};
use maud::{html, Markup, DOCTYPE};

/// The site's style sheet (served as `/style.css`: no inline style under the CSP).
pub(super) const STYLE: &str = include_str!("style.css");

/// The site's script (served as `/app.js`): the keys, and live pages.
pub(super) const SCRIPT: &str = include_str!("app.js");

/// The site's icon (served as `/favicon.svg`, and as `/favicon.ico` for those who ask blindly).
pub(super) const ICON: &str = include_str!("icon.svg");

impl Found {
    /// A picture that changes with results (standings, a ladder, a profile), cached a
    /// minute; `None` is the one 404.
    fn changing_picture(png: Option<Vec<u8>>) -> Found {
        match png {
            Some(png) => Found::Picture {
                png,
                cache: "public, max-age=60",
            },
            None => Found::Nothing,
        }
    }
}

/// A live event page before its frame: what its head says, and its body. Its token (a hash of
/// the body) is what its live stream compares: the page reloads when what it would show
/// changes.
pub(super) struct Parts {
    title: String,
    description: String,
    image: Option<String>,
    url: String,
    body: Markup,
    /// It no longer changes (a league's past season): not live.
    settled: bool,
}

impl Parts {
    /// What the page shows, in a word.
    pub fn token(&self) -> String {
        fnv(self.body.0.as_bytes())
    }

    /// The page, not live.
    fn still(self) -> Markup {
        page(
            &self.title,
            &self.description,
            self.image.as_deref(),
            &self.url,
            self.body,
        )
    }

    /// The page, listening to `events` (its stream) from the state it shows.
    fn live(self, events: &str) -> Markup {
        let events = format!("{events}?since={}", self.token());
        page_live(
            &self.title,
            &self.description,
            self.image.as_deref(),
            &self.url,
            Some(&events),
            self.body,
        )
    }
}

impl Found {
    /// The page of `parts`, live (its stream at `events`) unless it is settled, or the one
    /// 404.
    fn live(parts: Option<Parts>, events: &str) -> Found {
        match parts {
            Some(p) if p.settled => Found::Page(p.still()),
            Some(p) => Found::Page(p.live(events)),
            None => Found::Nothing,
        }
    }
}

/// The 64-bit FNV-1a hash of `bytes`, in hex.
fn fnv(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Why a page could not be made: the store could not be read (said in the log, not on the
/// page).
#[derive(Debug)]
pub(super) struct Broken(pub String);

impl From<crate::store::StoreError> for Broken {
    fn from(e: crate::store::StoreError) -> Broken {
        Broken(e.to_string())
    }
}

impl From<Fail> for Broken {
    fn from(e: Fail) -> Broken {
        Broken(format!("{e:?}"))
    }
}

/// What a request found.
pub(super) enum Found {
    Page(Markup),
    /// A board picture, and how long it may be cached.
    Picture {
        png: Vec<u8>,
        cache: &'static str,
    },
    /// A text file to download.
    File {
        text: String,
        name: String,
    },
    /// Nothing public: the one 404.
    Nothing,
}

/// The site's public address, for the absolute links a pasted page unfolds with.
#[derive(Clone, Debug)]
pub(super) struct Site {
    configured: Option<String>,
    base: String,
}

impl Site {
    pub(super) fn new(public_url: Option<String>) -> Site {
        let configured = public_url.map(|u| u.trim_end_matches('/').to_string());
        Site {
            base: configured.clone().unwrap_or_default(),
            configured,
        }
    }

    /// The site as this request reaches it: the configured address, else `http://` and the
    /// request's `Host` (when it is a plain host name and port).
    pub(super) fn for_request(&self, headers: &HeaderMap) -> Site {
        if self.configured.is_some() {
            return self.clone();
        }
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .filter(|h| {
                !h.is_empty()
                    && h.chars()
                        .all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c))
            })
            .unwrap_or("localhost");
        Site {
            configured: None,
            base: format!("http://{host}"),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

/// A page's frame: its head (title, description, the picture a pasted link unfolds with)
/// and body.
fn page(title: &str, description: &str, image: Option<&str>, url: &str, body: Markup) -> Markup {
    page_live(title, description, image, url, None, body)
}

/// [`page`], live: its script reloads it when the events at `live` say it changed.
fn page_live(
    title: &str,
    description: &str,
    image: Option<&str>,
    url: &str,
    live: Option<&str>,
    body: Markup,
) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                meta name="description" content=(description);
                meta property="og:type" content="website";
                meta property="og:site_name" content="tara-bot";
                meta property="og:title" content=(title);
                meta property="og:description" content=(description);
                meta property="og:url" content=(url);
                @if let Some(image) = image {
                    meta property="og:image" content=(image);
                    meta name="twitter:card" content="summary_large_image";
                    meta name="twitter:image" content=(image);
                } @else {
                    meta name="twitter:card" content="summary";
                }
                meta name="twitter:title" content=(title);
                meta name="twitter:description" content=(description);
                link rel="icon" href="/favicon.svg" type="image/svg+xml";
                link rel="stylesheet" href="/style.css";
                script src="/app.js" defer {}
            }
            body data-live=[live] {
                header { a href="/" { "tara-bot" } }
                main { (body) }
                footer {
                    "Games refereed by tara-bot on Discord: High Kings of Tara, Tara: Sacred \
                     Hill and Ard Rí."
                }
            }
        }
    }
}

/// The site's front door: what it is, and nothing about any server.
pub(super) fn index() -> Markup {
    page(
        "tara-bot",
        "The web companion of tara-bot, the Discord referee of High Kings of Tara, Tara: \
         Sacred Hill and Ard Rí.",
        None,
        "/",
        html! {
            h1 { "tara-bot" }
            p {
                "The games of Discord servers that have put them on the web are here, each on \
                 a page of its own (/g/ and the game's number). A server's moderators put its \
                 games on the web with "
                code { "/settings web:true" } "."
            }
        },
    )
}

/// The one answer for anything that is not there or not public.
pub(super) fn not_found() -> Markup {
    page(
        "Not found · tara-bot",
        "There is no such page.",
        None,
        "/",
        html! {
            h1 { "Not found" }
            p { "There is no such page. Games are here only when their server has put them on the web." }
        },
    )
}

/// The answer when the store cannot be read.
pub(super) fn unavailable() -> Markup {
    page(
        "Unavailable · tara-bot",
        "The games cannot be read just now.",
        None,
        "/",
        html! {
            h1 { "Unavailable" }
            p { "The games cannot be read just now; try again in a moment." }
        },
    )
}

/// A game as a page shows it: the row, its moves, the names, the position at the ply shown.
struct Shown {
    game: GameRow,
    moves: Vec<MoveRow>,
    names: BySide<String>,
    upto: usize,
    pos: Position,
    last: Option<crate::game::Move>,
    /// The position at the end (what a result is told from).
    end: Position,
}

/// The public game `id` at `ply` (its end when `None` or past the end); `None` when it is not
/// public or not there.
fn shown(tx: &Tx, id: GameId, ply: Option<usize>) -> Result<Option<Shown>, Broken> {
    let Some((game, moves)) = public_game(tx, id)? else {
        return Ok(None);
    };
    let upto = ply.unwrap_or(moves.len()).min(moves.len());
    let (pos, played) = replay(&game, &moves, Some(upto))?;
    let end = if upto == moves.len() {
        pos.clone()
    } else {
        replay(&game, &moves, None)?.0
    };
    let names = names(tx, &game)?;
    Ok(Some(Shown {
        last: played.last().copied(),
        end,
        game,
        moves,
        names,
        upto,
        pos,
    }))
}

/// A version of the picture of a position: the names and the moves that reach it. A picture
/// linked with its version never changes (a takeback or a new name makes a new version).
fn version(names: &BySide<String>, moves: &[MoveRow]) -> String {
    let mut bytes = Vec::new();
    let words = [names.first().as_str(), names.second().as_str()].into_iter();
    for w in words.chain(moves.iter().map(|m| m.notation.as_str())) {
        bytes.extend_from_slice(w.as_bytes());
        bytes.push(0);
    }
    fnv(&bytes)
}

/// Marks and arrows drawn on a position (`?marks=D4,E5&arrows=C3-D4`), as `/game` and
/// `/position` take them.
#[derive(Clone, Debug, Default)]
pub(super) struct Drawn {
    pub marks: Option<String>,
    pub arrows: Option<String>,
}

impl Drawn {
    /// The marks and arrows read for `variant` (the bot's own reading, so its messages), in a
    /// form for addresses: the words joined by commas (each a cell or two joined by a dash,
    /// so nothing to escape); `Ok(None)` when there are none.
    fn read(&self, variant: crate::game::Variant) -> Result<Option<(Notes, String)>, String> {
        if self.marks.is_none() && self.arrows.is_none() {
            return Ok(None);
        }
        let notes = read_notes(variant, self.marks.as_deref(), self.arrows.as_deref())?;
        let words = |s: &Option<String>| {
            s.as_deref()
                .unwrap_or("")
                .split(|c: char| c.is_whitespace() || c == ',')
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join(",")
        };
        let mut query = String::new();
        for (key, value) in [
            ("marks", words(&self.marks)),
            ("arrows", words(&self.arrows)),
        ] {
            if !value.is_empty() {
                query.push_str(&format!("&{key}={value}"));
            }
        }
        Ok((!query.is_empty()).then_some((notes, query)))
    }
}

/// The board picture of `shown`, exactly as the bot's `/game … ply:` draws it (with `notes`,
/// as `/game … marks: arrows:` does); at `scale` 2 the same picture drawn at twice the size,
/// for screens of two pixels to a point.
fn picture_of(s: &Shown, notes: Option<Notes>, scale: u32) -> Vec<u8> {
    let frame = Frame::new(s.names.clone(), s.last);
    board_png_scaled(
        &s.pos,
        &notes.map_or(frame.clone(), |n| n.frame(frame)),
        scale,
    )
}

/// The marks and arrows in words, for the picture's text alternative.
fn drawn_words(notes: &Notes) -> String {
    let mut words = String::new();
    let cell = |c: &crate::render::Cell| format!("{}{}", char::from(b'A' + c.col), c.row + 1);
    if !notes.marks.is_empty() {
        let marks: Vec<String> = notes.marks.iter().map(cell).collect();
        words.push_str(&format!(" Marked: {}.", marks.join(", ")));
    }
    if !notes.arrows.is_empty() {
        let arrows: Vec<String> = notes
            .arrows
            .iter()
            .map(|(a, b)| format!("{} to {}", cell(a), cell(b)))
            .collect();
        words.push_str(&format!(" Arrows: {}.", arrows.join(", ")));
    }
    words
}

/// What the board shows, in words: for its alternative text and the page's description.
fn position_words(s: &Shown) -> String {
    let n = s.moves.len();
    let mut words = if s.upto == 0 {
        format!("{} board at the start", s.game.options.variant.name())
    } else {
        format!(
            "{} board after move {} of {}",
            s.game.options.variant.name(),
            s.upto,
            n
        )
    };
    match (&s.game.outcome, s.pos.to_move()) {
        (Some(o), _) if s.upto == n => {
            words.push_str(&format!(": {}", describe::result(&s.pos, o)));
        }
        (_, Some(side)) if s.game.status == GameStatus::Active || s.upto < n => {
            words.push_str(&format!(", {} ({}) to move", side.name(), s.names[side]));
        }
        _ => {}
    }
    if let Some(c) = counts_line(&s.pos) {
        words.push_str(&format!(". {c}"));
    }
    words
}

/// Where the game of `s` stands, in words: finished (how, with the points), aborted, or in
/// progress.
fn state_words(s: &Shown) -> String {
    let g = &s.game;
    match (&g.outcome, g.status) {
        (Some(o), _) => format!(
            "Finished: {}. Points {}.",
            describe::result(&s.end, o),
            describe::points(o, g.sides())
        ),
        (None, GameStatus::Aborted) => "Aborted: no result, no points.".to_string(),
        (None, _) => "In progress.".to_string(),
    }
}

/// A game's page at a ply: the board, the players, where the game stands, the moves (each a
/// link to its position) and the links to step through it.
pub(super) fn game(
    store: &mut Store,
    site: &Site,
    id: GameId,
    ply: Option<usize>,
    drawn: &Drawn,
) -> Result<Found, Broken> {
    let Some(s) = store.read(|tx| shown(tx, id, ply))? else {
        return Ok(Found::Nothing);
    };
    let g = &s.game;
    let n = s.moves.len();
    let sides = g.sides();
    let title = format!(
        "{} · {} vs {} · game #{}",
        g.options.variant.name(),
        s.names[sides[0]],
        s.names[sides[1]],
        g.id.0
    );
    // Marks and arrows on the position shown (a shared analysis); ones that do not read are
    // left off, and the page says why.
    let (notes, unread) = match drawn.read(g.options.variant) {
        Ok(notes) => (notes, None),
        Err(why) => (None, Some(why)),
    };
    let drawn_query = notes.as_ref().map_or("", |(_, q)| q.as_str());
    let mut words = position_words(&s);
    if let Some((n, _)) = &notes {
        words.push_str(&drawn_words(n));
    }
    let v = version(&s.names, &s.moves[..s.upto]);
    let at_scale =
        |suffix: &str| format!("/g/{}/{}{suffix}.png?v={v}{drawn_query}", g.id.0, s.upto);
    let picture = at_scale("");
    // The same picture drawn at twice the size, for screens of two pixels to a point.
    let sharp = format!("{picture} 1x, {} 2x", at_scale("@2x"));
    let page_url = if ply.is_some() || notes.is_some() {
        format!("/g/{}?ply={}{drawn_query}", g.id.0, s.upto)
    } else {
        format!("/g/{}", g.id.0)
    };
    let at = |k: usize| format!("/g/{}?ply={k}", g.id.0);
    let state = state_words(&s);
    let body = html! {
        h1 { (g.options.variant.name()) ": " (s.names[sides[0]]) " vs " (s.names[sides[1]]) }
        p.meta {
            "Game #" (g.id.0)
            @for side in sides {
                " · " (side.name()) ": "
                a href=(player_path(&g.server_id, &g.seats[side])) { (s.names[side]) }
            }
            " · " (state)
        }
        @if let Some(why) = &unread {
            p.note role="status" { "The marks and arrows of this link were left off: " (why) }
        }
        figure {
            img src=(picture) srcset=(sharp) alt=(words) width=(BOARD_WIDTH) height=(BOARD_HEIGHT);
            figcaption { (words) }
        }
        nav.steps aria-label="Step through the game" {
            @if s.upto > 0 {
                a href=(at(0)) data-step="first" { "« Start" } " "
                a href=(at(s.upto - 1)) rel="prev" data-step="prev" { "‹ Back" } " "
            }
            @if s.upto < n {
                a href=(at(s.upto + 1)) rel="next" data-step="next" { "Forward ›" } " "
                a href=(format!("/g/{}", g.id.0)) data-step="last" { "End »" }
            }
        }
        section.moves aria-label="Moves" {
            h2 { "Moves" }
            @if n == 0 {
                p { "No move yet." }
            } @else {
                ol {
                    @for (k, m) in s.moves.iter().enumerate() {
                        li {
                            @if k + 1 == s.upto {
                                a href=(at(k + 1)) aria-current="step" { (m.notation) }
                            } @else {
                                a href=(at(k + 1)) { (m.notation) }
                            }
                        }
                    }
                }
            }
        }
        p { a href=(format!("/s/{}", g.server_id.as_str())) { "More games of this server" } }
    };
    // A game in progress is live: its page reloads when the game changes.
    let live = (g.status == GameStatus::Active).then(|| {
        let state = GameState {
            updated_at: g.updated_at,
            plies: n as u32,
            status: g.status,
        };
        format!("/g/{}/events?since={}", g.id.0, state.token())
    });
    Ok(Found::Page(page_live(
        &title,
        &words,
        Some(&site.url(&picture)),
        &site.url(&page_url),
        live.as_deref(),
        body,
    )))
}

/// The board picture of public game `id` at `ply` (at `scale` 1 or 2): cacheable for ever when
/// asked for by its current version (`v`), else not cached.
pub(super) fn picture(
    store: &mut Store,
    id: GameId,
    ply: usize,
    scale: u32,
    v: Option<&str>,
    drawn: &Drawn,
) -> Result<Found, Broken> {
    let Some(s) = store.read(|tx| shown(tx, id, Some(ply)))? else {
        return Ok(Found::Nothing);
    };
    if s.upto != ply {
        return Ok(Found::Nothing);
    }
    // Marks that do not read: no such picture.
    let Ok(notes) = drawn.read(s.game.options.variant) else {
        return Ok(Found::Nothing);
    };
    let current = v == Some(version(&s.names, &s.moves[..s.upto]).as_str());
    Ok(Found::Picture {
        png: picture_of(&s, notes.map(|(n, _)| n), scale),
        cache: if current {
            "public, max-age=31536000, immutable"
        } else {
            "no-cache"
        },
    })
}

/// Most games a server's front page lists of each kind.
const LISTED: u32 = 50;

/// Most players a front page's leaderboard lists.
const LEADERS: u32 = 10;

/// A server's front page at `now`: its games in progress, its latest finished games, and the
/// leaderboard of each game rated there (players with a rated game in the last 90 days).
pub(super) fn server(
    store: &mut Store,
    site: &Site,
    server: &ServerId,
    now: i64,
) -> Result<Found, Broken> {
    let found = store.read(|tx| -> Result<_, Broken> {
        let Some(games) = public_server_games(tx, server, LISTED)? else {
            return Ok(None);
        };
        let mut rows = Vec::new();
        for g in games.live.iter().chain(&games.finished) {
            rows.push((g.clone(), names(tx, g)?));
        }
        let boards = leaderboards(tx, server, now, LEADERS)?;
        Ok(Some((rows, games.live.len(), boards)))
    })?;
    let Some((rows, live, boards)) = found else {
        return Ok(Found::Nothing);
    };
    let body = html! {
        h1 { "Games" }
        (game_sections(&rows, live))
        @for (variant, leaders) in &boards {
            section aria-label=(format!("Leaderboard: {}", variant.name())) {
                h2 { "Leaderboard · " (variant.name()) }
                table.standings {
                    (head_row(["#", "Player", "Rating", "Games", "W / D / L"]))
                    tbody {
                        @for (id, r) in leaders {
                            tr {
                                td { (r.rank) }
                                th scope="row" { a href=(player_path(server, id)) { (r.name) } }
                                td { (shown_with_rd(r.rating, r.rd)) }
                                td { (r.games) }
                                td { (r.wins) " / " (r.draws) " / " (r.losses) }
                            }
                        }
                    }
                }
            }
        }
    };
    let path = format!("/s/{}", server.as_str());
    Ok(Found::Page(page(
        "Games · tara-bot",
        "Games in progress and finished on a Discord server refereed by tara-bot.",
        None,
        &site.url(&path),
        body,
    )))
}

/// What a live game page watches: when it last changed, its number of moves and its status.
/// `None` when the game is not public (or not there).
pub(super) fn game_state(store: &mut Store, id: GameId) -> Result<Option<GameState>, Broken> {
    store.read(|tx| {
        Ok(public_game_plies(tx, id)?.map(|(game, plies)| GameState {
            updated_at: game.updated_at,
            plies,
            status: game.status,
        }))
    })
}

/// A game's state as a live page watches it ([`game_state`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct GameState {
    pub updated_at: i64,
    pub plies: u32,
    pub status: GameStatus,
}

impl GameState {
    /// The state in a word, as a page shown in it names it to its events (`?since=`): a page
    /// whose game changed between its drawing and its listening hears of it at once.
    pub fn token(&self) -> String {
        format!("{}.{}.{:?}", self.updated_at, self.plies, self.status)
    }
}

/// A tournament's page: its options, the standings with the tiebreak columns the bot shows,
/// its pictures (standings, and the crosstable or the bracket), every round's pairings with
/// links to their games, and its TRF to download.
pub(super) fn tournament_parts(
    store: &mut Store,
    site: &Site,
    id: TournamentId,
) -> Result<Option<Parts>, Broken> {
    let view = store.read(|tx| -> Result<_, Broken> {
        if public_tournament(tx, id)?.is_none() {
            return Ok(None);
        }
        Ok(tournament_view(tx, id)?)
    })?;
    let Some(v) = view else {
        return Ok(None);
    };
    let t = &v.row;
    let card = &v.standings;
    let started = t.status != TournamentStatus::Open && !card.rows.is_empty();
    let second = match t.format {
        TournamentFormat::RoundRobin => Some(("crosstable", "Crosstable")),
        TournamentFormat::Knockout => Some(("bracket", "Bracket")),
        TournamentFormat::Swiss => None,
    };
    let playing = card.rows.iter().any(|r| r.playing > 0);
    let body = html! {
        h1 { (t.name) }
        p.meta { "Tournament #" (t.id) " · " (v.options) }
        p.meta { (card.subtitle) }
        section aria-label="Standings" {
            h2 { "Standings" }
            @if card.rows.is_empty() {
                p { "Nobody has joined yet." }
            } @else {
                table.standings {
                    (head_row(
                        ["#", "Player", "Score"]
                            .into_iter()
                            .chain(card.tiebreaks.iter().map(String::as_str))
                            .chain(playing.then_some("Playing")),
                    ))
                    tbody {
                        @for r in &card.rows {
                            tr {
                                td { (r.place) @if r.shared { "=" } }
                                th scope="row" {
                                    (r.name)
                                    @if r.withdrawn { " " span.withdrawn { "(withdrawn)" } }
                                }
                                td { (r.score) }
                                @for value in &r.tiebreaks { td { (value) } }
                                @if playing { td { @if r.playing > 0 { (r.playing) } } }
                            }
                        }
                    }
                }
            }
        }
        @if started {
            figure {
                img src=(format!("/t/{}/standings.png", t.id))
                    alt=(format!("Standings of {}: {}", t.name, standings_words(card)));
            }
            @if let Some((file, title)) = second {
                h2 { (title) }
                figure {
                    img src=(format!("/t/{}/{file}.png", t.id))
                        alt=(format!("{title} of {}", t.name));
                }
            }
        }
        @for (round, boards) in &v.rounds {
            section aria-label=(format!("Round {round}")) {
                h2 { "Round " (round) }
                table.pairings {
                    (head_row(["Board", "Player", "Result", "Opponent", "Games"]))
                    tbody {
                        @for b in boards {
                            tr {
                                td { (b.board) }
                                td { (b.players.0) }
                                td { @if b.result.is_empty() { "playing" } @else { (b.result) } }
                                td { @if let Some(o) = &b.players.1 { (o) } @else { "bye" } }
                                td {
                                    @for (k, g) in b.games.iter().enumerate() {
                                        @if k > 0 { ", " }
                                        a href=(format!("/g/{}", g.0)) { "#" (g.0) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        @if started {
            p { a href=(format!("/t/{}/trf", t.id)) download=(format!("tournament-{}.trf", t.id)) { "Download the TRF-16 file" } }
        }
        p { a href=(format!("/s/{}", t.server_id.as_str())) { "More games of this server" } }
    };
    let image = started.then(|| site.url(&format!("/t/{}/standings.png", t.id)));
    Ok(Some(Parts {
        title: format!("{} · tournament #{} · tara-bot", t.name, t.id),
        description: format!("{} · {}", v.options, card.subtitle),
        image,
        url: site.url(&format!("/t/{}", t.id)),
        body,
        settled: false,
    }))
}

/// [`tournament_parts`] as a live page.
pub(super) fn tournament(
    store: &mut Store,
    site: &Site,
    id: TournamentId,
) -> Result<Found, Broken> {
    let parts = tournament_parts(store, site, id)?;
    Ok(Found::live(parts, &format!("/t/{}/events", id.0)))
}

/// A table's heading row: a column heading each.
fn head_row<'a>(columns: impl IntoIterator<Item = &'a str>) -> Markup {
    html! {
        thead { tr { @for c in columns { th scope="col" { (c) } } } }
    }
}

/// The standings in a few words, for a picture's text alternative: the first places.
fn standings_words(card: &crate::render::StandingsCard) -> String {
    let top: Vec<String> = card
        .rows
        .iter()
        .take(3)
        .map(|r| format!("{} {} ({})", r.place, r.name, r.score))
        .collect();
    format!("{}; {}", card.subtitle, top.join(", "))
}

/// A picture of public tournament `id` (`standings`, `crosstable`, `bracket`); cached a
/// minute (results change it).
pub(super) fn tournament_png(
    store: &mut Store,
    id: TournamentId,
    which: &str,
) -> Result<Found, Broken> {
    let png = store.read(|tx| -> Result<_, Broken> {
        if public_tournament(tx, id)?.is_none() {
            return Ok(None);
        }
        Ok(tournament_picture(tx, id, which)?)
    })?;
    Ok(Found::changing_picture(png))
}

/// Public tournament `id` as a FIDE TRF-16 file (as `tara-bot tournament export` writes it).
pub(super) fn tournament_trf(store: &mut Store, id: TournamentId) -> Result<Found, Broken> {
    let trf = store.read(|tx| -> Result<_, Broken> {
        match public_tournament(tx, id)? {
            Some(t) if t.status != TournamentStatus::Open => Ok(Some(trf_text(tx, id)?)),
            _ => Ok(None),
        }
    })?;
    Ok(match trf {
        Some(text) => Found::File {
            text,
            name: format!("tournament-{}.trf", id),
        },
        None => Found::Nothing,
    })
}

/// A league's page: its options, this season's divisions (each with its standings, ▲ and ▼
/// for the promotion and relegation places, its picture and a link to its games), and the
/// champions of past seasons.
pub(super) fn league_parts(
    store: &mut Store,
    site: &Site,
    id: LeagueId,
    season: Option<u32>,
) -> Result<Option<Parts>, Broken> {
    let view = store.read(|tx| -> Result<_, Broken> {
        if public_league(tx, id)?.is_none() {
            return Ok(None);
        }
        Ok(league_view(tx, id, season)?)
    })?;
    let Some(v) = view else {
        return Ok(None);
    };
    let l = &v.row;
    let past = v.season < l.season;
    let picture = |d: &DivisionView| match past {
        true => format!("/l/{}/{}.png?season={}", l.id, d.name, v.season),
        false => format!("/l/{}/{}.png", l.id, d.name),
    };
    let season = match (v.season, past) {
        (0, _) => "waiting for its first season".to_string(),
        (n, true) => format!("season {n} (ended; season {} now)", l.season),
        (n, false) => format!("season {n}"),
    };
    let body = html! {
        h1 { (l.name) }
        p.meta {
            "League #" (l.id) " · " (l.variant.name()) " · divisions of " (l.division_size)
            " · " (l.promote) " promoted, " (l.relegate) " relegated · "
            @if l.is_match { "two-game matches" } @else { "single games" } " · " (season)
        }
        @if v.divisions.is_empty() {
            p { "No season has started yet." }
        }
        @for d in &v.divisions {
            section aria-label=(format!("Division {}", d.name)) {
                h2 { "Division " (d.name) " (level " (d.level) ")" }
                table.standings {
                    (head_row(["", "#", "Player", "Score"]
                        .into_iter()
                        .chain(d.standings.tiebreaks.iter().map(String::as_str))))
                    tbody {
                        @for (k, r) in d.standings.rows.iter().enumerate() {
                            tr {
                                td {
                                    @match d.marks.get(k).copied().flatten() {
                                        Some(LevelMove::Up) => span.up title="promotion place" { "▲" },
                                        Some(LevelMove::Down) => span.down title="relegation place" { "▼" },
                                        None => "",
                                    }
                                }
                                td { (r.place) }
                                th scope="row" {
                                    (r.name)
                                    @if r.withdrawn { " " span.withdrawn { "(withdrawn)" } }
                                }
                                td { (r.score) }
                                @for value in &r.tiebreaks { td { (value) } }
                            }
                        }
                    }
                }
                figure {
                    img src=(picture(d))
                        alt=(format!("Division {} of {}: {}", d.name, l.name, standings_words(&d.standings)));
                }
                p { a href=(format!("/t/{}", d.tournament.0)) { "Division " (d.name) "'s games and rounds" } }
            }
        }
        @if l.season > 1 {
            nav aria-label="Seasons" {
                h2 { "Seasons" }
                ul.seasons {
                    @for n in 1..=l.season {
                        li {
                            @let here = n == v.season;
                            @let href = match n == l.season {
                                true => format!("/l/{}", l.id),
                                false => format!("/l/{}?season={n}", l.id),
                            };
                            @if here {
                                a href=(href) aria-current="page" { "Season " (n) }
                            } @else {
                                a href=(href) { "Season " (n) }
                            }
                            @if n == l.season { " (this season)" }
                        }
                    }
                }
            }
        }
        @if !v.champions.is_empty() {
            section aria-label="Champions" {
                h2 { "Champions" }
                ul {
                    @for (season, name) in &v.champions {
                        li { "Season " (season) ": " (name) }
                    }
                }
            }
        }
        p { a href=(format!("/s/{}", l.server_id.as_str())) { "More games of this server" } }
    };
    let image = v.divisions.first().map(|d| site.url(&picture(d)));
    let url = match past {
        true => format!("/l/{}?season={}", l.id, v.season),
        false => format!("/l/{}", l.id),
    };
    Ok(Some(Parts {
        title: format!("{} · league #{} · tara-bot", l.name, l.id),
        description: format!("{} league, {season}", l.variant.name()),
        image,
        url: site.url(&url),
        body,
        settled: past,
    }))
}

/// [`league_parts`] as a page: this season's live, a past season's (`?season=`, which no
/// longer changes) as it ended.
pub(super) fn league(
    store: &mut Store,
    site: &Site,
    id: LeagueId,
    season: Option<u32>,
) -> Result<Found, Broken> {
    let parts = league_parts(store, site, id, season)?;
    Ok(Found::live(parts, &format!("/l/{}/events", id.0)))
}

/// The picture of a division of public league `id` in `season` (`None`: the current one);
/// cached a minute.
pub(super) fn league_png(
    store: &mut Store,
    id: LeagueId,
    division: &str,
    season: Option<u32>,
) -> Result<Found, Broken> {
    let png = store.read(|tx| -> Result<_, Broken> {
        if public_league(tx, id)?.is_none() {
            return Ok(None);
        }
        Ok(division_picture(tx, id, division, season)?)
    })?;
    Ok(Found::changing_picture(png))
}

/// The web's view of public ladder `id`; `None` when it is not public or not there.
fn public_ladder_view(tx: &Tx, id: LadderId) -> Result<Option<LadderView>, Broken> {
    if public_ladder(tx, id)?.is_none() {
        return Ok(None);
    }
    Ok(ladder_view(tx, id)?)
}

/// A ladder's page: every player in rank order (rating, games in progress), its picture, and
/// the ladder games in progress with links to them.
pub(super) fn ladder_parts(
    store: &mut Store,
    site: &Site,
    id: LadderId,
) -> Result<Option<Parts>, Broken> {
    let Some(v) = store.read(|tx| public_ladder_view(tx, id))? else {
        return Ok(None);
    };
    let l = &v.row;
    let closed = l.status == crate::store::LadderStatus::Closed;
    let body = html! {
        h1 { (l.name) }
        p.meta {
            "Ladder #" (l.id) " · " (l.variant.name()) " · " (v.players.len()) " players"
            @if closed { " · closed" }
        }
        @if v.players.is_empty() {
            p { "Nobody has joined yet." }
        } @else {
            table.standings {
                (head_row(["Rank", "Player", "Rating", "Playing"]))
                tbody {
                    @for p in &v.players {
                        tr {
                            td { (p.rank) }
                            th scope="row" { (p.name) }
                            td { (p.rating) }
                            td { @if p.playing > 0 { (p.playing) } }
                        }
                    }
                }
            }
            figure {
                img src=(format!("/ladder/{}/ladder.png", l.id))
                    alt=(format!("{} ladder, top players: {}", l.name, v.players.iter().take(3)
                        .map(|p| format!("{} {}", p.rank, p.name)).collect::<Vec<_>>().join(", ")));
            }
        }
        section aria-label="Challenges in progress" {
            h2 { "Challenges in progress" }
            @if v.games.is_empty() {
                p { "None just now." }
            } @else {
                ul.games {
                    @for (challenger, defender, game) in &v.games {
                        li {
                            (challenger) " challenges " (defender)
                            @if let Some(g) = game {
                                " · " a href=(format!("/g/{}", g.0)) { "game #" (g.0) }
                            }
                        }
                    }
                }
            }
        }
        p { a href=(format!("/s/{}", l.server_id.as_str())) { "More games of this server" } }
    };
    let image = (!v.players.is_empty()).then(|| site.url(&format!("/ladder/{}/ladder.png", l.id)));
    Ok(Some(Parts {
        title: format!("{} · ladder #{} · tara-bot", l.name, l.id),
        description: format!("{} ladder, {} players", l.variant.name(), v.players.len()),
        image,
        url: site.url(&format!("/ladder/{}", l.id)),
        body,
        settled: false,
    }))
}

/// [`ladder_parts`] as a live page.
pub(super) fn ladder(store: &mut Store, site: &Site, id: LadderId) -> Result<Found, Broken> {
    let parts = ladder_parts(store, site, id)?;
    Ok(Found::live(parts, &format!("/ladder/{}/events", id.0)))
}

/// The picture of public ladder `id`: its first players in rank order, as the bot draws
/// ladders; cached a minute.
pub(super) fn ladder_png(store: &mut Store, id: LadderId) -> Result<Found, Broken> {
    let Some(v) = store.read(|tx| public_ladder_view(tx, id))? else {
        return Ok(Found::Nothing);
    };
    let l = &v.row;
    let card = crate::render::LadderCard {
        title: format!("{} · {}", l.name, l.variant.name()),
        subtitle: format!("Ladder #{} · {} players", l.id, v.players.len()),
        rows: v
            .players
            .into_iter()
            .take(crate::render::MAX_LADDER_ROWS)
            .collect(),
    };
    Ok(Found::changing_picture(Some(crate::render::ladder_png(
        &card,
    ))))
}

/// Games in progress (the first `live` of `rows`) and finished, a section each.
fn game_sections(rows: &[(GameRow, BySide<String>)], live: usize) -> Markup {
    html! {
        section aria-label="Games in progress" {
            h2 { "In progress" }
            @if live == 0 { p { "None just now." } } @else { (game_list(&rows[..live])) }
        }
        section aria-label="Finished games" {
            h2 { "Finished" }
            @if rows.len() == live { p { "None yet." } } @else { (game_list(&rows[live..])) }
        }
    }
}

/// A list of games, each a link with its number, game and players, and its points once
/// finished.
fn game_list(games: &[(GameRow, BySide<String>)]) -> Markup {
    html! {
        ul.games {
            @for (g, n) in games {
                li {
                    a href=(format!("/g/{}", g.id.0)) {
                        "#" (g.id.0) " · " (g.options.variant.name()) " · "
                        (n[g.sides()[0]]) " vs " (n[g.sides()[1]])
                    }
                    @if let Some(o) = &g.outcome {
                        " · " (describe::points(o, g.sides()))
                    }
                }
            }
        }
    }
}

/// The address of a player's page on a server.
fn player_path(server: &ServerId, who: &UserId) -> String {
    format!("/s/{}/p/{}", server.as_str(), who.as_str())
}

/// A player's page on a server: their ratings per game (the picture is `/profile`'s, with the
/// rating history), games in progress and latest finished games, each a link.
pub(super) fn player(
    store: &mut Store,
    site: &Site,
    server: &ServerId,
    who: &UserId,
    now: i64,
) -> Result<Found, Broken> {
    let found = store.read(|tx| -> Result<_, Broken> {
        let Some(v) = public_player(tx, server, who, now)? else {
            return Ok(None);
        };
        let mut rows = Vec::new();
        for g in v.playing.iter().chain(&v.finished) {
            rows.push((g.clone(), names(tx, g)?));
        }
        Ok(Some((v, rows)))
    })?;
    let Some((v, rows)) = found else {
        return Ok(Found::Nothing);
    };
    let path = player_path(server, who);
    let picture = format!("{path}/profile.png");
    let live = v.playing.len();
    let body = html! {
        h1 { (v.card.name) }
        section aria-label="Ratings" {
            h2 { "Ratings" }
            @if v.card.ratings.is_empty() {
                p { "No rated games on this server yet." }
            } @else {
                table.standings {
                    (head_row(["Game", "Rating", "W", "D", "L", "Streak", "Last five"]))
                    tbody {
                        @for r in &v.card.ratings {
                            tr {
                                th scope="row" { (r.game) }
                                td { (shown_with_rd(r.rating, r.rd)) }
                                td { (r.wins) } td { (r.draws) } td { (r.losses) }
                                td { (r.streak) }
                                td { (r.last_five.iter().map(char::to_string).collect::<Vec<_>>().join(" ")) }
                            }
                        }
                    }
                }
            }
            figure {
                img src=(picture) alt=(format!("The profile of {}: ratings per game and their history", v.card.name));
            }
        }
        (game_sections(&rows, live))
        p { a href=(format!("/s/{}", server.as_str())) { "More games of this server" } }
    };
    Ok(Found::Page(page(
        &format!("{} · tara-bot", v.card.name),
        &format!("{}'s ratings and games", v.card.name),
        Some(&site.url(&picture)),
        &site.url(&path),
        body,
    )))
}

/// A player's profile picture on public `server`, as `/profile` draws it; cached a minute.
pub(super) fn player_png(
    store: &mut Store,
    server: &ServerId,
    who: &UserId,
    now: i64,
) -> Result<Found, Broken> {
    let view = store.read(|tx| public_player(tx, server, who, now))?;
    Ok(Found::changing_picture(
        view.map(|v| crate::render::profile_png(&v.card)),
    ))
}
