//! Ard Rí perft from the start position against `tests/data/ard_ri_perft.txt` (counts
//! cross-checked against an independent implementation of RULES.md Part D).

use tara_bot::game::playout::perft;
use tara_bot::game::{GameOptions, Position, Variant};

#[test]
fn ard_ri_perft_matches_the_data_file_to_depth_5() {
    let data = include_str!("data/ard_ri_perft.txt");
    let start = Position::new(GameOptions::new(Variant::ArdRi));
    let mut checked = 0;
    for line in data
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut it = line.split_whitespace();
        let depth: u32 = it.next().unwrap().parse().unwrap();
        let count: u64 = it.next().unwrap().parse().unwrap();
        if depth <= 5 {
            assert_eq!(perft(&start, depth), count, "depth {depth}");
            checked += 1;
        }
    }
    assert_eq!(checked, 5);
}
