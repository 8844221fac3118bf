//! The subcommands of `/tournament` that change a tournament: create, join, leave, cancel,
//! start and withdraw, with who may create and organise tournaments.

use super::model::{find, format_name, read_tournament, title};
use super::presentation::options_text;
use super::results::withdraw;
use super::runner::{advance, insert_pairing};
use crate::bot::lifecycle;
use crate::bot::options::choices;
use crate::bot::reply::{escape_markdown, Ctx, User};
use crate::bot::session::{
    default_time_control, load_game, Bot, EndCause, Fail, Out, Outcome, Session,
};
use crate::bot::text::Builder;
use crate::bot::time::TimeControl;
use crate::game::{GameOptions, Scoring, Variant};
use crate::store::ServerSetting;
use crate::store::TournamentId;
use crate::store::{
    GameStatus, NewTournament, Pace, TournamentFormat, TournamentRow, TournamentStatus, Tx,
};
use crate::store::{ServerId, UserId};
use crate::tournament::{double_round_robin, single_round_robin, Bracket, TablePairing, Tie};

/// The systems offered when creating a tournament.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TournamentSystem {
    Swiss,
    RoundRobin,
    Knockout,
}

choices!(TournamentSystem {
    Swiss => "swiss", "Swiss (FIDE Dutch pairings, a fixed number of rounds)" | "dutch";
    RoundRobin => "round-robin", "round robin (everyone plays everyone)" | "rr" | "roundrobin";
    Knockout => "knockout", "knockout (single elimination, two-game ties)" | "ko" | "cup";
});

choices!(Pace {
    AllAtOnce => "all-at-once", "every game at once" | "all" | "at-once";
    ByRound => "by-round", "round by round" | "rounds" | "round";
});

/// The most players a round robin takes.
const MAX_ROUND_ROBIN: u32 = 64;
/// The most players a knockout or a Swiss takes.
const MAX_KNOCKOUT: u32 = 128;

/// The most players a tournament of `format` takes.
fn player_cap(format: TournamentFormat) -> u32 {
    match format {
        TournamentFormat::RoundRobin => MAX_ROUND_ROBIN,
        _ => MAX_KNOCKOUT,
    }
}

/// The most rounds a Swiss may be created with.
pub(crate) const MAX_SWISS_ROUNDS: u32 = 50;

/// docs/rules.md §10 (Swiss): the default number of rounds of a Swiss of `n` players, ⌈log2 n⌉ + 1, at most
/// n − 1.
pub(crate) fn default_swiss_rounds(n: u32) -> u32 {
    let log2 = u32::BITS - n.saturating_sub(1).leading_zeros();
    (log2 + 1).min(n.saturating_sub(1)).max(1)
}

/// The rating a player without one is seeded with (Glicko-2's starting rating).
const UNRATED: i32 = 1500;

/// Reads `/settings tournament-role`: a role mention (`<@&123>`), a role id or (in the
/// console) a role name; `moderators` (or `none`, `off`) for moderators only (`None`).
pub(crate) fn parse_role(text: &str) -> Result<Option<String>, String> {
    let t = text.trim();
    if ["moderators", "none", "off", "-"].contains(&t.to_ascii_lowercase().as_str()) {
        return Ok(None);
    }
    let id = t
        .strip_prefix("<@&")
        .and_then(|r| r.strip_suffix('>'))
        .unwrap_or(t)
        .trim_start_matches('@');
    if id.is_empty() || id.contains(char::is_whitespace) || id.contains(['<', '>']) {
        return Err(format!(
            "`tournament-role` takes one role, as @role, or `moderators` for moderators only; \
             \"{t}\" is not one."
        ));
    }
    Ok(Some(id.to_string()))
}

/// Stores the role whose members may create tournaments (`None`: moderators only).
pub(crate) fn set_creator_role(tx: &Tx, server: &ServerId, role: Option<&str>) -> Outcome<()> {
    tx.set_server_setting(server, ServerSetting::CREATOR_ROLE, role.unwrap_or(""))?;
    Ok(())
}

/// The role whose members may create tournaments besides moderators, if the server set one.
fn creator_role(tx: &Tx, server: &ServerId) -> Outcome<Option<String>> {
    Ok(tx
        .server_setting(server, ServerSetting::CREATOR_ROLE)?
        .filter(|r| !r.is_empty()))
}

/// The sentence `/settings` shows about who may create tournaments.
pub(crate) fn creator_role_text(tx: &Tx, server: &ServerId) -> Outcome<String> {
    Ok(match creator_role(tx, server)? {
        Some(r) => format!(" Tournaments are created by moderators and members with <@&{r}>."),
        None => " Tournaments are created by moderators (`tournament-role` names a role that \
                  may too)."
            .into(),
    })
}

/// Whether `ctx.user` may create `what` (tournaments, ladders, leagues): by default only
/// moderators; `/settings tournament-role` names a role whose members may too. The refusal
/// if not.
pub(crate) fn may_create(tx: &Tx, ctx: &Ctx, what: &str) -> Outcome<()> {
    let role = creator_role(tx, &ctx.server)?;
    if !ctx.moderator && !role.as_ref().is_some_and(|r| ctx.roles.contains(r)) {
        return Err(Fail::User(match role {
            Some(r) => format!(
                "Only moderators (Manage Messages) and members with <@&{r}> can create \
                 {what} on this server."
            ),
            None => format!("Only moderators (Manage Messages) can create {what} on this server."),
        }));
    }
    Ok(())
}

/// An event's name as given, trimmed; refused when empty (`what`: "tournament", "league",
/// "ladder").
pub(crate) fn event_name(name: &str, what: &str) -> Outcome<String> {
    let name = name.trim().to_string();
    if name.is_empty() {
        return Err(Fail::User(format!("Give the {what} a name.")));
    }
    Ok(name)
}

/// The scoring of an event's games: as given, else by kingdoms; refused when `variant` does
/// not take it.
pub(crate) fn event_scoring(variant: Variant, scoring: Option<Scoring>) -> Outcome<Scoring> {
    let scoring = scoring.unwrap_or(Scoring::Kingdoms);
    GameOptions::with(variant, Some(scoring), None).map_err(|e| Fail::User(format!("{e}.")))?;
    Ok(scoring)
}

/// What creating any event (`what`: tournaments, leagues, ladders) does first, inside its
/// write: checks that the user may ([`may_create`]), settles the clock (`days` as given, else
/// the server's default) and stores the creator.
pub(crate) fn creating(
    tx: &Tx,
    ctx: &Ctx,
    what: &str,
    days: Option<TimeControl>,
    now: i64,
) -> Outcome<TimeControl> {
    may_create(tx, ctx, what)?;
    let days = match days {
        Some(d) => d,
        None => default_time_control(tx, &ctx.server)?,
    };
    tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
    Ok(days)
}

/// An organiser's action taken by a moderator's right (not the tournament's creator) goes in
/// the audit log like every moderator action; the entry for the log channel, if any.
/// An organiser's action (`what`: the audit log's action and detail) announced by `b` in the
/// tournament's channel, and recorded in the audit log when a moderator who is not the
/// organiser took it.
fn announce_action(
    tx: &Tx,
    ctx: &Ctx,
    t: &TournamentRow,
    b: Builder,
    what: (&str, &str),
    now: i64,
) -> Outcome<Vec<Out>> {
    let mut reply = b.build();
    reply.channel = Some(t.channel_id.clone());
    let mut outs = vec![Out::text(reply)];
    outs.extend(audit_if_moderator(tx, ctx, t, what.0, what.1, now)?);
    Ok(outs)
}

fn audit_if_moderator(
    tx: &Tx,
    ctx: &Ctx,
    t: &TournamentRow,
    action: &str,
    detail: &str,
    now: i64,
) -> Outcome<Option<Out>> {
    if !ctx.moderator || ctx.user.id == t.creator_id {
        return Ok(None);
    }
    let subject = format!("tournament #{} {}", t.id, escape_markdown(&t.name));
    crate::bot::moderation::record_action(tx, ctx, action, &subject, detail, now)
}

/// Refuses `what` to anyone but the organiser of `titled` (its creator, `creator`, or a
/// moderator): a tournament, a ladder or a league.
pub(crate) fn organiser_only(ctx: &Ctx, creator: &UserId, titled: &str, what: &str) -> Outcome<()> {
    if ctx.moderator || ctx.user.id == creator {
        Ok(())
    } else {
        Err(Fail::User(format!(
            "Only the organiser (the creator of {titled} or a moderator) can {what}."
        )))
    }
}

/// Whether a running tournament still takes a late entry (docs/rules.md §10, Swiss: a Swiss of two or more
/// rounds, until its round 2 is paired); the reason if not.
fn late_entry_open(tx: &Tx, t: &TournamentRow) -> Outcome<()> {
    if t.format != TournamentFormat::Swiss {
        return Err(Fail::User(format!(
            "{} has started, and a {}'s {} is fixed at the start: it takes no late entries.",
            title(t),
            format_name(t.format),
            if t.format == TournamentFormat::Knockout {
                "bracket"
            } else {
                "table"
            }
        )));
    }
    if t.total_rounds.unwrap_or(0) < 2 {
        return Err(Fail::User(format!(
            "{} has started and has only one round: there is no round left to join.",
            title(t)
        )));
    }
    let paired = tx
        .pairings(t.id, None)?
        .iter()
        .map(|p| p.round)
        .max()
        .unwrap_or(0);
    if paired >= 2 {
        return Err(Fail::User(format!(
            "{} is in round {paired}: a Swiss takes late entries only until round 2 is paired.",
            title(t)
        )));
    }
    Ok(())
}

/// Seeds a late entrant of a running Swiss: their rating now, and the starting ranks of
/// everyone re-assigned by rating (highest first), then the earlier sign-up (docs/rules.md §10, Swiss: the
/// initial order). The others keep the ratings they started with, so their order among
/// themselves is unchanged. The late entrant's seed.
fn reseed_with_late_entrant(tx: &Tx, t: &TournamentRow, user: &UserId) -> Outcome<u32> {
    let mut players = tx.entrants(t.id)?;
    for p in players.iter_mut().filter(|p| p.user_id == user) {
        p.rating = tx
            .rating(&t.server_id, t.variant.id(), &p.user_id)?
            .map_or(UNRATED, |r| r.rating.round() as i32);
    }
    players.sort_by_key(|p| (-p.rating, p.signup));
    let mut seed = 0;
    for (i, p) in players.iter().enumerate() {
        tx.seed_entrant(t.id, &p.user_id, p.rating, i as u32 + 1)?;
        if p.user_id == user {
            seed = i as u32 + 1;
        }
    }
    Ok(seed)
}

/// The options of `/tournament create`, as its handler gets them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreateOptions {
    /// Its name.
    pub name: String,
    /// Which game.
    pub variant: Variant,
    /// How it is paired.
    pub system: TournamentSystem,
    /// Kingdoms (default) or knots.
    pub scoring: Option<Scoring>,
    /// A Swiss's rounds (default: from the number of players).
    pub rounds: Option<u32>,
    /// Days per move (default: the server's setting).
    pub days: Option<TimeControl>,
    /// Each pairing a two-game match.
    pub is_match: bool,
    /// Whether its games are rated (default: yes).
    pub rated: Option<bool>,
    /// At most this many players.
    pub max_players: Option<u32>,
    /// A round robin's pace: every game at once, or round by round.
    pub pace: Option<Pace>,
    /// A round robin played twice.
    pub double: bool,
}

/// `/tournament create`.
pub(crate) fn tournament_create(bot: &Bot, ctx: &Ctx, options: CreateOptions) -> Outcome<Vec<Out>> {
    let CreateOptions {
        name,
        variant,
        system,
        scoring,
        rounds,
        days,
        is_match,
        rated,
        max_players,
        pace,
        double,
    } = options;
    let name = event_name(&name, "tournament")?;
    let format = match system {
        TournamentSystem::Swiss => TournamentFormat::Swiss,
        TournamentSystem::RoundRobin => TournamentFormat::RoundRobin,
        TournamentSystem::Knockout => TournamentFormat::Knockout,
    };
    if format != TournamentFormat::RoundRobin && (pace.is_some() || double) {
        return Err(Fail::User(format!(
            "`pace` and `double` are for round robins; a {} plays each round when the \
             previous one has ended.",
            format_name(format)
        )));
    }
    match (format, rounds) {
        (TournamentFormat::RoundRobin, Some(_)) => {
            return Err(Fail::User(
                "`rounds` is for Swiss tournaments: a round robin plays every pairing of its \
                 table (n − 1 rounds for n players, n when n is odd; twice that with \
                 `double`)."
                    .into(),
            ))
        }
        (TournamentFormat::Knockout, Some(_)) => {
            return Err(Fail::User(
                "`rounds` is for Swiss tournaments: a knockout plays until one player is \
                 left (⌈log2 n⌉ rounds for n players)."
                    .into(),
            ))
        }
        (_, Some(r)) if !(1..=MAX_SWISS_ROUNDS).contains(&r) => {
            return Err(Fail::User(format!(
                "A Swiss has 1 to {MAX_SWISS_ROUNDS} rounds."
            )))
        }
        _ => {}
    }
    let cap = player_cap(format);
    if let Some(n) = max_players.filter(|&n| n > cap) {
        return Err(Fail::User(format!(
            "A {} takes at most {cap} players, so `max-players` can be at most {cap} (not \
             {n}); leave it out for {cap}.",
            format_name(format)
        )));
    }
    let scoring = event_scoring(variant, scoring)?;
    // docs/rules.md §10 (knockout): every knockout tie is a two-game match.
    let is_match = is_match || format == TournamentFormat::Knockout;
    let pace = pace.unwrap_or(Pace::AllAtOnce);
    let rated = rated.unwrap_or(true);
    bot.write(ctx, |tx, now| {
        let days = creating(tx, ctx, "tournaments", days, now)?;
        let id = tx.insert_tournament(
            &NewTournament {
                server_id: &ctx.server,
                channel_id: &ctx.channel,
                creator_id: &ctx.user.id,
                name: &name,
                format,
                variant,
                scoring,
                days_per_move: days.days(),
                rated,
                is_match,
                double_rr: double,
                max_players,
                pace,
                rounds,
            },
            now,
        )?;
        let t = read_tournament(tx, id)?;
        let mut b = Builder::new().text(format!(
            "**Tournament #{id}: {}** · {}",
            escape_markdown(&name),
            options_text(&t)
        ));
        b = b
            .text("\nOrganised by ")
            .user(&ctx.user.id, &ctx.user.name)
            .text(format!(
                ". Sign up with `/tournament join id:{id}`; the organiser starts it with \
                 `/tournament start id:{id}`. Each game is played in a thread of this channel."
            ));
        Ok(vec![Out::text(b.build())])
    })
}

/// `/tournament join`: signs up for an open tournament, or joins a running Swiss late
/// (docs/rules.md §10, Swiss: until round 2 is paired; the missed round scores 0 and is unplayed).
pub(crate) fn tournament_join(bot: &Bot, ctx: &Ctx, id: Option<TournamentId>) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, now| {
        // The channel's open tournament, else its running one (a late entry).
        let t = find(tx, ctx, id, &[TournamentStatus::Open])
            .or_else(|e| find(tx, ctx, id, &[TournamentStatus::Running]).map_err(|_| e))?;
        let late = match t.status {
            TournamentStatus::Open => false,
            TournamentStatus::Running => {
                late_entry_open(tx, &t)?;
                true
            }
            _ => {
                return Err(Fail::User(format!(
                    "{} is no longer taking sign-ups.",
                    title(&t)
                )))
            }
        };
        let players = tx.entrants(t.id)?;
        if players.iter().any(|p| p.user_id == ctx.user.id) {
            return Err(Fail::User(format!(
                "You are already signed up for {}.",
                title(&t)
            )));
        }
        // A round robin of 64 plays 2,016 games, all started at once by default
        // (`bench tournament`: 0.4 s in one transaction); more is not offered.
        let cap = player_cap(t.format);
        if let Some(max) = t.max_players.map_or(Some(cap), |m| Some(m.min(cap))) {
            if players.len() as u32 >= max {
                return Err(Fail::User(format!(
                    "{} is full ({max} players).",
                    title(&t)
                )));
            }
        }
        tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
        tx.insert_entrant(t.id, &ctx.user.id, now)?;
        let n = players.len() + 1;
        let mut b = Builder::new().user(&ctx.user.id, &ctx.user.name);
        if late {
            let seed = reseed_with_late_entrant(tx, &t, &ctx.user.id)?;
            b = b.text(format!(
                " joins {} late, as seed {seed} of {n}: round 1 counts as 0 points \
                 (unplayed); they are paired from round 2.",
                title(&t)
            ));
        } else {
            b = b.text(format!(
                " joined {}: {n} player{} signed up.",
                title(&t),
                if n == 1 { "" } else { "s" }
            ));
        }
        Ok(vec![Out::text(b.build())])
    })
}

/// `/tournament leave`.
pub(crate) fn tournament_leave(
    bot: &Bot,
    ctx: &Ctx,
    id: Option<TournamentId>,
) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, _now| {
        let t = find(tx, ctx, id, &[TournamentStatus::Open])?;
        if t.status != TournamentStatus::Open {
            return Err(Fail::User(format!(
                "{} has started: ask the organiser to `/tournament withdraw` you, or withdraw \
                 yourself with `/tournament withdraw`.",
                title(&t)
            )));
        }
        if !tx.delete_entrant(t.id, &ctx.user.id)? {
            return Err(Fail::User(format!(
                "You are not signed up for {}.",
                title(&t)
            )));
        }
        let reply = Builder::new()
            .user(&ctx.user.id, &ctx.user.name)
            .text(format!(" left {}.", title(&t)))
            .build();
        Ok(vec![Out::text(reply)])
    })
}

/// `/tournament cancel`.
pub(crate) fn tournament_cancel(
    bot: &Bot,
    ctx: &Ctx,
    id: Option<TournamentId>,
) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, now| {
        let t = find(
            tx,
            ctx,
            id,
            &[TournamentStatus::Open, TournamentStatus::Running],
        )?;
        organiser_only(ctx, &t.creator_id, &title(&t), "call it off")?;
        if matches!(
            t.status,
            TournamentStatus::Finished | TournamentStatus::Cancelled
        ) {
            return Err(Fail::User(format!("{} is already over.", title(&t))));
        }
        tx.set_tournament_status(t.id, TournamentStatus::Cancelled, now)?;
        // Its games in progress end without a result.
        let mut aborted = 0;
        let s = bot.session(tx, now);
        for p in tx.pairings(t.id, None)? {
            for g in tx.pairing_games(p.id)? {
                if g.status == GameStatus::Active {
                    // Nothing is announced per game: the message below says it.
                    let l = load_game(tx, g)?;
                    lifecycle::aborted(&s, &l, EndCause::TournamentCancelled, Builder::new())?;
                    aborted += 1;
                }
            }
            if let Some(m) = p.match_id {
                tx.finish_match(m, now)?;
            }
        }
        let mut b = Builder::new()
            .text(format!("{} is called off by ", title(&t)))
            .user(&ctx.user.id, &ctx.user.name)
            .text(".");
        if aborted > 0 {
            b = b.text(format!(
                " Its {} in progress end{} without a result.",
                crate::bot::time::plural(aborted, "game"),
                if aborted == 1 { "s" } else { "" }
            ));
        }
        let detail = format!(
            "called off; {} in progress ended without a result",
            crate::bot::time::plural(aborted, "game")
        );
        announce_action(tx, ctx, &t, b, ("tournament-cancel", &detail), now)
    })
}

/// `/tournament start`: seeds by rating, stores the pairings, opens the first games.
pub(crate) fn tournament_start(
    bot: &Bot,
    ctx: &Ctx,
    id: Option<TournamentId>,
) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, now| {
        let t = find(tx, ctx, id, &[TournamentStatus::Open])?;
        organiser_only(ctx, &t.creator_id, &title(&t), "start it")?;
        if t.status != TournamentStatus::Open {
            return Err(Fail::User(format!("{} has already started.", title(&t))));
        }
        let players = tx.entrants(t.id)?;
        if players.len() < 2 {
            return Err(Fail::User(format!(
                "{} needs at least two players to start; {} signed up.",
                title(&t),
                players.len()
            )));
        }
        let (players, total, cut) = seed_and_pair(tx, &t, now)?;
        let n = players.len() as u32;
        let mut b = Builder::new().text(format!(
            "{} starts: {n} players, {total} round{}. Seeds: ",
            title(&t),
            if total == 1 { "" } else { "s" }
        ));
        for (i, p) in players.iter().enumerate() {
            if i > 0 {
                b = b.text(", ");
            }
            b = b
                .text(format!("{}. ", i + 1))
                .user(&p.user_id, &tx.name_or_id(&p.user_id)?)
                .text(format!(" ({})", p.rating));
        }
        b = b.text(".");
        if let Some(asked) = cut {
            b = b.text(format!(
                " ({asked} rounds were asked for, but {n} players can meet each other in at \
                 most {total}.)"
            ));
        }
        let detail = format!("started with {n} players");
        let mut outs = announce_action(tx, ctx, &t, b, ("tournament-start", &detail), now)?;
        outs.extend(advance(&bot.session(tx, now), t.id)?);
        Ok(outs)
    })
}

/// Seeds a tournament's players by rating (docs/rules.md §10, round robin and knockout:
/// highest first, unrated as 1500, then the earlier sign-up), stores its first pairings (a
/// round robin's whole Berger table, a knockout's first round; a Swiss is paired by
/// `advance`) and marks it running. The players in seed order, the number of rounds, and a
/// Swiss's rounds asked for when more than its players allow.
fn seed_and_pair(
    tx: &Tx,
    t: &TournamentRow,
    now: i64,
) -> Outcome<(Vec<crate::store::EntrantRow>, u32, Option<u32>)> {
    let mut players = tx.entrants(t.id)?;
    // docs/rules.md §10 (round robin, knockout): seeds by rating (highest first), then the earlier sign-up.
    for p in &mut players {
        p.rating = tx
            .rating(&t.server_id, t.variant.id(), &p.user_id)?
            .map_or(UNRATED, |r| r.rating.round() as i32);
    }
    players.sort_by_key(|p| (-p.rating, p.signup));
    for (i, p) in players.iter().enumerate() {
        tx.seed_entrant(t.id, &p.user_id, p.rating, i as u32 + 1)?;
    }
    let user = |seed: u32| &players[seed as usize - 1].user_id;
    let n = players.len() as u32;
    let mut cut = None;
    let total = match t.format {
        TournamentFormat::RoundRobin => {
            let table = if t.double_rr {
                double_round_robin(n)
            } else {
                single_round_robin(n)
            };
            for (r, round) in table.iter().enumerate() {
                for (b, tp) in round.iter().enumerate() {
                    let (p0, p1) = match *tp {
                        TablePairing::Game { first, second } => (user(first), Some(user(second))),
                        TablePairing::Bye { player } => (user(player), None),
                    };
                    insert_pairing(tx, t, r as u32 + 1, b as u32 + 1, p0, p1, now)?;
                }
            }
            table.len() as u32
        }
        TournamentFormat::Knockout => {
            let bracket = Bracket::new(n)
                .ok_or_else(|| Fail::User("A knockout needs two players.".into()))?;
            for (b, tie) in bracket.first_round().iter().enumerate() {
                let (p0, p1) = match *tie {
                    Tie::Match { high, low } => (user(high), Some(user(low))),
                    Tie::Bye { seed } => (user(seed), None),
                };
                insert_pairing(tx, t, 1, b as u32 + 1, p0, p1, now)?;
            }
            bracket.rounds()
        }
        // docs/rules.md §10 (Swiss): the rounds chosen at creation, else ⌈log2 n⌉ + 1; at most
        // n − 1 (with fewer players no pairing avoids rematches). Each round is
        // paired by `advance` when the previous one has ended.
        TournamentFormat::Swiss => {
            let most = n - 1;
            let asked = t.total_rounds.unwrap_or_else(|| default_swiss_rounds(n));
            if asked > most {
                cut = Some(asked);
            }
            asked.min(most)
        }
    };
    tx.start_tournament(t.id, total, now)?;
    Ok((players, total, cut))
}

/// Starts a league division's tournament (open, its players entered): seeded, its whole
/// table stored, every game started at once in its thread (docs/rules.md §11.2).
pub(crate) fn start_division(s: &Session, id: TournamentId, shared: bool) -> Outcome<Vec<Out>> {
    let t = read_tournament(s.tx, id)?;
    seed_and_pair(s.tx, &t, s.now)?;
    if shared {
        // Every game of the division in one thread (docs/operating.md, "Discord's limits").
        let key = super::model::shared_thread_key(t.id, None);
        for p in s.tx.pairings(t.id, None)? {
            s.tx.set_pairing_thread_key(p.id, &key)?;
        }
    }
    advance(s, t.id)
}

/// `/tournament withdraw [player]`: the organiser withdraws anyone, a player themselves.
pub(crate) fn tournament_withdraw(
    bot: &Bot,
    ctx: &Ctx,
    player: Option<User>,
    id: Option<TournamentId>,
) -> Outcome<Vec<Out>> {
    let who = player.unwrap_or_else(|| ctx.user.clone());
    bot.write(ctx, |tx, now| {
        // A running tournament; else one before its start, to say what to do instead
        // (`/tournament leave`).
        let t = match find(tx, ctx, id, &[TournamentStatus::Running]) {
            Ok(t) => t,
            Err(e) => find(tx, ctx, id, &[TournamentStatus::Open]).map_err(|_| e)?,
        };
        if who.id != ctx.user.id {
            organiser_only(ctx, &t.creator_id, &title(&t), "withdraw another player")?;
        }
        if t.status != TournamentStatus::Running {
            return Err(Fail::User(format!(
                "{} is not running: before the start a player uses `/tournament leave`.",
                title(&t)
            )));
        }
        let entrant = tx
            .entrants(t.id)?
            .into_iter()
            .find(|p| p.user_id == who.id)
            .ok_or_else(|| {
                Fail::User(format!(
                    "{} is not playing in {}.",
                    escape_markdown(&who.name),
                    title(&t)
                ))
            })?;
        if entrant.withdrawn_at.is_some() {
            return Err(Fail::User(format!(
                "{} is already withdrawn from {}.",
                escape_markdown(&who.name),
                title(&t)
            )));
        }
        let by = if who.id == ctx.user.id {
            "at their own request".to_string()
        } else {
            format!("by {}", escape_markdown(&ctx.user.name))
        };
        let mut outs = withdraw(&bot.session(tx, now), &t, &who.id, &by)?;
        if who.id != ctx.user.id {
            outs.extend(audit_if_moderator(
                tx,
                ctx,
                &t,
                "tournament-withdraw",
                &format!("withdrew {}", escape_markdown(&who.name)),
                now,
            )?);
        }
        outs.extend(advance(&bot.session(tx, now), t.id)?);
        Ok(outs)
    })
}

#[cfg(test)]
mod tests {
    use super::default_swiss_rounds;

    #[test]
    fn the_default_swiss_rounds_follow_part_f3() {
        // ⌈log2 n⌉ + 1, at most n − 1.
        for (n, r) in [
            (2, 1),
            (3, 2),
            (4, 3),
            (5, 4),
            (8, 4),
            (9, 5),
            (16, 5),
            (17, 6),
            (100, 8),
        ] {
            assert_eq!(default_swiss_rounds(n), r, "{n} players");
        }
    }
}
