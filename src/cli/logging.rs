//! The log: to standard error, with tokens kept out of it.

pub(crate) fn init_logging() {
    init_logging_at("warn", Vec::new());
}

/// Libraries that log requests, payloads and tokens below info: kept at info unless named.
const QUIET_TARGETS: &[&str] = &[
    "serenity",
    "h2",
    "hyper",
    "hyper_util",
    "reqwest",
    "rustls",
    "tungstenite",
    "tokio_tungstenite",
    "tower",
];

/// The log filter: `RUST_LOG` (else `default`); when that turns on debug or trace for every
/// target, the libraries that would log requests and payloads (with interaction tokens) stay
/// at info, unless it names them itself.
fn log_directives(user: Option<&str>, default: &str) -> String {
    let mut d = user
        .filter(|u| !u.trim().is_empty())
        .unwrap_or(default)
        .to_string();
    let verbose = d.split(',').any(|x| {
        matches!(
            x.trim().to_ascii_lowercase().as_str(),
            "debug" | "trace" | "4" | "5"
        )
    });
    if verbose {
        for t in QUIET_TARGETS {
            let named = d.split(',').any(|x| {
                x.trim()
                    .strip_prefix(t)
                    .is_some_and(|r| r.is_empty() || r.starts_with(['=', '[', ':']))
            });
            if !named {
                d.push_str(&format!(",{t}=info"));
            }
        }
    }
    d
}

/// Log lines go to standard error, each line with `secrets` (the bot token) and interaction
/// tokens taken out.
struct RedactedStderr {
    secrets: std::sync::Arc<Vec<String>>,
}

/// One log line, written out (redacted) when the logger is done with it.
struct RedactedLine {
    secrets: std::sync::Arc<Vec<String>>,
    line: Vec<u8>,
}

impl std::io::Write for RedactedLine {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.line.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for RedactedLine {
    fn drop(&mut self) {
        let text = String::from_utf8_lossy(&self.line);
        let secrets: Vec<&str> = self.secrets.iter().map(String::as_str).collect();
        let clean = crate::discord::redact(&text, &secrets);
        let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), clean.as_bytes());
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for RedactedStderr {
    type Writer = RedactedLine;
    fn make_writer(&'a self) -> RedactedLine {
        RedactedLine {
            secrets: self.secrets.clone(),
            line: Vec::new(),
        }
    }
}

/// Log lines go to standard error only (standard output is the console's or a command's own
/// output), coloured only when standard error is a terminal. Tokens never reach the log:
/// serenity's spans (which record whole requests, their URLs carrying interaction tokens) are
/// left out at every level, the libraries below it log at info at most unless `RUST_LOG` names
/// them, and every line is scrubbed of `secrets` and interaction tokens.
pub(crate) fn init_logging_at(default: &str, secrets: Vec<String>) {
    use std::io::IsTerminal;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::Layer;
    let user = std::env::var("RUST_LOG").ok();
    let directives = log_directives(user.as_deref(), default);
    let filter = tracing_subscriber::EnvFilter::try_new(&directives)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let no_serenity_spans = tracing_subscriber::filter::filter_fn(|m| {
        !(m.is_span() && m.target().starts_with("serenity"))
    });
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(RedactedStderr {
            secrets: std::sync::Arc::new(secrets),
        })
        .with_ansi(std::io::stderr().is_terminal())
        .with_filter(no_serenity_spans)
        .with_filter(filter);
    let _ = tracing_subscriber::registry().with(layer).try_init();
}

#[cfg(test)]
mod tests {
    use super::log_directives;

    #[test]
    fn debug_for_everything_keeps_the_http_and_gateway_libraries_at_info() {
        let d = log_directives(Some("debug"), "warn");
        assert!(
            d.starts_with("debug,") && d.contains(",serenity=info") && d.contains(",hyper=info")
        );
        // Named by the user: left as asked.
        let d = log_directives(Some("trace,serenity=debug"), "warn");
        assert!(
            !d.contains("serenity=info") && d.contains("reqwest=info"),
            "{d}"
        );
        // Nothing verbose: nothing added; no RUST_LOG: the default.
        assert_eq!(
            log_directives(Some("warn,tara_bot=debug"), "x"),
            "warn,tara_bot=debug"
        );
        assert_eq!(
            log_directives(None, "tara_bot=info,warn"),
            "tara_bot=info,warn"
        );
        assert_eq!(log_directives(Some(" "), "warn"), "warn");
    }
}
