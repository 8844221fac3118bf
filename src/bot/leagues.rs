//! Leagues (docs/rules.md §11.2, after Little Golem's championship): players join at any time
//! and enter the next season; a season is a set of divisions (1, 2a, 2b, …), each a round
//! robin played all at once on the tournament machinery; the next season starts by itself
//! `gap_days` after the last game of a season ends, with the top of each division promoted
//! and the bottom relegated (`tournament::league` is the rule). `/league create|join|leave|
//! start|settings|standings|history`, the tick that ends and starts seasons, and the
//! `GameEnded` subscriber that ends a season the moment its last game ends.

use super::reply::{code_block, escape_markdown, Attachment, Ctx, Reply, WebPage};
use super::session::{Announcement, Bot, Fail, FollowUp, GameEnded, Out, Outcome, Session};
use super::text::Builder;
use super::time::{date_text, plural, TimeControl, DAY};
use super::tournaments::{
    creating, division_standings, event_name, event_scoring, organiser_only, start_division,
    THREADS_AT_ONCE,
};
use crate::game::{Scoring, Variant};
use crate::render::LevelMove;
use crate::store::{
    LeagueDivisionRow, LeagueId, LeagueMove, LeagueResultRow, LeagueRow, LeagueStatus, NewLeague,
    NewTournament, Pace, TournamentFormat, TournamentStatus, Tx, UserId,
};
use crate::tournament::league::{division_name, movements, place, Movement, Placed, Target};
use std::collections::HashMap;

/// The rating of a player without one (Glicko-2's start).
const UNRATED: i32 = 1500;
/// Division sizes a league may have.
const SIZES: std::ops::RangeInclusive<u32> = 3..=20;

/// A league's title in messages: "**Name** (league #3)".
fn title(l: &LeagueRow) -> String {
    crate::bot::text::event_title(&l.name, "league #", l.id)
}

/// The league a command names (`id`), or the channel's only one, or the server's only one;
/// with several to choose from, a refusal that lists them.
fn find(tx: &Tx, ctx: &Ctx, id: Option<LeagueId>) -> Outcome<LeagueRow> {
    if let Some(id) = id {
        return tx
            .league(id)?
            .filter(|l| l.server_id == ctx.server)
            .ok_or_else(|| Fail::User(format!("There is no league #{id} on this server.")));
    }
    let leagues: Vec<LeagueRow> = tx
        .server_leagues(&ctx.server)?
        .into_iter()
        .filter(|l| l.status != LeagueStatus::Closed)
        .collect();
    let here: Vec<&LeagueRow> = leagues
        .iter()
        .filter(|l| l.channel_id == ctx.channel)
        .collect();
    let (choices, place) = match here.as_slice() {
        [l] => return Ok((*l).clone()),
        [] => (leagues.iter().collect::<Vec<_>>(), "server"),
        _ => (here, "channel"),
    };
    match choices.as_slice() {
        [l] => Ok((*l).clone()),
        [] => Err(Fail::User(
            "This server has no league: a moderator creates one with `/league create`.".into(),
        )),
        many => Err(Fail::User(format!(
            "This {place} has several leagues; give the number: {}.",
            many.iter()
                .map(|l| format!("`id:{}` {}", l.id, escape_markdown(&l.name)))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The options of `/league create`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeagueOptions {
    pub name: String,
    pub variant: Variant,
    pub scoring: Option<Scoring>,
    pub division_size: Option<u32>,
    pub promote: Option<u32>,
    pub relegate: Option<u32>,
    pub days: Option<TimeControl>,
    pub is_match: Option<bool>,
    pub rated: Option<bool>,
    pub gap_days: Option<u32>,
}

/// Refuses promotion and relegation under which a division cannot keep anyone, or nobody ever
/// moves: at least one promoted and one relegated, and, in a division between two others, at
/// least one who stays (docs/rules.md §11.2).
fn league_moves_fit(size: u32, promote: u32, relegate: u32) -> Outcome<()> {
    if promote == 0 || relegate == 0 {
        return Err(Fail::User(format!(
            "`promote` and `relegate` are each at least 1: a league moves at least one player \
             up and one down from each division (here {promote} up, {relegate} down)."
        )));
    }
    if promote + relegate >= size {
        return Err(Fail::User(format!(
            "In divisions of {size}, `promote` and `relegate` together are at most {}, so that \
             a division between two others keeps someone: {promote} up and {relegate} down \
             would move all {size}. Promote or relegate fewer, or make divisions larger \
             (`division-size`, up to {}).",
            size - 1,
            SIZES.end()
        )));
    }
    Ok(())
}

/// `/league create`: moderators (or the tournament role) create a league in this channel.
pub(crate) fn create(bot: &Bot, ctx: &Ctx, o: LeagueOptions) -> Outcome<Vec<Out>> {
    let name = event_name(&o.name, "league")?;
    let size = o.division_size.unwrap_or(10);
    if !SIZES.contains(&size) {
        return Err(Fail::User(format!(
            "`division-size` is from {} to {} players.",
            SIZES.start(),
            SIZES.end()
        )));
    }
    // The defaults, 2 promoted and 3 relegated, fit small divisions by themselves: at least
    // one each way, and one who stays.
    let promote = o.promote.unwrap_or(2.min((size - 1) / 2).max(1));
    let relegate = o
        .relegate
        .unwrap_or(3.min(size.saturating_sub(1 + promote)).max(1));
    league_moves_fit(size, promote, relegate)?;
    let scoring = event_scoring(o.variant, o.scoring)?;
    let is_match = o.is_match.unwrap_or(true);
    let rated = o.rated.unwrap_or(true);
    let gap = o.gap_days.unwrap_or(7);
    bot.write(ctx, |tx, now| {
        let days = creating(tx, ctx, "leagues", o.days, now)?;
        let id = tx.insert_league(
            &NewLeague {
                server_id: &ctx.server,
                channel_id: &ctx.channel,
                creator_id: &ctx.user.id,
                name: &name,
                variant: o.variant,
                scoring,
                days_per_move: days.days(),
                rated,
                is_match,
                division_size: size,
                promote,
                relegate,
                gap_days: gap,
            },
            now,
        )?;
        let b = Builder::new()
            .text(format!(
                "**League #{id}: {}** · {} · divisions of {size} · {promote} promoted, {relegate} \
                 relegated · {} · {days} · {} · next season {} after the last game\nOrganised by ",
                escape_markdown(&name),
                o.variant.name(),
                if is_match {
                    "two-game matches"
                } else {
                    "single games"
                },
                if rated { "rated" } else { "casual" },
                plural(i64::from(gap), "day")
            ))
            .user(&ctx.user.id, &ctx.user.name)
            .text(format!(
                ". Join with `/league join id:{id}`; the organiser starts season 1 with \
                 `/league start id:{id}`. Later seasons start by themselves."
            ));
        Ok(vec![Out::text(b.build())])
    })
}

/// `/league join`: the caller enters the next season (or takes back their leave).
pub(crate) fn join(bot: &Bot, ctx: &Ctx, id: Option<LeagueId>) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, now| {
        let l = find(tx, ctx, id)?;
        let me = tx
            .league_players(l.id)?
            .into_iter()
            .find(|p| p.user_id == ctx.user.id);
        if l.closing {
            return Err(Fail::User(format!(
                "{} closes when season {} ends: no season starts after it to join.",
                title(&l),
                l.season
            )));
        }
        let text = match me {
            Some(p) if p.left_at.is_none() && !p.leaving => {
                return Err(Fail::User(format!("You are already in {}.", title(&l))))
            }
            Some(p) if p.left_at.is_none() => {
                " takes back their leave: they stay in the league.".to_string()
            }
            _ if l.season == 0 => " joins: they play from season 1.".to_string(),
            _ => format!(
                " joins: they enter season {} in the lowest level.",
                l.season + 1
            ),
        };
        tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
        tx.join_league(l.id, &ctx.user.id, now)?;
        let reply = Builder::new()
            .text(format!("{}: ", title(&l)))
            .user(&ctx.user.id, &ctx.user.name)
            .text(text)
            .build();
        Ok(vec![Out::text(reply)])
    })
}

/// Whether `user` plays in the league's season in progress.
fn in_season(tx: &Tx, l: &LeagueRow, user: &UserId) -> Outcome<bool> {
    if l.status != LeagueStatus::Running || l.next_season_at.is_some() {
        return Ok(false);
    }
    for d in tx.league_divisions(l.id, Some(l.season))? {
        if tx
            .entrants(d.tournament_id)?
            .iter()
            .any(|e| e.user_id == user)
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `/league leave`: at the end of the season in progress (its games are played out), or at
/// once between seasons.
pub(crate) fn leave(bot: &Bot, ctx: &Ctx, id: Option<LeagueId>) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, now| {
        let l = find(tx, ctx, id)?;
        let Some(p) = tx
            .league_players(l.id)?
            .into_iter()
            .find(|p| p.user_id == ctx.user.id && p.left_at.is_none())
        else {
            return Err(Fail::User(format!("You are not in {}.", title(&l))));
        };
        if p.leaving {
            return Err(Fail::User(format!(
                "You already leave {} at the end of this season.",
                title(&l)
            )));
        }
        let text = if in_season(tx, &l, &ctx.user.id)? {
            tx.set_league_leaving(l.id, &ctx.user.id)?;
            format!(
                " leaves at the end of season {}: their games in progress are played out \
                 (`/league join` takes it back).",
                l.season
            )
        } else {
            tx.set_league_left(l.id, &ctx.user.id, now)?;
            " leaves the league.".to_string()
        };
        let reply = Builder::new()
            .text(format!("{}: ", title(&l)))
            .user(&ctx.user.id, &ctx.user.name)
            .text(text)
            .build();
        Ok(vec![Out::text(reply)])
    })
}

/// `/league settings gap-days`: the organiser sets the days between seasons.
pub(crate) fn settings(
    bot: &Bot,
    ctx: &Ctx,
    gap_days: Option<u32>,
    id: Option<LeagueId>,
) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, now| {
        let l = find(tx, ctx, id)?;
        let Some(gap) = gap_days else {
            return Ok(vec![Out::text(Reply::private(format!(
                "{}: the next season starts {} after the last game of a season ends \
                 (`/league settings gap-days:N` changes it).",
                title(&l),
                plural(i64::from(l.gap_days), "day")
            )))]);
        };
        organiser_only(ctx, &l.creator_id, &title(&l), "change its settings")?;
        tx.set_league_gap(l.id, gap, now)?;
        let reply = Builder::new()
            .text(format!(
                "{}: each next season now starts {} after the last game of the season before.",
                title(&l),
                plural(i64::from(gap), "day")
            ))
            .build();
        Ok(vec![Out::text(reply)])
    })
}

/// `/league start`: the organiser starts season 1 (or a league waiting for players).
pub(crate) fn start(bot: &Bot, ctx: &Ctx, id: Option<LeagueId>) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, now| {
        let l = find(tx, ctx, id)?;
        organiser_only(ctx, &l.creator_id, &title(&l), "start it")?;
        if l.status != LeagueStatus::Open {
            return Err(Fail::User(format!(
                "{} is running: each next season starts by itself {} after the last game of \
                 the season before.",
                title(&l),
                plural(i64::from(l.gap_days), "day")
            )));
        }
        let n = active_players(tx, &l)?.len();
        if n < 2 {
            return Err(Fail::User(format!(
                "{} needs at least two players to start; {n} joined.",
                title(&l)
            )));
        }
        start_season(&bot.session(tx, now), &l)
    })
}

/// `/league close`: the organiser closes a league between seasons (a season in progress is
/// played out first); no season starts any more, and its history stays.
pub(crate) fn close(bot: &Bot, ctx: &Ctx, id: Option<LeagueId>) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, now| {
        let l = find(tx, ctx, id)?;
        organiser_only(ctx, &l.creator_id, &title(&l), "close it")?;
        if l.status == LeagueStatus::Running && l.next_season_at.is_none() {
            // docs/rules.md §11.2: a season in progress is played out first.
            if l.closing {
                return Err(Fail::User(format!(
                    "{} already closes when season {} ends.",
                    title(&l),
                    l.season
                )));
            }
            tx.set_league_closing(l.id, now)?;
            let reply = Builder::new()
                .text(format!("{} closes, by ", title(&l)))
                .user(&ctx.user.id, &ctx.user.name)
                .text(format!(
                    ": season {} is played out, and no season starts after it; \
                     `/league history` keeps its seasons.",
                    l.season
                ))
                .build();
            return Ok(vec![Out::text(reply)]);
        }
        tx.close_league(l.id, now)?;
        let reply = Builder::new()
            .text(format!("{} is closed by ", title(&l)))
            .user(&ctx.user.id, &ctx.user.name)
            .text(": no season starts any more; `/league history` keeps its seasons.")
            .build();
        Ok(vec![Out::text(reply)])
    })
}

/// The players in the league now (not left), in the order they joined.
fn active_players(tx: &Tx, l: &LeagueRow) -> Outcome<Vec<crate::store::LeaguePlayerRow>> {
    Ok(tx
        .league_players(l.id)?
        .into_iter()
        .filter(|p| p.left_at.is_none())
        .collect())
}

/// Starts the league's next season (docs/rules.md §11.2): every player placed by
/// `tournament::league::place`, each division a round robin started all at once. Once only:
/// a second call for the same season does nothing.
fn start_season(s: &Session, l: &LeagueRow) -> Outcome<Vec<Out>> {
    let (tx, now) = (s.tx, s.now);
    let season = l.season + 1;
    let players = active_players(tx, l)?;
    // Where last season took each player.
    let levels: HashMap<String, u32> = tx
        .league_divisions(l.id, Some(l.season))?
        .into_iter()
        .map(|d| (d.division, d.level))
        .collect();
    let last: HashMap<UserId, (u32, LeagueMove)> = tx
        .league_results(l.id)?
        .into_iter()
        .filter(|r| r.season == l.season)
        .filter_map(|r| {
            levels
                .get(&r.division)
                .map(|&lv| (r.user_id, (lv, r.movement)))
        })
        .collect();
    let mut placed = Vec::with_capacity(players.len());
    for (i, p) in players.iter().enumerate() {
        let target = match last.get(&p.user_id) {
            Some(&(level, LeagueMove::Up)) => Movement::Up.target(level),
            Some(&(level, LeagueMove::Down)) => Movement::Down.target(level),
            Some(&(level, LeagueMove::Stay)) => Movement::Stay.target(level),
            _ => Target::New,
        };
        let rating = tx
            .rating(&l.server_id, l.variant.id(), &p.user_id)?
            .map_or(UNRATED, |r| r.rating.round() as i32);
        placed.push(Placed {
            key: p.user_id.clone(),
            target,
            rating,
            order: i as u64,
        });
    }
    if !tx.begin_season(l.id, season, now)? {
        return Ok(Vec::new());
    }
    let levels = place(&placed, l.division_size as usize);
    // One thread a game, unless that would open more threads at once than Discord allows a
    // bot in about a minute: then one thread a division (docs/operating.md).
    let pairings: usize = levels
        .iter()
        .flatten()
        .map(|d| d.len() * d.len().saturating_sub(1) / 2)
        .sum();
    let shared = pairings > THREADS_AT_ONCE;
    let mut b = Builder::new().text(format!(
        "{} · **season {season}** starts: {}, {}, every game at once {}.",
        title(l),
        plural(players.len() as i64, "player"),
        plural(
            levels.iter().map(Vec::len).sum::<usize>() as i64,
            "division"
        ),
        if shared {
            "in its division's thread"
        } else {
            "in its thread"
        }
    ));
    let mut games = Vec::new();
    for (li, divisions) in levels.iter().enumerate() {
        for (di, members) in divisions.iter().enumerate() {
            let level = li as u32 + 1;
            let name = division_name(level, di);
            let t_name = format!("{} · season {season} · division {name}", l.name);
            let tid = tx.insert_tournament(
                &NewTournament {
                    server_id: &l.server_id,
                    channel_id: &l.channel_id,
                    creator_id: &l.creator_id,
                    name: &t_name,
                    format: TournamentFormat::RoundRobin,
                    variant: l.variant,
                    scoring: l.scoring,
                    days_per_move: l.days_per_move,
                    rated: l.rated,
                    is_match: l.is_match,
                    double_rr: false,
                    max_players: None,
                    pace: Pace::AllAtOnce,
                    rounds: None,
                },
                now,
            )?;
            b = b.text(format!("\nDivision {name}: "));
            for (k, u) in members.iter().enumerate() {
                tx.insert_entrant(tid, u, now)?;
                b = b
                    .text(if k > 0 { ", " } else { "" })
                    .user(u, &tx.name_or_id(u)?);
            }
            // Withdrawn after forfeiting more than half of their games.
            let pairings = members.len().saturating_sub(1) as u32;
            tx.set_forfeit_limit(tid, pairings / 2 + 1)?;
            tx.insert_league_division(&LeagueDivisionRow {
                league_id: l.id,
                season,
                division: name,
                level,
                tournament_id: tid,
            })?;
            games.extend(start_division(s, tid, shared)?);
        }
    }
    b = b.text("\n`/league standings` shows your division.");
    let mut reply = b.on_the_web(&l.server_id, WebPage::League(l.id)).build();
    reply.channel = Some(l.channel_id.clone());
    let mut outs = vec![Out::text(reply)];
    outs.extend(games);
    Ok(outs)
}

/// A division's standings as the league reads them (docs/rules.md §11.2): the lines best
/// first, the picture's data, the table as text, and where each line goes at the season's
/// end: `None` for a player who leaves or was withdrawn (they take no place), else the
/// movement of their place among those who stay.
type Places = (
    Vec<super::tournaments::StandingLine>,
    crate::render::StandingsCard,
    String,
    Vec<Option<Movement>>,
);

/// Names made safe for Markdown, joined by `sep`.
fn escaped(names: &[String], sep: &str) -> String {
    names
        .iter()
        .map(|n| escape_markdown(n))
        .collect::<Vec<_>>()
        .join(sep)
}

/// The players of a division's standings level on every tiebreak, group by group (each
/// group in the order their seeds place them).
fn level_groups(lines: &[super::tournaments::StandingLine]) -> Vec<Vec<String>> {
    lines
        .chunk_by(|a, b| a.rank == b.rank)
        .filter(|g| g.len() > 1)
        .map(|g| g.iter().map(|l| l.player.clone()).collect())
        .collect()
}

fn division_places(tx: &Tx, l: &LeagueRow, d: &LeagueDivisionRow) -> Outcome<Places> {
    let (lines, withdrawn, card, table) = division_standings(tx, d.tournament_id)?;
    let members: HashMap<UserId, crate::store::LeaguePlayerRow> = tx
        .league_players(l.id)?
        .into_iter()
        .map(|p| (p.user_id.clone(), p))
        .collect();
    let gone: Vec<bool> = lines
        .iter()
        .zip(&withdrawn)
        .map(|(line, &w)| {
            w || members
                .get(&line.id)
                .is_none_or(|p| p.leaving || p.left_at.is_some())
        })
        .collect();
    let staying = gone.iter().filter(|g| !**g).count();
    let mut moves =
        movements(d.level, staying, l.promote as usize, l.relegate as usize).into_iter();
    let places = gone
        .iter()
        .map(|&g| if g { None } else { moves.next() })
        .collect();
    Ok((lines, card, table, places))
}

/// Ends the league's season if every division's tournament is over (docs/rules.md §11.2):
/// each player's place and movement stored, those leaving or withdrawn gone, the next season
/// set for `gap_days` after the last game ended. Once only.
fn end_season_if_over(s: &Session, l: &LeagueRow) -> Outcome<Vec<Out>> {
    let (tx, now) = (s.tx, s.now);
    if l.status != LeagueStatus::Running || l.season == 0 || l.next_season_at.is_some() {
        return Ok(Vec::new());
    }
    let divisions = tx.league_divisions(l.id, Some(l.season))?;
    let mut last_end = 0;
    for d in &divisions {
        let Some(t) = tx.tournament(d.tournament_id)? else {
            continue;
        };
        if !matches!(
            t.status,
            TournamentStatus::Finished | TournamentStatus::Cancelled
        ) {
            return Ok(Vec::new());
        }
        last_end = last_end.max(t.updated_at);
    }
    let next = last_end.max(0) + i64::from(l.gap_days) * DAY;
    if !tx.end_season(l.id, l.season, next, now)? {
        return Ok(Vec::new());
    }
    let mut champion = None;
    let (mut up, mut down, mut out) = (Vec::new(), Vec::new(), Vec::new());
    for d in &divisions {
        let (lines, _, _, places) = division_places(tx, l, d)?;
        for (k, line) in lines.iter().enumerate() {
            let movement = match places[k] {
                None => {
                    tx.set_league_left(l.id, &line.id, now)?;
                    out.push(line.player.clone());
                    LeagueMove::Out
                }
                Some(Movement::Up) => {
                    up.push(format!(
                        "{} ({} → {})",
                        line.player,
                        d.division,
                        division_above(d.level)
                    ));
                    LeagueMove::Up
                }
                Some(Movement::Down) => {
                    down.push(format!("{} ({})", line.player, d.division));
                    LeagueMove::Down
                }
                Some(Movement::Stay) => LeagueMove::Stay,
            };
            if d.level == 1 && k == 0 {
                let level: Vec<String> = lines
                    .iter()
                    .skip(1)
                    .take_while(|o| o.rank == line.rank)
                    .map(|o| o.player.clone())
                    .collect();
                champion = Some((line.id.clone(), line.player.clone(), level));
            }
            tx.insert_league_result(&LeagueResultRow {
                league_id: l.id,
                season: l.season,
                user_id: line.id.clone(),
                division: d.division.clone(),
                place: k as u32 + 1,
                movement,
            })?;
        }
    }
    let mut b = Builder::new().text(format!("🏆 {} · season {} is over.", title(l), l.season));
    if let Some((id, name, level)) = &champion {
        b = b.text(" Champion: ").user(id, name);
        if !level.is_empty() {
            b = b.text(format!(
                " (level with {} on every tiebreak: the higher seed takes the title)",
                escaped(level, ", ")
            ));
        }
        b = b.text(".");
    }
    let list = |v: &[String]| escaped(v, ", ");
    if !up.is_empty() {
        b = b.text(format!("\nPromoted: {}.", list(&up)));
    }
    if !down.is_empty() {
        b = b.text(format!("\nRelegated: {}.", list(&down)));
    }
    if !out.is_empty() {
        b = b.text(format!("\nLeaving the league: {}.", list(&out)));
    }
    if l.closing {
        // Closed by its organiser during the season: none starts after it.
        tx.close_league(l.id, now)?;
        b = b.text(
            "\nThe league is closed now, as its organiser asked: no season starts after this \
             one; `/league history` keeps its seasons.",
        );
    } else {
        b = b.text(format!(
            "\nSeason {} starts on {}; new players join it with `/league join`.",
            l.season + 1,
            date_text(next)
        ));
    }
    let mut reply = b.on_the_web(&l.server_id, WebPage::League(l.id)).build();
    reply.channel = Some(l.channel_id.clone());
    Ok(vec![Out::text(reply)])
}

/// "1" for level 2's promoted, "3" for level 4's: the level above, as divisions are named.
fn division_above(level: u32) -> String {
    match level {
        0..=2 => "1".into(),
        l => format!("level {}", l - 1),
    }
}

/// From the tick: ends the seasons whose last game has ended, and starts those due, each
/// league in its own transaction. A league without two players when its season is due waits
/// for `/league start`.
pub(crate) fn settle(bot: &Bot, now: i64) -> Vec<Reply> {
    let due = match bot.read(|tx| Ok(tx.leagues_to_settle(now)?)) {
        Ok(d) => d,
        Err(e) => {
            tracing::error!(error = ?e, "reading leagues failed");
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for l in due {
        let r = bot.write_owed(None, now, |tx, now| {
            let Some(l) = tx.league(l.id)? else {
                return Ok(Vec::new());
            };
            let s = bot.session(tx, now);
            match l.next_season_at {
                None => end_season_if_over(&s, &l),
                Some(at) if at <= now && l.status == LeagueStatus::Running => {
                    if active_players(tx, &l)?.len() < 2 {
                        tx.pause_league(l.id, now)?;
                        let mut reply = Builder::new()
                            .text(format!(
                                "{}: season {} is due, but fewer than two players are in the \
                                 league. It waits: once players have joined, the organiser \
                                 starts it with `/league start`.",
                                title(&l),
                                l.season + 1
                            ))
                            .build();
                        reply.channel = Some(l.channel_id.clone());
                        return Ok(vec![Out::text(reply)]);
                    }
                    start_season(&s, &l)
                }
                _ => Ok(Vec::new()),
            }
        });
        match r {
            Ok(replies) => out.extend(replies),
            Err(Fail::User(_)) => {}
            Err(Fail::Store(e)) => {
                tracing::error!(error = %e, league = l.id.0, "settling a league failed")
            }
        }
    }
    out
}

/// Subscriber: when a league division's game ends, whether that ended the season is looked at
/// once the game's end is handled (after the tournament has recorded the division's end, in the
/// same transaction): [`season_over`].
pub(crate) fn game_ended(s: &Session, e: &GameEnded, _: &mut Announcement) -> Outcome<()> {
    let Some(pid) = e.game.game.pairing_id else {
        return Ok(());
    };
    let Some(p) = s.tx.pairing(pid)? else {
        return Ok(());
    };
    let Some(d) = s.tx.division_of(p.tournament_id)? else {
        return Ok(());
    };
    if let Some(l) = s.tx.league(d.league_id)? {
        if l.season == d.season {
            s.follow_up(FollowUp::Call(season_over, l.id.0));
        }
    }
    Ok(())
}

/// A follow-up of a division's game end: league `id`'s season ends if that was its last game
/// ([`end_season_if_over`]).
fn season_over(s: &Session, id: i64) -> Outcome<Vec<Out>> {
    match s.tx.league(LeagueId(id))? {
        Some(l) => end_season_if_over(s, &l),
        None => Ok(Vec::new()),
    }
}

/// `/league standings [division]`: a division's standings this season, with arrows for the
/// promotion and relegation places (default: the caller's division, else division 1).
pub(crate) fn standings(
    bot: &Bot,
    ctx: &Ctx,
    division: Option<String>,
    id: Option<LeagueId>,
) -> Outcome<Vec<Out>> {
    bot.read(|tx| {
        let l = find(tx, ctx, id)?;
        if l.season == 0 {
            return Err(Fail::User(format!(
                "{} has not started yet: {} joined so far.",
                title(&l),
                plural(active_players(tx, &l)?.len() as i64, "player")
            )));
        }
        let divisions = tx.league_divisions(l.id, Some(l.season))?;
        let d = match division.as_deref().map(str::trim) {
            Some(name) => divisions
                .iter()
                .find(|d| d.division.eq_ignore_ascii_case(name))
                .ok_or_else(|| {
                    Fail::User(format!(
                        "Season {} has no division \"{}\": its divisions are {}.",
                        l.season,
                        escape_markdown(name),
                        divisions
                            .iter()
                            .map(|d| d.division.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })?,
            None => {
                let mut mine = None;
                for d in &divisions {
                    if tx
                        .entrants(d.tournament_id)?
                        .iter()
                        .any(|e| e.user_id == ctx.user.id)
                    {
                        mine = Some(d);
                    }
                }
                mine.or(divisions.first())
                    .ok_or_else(|| Fail::User(format!("{} has no divisions yet.", title(&l))))?
            }
        };
        let (lines, card, table, marks) = division_card(tx, &l, d)?;
        let mut text = String::new();
        for (line, row) in table.lines().enumerate() {
            let mark = match line.checked_sub(1).and_then(|k| marks.get(k)) {
                Some(Some(LevelMove::Up)) => "▲ ",
                Some(Some(LevelMove::Down)) => "▼ ",
                _ => "  ",
            };
            text.push_str(mark);
            text.push_str(row);
            text.push('\n');
        }
        let over = l.next_season_at.is_some();
        let mut b = Builder::new().text(format!(
            "{} · season {} · division {} (level {}){}: ▲ promotion, ▼ relegation places.\n{}",
            title(&l),
            l.season,
            d.division,
            d.level,
            if over { ", final" } else { "" },
            code_block(&text)
        ));
        for group in level_groups(&lines) {
            b = b.text(format!(
                "\nLevel on every tiebreak, so placed by seed (docs/rules.md §11.2): {}.",
                escaped(&group, " above ")
            ));
        }
        let mut reply = b.on_the_web(&l.server_id, WebPage::League(l.id)).build();
        if bot.images() {
            reply.image = Some(Attachment {
                filename: format!("league-{}-s{}-{}.png", l.id, l.season, d.division),
                bytes: crate::render::division_png(&card, &marks),
            });
        }
        Ok(vec![Out::text(reply)])
    })
}

/// A division's standings as `/league standings` shows them: the lines, the picture's data
/// (titled with the league, season and division), the text table, and each row's ▲ or ▼.
#[allow(clippy::type_complexity)]
fn division_card(
    tx: &Tx,
    l: &LeagueRow,
    d: &LeagueDivisionRow,
) -> Outcome<(
    Vec<crate::bot::StandingLine>,
    crate::render::StandingsCard,
    String,
    Vec<Option<LevelMove>>,
)> {
    let (lines, mut card, table, places) = division_places(tx, l, d)?;
    let marks: Vec<Option<LevelMove>> = places
        .iter()
        .map(|p| match p {
            Some(Movement::Up) => Some(LevelMove::Up),
            Some(Movement::Down) => Some(LevelMove::Down),
            _ => None,
        })
        .collect();
    card.title = format!("{} · season {} · division {}", l.name, d.season, d.division);
    Ok((lines, card, table, marks))
}

/// A league as the web companion shows it (`tara-bot web`): its row, one season's divisions
/// (name, level, the division's tournament, the standings as `/league standings` draws them
/// and each row's ▲ or ▼: this season's, or a past one's as it ended), and the champion of
/// each past season.
pub struct LeagueView {
    pub row: LeagueRow,
    /// The season shown (0 before the first).
    pub season: u32,
    pub divisions: Vec<DivisionView>,
    pub champions: Vec<(u32, String)>,
}

/// One division of a league's season on the web ([`LeagueView`]).
pub struct DivisionView {
    pub name: String,
    pub level: u32,
    pub tournament: crate::store::TournamentId,
    pub standings: crate::render::StandingsCard,
    pub marks: Vec<Option<LevelMove>>,
}

/// The web companion's view of league `id` (read in `tx`) in `season` (`None`: the current
/// one); `None` when there is no such league or season.
pub(crate) fn league_view(
    tx: &Tx,
    id: LeagueId,
    season: Option<u32>,
) -> Outcome<Option<LeagueView>> {
    let Some(l) = tx.league(id)? else {
        return Ok(None);
    };
    let season = season.unwrap_or(l.season);
    if season > l.season || (season == 0 && l.season > 0) {
        return Ok(None);
    }
    let mut divisions = Vec::new();
    if season > 0 {
        for d in tx.league_divisions(l.id, Some(season))? {
            let (_, standings, _, marks) = division_card(tx, &l, &d)?;
            divisions.push(DivisionView {
                name: d.division.clone(),
                level: d.level,
                tournament: d.tournament_id,
                standings,
                marks,
            });
        }
    }
    let mut champions = Vec::new();
    for r in tx.league_results(l.id)? {
        if r.division == "1" && r.place == 1 {
            champions.push((r.season, tx.name_or_id(&r.user_id)?));
        }
    }
    Ok(Some(LeagueView {
        row: l,
        season,
        divisions,
        champions,
    }))
}

/// The picture of division `division` of league `id` in `season` (`None`: the current one), as
/// `/league standings` draws it; `None` when there is no such division.
pub(crate) fn division_picture(
    tx: &Tx,
    id: LeagueId,
    division: &str,
    season: Option<u32>,
) -> Outcome<Option<Vec<u8>>> {
    let Some(l) = tx.league(id)? else {
        return Ok(None);
    };
    let season = season.unwrap_or(l.season);
    if season == 0 || season > l.season {
        return Ok(None);
    }
    for d in tx.league_divisions(l.id, Some(season))? {
        if d.division == division {
            let (_, card, _, marks) = division_card(tx, &l, &d)?;
            return Ok(Some(crate::render::division_png(&card, &marks)));
        }
    }
    Ok(None)
}

/// `/league history`: the champions of past seasons, and each player's path between
/// divisions.
pub(crate) fn history(bot: &Bot, ctx: &Ctx, id: Option<LeagueId>) -> Outcome<Vec<Out>> {
    bot.read(|tx| {
        let l = find(tx, ctx, id)?;
        let results = tx.league_results(l.id)?;
        let mut s = format!("{} · {}", title(&l), l.variant.name());
        if results.is_empty() {
            s.push_str(&format!(
                "\nNo season has ended yet ({}).",
                match l.season {
                    0 => "none has started".to_string(),
                    n => format!("season {n} is being played"),
                }
            ));
            return Ok(vec![Out::text(Reply::private(s))]);
        }
        s.push_str("\nChampions:");
        let mut seasons: Vec<u32> = results.iter().map(|r| r.season).collect();
        seasons.dedup();
        for season in &seasons {
            if let Some(c) = results
                .iter()
                .find(|r| r.season == *season && r.division == "1" && r.place == 1)
            {
                s.push_str(&format!(
                    "\nSeason {season}: {}",
                    escape_markdown(&tx.name_or_id(&c.user_id)?)
                ));
            }
        }
        s.push_str("\nPaths (division and place each season; ▲ up, ▼ down, ✕ left):");
        let mut order: Vec<UserId> = Vec::new();
        for r in &results {
            if !order.contains(&r.user_id) {
                order.push(r.user_id.clone());
            }
        }
        for u in order.iter().take(60) {
            let path: Vec<String> = results
                .iter()
                .filter(|r| r.user_id == u)
                .map(|r| {
                    format!(
                        "S{} {}#{}{}",
                        r.season,
                        r.division,
                        r.place,
                        match r.movement {
                            LeagueMove::Up => " ▲",
                            LeagueMove::Down => " ▼",
                            LeagueMove::Out => " ✕",
                            LeagueMove::Stay => "",
                        }
                    )
                })
                .collect();
            s.push_str(&format!(
                "\n{}: {}",
                escape_markdown(&tx.name_or_id(u)?),
                path.join(" → ")
            ));
        }
        if order.len() > 60 {
            s.push_str(&format!("\n… and {} more.", order.len() - 60));
        }
        Ok(vec![Out::text(Reply::private(s))])
    })
}
