//! `/rules` inside Discord: the short summary leads to the full rules (`docs/rules.md`, built
//! into the bot), privately, page by page, each page within a Discord message and the pages
//! together the whole document; a server may add a link to its own rules
//! (`/settings rules-url`). Through the bot core and the console.

mod common;

use common::{ctx, texts, Harness};
use tara_bot::bot::commands::DM_SERVER;
use tara_bot::bot::{Command, Ctx, Reply};
use tara_bot::console::{parse_line, Action};
use tara_bot::game::Variant;
use tara_bot::store::ServerId;

fn rules(h: &Harness, who: &Ctx, variant: Option<Variant>, page: Option<u32>) -> Reply {
    let r = h.bot.handle(who, Command::Rules { variant, page });
    assert_eq!(r.len(), 1, "{}", texts(&r));
    let r = r.into_iter().next().unwrap();
    assert!(r.ephemeral, "private: {}", r.plain_text());
    r
}

fn press(h: &Harness, who: &Ctx, r: &Reply, label: &str) -> Reply {
    let b = r
        .buttons
        .iter()
        .find(|b| b.label == label)
        .unwrap_or_else(|| panic!("no {label}: {:?}", r.buttons));
    let cmd = Command::from_button(&b.id).expect("a command");
    let r = h.bot.handle(who, cmd);
    r.into_iter().next().unwrap()
}

/// The document's text without its white space, and without what the pages write where the
/// file has a table (Discord draws no tables: `|` and `---` become a list, its cells joined by
/// `—`, its header in italics).
fn squeezed(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '|' | '-' | '—' | '*'))
        .collect()
}

#[test]
fn the_summary_leads_to_every_page_of_the_full_rules_in_order() {
    let h = Harness::new(false);
    let me = ctx("aoife", "c");
    let r = rules(&h, &me, None, None);
    let text = r.plain_text();
    assert!(
        text.contains("throne") && text.contains("ringfort"),
        "{text}"
    );
    assert!(!text.contains("docs/rules.md"), "no path to a file: {text}");
    assert!(!r.replaces_pressed);
    // Page after page with Next, to the last; each fits a Discord message.
    let mut page = press(&h, &me, &r, "Full rules ▶");
    let mut seen = Vec::new();
    loop {
        assert!(page.ephemeral && page.replaces_pressed);
        let text = page.markdown_with(|_, n| n.to_string(), |c| c.to_string());
        assert!(
            text.chars().count() <= 2000,
            "{} chars",
            text.chars().count()
        );
        let n = seen.len() + 1;
        let (head, body) = text.split_once('\n').unwrap();
        assert!(
            head.starts_with(&format!("**The rules** · page {n} of ")),
            "{head}"
        );
        seen.push(body.to_string());
        if page.buttons.iter().all(|b| b.label != "Next ▶") {
            break;
        }
        page = press(&h, &me, &page, "Next ▶");
    }
    assert!(seen.len() >= 10, "{} pages", seen.len());
    // No page shows a table's Markdown (issue 45: `| --- |` on 11 pages).
    assert!(
        seen.iter()
            .all(|p| !p.lines().any(|l| l.trim_start().starts_with('|'))),
        "a table as Markdown"
    );
    // Together, the pages are the whole document (only line breaks, and tables drawn as
    // lists, differ).
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/rules.md")).unwrap();
    assert_eq!(squeezed(&seen.concat()), squeezed(&doc));
    // Back one page.
    let back = press(&h, &me, &page, "◀ Previous");
    assert!(back
        .plain_text()
        .contains(&format!("page {} of", seen.len() - 1)));
    // A page past the end is the last.
    let r = rules(&h, &me, None, Some(999));
    assert!(r
        .plain_text()
        .contains(&format!("page {0} of {0}", seen.len())));
}

#[test]
fn a_games_summary_opens_the_full_rules_at_its_section_even_in_a_direct_message() {
    let h = Harness::new(false);
    let dm = Ctx {
        server: ServerId::new(DM_SERVER),
        ..ctx("brian", "dm-brian")
    };
    let r = rules(&h, &dm, Some(Variant::ArdRi), None);
    assert!(r.plain_text().contains("(this game's own section)"));
    let page = press(&h, &dm, &r, "Full rules ▶");
    assert!(
        page.plain_text().contains("8. Ard Rí (`ard-ri`)"),
        "{}",
        page.plain_text()
    );
    // The console reads the page option.
    match parse_line("/rules ard-ri page:3").unwrap() {
        Action::Run(Command::Rules { variant, page }) => {
            assert_eq!((variant, page), (Some(Variant::ArdRi), Some(3)))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_server_may_add_a_link_to_its_own_rules() {
    let h = Harness::new(false);
    let manager = Ctx {
        manager: true,
        ..ctx("mod", "c")
    };
    let set = |who: &Ctx, url: &str| {
        let cmd = match parse_line(&format!("/settings rules-url:{url}")).unwrap() {
            Action::Run(c) => c,
            other => panic!("{other:?}"),
        };
        h.bot.handle(who, cmd).remove(0).plain_text()
    };
    let said = set(&ctx("aoife", "c"), "https://example.org/rules");
    assert!(said.contains("Only members with Manage Server"), "{said}");
    let said = set(&manager, "example.org/rules");
    assert!(said.contains("is not a link"), "{said}");
    set(&manager, "https://example.org/rules");
    let me = ctx("aoife", "c");
    for page in [None, Some(2)] {
        let r = rules(&h, &me, None, page);
        assert!(
            r.plain_text()
                .contains("This server's own rules: <https://example.org/rules>"),
            "{}",
            r.plain_text()
        );
    }
    // It is in the audit log, and `-` removes it.
    let moderator = Ctx {
        moderator: true,
        ..manager.clone()
    };
    let log = h
        .bot
        .handle(&moderator, Command::Audit { log: None })
        .remove(0);
    assert!(
        log.plain_text().contains("rules-url set to"),
        "{}",
        log.plain_text()
    );
    // With the longest link, every page still fits one Discord message.
    let long = format!("https://example.org/{}", "r".repeat(180));
    assert_eq!(long.len(), 200);
    set(&manager, &long);
    let mut page = 1;
    loop {
        let r = rules(&h, &me, None, Some(page));
        let text = r.markdown_with(|_, n| n.to_string(), |c| c.to_string());
        assert!(
            text.chars().count() <= 2000,
            "page {page}: {}",
            text.chars().count()
        );
        if r.buttons.iter().all(|b| b.label != "Next ▶") {
            break;
        }
        page += 1;
    }
    set(&manager, "-");
    let r = rules(&h, &me, None, None);
    assert!(!r.plain_text().contains("own rules"), "{}", r.plain_text());
}
