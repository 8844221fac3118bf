//! The `tara-bot` command line: the arguments are read and the command run by
//! `tara_bot::cli::run`.

fn main() -> std::process::ExitCode {
    tara_bot::cli::run::main()
}
