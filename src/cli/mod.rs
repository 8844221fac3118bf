//! Command-line tools on top of the engine: the `engine` JSON contract, `export`, `pair`
//! (tournament pairings) and benchmarks.

pub mod bench;
pub mod engine;
pub mod export;
pub mod pair;
pub mod tournament;
