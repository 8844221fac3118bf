//! Command-line tools on top of the engine: the `engine` and `ai` JSON contracts, `export`, `pair`
//! (tournament pairings) and benchmarks.

pub mod ai;
pub mod analyse;
pub mod bench;
pub mod bench_ai;
pub mod bench_pair;
pub mod engine;
pub mod export;
pub mod pair;
pub mod tournament;
