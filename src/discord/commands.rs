//! The slash commands, made from the bot core's command table: their definitions for Discord,
//! and the reading of an invocation's options into raw values for [`Command::parse`].

use crate::bot::commands::{group, table, CommandSpec, GROUPS};
use crate::bot::options::{Kind, OptionSpec, Value, Values};
use crate::bot::{Command, User};
use serenity::all::{
    CommandInteraction, CommandOptionType, CreateCommand, CreateCommandOption, InteractionContext,
    ResolvedValue,
};

/// The name a user goes by here: their server nickname, else their global display name, else
/// their user name.
pub(crate) fn display_name(user: &serenity::all::User, nick: Option<&str>) -> String {
    nick.map(str::to_string)
        .or_else(|| user.global_name.clone())
        .unwrap_or_else(|| user.name.clone())
}

fn option(o: &OptionSpec) -> CreateCommandOption {
    let kind = match o.kind {
        Kind::Text => CommandOptionType::String,
        Kind::Integer => CommandOptionType::Integer,
        Kind::Boolean => CommandOptionType::Boolean,
        Kind::User => CommandOptionType::User,
    };
    let mut d = CreateCommandOption::new(kind, o.name, o.description).required(o.required);
    for c in &o.choices {
        d = d.add_string_choice(c.label.clone(), c.value.clone());
    }
    // The table's bounds are never negative.
    if let Some(n) = o.min {
        d = d.min_int_value(n.max(0).unsigned_abs());
    }
    if let Some(n) = o.max {
        d = d.max_int_value(n.max(0).unsigned_abs());
    }
    if let Some(n) = o.max_length {
        d = d.max_length(n);
    }
    if o.autocomplete {
        d = d.set_autocomplete(true);
    }
    d
}

/// A command's definition: its offered options, and where it may be used (only in servers,
/// unless the table allows it in direct messages with the bot too).
fn definition(c: &CommandSpec) -> CreateCommand {
    let contexts = if c.in_dms {
        vec![InteractionContext::Guild, InteractionContext::BotDm]
    } else {
        vec![InteractionContext::Guild]
    };
    // Discord wants the required options before the optional ones (the table may list an
    // optional one first, as `/challenge [opponent] variant`, for the console's reading).
    let required = c.options.iter().filter(|o| !o.hidden && o.required);
    let optional = c.options.iter().filter(|o| !o.hidden && !o.required);
    required.chain(optional).fold(
        CreateCommand::new(c.name)
            .description(c.description)
            .contexts(contexts)
            .dm_permission(c.in_dms),
        |d, o| d.add_option(option(o)),
    )
}

/// A subcommand's definition: its offered options, required ones first.
fn subcommand(c: &CommandSpec, name: &str) -> CreateCommandOption {
    let required = c.options.iter().filter(|o| !o.hidden && o.required);
    let optional = c.options.iter().filter(|o| !o.hidden && !o.required);
    required.chain(optional).fold(
        CreateCommandOption::new(CommandOptionType::SubCommand, name, c.description),
        |d, o| d.add_sub_option(option(o)),
    )
}

/// Every slash command: a command of its own per table entry, and one command per group of
/// subcommands (`/tournament`) with a `SUB_COMMAND` option per entry of the group.
pub fn definitions() -> Vec<CreateCommand> {
    let specs = table();
    let mut out: Vec<CreateCommand> = specs
        .iter()
        .filter(|c| c.subcommand().is_none())
        .map(definition)
        .collect();
    for (group, description) in GROUPS {
        let def = specs
            .iter()
            .filter_map(|c| {
                c.subcommand()
                    .filter(|(g, _)| g == group)
                    .map(|(_, s)| (c, s))
            })
            .fold(
                CreateCommand::new(*group)
                    .description(*description)
                    .contexts(vec![InteractionContext::Guild])
                    .dm_permission(false),
                |d, (c, sub)| d.add_option(subcommand(c, sub)),
            );
        out.push(def);
    }
    out
}

/// Reads an invocation into a bot-core command (options checked and typed by the table).
pub fn parse(cmd: &CommandInteraction) -> Result<Command, String> {
    let mut name = cmd.data.name.clone();
    let mut options = cmd.data.options();
    // A group (`/tournament`): its one option is the subcommand, holding the options.
    if group(&name).is_some() {
        let sub = options
            .pop()
            .ok_or_else(|| format!("/{name} needs a subcommand."))?;
        let ResolvedValue::SubCommand(inner) = sub.value else {
            return Err(format!("/{name} needs a subcommand."));
        };
        name = format!("{name} {}", sub.name);
        options = inner;
    }
    let spec =
        crate::bot::commands::spec(&name).ok_or_else(|| format!("Unknown command /{name}."))?;
    let mut values = Values::new();
    for o in options {
        if spec.option(o.name).is_none_or(|s| s.hidden) {
            return Err(format!("/{} has no option `{}`.", spec.name, o.name));
        }
        let v = match o.value {
            ResolvedValue::String(s) => Value::Text(s.to_string()),
            ResolvedValue::Integer(i) => Value::Integer(i),
            ResolvedValue::Boolean(b) => Value::Boolean(b),
            ResolvedValue::User(u, _) if u.id.get() == cmd.application_id.get() => {
                // This bot itself (its user id is its application's): the AI.
                Value::User(User::new(crate::store::AI_USER_ID, u.name.clone()))
            }
            ResolvedValue::User(u, member) => {
                if u.bot {
                    return Err(
                        "Bots cannot play: challenge a person, or me to play my AI (`/play-ai`)."
                            .into(),
                    );
                }
                Value::User(User::new(
                    u.id.to_string(),
                    display_name(u, member.and_then(|m| m.nick.as_deref())),
                ))
            }
            _ => {
                return Err(format!(
                    "`{}` has a value of a kind the bot does not read.",
                    o.name
                ))
            }
        };
        values.set(o.name, v);
    }
    Command::parse(&name, &values)
}
