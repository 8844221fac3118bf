//! The module graph of `src/` has no cycles: no module uses another that uses it back,
//! directly or through others, neither between files nor between the layers' folders; and
//! inside the bot core, capabilities use each other only along declared edges.
//!
//! The graph comes from a real parse of every file (`syn`), outside `#[cfg(test)]` items:
//! every path in the code (imports, expressions, types, patterns, attributes' macros and the
//! tokens of macro calls and `macro_rules!` bodies) is resolved the way the compiler resolves
//! it, through `use` items, re-exports (a `pub use` in a parent, a private `use` a child sees,
//! renames and globs) and child modules, to the module that *defines* the item it names. A
//! module uses the modules that define what it names; a `use` item counts even when nothing
//! else names it (a `mod.rs` that re-exports a child uses it, so the child must not use its
//! parent). Run with `-- --nocapture` to print the graph.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use syn::visit::Visit;

// ---------------------------------------------------------------------------------------------
// The crate as modules, scopes and uses.

/// What a name in a module's scope stands for.
#[derive(Clone, Debug)]
enum Binding {
    /// An item defined in this module.
    Def,
    /// A child module (its key).
    Module(String),
    /// An import: the path as written in the `use` item of this module.
    Import(Vec<String>),
}

/// One module: its scope and what its code names.
#[derive(Default, Debug)]
struct Module {
    /// Names in scope: a name may be bound twice, as a module and as an item (`mod analyse;`
    /// and `pub use analyse::analyse;`), as Rust's namespaces allow.
    scope: BTreeMap<String, Vec<Binding>>,
    /// `use path::*` items (paths as written).
    globs: Vec<Vec<String>>,
    /// Every path the code names, as written, with what it was: `use` (an import, an item
    /// named by path, a function passed as a value) or the method called.
    paths: Vec<Vec<String>>,
    /// Methods called (`x.name(…)`, on any receiver).
    calls: BTreeSet<String>,
    /// Methods this module defines on `Bot` (`impl Bot { fn name … }`).
    bot_methods: BTreeSet<String>,
    /// Methods this module defines on the store's transaction for the rest of the crate
    /// (`impl Tx<'_> { pub fn name … }`).
    tx_methods: BTreeSet<String>,
}

/// The crate: module key (`crate`, `bot::play`) -> module.
struct Crate {
    mods: BTreeMap<String, Module>,
    /// Modules declared `#[cfg(test)]` (in a file of their own): left out.
    tests_only: Vec<String>,
}

/// Whether an item is compiled only for tests (`#[cfg(test)]`, `#[cfg(all(test, …))]`).
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let text: String = a
            .meta
            .to_token_stream()
            .to_string()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        text == "cfg(test)" || text.starts_with("cfg(all(test,")
    })
}

fn key(parts: &[String]) -> String {
    if parts.is_empty() {
        "crate".into()
    } else {
        parts.join("::")
    }
}

fn parts(key: &str) -> Vec<String> {
    if key == "crate" {
        Vec::new()
    } else {
        key.split("::").map(str::to_string).collect()
    }
}

/// Adds the bindings of a `use` tree under `prefix` to `m`.
fn use_tree(m: &mut Module, prefix: &mut Vec<String>, tree: &syn::UseTree) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_tree(m, prefix, &p.tree);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            let mut path = prefix.clone();
            if name != "self" {
                path.push(name.clone());
            }
            let bound = if name == "self" {
                prefix.last().cloned().unwrap_or_default()
            } else {
                name
            };
            m.paths.push(path.clone());
            m.scope
                .entry(bound)
                .or_default()
                .push(Binding::Import(path));
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            if r.ident != "self" {
                path.push(r.ident.to_string());
            }
            m.paths.push(path.clone());
            m.scope
                .entry(r.rename.to_string())
                .or_default()
                .push(Binding::Import(path));
        }
        syn::UseTree::Glob(_) => {
            m.paths.push(prefix.clone());
            m.globs.push(prefix.clone());
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_tree(m, prefix, t);
            }
        }
    }
}

/// Collects what a module's code names (paths, method calls), skipping `#[cfg(test)]` items.
struct Names<'a> {
    m: &'a mut Module,
    /// Inside `impl Bot`.
    in_bot_impl: bool,
    /// Inside `impl Tx`.
    in_tx_impl: bool,
}

impl<'ast> Visit<'ast> for Names<'_> {
    fn visit_item(&mut self, i: &'ast syn::Item) {
        let attrs = match i {
            syn::Item::Const(x) => &x.attrs,
            syn::Item::Enum(x) => &x.attrs,
            syn::Item::ExternCrate(x) => &x.attrs,
            syn::Item::Fn(x) => &x.attrs,
            syn::Item::ForeignMod(x) => &x.attrs,
            syn::Item::Impl(x) => &x.attrs,
            syn::Item::Macro(x) => &x.attrs,
            syn::Item::Mod(x) => &x.attrs,
            syn::Item::Static(x) => &x.attrs,
            syn::Item::Struct(x) => &x.attrs,
            syn::Item::Trait(x) => &x.attrs,
            syn::Item::TraitAlias(x) => &x.attrs,
            syn::Item::Type(x) => &x.attrs,
            syn::Item::Union(x) => &x.attrs,
            syn::Item::Use(x) => &x.attrs,
            _ => return syn::visit::visit_item(self, i),
        };
        if is_test(attrs) {
            return;
        }
        match i {
            // Imports (also those inside functions) bind names in the module's scope.
            syn::Item::Use(u) => use_tree(self.m, &mut Vec::new(), &u.tree),
            // Modules are walked as modules of their own.
            syn::Item::Mod(_) => {}
            syn::Item::Impl(imp) => {
                let of = |name: &str| {
                    imp.trait_.is_none()
                        && matches!(&*imp.self_ty, syn::Type::Path(p)
                            if p.path.segments.last().is_some_and(|s| s.ident == name))
                };
                let was = (self.in_bot_impl, self.in_tx_impl);
                (self.in_bot_impl, self.in_tx_impl) = (of("Bot"), of("Tx"));
                syn::visit::visit_item_impl(self, imp);
                (self.in_bot_impl, self.in_tx_impl) = was;
            }
            _ => syn::visit::visit_item(self, i),
        }
    }

    fn visit_impl_item(&mut self, i: &'ast syn::ImplItem) {
        let attrs = match i {
            syn::ImplItem::Const(x) => &x.attrs,
            syn::ImplItem::Fn(x) => &x.attrs,
            syn::ImplItem::Type(x) => &x.attrs,
            syn::ImplItem::Macro(x) => &x.attrs,
            _ => return syn::visit::visit_impl_item(self, i),
        };
        if is_test(attrs) {
            return;
        }
        if let (true, syn::ImplItem::Fn(f)) = (self.in_bot_impl, i) {
            self.m.bot_methods.insert(f.sig.ident.to_string());
        }
        // Only the methods the rest of the crate can call (`pub`, `pub(crate)`).
        if let (true, syn::ImplItem::Fn(f)) = (self.in_tx_impl, i) {
            let outside = match &f.vis {
                syn::Visibility::Public(_) => true,
                syn::Visibility::Restricted(r) => r.path.is_ident("crate"),
                syn::Visibility::Inherited => false,
            };
            if outside {
                self.m.tx_methods.insert(f.sig.ident.to_string());
            }
        }
        syn::visit::visit_impl_item(self, i)
    }

    fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
        // A `#[cfg(test)]` statement (a local item or expression) is not there outside tests.
        let attrs = match s {
            syn::Stmt::Local(l) => &l.attrs,
            syn::Stmt::Macro(m) => &m.attrs,
            _ => return syn::visit::visit_stmt(self, s),
        };
        if !is_test(attrs) {
            syn::visit::visit_stmt(self, s);
        }
    }

    /// `pub(crate)`, `pub(super)`, `pub(in path)`: who may see an item, not a use.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        // `Bot::name` names a method of `Bot` (a call, or the function as a value).
        if segs.len() >= 2 && segs[segs.len() - 2] == "Bot" {
            self.m.calls.insert(segs[segs.len() - 1].clone());
        }
        self.m.paths.push(segs);
        syn::visit::visit_path(self, p);
    }

    fn visit_expr_method_call(&mut self, c: &'ast syn::ExprMethodCall) {
        self.m.calls.insert(c.method.to_string());
        syn::visit::visit_expr_method_call(self, c);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        tokens(self.m, mac.tokens.clone());
    }
}

/// The paths (`a::b::c`, `$crate::x`) and method calls (`.name(`) in a macro's tokens.
fn tokens(m: &mut Module, ts: TokenStream) {
    let list: Vec<TokenTree> = ts.into_iter().collect();
    let ident = |t: Option<&TokenTree>| match t {
        Some(TokenTree::Ident(i)) => Some(i.to_string()),
        _ => None,
    };
    let colons = |i: usize| {
        matches!((list.get(i), list.get(i + 1)),
            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                if a.as_char() == ':' && b.as_char() == ':')
    };
    let mut i = 0;
    while i < list.len() {
        match &list[i] {
            TokenTree::Group(g) => tokens(m, g.stream()),
            TokenTree::Punct(p) if p.as_char() == '.' => {
                if let (Some(name), Some(TokenTree::Group(g))) =
                    (ident(list.get(i + 1)), list.get(i + 2))
                {
                    if g.delimiter() == Delimiter::Parenthesis {
                        m.calls.insert(name);
                    }
                }
            }
            TokenTree::Punct(p)
                if p.as_char() == '$' && ident(list.get(i + 1)).as_deref() == Some("crate") =>
            {
                let mut segs = vec!["crate".to_string()];
                let mut j = i + 2;
                while colons(j) {
                    match ident(list.get(j + 2)) {
                        Some(s) => segs.push(s),
                        None => break,
                    }
                    j += 3;
                }
                m.paths.push(segs);
                i = j;
                continue;
            }
            TokenTree::Ident(first) => {
                // The start of a path: not itself after `::`.
                let after_colons = i >= 2 && colons(i - 2);
                if !after_colons {
                    let mut segs = vec![first.to_string()];
                    let mut j = i + 1;
                    while colons(j) {
                        match ident(list.get(j + 2)) {
                            Some(s) => segs.push(s),
                            None => break,
                        }
                        j += 3;
                    }
                    if segs.len() >= 2 && segs[segs.len() - 2] == "Bot" {
                        m.calls.insert(segs[segs.len() - 1].clone());
                    }
                    m.paths.push(segs);
                    i = j;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
}

impl Crate {
    /// Every file of `src/` parsed, with `extra` text appended to some modules (planted
    /// violations).
    fn read(extra: &[(&str, &str)]) -> Crate {
        let mut files: Vec<(Vec<String>, String)> = Vec::new();
        fn walk(dir: &Path, prefix: &[String], out: &mut Vec<(Vec<String>, String)>) {
            let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
            entries.sort_by_key(|e| e.path());
            for e in entries {
                let p = e.path();
                let name = p.file_stem().unwrap().to_string_lossy().to_string();
                if p.is_dir() {
                    let mut pre = prefix.to_vec();
                    pre.push(name);
                    walk(&p, &pre, out);
                } else if p.extension().is_some_and(|x| x == "rs") && name != "main" {
                    let mut path = prefix.to_vec();
                    if !["mod", "lib"].contains(&name.as_str()) {
                        path.push(name);
                    }
                    out.push((path, std::fs::read_to_string(&p).unwrap()));
                }
            }
        }
        walk(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &[],
            &mut files,
        );
        for (k, text) in extra {
            let (_, t) = files
                .iter_mut()
                .find(|(p, _)| key(p) == *k)
                .unwrap_or_else(|| panic!("no module {k}"));
            t.push('\n');
            t.push_str(text);
        }
        let mut c = Crate {
            mods: BTreeMap::new(),
            tests_only: Vec::new(),
        };
        for (path, text) in files {
            let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", key(&path)));
            c.add(&path, &file.items);
        }
        let tests_only = std::mem::take(&mut c.tests_only);
        c.mods.retain(|k, _| {
            !tests_only
                .iter()
                .any(|t| k == t || k.starts_with(&format!("{t}::")))
        });
        c
    }

    /// Adds a module and its inline child modules.
    fn add(&mut self, path: &[String], items: &[syn::Item]) {
        let mut m = Module::default();
        for item in items {
            let (attrs, name): (&[syn::Attribute], Option<String>) = match item {
                syn::Item::Const(x) => (&x.attrs, Some(x.ident.to_string())),
                syn::Item::Enum(x) => (&x.attrs, Some(x.ident.to_string())),
                syn::Item::Fn(x) => (&x.attrs, Some(x.sig.ident.to_string())),
                syn::Item::Macro(x) => (&x.attrs, x.ident.as_ref().map(|i| i.to_string())),
                syn::Item::Static(x) => (&x.attrs, Some(x.ident.to_string())),
                syn::Item::Struct(x) => (&x.attrs, Some(x.ident.to_string())),
                syn::Item::Trait(x) => (&x.attrs, Some(x.ident.to_string())),
                syn::Item::Type(x) => (&x.attrs, Some(x.ident.to_string())),
                syn::Item::Union(x) => (&x.attrs, Some(x.ident.to_string())),
                syn::Item::Mod(x) => {
                    if is_test(&x.attrs) {
                        let mut child = path.to_vec();
                        child.push(x.ident.to_string());
                        self.tests_only.push(key(&child));
                        continue;
                    }
                    let mut child = path.to_vec();
                    child.push(x.ident.to_string());
                    m.scope
                        .entry(x.ident.to_string())
                        .or_default()
                        .push(Binding::Module(key(&child)));
                    if let Some((_, inner)) = &x.content {
                        self.add(&child, inner);
                    }
                    continue;
                }
                _ => (&[], None),
            };
            if is_test(attrs) {
                continue;
            }
            if let Some(name) = name {
                m.scope.entry(name).or_default().push(Binding::Def);
            }
        }
        let mut names = Names {
            m: &mut m,
            in_bot_impl: false,
            in_tx_impl: false,
        };
        for item in items {
            names.visit_item(item);
        }
        self.mods.insert(key(path), m);
    }

    /// The bindings of `name` in module `k`: its own, else those through its globs.
    fn lookup(&self, k: &str, name: &str, depth: usize) -> Vec<(String, Binding)> {
        let Some(m) = self.mods.get(k) else {
            return Vec::new();
        };
        if let Some(b) = m.scope.get(name) {
            return b.iter().map(|b| (k.to_string(), b.clone())).collect();
        }
        if depth > 16 {
            return Vec::new();
        }
        for g in &m.globs {
            if let Some(Target::Module(gk)) = self.resolve(k, g, depth + 1) {
                let found = self.lookup(&gk, name, depth + 1);
                if !found.is_empty() {
                    return found;
                }
            }
        }
        Vec::new()
    }

    /// What `name` stands for in module `k`: a module where more of the path follows
    /// (`more`), else the first binding that leads anywhere.
    fn step(&self, k: &str, name: &str, more: bool, depth: usize) -> Option<Target> {
        let targets: Vec<Target> = self
            .lookup(k, name, depth)
            .into_iter()
            .filter_map(|(at, b)| self.bind(&at, b, depth))
            .collect();
        targets
            .iter()
            .find(|t| more && matches!(t, Target::Module(_)))
            .or(targets.first())
            .cloned()
    }

    /// What `path`, written in module `from`, names: the module that defines it (an item) or
    /// the module it is. `None` for what is not the crate's (std, other crates, local names).
    fn resolve(&self, from: &str, path: &[String], depth: usize) -> Option<Target> {
        if depth > 16 || path.is_empty() {
            return None;
        }
        let mut i = 0;
        let mut cur: Target;
        match path[0].as_str() {
            "crate" => {
                cur = Target::Module("crate".into());
                i = 1;
            }
            "self" => {
                cur = Target::Module(from.into());
                i = 1;
            }
            "super" => {
                let mut p = parts(from);
                while path.get(i).is_some_and(|s| s == "super") {
                    p.pop();
                    i += 1;
                }
                cur = Target::Module(key(&p));
            }
            "Self" => return None,
            first => {
                cur = self.step(from, first, path.len() > 1, depth)?;
                i = 1;
            }
        }
        while i < path.len() {
            let Target::Module(k) = &cur else { break };
            let Some(next) = self.step(k, &path[i], i + 1 < path.len(), depth) else {
                break;
            };
            cur = next;
            i += 1;
        }
        Some(cur)
    }

    fn bind(&self, at: &str, b: Binding, depth: usize) -> Option<Target> {
        match b {
            Binding::Def => Some(Target::Item(at.to_string())),
            Binding::Module(k) => Some(Target::Module(k)),
            Binding::Import(p) => self.resolve(at, &p, depth + 1),
        }
    }

    /// Module -> the modules it uses (not itself).
    fn graph(&self) -> BTreeMap<String, BTreeSet<String>> {
        self.mods
            .iter()
            .map(|(k, m)| {
                let deps = m
                    .paths
                    .iter()
                    .filter_map(|p| self.resolve(k, p, 0))
                    .map(Target::module)
                    .filter(|d| d != k)
                    .collect();
                (k.clone(), deps)
            })
            .collect()
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Target {
    Module(String),
    /// An item, by the module that defines it.
    Item(String),
}

impl Target {
    fn module(self) -> String {
        match self {
            Target::Module(k) | Target::Item(k) => k,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// No cycles.

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
fn no_module_uses_one_that_uses_it_back() {
    let g = Crate::read(&[]).graph();
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

#[test]
fn the_layers_depend_one_way() {
    let layers = layers(&Crate::read(&[]).graph());
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
    // The domain's ids are the vocabulary of every layer above the engine: they use none.
    assert!(layers["ids"].is_empty(), "ids uses {:?}", layers["ids"]);
    // Tournaments (tables, brackets, tiebreaks, TRF, pairings) are pure too: at most the
    // engine's types.
    let tournament = &layers["tournament"];
    assert!(
        tournament.iter().all(|l| l == "game"),
        "tournament uses {tournament:?}"
    );
    // The bot core knows no adapter.
    for adapter in ["discord", "console", "cli", "fake_discord", "web"] {
        assert!(!layers["bot"].contains(adapter));
    }
    // Nothing but the command line (its benchmark) uses the fake Discord.
    for (l, deps) in &layers {
        assert!(
            l == "cli" || !deps.contains("fake_discord"),
            "{l} uses the fake Discord"
        );
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
    // Paths resolve through imports to the module defining what they name.
    let c = Crate::read(&[]);
    let at = |p: &[&str]| {
        c.resolve(
            "bot::play",
            &p.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            0,
        )
    };
    assert_eq!(
        at(&["super", "session", "Bot"]),
        Some(Target::Item("bot::session".into()))
    );
    assert_eq!(
        at(&["crate", "game", "Variant"]),
        Some(Target::Item("game::variant".into()))
    );
    assert_eq!(at(&["std", "fmt"]), None);
}

/// The layers' graph of a module graph.
fn layers(g: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<String, BTreeSet<String>> {
    let top = |m: &str| m.split("::").next().unwrap_or(m).to_string();
    let mut layers: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, deps) in g {
        let e = layers.entry(top(m)).or_default();
        for d in deps {
            if top(d) != top(m) {
                e.insert(top(d));
            }
        }
    }
    layers
}

/// Forms of an edge the old, text-reading test missed, each planted in a copy of the sources
/// as a use of a higher layer, each seen and making a cycle of layers that is found: the item
/// after a one-line `#[cfg(test)] use`, a function taken as a value through a re-export of
/// `bot/mod.rs`, and a `$crate::` path in a `macro_rules!` body.
#[test]
fn planted_edges_of_every_form_make_cycles_that_are_found() {
    let found = |extra: &[(&str, &str)], from: &str, to: &str| {
        let g = Crate::read(extra).graph();
        assert!(g[from].contains(to), "{from} -> {to} unseen: {:?}", g[from]);
        assert!(cycle(&layers(&g)).is_some(), "{from} -> {to}: no cycle");
    };
    found(
        &[(
            "game::board",
            "#[cfg(test)]\nuse std::fmt;\nfn planted() -> u32 {\n    crate::render::theme::planted()\n}\n",
        )],
        "game::board",
        "render::theme",
    );
    found(
        &[
            ("bot::outbox", "pub fn planted_value() -> u32 {\n    0\n}\n"),
            ("bot", "pub use outbox::planted_value;\n"),
            (
                "game::board",
                "fn planted() -> u32 {\n    let f: fn() -> u32 = crate::bot::planted_value;\n    f()\n}\n",
            ),
        ],
        "game::board",
        "bot::outbox",
    );
    found(
        &[(
            "game::board",
            "macro_rules! planted {\n    () => {\n        $crate::discord::planted()\n    };\n}\n",
        )],
        "game::board",
        "discord",
    );
}

// ---------------------------------------------------------------------------------------------
// Calls as well as imports, inside the bot core.
//
// A capability of `src/bot/` uses another when it names something the other defines (by
// import, by path, through `bot/mod.rs`'s re-exports, as a function value, in a macro) or
// calls a method that the other defines on `Bot`: `x.name(…)` on any receiver counts (the parse
// does not know types, so a call of a method of the same name on another type counts too: the
// check errs on the side of refusing), and so does the path `Bot::name`. The foundation (what goes
// in and out, messages, the session, the lifecycle that raises `GameEnded`) may be used by every
// capability and uses none. Capabilities react to a game's end only by subscribing to
// `GameEnded` (the list in `entry.rs`), never by calling each other.

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
    ("public", &["ratings"]),
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
    ("lobby", &["ai_games", "matches"]),
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

/// The capability (or foundation module) of a module of the bot core: `bot::tournaments::x`
/// is `tournaments`; `None` outside the bot core and for `bot/mod.rs` itself.
fn capability(k: &str) -> Option<String> {
    let rest = k.strip_prefix("bot::")?;
    Some(rest.split("::").next().unwrap_or(rest).to_string())
}

/// Who uses whom in the bot core: capability -> (used capability -> what: `use` or the `Bot`
/// methods called).
fn bot_uses(c: &Crate) -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let mut defs: BTreeMap<String, String> = BTreeMap::new();
    for (k, m) in &c.mods {
        if let Some(cap) = capability(k) {
            for name in &m.bot_methods {
                let before = defs.insert(name.clone(), cap.clone());
                assert!(
                    before.is_none() || before.as_deref() == Some(cap.as_str()),
                    "Bot::{name} is defined twice"
                );
            }
        }
    }
    let mut uses: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (k, m) in &c.mods {
        let Some(me) = capability(k) else { continue };
        let entry = uses.entry(me.clone()).or_default();
        for p in &m.paths {
            if let Some(d) = c.resolve(k, p, 0).and_then(|t| capability(&t.module())) {
                if d != me {
                    entry.entry(d).or_default().insert("use".into());
                }
            }
        }
        for name in &m.calls {
            if let Some(d) = defs.get(name) {
                if *d != me {
                    entry.entry(d.clone()).or_default().insert(name.clone());
                }
            }
        }
    }
    uses
}

/// What breaks the declared capability graph: uses not declared (or of a capability by the
/// foundation), modules that are neither, and cycles among the declared uses.
fn capability_faults(c: &Crate, declared: &[(&str, &[&str])]) -> Vec<String> {
    let mut faults = Vec::new();
    let allowed: BTreeMap<&str, BTreeSet<&str>> = declared
        .iter()
        .map(|(c, uses)| (*c, uses.iter().copied().collect()))
        .collect();
    for (m, used) in bot_uses(c) {
        let foundation = FOUNDATION.contains(&m.as_str());
        if !foundation && !allowed.contains_key(m.as_str()) {
            faults.push(format!(
                "bot::{m} is neither foundation nor a declared capability"
            ));
            continue;
        }
        for (d, what) in used {
            if FOUNDATION.contains(&d.as_str()) {
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
    let c = Crate::read(&[]);
    let uses = bot_uses(&c);
    for (m, used) in &uses {
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
    // The parser sees imports and calls through `Bot` methods.
    assert!(uses["lobby"]["ai_games"].contains("use"));
    assert!(uses["ai_games"]["play"].contains("use"));
    assert!(uses["entry"]["clocks"].contains("use"));
    let faults = capability_faults(&c, CAPABILITIES);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn a_planted_call_cycle_is_caught() {
    // A copy of the sources where the clocks call back into the lobby (declared, so that only
    // the cycle is left to catch): lobby -> ai_games -> clocks -> lobby.
    let c = Crate::read(&[(
        "bot::clocks",
        "fn planted(bot: &Bot) {\n    super::lobby::expire_challenges(bot, 0);\n}\n",
    )]);
    let mut declared: Vec<(&str, Vec<&str>)> =
        CAPABILITIES.iter().map(|(c, u)| (*c, u.to_vec())).collect();
    let plain: Vec<(&str, &[&str])> = declared.iter().map(|(c, u)| (*c, u.as_slice())).collect();
    // Undeclared, the call is refused as such.
    let faults = capability_faults(&c, &plain);
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
    let faults = capability_faults(&c, &planted);
    assert!(
        faults.iter().any(|f| f.starts_with("capability cycle:")
            && f.contains("clocks -> lobby")
            && f.contains("ai_games")),
        "{faults:?}"
    );
    // A call through a `Bot` method counts as well: named after `bot.`, or as a path.
    for planted in [
        "fn planted(bot: &Bot) {\n    bot.tick();\n}\n",
        "fn planted() -> usize {\n    let f = Bot::tick;\n    0\n}\n",
    ] {
        let c = Crate::read(&[("bot::ratings", planted)]);
        let faults = capability_faults(&c, CAPABILITIES);
        assert!(
            faults
                .iter()
                .any(|f| f.contains("bot::ratings uses bot::entry (tick)")),
            "{faults:?}"
        );
    }
}

/// The holes of the old, text-reading test, each planted in a copy of the sources as the use
/// of an undeclared capability, each refused.
#[test]
fn planted_undeclared_uses_of_every_form_are_refused() {
    let refused = |module: &str, text: &str, fault: &str| {
        let c = Crate::read(&[(module, text)]);
        let faults = capability_faults(&c, CAPABILITIES);
        assert!(
            faults.iter().any(|f| f.contains(fault)),
            "{module} + {text}: {faults:?}"
        );
    };
    // 1. The item after a one-line `#[cfg(test)] use` is not hidden.
    refused(
        "bot::matches",
        "#[cfg(test)]\nuse std::fmt;\nfn planted(bot: &Bot) {\n    super::lobby::expire_challenges(bot, 0);\n}\n",
        "bot::matches uses bot::lobby (use)",
    );
    // 2. A capability reached through `bot/mod.rs`'s re-export resolves to the capability.
    let analysis_reexport = Crate::read(&[])
        .mods
        .get("bot")
        .map(|m| m.scope.contains_key("rank_moves"))
        .unwrap_or(false);
    assert!(analysis_reexport, "bot/mod.rs re-exports rank_moves");
    refused(
        "bot::matches",
        "use super::rank_moves;\nfn planted() -> usize {\n    let _ = rank_moves;\n    0\n}\n",
        "bot::matches uses bot::info (use)",
    );
    // 3. A call on a receiver that is neither `self` nor `bot`.
    refused(
        "bot::ratings",
        "fn planted(host: &Bot) {\n    let me = host;\n    me.tick();\n}\n",
        "bot::ratings uses bot::entry (tick)",
    );
    refused(
        "bot::ratings",
        "fn planted(s: &Session) {\n    s.bot.tick();\n}\n",
        "bot::ratings uses bot::entry (tick)",
    );
    // 4. A subscriber taken as a function pointer and called through it.
    refused(
        "bot::matches",
        "fn planted(bot: &Bot) {\n    let f: fn(&Bot, i64) = super::lobby::expire_challenges;\n    f(bot, 0);\n}\n",
        "bot::matches uses bot::lobby (use)",
    );
    // 5. A path in a macro's tokens.
    refused(
        "bot::matches",
        "fn planted(bot: &Bot) -> String {\n    format!(\"{:?}\", super::lobby::expire_challenges(bot, 0))\n}\n",
        "bot::matches uses bot::lobby (use)",
    );
}

/// The store's reads the web companion makes itself: each `web` module's calls of a method the
/// store defines on its transaction (`tx.game(…)`), as "web::pages calls Tx::game". Like the
/// capabilities' check, a call of a method of the same name on another type counts too.
fn web_store_reads(c: &Crate) -> Vec<String> {
    let tx: BTreeSet<&String> = c
        .mods
        .iter()
        .filter(|(k, _)| k.starts_with("store"))
        .flat_map(|(_, m)| &m.tx_methods)
        .collect();
    let mut faults = Vec::new();
    for (k, m) in &c.mods {
        if k == "web" || k.starts_with("web::") {
            for name in m.calls.iter().filter(|n| tx.contains(n)) {
                faults.push(format!("{k} calls Tx::{name}"));
            }
        }
    }
    faults
}

/// The web companion reads only through the bot core (`bot::public`, the views and pictures),
/// where the rule of what is public lives: no module of `src/web/` calls the store's
/// transaction itself.
#[test]
fn the_web_reads_the_store_only_through_the_bot_core() {
    let c = Crate::read(&[]);
    let known: usize = c
        .mods
        .iter()
        .filter(|(k, _)| k.starts_with("store"))
        .map(|(_, m)| m.tx_methods.len())
        .sum();
    assert!(known > 100, "only {known} methods of Tx were seen");
    let faults = web_store_reads(&c);
    assert!(faults.is_empty(), "{faults:?}");
    // A planted read is refused.
    let c = Crate::read(&[(
        "web::pages",
        "fn planted(tx: &Tx) -> bool {\n    tx.moves(GameId::new(1)).is_ok()\n}\n",
    )]);
    assert_eq!(web_store_reads(&c), ["web::pages calls Tx::moves"]);
}
