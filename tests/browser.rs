//! The web companion in a real browser (issue 47): a headless Chromium from the distribution's
//! packages, driven over the DevTools protocol (`tests/cdp.rs`), on pages served by
//! `tara-bot web` over a store the bot wrote.
//!
//! - every page, on a phone (390×844) and a desk (1280×800), loads with no console error and no
//!   failed request, has its landmarks, one heading of the first level, text alternatives for
//!   its pictures and a visible keyboard focus, and looks as its screenshot in
//!   `tests/golden/web/` (`UPDATE_GOLDEN=1` rewrites them; a difference leaves
//!   `<name>.actual.png` beside the golden);
//! - stepping through a game with the keys and by clicking its moves shows the bot's own
//!   picture of each ply and puts the ply in the address; without JavaScript the page still
//!   shows the board and the moves;
//! - a move made through the bot appears on an open page within 2 s;
//! - a server that has not opted in is invisible, and hostile names are text.
//!
//! Without Chromium these tests say so and pass, except under CI (`CI` set), where they fail:
//! `.ci/run` installs it.

use crate::cdp::{Browser, Page};
use crate::web::common::{self, stored, Harness};
use crate::web::{
    bot_picture, event, mean_difference, one_game_on_the_web, pixels, played, serve, web_setting,
};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tara_bot::store::GameId;

/// A phone's viewport and a desk's.
const SIZES: [(&str, u32, u32, bool); 2] = [("phone", 390, 844, true), ("desk", 1280, 800, false)];

/// A server with one of everything on the web: a finished game, a game in progress, a round
/// robin under way, a league in its first season and a ladder with a challenge.
fn everything(h: &Harness) -> (GameId, GameId) {
    use common::console::ok;
    let finished = played(h, "aoife", "brian", "c1");
    h.resign("brian", "c1");
    let live = played(h, "ciara", "donal", "c2");
    let four = ["aoife", "brian", "ciara", "donal"];
    let six = ["aoife", "brian", "ciara", "donal", "eimear", "fionn"];
    let round_robin = "name:\"Spring Cup\" variant:hkot-1 system:round-robin";
    event(h, "tournament", "t", round_robin, &four);
    event(
        h,
        "league",
        "lg",
        "name:Mór variant:hkot-2 division-size:3",
        &six,
    );
    event(
        h,
        "ladder",
        "ld",
        "Autumn sacred-hill-1 days:none",
        &four[..3],
    );
    ok(&h.bot, "brian", "ld", "/ladder challenge @aoife");
    web_setting(h, "mod", true, true);
    (finished, live)
}

/// Compares a screenshot with its golden. The same Chromium and fonts draw the same pixels;
/// a few may differ by a shade where text is smoothed, so up to 0.2% of them may differ.
fn looks_as_before(name: &str, png: &[u8]) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/web");
    let path = dir.join(format!("{name}.png"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&path, png).unwrap();
        return;
    }
    let golden = std::fs::read(&path)
        .unwrap_or_else(|_| panic!("missing {}; run with UPDATE_GOLDEN=1", path.display()));
    let want = image::load_from_memory(&golden).unwrap().to_rgba8();
    let got = image::load_from_memory(png).unwrap().to_rgba8();
    let differing = if want.dimensions() == got.dimensions() {
        want.pixels()
            .zip(got.pixels())
            .filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 32))
            .count()
    } else {
        usize::MAX
    };
    let allowed = (want.width() * want.height()) as usize / 500;
    if differing > allowed {
        let actual = dir.join(format!("{name}.actual.png"));
        std::fs::write(&actual, png).unwrap();
        panic!(
            "{name}: {differing} pixels differ (at most {allowed}); see {}",
            actual.display()
        );
    }
}

/// What every page must have: no problem in the browser, every picture loaded with a text
/// alternative, one first-level heading, the banner, main and footer landmarks, and a
/// keyboard focus that can be seen.
async fn sound(page: &Page<'_>, what: &str) {
    assert_eq!(page.problems(), Vec::<String>::new(), "{what}");
    let checks = page
        .eval(
            "({
                pictures: [...document.images].every(i => i.complete && i.naturalWidth > 0),
                alts: [...document.images].every(i => i.alt.trim().length > 10),
                h1: document.querySelectorAll('h1').length,
                landmarks: ['header', 'main', 'footer'].every(t => document.querySelector(t)),
                lang: document.documentElement.lang,
            })",
        )
        .await;
    assert_eq!(checks["pictures"], true, "{what}: a picture did not load");
    assert_eq!(checks["alts"], true, "{what}: a picture without its words");
    assert_eq!(checks["h1"], 1, "{what}: {checks}");
    assert_eq!(checks["landmarks"], true, "{what}: {checks}");
    assert_eq!(checks["lang"], "en", "{what}");
    // The first Tab lands on a link, drawn with an outline.
    page.key("Tab").await;
    let focus = page
        .eval(
            "(() => { const e = document.activeElement; const s = getComputedStyle(e);
                return [e.tagName, s.outlineStyle, parseFloat(s.outlineWidth)]; })()",
        )
        .await;
    assert_eq!(focus[0], "A", "{what}: {focus}");
    assert_ne!(focus[1], "none", "{what}: focus not visible: {focus}");
    assert!(focus[2].as_f64().unwrap() >= 2.0, "{what}: {focus}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_loads_cleanly_on_a_phone_and_a_desk_and_looks_as_before() {
    let Some(browser) = Browser::launch().await else {
        return;
    };
    let h = Harness::new(true);
    let (finished, live) = everything(&h);
    let site = serve(&h).await;
    let pages = [
        ("index", "/".to_string()),
        ("server", "/s/server".into()),
        ("game", format!("/g/{}", finished.0)),
        ("game-ply", format!("/g/{}?ply=1", finished.0)),
        ("game-live", format!("/g/{}", live.0)),
        ("tournament", "/t/1".into()),
        ("league", "/l/1".into()),
        ("ladder", "/ladder/1".into()),
        ("player", "/s/server/p/aoife".into()),
    ];
    for (size, width, height, mobile) in SIZES {
        for (name, path) in &pages {
            // A tab of its own for each page, so that its problems are its own.
            let page = browser.page(width, height, mobile).await;
            page.goto(&format!("{site}{path}")).await;
            let what = format!("{path} on a {size}");
            // Nothing wider than the viewport: no sideways scrolling on a phone.
            let wide = page
                .eval("document.documentElement.scrollWidth <= window.innerWidth")
                .await;
            assert_eq!(wide, true, "{what}: wider than the screen");
            looks_as_before(&format!("{name}-{size}"), &page.screenshot().await);
            sound(&page, &what).await;
            page.close().await;
        }
    }
}

/// The bytes of the board picture the page shows, as the browser got them.
async fn shown_picture(page: &Page<'_>) -> Vec<u8> {
    let bytes = page
        .eval(
            "(async () => {
                const r = await fetch(document.querySelector('figure img').currentSrc);
                return [...new Uint8Array(await r.arrayBuffer())];
            })()",
        )
        .await;
    bytes
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap() as u8)
        .collect()
}

/// A browser, and the site of a server on the web with one game, a few moves in (`None`
/// without Chromium).
async fn one_game() -> Option<(Browser, Harness, GameId, String)> {
    let browser = Browser::launch().await?;
    let (h, id, site) = one_game_on_the_web().await;
    Some((browser, h, id, site))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stepping_by_keys_and_clicks_shows_the_bots_picture_of_each_ply() {
    let Some((browser, h, id, site)) = one_game().await else {
        return;
    };
    let page = browser.page(390, 844, true).await;
    page.goto(&format!("{site}/g/{}?ply=0", id.0)).await;
    let at = |ply: usize| format!("{site}/g/{}?ply={ply}", id.0);
    // → steps forward, ← back; End goes to the game as it stands, Home to the start.
    for (key, url, ply) in [
        ("ArrowRight", at(1), 1),
        ("ArrowRight", at(2), 2),
        ("ArrowLeft", at(1), 1),
        ("End", format!("{site}/g/{}", id.0), 3),
        ("Home", at(0), 0),
    ] {
        page.navigates(page.key(key)).await;
        assert_eq!(page.url().await, url, "after {key}");
        assert!(
            shown_picture(&page).await == bot_picture(&h, id, ply as u32, None, None),
            "after {key}: not the bot's picture of ply {ply}"
        );
        let current = page
            .eval("document.querySelector('[aria-current=step]')?.textContent ?? null")
            .await;
        let moves = stored(&h.db(), id).1;
        let expected = if ply == 0 {
            serde_json::Value::Null
        } else {
            moves[ply - 1].clone().into()
        };
        assert_eq!(current, expected, "after {key}");
    }
    // At the start, ← and Home lead nowhere: the page stays.
    page.key("ArrowLeft").await;
    assert_eq!(page.url().await, at(0));
    // Clicking a move shows its position.
    page.navigates(page.click(".moves li:nth-child(2) a")).await;
    assert_eq!(page.url().await, at(2));
    assert!(shown_picture(&page).await == bot_picture(&h, id, 2, None, None));
    assert_eq!(page.problems(), Vec::<String>::new());
    // On a screen of two pixels to a point the browser takes the picture drawn at twice the
    // size: the same position, sharp (with marks and arrows too, commas and all).
    let sharp = browser.page_at(390, 844, true, 2).await;
    for query in ["", "&marks=D4,E5&arrows=C3-D4"] {
        sharp.goto(&format!("{}{query}", at(2))).await;
        let src = sharp
            .eval("document.querySelector('figure img').currentSrc")
            .await;
        let src = src.as_str().unwrap();
        assert!(src.contains("/2@2x.png?v="), "{src}");
        assert!(src.ends_with(query), "{src}");
        let (sharp_pixels, w, _) = pixels(&shown_picture(&sharp).await);
        assert_eq!(w, 1200);
        let marks = (!query.is_empty()).then_some("D4 E5");
        let arrows = (!query.is_empty()).then_some("C3-D4");
        let (plain, _, _) = pixels(&bot_picture(&h, id, 2, marks, arrows));
        let near = mean_difference(&plain, &sharp_pixels, 600);
        assert!(near < 1.0, "{query}: {near}");
        assert_eq!(sharp.problems(), Vec::<String>::new());
    }
    sharp.close().await;
    // The alternative text says the position: which move, whose turn, the score.
    let alt = page.eval("document.querySelector('figure img').alt").await;
    let alt = alt.as_str().unwrap();
    assert!(alt.contains("after move 2 of 3"), "{alt}");
    assert!(alt.contains("to move"), "{alt}");
    assert!(alt.contains("Kingdoms 1–1 · territory 1–1"), "{alt}");

    // Without JavaScript: the same board and moves; the keys do nothing, the links still work.
    let bare = browser.page(1280, 800, false).await;
    bare.scripts(false).await;
    bare.goto(&at(1)).await;
    let moves = bare
        .eval("document.querySelectorAll('.moves li a').length")
        .await;
    assert_eq!(moves, 3);
    let img = bare
        .eval("(() => { const i = document.querySelector('figure img'); return [i.complete, i.naturalWidth, i.getAttribute('src')]; })()")
        .await;
    assert_eq!(img[0], true);
    assert!(img[1].as_u64().unwrap() > 0, "{img}");
    assert!(
        img[2]
            .as_str()
            .unwrap()
            .starts_with(&format!("/g/{}/1.png?v=", id.0)),
        "{img}"
    );
    bare.key("ArrowRight").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(bare.url().await, at(1), "a key stepped without JavaScript");
    bare.navigates(bare.click("a[rel=next]")).await;
    assert_eq!(bare.url().await, at(2));
    assert_eq!(bare.problems(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_made_through_the_bot_appears_on_an_open_page_within_two_seconds() {
    let Some((browser, h, id, site)) = one_game().await else {
        return;
    };
    let page = browser.page(1280, 800, false).await;
    page.goto(&format!("{site}/g/{}", id.0)).await;
    let count = "document.querySelectorAll('.moves li').length";
    assert_eq!(page.eval(count).await, 3);
    // Give the page's script time to open its event stream before the move.
    page.wait_for("the live stream", || page.requested("/events"))
        .await;
    let (_, _, pos) = stored(&h.db(), id);
    let g = stored(&h.db(), id).0;
    let who = g.seats[pos.to_move().unwrap()].clone();
    let before = Instant::now();
    let r = h.mv(who.as_str(), "c1", &pos.legal_moves()[0].to_string());
    assert!(!r[0].ephemeral, "{}", r[0].plain_text());
    // The page reloads itself with the new move (and its picture).
    let mut shown = 0;
    while before.elapsed() < Duration::from_secs(5) {
        if let Some(n) = page.try_eval(count).await.and_then(|v| v.as_u64()) {
            shown = n;
            if n == 4 {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let took = before.elapsed();
    assert_eq!(shown, 4, "the move never appeared");
    assert!(took <= Duration::from_secs(2), "the move took {took:?}");
    let img = page
        .eval("document.querySelector('figure img').getAttribute('src')")
        .await;
    assert!(
        img.as_str()
            .unwrap()
            .starts_with(&format!("/g/{}/4.png?v=", id.0)),
        "{img}"
    );
    assert_eq!(page.problems(), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_server_is_invisible_and_hostile_names_are_text() {
    let Some(browser) = Browser::launch().await else {
        return;
    };
    let h = Harness::new(true);
    let hostile = "<img src=x onerror=alert(1)><script>alert(2)</script>";
    let id = played(&h, hostile, "brian\" onload=\"alert(3)", "c1");
    let site = serve(&h).await;
    // Not opted in: the game, the server and its player are the page of what does not exist.
    let page = browser.page(1280, 800, false).await;
    page.goto(&format!("{site}/g/999999")).await;
    let nothing = page.eval("document.body.innerText").await;
    for path in [
        format!("/g/{}", id.0),
        "/s/server".into(),
        "/s/server/p/brian".into(),
    ] {
        page.goto(&format!("{site}{path}")).await;
        assert_eq!(
            page.eval("document.body.innerText").await,
            nothing,
            "{path}"
        );
    }
    // Opted in: the names are shown as they were typed, and none of them runs.
    web_setting(&h, "mod", true, true);
    let page = browser.page(1280, 800, false).await;
    page.goto(&format!("{site}/g/{}", id.0)).await;
    let h1 = page.eval("document.querySelector('h1').textContent").await;
    assert!(h1.as_str().unwrap().contains(hostile), "{h1}");
    let dom = page
        .eval("[document.scripts.length, document.images.length, document.querySelectorAll('[onload],[onerror]').length]")
        .await;
    assert_eq!(dom, serde_json::json!([1, 1, 0]));
    assert_eq!(page.problems(), Vec::<String>::new());
    assert!(page.dialogs().is_empty(), "{:?}", page.dialogs());
}
