//! `/settings`: a player's reminders; the server's clock settings and limits (Manage Server),
//! each read from the capability that applies it, and who may create tournaments.

use super::ai_games;
use super::clocks::{reminders_of, server_reminder_hours, vacation_available, Reminders};
use super::digest;
use super::lobby;
use super::moderation::record_action;
use super::options::Choices;
use super::reply::{escape_markdown, Ctx, OnTheWeb, Reply, WebPage};
use super::session::{
    default_time_control, on_the_web, server_rate_limit, Bot, Fail, Out, Outcome,
};
use super::time::{plural, vacation_left, TimeControl, VACATION_DAYS};
use super::tournaments;
use crate::store::Tx;
use crate::store::{ServerSetting, UserSetting};
use chrono::NaiveTime;
use chrono_tz::Tz;

/// The options of `/settings`, as its handler gets them: each `None` is left as it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingsOptions {
    /// Where the sender's reminders reach them.
    pub reminders: Option<Reminders>,
    /// The sender's daily digest: a time of day (`HH:MM`) or `off`, as typed.
    pub digest: Option<String>,
    /// The sender's time zone for it, as typed.
    pub tz: Option<String>,
    /// Manage Server: the server's default days per move.
    pub default_days: Option<TimeControl>,
    /// Manage Server: hours before the first reminder.
    pub reminder_hours: Option<u32>,
    /// Manage Server: days an unanswered challenge stays open.
    pub challenge_days: Option<u32>,
    /// Manage Server: open challenges per player.
    pub max_challenges: Option<u32>,
    /// Manage Server: commands per player per 10 seconds.
    pub rate_limit: Option<u32>,
    /// Manage Server: games against the AI in progress per player.
    pub max_ai_games: Option<u32>,
    /// Manage Server: the role whose members may create tournaments, as typed.
    pub tournament_role: Option<String>,
    /// Manage Server: a link to the server's own rules (`-` removes it), as typed.
    pub rules_url: Option<String>,
    /// Manage Server: the server's games on the web companion (true) or not (false).
    pub web: Option<bool>,
}

/// `settings`: your reminders (channel, dm or off); Manage Server: the server's default time
/// control, first-reminder delay and limits (days a challenge stays open, open challenges
/// per player, commands per player per 10 seconds, games against the AI in progress per
/// player). Without options, shows the settings.
pub(crate) fn settings(bot: &Bot, ctx: &Ctx, options: SettingsOptions) -> Outcome<Vec<Out>> {
    let asked = Asked::read(options)?;
    asked.check(ctx)?;
    let replies = bot.write(ctx, |tx, now| {
        asked.store(tx, ctx, now)?;
        let mut outs = Vec::new();
        if asked.server_change() {
            outs.extend(record_action(
                tx,
                ctx,
                "settings",
                asked.subject(),
                &asked.changed().join(", "),
                now,
            )?);
        }
        // With the server on the web, the answer links its front page.
        let mut answer = Reply::private(settings_text(tx, ctx, now)?);
        answer.web = Some(OnTheWeb::new(&ctx.server, WebPage::Server));
        outs.insert(0, Out::text(answer));
        Ok(outs)
    })?;
    if let Some(limit) = asked.rate_limit {
        // Committed: the new rate applies from the next command.
        bot.remember_rate_limit(&ctx.server, limit);
    }
    Ok(replies)
}

/// `/settings` as asked, its typed values read.
struct Asked {
    reminders: Option<Reminders>,
    digest_time: Option<Option<NaiveTime>>,
    tz: Option<Tz>,
    default_days: Option<TimeControl>,
    reminder_hours: Option<u32>,
    challenge_days: Option<u32>,
    max_challenges: Option<u32>,
    rate_limit: Option<u32>,
    max_ai_games: Option<u32>,
    /// A role (`Some`), or moderators only (`None`).
    tournament_role: Option<Option<String>>,
    /// A link, or none (the empty text).
    rules_url: Option<String>,
    /// On the web companion, or off.
    web: Option<bool>,
}

impl Asked {
    /// The options with their typed values read (a digest time, a time zone, a role, a link),
    /// or what is wrong with one.
    fn read(options: SettingsOptions) -> Outcome<Asked> {
        let SettingsOptions {
            reminders,
            digest: digest_time,
            tz,
            default_days,
            reminder_hours,
            challenge_days,
            max_challenges,
            rate_limit,
            max_ai_games,
            tournament_role,
            rules_url,
            web,
        } = options;
        Ok(Asked {
            reminders,
            digest_time: digest_time
                .map(|t| digest::read_time(&t).map_err(Fail::User))
                .transpose()?,
            tz: tz
                .map(|z| digest::read_zone(&z).map_err(Fail::User))
                .transpose()?,
            default_days,
            reminder_hours,
            challenge_days,
            max_challenges,
            rate_limit,
            max_ai_games,
            tournament_role: tournament_role
                .map(|r| tournaments::parse_role(&r).map_err(Fail::User))
                .transpose()?,
            rules_url: rules_url.map(|u| read_rules_url(&u)).transpose()?,
            web,
        })
    }

    /// Whether the server's settings change (Manage Server's to change).
    fn server_change(&self) -> bool {
        self.tournament_role.is_some()
            || self.rules_url.is_some()
            || self.default_days.is_some()
            || self.reminder_hours.is_some()
            || self.challenge_days.is_some()
            || self.max_challenges.is_some()
            || self.rate_limit.is_some()
            || self.max_ai_games.is_some()
            || self.web.is_some()
    }

    /// Refuses a change of the server's settings by someone without Manage Server, and a value
    /// out of its range.
    fn check(&self, ctx: &Ctx) -> Outcome<()> {
        if self.server_change() && !ctx.manager {
            return Err(Fail::User(
                "Only members with Manage Server can change the server's clock settings, \
                 limits and web pages; your own reminders are yours to set."
                    .into(),
            ));
        }
        if let Some(h) = self.reminder_hours {
            if !(1..=168).contains(&h) {
                return Err(Fail::User(
                    "The first reminder comes after 1 to 168 hours.".into(),
                ));
            }
        }
        for (value, range, what) in [
            (
                self.challenge_days,
                1..=90,
                "A challenge stays open 1 to 90 days.",
            ),
            (
                self.max_challenges,
                1..=100,
                "A player may have 1 to 100 open challenges.",
            ),
            (
                self.rate_limit,
                1..=100,
                "The rate limit is 1 to 100 commands per 10 seconds.",
            ),
            (
                self.max_ai_games,
                1..=20,
                "A player may have 1 to 20 games against the AI in progress.",
            ),
        ] {
            if value.is_some_and(|v| !range.contains(&v)) {
                return Err(Fail::User(what.into()));
            }
        }
        Ok(())
    }

    /// Stores what is asked: the sender's own settings and the server's.
    fn store(&self, tx: &Tx, ctx: &Ctx, now: i64) -> Outcome<()> {
        tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
        if let Some(r) = self.reminders {
            tx.set_user_setting(&ctx.user.id, UserSetting::REMINDERS, r.id())?;
        }
        if self.digest_time.is_some() || self.tz.is_some() {
            digest::set(tx, &ctx.user.id, self.digest_time, self.tz, now)?;
        }
        if let Some(d) = self.default_days {
            tx.set_server_setting(&ctx.server, ServerSetting::DEFAULT_DAYS, d.id())?;
        }
        if let Some(h) = self.reminder_hours {
            tx.set_server_setting(&ctx.server, ServerSetting::REMINDER_HOURS, &h.to_string())?;
        }
        for (key, value) in [
            (ServerSetting::CHALLENGE_DAYS, self.challenge_days),
            (ServerSetting::MAX_CHALLENGES, self.max_challenges),
            (ServerSetting::RATE_LIMIT, self.rate_limit),
            (ServerSetting::MAX_AI_GAMES, self.max_ai_games),
        ] {
            if let Some(v) = value {
                tx.set_server_setting(&ctx.server, key, &v.to_string())?;
            }
        }
        if let Some(r) = &self.tournament_role {
            tournaments::set_creator_role(tx, &ctx.server, r.as_deref())?;
        }
        if let Some(u) = &self.rules_url {
            tx.set_server_setting(&ctx.server, ServerSetting::RULES_URL, u)?;
        }
        if let Some(on) = self.web {
            let value = if on { "on" } else { "off" };
            tx.set_server_setting(&ctx.server, ServerSetting::WEB, value)?;
        }
        Ok(())
    }

    /// The server's settings changed, a line each, for the audit log.
    fn changed(&self) -> Vec<String> {
        let mut changed = Vec::new();
        if let Some(r) = &self.tournament_role {
            changed.push(match r {
                Some(id) => format!("tournament-role set to <@&{}>", escape_markdown(id)),
                None => "tournament-role cleared (moderators only)".to_string(),
            });
        }
        if let Some(d) = self.default_days {
            changed.push(format!("default-days set to {}", d.id()));
        }
        if let Some(u) = &self.rules_url {
            changed.push(if u.is_empty() {
                "rules-url removed".to_string()
            } else {
                format!("rules-url set to <{u}>")
            });
        }
        if let Some(on) = self.web {
            changed.push(if on {
                "web set to on: the server's games are on the web companion".to_string()
            } else {
                "web set to off: none of the server's games is on the web companion".to_string()
            });
        }
        for (key, value) in [
            ("reminder-hours", self.reminder_hours),
            ("challenge-days", self.challenge_days),
            ("max-challenges", self.max_challenges),
            ("rate-limit", self.rate_limit),
            ("max-ai-games", self.max_ai_games),
        ] {
            if let Some(v) = value {
                changed.push(format!("{key} set to {v}"));
            }
        }
        changed
    }

    /// What the audit log's entry is about: the clocks and limits (and the rules link), who
    /// may create tournaments, or both.
    fn subject(&self) -> &'static str {
        let role = self.tournament_role.is_some();
        let web = self.web.is_some();
        let clocks = self.changed().len() > usize::from(role) + usize::from(web);
        match (clocks, role, web) {
            (true, false, false) => "the server's clock settings and limits",
            (false, true, false) => "who may create tournaments on the server",
            (true, true, false) => {
                "the server's clock settings and limits, and who may create tournaments"
            }
            (false, false, _) => "whether the server's games are on the web",
            _ => "the server's settings",
        }
    }
}

/// The sender's settings and the server's, as `/settings` tells them.
fn settings_text(tx: &Tx, ctx: &Ctx, now: i64) -> Outcome<String> {
    let how = reminders_of(tx, &ctx.user.id)?.id();
    let days = default_time_control(tx, &ctx.server)?;
    let hours = server_reminder_hours(tx, &ctx.server)?;
    let text = format!(
        "Your reminders: **{how}** (channel, dm or off). Your digest: {}. Vacation \
         left: {} ({VACATION_DAYS} days in any 365 days).\n\
         This server: default time control **{}**, first reminder after {} or a quarter \
         of the time per move, whichever is later. Challenges expire after {}; each \
         player may have {} open, send {} per 10 seconds and play {} against the AI \
         at once (Manage Server can change these).",
        digest::describe_setting(tx, &ctx.user.id)?,
        vacation_left(vacation_available(tx, &ctx.user.id, now)?),
        if days == TimeControl::NoClock {
            "none".to_string()
        } else {
            days.to_string()
        },
        plural(hours, "hour"),
        plural(i64::from(lobby::challenge_days(tx, &ctx.server)?), "day"),
        plural(
            i64::from(lobby::max_challenges(tx, &ctx.server)?),
            "challenge"
        ),
        plural(i64::from(server_rate_limit(tx, &ctx.server)?), "command"),
        plural(i64::from(ai_games::max_ai_games(tx, &ctx.server)?), "game"),
    );
    let web = if on_the_web(tx, &ctx.server)? {
        " Its games are on the web companion (`/settings web:false` hides them)."
    } else {
        ""
    };
    Ok(text + &tournaments::creator_role_text(tx, &ctx.server)? + web)
}

/// A server's rules link as typed for `/settings rules-url`: an `https://` (or `http://`)
/// address without spaces, or `-` to remove it (the empty text).
fn read_rules_url(typed: &str) -> Outcome<String> {
    let t = typed.trim();
    if t == "-" {
        return Ok(String::new());
    }
    let ok = (t.starts_with("https://") || t.starts_with("http://"))
        && t.len() > "https://".len()
        && !t.chars().any(|c| c.is_whitespace() || "<>`".contains(c));
    if ok {
        Ok(t.to_string())
    } else {
        let shown: String = t.chars().filter(|c| *c != '`').take(60).collect();
        Err(Fail::User(format!(
            "`{shown}` is not a link: give the whole address, starting with https://, or `-` \
             to remove the server's rules link."
        )))
    }
}
