//! Builds the PostgreSQL tests into the integration test binary when there is a server to run
//! them on: `TARA_BOT_TEST_POSTGRES` set (as `.ci/run` sets it) turns on `cfg(postgres_tests)`,
//! which `tests/integration.rs` includes them under; without it they are left out and one test
//! says so (and fails under CI). Changing the variable rebuilds the crate.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(postgres_tests)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=TARA_BOT_TEST_POSTGRES");
    if std::env::var_os("TARA_BOT_TEST_POSTGRES").is_some_and(|v| !v.is_empty()) {
        println!("cargo::rustc-cfg=postgres_tests");
    }
}
