//! The command line's output: `out!` for standard output, `say!` for standard error, and what a
//! reader that has gone away looks like.

/// Prints a line to standard output. A reader that has gone away (`tara-bot engine … | head -1`)
/// ends the command quietly, with status 0, instead of a panic; any other write error is
/// reported.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            say!("error: writing the output: {e}");
            std::process::exit(1);
        }
    }};
}

/// Prints a line to standard error. Where it cannot be written (`2>/dev/full`, a closed pipe)
/// the line is lost, but the command still ends with the status it owes, never a panic.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

/// Whether an error comes from writing to a reader that has gone away.
pub(crate) fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
