//! Perft from data files, as shakmaty's `tests/perft.rs` does: every `tests/perft/*.perft` file
//! holds positions, each with the number of legal move sequences of some lengths, and the
//! engine must count the same.
//!
//! A file is a list of entries separated by blank lines; `#` starts a comment line:
//!
//! ```text
//! id       a name for messages
//! variant  hkot-1 | hkot-2 | sacred-hill-1 | sacred-hill-2 | ard-ri
//! scoring  kingdoms | knots          (Tara, optional: kingdoms)
//! first    red | blue                (Tara, optional: red)
//! position <Ard Rí notation>         (Ard Rí, optional: the start position)
//! moves    <m1> <m2> ...             (optional: played from the start or the position)
//! perft    <depth> <count>           (one line per depth)
//! ```
//!
//! The counts were cross-checked by independent implementations: the Ard Rí entries by
//! `tests/perft/ard_ri_reference.py`, the Tara entries by the reference implementation of
//! `tests/tara_properties.rs` (its test `reference_perft_matches_the_data_files`).

use std::path::PathBuf;
use tara_bot::game::playout::perft;
use tara_bot::game::{ArdRiPosition, GameOptions, GamePosition, Position, Scoring, Side, Variant};

/// One position of a data file and its counts.
struct Entry {
    file: String,
    id: String,
    fields: Vec<(String, String)>,
    perft: Vec<(u32, u64)>,
}

impl Entry {
    fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The position the counts are for: the start or `position`, then `moves`.
    fn position(&self) -> Position {
        let variant: Variant = self
            .field("variant")
            .unwrap_or_else(|| panic!("{}: {} has no variant", self.file, self.id))
            .parse()
            .unwrap();
        let scoring = self.field("scoring").map(|s| s.parse::<Scoring>().unwrap());
        let first = self.field("first").map(|s| Side::from_id(s).unwrap());
        let options = GameOptions::with(variant, scoring, first).unwrap();
        let mut pos = match self.field("position") {
            Some(text) => {
                assert_eq!(
                    variant,
                    Variant::ArdRi,
                    "{}: only Ard Rí has positions",
                    self.id
                );
                let p = ArdRiPosition::from_notation(text)
                    .unwrap_or_else(|e| panic!("{}: {}: {e}", self.file, self.id));
                assert_eq!(p.to_notation(), text, "{}: not in canonical form", self.id);
                Position::ArdRi(p)
            }
            None => Position::new(options),
        };
        for text in self.field("moves").unwrap_or("").split_whitespace() {
            pos.play_text(text)
                .unwrap_or_else(|e| panic!("{}: {}: {text}: {e}", self.file, self.id));
        }
        pos
    }
}

fn read_entries() -> Vec<Entry> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/perft");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "perft"))
        .collect();
    paths.sort();
    let mut entries = Vec::new();
    for path in paths {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut current: Option<Entry> = None;
        for line in text.lines().map(str::trim).chain(std::iter::once("")) {
            if line.starts_with('#') {
                continue;
            }
            if line.is_empty() {
                entries.extend(current.take());
                continue;
            }
            let (key, value) = line.split_once(' ').unwrap_or((line, ""));
            let entry = current.get_or_insert_with(|| Entry {
                file: file.clone(),
                id: String::new(),
                fields: Vec::new(),
                perft: Vec::new(),
            });
            match key {
                "id" => entry.id = value.trim().to_string(),
                "perft" => {
                    let (d, n) = value.trim().split_once(' ').unwrap();
                    entry
                        .perft
                        .push((d.parse().unwrap(), n.trim().parse().unwrap()));
                }
                "variant" | "scoring" | "first" | "position" | "moves" => entry
                    .fields
                    .push((key.to_string(), value.trim().to_string())),
                _ => panic!("{file}: unknown key {key:?}"),
            }
        }
    }
    entries
}

#[test]
fn perft_matches_the_data_files() {
    let entries = read_entries();
    let mut per_variant = std::collections::HashMap::new();
    let mut counts = 0;
    for e in &entries {
        assert!(!e.id.is_empty(), "{}: an entry without id", e.file);
        assert!(
            !e.perft.is_empty(),
            "{}: {} has no perft line",
            e.file,
            e.id
        );
        let pos = e.position();
        *per_variant.entry(pos.variant()).or_insert(0) += 1;
        for &(depth, expected) in &e.perft {
            assert_eq!(
                perft(&pos, depth),
                expected,
                "{}: {} perft {depth}",
                e.file,
                e.id
            );
            counts += 1;
        }
    }
    assert!(per_variant[&Variant::ArdRi] >= 21, "{per_variant:?}");
    for v in Variant::ALL.into_iter().filter(|v| v.is_tara()) {
        assert!(per_variant[&v] >= 5, "{v}: {per_variant:?}");
    }
    assert!(counts > 100);
}

/// Perft is the same through the enum and on the concrete Ard Rí position (the trait's
/// generic `perft`), and the move lists of every entry are legal throughout.
#[test]
fn perft_through_the_trait_agrees_with_the_enum() {
    for e in read_entries() {
        let pos = e.position();
        if let Position::ArdRi(p) = &pos {
            let depth = e.perft.iter().map(|&(d, _)| d).min().unwrap_or(1);
            assert_eq!(perft(p, depth), perft(&pos, depth), "{}", e.id);
            assert_eq!(p.legal_moves().len(), pos.legal_moves().len());
        }
    }
}
