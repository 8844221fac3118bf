//! Configuration: environment variables, optionally over a TOML file. Secrets are never logged.
//!
//! | variable | TOML key | default |
//! |---|---|---|
//! | `TARA_BOT_CONFIG` | (the file itself) | `tara-bot.toml` if it exists |
//! | `TARA_BOT_DATABASE_URL` | (`database`) | none: a `postgres://` URL, over `TARA_BOT_DB` |
//! | `TARA_BOT_DB` | `database` | `./tara-bot.db` (a file, or a `postgres://` URL) |
//! | `TARA_BOT_IMAGES` | `images` | `./tara-images` (console only) |
//! | `DISCORD_TOKEN` / `DISCORD_TOKEN_FILE` | `discord_token_file` | none |
//! | `DISCORD_GUILD_ID` | `discord_guild_id` | none (global commands) |
//! | `DISCORD_PROXY_URL` | `discord_proxy_url` | none |
//! | `TARA_BOT_DISCORD_RPS` | `discord_requests_per_second` | `40`: the most REST requests a second this process sends to Discord, interaction answers aside (Discord allows 50 in all) |
//! | `TARA_BOT_THREAD_MARGIN` | `discord_thread_margin` | `950`: the most active threads a server may hold for the bot to open one more (Discord allows 1,000; the rest is left to people) |
//! | `TARA_BOT_RATE_LIMIT` | `rate_limit` | `on` (`off` for load tests against a fake Discord) |
//! | `TARA_BOT_AI_MS` | `ai_ms` | `3000`: the most one AI move may take, in milliseconds |
//! | `TARA_BOT_AI_SEARCHES` | `ai_searches` | one per core but one (at least 1): AI searches at once |
//! | `TARA_BOT_AI_THREADS` | `ai_threads` | one per core but one (at least 1): threads of one level-5 search |
//! | `TARA_BOT_LEASE_MS` | `lease_ms` | `120000`: how long work taken by a process that died waits for another (4000 to 86400000) |
//! | `TARA_BOT_WEB_URL` | `web_url` | none: the web companion's public address (`https://tara.example.org`); set, the bot's messages link their page there |

use crate::ai_runner::AiSettings;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The lease's bounds in milliseconds: a command's own answer is left to it for half the
/// lease (at least 2 s, so that no other delivery races it), and a day is the most.
const LEASE_RANGE: std::ops::RangeInclusive<u64> = 4_000..=86_400_000;

/// The REST requests a second a process sends to Discord unless configured: room under
/// Discord's 50 for the gateway's own calls and a second look.
pub const DEFAULT_DISCORD_RPS: u32 = 40;

/// The active threads a server may hold for the bot to open one more, unless configured.
pub const DEFAULT_THREAD_MARGIN: u32 = 950;

/// The longest web companion address taken: its longest link (`/ladder/` and a 19-digit id)
/// stays within the 512 characters Discord allows a link button.
const WEB_URL_MAX: usize = 400;

/// The settings read from the TOML file (every key optional).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    database: Option<PathBuf>,
    images: Option<PathBuf>,
    discord_token_file: Option<PathBuf>,
    discord_guild_id: Option<u64>,
    discord_proxy_url: Option<String>,
    discord_requests_per_second: Option<u32>,
    discord_thread_margin: Option<u32>,
    rate_limit: Option<bool>,
    ai_ms: Option<u64>,
    ai_searches: Option<usize>,
    ai_threads: Option<usize>,
    lease_ms: Option<u64>,
    web_url: Option<String>,
}

/// The bot's configuration.
#[derive(Clone, Debug)]
pub struct Config {
    pub database: PathBuf,
    pub images: PathBuf,
    pub discord_token_file: Option<PathBuf>,
    pub discord_guild_id: Option<u64>,
    pub discord_proxy_url: Option<String>,
    /// The most REST requests a second this process sends to Discord, interaction answers
    /// aside (which Discord does not count against its global limit of 50 a second).
    pub discord_requests_per_second: u32,
    /// The bot opens a thread only while its server holds fewer active threads than this
    /// (Discord allows 1,000; the rest is left to people).
    pub discord_thread_margin: u32,
    /// Whether `tara-bot run` limits how fast each user may send commands (each server sets
    /// the rate with `/settings rate-limit`).
    pub rate_limit: bool,
    /// How the AI's searches run: its time limit per move and how many run at once.
    pub ai: AiSettings,
    /// How long the work a process took (owed messages, AI moves, analyses) stays its own
    /// before another process sharing the database takes it: see [`crate::bot::Bot::with_lease_ms`].
    pub lease_ms: u64,
    /// The web companion's public address (`https://tara.example.org`, no trailing slash):
    /// the bot's messages about a game, tournament, league or ladder of a server on the web
    /// carry a button to its page there ([`crate::bot::Bot::with_web_url`]). `None`: no such
    /// button.
    pub web_url: Option<String>,
}

/// A configuration problem.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read the configuration file {path}: {reason}")]
    Read {
        path: PathBuf,
        /// Why (shown in the message, so not a separate error source).
        reason: std::io::Error,
    },
    #[error("the configuration file {path} is not valid: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{name} must be a number, not '{value}'")]
    Number { name: &'static str, value: String },
    #[error("{name} must be a whole number of at least 1, not '{value}'")]
    Positive { name: &'static str, value: String },
    #[error("{name} must be from 4000 to 86400000 (milliseconds: 4 s to a day), not {value}")]
    Lease { name: &'static str, value: u64 },
    #[error(
        "{name} must be from 1 to 50 (Discord allows a bot 50 requests a second), not {value}"
    )]
    Budget { name: &'static str, value: u64 },
    #[error(
        "{name} must be from 1 to 1000 (Discord allows a server 1,000 active threads), not {value}"
    )]
    Margin { name: &'static str, value: u64 },
    #[error("{name} must be on or off, not '{value}'")]
    Switch { name: &'static str, value: String },
    #[error(
        "{name} must be the web companion's public address, an absolute http:// or https:// \
         URL such as https://tara.example.org ({why}), not '{value}'"
    )]
    WebUrl {
        name: &'static str,
        value: String,
        /// What is wrong with it.
        why: String,
    },
    #[error("{name} is set but empty: {what}, or unset it")]
    Empty {
        name: &'static str,
        /// What it should hold, as an instruction.
        what: &'static str,
    },
}

/// The threads of a level-5 search for the command line (`ai`, `bench ai`):
/// `TARA_BOT_AI_THREADS`, else one per core but one (at least 1).
pub fn ai_threads_from_env() -> Result<usize, ConfigError> {
    match std::env::var("TARA_BOT_AI_THREADS") {
        Ok(v) if !v.trim().is_empty() => match v.trim().parse::<usize>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(ConfigError::Positive {
                name: "TARA_BOT_AI_THREADS",
                value: v,
            }),
        },
        _ => Ok(AiSettings::default_threads()),
    }
}

/// The database the environment names: `TARA_BOT_DATABASE_URL`, else `TARA_BOT_DB`. One set
/// but empty is refused (it names no database; the file or the default would be used without
/// a word otherwise).
fn database(env: &impl Fn(&str) -> Option<String>) -> Result<Option<String>, ConfigError> {
    for (name, what) in [
        (
            "TARA_BOT_DATABASE_URL",
            "give it a PostgreSQL URL (postgres://user:password@host:port/database)",
        ),
        (
            "TARA_BOT_DB",
            "give it a database file or a postgres:// URL",
        ),
    ] {
        match env(name) {
            Some(v) if v.trim().is_empty() => return Err(ConfigError::Empty { name, what }),
            Some(v) => return Ok(Some(v)),
            None => {}
        }
    }
    Ok(None)
}

impl Config {
    /// Reads the configuration from the environment and the optional file.
    pub fn load() -> Result<Config, ConfigError> {
        Config::from_sources(|k| std::env::var(k).ok())
    }

    /// Reads the configuration with `env` standing for the environment (tests).
    pub fn from_sources(env: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let (path, required) = match env("TARA_BOT_CONFIG") {
            Some(p) => (PathBuf::from(p), true),
            None => (PathBuf::from("tara-bot.toml"), false),
        };
        let file = if required || path.exists() {
            read_file(&path)?
        } else {
            File::default()
        };
        let guild = match env("DISCORD_GUILD_ID") {
            Some(v) if !v.trim().is_empty() => {
                Some(v.trim().parse().map_err(|_| ConfigError::Number {
                    name: "DISCORD_GUILD_ID",
                    value: v.clone(),
                })?)
            }
            _ => file.discord_guild_id,
        };
        let rate_limit =
            switch("TARA_BOT_RATE_LIMIT", env("TARA_BOT_RATE_LIMIT"))?.or(file.rate_limit);
        let number = |name: &'static str| -> Result<Option<u64>, ConfigError> {
            match env(name) {
                Some(v) if !v.trim().is_empty() => match v.trim().parse::<u64>() {
                    Ok(n) if n >= 1 => Ok(Some(n)),
                    _ => Err(ConfigError::Positive { name, value: v }),
                },
                _ => Ok(None),
            }
        };
        let defaults = AiSettings::default();
        let ai_ms = number("TARA_BOT_AI_MS")?
            .or(file.ai_ms)
            .unwrap_or(defaults.ms);
        let ai_searches = number("TARA_BOT_AI_SEARCHES")?
            .map(|n| n as usize)
            .or(file.ai_searches)
            .unwrap_or(defaults.searches);
        let ai_threads = number("TARA_BOT_AI_THREADS")?
            .map(|n| n as usize)
            .or(file.ai_threads)
            .unwrap_or(defaults.threads);
        if ai_ms == 0 || ai_searches == 0 || ai_threads == 0 {
            return Err(ConfigError::Parse {
                path,
                message: "ai_ms, ai_searches and ai_threads must be at least 1".into(),
            });
        }
        // A number from the environment, else the file, else its default: with the name it
        // came by, for a refusal.
        let chosen = |var: &'static str, key: &'static str, file: Option<u32>, default: u32| {
            Ok::<_, ConfigError>(match number(var)? {
                Some(n) => (var, n),
                None => (key, u64::from(file.unwrap_or(default))),
            })
        };
        let (name, rps) = chosen(
            "TARA_BOT_DISCORD_RPS",
            "discord_requests_per_second",
            file.discord_requests_per_second,
            DEFAULT_DISCORD_RPS,
        )?;
        if !(1..=50).contains(&rps) {
            return Err(ConfigError::Budget { name, value: rps });
        }
        let discord_requests_per_second = rps as u32;
        let (name, margin) = chosen(
            "TARA_BOT_THREAD_MARGIN",
            "discord_thread_margin",
            file.discord_thread_margin,
            DEFAULT_THREAD_MARGIN,
        )?;
        if !(1..=1000).contains(&margin) {
            return Err(ConfigError::Margin {
                name,
                value: margin,
            });
        }
        let discord_thread_margin = margin as u32;
        let lease_ms = lease_ms(number("TARA_BOT_LEASE_MS")?, file.lease_ms)?;
        let web_url = match env("TARA_BOT_WEB_URL").filter(|v| !v.trim().is_empty()) {
            Some(v) => Some(web_url("TARA_BOT_WEB_URL", &v)?),
            None => match file.web_url.filter(|v| !v.trim().is_empty()) {
                Some(v) => Some(web_url("web_url", &v)?),
                None => None,
            },
        };
        Ok(Config {
            lease_ms,
            web_url,
            discord_requests_per_second,
            discord_thread_margin,
            ai: AiSettings {
                ms: ai_ms,
                searches: ai_searches,
                threads: ai_threads,
            },
            rate_limit: rate_limit.unwrap_or(true),
            database: database(&env)?
                .map(PathBuf::from)
                .or(file.database)
                .unwrap_or_else(|| PathBuf::from("tara-bot.db")),
            images: env("TARA_BOT_IMAGES")
                .map(PathBuf::from)
                .or(file.images)
                .unwrap_or_else(|| PathBuf::from("tara-images")),
            discord_token_file: env("DISCORD_TOKEN_FILE")
                .map(PathBuf::from)
                .or(file.discord_token_file),
            discord_guild_id: guild,
            discord_proxy_url: env("DISCORD_PROXY_URL")
                .filter(|s| !s.trim().is_empty())
                .or(file.discord_proxy_url),
        })
    }
}

/// An on/off setting from the environment variable `name` (`on`, `true`, `1`, `yes`; `off`,
/// `false`, `0`, `no`); `None` when it is not set.
fn switch(name: &'static str, value: Option<String>) -> Result<Option<bool>, ConfigError> {
    match value {
        Some(v) if !v.trim().is_empty() => match v.trim().to_ascii_lowercase().as_str() {
            "on" | "true" | "1" | "yes" => Ok(Some(true)),
            "off" | "false" | "0" | "no" => Ok(Some(false)),
            _ => Err(ConfigError::Switch { name, value: v }),
        },
        _ => Ok(None),
    }
}

/// The lease: `TARA_BOT_LEASE_MS`, else the file's `lease_ms`, else the default; refused,
/// naming where it came from, outside [`LEASE_RANGE`].
fn lease_ms(from_env: Option<u64>, from_file: Option<u64>) -> Result<u64, ConfigError> {
    for (name, value) in [("TARA_BOT_LEASE_MS", from_env), ("lease_ms", from_file)] {
        if let Some(ms) = value {
            if !LEASE_RANGE.contains(&ms) {
                return Err(ConfigError::Lease { name, value: ms });
            }
            return Ok(ms);
        }
    }
    Ok(crate::bot::DELIVERY_LEASE_MS as u64)
}

/// The web companion's address from `value` (named `name`, for a refusal): an absolute
/// `http://` or `https://` URL with a host, and no user name, password, query or fragment
/// (the pages' paths are put after it); at most [`WEB_URL_MAX`] characters. Written as the URL
/// parser writes it (`HTTPS://Tara.Example.org/` is `https://tara.example.org`), without a
/// trailing slash.
pub(crate) fn web_url(name: &'static str, value: &str) -> Result<String, ConfigError> {
    let refuse = |why: &str| ConfigError::WebUrl {
        name,
        value: value.to_string(),
        why: why.to_string(),
    };
    let url = reqwest::Url::parse(value.trim()).map_err(|e| refuse(&e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(refuse("it must start with http:// or https://"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(refuse("it names no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(refuse(
            "it must not hold a user name or password: everyone sees it",
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(refuse(
            "the pages' paths go after it, so it cannot have a ? or # part",
        ));
    }
    let written = url.as_str().trim_end_matches('/').to_string();
    if written.chars().count() > WEB_URL_MAX {
        return Err(refuse(&format!(
            "it is longer than {WEB_URL_MAX} characters, and Discord takes links of up to 512"
        )));
    }
    Ok(written)
}

fn read_file(path: &Path) -> Result<File, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|reason| ConfigError::Read {
        path: path.to_path_buf(),
        reason,
    })?;
    toml::from_str(&text).map_err(|e| ConfigError::Parse {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn defaults_without_file_or_environment() {
        let c = Config::from_sources(env(&[("TARA_BOT_CONFIG", "/nonexistent/none.toml")]));
        assert!(
            matches!(c, Err(ConfigError::Read { .. })),
            "a named file must exist"
        );
        let dir = std::env::temp_dir().join(format!("tara-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty.toml");
        std::fs::write(&empty, "").unwrap();
        let c = Config::from_sources(env(&[("TARA_BOT_CONFIG", empty.to_str().unwrap())])).unwrap();
        assert_eq!(c.database, PathBuf::from("tara-bot.db"));
        assert_eq!(c.images, PathBuf::from("tara-images"));
        assert_eq!(c.discord_guild_id, None);
        assert!(c.rate_limit, "the command rate limit is on by default");
        assert_eq!(c.ai.ms, 3_000);
        assert!(c.ai.searches >= 1);
        assert_eq!(c.discord_requests_per_second, 40);
        assert_eq!(c.discord_thread_margin, 950);
        let over = [
            ("TARA_BOT_CONFIG", empty.to_str().unwrap()),
            ("TARA_BOT_THREAD_MARGIN", "1001"),
        ];
        assert_eq!(
            Config::from_sources(env(&over)).unwrap_err().to_string(),
            "TARA_BOT_THREAD_MARGIN must be from 1 to 1000 (Discord allows a server 1,000 active \
             threads), not 1001"
        );
        let rps = [
            ("TARA_BOT_CONFIG", empty.to_str().unwrap()),
            ("TARA_BOT_DISCORD_RPS", "25"),
        ];
        assert_eq!(
            Config::from_sources(env(&rps))
                .unwrap()
                .discord_requests_per_second,
            25
        );
        let over = [
            ("TARA_BOT_CONFIG", empty.to_str().unwrap()),
            ("TARA_BOT_DISCORD_RPS", "51"),
        ];
        assert_eq!(
            Config::from_sources(env(&over)).unwrap_err().to_string(),
            "TARA_BOT_DISCORD_RPS must be from 1 to 50 (Discord allows a bot 50 requests a \
             second), not 51"
        );
        let ai = [
            ("TARA_BOT_CONFIG", empty.to_str().unwrap()),
            ("TARA_BOT_AI_MS", "500"),
            ("TARA_BOT_AI_SEARCHES", "2"),
        ];
        let c = Config::from_sources(env(&ai)).unwrap();
        assert_eq!((c.ai.ms, c.ai.searches), (500, 2));
        let zero = [
            ("TARA_BOT_CONFIG", empty.to_str().unwrap()),
            ("TARA_BOT_AI_MS", "0"),
        ];
        assert_eq!(
            Config::from_sources(env(&zero)).unwrap_err().to_string(),
            "TARA_BOT_AI_MS must be a whole number of at least 1, not '0'"
        );
        let env_off = [
            ("TARA_BOT_CONFIG", empty.to_str().unwrap()),
            ("TARA_BOT_RATE_LIMIT", "off"),
        ];
        assert!(!Config::from_sources(env(&env_off)).unwrap().rate_limit);
        let bad = [
            ("TARA_BOT_CONFIG", empty.to_str().unwrap()),
            ("TARA_BOT_RATE_LIMIT", "sometimes"),
        ];
        assert_eq!(
            Config::from_sources(env(&bad)).unwrap_err().to_string(),
            "TARA_BOT_RATE_LIMIT must be on or off, not 'sometimes'"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Issue 45: an empty database variable names no database, and says so.
    #[test]
    fn an_empty_database_variable_is_refused_by_name() {
        for name in ["TARA_BOT_DATABASE_URL", "TARA_BOT_DB"] {
            let e = Config::from_sources(env(&[(name, " ")]))
                .unwrap_err()
                .to_string();
            assert!(e.starts_with(&format!("{name} is set but empty: ")), "{e}");
        }
    }

    #[test]
    fn environment_overrides_the_file() {
        let dir = std::env::temp_dir().join(format!("tara-config2-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("c.toml");
        std::fs::write(
            &f,
            "database = \"from-file.db\"\ndiscord_guild_id = 42\nai_ms = 1500\n\
             discord_requests_per_second = 20\n",
        )
        .unwrap();
        let p = f.to_str().unwrap();
        let c = Config::from_sources(env(&[("TARA_BOT_CONFIG", p)])).unwrap();
        assert_eq!(c.database, PathBuf::from("from-file.db"));
        assert_eq!(c.discord_guild_id, Some(42));
        assert_eq!(c.ai.ms, 1500);
        assert_eq!(c.discord_requests_per_second, 20);
        let c = Config::from_sources(env(&[
            ("TARA_BOT_CONFIG", p),
            ("TARA_BOT_DB", "env.db"),
            ("DISCORD_GUILD_ID", "7"),
        ]))
        .unwrap();
        assert_eq!(c.database, PathBuf::from("env.db"));
        assert_eq!(c.discord_guild_id, Some(7));
        let bad = Config::from_sources(env(&[("TARA_BOT_CONFIG", p), ("DISCORD_GUILD_ID", "x")]));
        assert!(matches!(bad, Err(ConfigError::Number { .. })));
        std::fs::write(&f, "unknown_key = 1\n").unwrap();
        assert!(matches!(
            Config::from_sources(env(&[("TARA_BOT_CONFIG", p)])),
            Err(ConfigError::Parse { .. })
        ));
        std::fs::remove_dir_all(&dir).ok();
    }

    /// An empty configuration file in a folder of its own named for `test`: the folder (to
    /// remove) and the file.
    fn empty_file(test: &str) -> (PathBuf, PathBuf) {
        let dir = std::env::temp_dir().join(format!("tara-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("c.toml");
        std::fs::write(&f, "").unwrap();
        (dir, f)
    }

    /// Issue 47: the web companion's address, from the environment over the file; unset or
    /// empty is none (no link buttons); anything but an absolute http(s) address is refused.
    #[test]
    fn the_web_url_is_an_absolute_http_address_without_a_trailing_slash() {
        let (dir, f) = empty_file("config-web-url");
        let p = f.to_str().unwrap();
        let url = |value: &str| {
            Config::from_sources(env(&[("TARA_BOT_CONFIG", p), ("TARA_BOT_WEB_URL", value)]))
                .map(|c| c.web_url)
        };
        assert_eq!(
            Config::from_sources(env(&[("TARA_BOT_CONFIG", p)]))
                .unwrap()
                .web_url,
            None
        );
        assert_eq!(url(" ").unwrap(), None, "set but empty is unset");
        assert_eq!(
            url("https://tara.example.org/").unwrap().as_deref(),
            Some("https://tara.example.org")
        );
        assert_eq!(
            url("HTTP://Tara.Example.org:8080/games//")
                .unwrap()
                .as_deref(),
            Some("http://tara.example.org:8080/games")
        );
        assert_eq!(
            url("tara.example.org").unwrap_err().to_string(),
            "TARA_BOT_WEB_URL must be the web companion's public address, an absolute http:// \
             or https:// URL such as https://tara.example.org (relative URL without a base), \
             not 'tara.example.org'"
        );
        for bad in [
            "ftp://tara.example.org",
            "https://user:secret@tara.example.org",
            "https://tara.example.org/?x=1",
            "https://tara.example.org/#top",
            "https://",
            "mailto:a@b.c",
        ] {
            let e = url(bad).unwrap_err().to_string();
            assert!(
                e.starts_with("TARA_BOT_WEB_URL must be the web companion's public address"),
                "{bad}: {e}"
            );
        }
        let long = format!("https://tara.example.org/{}", "a".repeat(400));
        assert!(url(&long).unwrap_err().to_string().contains("512"));
        // The file's key, named in its refusal; the environment comes first.
        std::fs::write(&f, "web_url = \"https://from-file.example/\"\n").unwrap();
        let c = Config::from_sources(env(&[("TARA_BOT_CONFIG", p)])).unwrap();
        assert_eq!(c.web_url.as_deref(), Some("https://from-file.example"));
        assert_eq!(
            url("https://from-env.example").unwrap().as_deref(),
            Some("https://from-env.example")
        );
        std::fs::write(&f, "web_url = \"from-file.example\"\n").unwrap();
        let e = Config::from_sources(env(&[("TARA_BOT_CONFIG", p)])).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("web_url must be the web companion's"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_database_url_comes_before_the_database_file() {
        let c = Config::from_sources(env(&[
            ("TARA_BOT_DB", "env.db"),
            ("TARA_BOT_DATABASE_URL", "postgres://bot@db/tara"),
        ]))
        .unwrap();
        assert_eq!(c.database, PathBuf::from("postgres://bot@db/tara"));
    }

    #[test]
    fn the_lease_defaults_to_two_minutes_and_stays_within_its_bounds() {
        let (dir, f) = empty_file("config3");
        let p = f.to_str().unwrap();
        let c = Config::from_sources(env(&[("TARA_BOT_CONFIG", p)])).unwrap();
        assert_eq!(c.lease_ms, 120_000);
        std::fs::write(&f, "lease_ms = 30000\n").unwrap();
        let c = Config::from_sources(env(&[("TARA_BOT_CONFIG", p)])).unwrap();
        assert_eq!(c.lease_ms, 30_000);
        let c = Config::from_sources(env(&[
            ("TARA_BOT_CONFIG", p),
            ("TARA_BOT_LEASE_MS", "4000"),
        ]))
        .unwrap();
        assert_eq!(c.lease_ms, 4_000);
        let short = Config::from_sources(env(&[
            ("TARA_BOT_CONFIG", p),
            ("TARA_BOT_LEASE_MS", "3999"),
        ]));
        assert_eq!(
            short.unwrap_err().to_string(),
            "TARA_BOT_LEASE_MS must be from 4000 to 86400000 (milliseconds: 4 s to a day), not 3999"
        );
        let long = Config::from_sources(env(&[
            ("TARA_BOT_CONFIG", p),
            ("TARA_BOT_LEASE_MS", "18446744073709551615"),
        ]));
        assert!(long.unwrap_err().to_string().contains("to 86400000"));
        std::fs::write(&f, "lease_ms = 10\n").unwrap();
        let short = Config::from_sources(env(&[("TARA_BOT_CONFIG", p)]));
        assert_eq!(
            short.unwrap_err().to_string(),
            "lease_ms must be from 4000 to 86400000 (milliseconds: 4 s to a day), not 10"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
