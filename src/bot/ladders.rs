//! Ladders (docs/rules.md §11, after OGS's): players in rank order who challenge those above
//! them. A challenge is accepted at once: its game starts in a thread of the ladder's channel.
//! A challenger who wins moves to just above the loser; a player who times out before any
//! move, or leaves, is taken off the ladder. `/ladder create|join|leave|challenge|show|close`,
//! and the `GameEnded` subscriber that moves the ladder.

use super::reply::{escape_markdown, Ctx, OnTheWeb, Reply, ThreadRequest, User, WebPage};
use super::session::{
    create_game, game_start, names, Announcement, Bot, EndCause, Fail, GameEnded, GameSpec, Out,
    Outcome, Seating, Session,
};
use super::text::Builder;
use super::time::{date_text, TimeControl, DAY};
use super::tournaments::{creating, event_name, event_scoring, organiser_only};
use crate::game::{Scoring, Variant};
use crate::store::{
    ChannelId, LadderGameRow, LadderId, LadderPlayerRow, LadderResult, LadderRow, LadderStatus,
    NewLadder, Tx, UserId,
};

/// The most ladder games a player may have started as challenger and not finished.
pub(crate) const MAX_OUTGOING: usize = 3;
/// Days after a ladder game between two players ends before they may meet again on the ladder.
pub(crate) const REMATCH_DAYS: i64 = 7;
/// The rating of a player without one (Glicko-2's start).
const UNRATED: f64 = 1500.0;

/// How far above themselves the player at `rank` may challenge (docs/rules.md §11): the
/// highest of 10 places, 40% of the players above them (rounded down), and the places between
/// them and 5 above their place in rating order (`rating_order`, 1 the highest rated).
pub(crate) fn reach(rank: u32, rating_order: u32) -> u32 {
    let above = rank.saturating_sub(1);
    let share = above * 2 / 5;
    let by_rating = (rank + 5).saturating_sub(rating_order);
    10.max(share).max(by_rating)
}

/// The ranks the player at `rank` may challenge: `first..=rank - 1` (empty at the top).
pub(crate) fn challenge_range(rank: u32, rating_order: u32) -> std::ops::RangeInclusive<u32> {
    let first = rank.saturating_sub(reach(rank, rating_order)).max(1);
    first..=rank.saturating_sub(1)
}

/// How many ladder games in progress a player at `rank` may have been challenged to: 5 at
/// ranks 1–5, 4 at ranks 6–10, 3 below.
pub(crate) fn incoming_limit(rank: u32) -> usize {
    match rank {
        0..=5 => 5,
        6..=10 => 4,
        _ => 3,
    }
}

/// A ladder's title in messages: "**Name** (ladder #2)".
fn title(l: &LadderRow) -> String {
    crate::bot::text::event_title(&l.name, "ladder #", l.id)
}

/// The ladder a command names (`id`), or the one the command is sent in (a ladder game's
/// thread, or the ladder's channel: its newest open ladder), or the server's only open one.
fn find(tx: &Tx, ctx: &Ctx, id: Option<LadderId>) -> Outcome<LadderRow> {
    if let Some(id) = id {
        return tx
            .ladder(id)?
            .filter(|l| l.server_id == ctx.server)
            .ok_or_else(|| {
                Fail::User(format!(
                    "There is no ladder #{id} on this server; `/ladder show` without a number \
                     lists them."
                ))
            });
    }
    if let Some(g) = tx.ladder_game_in(&ctx.channel)? {
        if let Some(l) = tx.ladder(g.ladder_id)? {
            return Ok(l);
        }
    }
    let ladders = tx.server_ladders(&ctx.server)?;
    let open: Vec<&LadderRow> = ladders
        .iter()
        .filter(|l| l.status == LadderStatus::Open)
        .collect();
    let here: Vec<&LadderRow> = open
        .iter()
        .copied()
        .filter(|l| l.channel_id == ctx.channel)
        .collect();
    let (choices, place) = match here.as_slice() {
        [l] => return Ok((*l).clone()),
        [] => (open, "server"),
        _ => (here, "channel"),
    };
    match choices.as_slice() {
        [l] => Ok((*l).clone()),
        [] => Err(Fail::User(
            "This server has no open ladder: a moderator creates one with `/ladder create`.".into(),
        )),
        many => {
            let list: Vec<String> = many
                .iter()
                .take(10)
                .map(|l| {
                    format!(
                        "#{} {} ({})",
                        l.id,
                        escape_markdown(&l.name),
                        l.variant.id()
                    )
                })
                .collect();
            Err(Fail::User(format!(
                "This {place} has several ladders; give the number (`id:{}`): {}.",
                many[0].id,
                list.join(", ")
            )))
        }
    }
}

fn open_only(l: &LadderRow) -> Outcome<()> {
    if l.status == LadderStatus::Closed {
        return Err(Fail::User(format!("{} is closed.", title(l))));
    }
    Ok(())
}

/// The players in rating order: each player's place (1 the highest rated; unrated players
/// count as 1500; equal ratings in ladder order), indexed like `players`.
fn rating_orders(tx: &Tx, l: &LadderRow, players: &[LadderPlayerRow]) -> Outcome<Vec<u32>> {
    let mut rated: Vec<(f64, u32, usize)> = Vec::with_capacity(players.len());
    for (i, p) in players.iter().enumerate() {
        let r = tx
            .rating(&l.server_id, l.variant.id(), &p.user_id)?
            .map_or(UNRATED, |r| r.rating);
        rated.push((r, p.rank, i));
    }
    rated.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut order = vec![0; players.len()];
    for (k, &(_, _, i)) in rated.iter().enumerate() {
        order[i] = k as u32 + 1;
    }
    Ok(order)
}

/// The options of `/ladder create`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LadderOptions {
    pub name: String,
    pub variant: Variant,
    pub scoring: Option<Scoring>,
    pub days: Option<TimeControl>,
    pub rated: Option<bool>,
}

/// `/ladder create`: moderators (or the tournament role) create a ladder in this channel.
pub(crate) fn create(bot: &Bot, ctx: &Ctx, o: LadderOptions) -> Outcome<Vec<Out>> {
    let name = event_name(&o.name, "ladder")?;
    let scoring = event_scoring(o.variant, o.scoring)?;
    bot.write(ctx, |tx, now| {
        let days = creating(tx, ctx, "ladders", o.days, now)?;
        let id = tx.insert_ladder(
            &NewLadder {
                server_id: &ctx.server,
                channel_id: &ctx.channel,
                creator_id: &ctx.user.id,
                name: &name,
                variant: o.variant,
                scoring,
                days_per_move: days.days(),
                rated: o.rated.unwrap_or(true),
            },
            now,
        )?;
        let mut b = Builder::new().text(format!(
            "**Ladder #{id}: {}** · {} · {} · {}",
            escape_markdown(&name),
            o.variant.name(),
            days,
            if o.rated.unwrap_or(true) {
                "rated"
            } else {
                "casual"
            }
        ));
        b = b
            .text("\nOrganised by ")
            .user(&ctx.user.id, &ctx.user.name)
            .text(format!(
                ". Join with `/ladder join id:{id}` (you start at the bottom), then climb with \
             `/ladder challenge`: each challenge starts a game at once, in a thread of this \
             channel."
            ));
        Ok(vec![Out::text(b.build())])
    })
}

/// `/ladder join`: puts the caller at the bottom.
pub(crate) fn join(bot: &Bot, ctx: &Ctx, id: Option<LadderId>) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, now| {
        let l = find(tx, ctx, id)?;
        open_only(&l)?;
        let players = tx.ladder_players(l.id)?;
        if let Some(p) = players.iter().find(|p| p.user_id == ctx.user.id) {
            return Err(Fail::User(format!(
                "You are already on {}, at rank {}.",
                title(&l),
                p.rank
            )));
        }
        tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
        let rank = tx.add_ladder_player(l.id, &ctx.user.id, now)?;
        let mut reply = Builder::new()
            .user(&ctx.user.id, &ctx.user.name)
            .text(format!(
                " joins {} at rank {rank}. `/ladder show` shows whom you may challenge.",
                title(&l)
            ))
            .build();
        reply.channel = Some(l.channel_id.clone());
        Ok(vec![Out::text(reply)])
    })
}

/// `/ladder leave`: takes the caller off the ladder (games in progress are played out, but no
/// longer move anyone).
pub(crate) fn leave(bot: &Bot, ctx: &Ctx, id: Option<LadderId>) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, _now| {
        let l = find(tx, ctx, id)?;
        let players = tx.ladder_players(l.id)?;
        let Some(p) = players.iter().find(|p| p.user_id == ctx.user.id) else {
            return Err(Fail::User(format!("You are not on {}.", title(&l))));
        };
        tx.remove_ladder_player(l.id, &ctx.user.id)?;
        let open = tx
            .ladder_games(l.id, true)?
            .into_iter()
            .filter(|g| g.challenger_id == ctx.user.id || g.defender_id == ctx.user.id)
            .count();
        let mut b = Builder::new()
            .user(&ctx.user.id, &ctx.user.name)
            .text(format!(
                " leaves {} (was rank {}); everyone below moves up one.",
                title(&l),
                p.rank
            ));
        if open > 0 {
            b = b.text(format!(
                " Their {} in progress {} played out but no longer move anyone.",
                super::time::plural(open as i64, "ladder game"),
                if open == 1 { "is" } else { "are" }
            ));
        }
        let mut reply = b.build();
        reply.channel = Some(l.channel_id.clone());
        Ok(vec![Out::text(reply)])
    })
}

/// `/ladder close`: the organiser closes a ladder (no more joins or challenges; games in
/// progress are played out and still move the ranks).
pub(crate) fn close(bot: &Bot, ctx: &Ctx, id: Option<LadderId>) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, now| {
        let l = find(tx, ctx, id)?;
        organiser_only(ctx, &l.creator_id, &title(&l), "close it")?;
        open_only(&l)?;
        tx.close_ladder(l.id, now)?;
        let mut reply = Builder::new()
            .text(format!("{} is closed by ", title(&l)))
            .user(&ctx.user.id, &ctx.user.name)
            .text(": no more joins or challenges; games in progress are played out.")
            .build();
        reply.channel = Some(l.channel_id.clone());
        Ok(vec![Out::text(reply)])
    })
}

/// A ladder as a challenge is checked against it: its players by rank, each one's place in
/// rating order, and its games.
struct Standing {
    players: Vec<LadderPlayerRow>,
    orders: Vec<u32>,
    games: Vec<LadderGameRow>,
}

impl Standing {
    fn read(tx: &Tx, l: &LadderRow) -> Outcome<Standing> {
        let players = tx.ladder_players(l.id)?;
        let orders = rating_orders(tx, l, &players)?;
        let games = tx.ladder_games(l.id, false)?;
        Ok(Standing {
            players,
            orders,
            games,
        })
    }
}

/// Why `challenger` may not challenge `defender` on `l` now, if anything forbids it.
fn refusal(
    st: &Standing,
    l: &LadderRow,
    challenger: &UserId,
    defender: &User,
    now: i64,
) -> Option<String> {
    let (players, orders, games) = (&st.players, &st.orders, &st.games);
    let Some(me) = players.iter().position(|p| p.user_id == challenger) else {
        return Some(format!(
            "You are not on {}: `/ladder join` puts you at the bottom.",
            title(l)
        ));
    };
    if defender.id == challenger {
        return Some("You cannot challenge yourself.".into());
    }
    let Some(them) = players.iter().find(|p| p.user_id == defender.id) else {
        return Some(format!(
            "{} is not on {}.",
            escape_markdown(&defender.name),
            title(l)
        ));
    };
    let rank = players[me].rank;
    let range = challenge_range(rank, orders[me]);
    if them.rank >= rank {
        return Some(format!(
            "{} is at rank {}, not above you (rank {rank}): on a ladder you challenge players \
             above you.",
            escape_markdown(&defender.name),
            them.rank
        ));
    }
    if !range.contains(&them.rank) {
        return Some(format!(
            "{} is at rank {}, out of your reach: from rank {rank} you may challenge ranks {} \
             to {} (the highest of 10 places, 40% of the players above you, and 5 places above \
             your place in rating order, {}).",
            escape_markdown(&defender.name),
            them.rank,
            range.start(),
            range.end(),
            orders[me]
        ));
    }
    let open = |u: &UserId, as_challenger: bool| {
        games
            .iter()
            .filter(|g| g.ended_at.is_none())
            .filter(|g| {
                if as_challenger {
                    g.challenger_id == u
                } else {
                    g.defender_id == u
                }
            })
            .count()
    };
    if open(challenger, true) >= MAX_OUTGOING {
        return Some(format!(
            "You already have {MAX_OUTGOING} ladder challenges in progress, the most allowed: \
             finish one first."
        ));
    }
    let limit = incoming_limit(them.rank);
    if open(&defender.id, false) >= limit {
        return Some(format!(
            "{} (rank {}) already has {limit} ladder challenges to answer, the most at that \
             rank: try again when one ends.",
            escape_markdown(&defender.name),
            them.rank
        ));
    }
    let pair = |g: &&LadderGameRow| {
        (g.challenger_id == challenger && g.defender_id == defender.id)
            || (g.challenger_id == defender.id && g.defender_id == challenger)
    };
    if games.iter().filter(pair).any(|g| g.ended_at.is_none()) {
        return Some(format!(
            "You already have a ladder game with {} in progress.",
            escape_markdown(&defender.name)
        ));
    }
    // Only a played or forfeited game starts the wait (docs/rules.md §11.1); an aborted one
    // (a moderator's abort) does not.
    let counted = |g: &&LadderGameRow| g.result != Some(LadderResult::Aborted);
    if let Some(end) = games
        .iter()
        .filter(pair)
        .filter(counted)
        .filter_map(|g| g.ended_at)
        .max()
    {
        let free = end + REMATCH_DAYS * DAY;
        if now < free {
            return Some(format!(
                "You played {} on the ladder less than {REMATCH_DAYS} days ago: you may meet \
                 again from {}.",
                escape_markdown(&defender.name),
                date_text(free)
            ));
        }
    }
    None
}

/// `/ladder challenge player`: the game starts at once, in a thread of the ladder's channel.
pub(crate) fn challenge(
    bot: &Bot,
    ctx: &Ctx,
    player: User,
    id: Option<LadderId>,
) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, now| {
        let l = find(tx, ctx, id)?;
        open_only(&l)?;
        let st = Standing::read(tx, &l)?;
        if let Some(why) = refusal(&st, &l, &ctx.user.id, &player, now) {
            return Err(Fail::User(why));
        }
        tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
        let rank_of = |u: &UserId| {
            st.players
                .iter()
                .find(|p| p.user_id == u)
                .map_or(0, |p| p.rank)
        };
        let (r0, r1) = (rank_of(&ctx.user.id), rank_of(&player.id));
        let (lg, key) = tx.insert_ladder_game(l.id, &ctx.user.id, &player.id, now)?;
        let channel = ChannelId::new(&key);
        // The first move is drawn by lot, as for any challenge.
        let challenger_first = bot.coin();
        let game = create_game(
            tx,
            GameSpec {
                server: &l.server_id,
                channel: &channel,
                variant: l.variant,
                scoring: l.scoring,
                seating: Seating::people([&ctx.user.id, &player.id], challenger_first),
                match_game: None,
                days_per_move: l.days_per_move,
                rated: l.rated,
                pairing: None,
            },
            now,
        )?;
        tx.set_ladder_game_game(lg, game.id)?;
        let n = names(tx, &game)?;
        // The start with its board, as any challenge shows it.
        let mut out = game_start(&game, &n, "drawn by lot");
        let defender_name = tx.name_or_id(&player.id)?;
        let head = Builder::new()
            .text(format!("{} · ", title(&l)))
            .ping(&ctx.user.id, &ctx.user.name)
            .text(format!(" (rank {r0}) challenges "))
            .ping(&player.id, &defender_name)
            .text(format!(" (rank {r1}).\n"))
            .build();
        out.reply.prepend(head);
        out.reply.channel = Some(channel.clone());
        out.reply.thread = Some(ladder_thread(&key, &l, &ctx.user.name, &defender_name));
        // The answer, where the command was sent: the thread's own message pings both.
        let note = Builder::new()
            .text(format!("{}: ", title(&l)))
            .user(&ctx.user.id, &ctx.user.name)
            .text(format!(" (rank {r0}) challenges "))
            .user(&player.id, &defender_name)
            .text(format!(
                " (rank {r1}): game {} starts now in a thread of its own, \"Ladder · {} vs {}\".",
                game.id,
                escape_markdown(&ctx.user.name),
                escape_markdown(&defender_name)
            ))
            .build();
        Ok(vec![Out::text(note), out])
    })
}

/// `/ladder show`: the ladder, whom the caller may challenge, and their games in progress;
/// without an open ladder here, the server's ladders.
pub(crate) fn show(bot: &Bot, ctx: &Ctx, id: Option<LadderId>) -> Outcome<Vec<Out>> {
    bot.read(|tx| {
        let l = match find(tx, ctx, id) {
            Ok(l) => l,
            Err(Fail::User(why)) if id.is_none() => {
                let ladders = tx.server_ladders(&ctx.server)?;
                if ladders.is_empty() {
                    return Err(Fail::User(why));
                }
                let mut s = String::from("The server's ladders:");
                for l in ladders.iter().take(20) {
                    s.push_str(&format!(
                        "\n#{} **{}** · {} · {}",
                        l.id,
                        escape_markdown(&l.name),
                        l.variant.id(),
                        match l.status {
                            LadderStatus::Open => "open",
                            LadderStatus::Closed => "closed",
                        }
                    ));
                }
                s.push_str("\n`/ladder show id:N` shows one.");
                return Ok(vec![Out::text(Reply::private(s))]);
            }
            Err(e) => return Err(e),
        };
        let view = view(tx, &l, &ctx.user.id, bot.now())?;
        let mut reply = Reply::private(view.text.clone());
        reply.web = Some(OnTheWeb::new(&l.server_id, WebPage::Ladder(l.id)));
        if bot.images() {
            reply.image = Some(view.picture());
        }
        Ok(vec![Out::text(reply)])
    })
}

/// What `/ladder show` says, and the picture's data.
struct View {
    text: String,
    card: crate::render::LadderCard,
}

impl View {
    fn picture(&self) -> super::reply::Attachment {
        super::reply::Attachment {
            filename: "ladder.png".into(),
            bytes: crate::render::ladder_png(&self.card),
        }
    }
}

/// How many ranks `/ladder show` lists around the caller (and from the top).
const SHOWN: usize = 15;

/// The names of a ladder's `players` and their ratings in its game (rounded, and whether
/// established), in their order.
#[allow(clippy::type_complexity)]
fn names_and_ratings(
    tx: &Tx,
    l: &LadderRow,
    players: &[LadderPlayerRow],
) -> Outcome<(Vec<String>, Vec<Option<(i32, bool)>>)> {
    let mut names = Vec::with_capacity(players.len());
    let mut ratings = Vec::with_capacity(players.len());
    for p in players {
        names.push(tx.name_or_id(&p.user_id)?);
        ratings.push(
            tx.rating(&l.server_id, l.variant.id(), &p.user_id)?
                .map(|r| {
                    (
                        r.rating.round() as i32,
                        r.rd <= crate::game::rating::PROVISIONAL_RD,
                    )
                }),
        );
    }
    Ok((names, ratings))
}

/// A rating as the ladder writes it: "1624", "1510?" while provisional, "–" for none.
fn rating_written(rating: Option<(i32, bool)>) -> String {
    match rating {
        Some((r, true)) => r.to_string(),
        Some((r, false)) => format!("{r}?"),
        None => "–".into(),
    }
}

/// A ladder as the web companion shows it (`tara-bot web`): its row, every player in rank
/// order (the picture's rows: rank, name, rating, games in progress), and the ladder games in
/// progress (challenger, defender, game).
pub struct LadderView {
    pub row: LadderRow,
    pub players: Vec<crate::render::LadderRow>,
    pub games: Vec<(String, String, Option<crate::store::GameId>)>,
}

/// The web companion's view of ladder `id` (read in `tx`); `None` when there is none.
pub(crate) fn ladder_view(tx: &Tx, id: LadderId) -> Outcome<Option<LadderView>> {
    let Some(l) = tx.ladder(id)? else {
        return Ok(None);
    };
    let st = Standing::read(tx, &l)?;
    let (names, ratings) = names_and_ratings(tx, &l, &st.players)?;
    let open: Vec<&LadderGameRow> = st.games.iter().filter(|g| g.ended_at.is_none()).collect();
    let players = st
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| crate::render::LadderRow {
            rank: p.rank,
            name: names[i].clone(),
            rating: rating_written(ratings[i]),
            playing: open
                .iter()
                .filter(|g| g.challenger_id == p.user_id || g.defender_id == p.user_id)
                .count() as u32,
            you: false,
        })
        .collect();
    let mut games = Vec::new();
    for g in open {
        games.push((
            tx.name_or_id(&g.challenger_id)?,
            tx.name_or_id(&g.defender_id)?,
            g.game_id,
        ));
    }
    Ok(Some(LadderView {
        row: l,
        players,
        games,
    }))
}

fn view(tx: &Tx, l: &LadderRow, me: &UserId, now: i64) -> Outcome<View> {
    let st = Standing::read(tx, l)?;
    let players = &st.players;
    let games: Vec<&LadderGameRow> = st.games.iter().filter(|g| g.ended_at.is_none()).collect();
    let (names, ratings) = names_and_ratings(tx, l, players)?;
    let playing = |u: &UserId| {
        games
            .iter()
            .filter(|g| g.challenger_id == u || g.defender_id == u)
            .count()
    };
    let mut s = format!(
        "{} · {} · {} player{}",
        title(l),
        l.variant.name(),
        players.len(),
        if players.len() == 1 { "" } else { "s" }
    );
    if l.status == LadderStatus::Closed {
        s.push_str(" · closed");
    }
    let mine = players.iter().position(|p| p.user_id == me);
    // The top of the ladder, and the ranks around the caller.
    let mut shown: Vec<usize> = (0..players.len().min(SHOWN)).collect();
    if let Some(i) = mine {
        let from = i.saturating_sub(SHOWN / 2);
        shown.extend(from..players.len().min(from + SHOWN));
        shown.sort_unstable();
        shown.dedup();
    }
    let mut last = None;
    for &i in &shown {
        if last.is_some_and(|k: usize| i > k + 1) {
            s.push_str("\n…");
        }
        last = Some(i);
        let p = &players[i];
        s.push_str(&format!(
            "\n{}. {}{}{}",
            p.rank,
            escape_markdown(&names[i]),
            match ratings[i] {
                Some((r, true)) => format!(" ({r})"),
                Some((r, false)) => format!(" ({r}?)"),
                None => String::new(),
            },
            match playing(&p.user_id) {
                0 => String::new(),
                n => format!(" · {} in progress", super::time::plural(n as i64, "game")),
            }
        ));
        if Some(i) == mine {
            s.push_str(" ← you");
        }
    }
    if players.is_empty() {
        s.push_str("\nNobody has joined yet: `/ladder join`.");
    }
    s.push_str(&your_place(tx, &st, l, me, now, &names, &games)?);
    let rows = shown
        .iter()
        .map(|&i| (i, &players[i]))
        .map(|(i, p)| crate::render::LadderRow {
            rank: p.rank,
            name: names[i].clone(),
            rating: rating_written(ratings[i]),
            playing: playing(&p.user_id) as u32,
            you: Some(i) == mine,
        })
        .collect();
    let card = crate::render::LadderCard {
        title: format!("{} · {}", l.name, l.variant.name()),
        subtitle: format!(
            "Ladder #{} · {} player{}{}",
            l.id,
            players.len(),
            if players.len() == 1 { "" } else { "s" },
            if l.status == LadderStatus::Closed {
                " · closed"
            } else {
                ""
            }
        ),
        rows,
    };
    Ok(View { text: s, card })
}

/// What `/ladder show` tells `me` of their own place: where they may challenge and whom now,
/// and their ladder games in progress (or how to join).
fn your_place(
    tx: &Tx,
    st: &Standing,
    l: &LadderRow,
    me: &UserId,
    now: i64,
    names: &[String],
    games: &[&LadderGameRow],
) -> Outcome<String> {
    let (players, orders) = (&st.players, &st.orders);
    let mine = players.iter().position(|p| p.user_id == me);
    let mut s = String::new();
    match mine {
        None => s.push_str("\nYou are not on this ladder: `/ladder join` puts you at the bottom."),
        Some(i) => {
            let rank = players[i].rank;
            let range = challenge_range(rank, orders[i]);
            if l.status == LadderStatus::Closed {
                // A closed ladder takes no challenges (its games in progress are played out).
                s.push_str(&format!(
                    "\nYou finished at rank {rank}: the ladder is closed, so it takes no \
                     more challenges."
                ));
            } else if range.is_empty() {
                s.push_str("\nYou are at the top: defend your place.");
            } else {
                let mut free = Vec::new();
                for k in range.clone() {
                    let t = &players[k as usize - 1];
                    let who = User::of(t.user_id.clone(), names[k as usize - 1].clone());
                    if refusal(st, l, me, &who, now).is_none() {
                        free.push(format!("{}. {}", k, escape_markdown(&who.name)));
                    }
                }
                s.push_str(&format!(
                    "\nFrom rank {rank} you may challenge ranks {} to {}",
                    range.start(),
                    range.end()
                ));
                if free.is_empty() {
                    s.push_str(
                        ", but nobody there now (limits, games in progress or a recent game).",
                    );
                } else {
                    s.push_str(&format!(
                        "; open to a challenge now: {}. `/ladder challenge player:@name` starts a game.",
                        free.join(", ")
                    ));
                }
            }
            let my_games: Vec<&LadderGameRow> = games
                .iter()
                .copied()
                .filter(|g| g.challenger_id == me || g.defender_id == me)
                .collect();
            if !my_games.is_empty() {
                s.push_str("\nYour ladder games in progress:");
                for g in my_games {
                    let challenger = g.challenger_id == me;
                    let other = if challenger {
                        &g.defender_id
                    } else {
                        &g.challenger_id
                    };
                    let name = escape_markdown(&tx.name_or_id(other)?);
                    let who = if challenger {
                        format!("you challenged {name}")
                    } else {
                        format!("{name} challenged you")
                    };
                    let channel = g
                        .thread_id
                        .clone()
                        .unwrap_or_else(|| ChannelId::new(&g.thread_key));
                    s.push_str(&format!(
                        "\n· {who}: {} in <#{}>",
                        g.game_id.map_or(String::new(), |id| id.to_string()),
                        channel
                    ));
                }
            }
        }
    }
    Ok(s)
}

/// Subscriber: a ladder game's end moves the ladder (docs/rules.md §11): a challenger who won
/// moves to just above the loser; a player who ran out of time before any move is taken off
/// the ladder. Said in the announcement, and in the ladder's channel when ranks change.
pub(crate) fn game_ended(s: &Session, e: &GameEnded, ann: &mut Announcement) -> Outcome<()> {
    let (tx, now) = (s.tx, s.now);
    let game = &e.game.game;
    let Some(lg) = tx.ladder_game_of(game.id)? else {
        return Ok(());
    };
    if lg.ended_at.is_some() {
        return Ok(());
    }
    let Some(l) = tx.ladder(lg.ladder_id)? else {
        return Ok(());
    };
    let result = match e.outcome.map(|o| o.winner) {
        None => LadderResult::Aborted,
        Some(None) => LadderResult::Draw,
        Some(Some(w)) if game.seats[w] == lg.challenger_id => LadderResult::Challenger,
        Some(Some(_)) => LadderResult::Defender,
    };
    if !tx.end_ladder_game(lg.id, result, now)? {
        return Ok(());
    }
    let players = tx.ladder_players(l.id)?;
    let find = |u: &UserId| players.iter().find(|p| p.user_id == u);
    let (cn, dn) = (
        tx.name_or_id(&lg.challenger_id)?,
        tx.name_or_id(&lg.defender_id)?,
    );
    let mut line = None;
    match result {
        LadderResult::Challenger => {
            if let (Some(c), Some(d)) = (find(&lg.challenger_id), find(&lg.defender_id)) {
                if c.rank > d.rank {
                    tx.raise_ladder_player(l.id, &lg.challenger_id, c.rank, d.rank)?;
                    line = Some(format!(
                        "{} beat {} and climbs from rank {} to rank {}; {} and everyone between \
                         move down one.",
                        escape_markdown(&cn),
                        escape_markdown(&dn),
                        c.rank,
                        d.rank,
                        escape_markdown(&dn)
                    ));
                }
            }
        }
        LadderResult::Aborted if e.reason == EndCause::NoShow => {
            // The player whose time ran out before their first move.
            if let Some(side) = e.game.pos.to_move() {
                let who = game.seats[side].clone();
                if let Some(p) = find(&who) {
                    tx.remove_ladder_player(l.id, &who)?;
                    let name = if who == lg.challenger_id { &cn } else { &dn };
                    line = Some(format!(
                        "{} ran out of time before any move and is taken off the ladder (was \
                         rank {}); everyone below moves up one.",
                        escape_markdown(name),
                        p.rank
                    ));
                }
            }
        }
        _ => {}
    }
    let said = match (&line, result) {
        (Some(l), _) => l.clone(),
        (None, LadderResult::Defender | LadderResult::Draw) => {
            "the ladder does not change: the defender keeps the place.".into()
        }
        (None, LadderResult::Aborted) => {
            "the game ended without a result, so the ladder does not change.".into()
        }
        (None, _) => "the ladder does not change.".into(),
    };
    ann.text = std::mem::take(&mut ann.text).text(format!("\n{}: {said}", title(&l)));
    if let Some(line) = line {
        let mut reply = Builder::new()
            .text(format!("{}: {line}", title(&l)))
            .on_the_web(&l.server_id, WebPage::Ladder(l.id))
            .build();
        reply.channel = Some(l.channel_id.clone());
        ann.after.push(Out::text(reply));
    }
    Ok(())
}

/// The thread of a ladder game: its key, the ladder's channel, and its name
/// ("Ladder · Brian vs Aoife", the challenger first).
fn ladder_thread(key: &str, l: &LadderRow, challenger: &str, defender: &str) -> ThreadRequest {
    ThreadRequest {
        key: key.to_string(),
        parent: l.channel_id.clone(),
        name: format!("Ladder · {challenger} vs {defender}"),
    }
}

impl Bot {
    /// A thread the bot opened for a game is gone (a moderator deleted it): the game's key
    /// forgets it, and a new thread is owed for the key, opened by a message saying why; the
    /// games and the messages still owed in the old thread go to the new one. Nothing when
    /// `thread` was no game's thread.
    pub fn thread_gone(&self, thread: &ChannelId) -> Vec<Reply> {
        let r = self.write_owed(None, self.now(), |tx, _| {
            let Some(key) = tx.key_of_thread(thread)? else {
                return Ok(Vec::new());
            };
            let request = match tx.ladder_game_by_key(&key)? {
                Some(lg) => match tx.ladder(lg.ladder_id)? {
                    Some(l) => Some(ladder_thread(
                        &key,
                        &l,
                        &tx.name_or_id(&lg.challenger_id)?,
                        &tx.name_or_id(&lg.defender_id)?,
                    )),
                    None => None,
                },
                None => super::tournaments::thread_request_of(tx, &key)?,
            };
            let Some(request) = request else {
                return Ok(Vec::new());
            };
            tx.forget_thread(&key, thread)?;
            let mut reply = Builder::new()
                .text(
                    "The thread of this game was deleted, so its messages come to this new one \
                     from now on: every move so far is kept, and `/board` shows where the game \
                     stands.",
                )
                .build();
            reply.channel = Some(ChannelId::new(key));
            reply.thread = Some(request);
            Ok(vec![Out::text(reply)])
        });
        r.unwrap_or_else(|e| {
            tracing::error!(error = ?e, thread = %thread, "moving the games of a deleted thread failed");
            Vec::new()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reach_is_the_highest_of_the_three_rules() {
        // 10 places.
        assert_eq!(challenge_range(14, 14), 4..=13);
        assert_eq!(challenge_range(5, 5), 1..=4);
        // 40% of the players above, rounded down: rank 31 has 30 above, 12 places.
        assert_eq!(reach(31, 31), 12);
        assert_eq!(challenge_range(31, 31), 19..=30);
        // Rank 28 has 27 above: 40% is 10.8, so 10.
        assert_eq!(reach(28, 28), 10);
        // 5 places above the rating order: rank 30, 6th by rating, may reach rank 1.
        assert_eq!(reach(30, 6), 29);
        assert_eq!(challenge_range(30, 6), 1..=29);
        // Rated below the own rank changes nothing.
        assert_eq!(reach(12, 40), 10);
        // The top challenges nobody.
        assert!(challenge_range(1, 1).is_empty());
    }

    #[test]
    fn incoming_limits_follow_the_rank() {
        let limits: Vec<usize> = [1, 5, 6, 10, 11, 50].map(incoming_limit).to_vec();
        assert_eq!(limits, [5, 5, 4, 4, 3, 3]);
    }
}
