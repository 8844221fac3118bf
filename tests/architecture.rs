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
