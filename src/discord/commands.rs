//! The slash commands: their definitions for Discord, and the reading of an invocation into a
//! bot-core [`Command`].

use crate::bot::{Command, User};
use crate::game::Variant;
use serenity::all::{
    CommandInteraction, CommandOptionType, CreateCommand, CreateCommandOption, ResolvedValue,
};

fn variant_option(required: bool) -> CreateCommandOption {
    let mut o = CreateCommandOption::new(CommandOptionType::String, "variant", "Which game")
        .required(required);
    for v in Variant::ALL {
        o = o.add_string_choice(v.name(), v.id());
    }
    o
}

/// A choice of days per move (or no clock).
fn days_option(name: &str, description: &str) -> CreateCommandOption {
    let mut o = CreateCommandOption::new(CommandOptionType::String, name, description)
        .add_string_choice("no clock", "none");
    for d in crate::bot::clock::DAYS_CHOICES {
        o = o.add_string_choice(
            format!("{d} day{}", if d == 1 { "" } else { "s" }),
            d.to_string(),
        );
    }
    o
}

fn challenge_id(desc: &str) -> CreateCommandOption {
    CreateCommandOption::new(CommandOptionType::Integer, "challenge", desc)
        .required(false)
        .min_int_value(1)
}

/// Every slash command.
pub fn definitions() -> Vec<CreateCommand> {
    vec![
        CreateCommand::new("challenge")
            .description("Challenge someone to a game")
            .add_option(
                CreateCommandOption::new(CommandOptionType::User, "opponent", "Who to play")
                    .required(true),
            )
            .add_option(variant_option(true))
            .add_option(
                CreateCommandOption::new(
                    CommandOptionType::String,
                    "scoring",
                    "Kingdoms (default) or knots (hkot-1 and sacred-hill-1)",
                )
                .add_string_choice("kingdoms", "kingdoms")
                .add_string_choice("knots", "knots"),
            )
            .add_option(
                CreateCommandOption::new(
                    CommandOptionType::String,
                    "first",
                    "Who moves first (default: drawn by lot)",
                )
                .add_string_choice("drawn by lot", "random")
                .add_string_choice("me", "me")
                .add_string_choice("my opponent", "opponent"),
            )
            .add_option(days_option(
                "days",
                "Days per move (default: the server's setting)",
            ))
            .add_option(CreateCommandOption::new(
                CommandOptionType::Boolean,
                "match",
                "A two-game match, each player starting one (default: a single game)",
            ))
            .add_option(CreateCommandOption::new(
                CommandOptionType::Boolean,
                "thread",
                "Play in a new thread of this channel (default: yes)",
            )),
        CreateCommand::new("accept")
            .description("Accept a challenge")
            .add_option(challenge_id(
                "Challenge number (default: the newest one to you here)",
            )),
        CreateCommand::new("decline")
            .description("Decline a challenge")
            .add_option(challenge_id(
                "Challenge number (default: the newest one to you here)",
            )),
        CreateCommand::new("cancel")
            .description("Withdraw your challenge")
            .add_option(challenge_id(
                "Challenge number (default: your newest one here)",
            )),
        CreateCommand::new("move")
            .description("Play a move in this channel's game")
            .add_option(
                CreateCommandOption::new(
                    CommandOptionType::String,
                    "move",
                    "e.g. D4, G2-E3, C5-B3*, d2-d3",
                )
                .required(true)
                .set_autocomplete(true)
                .max_length(32),
            ),
        CreateCommand::new("pass").description("Pass (only when the rules allow it)"),
        CreateCommand::new("resign").description("Resign this channel's game (asks first)"),
        CreateCommand::new("board")
            .description("Show the board now, or after a given move")
            .add_option(
                CreateCommandOption::new(
                    CommandOptionType::Integer,
                    "ply",
                    "Show the position after this many moves",
                )
                .min_int_value(0),
            ),
        CreateCommand::new("record").description("The game record (importable)"),
        CreateCommand::new("status").description("Whose turn, since when, and the score"),
        CreateCommand::new("games").description("Your games in progress"),
        CreateCommand::new("rules")
            .description("A short summary of the rules")
            .add_option(variant_option(false)),
        CreateCommand::new("help").description("What tara-bot can do"),
        CreateCommand::new("abort").description(
            "Call off this channel's game before the first move (moderators: any time)",
        ),
        CreateCommand::new("vacation")
            .description("Pause all your clocks for some days (at most 14 a year)")
            .add_option(
                CreateCommandOption::new(CommandOptionType::Integer, "days", "How many days")
                    .required(true)
                    .min_int_value(1)
                    .max_int_value(14),
            ),
        CreateCommand::new("settings")
            .description("Your reminders; moderators: the server's clock defaults")
            .add_option(
                CreateCommandOption::new(
                    CommandOptionType::String,
                    "reminders",
                    "Where reminders reach you",
                )
                .add_string_choice("in the game's channel", "channel")
                .add_string_choice("by direct message", "dm")
                .add_string_choice("off", "off"),
            )
            .add_option(days_option(
                "default-days",
                "Moderators: the server's default days per move",
            ))
            .add_option(
                CreateCommandOption::new(
                    CommandOptionType::Integer,
                    "reminder-hours",
                    "Moderators: hours before the first reminder",
                )
                .min_int_value(1)
                .max_int_value(168),
            ),
        CreateCommand::new("takeback")
            .description("Ask to take back your last move, or answer such a request")
            .add_option(
                CreateCommandOption::new(
                    CommandOptionType::String,
                    "answer",
                    "Answer your opponent's request",
                )
                .add_string_choice("allow", "allow")
                .add_string_choice("refuse", "refuse"),
            ),
    ]
}

/// Reads an invocation: the bot-core command and whether a challenge wants its own thread.
pub fn parse(cmd: &CommandInteraction) -> Result<(Command, bool), String> {
    let opts = cmd.data.options();
    let string = |name: &str| {
        opts.iter()
            .find(|o| o.name == name)
            .and_then(|o| match o.value {
                ResolvedValue::String(s) => Some(s.to_string()),
                _ => None,
            })
    };
    let int = |name: &str| {
        opts.iter()
            .find(|o| o.name == name)
            .and_then(|o| match o.value {
                ResolvedValue::Integer(i) => Some(i),
                _ => None,
            })
    };
    let boolean = |name: &str| {
        opts.iter()
            .find(|o| o.name == name)
            .and_then(|o| match o.value {
                ResolvedValue::Boolean(b) => Some(b),
                _ => None,
            })
    };
    let command = match cmd.data.name.as_str() {
        "challenge" => {
            let opp = opts
                .iter()
                .find(|o| o.name == "opponent")
                .ok_or("Name an opponent.")?;
            if super::is_bot(&opp.value) {
                return Err("Bots cannot play: challenge a person.".into());
            }
            let opponent = match &opp.value {
                ResolvedValue::User(u, member) => User::new(
                    u.id.to_string(),
                    super::display_name(u, member.and_then(|m| m.nick.as_deref())),
                ),
                _ => return Err("Name an opponent.".into()),
            };
            let thread = boolean("thread").unwrap_or(true);
            return Ok((
                Command::Challenge {
                    opponent,
                    variant: string("variant").ok_or("Choose a variant.")?,
                    scoring: string("scoring"),
                    first: string("first"),
                    is_match: boolean("match").unwrap_or(false),
                    days: string("days"),
                },
                thread,
            ));
        }
        "accept" => Command::Accept {
            challenge: int("challenge"),
        },
        "decline" => Command::Decline {
            challenge: int("challenge"),
        },
        "cancel" => Command::Cancel {
            challenge: int("challenge"),
        },
        "move" => Command::Move {
            text: string("move").unwrap_or_default(),
        },
        "pass" => Command::Pass,
        "vacation" => Command::Vacation {
            days: int("days").unwrap_or(0).clamp(0, 365) as u32,
        },
        "settings" => Command::Settings {
            reminders: string("reminders"),
            default_days: string("default-days"),
            reminder_hours: int("reminder-hours").map(|h| h.clamp(0, 10_000) as u32),
        },
        "resign" => Command::Resign {
            confirmed: false,
            game: None,
        },
        "board" => Command::Board {
            ply: int("ply").map(|p| p.clamp(0, u32::MAX as i64) as u32),
        },
        "record" => Command::Record,
        "status" => Command::Status,
        "games" => Command::Games,
        "rules" => Command::Rules {
            variant: string("variant"),
        },
        "help" => Command::Help,
        "abort" => Command::Abort,
        "takeback" => match string("answer").as_deref() {
            Some("allow") => Command::TakebackAnswer {
                accept: true,
                game: None,
            },
            Some("refuse") => Command::TakebackAnswer {
                accept: false,
                game: None,
            },
            _ => Command::Takeback,
        },
        other => return Err(format!("Unknown command /{other}.")),
    };
    Ok((command, false))
}
