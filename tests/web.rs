//! The web companion (`tara-bot web`, issue 47) over a store the bot wrote: a game's page and
//! its board pictures (the bot's own, byte for byte), a server's front page, and privacy first
//! (nothing of a server until Manage Server opts in, off again hides everything, and what is
//! not public is the same 404 as what does not exist). Pages escape names, answer GET and HEAD
//! only, and carry a strict Content-Security-Policy.

pub(crate) mod common;

use common::*;
use tara_bot::bot::{Command, Reply};
use tara_bot::store::GameId;

/// `/settings web:…` as sent by a member with (or without) Manage Server.
pub(crate) fn web_setting(h: &Harness, who: &str, manager: bool, on: bool) -> Vec<Reply> {
    let mut c = ctx(who, "c-settings");
    c.manager = manager;
    h.bot.handle(
        &c,
        Command::Settings {
            reminders: None,
            digest: None,
            tz: None,
            default_days: None,
            reminder_hours: None,
            challenge_days: None,
            max_challenges: None,
            rate_limit: None,
            max_ai_games: None,
            tournament_role: None,
            rules_url: None,
            web: Some(on),
        },
    )
}

/// The web companion over `h`'s database, on a port of its own; its address.
pub(crate) async fn serve(h: &Harness) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(tara_bot::web::serve(
        listener,
        h.db(),
        tara_bot::web::Options::new(h.clock.clone()),
    ));
    format!("http://{addr}")
}

async fn get(url: &str) -> reqwest::Response {
    reqwest::get(url).await.unwrap()
}

async fn text(url: &str) -> (u16, String) {
    let r = get(url).await;
    (r.status().as_u16(), r.text().await.unwrap())
}

/// A game of High Kings between two players, a few moves in (the opening, then two more).
pub(crate) fn played(h: &Harness, a: &str, b: &str, channel: &str) -> GameId {
    let g = h.start(a, b, channel, "hkot-1", "challenger");
    h.opening(channel);
    let (_, _, pos) = stored(&h.db(), g.id);
    let who = &g.seats[pos.to_move().unwrap()];
    let r = h.mv(who.as_str(), channel, &pos.legal_moves()[0].to_string());
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    g.id
}

/// A tournament, league or ladder (`kind`) made by `mod` in `channel` with `create`'s options,
/// joined by `players` in turn, and started (a ladder has no start).
pub(crate) fn event(h: &Harness, kind: &str, channel: &str, create: &str, players: &[&str]) {
    use common::console::ok;
    ok(&h.bot, "mod", channel, &format!("/{kind} create {create}"));
    for p in players {
        ok(&h.bot, p, channel, &format!("/{kind} join"));
    }
    if kind != "ladder" {
        ok(&h.bot, "mod", channel, &format!("/{kind} start"));
    }
}

/// The address of the board picture on `page`.
fn board_src(page: &str) -> String {
    page.split("<img src=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("a board picture")
        .replace("&amp;", "&")
}

/// A bot with one game of High Kings a few moves in ([`played`]) on a server on the web, and
/// the web companion over it: the bot, the game, and the site's address.
pub(crate) async fn one_game_on_the_web() -> (Harness, GameId, String) {
    let h = Harness::new(true);
    let id = played(&h, "aoife", "brian", "c1");
    web_setting(&h, "mod", true, true);
    let site = serve(&h).await;
    (h, id, site)
}

/// The bot's own picture of game `id` at `ply` (`/game … ply: marks: arrows:`).
pub(crate) fn bot_picture(
    h: &Harness,
    id: GameId,
    ply: u32,
    marks: Option<&str>,
    arrows: Option<&str>,
) -> Vec<u8> {
    let shown = h.send(
        "ciara",
        "c9",
        Command::Game {
            id,
            ply: Some(ply),
            marks: marks.map(str::to_string),
            arrows: arrows.map(str::to_string),
            drawn: None,
            shared: false,
        },
    );
    shown[0]
        .image
        .as_ref()
        .expect("the bot's picture")
        .bytes
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_of_a_server_is_on_the_web_until_manage_server_opts_in() {
    let h = Harness::new(false);
    let id = played(&h, "aoife", "brian", "c1");
    let site = serve(&h).await;
    // Before: the game, the server and a game that does not exist are the same 404.
    let (missing_status, missing) = text(&format!("{site}/g/999999")).await;
    assert_eq!(missing_status, 404);
    for path in [
        format!("/g/{}", id.0),
        "/s/server".into(),
        format!("/g/{}/0.png", id.0),
    ] {
        let (status, body) = text(&format!("{site}{path}")).await;
        assert_eq!((status, &body), (404, &missing), "{path}");
    }
    // A member without Manage Server cannot put the server on the web.
    let r = web_setting(&h, "aoife", false, true);
    assert!(r[0].ephemeral);
    assert!(
        r[0].plain_text()
            .contains("Only members with Manage Server"),
        "{}",
        r[0].plain_text()
    );
    assert_eq!(text(&format!("{site}/g/{}", id.0)).await.0, 404);
    // Manage Server opts in: the game and the server's page are there; it is in the audit log.
    let r = web_setting(&h, "mod", true, true);
    assert!(
        r[0].plain_text()
            .contains("Its games are on the web companion"),
        "{}",
        r[0].plain_text()
    );
    let (status, page) = text(&format!("{site}/g/{}", id.0)).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("aoife") && page.contains("brian"), "{page}");
    let (status, front) = text(&format!("{site}/s/server")).await;
    assert_eq!(status, 200);
    assert!(front.contains(&format!("/g/{}", id.0)), "{front}");
    let audit = h.bot.handle(
        &{
            let mut c = ctx("mod", "c-settings");
            c.moderator = true;
            c
        },
        Command::Audit { log: None },
    );
    assert!(
        audit[0].plain_text().contains("web set to on"),
        "{}",
        audit[0].plain_text()
    );
    // Off again hides everything at once, the pictures too.
    web_setting(&h, "mod", true, false);
    for path in [
        format!("/g/{}", id.0),
        "/s/server".into(),
        format!("/g/{}/0.png", id.0),
    ] {
        let (status, body) = text(&format!("{site}{path}")).await;
        assert_eq!((status, &body), (404, &missing), "{path}");
    }
    // Another server that has not opted in stays hidden beside a public one.
    web_setting(&h, "mod", true, true);
    assert_eq!(text(&format!("{site}/s/server")).await.0, 200);
    assert_eq!(text(&format!("{site}/s/other")).await, (404, missing));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_page_steps_through_the_game_with_the_bots_own_pictures() {
    let (h, id, site) = one_game_on_the_web().await;
    let moves = stored(&h.db(), id).1;
    assert_eq!(moves.len(), 3);
    // At ply 2: the picture of ply 2, links to the start, back, forward and the end, every
    // move a link to its position (the one shown marked), and a pasted link's picture.
    let (status, page) = text(&format!("{site}/g/{}?ply=2", id.0)).await;
    assert_eq!(status, 200);
    let img = board_src(&page);
    assert!(img.starts_with(&format!("/g/{}/2.png?v=", id.0)), "{img}");
    for link in [
        format!("/g/{}?ply=0", id.0),
        format!("/g/{}?ply=1", id.0),
        format!("/g/{}?ply=3", id.0),
    ] {
        assert!(page.contains(&format!("href=\"{link}\"")), "{link}: {page}");
    }
    assert!(
        page.contains(&format!("aria-current=\"step\">{}</a>", moves[1])),
        "{page}"
    );
    assert!(page.contains("property=\"og:image\""), "{page}");
    assert!(
        page.contains(
            "alt=\"High Kings of Tara (Level 1) board after move 2 of 3, Red (aoife) to move."
        ),
        "{page}"
    );
    // The picture is the bot's `/game … ply:2`, byte for byte, and cacheable for ever.
    let r = get(&format!("{site}{img}")).await;
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.headers()["content-type"], "image/png");
    assert_eq!(
        r.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    let bytes = r.bytes().await.unwrap();
    let bot_picture = bot_picture(&h, id, 2, None, None);
    assert!(
        bytes.as_ref() == bot_picture.as_slice(),
        "not the bot's picture"
    );
    // Without its version (or with an old one) it is not cached; past the end it is not there.
    let r = get(&format!("{site}/g/{}/2.png", id.0)).await;
    assert_eq!(r.headers()["cache-control"], "no-cache");
    assert_eq!(
        get(&format!("{site}/g/{}/9.png", id.0))
            .await
            .status()
            .as_u16(),
        404
    );
    // The end: no forward link; the page without a ply shows the last position.
    let (_, end) = text(&format!("{site}/g/{}", id.0)).await;
    assert!(end.contains(&format!("/g/{}/3.png?v=", id.0)), "{end}");
    assert!(!end.contains("rel=\"next\""), "{end}");
    // A finished game says how it ended, with the points.
    h.resign("brian", "c1");
    let (_, done) = text(&format!("{site}/g/{}", id.0)).await;
    assert!(done.contains("Finished: Red wins"), "{done}");
    assert!(done.contains("Points"), "{done}");
}

/// The pixels of a PNG as RGB, with its width and height.
pub(crate) fn pixels(png: &[u8]) -> (Vec<u8>, u32, u32) {
    let img = image::load_from_memory(png).expect("a PNG").to_rgb8();
    let (w, h) = img.dimensions();
    (img.into_raw(), w, h)
}

/// The mean difference of each channel between `plain` and `sharp` shrunk by half (each 2x2
/// block averaged): how far the sharp picture is from being the plain one drawn finer.
pub(crate) fn mean_difference(plain: &[u8], sharp: &[u8], width: usize) -> f64 {
    let height = plain.len() / 3 / width;
    let mut total = 0u64;
    for y in 0..height {
        for x in 0..width {
            for ch in 0..3 {
                let at = |yy: usize, xx: usize| u32::from(sharp[(yy * 2 * width + xx) * 3 + ch]);
                let sum = at(2 * y, 2 * x)
                    + at(2 * y, 2 * x + 1)
                    + at(2 * y + 1, 2 * x)
                    + at(2 * y + 1, 2 * x + 1);
                let plain = i64::from(plain[(y * width + x) * 3 + ch]);
                total += (i64::from(sum / 4) - plain).unsigned_abs();
            }
        }
    }
    total as f64 / (width * height * 3) as f64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_comes_drawn_at_twice_the_size_for_screens_that_ask_for_it() {
    let (h, id, site) = one_game_on_the_web().await;
    for query in ["", "&marks=D4&arrows=C3-D4"] {
        let (status, page) = text(&format!("{site}/g/{}?ply=2{query}", id.0)).await;
        assert_eq!(status, 200, "{page}");
        let plain = board_src(&page);
        // The page offers both: the bot's picture for one pixel to a point, the same picture
        // drawn at twice the size for two.
        let (path, version) = plain.split_once(".png?").unwrap();
        let sharp = format!("{path}@2x.png?{version}");
        let srcset = format!("srcset=\"{plain} 1x, {sharp} 2x\"").replace('&', "&amp;");
        assert!(page.contains(&srcset), "{srcset}: {page}");
        let r = get(&format!("{site}{sharp}")).await;
        assert_eq!(r.status().as_u16(), 200);
        assert_eq!(r.headers()["content-type"], "image/png");
        assert_eq!(
            r.headers()["cache-control"],
            "public, max-age=31536000, immutable"
        );
        let (sharp_pixels, w, hh) = pixels(&r.bytes().await.unwrap());
        assert_eq!((w, hh), (1200, 1380));
        let marks = (!query.is_empty()).then_some("D4");
        let arrows = (!query.is_empty()).then_some("C3-D4");
        let (plain_pixels, w, _) = pixels(&bot_picture(&h, id, 2, marks, arrows));
        assert_eq!(w, 600);
        let near = mean_difference(&plain_pixels, &sharp_pixels, 600);
        assert!(near < 1.0, "{query}: {near}");
        // Another position's picture is not near it.
        let (other, _, _) = pixels(&bot_picture(&h, id, 0, marks, arrows));
        let far = mean_difference(&other, &sharp_pixels, 600);
        assert!(
            far > 2.0 * near && far > 0.5,
            "{query}: {far} against {near}"
        );
    }
    // No other sizes; past the end not there; nothing of a server not on the web.
    for path in ["2@3x.png", "2@2x.jpg", "2@2xx.png", "9@2x.png", "@2x.png"] {
        let r = get(&format!("{site}/g/{}/{path}", id.0)).await;
        assert_eq!(r.status().as_u16(), 404, "{path}");
    }
    web_setting(&h, "mod", true, false);
    let r = get(&format!("{site}/g/{}/2@2x.png", id.0)).await;
    assert_eq!(r.status().as_u16(), 404);
}

/// `tara-bot web` over `db` with `args`, and `TARA_BOT_WEB_URL` set to `configured`, in
/// `dir` (a folder without a configuration file).
fn web_command(
    dir: &std::path::Path,
    db: &std::path::Path,
    args: &[&str],
    configured: Option<&str>,
) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_tara-bot"));
    command
        .current_dir(dir)
        .args(["web", "--listen", "127.0.0.1:0", "--db"])
        .arg(db)
        .args(args)
        .env_remove("TARA_BOT_CONFIG")
        .env_remove("TARA_BOT_WEB_URL");
    if let Some(url) = configured {
        command.env("TARA_BOT_WEB_URL", url);
    }
    command
}

/// [`web_command`] as a running process; its address, once it serves.
fn web_process(
    db: &std::path::Path,
    args: &[&str],
    configured: Option<&str>,
) -> (KillOnDrop, String) {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let mut command = web_command(dir.path(), db, args, configured);
    command.stderr(std::process::Stdio::piped());
    let mut child = KillOnDrop(command.spawn().unwrap());
    // It says where it serves on its standard error (after any log lines), which is read to
    // the end so that it never waits on a full pipe.
    let said = std::io::BufReader::new(child.0.stderr.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in said.lines().map_while(Result::ok) {
            if let Some(site) = line
                .strip_prefix("tara-bot web: serving ")
                .and_then(|l| l.rsplit(" on ").next())
            {
                let _ = tx.send(site.to_string());
            }
        }
    });
    let site = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("tara-bot web to serve");
    (child, site)
}

/// A child process killed when dropped.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_process_links_its_pages_by_url_else_by_the_bots_web_url() {
    let h = Harness::new(false);
    let id = played(&h, "aoife", "brian", "c1");
    web_setting(&h, "mod", true, true);
    let og_url = |page: &str| {
        page.split("property=\"og:url\" content=\"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .expect("og:url")
            .to_string()
    };
    // The bot's web_url, when there is no --url: one configuration for both.
    let (_web, site) = web_process(&h.db(), &[], Some("HTTPS://Tara.Example.org/"));
    let (status, page) = text(&format!("{site}/g/{}", id.0)).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(
        og_url(&page),
        format!("https://tara.example.org/g/{}", id.0)
    );
    // --url wins over it.
    let (_web, site) = web_process(
        &h.db(),
        &["--url", "https://other.example/tara/"],
        Some("https://tara.example.org"),
    );
    let (_, page) = text(&format!("{site}/g/{}", id.0)).await;
    assert_eq!(
        og_url(&page),
        format!("https://other.example/tara/g/{}", id.0)
    );
    // Neither: the host the request names.
    let (_web, site) = web_process(&h.db(), &[], None);
    let (_, page) = text(&format!("{site}/g/{}", id.0)).await;
    assert_eq!(og_url(&page), format!("{site}/g/{}", id.0));
    // A --url that cannot be a public address is refused with the reason, as web_url is.
    let dir = tempfile::tempdir().unwrap();
    let refused = &["--url", "https://me:secret@tara.example"];
    let out = web_command(dir.path(), &h.db(), refused, None)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("--url must be the web companion's public address")
            && said.contains("must not hold a user name or password"),
        "{said}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_names_are_text_and_only_get_and_head_are_answered() {
    let h = Harness::new(false);
    let id = played(&h, "<script>alert(1)</script>", "brian\" onload=\"x", "c1");
    web_setting(&h, "mod", true, true);
    let site = serve(&h).await;
    let r = get(&format!("{site}/g/{}", id.0)).await;
    assert_eq!(r.status().as_u16(), 200);
    let csp = r.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        csp.contains("default-src 'none'") && csp.contains("script-src 'self'"),
        "{csp}"
    );
    assert!(!csp.contains("unsafe-inline"), "{csp}");
    assert_eq!(r.headers()["x-content-type-options"], "nosniff");
    let page = r.text().await.unwrap();
    assert!(!page.contains("<script>alert"), "{page}");
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{page}"
    );
    assert!(!page.contains("brian\" onload"), "{page}");
    // The one script is the site's own file: nothing inline.
    assert_eq!(page.matches("<script").count(), 1, "{page}");
    assert!(
        page.contains("<script src=\"/app.js\" defer></script>"),
        "{page}"
    );
    // Only GET and HEAD.
    let client = reqwest::Client::new();
    let url = format!("{site}/g/{}", id.0);
    let head = client.head(&url).send().await.unwrap();
    assert_eq!(head.status().as_u16(), 200);
    for method in [
        reqwest::Method::POST,
        reqwest::Method::PUT,
        reqwest::Method::DELETE,
    ] {
        let r = client.request(method.clone(), &url).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 405, "{method}");
    }
    // Nothing of a user id reaches the page (the console's ids are the names; Discord's
    // would be numbers, and none is printed).
    assert!(!page.contains("user_id"), "{page}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_game_page_hears_of_a_move_within_two_seconds() {
    let h = Harness::new(false);
    let id = played(&h, "aoife", "brian", "c1");
    web_setting(&h, "mod", true, true);
    let site = serve(&h).await;
    // A game in progress is live, and its steps carry the keys' marks.
    let (_, page) = text(&format!("{site}/g/{}?ply=1", id.0)).await;
    assert!(
        page.contains(&format!("data-live=\"/g/{}/events?since=", id.0)),
        "{page}"
    );
    for step in ["first", "prev", "next", "last"] {
        assert!(
            page.contains(&format!("data-step=\"{step}\"")),
            "{step}: {page}"
        );
    }
    let script = get(&format!("{site}/app.js")).await;
    assert_eq!(
        script.headers()["content-type"],
        "text/javascript; charset=utf-8"
    );
    let script = script.text().await.unwrap();
    assert!(
        script.contains("ArrowLeft") && script.contains("EventSource"),
        "{script}"
    );
    // The page's stream, then a move through the bot core: the stream says so within 2 s.
    let mut events = get(&format!("{site}/g/{}/events", id.0)).await;
    assert_eq!(events.status().as_u16(), 200);
    assert_eq!(events.headers()["content-type"], "text/event-stream");
    let (_, _, pos) = stored(&h.db(), id);
    let g = active(&h.db(), "c1").unwrap();
    let who = g.seats[pos.to_move().unwrap()].clone();
    let moved = std::time::Instant::now();
    let r = h.mv(who.as_str(), "c1", &pos.legal_moves()[0].to_string());
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    let mut heard = String::new();
    while !heard.contains("event: changed") {
        let chunk = tokio::time::timeout(std::time::Duration::from_secs(3), events.chunk())
            .await
            .expect("an event within 3 s")
            .unwrap()
            .expect("the stream is open");
        heard.push_str(&String::from_utf8_lossy(&chunk));
    }
    let after = moved.elapsed();
    assert!(
        after < std::time::Duration::from_secs(2),
        "heard after {after:?}"
    );
    assert!(heard.contains("data: 4"), "{heard}");
    // A page drawn before that move (its stream named the state it showed) hears of it at
    // once, though the game does not change again.
    let since = page
        .split("events?since=")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap();
    let mut late = get(&format!("{site}/g/{}/events?since={since}", id.0)).await;
    let chunk = tokio::time::timeout(std::time::Duration::from_secs(3), late.chunk())
        .await
        .expect("an event at once")
        .unwrap()
        .expect("the stream is open");
    assert!(String::from_utf8_lossy(&chunk).contains("event: changed"));
    // A finished game is not live; a game that is not public has no stream.
    h.resign("brian", "c1");
    let (_, done) = text(&format!("{site}/g/{}", id.0)).await;
    assert!(!done.contains("data-live"), "{done}");
    web_setting(&h, "mod", true, false);
    assert_eq!(
        get(&format!("{site}/g/{}/events", id.0))
            .await
            .status()
            .as_u16(),
        404
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_page_shows_the_standings_rounds_pictures_and_trf() {
    let h = Harness::new(true);
    event(
        &h,
        "tournament",
        "t",
        "name:\"Spring <Cup>\" variant:hkot-1 system:round-robin",
        &["aoife", "brian", "ciara", "donal"],
    );
    let site = serve(&h).await;
    let url = format!("{site}/t/1");
    // Not public until the server opts in: the same 404 as a tournament that does not exist.
    let missing = text(&format!("{site}/t/999")).await;
    assert_eq!(missing.0, 404);
    assert_eq!(text(&url).await, missing);
    assert_eq!(text(&format!("{site}/t/1/trf")).await, missing);
    web_setting(&h, "mod", true, true);
    let (status, page) = text(&url).await;
    assert_eq!(status, 200, "{page}");
    // The name is text; the standings have the round robin's tiebreak columns and every
    // player; every round lists its boards with links to their games.
    assert!(page.contains("Spring &lt;Cup&gt;"), "{page}");
    for column in ["<th scope=\"col\">SB</th>", "<th scope=\"col\">DE</th>"] {
        assert!(page.contains(column), "{column}: {page}");
    }
    for p in ["aoife", "brian", "ciara", "donal"] {
        assert!(
            page.contains(&format!("<th scope=\"row\">{p}")),
            "{p}: {page}"
        );
    }
    for round in 1..=3 {
        assert!(page.contains(&format!("<h2>Round {round}</h2>")), "{page}");
    }
    let pairings = {
        let mut s = tara_bot::store::Store::open(h.db()).unwrap();
        s.read(|tx| tx.pairings(tara_bot::store::TournamentId(1), None))
            .unwrap()
    };
    assert_eq!(pairings.len(), 6);
    for p in &pairings {
        let game = p.game_id.expect("every game starts at once");
        assert!(page.contains(&format!("href=\"/g/{}\"", game.0)), "{page}");
    }
    // The pictures are the bot's own: the standings and the crosstable of /tournament standings.
    let shown = common::console::send(&h.bot, "aoife", "t", "/tournament standings");
    let bot_pictures: Vec<&Vec<u8>> = shown
        .iter()
        .filter_map(|r| r.image.as_ref().map(|i| &i.bytes))
        .collect();
    assert_eq!(bot_pictures.len(), 2);
    for (file, bot) in ["standings", "crosstable"].iter().zip(bot_pictures) {
        assert!(
            page.contains(&format!("src=\"/t/1/{file}.png\"")),
            "{file}: {page}"
        );
        let r = get(&format!("{site}/t/1/{file}.png")).await;
        assert_eq!(r.status().as_u16(), 200, "{file}");
        assert_eq!(r.headers()["content-type"], "image/png");
        assert!(
            r.bytes().await.unwrap().as_ref() == bot.as_slice(),
            "{file}"
        );
    }
    assert_eq!(
        get(&format!("{site}/t/1/bracket.png"))
            .await
            .status()
            .as_u16(),
        404
    );
    // The TRF is tara-bot tournament export's, to download.
    let r = get(&format!("{site}/t/1/trf")).await;
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(
        r.headers()["content-disposition"],
        "attachment; filename=\"tournament-1.trf\""
    );
    let trf = r.text().await.unwrap();
    let exported = common::console::cli(&[
        "tournament",
        "export",
        "--db",
        h.db().to_str().unwrap(),
        "1",
    ]);
    assert_eq!(trf.trim_end(), exported.trim_end());
    // Off again: gone, pictures and file too.
    web_setting(&h, "mod", true, false);
    for path in ["/t/1", "/t/1/standings.png", "/t/1/trf"] {
        assert_eq!(text(&format!("{site}{path}")).await, missing, "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_league_page_shows_each_division_with_its_places_and_pictures() {
    use common::console::send;
    let h = Harness::new(true);
    let players = ["aoife", "brian", "ciara", "donal", "eimear", "fionn"];
    event(
        &h,
        "league",
        "lg",
        "name:Mór variant:hkot-2 division-size:3",
        &players,
    );
    let site = serve(&h).await;
    let missing = text(&format!("{site}/l/999")).await;
    assert_eq!(missing.0, 404);
    assert_eq!(text(&format!("{site}/l/1")).await, missing);
    assert_eq!(text(&format!("{site}/l/1/1.png")).await, missing);
    web_setting(&h, "mod", true, true);
    let (status, page) = text(&format!("{site}/l/1")).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("<h1>Mór</h1>"), "{page}");
    // Two divisions of three: the last of division 1 goes down, the first of division 2 up.
    for (division, level, mark) in [("1", 1, "▼"), ("2a", 2, "▲")] {
        assert!(
            page.contains(&format!("<h2>Division {division} (level {level})</h2>")),
            "{page}"
        );
        assert!(page.contains(mark), "{mark}: {page}");
        // The division's picture is /league standings division:…'s own.
        let shown = send(
            &h.bot,
            "aoife",
            "lg",
            &format!("/league standings division:{division}"),
        );
        let bot = shown[0].image.as_ref().expect("the bot's picture");
        let r = get(&format!("{site}/l/1/{division}.png")).await;
        assert_eq!(r.status().as_u16(), 200);
        assert!(
            r.bytes().await.unwrap().as_ref() == bot.bytes.as_slice(),
            "division {division}"
        );
    }
    for p in players {
        assert!(
            page.contains(&format!("<th scope=\"row\">{p}")),
            "{p}: {page}"
        );
    }
    // Each division links to its games and rounds (its tournament's page).
    let divisions = {
        let mut s = tara_bot::store::Store::open(h.db()).unwrap();
        s.read(|tx| tx.league_divisions(tara_bot::store::LeagueId(1), Some(1)))
            .unwrap()
    };
    for d in &divisions {
        let link = format!("/t/{}", d.tournament_id.0);
        assert!(page.contains(&format!("href=\"{link}\"")), "{page}");
        assert_eq!(text(&format!("{site}{link}")).await.0, 200);
    }
    assert_eq!(text(&format!("{site}/l/1/9.png")).await, missing);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ladder_page_shows_its_order_and_the_challenges_in_progress() {
    use common::console::ok;
    let h = Harness::new(false);
    ok(
        &h.bot,
        "mod",
        "ld",
        "/ladder create Autumn sacred-hill-1 days:none",
    );
    for p in ["aoife", "brian", "<b>ciara</b>"] {
        ok(&h.bot, p, "ld", "/ladder join");
    }
    ok(&h.bot, "brian", "ld", "/ladder challenge @aoife");
    let site = serve(&h).await;
    let missing = text(&format!("{site}/ladder/99")).await;
    assert_eq!(missing.0, 404);
    assert_eq!(text(&format!("{site}/ladder/1")).await, missing);
    assert_eq!(text(&format!("{site}/ladder/1/ladder.png")).await, missing);
    web_setting(&h, "mod", true, true);
    let (status, page) = text(&format!("{site}/ladder/1")).await;
    assert_eq!(status, 200, "{page}");
    // Rank order, each name as text, and the challenge with a link to its game.
    let at = |name: &str| {
        page.find(&format!("<th scope=\"row\">{name}</th>"))
            .unwrap_or_else(|| panic!("{name}: {page}"))
    };
    assert!(at("aoife") < at("brian") && at("brian") < at("&lt;b&gt;ciara&lt;/b&gt;"));
    let game = {
        let mut s = tara_bot::store::Store::open(h.db()).unwrap();
        s.read(|tx| tx.ladder_games(tara_bot::store::LadderId(1), true))
            .unwrap()[0]
            .game_id
            .expect("the challenge's game")
    };
    assert!(page.contains("brian challenges aoife"), "{page}");
    assert!(page.contains(&format!("href=\"/g/{}\"", game.0)), "{page}");
    let r = get(&format!("{site}/ladder/1/ladder.png")).await;
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.headers()["content-type"], "image/png");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_page_shows_ratings_and_games_of_that_server_only() {
    let h = Harness::new(true);
    let id = played(&h, "aoife", "brian", "c1");
    h.resign("brian", "c1");
    web_setting(&h, "mod", true, true);
    let site = serve(&h).await;
    // The game page links its players to their pages.
    let (_, game) = text(&format!("{site}/g/{}", id.0)).await;
    assert!(game.contains("href=\"/s/server/p/aoife\""), "{game}");
    let (status, page) = text(&format!("{site}/s/server/p/aoife")).await;
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("<h1>aoife</h1>"), "{page}");
    assert!(page.contains("High Kings of Tara"), "{page}");
    assert!(page.contains(&format!("href=\"/g/{}\"", id.0)), "{page}");
    // The server's front page has each rated game's leaderboard, its players linked.
    let (_, front) = text(&format!("{site}/s/server")).await;
    assert!(
        front.contains("Leaderboard · High Kings of Tara"),
        "{front}"
    );
    for p in ["aoife", "brian"] {
        assert!(
            front.contains(&format!("href=\"/s/server/p/{p}\"")),
            "{p}: {front}"
        );
    }
    // The picture is /profile's, byte for byte.
    let shown = h.send("aoife", "c1", Command::Profile { user: None });
    let bot = shown[0].image.as_ref().expect("the bot's picture");
    let r = get(&format!("{site}/s/server/p/aoife/profile.png")).await;
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.bytes().await.unwrap().as_ref() == bot.bytes.as_slice());
    // Nobody who has not played on the server, and no server that has not opted in.
    let missing = text(&format!("{site}/g/999999")).await;
    for path in [
        "/s/server/p/nobody",
        "/s/other/p/aoife",
        "/s/other/p/aoife/profile.png",
    ] {
        assert_eq!(text(&format!("{site}{path}")).await, missing, "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_address_has_its_own_rate_limit() {
    let h = Harness::new(false);
    let site = serve(&h).await;
    let client = reqwest::Client::new();
    let fetch = |from: &'static str| {
        let client = client.clone();
        let url = format!("{site}/style.css");
        async move {
            client
                .get(url)
                .header("x-forwarded-for", from)
                .send()
                .await
                .unwrap()
        }
    };
    // The first 200 requests of an address in 10 s are answered; the next waits.
    for k in 0..200 {
        assert_eq!(
            fetch("203.0.113.7").await.status().as_u16(),
            200,
            "request {k}"
        );
    }
    let over = fetch("203.0.113.7").await;
    assert_eq!(over.status().as_u16(), 429);
    let wait: u64 = over.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=10).contains(&wait), "{wait}");
    // Another client behind the same proxy is not held up.
    assert_eq!(fetch("198.51.100.9").await.status().as_u16(), 200);
}

/// The first game a page links to.
fn first_game(page: &str) -> GameId {
    let n = page
        .split("href=\"/g/")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no game on {page}"));
    GameId(n)
}

/// The stream of page `path` as drawn now (its `?since=`), and the page.
async fn stream_of(site: &str, path: &str) -> (reqwest::Response, String) {
    let (status, page) = text(&format!("{site}{path}")).await;
    assert_eq!(status, 200, "{page}");
    let live = page
        .split("data-live=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap_or_else(|| panic!("{path} is not live: {page}"))
        .replace("&amp;", "&");
    assert!(live.starts_with(&format!("{path}/events?since=")), "{live}");
    let r = get(&format!("{site}{live}")).await;
    assert_eq!(r.status().as_u16(), 200);
    (r, page)
}

/// Whether `stream` says `changed` within `within`.
async fn hears(stream: &mut reqwest::Response, within: std::time::Duration) -> bool {
    let mut heard = String::new();
    let deadline = tokio::time::Instant::now() + within;
    while !heard.contains("event: changed") {
        match tokio::time::timeout_at(deadline, stream.chunk()).await {
            Ok(Ok(Some(chunk))) => heard.push_str(&String::from_utf8_lossy(&chunk)),
            _ => return false,
        }
    }
    true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tournament_league_and_ladder_pages_hear_of_a_result_within_two_seconds() {
    use common::console::send;
    let h = Harness::new(false);
    let four = ["aoife", "brian", "ciara", "donal"];
    event(
        &h,
        "tournament",
        "t",
        "name:Spring variant:hkot-1 system:round-robin",
        &four,
    );
    event(
        &h,
        "league",
        "lg",
        "name:Mór variant:hkot-2 division-size:3",
        &["aoife", "brian", "ciara", "donal", "eimear", "fionn"],
    );
    event(&h, "ladder", "ld", "Autumn sacred-hill-1 days:none", &four);
    common::console::ok(&h.bot, "brian", "ld", "/ladder challenge @aoife");
    web_setting(&h, "mod", true, true);
    let site = serve(&h).await;
    let (_, league) = text(&format!("{site}/l/1")).await;
    let division = league
        .split("href=\"/t/")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("a division's games")
        .to_string();
    for (path, games_on) in [
        ("/t/1".to_string(), "/t/1".to_string()),
        ("/l/1".into(), format!("/t/{division}")),
        ("/ladder/1".into(), "/ladder/1".into()),
    ] {
        let (mut stream, _) = stream_of(&site, &path).await;
        // A page drawn as things stand hears nothing while nothing happens.
        assert!(
            !hears(&mut stream, std::time::Duration::from_millis(1200)).await,
            "{path} reloaded for nothing"
        );
        let (_, games) = text(&format!("{site}{games_on}")).await;
        let game = stored(&h.db(), first_game(&games)).0;
        let loser = game.seats.second().clone();
        let r = send(
            &h.bot,
            loser.as_str(),
            game.channel_id.as_str(),
            "/resign confirm",
        );
        assert!(!r[0].ephemeral, "{path}: {}", r[0].plain_text());
        let ended = std::time::Instant::now();
        assert!(
            hears(&mut stream, std::time::Duration::from_secs(3)).await,
            "{path} never heard of the result"
        );
        let after = ended.elapsed();
        assert!(
            after < std::time::Duration::from_secs(2),
            "{path}: {after:?}"
        );
        // A page drawn after it is as things stand again.
        let (mut late, _) = stream_of(&site, &path).await;
        assert!(!hears(&mut late, std::time::Duration::from_millis(700)).await);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leagues_past_seasons_are_shown_in_full_as_they_ended() {
    use common::console::send;
    use tara_bot::store::{LeagueId, Store};
    let h = Harness::new(true);
    let six = ["aoife", "brian", "ciara", "donal", "eimear", "fionn"];
    let options = "name:Mór variant:hkot-2 division-size:3 match:no days:none";
    event(&h, "league", "lg", options, &six);
    web_setting(&h, "mod", true, true);
    let site = serve(&h).await;
    // Before season 1 is over there is no past season.
    assert_eq!(text(&format!("{site}/l/1?season=2")).await.0, 404);
    // Season 1 played out: every game resigned by its second player.
    let divisions = |season| {
        let mut s = Store::open(h.db()).unwrap();
        s.read(|tx| tx.league_divisions(LeagueId(1), Some(season)))
            .unwrap()
    };
    for d in divisions(1) {
        let mut s = Store::open(h.db()).unwrap();
        for p in s.read(|tx| tx.pairings(d.tournament_id, None)).unwrap() {
            let (Some(game), Some(p1)) = (p.game_id, p.player1.clone()) else {
                continue;
            };
            let channel = stored(&h.db(), game).0.channel_id;
            let r = send(&h.bot, p1.as_str(), channel.as_str(), "/resign confirm");
            assert!(!r[0].ephemeral, "{}", r[0].plain_text());
        }
    }
    h.bot.advance_clock(8 * 24 * 3_600_000);
    h.bot.tick();
    assert_eq!(divisions(2).len(), 2, "season 2 has begun");
    // This season's page links the past one; the past one is shown as it ended, not live.
    let (_, now) = text(&format!("{site}/l/1")).await;
    assert!(now.contains("season 2"), "{now}");
    assert!(now.contains("href=\"/l/1?season=1\""), "{now}");
    let (status, past) = text(&format!("{site}/l/1?season=1")).await;
    assert_eq!(status, 200, "{past}");
    assert!(past.contains("season 1 (ended; season 2 now)"), "{past}");
    assert!(!past.contains("data-live"), "{past}");
    assert!(past.contains("aria-current=\"page\">Season 1"), "{past}");
    for d in divisions(1) {
        assert!(
            past.contains(&format!("href=\"/t/{}\"", d.tournament_id.0)),
            "{past}"
        );
        let picture = format!("/l/1/{}.png?season=1", d.division);
        assert!(past.contains(&format!("src=\"{picture}\"")), "{past}");
        let r = get(&format!("{site}{picture}")).await;
        assert_eq!(r.status().as_u16(), 200);
        assert_eq!(r.headers()["content-type"], "image/png");
        // Not this season's picture of the same division.
        let this = get(&format!("{site}/l/1/{}.png", d.division)).await;
        assert_ne!(r.bytes().await.unwrap(), this.bytes().await.unwrap());
    }
    // Every player's final place: the last of division 1 went down (▼), the first of 2 up (▲).
    assert!(past.contains("▲") && past.contains("▼"), "{past}");
    for p in six {
        assert!(
            past.contains(&format!("<th scope=\"row\">{p}")),
            "{p}: {past}"
        );
    }
    // No season before the first or after the current one.
    for season in [0, 3] {
        let (status, _) = text(&format!("{site}/l/1?season={season}")).await;
        assert_eq!(status, 404, "season {season}");
        let (status, _) = text(&format!("{site}/l/1/1.png?season={season}")).await;
        assert_eq!(status, 404, "season {season}'s picture");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marks_and_arrows_of_a_shared_position_are_drawn_as_the_bot_draws_them() {
    let (h, id, site) = one_game_on_the_web().await;
    let (status, page) = text(&format!(
        "{site}/g/{}?ply=2&marks=D4%20e5&arrows=C3-D4",
        id.0
    ))
    .await;
    assert_eq!(status, 200, "{page}");
    let img = board_src(&page);
    assert!(img.starts_with(&format!("/g/{}/2.png?v=", id.0)), "{img}");
    assert!(img.ends_with("&marks=D4,e5&arrows=C3-D4"), "{img}");
    assert!(page.contains("Marked: D4, E5. Arrows: C3 to D4."), "{page}");
    // The picture is the bot's `/game … ply:2 marks:"D4 e5" arrows:C3-D4`, byte for byte.
    let bytes = get(&format!("{site}{img}")).await.bytes().await.unwrap();
    let bot_picture = bot_picture(&h, id, 2, Some("D4 e5"), Some("C3-D4"));
    assert!(
        bytes.as_ref() == bot_picture.as_slice(),
        "not the bot's picture"
    );
    let plain = img.split("&marks").next().unwrap();
    let unmarked = get(&format!("{site}{plain}")).await.bytes().await.unwrap();
    assert_ne!(unmarked, bytes);
    // Marks that do not read are left off, and the page says why; such a picture is not there.
    let (status, page) = text(&format!("{site}/g/{}?ply=2&marks=Z9", id.0)).await;
    assert_eq!(status, 200);
    assert!(page.contains("were left off: Bad mark"), "{page}");
    assert!(
        page.contains(&format!("src=\"{plain}\"").replace('&', "&amp;")),
        "{page}"
    );
    let (status, _) = text(&format!("{site}/g/{}/2.png?marks=Z9", id.0)).await;
    assert_eq!(status, 404);
}
