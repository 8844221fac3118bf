//! The terminal adapter (`tara-bot local`): the same bot core and database, commands typed as
//! in Discord (`/challenge @bob hkot-1`, `/move G2-E3`), a current user switched with `/as`,
//! board images written to a folder and boards drawn as text.

use crate::bot::commands::{self, CommandSpec};
use crate::bot::options::{Kind, OptionSpec, Values};
use crate::bot::time::{duration_text, DAY, HOUR, MINUTE};
use crate::bot::{Bot, Command, Ctx, Reply, User};
use crate::ids::{ChannelId, ServerId, UserId};
use std::io::{self, BufRead, Write};
use std::path::PathBuf;

/// What a console line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// A bot command.
    Run(Command),
    /// A bot command given by pressing a button (`/press accept:3`): the message that carried
    /// the button may be given new text.
    Press(Command),
    /// Become another user.
    As(String),
    /// Move to another channel (a Discord channel or thread).
    Channel(String),
    /// Act as a moderator or not.
    Moderator(bool),
    /// Have these server roles (none: no roles).
    Roles(Vec<String>),
    /// List the legal moves matching a prefix (what Discord's autocomplete offers).
    Moves(String),
    /// Move the simulated clock forward by this many milliseconds (`/time +2d`).
    Time(i64),
    Quit,
    /// An empty line or a comment.
    Nothing,
}

/// Text that came from users, made safe for a terminal: control characters (escape
/// sequences, carriage returns, bells) and the invisible marks that reorder text are shown
/// escaped as `\u{1b}`, never sent raw. With `keep_newlines`, line breaks stay (the bot's own
/// multi-line messages).
pub fn escape_controls(text: &str, keep_newlines: bool) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        let reorders = matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if (c.is_control() && !(keep_newlines && c == '\n')) || reorders {
            s.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            s.push(c);
        }
    }
    s
}

fn user(token: &str) -> User {
    let name = token.trim().trim_start_matches('@');
    User::new(name.to_lowercase(), name)
}

const CONSOLE_HELP: &str =
    "Console: /as NAME (switch user) · /channel NAME · /moderator on|off · /roles NAME… · \
     /moves [prefix] · /press BUTTON-ID · /time +2d (move the clock on: 30m, 5h, 2d) · /quit. \
     A line without a slash is a move.";

/// How many moves `/moves` lists before saying how many more there are.
const MOVES_SHOWN: usize = 25;

/// `+2d`, `5h`, `30m`: a duration in milliseconds.
fn parse_duration(text: &str) -> Result<i64, String> {
    let t = text.trim().trim_start_matches('+');
    let usage = || format!("'{text}' is not a duration: write e.g. /time +30m, +5h or +2d");
    let split = t.find(|c: char| !c.is_ascii_digit()).ok_or_else(usage)?;
    let (n, unit) = t.split_at(split);
    let n: i64 = n.parse().map_err(|_| usage())?;
    let unit_ms = match unit.trim() {
        "m" | "min" | "minutes" => MINUTE,
        "h" | "hours" => HOUR,
        "d" | "days" => DAY,
        _ => return Err(usage()),
    };
    if n > 3650 * DAY / unit_ms {
        return Err(usage());
    }
    Ok(n * unit_ms)
}

/// Console names for commands (besides their own names).
const ALIASES: [(&str, &str); 1] = [("m", "move")];

/// A word of a console line: spaces separate words except inside double quotes (`"…"`, or
/// `“…”` as phones type them), which are dropped: `name:"Spring Cup"` is one word,
/// `name:Spring Cup`.
struct Word {
    text: String,
    /// Where it starts in the line.
    start: usize,
    /// Where in `text` its first quoted part begins (`None`: no quotes).
    quoted_from: Option<usize>,
}

impl Word {
    /// The option name and value of `name:value` (or `name=value`), the separator outside
    /// quotes: `"Rated: Spring"` is a value, not the option `rated`.
    fn key_value(&self) -> Option<(String, &str)> {
        let at = self.text.find([':', '='])?;
        if self.quoted_from.is_some_and(|q| q <= at) {
            return None;
        }
        let key = self.text[..at].to_ascii_lowercase().replace('_', "-");
        Some((key, &self.text[at + 1..]))
    }
}

/// The option of `spec` a `name:value` word names, and its value.
fn keyed<'s, 'w>(spec: &'s CommandSpec, w: &'w Word) -> Option<(&'s OptionSpec, &'w str)> {
    let (k, v) = w.key_value()?;
    Some((spec.options.iter().find(|o| o.name == k)?, v))
}

/// The words of `line`; a quote left open is refused.
fn words(line: &str) -> Result<Vec<Word>, String> {
    let mut out: Vec<Word> = Vec::new();
    let mut current: Option<Word> = None;
    let mut in_quotes = false;
    for (i, c) in line.char_indices() {
        if c.is_whitespace() && !in_quotes {
            out.extend(current.take());
            continue;
        }
        let w = current.get_or_insert_with(|| Word {
            text: String::new(),
            start: i,
            quoted_from: None,
        });
        if matches!(c, '"' | '“' | '”') {
            in_quotes = !in_quotes;
            w.quoted_from.get_or_insert(w.text.len());
        } else {
            w.text.push(c);
        }
    }
    if in_quotes {
        return Err("a quote (\") is not closed".into());
    }
    out.extend(current);
    Ok(out)
}

/// Reads the words after a command name into raw option values, by the command's table
/// entry: `key:value` (or `key=value`) names an option; a word that is the name of a yes/no
/// option sets it; a word that is one of an option's choices goes to that option; anything
/// else fills the next option in order. A value with spaces is quoted (`reason:"players
/// asked"`). An option marked to take the rest of the line (a move such as `G2 E3`, a record)
/// takes it whole, after any `key:value` options; given quoted (`record:"…"` or just `"…"`)
/// it is that value, and more options may follow it. An option given twice is refused.
fn read_options(spec: &CommandSpec, rest: &str) -> Result<Values, String> {
    let usage = || format!("usage: {}", spec.usage());
    // A value that does not read is answered with the usage line, as a bad choice is.
    let bad = |e: String| format!("{e} ({})", spec.usage());
    let twice = |name: &str| format!("`{name}` is given twice: give it once; {}", usage());
    let words = words(rest).map_err(|e| format!("{e}; {}", usage()))?;
    let mut values = Values::new();
    let mut filled: Vec<&str> = Vec::new();
    let mut i = 0;
    // The rest-of-line option (a move, a record): `key:value` options may come first.
    if let Some(o) = spec.options.iter().find(|o| o.rest) {
        while let Some(w) = words.get(i) {
            match keyed(spec, w) {
                Some((x, v)) if !x.rest && !v.is_empty() => {
                    if filled.contains(&x.name) {
                        return Err(twice(x.name));
                    }
                    values.set(x.name, x.value_from_text(v).map_err(bad)?);
                    filled.push(x.name);
                    i += 1;
                }
                // Quoted: the value is the quoted word (`record:"…"`, `record: "…"`, `"…"`).
                Some((x, v)) if x.rest && w.quoted_from.is_some() => {
                    values.set(o.name, o.value_from_text(v).map_err(bad)?);
                    i += 1;
                    break;
                }
                Some((x, ""))
                    if x.rest && words.get(i + 1).is_some_and(|n| n.quoted_from == Some(0)) =>
                {
                    values.set(o.name, o.value_from_text(&words[i + 1].text).map_err(bad)?);
                    i += 2;
                    break;
                }
                None if w.quoted_from == Some(0) => {
                    values.set(o.name, o.value_from_text(&w.text).map_err(bad)?);
                    i += 1;
                    break;
                }
                key => {
                    // The rest of the line as typed, without the option's name if given.
                    let mut text = &rest[w.start..];
                    if key.is_some_and(|(x, _)| x.rest) {
                        text = text.split_once([':', '=']).map_or(text, |(_, v)| v);
                    }
                    values.set(o.name, o.value_from_text(text.trim()).map_err(bad)?);
                    return Ok(values);
                }
            }
        }
        filled.push(o.name);
    }
    for word in &words[i..] {
        let w = word.text.as_str();
        let lw = w.to_ascii_lowercase();
        let open = |o: &&OptionSpec| !filled.contains(&o.name) && !o.rest;
        let (o, text) = if let Some((o, v)) = keyed(spec, word) {
            (o, v)
        } else if let Some(o) = spec
            .options
            .iter()
            .find(|o| o.kind == Kind::Boolean && o.name == lw && word.quoted_from.is_none())
        {
            (o, "yes")
        } else if let Some(o) = spec
            .options
            .iter()
            .filter(open)
            .find(|o| o.choices.iter().any(|c| c.value == lw))
        {
            (o, w)
        } else if let Some(o) = spec
            .options
            .iter()
            .filter(open)
            .find(|o| o.kind != Kind::Boolean || o.value_from_text(w).is_ok())
        {
            (o, w)
        } else {
            return Err(format!(
                "'{w}' is not an option of /{}; {}",
                spec.name,
                usage()
            ));
        };
        if o.rest {
            return Err(format!(
                "/{} takes one `{}`; {}",
                spec.name,
                o.name,
                usage()
            ));
        }
        if word.quoted_from.is_some() && text.is_empty() {
            return Err(format!("`{}` is empty; {}", o.name, usage()));
        }
        if filled.contains(&o.name) {
            return Err(twice(o.name));
        }
        values.set(o.name, o.value_from_text(text).map_err(bad)?);
        filled.push(o.name);
    }
    Ok(values)
}

/// The one word a console command takes (`/as NAME`), without its `mark` (`@`, `#`): none, an
/// empty one or a second word is refused with the usage.
fn one_name<'w>(words: &'w [Word], usage: &str, mark: char) -> Result<&'w str, String> {
    match words {
        [] => Err(format!("usage: {usage}")),
        [w] => {
            let name = w.text.trim().trim_start_matches(mark).trim();
            if name.is_empty() {
                Err(format!("the name is empty; usage: {usage}"))
            } else {
                Ok(name)
            }
        }
        [_, more, ..] if usage.contains("NAME") => Err(format!(
            "'{}' is one word too many; usage: {usage} (quote a name with spaces: {})",
            more.text,
            usage.replace("NAME", "\"mary jane\"")
        )),
        [_, more, ..] => Err(format!(
            "'{}' is one word too many; usage: {usage}",
            more.text
        )),
    }
}

/// No words after a console command that takes none (`/quit`).
fn no_words(words: &[Word], usage: &str) -> Result<(), String> {
    match words.first() {
        None => Ok(()),
        Some(w) => Err(format!("/{usage} takes no words, not '{}'", w.text)),
    }
}

/// The console's own commands (not the bot's): `None` for a bot command.
fn console_command(name: &str, rest: &str) -> Option<Result<Action, String>> {
    let words = || words(rest);
    let action = match name {
        "as" | "user" => {
            words().and_then(|ws| one_name(&ws, "/as NAME", '@').map(|n| Action::As(n.to_string())))
        }
        "channel" | "thread" => words().and_then(|ws| {
            one_name(&ws, "/channel NAME", '#').map(|n| Action::Channel(n.to_string()))
        }),
        "moderator" | "mod" => words().and_then(|ws| {
            match ws
                .iter()
                .map(|w| w.text.to_ascii_lowercase())
                .collect::<Vec<_>>()[..]
            {
                [] => Ok(Action::Moderator(true)),
                [ref w] if w == "on" => Ok(Action::Moderator(true)),
                [ref w] if w == "off" => Ok(Action::Moderator(false)),
                _ => Err("usage: /moderator on|off".to_string()),
            }
        }),
        "roles" | "role" => words().and_then(|ws| {
            let roles: Vec<String> = ws.iter().map(|w| w.text.trim().to_string()).collect();
            if roles.iter().any(String::is_empty) {
                Err("a role's name is empty; usage: /roles [NAME…]".to_string())
            } else {
                Ok(Action::Roles(roles))
            }
        }),
        "moves" | "hint" => Ok(Action::Moves(rest.to_string())),
        "time" => parse_duration(rest).map(Action::Time),
        "quit" | "exit" => words().and_then(|ws| no_words(&ws, name).map(|()| Action::Quit)),
        "press" => words().and_then(|ws| {
            // A button that asks for a value (Discord's dialog) takes it after its id.
            if let [id, value] = ws.as_slice() {
                if let Some(command) = Command::from_dialog(id.text.trim(), &value.text) {
                    return command.map(Action::Press);
                }
            }
            let b = one_name(&ws, "/press BUTTON-ID", ' ')?;
            if let Some(d) = crate::bot::Press::parse(b).and_then(|p| p.dialog()) {
                return Err(format!(
                    "{}: {}; give it after the button, e.g. /press {b} {}",
                    d.title, d.label, d.placeholder
                ));
            }
            Command::from_button(b).map(Action::Press).ok_or_else(|| {
                format!(
                    "'{b}' is not a button: press one shown under a message, e.g. /press accept:1"
                )
            })
        }),
        _ => return None,
    };
    Some(action)
}

/// Parses one console line.
pub fn parse_line(line: &str) -> Result<Action, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(Action::Nothing);
    }
    let Some(body) = line.strip_prefix('/') else {
        return Ok(Action::Run(Command::Move {
            text: line.into(),
            game: None,
        }));
    };
    let (name, rest) = match body.split_once(char::is_whitespace) {
        Some((n, r)) => (n, r.trim()),
        None => (body, ""),
    };
    // The console's own commands' words, quotes read as for options (`/as "mary jane"`).
    let name = name.to_ascii_lowercase();
    if let Some(action) = console_command(&name, rest) {
        return action;
    }
    let name = ALIASES
        .iter()
        .find(|(a, _)| *a == name)
        .map_or(name.as_str(), |(_, n)| n);
    // A group of subcommands (`/tournament create …`): the next word names the subcommand.
    let (name, rest) = if commands::group(name).is_some() {
        let (sub, after) = match rest.split_once(char::is_whitespace) {
            Some((s, a)) => (s, a.trim()),
            None => (rest, ""),
        };
        let subs: Vec<&str> = commands::table()
            .iter()
            .filter_map(|c| c.subcommand().filter(|(g, _)| *g == name).map(|(_, s)| s))
            .collect();
        if !subs.contains(&sub.to_ascii_lowercase().as_str()) {
            return Err(format!("usage: /{name} {}", subs.join("|")));
        }
        (format!("{name} {}", sub.to_ascii_lowercase()), after)
    } else {
        (name.to_string(), rest)
    };
    let name = name.as_str();
    let spec = commands::spec(name).ok_or_else(|| format!("unknown command /{name}; try /help"))?;
    let values = read_options(&spec, rest)?;
    Command::parse(name, &values)
        .map(Action::Run)
        .map_err(|e| format!("{e} ({})", spec.usage()))
}

/// A file name made safe for a folder: letters, digits, `-`, `_` and `.` kept, anything else
/// (a `/`, a space) as `_`, and no leading dot.
fn file_name(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let safe = safe.trim_start_matches('.');
    if safe.is_empty() {
        "image".to_string()
    } else {
        safe.to_string()
    }
}

/// Writes `bytes` to a new file in `dir` named after `name` (what it shows, as the bot names
/// it: `game-3-ply-5.png`), never over a file already there: an earlier image of this session
/// or of another gets a number added to the new one's name (`game-3-ply-5.2.png`). Returns
/// the file's path.
fn new_file(dir: &std::path::Path, name: &str, bytes: &[u8]) -> io::Result<PathBuf> {
    let name = file_name(name);
    let (stem, ext) = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem, format!(".{ext}")),
        _ => (name.as_str(), String::new()),
    };
    let mut n = 1;
    loop {
        let path = if n == 1 {
            dir.join(&name)
        } else {
            dir.join(format!("{stem}.{n}{ext}"))
        };
        // `create_new` fails on an existing file, so nothing is ever overwritten.
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut file) => {
                file.write_all(bytes)?;
                return Ok(path);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 10_000 => n += 1,
            Err(e) => return Err(e),
        }
    }
}

/// The server the console plays on (its settings, and where its `/time` is kept).
pub const CONSOLE_SERVER: &str = "local";

/// A console session.
pub struct Console<'a> {
    bot: &'a Bot,
    pub user: User,
    pub channel: String,
    pub moderator: bool,
    /// The roles the user has (names; `/roles` sets them).
    pub roles: Vec<String>,
    images: Option<PathBuf>,
    /// Owed messages shown but not yet written out: reported delivered once they are.
    shown: std::cell::RefCell<Vec<crate::store::MessageId>>,
    /// The AI's time limit per move, in milliseconds.
    ai_ms: u64,
}

/// The console's name for the bot itself: `/challenge tara-bot hkot-1` plays the AI.
pub const BOT_NAME: &str = "tara-bot";

impl<'a> Console<'a> {
    /// A session as `user` in channel `local`; images are written to `images` when given.
    pub fn new(bot: &'a Bot, user: &str, images: Option<PathBuf>) -> Console<'a> {
        bot.set_self_user(&UserId::new(BOT_NAME));
        Console {
            ai_ms: crate::ai_runner::DEFAULT_AI_MS,
            bot,
            user: super::console::user(user),
            channel: "local".into(),
            moderator: false,
            roles: Vec::new(),
            images,
            shown: Default::default(),
        }
    }

    /// Sets the AI's time limit per move (milliseconds).
    pub fn with_ai_ms(mut self, ms: u64) -> Console<'a> {
        self.ai_ms = ms;
        self
    }

    /// The AI's moves wherever it is to move (searched here, the console waiting for them),
    /// then the analyses asked for (run here too: their progress edits, then their results).
    fn ai_moves(&self) -> String {
        let mut s = self.show(&crate::ai_runner::play_pending(self.bot, self.ai_ms));
        s.push_str(&self.show(&crate::ai_runner::analyse_pending(self.bot, self.ai_ms)));
        s
    }

    /// Reports the owed messages shown so far as delivered (once they are written out).
    pub fn delivered(&self) {
        for id in self.shown.borrow_mut().drain(..) {
            self.bot.delivered(id);
        }
    }

    /// The messages owed from before (a crash or a write error), shown now.
    pub fn owed(&self) -> String {
        let owed = self.bot.undelivered(true);
        if owed.is_empty() {
            return String::new();
        }
        escape_controls(
            &format!("Messages owed from before:\n{}", self.show(&owed)),
            true,
        )
    }

    fn ctx(&self) -> Ctx {
        Ctx {
            server: ServerId::new(CONSOLE_SERVER),
            channel: ChannelId::new(self.channel.as_str()),
            user: self.user.clone(),
            moderator: self.moderator,
            manager: self.moderator,
            roles: self.roles.clone(),
        }
    }

    /// Runs one line; returns what to print and whether to stop. Anything the clocks brought
    /// due (reminders, timeouts) is shown first. Control characters in the text (from names
    /// or typed lines) come back escaped.
    pub fn line(&mut self, line: &str) -> (String, bool) {
        let mut due = self.show(&self.bot.tick());
        // The AI moves first where it was left to move (a game begun before a restart).
        due.push_str(&self.ai_moves());
        let (text, stop) = self.command(line);
        due.push_str(&text);
        if !stop {
            due.push_str(&self.ai_moves());
        }
        (escape_controls(&due, true), stop)
    }

    /// The prompt: who you are and where.
    fn prompt(&self) -> String {
        escape_controls(&format!("{}@#{}> ", self.user.name, self.channel), false)
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
            Ok(Action::Roles(roles)) => {
                let text = if roles.is_empty() {
                    "No roles.\n".to_string()
                } else {
                    format!("Roles: {}.\n", roles.join(", "))
                };
                self.roles = roles;
                (text, false)
            }
            Ok(Action::Moderator(on)) => {
                self.moderator = on;
                (
                    format!("Moderator rights {}.\n", if on { "on" } else { "off" }),
                    false,
                )
            }
            Ok(Action::Time(ms)) => {
                if !self
                    .bot
                    .advance_console_clock(&ServerId::new(CONSOLE_SERVER), ms)
                {
                    return ("This bot runs on real time.\n".into(), false);
                }
                let mut s = format!("The clock moves on {}.\n", duration_text(ms));
                s.push_str(&self.show(&self.bot.tick()));
                (s, false)
            }
            Ok(Action::Moves(prefix)) => {
                let moves = self.bot.moves_matching(&self.ctx(), &prefix);
                if moves.is_empty() {
                    return (
                        "No moves to suggest (is it your turn here?).\n".into(),
                        false,
                    );
                }
                let mut s = moves
                    .iter()
                    .take(MOVES_SHOWN)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("  ");
                if moves.len() > MOVES_SHOWN {
                    s.push_str(&format!(
                        "\n… and {} more; type the start of a move to narrow them (/moves E).",
                        moves.len() - MOVES_SHOWN
                    ));
                }
                s.push('\n');
                (s, false)
            }
            Ok(Action::Run(Command::Help {})) => {
                let mut s = self.show(&self.bot.handle(&self.ctx(), Command::Help {}));
                s.push_str(CONSOLE_HELP);
                s.push('\n');
                (s, false)
            }
            Ok(Action::Run(cmd)) => {
                let replies = self.bot.handle(&self.ctx(), cmd);
                (self.show(&replies), false)
            }
            Ok(Action::Press(cmd)) => {
                let replies = self.bot.handle(&self.ctx(), cmd);
                let mut s = String::new();
                if let Some(text) = replies.iter().find_map(|r| {
                    r.pressed_terminal_text_with(|_, name| format!("@{name}"), |c| format!("#{c}"))
                }) {
                    s.push_str(&format!(
                        "[the message with the buttons now reads] {text}\n"
                    ));
                }
                s.push_str(&self.show(&replies));
                (s, false)
            }
        }
    }

    fn show(&self, replies: &[Reply]) -> String {
        let mut s = String::new();
        for r in replies {
            if let Some(id) = r.outbox {
                self.shown.borrow_mut().push(id);
            }
            let text = r.terminal_text_with(
                |_, name| format!("@{}", escape_controls(name, false)),
                |c| format!("#{}", escape_controls(c, false)),
            );
            if r.edits.is_some() {
                // An edit of an earlier message (an analysis's progress).
                s.push_str("(edit) ");
            }
            if let Some(user) = &r.dm {
                s.push_str(&format!(
                    "[message to {}] ",
                    escape_controls(user.as_str(), false)
                ));
            } else if let Some(channel) = &r.channel {
                if *channel != self.channel {
                    s.push_str(&format!("[in #{channel}] "));
                }
            } else if r.ephemeral {
                s.push_str(&format!("[only {} sees this] ", self.user.name));
            }
            s.push_str(&text);
            s.push('\n');
            if !r.buttons.is_empty() || r.link.is_some() {
                let mut b: Vec<String> = r
                    .buttons
                    .iter()
                    .map(
                        |b| match crate::bot::Press::parse(&b.id).and_then(|p| p.dialog()) {
                            Some(d) => format!("[{}: /press {} {}]", b.label, b.id, d.placeholder),
                            None => format!("[{}: /press {}]", b.label, b.id),
                        },
                    )
                    .collect();
                // A link button is its address, to open in a browser.
                b.extend(
                    r.link
                        .iter()
                        .map(|l| format!("[{}: {}]", l.label, escape_controls(&l.url, false))),
                );
                s.push_str(&format!("  {}\n", b.join(" ")));
            }
            if let Some(board) = &r.board_text {
                s.push_str(board);
            }
            if let (Some(img), Some(dir)) = (&r.image, &self.images) {
                match std::fs::create_dir_all(dir)
                    .and_then(|_| new_file(dir, &img.filename, &img.bytes))
                {
                    Ok(path) => {
                        let what = if r.board_text.is_some() {
                            "board image"
                        } else {
                            "image"
                        };
                        s.push_str(&format!("  ({what}: {})\n", path.display()))
                    }
                    Err(e) => s.push_str(&format!(
                        "  (could not write {}: {e})\n",
                        dir.join(&img.filename).display()
                    )),
                }
            }
        }
        s
    }

    /// The greeting of an interactive session.
    fn greeting(&self) -> String {
        escape_controls(
            &format!(
                "tara-bot console. /help lists the commands; you are {}.",
                self.user.name
            ),
            false,
        )
    }

    /// Reads lines until the end of input or `/quit`. With `interactive`, shows a prompt;
    /// without, echoes each line (escaped) before its answer, so a piped script reads as a
    /// transcript. Bytes that are not UTF-8 are read as U+FFFD rather than ending the session.
    pub fn run(
        &mut self,
        mut input: impl BufRead,
        out: &mut impl Write,
        interactive: bool,
    ) -> io::Result<()> {
        if interactive {
            writeln!(out, "{}", self.greeting())?;
        }
        write!(out, "{}", self.owed())?;
        out.flush()?;
        self.delivered();
        let mut buf = Vec::new();
        loop {
            if interactive {
                write!(out, "{}", self.prompt())?;
                out.flush()?;
            }
            buf.clear();
            if input.read_until(b'\n', &mut buf)? == 0 {
                break;
            }
            let text = String::from_utf8_lossy(&buf);
            let line = text.trim_end_matches(['\n', '\r']);
            if !interactive && !line.trim().is_empty() {
                writeln!(out, "> {}", escape_controls(line, false))?;
            }
            let (text, stop) = self.line(line);
            write!(out, "{text}")?;
            out.flush()?;
            self.delivered();
            if stop {
                break;
            }
        }
        Ok(())
    }

    /// Reads lines from the terminal with line editing (arrow keys, Home/End, Ctrl-W …) and
    /// a history of this session's lines (Up/Down, Ctrl-R), until Ctrl-D or `/quit`; Ctrl-C
    /// drops the line being typed. Falls back to plain reading of standard input when the
    /// terminal cannot be driven.
    pub fn run_terminal(&mut self, out: &mut impl Write) -> io::Result<()> {
        use rustyline::error::ReadlineError;
        let mut editor = match rustyline::DefaultEditor::new() {
            Ok(e) => e,
            Err(_) => return self.run(io::stdin().lock(), out, true),
        };
        writeln!(out, "{}", self.greeting())?;
        write!(out, "{}", self.owed())?;
        out.flush()?;
        self.delivered();
        loop {
            let line = match editor.readline(&self.prompt()) {
                Ok(line) => line,
                Err(ReadlineError::Interrupted) => continue,
                Err(ReadlineError::Eof) => break,
                Err(ReadlineError::Io(e)) => return Err(e),
                Err(e) => return Err(io::Error::other(e.to_string())),
            };
            if !line.trim().is_empty() {
                // A history that cannot take the line is no reason to stop playing.
                let _ = editor.add_history_entry(line.as_str());
            }
            let (text, stop) = self.line(&line);
            write!(out, "{text}")?;
            out.flush()?;
            self.delivered();
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
    use crate::bot::{TakebackAnswer, TimeControl};
    use crate::game::{Scoring, Variant};
    use crate::store::FirstChoice;

    fn run(line: &str) -> Command {
        match parse_line(line) {
            Ok(Action::Run(c) | Action::Press(c)) => c,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn console_lines_parse_like_slash_commands() {
        assert_eq!(
            run("/challenge @Bob hkot-1 knots first:me match days:3"),
            Command::Challenge {
                opponent: Some(User::new("bob", "Bob")),
                variant: Variant::Hkot1,
                scoring: Some(Scoring::Knots),
                first: Some(FirstChoice::Challenger),
                days: Some(TimeControl::DaysPerMove(3)),
                is_match: true,
                rated: None,
                thread: None,
            }
        );
        // No opponent: an open challenge; the variant is known by its name.
        assert_eq!(
            run("/challenge ard-ri first:opponent"),
            Command::Challenge {
                opponent: None,
                variant: Variant::ArdRi,
                scoring: None,
                first: Some(FirstChoice::Opponent),
                days: None,
                is_match: false,
                rated: None,
                thread: None,
            }
        );
        assert_eq!(
            run("/press draw-no:2"),
            Command::Draw {
                answer: Some(crate::bot::DrawAnswer::Decline),
                game: Some(crate::store::GameId(2))
            }
        );
        assert_eq!(
            run("/move G2 E3"),
            Command::Move {
                text: "G2 E3".into(),
                game: None
            }
        );
        assert_eq!(
            run("/m g2e3"),
            Command::Move {
                text: "g2e3".into(),
                game: None
            }
        );
        assert_eq!(
            run("d4"),
            Command::Move {
                text: "d4".into(),
                game: None
            }
        );
        assert_eq!(parse_line("/as carol"), Ok(Action::As("carol".into())));
        assert_eq!(
            parse_line(r#"/as "mary jane""#),
            Ok(Action::As("mary jane".into()))
        );
        assert_eq!(
            run("/press accept:3"),
            Command::Accept {
                challenge: Some(crate::store::ChallengeId(3))
            }
        );
        assert_eq!(
            run("/accept #3"),
            Command::Accept {
                challenge: Some(crate::store::ChallengeId(3))
            }
        );
        assert_eq!(parse_line("# comment"), Ok(Action::Nothing));
        assert_eq!(
            run("/position variant:ard-ri ply:1 d2-c2 c3-b3"),
            Command::Position {
                record: "d2-c2 c3-b3".into(),
                variant: Some(crate::game::Variant::ArdRi),
                ply: Some(1),
                marks: None,
                arrows: None
            }
        );
        // A record's own fields (`variant: hkot-1`, with a space) stay in the record.
        assert_eq!(
            run("/position variant: hkot-1 moves: D4"),
            Command::Position {
                record: "variant: hkot-1 moves: D4".into(),
                variant: None,
                ply: None,
                marks: None,
                arrows: None
            }
        );
    }

    #[test]
    fn quoted_console_values_and_records_parse_as_in_the_docs() {
        // Quoted values keep their spaces: the examples of docs/commands.md.
        assert_eq!(
            run(r#"/board marks:"D4 E5" arrows:"G2-E3""#),
            Command::Board {
                ply: None,
                marks: Some("D4 E5".into()),
                arrows: Some("G2-E3".into()),
                game: None
            }
        );
        assert_eq!(
            run(r#"/abort reason:"players asked""#),
            Command::Abort {
                reason: Some("players asked".into()),
                game: None
            }
        );
        assert_eq!(
            run("/abort reason:“players asked”"),
            Command::Abort {
                reason: Some("players asked".into()),
                game: None
            }
        );
        assert_eq!(
            run(r#"/position record:"variant: hkot-1 moves: D4 B2 F6" ply:2 marks:D4"#),
            Command::Position {
                record: "variant: hkot-1 moves: D4 B2 F6".into(),
                variant: None,
                ply: Some(2),
                marks: Some("D4".into()),
                arrows: None
            }
        );
        assert_eq!(
            run(r#"/position record:"d2-c2 c3-b3" variant:ard-ri"#),
            Command::Position {
                record: "d2-c2 c3-b3".into(),
                variant: Some(crate::game::Variant::ArdRi),
                ply: None,
                marks: None,
                arrows: None
            }
        );
        // Unquoted, a record named by its option takes the rest of the line.
        assert_eq!(
            run("/position ply:1 record:d2-c2 c3-b3"),
            Command::Position {
                record: "d2-c2 c3-b3".into(),
                variant: None,
                ply: Some(1),
                marks: None,
                arrows: None
            }
        );
        // After a quoted record, options as anywhere else: a choice typed bare too.
        assert_eq!(
            run(r#"/position record:"d2-c2" ard-ri ply:1"#),
            Command::Position {
                record: "d2-c2".into(),
                variant: Some(crate::game::Variant::ArdRi),
                ply: Some(1),
                marks: None,
                arrows: None
            }
        );
        // A record quoted without its option's name, or with a space after the name.
        for line in [
            r#"/position "d2-c2 c3-b3" variant:ard-ri"#,
            r#"/position record: "d2-c2 c3-b3" variant:ard-ri"#,
        ] {
            assert_eq!(
                run(line),
                Command::Position {
                    record: "d2-c2 c3-b3".into(),
                    variant: Some(crate::game::Variant::ArdRi),
                    ply: None,
                    marks: None,
                    arrows: None
                },
                "{line}"
            );
        }
        // A colon inside quotes is part of the value, not an option's name.
        assert_eq!(
            run(r#"/position "variant: hkot-1 moves: D4 B2" ply:2"#),
            Command::Position {
                record: "variant: hkot-1 moves: D4 B2".into(),
                variant: None,
                ply: Some(2),
                marks: None,
                arrows: None
            }
        );
        assert_eq!(
            parse_line(r#"/tournament create "Rated: Spring" hkot-1 swiss"#).map(|a| match a {
                Action::Run(Command::TournamentCreate { name, .. }) => name,
                other => format!("{other:?}"),
            }),
            Ok("Rated: Spring".to_string())
        );
        assert_eq!(
            run(r#"/move "G2 E3""#),
            Command::Move {
                text: "G2 E3".into(),
                game: None
            }
        );
    }

    #[test]
    fn bad_quotes_are_refused_with_the_usage_and_quoted_names_kept() {
        // A quote left open, an empty quoted value, a second record: refused with the usage.
        for (line, says) in [
            (
                r#"/abort reason:"players asked"#,
                "a quote (\") is not closed; usage: /abort",
            ),
            (
                r#"/challenge "" hkot-1"#,
                "`opponent` is empty; usage: /challenge",
            ),
            (
                r#"/position "d2-c2" record:"c3-b3""#,
                "/position takes one `record`",
            ),
        ] {
            let e = parse_line(line).unwrap_err();
            assert!(e.starts_with(says), "{line}: {e}");
        }
        assert_eq!(
            parse_line(r#"/tournament create name:"Spring Cup" hkot-1 swiss"#).map(|a| match a {
                Action::Run(Command::TournamentCreate { name, .. }) => name,
                other => format!("{other:?}"),
            }),
            Ok("Spring Cup".to_string())
        );
    }

    #[test]
    fn console_numbers_choices_and_refusals_parse_like_slash_commands() {
        assert_eq!(
            run("/board 4"),
            Command::Board {
                ply: Some(4),
                marks: None,
                arrows: None,
                game: None
            }
        );
        assert_eq!(
            run("/game #12 3"),
            Command::Game {
                id: crate::store::GameId(12),
                ply: Some(3),
                marks: None,
                arrows: None,
                drawn: None,
                shared: false,
            }
        );
        assert_eq!(
            parse_line("/board x"),
            Err("'x' is not a number (`ply`). (/board [ply] [marks] [arrows] [game])".into())
        );
        assert_eq!(
            parse_line("/challenge @bob ard-ri rated:maybe"),
            Err(
                "`rated` is yes or no, not 'maybe'. \
                 (/challenge [opponent] variant [scoring] [first] [days] [match] [rated] [thread])"
                    .into()
            )
        );
        assert!(parse_line("/frobnicate").is_err());
        assert_eq!(
            parse_line("/challenge @bob hkot-1 sideways"),
            Err(
                "'sideways' is not a scoring: choose kingdoms or knots. \
                 (/challenge [opponent] variant [scoring] [first] [days] [match] [rated] [thread])"
                    .into()
            )
        );
        assert!(parse_line("/press nothing:1").is_err());
        assert_eq!(parse_line("/time +2d"), Ok(Action::Time(2 * 86_400_000)));
        assert_eq!(parse_line("/time 90m"), Ok(Action::Time(90 * 60_000)));
        assert!(parse_line("/time soon").is_err());
        let vacation = |days, end| Command::Vacation {
            days,
            end,
            confirmed: false,
        };
        assert_eq!(run("/vacation 3"), vacation(Some(3), false));
        assert_eq!(run("/vacation days:3"), vacation(Some(3), false));
        assert_eq!(run("/vacation end"), vacation(None, true));
        assert_eq!(
            parse_line("/vacation 30"),
            Err("`days` must be from 1 to 14. (/vacation [days] [end])".into())
        );
        assert_eq!(
            run("/settings reminders:dm default_days:none"),
            Command::Settings {
                reminders: Some(crate::bot::Reminders::Dm),
                digest: None,
                tz: None,
                default_days: Some(TimeControl::NoClock),
                reminder_hours: None,
                challenge_days: None,
                max_challenges: None,
                rate_limit: None,
                max_ai_games: None,
                tournament_role: None,
                rules_url: None,
                web: None,
            }
        );
        assert_eq!(
            run("/resign confirm"),
            Command::Resign {
                confirmed: true,
                game: None
            }
        );
        assert_eq!(
            run("/resign yes"),
            Command::Resign {
                confirmed: true,
                game: None
            }
        );
        assert_eq!(
            run("/takeback accept"),
            Command::Takeback {
                answer: Some(TakebackAnswer::Allow),
                game: None
            }
        );
        assert_eq!(
            run("/takeback"),
            Command::Takeback {
                answer: None,
                game: None
            }
        );
        assert!(parse_line("/takeback maybe").is_err());
        assert_eq!(
            run("/rules ard-ri"),
            Command::Rules {
                variant: Some(Variant::ArdRi),
                page: None,
            }
        );
    }

    fn new_bot() -> Bot {
        let store = crate::store::Store::open_in_memory().unwrap();
        let clock = std::sync::Arc::new(crate::bot::ManualClock::new(1_795_996_800_000));
        Bot::new(store, clock, 7).with_images(false)
    }

    /// Runs a script as piped input and returns the transcript.
    fn transcript(bot: &Bot, script: &[u8]) -> String {
        let mut console = Console::new(bot, "alice", None);
        let mut out = Vec::new();
        console.run(script, &mut out, false).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn control_characters_from_users_are_shown_escaped() {
        assert_eq!(escape_controls("a\u{1b}[2Jb\n", true), "a\\u{1b}[2Jb\n");
        assert_eq!(
            escape_controls("x\ny\r\u{7}", false),
            "x\\u{a}y\\u{d}\\u{7}"
        );
        assert_eq!(escape_controls("\u{202e}evil", false), "\\u{202e}evil");
        assert_eq!(
            escape_controls("Aoife Ní Bhriain", false),
            "Aoife Ní Bhriain"
        );
        let bot = new_bot();
        let out = transcript(
            &bot,
            b"/challenge @b\x1b[31mob hkot-1 first:me\n/as b\x1b[31mob\n/accept\n\
              /as alice\nD\x1b[2J4\n/frob\x07nicate\n/status\n",
        );
        assert!(
            !out.chars().any(|c| c.is_control() && c != '\n'),
            "raw control characters in:\n{out}"
        );
        assert!(out.contains("@b\\u{1b}[31mob"), "{out}");
        assert!(out.contains("> D\\u{1b}[2J4"), "{out}");
        assert!(out.contains("unknown command /frob\\u{7}nicate"), "{out}");
    }

    #[test]
    fn lines_that_are_not_utf8_do_not_end_the_session() {
        let bot = new_bot();
        let out = transcript(&bot, b"/as \xff\xfe\n/help\n");
        assert!(out.contains("You are now \u{fffd}\u{fffd}."), "{out}");
        assert!(out.contains("/challenge"), "{out}");
    }

    #[test]
    fn moves_says_how_many_more_there_are() {
        let bot = new_bot();
        let out = transcript(
            &bot,
            b"/challenge @bob hkot-1 first:opponent\n/as bob\n/accept\n/moves\n/moves G\n",
        );
        // Placement on an empty board: any of the 45 hills.
        assert!(
            out.contains("\n… and 20 more; type the start of a move to narrow them"),
            "{out}"
        );
        let g_moves = out
            .lines()
            .find(|l| l.starts_with("G2"))
            .unwrap_or_else(|| panic!("{out}"));
        assert_eq!(g_moves, "G2  G3  G4  G5  G6", "{out}");
    }

    #[test]
    fn a_pressed_button_shows_the_new_text_of_its_message() {
        let bot = new_bot();
        let out = transcript(
            &bot,
            b"/challenge @bob sacred-hill-1 first:me\n/as bob\n/press accept:1\n",
        );
        assert!(
            out.contains(
                "[the message with the buttons now reads] @alice challenged @bob to Tara: \
                 Sacred Hill (Level 1) (challenge #1): accepted, game 1 has started.\n"
            ),
            "{out}"
        );
        // Typed, the command answers as before: there is no pressed message to rewrite.
        let out = transcript(&new_bot(), b"/challenge @bob hkot-1\n/as bob\n/accept\n");
        assert!(!out.contains("now reads"), "{out}");
    }

    /// The console's own commands take one name, not two words, and no empty one.
    #[test]
    fn console_commands_refuse_extra_words_and_empty_names() {
        for (line, says) in [
            (
                "/as bob smith",
                "'smith' is one word too many; usage: /as NAME (quote a name with spaces: /as \"mary jane\")",
            ),
            (
                "/channel my channel",
                "'channel' is one word too many; usage: /channel NAME (quote a name with spaces: /channel \"mary jane\")",
            ),
            (r#"/as """#, "the name is empty; usage: /as NAME"),
            ("/as @", "the name is empty; usage: /as NAME"),
            ("/as", "usage: /as NAME"),
            (r##"/channel "#""##, "the name is empty; usage: /channel NAME"),
            ("/moderator maybe", "usage: /moderator on|off"),
            ("/moderator off now", "usage: /moderator on|off"),
            ("/quit now", "/quit takes no words, not 'now'"),
            (
                "/press accept:1 accept:2",
                "'accept:2' is one word too many; usage: /press BUTTON-ID",
            ),
            (r#"/roles mods """#, "a role's name is empty; usage: /roles [NAME…]"),
        ] {
            assert_eq!(parse_line(line), Err(says.to_string()), "{line}");
        }
        assert_eq!(
            parse_line(r#"/channel "my thread""#),
            Ok(Action::Channel("my thread".into()))
        );
        assert_eq!(
            parse_line("/channel #arena"),
            Ok(Action::Channel("arena".into()))
        );
        assert_eq!(parse_line("/as @Bob"), Ok(Action::As("Bob".into())));
        assert_eq!(parse_line("/mod off"), Ok(Action::Moderator(false)));
        assert_eq!(parse_line("/moderator"), Ok(Action::Moderator(true)));
        assert_eq!(parse_line("/exit"), Ok(Action::Quit));
        // Refused, the user stays who they were.
        let out = transcript(&new_bot(), b"/as bob smith\n/as \"\"\n/profile\n");
        assert!(!out.contains("You are now"), "{out}");
        assert!(out.contains("Profile · @alice"), "{out}");
    }

    /// An option given twice is refused, whichever way each was given, not overwritten.
    #[test]
    fn an_option_given_twice_is_refused() {
        let usage = "usage: /challenge [opponent] variant [scoring] [first] [days] [match] [rated] [thread]";
        for (line, option) in [
            ("/challenge @bob hkot-1 first:me first:opponent", "first"),
            ("/challenge @bob hkot-1 knots scoring:kingdoms", "scoring"),
            ("/challenge @bob hkot-1 match match", "match"),
            ("/challenge @bob hkot-1 rated:no rated=yes", "rated"),
        ] {
            assert_eq!(
                parse_line(line),
                Err(format!("`{option}` is given twice: give it once; {usage}")),
                "{line}"
            );
        }
        // Before a record, which takes the rest of the line.
        let e = parse_line("/position ply:1 ply:2 d2-c2 c3-b3").unwrap_err();
        assert!(
            e.starts_with("`ply` is given twice: give it once; usage: /position"),
            "{e}"
        );
    }

    /// Every image of a session is a new file named after what it shows: an annotated board,
    /// a second profile, a second pasted position never overwrite an earlier file (of this
    /// session or another).
    #[test]
    fn images_are_new_files_named_after_what_they_show() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("profile-alice.png"),
            b"an earlier session's",
        )
        .unwrap();
        let store = crate::store::Store::open_in_memory().unwrap();
        let clock = std::sync::Arc::new(crate::bot::ManualClock::new(1_795_996_800_000));
        let bot = Bot::new(store, clock, 7);
        let mut console = Console::new(&bot, "alice", Some(dir.path().to_path_buf()));
        let mut out = Vec::new();
        let script = b"/challenge @bob hkot-1 first:me\n/as bob\n/accept\n/as alice\nD4\n\
            /game 1 ply:1 marks:D4\n/profile\n/profile\n/as \"../x/bob\"\n/profile\n\
            /position variant:hkot-1 D4\n/position variant:hkot-1 ply:1 D4 B2\n";
        console.run(&script[..], &mut out, false).unwrap();
        let out = String::from_utf8(out).unwrap();
        let written: Vec<String> = out
            .lines()
            .filter_map(|l| {
                l.trim()
                    .strip_prefix("(board image: ")
                    .or_else(|| l.trim().strip_prefix("(image: "))
            })
            .map(|l| {
                let path = std::path::Path::new(l.trim_end_matches(')'));
                assert_eq!(path.parent(), Some(dir.path()), "{l}");
                path.file_name().unwrap().to_string_lossy().into_owned()
            })
            .collect();
        for name in [
            "game-1-ply-1.png",
            "game-1-ply-1.2.png",
            "profile-alice.2.png",
            "profile-alice.3.png",
            "profile-.._x_bob.png",
            "position-ply-1.png",
            "position-ply-1.2.png",
        ] {
            assert!(
                written.iter().any(|w| w == name),
                "{name} in {written:?}\n{out}"
            );
        }
        let mut unique = written.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), written.len(), "{written:?}");
        assert_eq!(
            std::fs::read(dir.path().join("profile-alice.png")).unwrap(),
            b"an earlier session's"
        );
        let files = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(files, written.len() + 1);
    }
}
