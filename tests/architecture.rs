//! The module graph of `src/` has no cycles: no module uses another that uses it back,
//! directly or through others, neither between files nor between the layers' folders.
//!
//! The graph is read from the source text: every `crate::…`, `super::…` and `$crate::…` path,
//! and every path through one of the module's own children (`pub use child::X` counts: a parent
//! that re-exports a child must not be used by it), outside `#[cfg(test)]` blocks, resolved to
//! the longest module it names. Run with `-- --nocapture` to print the graph.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (`bot::play`) of every source file, with the file's text.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<String, String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.path());
        for e in entries {
            let p = e.path();
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                let mut pre = prefix.to_vec();
                pre.push(name);
                walk(&p, &pre, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let mut path = prefix.to_vec();
                if !["mod", "lib", "main"].contains(&name.as_str()) {
                    path.push(name.clone());
                }
                let key = if path.is_empty() {
                    "crate".to_string()
                } else {
                    path.join("::")
                };
                if name != "main" {
                    out.insert(key, std::fs::read_to_string(&p).unwrap());
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &[],
        &mut out,
    );
    out
}

/// The text without `#[cfg(test)]` items (tests may use anything).
fn without_tests(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        if l.trim() == "#[cfg(test)]" {
            // Skip the item that follows, up to its closing brace at the same indent.
            let close = format!("{}}}", &l[..l.len() - l.trim_start().len()]);
            for l2 in lines.by_ref() {
                if l2 == close {
                    break;
                }
            }
            continue;
        }
        let code = l.split("//").next().unwrap_or("");
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// Every path segment list following `crate::`, `$crate::` or `super::` in `text`, with
/// braces expanded one level (`super::{a, b::C}`).
fn paths(module: &str, text: &str) -> Vec<Vec<String>> {
    let own: Vec<String> = if module == "crate" {
        vec![]
    } else {
        module.split("::").map(str::to_string).collect()
    };
    let parent: Vec<String> = own[..own.len().saturating_sub(1)].to_vec();
    let mut out = Vec::new();
    let s = text;
    for (start, base) in [("crate::", vec![]), ("super::", parent.clone())] {
        let mut from = 0;
        while let Some(i) = s[from..].find(start) {
            let at = from + i;
            from = at + start.len();
            let prev = s[..at].chars().last();
            if prev.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &s[from..];
            if let Some(inner) = rest.strip_prefix('{') {
                let end = inner.find('}').unwrap_or(inner.len());
                for item in inner[..end].split(',') {
                    let segs: Vec<String> = item
                        .trim()
                        .split("::")
                        .map(|x| x.trim().to_string())
                        .filter(|x| !x.is_empty() && x != "self")
                        .collect();
                    let mut p = base.clone();
                    p.extend(segs);
                    out.push(p);
                }
            } else {
                let segs: Vec<String> = rest
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                    .next()
                    .unwrap_or("")
                    .split("::")
                    .filter(|x| !x.is_empty())
                    .map(str::to_string)
                    .collect();
                let mut p = base.clone();
                p.extend(segs);
                out.push(p);
            }
        }
    }
    out
}

/// The longest known module a path names.
fn resolve(known: &BTreeMap<String, String>, path: &[String]) -> Option<String> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].join("::"))
        .find(|m| known.contains_key(m))
}

/// Paths that start with the name of one of `module`'s own child modules (`use child::X`,
/// `pub use child::X`, `child::f()`), as full paths.
fn child_paths(mods: &BTreeMap<String, String>, module: &str, text: &str) -> Vec<Vec<String>> {
    let own: Vec<String> = if module == "crate" {
        vec![]
    } else {
        module.split("::").map(str::to_string).collect()
    };
    let children: Vec<String> = mods
        .keys()
        .filter_map(|k| {
            let rest = if own.is_empty() {
                Some(k.as_str())
            } else {
                k.strip_prefix(&format!("{module}::"))
            }?;
            (!rest.contains("::") && k != module).then(|| rest.to_string())
        })
        .collect();
    let mut out = Vec::new();
    for c in children {
        let needle = format!("{c}::");
        let mut from = 0;
        while let Some(i) = text[from..].find(&needle) {
            let at = from + i;
            from = at + needle.len();
            let prev = text[..at].chars().last();
            if prev.is_some_and(|ch| ch.is_alphanumeric() || ch == '_' || ch == ':') {
                continue;
            }
            let mut p = own.clone();
            p.push(c.clone());
            out.push(p);
        }
    }
    out
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mods = modules();
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, text) in &mods {
        let deps = g.entry(m.clone()).or_default();
        let code = without_tests(text);
        for p in paths(m, &code)
            .into_iter()
            .chain(child_paths(&mods, m, &code))
        {
            if let Some(d) = resolve(&mods, &p) {
                if d != *m {
                    deps.insert(d);
                }
            }
        }
    }
    g
}

/// A cycle in `g`, if any.
fn cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        g: &BTreeMap<String, BTreeSet<String>>,
        n: &str,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(n) {
            Some(2) => return None,
            Some(1) => {
                let i = stack.iter().position(|x| x == n).unwrap_or(0);
                let mut c = stack[i..].to_vec();
                c.push(n.to_string());
                return Some(c);
            }
            _ => {}
        }
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for d in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(g, d, state, stack) {
                return Some(c);
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in g.keys() {
        if let Some(c) = visit(g, n, &mut state, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

#[test]
fn no_module_uses_one_that_uses_it_back() {
    let g = graph();
    for (m, deps) in &g {
        println!(
            "{m} -> {}",
            deps.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    assert!(g.contains_key("bot::session") && g["bot::play"].contains("bot::session"));
    let cycles = all_cycles(&g);
    assert!(
        cycles.is_empty(),
        "modules that use each other:\n{}",
        cycles.join("\n")
    );
}

/// The groups of modules that reach each other (strongly connected components with more than
/// one module), each written as its members.
fn all_cycles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    // Kosaraju: finishing order on g, then components on the reversed graph.
    fn order(
        g: &BTreeMap<String, BTreeSet<String>>,
        n: &str,
        seen: &mut BTreeSet<String>,
        out: &mut Vec<String>,
    ) {
        if !seen.insert(n.to_string()) {
            return;
        }
        for d in g.get(n).into_iter().flatten() {
            order(g, d, seen, out);
        }
        out.push(n.to_string());
    }
    let mut seen = BTreeSet::new();
    let mut finished = Vec::new();
    for n in g.keys() {
        order(g, n, &mut seen, &mut finished);
    }
    let mut rev: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (n, ds) in g {
        for d in ds {
            rev.entry(d.clone()).or_default().insert(n.clone());
        }
    }
    let mut seen = BTreeSet::new();
    let mut groups = Vec::new();
    for n in finished.iter().rev() {
        let mut members = Vec::new();
        order(&rev, n, &mut seen, &mut members);
        if members.len() > 1 {
            members.sort();
            groups.push(members.join(", "));
        }
    }
    groups
}

#[test]
fn the_layers_depend_one_way() {
    let g = graph();
    let top = |m: &str| m.split("::").next().unwrap_or(m).to_string();
    let mut layers: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, deps) in &g {
        let e = layers.entry(top(m)).or_default();
        for d in deps {
            if top(d) != top(m) {
                e.insert(top(d));
            }
        }
    }
    for (m, deps) in &layers {
        println!(
            "{m} -> {}",
            deps.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    if let Some(c) = cycle(&layers) {
        panic!("layer cycle: {}", c.join(" -> "));
    }
    // The rules engine is pure: it uses no other layer.
    assert!(layers["game"].is_empty(), "game uses {:?}", layers["game"]);
    // Tournaments (tables, brackets, tiebreaks, TRF, pairings) are pure too: at most the
    // engine's types.
    let tournament = &layers["tournament"];
    assert!(
        tournament.iter().all(|l| l == "game"),
        "tournament uses {tournament:?}"
    );
    // The bot core knows no adapter.
    for adapter in ["discord", "console", "cli"] {
        assert!(!layers["bot"].contains(adapter));
    }
}

#[test]
fn a_planted_cycle_is_found() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    g.entry("c".into()).or_default().insert("a".into());
    assert_eq!(
        cycle(&g),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    let text = "use super::{session::Bot, text};\nuse crate::game::Variant;";
    let p = paths("bot::play", text);
    assert!(p.contains(&vec!["bot".into(), "session".into(), "Bot".into()]));
    assert!(p.contains(&vec!["bot".into(), "text".into()]));
    assert!(p.contains(&vec!["game".into(), "Variant".into()]));
}

// ---------------------------------------------------------------------------------------------
// Calls as well as imports, inside the bot core.
//
// A capability of `src/bot/` uses another when it imports from it (`use super::clocks::…`) or
// calls a method that the other defines on `Bot` (`self.expire_if_due(…)`, `bot.tick()`,
// `Bot::settings` in the command table): a call through a `Bot` method counts as a call. The
// foundation (what goes in and out, messages, the session, the lifecycle that raises
// `GameEnded`) may be used by every capability and uses none. Capabilities react to a game's end
// only by subscribing to `GameEnded` (the list in `entry.rs`), never by calling each other.

/// The foundation of the bot core: used by any capability, using none.
const FOUNDATION: &[&str] = &[
    "reply",
    "board",
    "buttons",
    "time",
    "text",
    "options",
    "outbox",
    "session",
    "lifecycle",
];

/// Each capability of the bot core with the capabilities it may use, bottom up. Every use must
/// be declared here, and this graph has no cycle.
const CAPABILITIES: &[(&str, &[&str])] = &[
    ("moderation", &[]),
    ("digest", &[]),
    ("delivery", &["digest"]),
    ("live", &[]),
    ("ratings", &[]),
    ("matches", &[]),
    ("clocks", &[]),
    ("conditionals", &[]),
    ("play", &["clocks", "moderation", "conditionals"]),
    ("discussion", &[]),
    ("info", &["discussion"]),
    ("notes", &["info"]),
    ("archive", &["info", "notes"]),
    ("analysis", &["info"]),
    ("draws", &["clocks"]),
    ("ai_games", &["play", "clocks"]),
    ("lobby", &["ai_games"]),
    ("tournaments", &["moderation"]),
    ("ladders", &["tournaments"]),
    ("leagues", &["tournaments"]),
    (
        "settings",
        &[
            "clocks",
            "lobby",
            "ai_games",
            "tournaments",
            "moderation",
            "digest",
            "info",
        ],
    ),
    // The entry points: the command table and its dispatch, making the bot (with the list of
    // `GameEnded`'s subscribers) and the clock tick.
    (
        "commands",
        &[
            "moderation",
            "delivery",
            "live",
            "ratings",
            "clocks",
            "play",
            "conditionals",
            "info",
            "notes",
            "archive",
            "analysis",
            "draws",
            "ai_games",
            "lobby",
            "tournaments",
            "ladders",
            "leagues",
            "settings",
            "discussion",
        ],
    ),
    (
        "entry",
        &[
            "conditionals",
            "draws",
            "ratings",
            "matches",
            "digest",
            "lobby",
            "tournaments",
            "ladders",
            "leagues",
            "clocks",
        ],
    ),
];

/// The methods each module of the bot core defines on `Bot` (in its `impl Bot` blocks, outside
/// tests): method name -> module.
fn bot_methods(bot: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    let mut defs = BTreeMap::new();
    for (m, text) in bot {
        let mut inside = false;
        for line in without_tests(text).lines() {
            if line.starts_with("impl Bot {") {
                inside = true;
                continue;
            }
            if inside && line == "}" {
                inside = false;
                continue;
            }
            if !inside {
                continue;
            }
            // A method at the impl's own indentation.
            let Some(rest) = line.strip_prefix("    ") else {
                continue;
            };
            let rest = rest
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub(super) ")
                .trim_start_matches("pub ");
            if let Some(sig) = rest.strip_prefix("fn ") {
                let name: String = sig
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let before = defs.insert(name.clone(), m.clone());
                assert!(
                    before.is_none() || before.as_deref() == Some(m.as_str()),
                    "Bot::{name} is defined twice"
                );
            }
        }
    }
    defs
}

/// The bot core's modules (`bot::play` as `play`) with their text, from a crate's modules.
fn bot_modules(mods: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    mods.iter()
        .filter_map(|(m, t)| Some((m.strip_prefix("bot::")?.to_string(), t.clone())))
        .collect()
}

/// Who uses whom in the bot core, by import or by a call of a `Bot` method (`self.name(` in
/// its methods, `bot.name(` elsewhere, or the path `Bot::name`): module -> (used module -> what: `use` or the methods called).
fn bot_uses(
    mods: &BTreeMap<String, String>,
) -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let bot = bot_modules(mods);
    let defs = bot_methods(&bot);
    let top = |m: &str| m.split("::").next().unwrap_or(m).to_string();
    let mut uses: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (m, text) in &bot {
        let code = without_tests(text);
        let entry = uses.entry(top(m)).or_default();
        let full = format!("bot::{m}");
        for p in paths(&full, &code)
            .into_iter()
            .chain(child_paths(mods, &full, &code))
        {
            if let Some(d) = resolve(mods, &p).and_then(|d| d.strip_prefix("bot::").map(top)) {
                if d != top(m) {
                    entry.entry(d).or_default().insert("use".into());
                }
            }
        }
        let bytes = code.as_bytes();
        let ident = |from: usize| -> String {
            bytes[from..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .map(|b| *b as char)
                .collect()
        };
        for i in 0..bytes.len() {
            // A method call on a `Bot`: named `self` in its methods, `bot` elsewhere
            // (`s.bot` in a session).
            let receiver = |word: &[u8]| {
                bytes[..i].ends_with(word)
                    && (i == word.len()
                        || !(bytes[i - word.len() - 1].is_ascii_alphanumeric()
                            || bytes[i - word.len() - 1] == b'_'))
            };
            let after_dot = bytes[i] == b'.' && (receiver(b"self") || receiver(b"bot"));
            let after_path = bytes[i..].starts_with(b"Bot::")
                && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'));
            if !(after_dot || after_path) {
                continue;
            }
            let start = i + if after_dot { 1 } else { 5 };
            let name = ident(start);
            if name.is_empty() {
                continue;
            }
            let rest = &bytes[start + name.len()..];
            let rest = &rest[rest.iter().take_while(|b| b.is_ascii_whitespace()).count()..];
            // A call `.name(`, a turbofish `.name::<`, or a path `Bot::name` (as a function).
            if after_dot && !(rest.starts_with(b"(") || rest.starts_with(b"::<")) {
                continue;
            }
            if let Some(d) = defs.get(&name).map(|d| top(d)) {
                if d != top(m) {
                    entry.entry(d).or_default().insert(name);
                }
            }
        }
    }
    uses
}

/// What breaks the declared capability graph in `mods`: uses not declared (or of a capability
/// by the foundation), modules that are neither, and cycles among the declared uses.
fn capability_faults(mods: &BTreeMap<String, String>, declared: &[(&str, &[&str])]) -> Vec<String> {
    let mut faults = Vec::new();
    let allowed: BTreeMap<&str, BTreeSet<&str>> = declared
        .iter()
        .map(|(c, uses)| (*c, uses.iter().copied().collect()))
        .collect();
    for (m, used) in bot_uses(mods) {
        if m == "mod" || m.is_empty() {
            continue;
        }
        let foundation = FOUNDATION.contains(&m.as_str());
        if !foundation && !allowed.contains_key(m.as_str()) {
            faults.push(format!(
                "bot::{m} is neither foundation nor a declared capability"
            ));
            continue;
        }
        for (d, what) in used {
            if FOUNDATION.contains(&d.as_str()) && !foundation {
                continue;
            }
            if FOUNDATION.contains(&d.as_str()) && foundation {
                continue; // The foundation's own import graph is checked above.
            }
            let ok = !foundation && allowed[m.as_str()].contains(d.as_str());
            if !ok {
                let what: Vec<String> = what.into_iter().collect();
                faults.push(format!(
                    "bot::{m} uses bot::{d} ({}) without a declared edge",
                    what.join(", ")
                ));
            }
        }
    }
    let g: BTreeMap<String, BTreeSet<String>> = declared
        .iter()
        .map(|(c, uses)| (c.to_string(), uses.iter().map(|u| u.to_string()).collect()))
        .collect();
    if let Some(c) = cycle(&g) {
        faults.push(format!("capability cycle: {}", c.join(" -> ")));
    }
    faults
}

#[test]
fn capabilities_use_each_other_only_along_declared_edges() {
    let mods = modules();
    for (m, used) in bot_uses(&mods) {
        let list: Vec<String> = used
            .iter()
            .map(|(d, what)| {
                format!(
                    "{d}({})",
                    what.iter().cloned().collect::<Vec<_>>().join(",")
                )
            })
            .collect();
        println!("{m} -> {}", list.join(" "));
    }
    // The parser sees calls through `Bot` methods.
    let uses = bot_uses(&mods);
    assert!(uses["lobby"]["ai_games"].contains("use"));
    assert!(uses["ai_games"]["play"].contains("use"));
    assert!(uses["entry"]["clocks"].contains("use"));
    let faults = capability_faults(&mods, CAPABILITIES);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn a_planted_call_cycle_is_caught() {
    // A copy of the sources where the clocks call back into the lobby (declared, so that only
    // the cycle is left to catch): lobby -> ai_games -> clocks -> lobby.
    let mut mods = modules();
    let clocks = mods.get_mut("bot::clocks").unwrap();
    clocks.push_str("\nfn planted(bot: &Bot) {\n    super::lobby::expire_challenges(bot, 0);\n}\n");
    let mut declared: Vec<(&str, Vec<&str>)> =
        CAPABILITIES.iter().map(|(c, u)| (*c, u.to_vec())).collect();
    let plain: Vec<(&str, &[&str])> = declared.iter().map(|(c, u)| (*c, u.as_slice())).collect();
    // Undeclared, the call is refused as such.
    let faults = capability_faults(&mods, &plain);
    assert!(
        faults
            .iter()
            .any(|f| f.contains("bot::clocks uses bot::lobby (use)")),
        "{faults:?}"
    );
    // Declared, the cycle is caught.
    for (c, u) in &mut declared {
        if *c == "clocks" {
            u.push("lobby");
        }
    }
    let planted: Vec<(&str, &[&str])> = declared.iter().map(|(c, u)| (*c, u.as_slice())).collect();
    let faults = capability_faults(&mods, &planted);
    assert!(
        faults.iter().any(|f| f.starts_with("capability cycle:")
            && f.contains("clocks -> lobby")
            && f.contains("ai_games")),
        "{faults:?}"
    );
    // A call through a `Bot` method counts as well: named after `bot.`, or as a path.
    for planted in [
        "\nfn planted(bot: &Bot) {\n    bot.tick();\n}\n",
        "\nfn planted() -> usize {\n    let f = Bot::tick;\n    0\n}\n",
    ] {
        let mut mods = modules();
        mods.get_mut("bot::ratings").unwrap().push_str(planted);
        let faults = capability_faults(&mods, CAPABILITIES);
        assert!(
            faults
                .iter()
                .any(|f| f.contains("bot::ratings uses bot::entry (tick)")),
            "{faults:?}"
        );
    }
}
