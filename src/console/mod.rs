//! The terminal adapter (`tara-bot local`): the same bot core and database, commands typed as
//! in Discord (`/challenge @bob hkot-1`, `/move G2-E3`), a current user switched with `/as`,
//! board images written to a folder and boards drawn as text.

use crate::bot::{Bot, Command, Ctx, Reply, User};
use std::io::{self, BufRead, Write};
use std::path::PathBuf;

/// What a console line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// A bot command.
    Run(Command),
    /// Become another user.
    As(String),
    /// Move to another channel (a Discord channel or thread).
    Channel(String),
    /// Act as a moderator or not.
    Moderator(bool),
    /// List the legal moves matching a prefix (what Discord's autocomplete offers).
    Moves(String),
    /// Move the simulated clock forward by this many milliseconds (`/time +2d`).
    Time(i64),
    Quit,
    /// An empty line or a comment.
    Nothing,
}

fn user(token: &str) -> User {
    let name = token.trim().trim_start_matches('@');
    User::new(name.to_lowercase(), name)
}

const CONSOLE_HELP: &str = "Console: /as NAME (switch user) · /channel NAME · /moderator on|off · \
     /moves [prefix] · /press BUTTON-ID · /time +2d (move the clock on: 30m, 5h, 2d) · /quit. \
     A line without a slash is a move.";

/// `+2d`, `5h`, `30m`: a duration in milliseconds.
fn parse_duration(text: &str) -> Result<i64, String> {
    let t = text.trim().trim_start_matches('+');
    let usage = || format!("'{text}' is not a duration: write e.g. /time +30m, +5h or +2d");
    let split = t.find(|c: char| !c.is_ascii_digit()).ok_or_else(usage)?;
    let (n, unit) = t.split_at(split);
    let n: i64 = n.parse().map_err(|_| usage())?;
    let unit_ms = match unit.trim() {
        "m" | "min" | "minutes" => crate::bot::clock::MINUTE,
        "h" | "hours" => crate::bot::clock::HOUR,
        "d" | "days" => crate::bot::clock::DAY,
        _ => return Err(usage()),
    };
    if n > 3650 * crate::bot::clock::DAY / unit_ms {
        return Err(usage());
    }
    Ok(n * unit_ms)
}

/// Parses one console line.
pub fn parse_line(line: &str) -> Result<Action, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(Action::Nothing);
    }
    let Some(body) = line.strip_prefix('/') else {
        return Ok(Action::Run(Command::Move { text: line.into() }));
    };
    let (name, rest) = match body.split_once(char::is_whitespace) {
        Some((n, r)) => (n, r.trim()),
        None => (body, ""),
    };
    let words: Vec<&str> = rest.split_whitespace().collect();
    let id = |w: Option<&&str>| -> Result<Option<i64>, String> {
        w.map(|s| {
            s.trim_start_matches('#')
                .parse()
                .map_err(|_| format!("'{s}' is not a challenge number"))
        })
        .transpose()
    };
    let cmd = match name.to_ascii_lowercase().as_str() {
        "as" | "user" => {
            return match words.first() {
                Some(n) => Ok(Action::As(n.to_string())),
                None => Err("usage: /as NAME".into()),
            }
        }
        "channel" | "thread" => {
            return match words.first() {
                Some(n) => Ok(Action::Channel(n.trim_start_matches('#').to_string())),
                None => Err("usage: /channel NAME".into()),
            }
        }
        "moderator" | "mod" => {
            return Ok(Action::Moderator(!matches!(words.first(), Some(&"off"))));
        }
        "moves" | "hint" => return Ok(Action::Moves(rest.to_string())),
        "time" => return parse_duration(rest).map(Action::Time),
        "quit" | "exit" => return Ok(Action::Quit),
        "press" => {
            let b = words.first().ok_or("usage: /press BUTTON-ID")?;
            return Command::from_button(b)
                .map(Action::Run)
                .ok_or_else(|| format!("'{b}' is not a button"));
        }
        "challenge" => {
            let opponent = words
                .first()
                .ok_or("usage: /challenge @opponent variant [kingdoms|knots] [first:me|opponent|random] [match]")?;
            let variant = words
                .get(1)
                .ok_or("name a variant: hkot-1, hkot-2, sacred-hill-1, sacred-hill-2 or ard-ri")?;
            let mut scoring = None;
            let mut first = None;
            let mut days = None;
            let mut is_match = false;
            for w in &words[2..] {
                let lw = w.to_ascii_lowercase();
                if let Some(v) = lw
                    .strip_prefix("first:")
                    .or_else(|| lw.strip_prefix("first="))
                {
                    first = Some(v.to_string());
                } else if let Some(v) = lw
                    .strip_prefix("scoring:")
                    .or_else(|| lw.strip_prefix("scoring="))
                {
                    scoring = Some(v.to_string());
                } else if let Some(v) = lw
                    .strip_prefix("days:")
                    .or_else(|| lw.strip_prefix("days="))
                {
                    days = Some(v.to_string());
                } else if lw == "match" {
                    is_match = true;
                } else if lw == "kingdoms" || lw == "knots" {
                    scoring = Some(lw);
                } else {
                    return Err(format!("'{w}' is not an option of /challenge"));
                }
            }
            Command::Challenge {
                opponent: user(opponent),
                variant: variant.to_string(),
                scoring,
                first,
                is_match,
                days,
            }
        }
        "vacation" => {
            let d = words
                .first()
                .map(|w| w.trim_start_matches("days:").trim_start_matches("days="))
                .ok_or("usage: /vacation DAYS")?;
            Command::Vacation {
                days: d
                    .parse()
                    .map_err(|_| format!("'{d}' is not a number of days"))?,
            }
        }
        "settings" => {
            let (mut reminders, mut default_days, mut reminder_hours) = (None, None, None);
            for w in &words {
                let (k, v) = w.split_once([':', '=']).ok_or_else(|| {
                    format!("'{w}': write reminders:dm, default-days:3 or reminder-hours:24")
                })?;
                match k.to_ascii_lowercase().as_str() {
                    "reminders" => reminders = Some(v.to_string()),
                    "default-days" | "default_days" | "days" => default_days = Some(v.to_string()),
                    "reminder-hours" | "reminder_hours" => {
                        reminder_hours = Some(
                            v.parse()
                                .map_err(|_| format!("'{v}' is not a number of hours"))?,
                        )
                    }
                    other => return Err(format!("'{other}' is not a setting")),
                }
            }
            Command::Settings {
                reminders,
                default_days,
                reminder_hours,
            }
        }
        "accept" => Command::Accept {
            challenge: id(words.first())?,
        },
        "decline" => Command::Decline {
            challenge: id(words.first())?,
        },
        "cancel" => Command::Cancel {
            challenge: id(words.first())?,
        },
        "move" | "m" => Command::Move {
            text: rest.to_string(),
        },
        "pass" => Command::Pass,
        "resign" => Command::Resign {
            confirmed: matches!(words.first(), Some(&"confirm") | Some(&"yes")),
            game: None,
        },
        "board" => Command::Board {
            ply: match words.first() {
                Some(p) => Some(
                    p.parse()
                        .map_err(|_| format!("'{p}' is not a ply number"))?,
                ),
                None => None,
            },
        },
        "record" => Command::Record,
        "status" => Command::Status,
        "games" => Command::Games,
        "rules" => Command::Rules {
            variant: words.first().map(|s| s.to_string()),
        },
        "help" => Command::Help,
        "abort" => Command::Abort,
        "takeback" => match words
            .first()
            .map(|w| w.to_ascii_lowercase())
            .map(|w| {
                w.trim_start_matches("answer:")
                    .trim_start_matches("answer=")
                    .to_string()
            })
            .as_deref()
        {
            None => Command::Takeback,
            Some("accept" | "allow" | "yes") => Command::TakebackAnswer {
                accept: true,
                game: None,
            },
            Some("refuse" | "decline" | "no") => Command::TakebackAnswer {
                accept: false,
                game: None,
            },
            Some(other) => return Err(format!("/takeback takes accept or refuse, not '{other}'")),
        },
        other => return Err(format!("unknown command /{other}; try /help")),
    };
    Ok(Action::Run(cmd))
}

/// A console session.
pub struct Console<'a> {
    bot: &'a Bot,
    pub user: User,
    pub channel: String,
    pub moderator: bool,
    images: Option<PathBuf>,
}

impl<'a> Console<'a> {
    /// A session as `user` in channel `local`; images are written to `images` when given.
    pub fn new(bot: &'a Bot, user: &str, images: Option<PathBuf>) -> Console<'a> {
        Console {
            bot,
            user: super::console::user(user),
            channel: "local".into(),
            moderator: false,
            images,
        }
    }

    fn ctx(&self) -> Ctx {
        Ctx {
            server: "local".into(),
            channel: self.channel.clone(),
            user: self.user.clone(),
            moderator: self.moderator,
        }
    }

    /// Runs one line; returns what to print and whether to stop. Anything the clocks brought
    /// due (reminders, timeouts) is shown first.
    pub fn line(&mut self, line: &str) -> (String, bool) {
        let mut due = self.show(&self.bot.tick());
        let (text, stop) = self.command(line);
        due.push_str(&text);
        (due, stop)
    }

    fn command(&mut self, line: &str) -> (String, bool) {
        match parse_line(line) {
            Err(e) => (format!("{e}\n"), false),
            Ok(Action::Nothing) => (String::new(), false),
            Ok(Action::Quit) => (String::new(), true),
            Ok(Action::As(name)) => {
                self.user = user(&name);
                (format!("You are now {}.\n", self.user.name), false)
            }
            Ok(Action::Channel(c)) => {
                self.channel = c;
                (format!("Now in #{}.\n", self.channel), false)
            }
            Ok(Action::Moderator(on)) => {
                self.moderator = on;
                (
                    format!("Moderator rights {}.\n", if on { "on" } else { "off" }),
                    false,
                )
            }
            Ok(Action::Time(ms)) => {
                if !self.bot.advance_clock(ms) {
                    return ("This bot runs on real time.\n".into(), false);
                }
                let mut s = format!(
                    "The clock moves on {}.\n",
                    crate::bot::clock::duration_text(ms)
                );
                s.push_str(&self.show(&self.bot.tick()));
                (s, false)
            }
            Ok(Action::Moves(prefix)) => {
                let moves = self.bot.autocomplete_move(&self.ctx(), &prefix);
                if moves.is_empty() {
                    (
                        "No moves to suggest (is it your turn here?).\n".into(),
                        false,
                    )
                } else {
                    (format!("{}\n", moves.join("  ")), false)
                }
            }
            Ok(Action::Run(Command::Help)) => {
                let mut s = self.show(&self.bot.handle(&self.ctx(), Command::Help));
                s.push_str(CONSOLE_HELP);
                s.push('\n');
                (s, false)
            }
            Ok(Action::Run(cmd)) => {
                let replies = self.bot.handle(&self.ctx(), cmd);
                (self.show(&replies), false)
            }
        }
    }

    fn show(&self, replies: &[Reply]) -> String {
        let mut s = String::new();
        for r in replies {
            let text = r.plain_text().replace("**", "");
            if let Some(user) = &r.dm {
                s.push_str(&format!("[message to {user}] "));
            } else if let Some(channel) = &r.channel {
                if *channel != self.channel {
                    s.push_str(&format!("[in #{channel}] "));
                }
            } else if r.ephemeral {
                s.push_str(&format!("[only {} sees this] ", self.user.name));
            }
            s.push_str(&text);
            s.push('\n');
            if !r.buttons.is_empty() {
                let b: Vec<String> = r
                    .buttons
                    .iter()
                    .map(|b| format!("[{}: /press {}]", b.label, b.id))
                    .collect();
                s.push_str(&format!("  {}\n", b.join(" ")));
            }
            if let Some(board) = &r.board_text {
                s.push_str(board);
            }
            if let (Some(img), Some(dir)) = (&r.image, &self.images) {
                let path = dir.join(&img.filename);
                match std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, &img.bytes)) {
                    Ok(()) => s.push_str(&format!("  (board image: {})\n", path.display())),
                    Err(e) => s.push_str(&format!("  (could not write {}: {e})\n", path.display())),
                }
            }
        }
        s
    }

    /// Reads lines until the end of input or `/quit`. With `interactive`, shows a prompt.
    pub fn run(
        &mut self,
        input: impl BufRead,
        out: &mut impl Write,
        interactive: bool,
    ) -> io::Result<()> {
        if interactive {
            writeln!(
                out,
                "tara-bot console. /help lists the commands; you are {}.",
                self.user.name
            )?;
        }
        let mut lines = input.lines();
        loop {
            if interactive {
                write!(out, "{}@#{}> ", self.user.name, self.channel)?;
                out.flush()?;
            }
            let Some(line) = lines.next() else { break };
            let line = line?;
            if !interactive && !line.trim().is_empty() {
                writeln!(out, "> {line}")?;
            }
            let (text, stop) = self.line(&line);
            write!(out, "{text}")?;
            if stop {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn console_lines_parse_like_slash_commands() {
        assert_eq!(
            parse_line("/challenge @Bob hkot-1 knots first:me match"),
            Ok(Action::Run(Command::Challenge {
                opponent: User::new("bob", "Bob"),
                variant: "hkot-1".into(),
                scoring: Some("knots".into()),
                first: Some("me".into()),
                is_match: true,
                days: None,
            }))
        );
        assert_eq!(
            parse_line("/move G2 E3"),
            Ok(Action::Run(Command::Move {
                text: "G2 E3".into()
            }))
        );
        assert_eq!(
            parse_line("d4"),
            Ok(Action::Run(Command::Move { text: "d4".into() }))
        );
        assert_eq!(parse_line("/as carol"), Ok(Action::As("carol".into())));
        assert_eq!(
            parse_line("/press accept:3"),
            Ok(Action::Run(Command::Accept { challenge: Some(3) }))
        );
        assert_eq!(parse_line("# comment"), Ok(Action::Nothing));
        assert_eq!(
            parse_line("/board 4"),
            Ok(Action::Run(Command::Board { ply: Some(4) }))
        );
        assert!(parse_line("/board x").is_err());
        assert!(parse_line("/frobnicate").is_err());
        assert!(parse_line("/challenge @bob hkot-1 sideways").is_err());
        assert!(parse_line("/press nothing:1").is_err());
        assert_eq!(parse_line("/time +2d"), Ok(Action::Time(2 * 86_400_000)));
        assert_eq!(parse_line("/time 90m"), Ok(Action::Time(90 * 60_000)));
        assert!(parse_line("/time soon").is_err());
        assert_eq!(
            parse_line("/vacation 3"),
            Ok(Action::Run(Command::Vacation { days: 3 }))
        );
        assert_eq!(
            parse_line("/settings reminders:dm"),
            Ok(Action::Run(Command::Settings {
                reminders: Some("dm".into()),
                default_days: None,
                reminder_hours: None
            }))
        );
    }
}
