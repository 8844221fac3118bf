//! Command-line tools on top of the engine: the `engine` JSON contract and benchmarks.

pub mod bench;
pub mod engine;
pub mod export;
