//! Ratings (docs/rules.md §10: ratings): a rated game's Glicko-2 update, stored with its result, and the
//! `/leaderboard` and `/profile` commands.

use super::reply::{escape_markdown, Attachment, Ctx, User};
use super::session::{Announcement, Bot, GameEnded, Out, Outcome, Session};
use super::text::Builder;
use super::time::{date_text, DAY};
use crate::game::rating::{self, Rating};
use crate::game::BySide;
use crate::game::{describe, Outcome as GameOutcome, Variant};
use crate::render;
use crate::store::UserId;
use crate::store::{ChannelId, ServerId};
use crate::store::{GameRow, RatingChangeRow, RatingRow, StoreError, Tx};

/// Only players with a rated game in this many days are on a leaderboard.
pub(crate) const LEADERBOARD_DAYS: i64 = 90;
/// Rows of a leaderboard picture; the text lists the first [`LEADERBOARD_TEXT_ROWS`].
pub(crate) const LEADERBOARD_ROWS: u32 = 25;
/// Rows of a leaderboard's text.
const LEADERBOARD_TEXT_ROWS: usize = 10;
/// Points of a rating-history chart (the latest games).
pub(crate) const HISTORY_POINTS: u32 = 200;

/// A rating as players read it: `1662`, with `?` while provisional.
pub(crate) fn shown(rating: f64, rd: f64) -> String {
    let r = Rating {
        rating,
        rd,
        volatility: rating::START.volatility,
    };
    format!("{:.0}{}", rating, if r.provisional() { "?" } else { "" })
}

/// A rating with its deviation: `1662 ±290?`.
pub(crate) fn shown_with_rd(rating: f64, rd: f64) -> String {
    let s = shown(rating, rd);
    match s.strip_suffix('?') {
        Some(r) => format!("{r} ±{rd:.0}?"),
        None => format!("{s} ±{rd:.0}"),
    }
}

/// A signed whole change: `+12`, `−7`, `±0`.
fn signed(d: f64) -> String {
    let d = d.round() as i64;
    match d.cmp(&0) {
        std::cmp::Ordering::Greater => format!("+{d}"),
        std::cmp::Ordering::Less => format!("−{}", -d),
        std::cmp::Ordering::Equal => "±0".into(),
    }
}

/// Whether a finished game counts for ratings (docs/rules.md §10: ratings): created rated, between two people.
/// Aborted games never reach here, and forfeits are not finished over the board.
pub(crate) fn counts_for_rating(game: &GameRow) -> bool {
    game.rated
        && game.ai_levels.iter().all(Option::is_none)
        && game.seats.first() != game.seats.second()
}

/// A stored rating as Glicko-2 values, grown by the whole idle weeks up to `now`.
fn current(row: Option<&RatingRow>, now: i64) -> Rating {
    match row {
        None => rating::START,
        Some(r) => Rating {
            rating: r.rating,
            rd: r.rd,
            volatility: r.volatility,
        }
        .after_idle((now - r.last_game_at).max(0) / DAY),
    }
}

/// Rates a finished game (docs/rules.md §10: ratings): both players' ratings in this server and game, grown by
/// their idle weeks, updated as one rating period, stored, and the change recorded per player.
/// Each seat's values before (after the idle growth) and after the game; `None` for a game
/// that does not count.
pub(crate) fn rate(
    tx: &Tx,
    game: &GameRow,
    outcome: &GameOutcome,
    now: i64,
) -> Result<Option<[(Rating, Rating); 2]>, StoreError> {
    if !counts_for_rating(game) {
        return Ok(None);
    }
    let key = game.options.variant.id();
    let rows = [
        tx.rating(&game.server_id, key, game.seats.first())?,
        tx.rating(&game.server_id, key, game.seats.second())?,
    ];
    let before = [
        current(rows[0].as_ref(), now),
        current(rows[1].as_ref(), now),
    ];
    let score0 = match outcome.winner {
        None => 0.5,
        Some(side) if side == game.sides()[0] => 1.0,
        Some(_) => 0.0,
    };
    let (a0, a1) = rating::after_game(before[0], before[1], score0);
    let after = [a0, a1];
    for (i, seat) in game.sides().into_iter().enumerate() {
        let score = if i == 0 { score0 } else { 1.0 - score0 };
        let old = rows[i].as_ref();
        let (games, wins, draws, losses) =
            old.map_or((0, 0, 0, 0), |r| (r.games, r.wins, r.draws, r.losses));
        tx.put_rating(&RatingRow {
            server_id: game.server_id.clone(),
            game: key.to_string(),
            user_id: game.seats[seat].clone(),
            rating: after[i].rating,
            rd: after[i].rd,
            volatility: after[i].volatility,
            games: games + 1,
            wins: wins + u32::from(score == 1.0),
            draws: draws + u32::from(score == 0.5),
            losses: losses + u32::from(score == 0.0),
            last_game_at: now,
        })?;
        tx.insert_rating_change(&RatingChangeRow {
            game_id: game.id,
            user_id: game.seats[seat].clone(),
            server_id: game.server_id.clone(),
            game: key.to_string(),
            score,
            before_rating: before[i].rating,
            before_rd: before[i].rd,
            before_volatility: before[i].volatility,
            after_rating: after[i].rating,
            after_rd: after[i].rd,
            after_volatility: after[i].volatility,
            at: now,
        })?;
    }
    Ok(Some([(before[0], after[0]), (before[1], after[1])]))
}

/// Subscriber: a rated game's Glicko-2 update, stored with its result ([`rate`]); the
/// announcement gains the line that tells the players (nothing for a game that is not rated).
pub(crate) fn game_ended(s: &Session, e: &GameEnded, ann: &mut Announcement) -> Outcome<()> {
    let Some(o) = e.outcome else {
        return Ok(());
    };
    let l = e.game;
    let b = std::mem::take(&mut ann.text);
    ann.text = rate_game(s.tx, &l.game, o, &l.names, s.now, b)?;
    Ok(())
}

/// Rates a finished game (docs/rules.md §10: ratings) in the transaction that records its result (see
/// [`rate`]); `b` gains the line that tells the players (nothing for a game that is not
/// rated).
fn rate_game(
    tx: &Tx,
    game: &GameRow,
    outcome: &GameOutcome,
    names: &BySide<String>,
    now: i64,
    b: Builder,
) -> Outcome<Builder> {
    let Some(changes) = rate(tx, game, outcome, now)? else {
        return Ok(b);
    };
    let mut b = b.text(format!("\nRatings ({}): ", game.options.variant.id()));
    for (seat, (before, after)) in game.sides().into_iter().zip(changes.iter()) {
        b = b.user(&game.seats[seat], &names[seat]).text(format!(
            " {} ({}){}",
            shown(after.rating, after.rd),
            signed(after.rating - before.rating),
            if seat == game.sides()[0] { ", " } else { "." }
        ));
    }
    Ok(b)
}

/// A game as pictures and profiles title it: "Ard Rí (ard-ri)".
fn game_title(v: Variant) -> String {
    format!("{} ({})", v.name(), v.id())
}

/// A game in progress on a profile ([`open_game_line`]).
struct OpenGame {
    /// "#12 hkot-1 vs Brian · Brian's turn · 2 days left", the opponent's name as written
    /// (the card draws it).
    picture: String,
    /// The same line as Markdown: the opponent's name escaped.
    text: String,
    /// The game's channel.
    channel: ChannelId,
}

/// A game in progress of `user`'s, for their profile.
fn open_game_line(tx: &Tx, g: &GameRow, user: &UserId, now: i64) -> Outcome<OpenGame> {
    let n = super::session::names(tx, g)?;
    let seat = g.seat_of(user).unwrap_or(g.sides()[0]);
    let l = super::session::load_game(tx, g.clone())?;
    let their_turn = l.pos.to_move().map(|side| g.seats[side] == *user);
    let when = super::session::time_left(g, now, None)
        .unwrap_or_else(|| format!("since {}", date_text(g.turn_started_at)));
    // Whose turn, by name: the profile's own player's, or their opponent's.
    let line = |me: &str, opponent: &str| {
        let turn = match their_turn {
            Some(true) => format!("{me}'s turn"),
            Some(false) => format!("{opponent}'s turn"),
            None => "ending".to_string(),
        };
        format!(
            "#{} {} vs {opponent} · {turn} · {when}",
            g.id.0,
            g.options.variant.id()
        )
    };
    let (me, opponent) = (&n[seat], &n[seat.opponent()]);
    Ok(OpenGame {
        picture: line(me, opponent),
        text: line(&escape_markdown(me), &escape_markdown(opponent)),
        channel: g.channel_id.clone(),
    })
}

/// A leaderboard entry as shown: its rank (players with equal ratings, to the whole point
/// shown, share one) and the player's name.
struct Entry {
    rank: u32,
    name: String,
}

/// The shown rank and name of each leaderboard row.
/// A leaderboard's row as the picture (and the web) shows it: the rating `r` at its place `e`.
fn pictured_row(r: &RatingRow, e: Entry) -> render::LeaderboardRow {
    render::LeaderboardRow {
        rank: e.rank,
        name: e.name,
        rating: r.rating,
        rd: r.rd,
        provisional: r.rd > rating::PROVISIONAL_RD,
        games: r.games,
        wins: r.wins,
        draws: r.draws,
        losses: r.losses,
    }
}

fn leaderboard_rows(tx: &Tx, rows: &[RatingRow]) -> Outcome<Vec<Entry>> {
    let mut out: Vec<Entry> = Vec::with_capacity(rows.len());
    for (i, r) in rows.iter().enumerate() {
        let rank = match (i.checked_sub(1).map(|p| &rows[p]), out.last()) {
            (Some(p), Some(e)) if p.rating.round() == r.rating.round() => e.rank,
            _ => i as u32 + 1,
        };
        let name = tx
            .user_name(&r.user_id)?
            .unwrap_or_else(|| r.user_id.to_string());
        out.push(Entry { rank, name });
    }
    Ok(out)
}

/// One game's rating on a profile: the streak and last five results, from its history.
struct ProfileGame {
    streak: String,
    last_five: Vec<char>,
}

/// The streak ("3 wins") and the last five results (W, D, L, newest first) of a history.
fn recent_results(history: &[RatingChangeRow]) -> ProfileGame {
    let letter = |s: f64| {
        if s == 1.0 {
            'W'
        } else if s == 0.0 {
            'L'
        } else {
            'D'
        }
    };
    let last_five: Vec<char> = history
        .iter()
        .rev()
        .take(5)
        .map(|c| letter(c.score))
        .collect();
    let streak = match last_five.first() {
        None => String::new(),
        Some(&first) => {
            let n = history
                .iter()
                .rev()
                .take_while(|c| letter(c.score) == first)
                .count() as u64;
            let noun = match first {
                'W' => "win",
                'L' => "loss",
                _ => "draw",
            };
            if noun == "loss" {
                if n == 1 {
                    "1 loss".into()
                } else {
                    format!("{n} losses")
                }
            } else {
                describe::count(n, noun)
            }
        }
    };
    ProfileGame { streak, last_five }
}

/// `/leaderboard [variant]`: the server's best players of a game with a rated game in the
/// last 90 days, as a picture and a short text. Without a variant, the game with the most
/// such players (the others are named).
/// A game's leaderboard on the web: its players best first, each with their id.
pub type Leaders = (Variant, Vec<(UserId, render::LeaderboardRow)>);

/// The leaderboards of `server` at `now` as the web companion shows them (`tara-bot web`):
/// each game with a rated player in the last [`LEADERBOARD_DAYS`] days, its first `limit`
/// players as `/leaderboard` ranks them (each with their id, for a link).
pub(crate) fn leaderboards(
    tx: &Tx,
    server: &ServerId,
    now: i64,
    limit: u32,
) -> Outcome<Vec<Leaders>> {
    let since = now - LEADERBOARD_DAYS * DAY;
    let mut boards = Vec::new();
    for v in Variant::ALL {
        let rows = tx.leaderboard(server, v.id(), since, limit)?;
        if rows.is_empty() {
            continue;
        }
        let board = leaderboard_rows(tx, &rows)?;
        let rows = rows
            .iter()
            .zip(board)
            .map(|(r, e)| (r.user_id.clone(), pictured_row(r, e)))
            .collect();
        boards.push((v, rows));
    }
    Ok(boards)
}

pub(crate) fn leaderboard(bot: &Bot, ctx: &Ctx, variant: Option<Variant>) -> Outcome<Vec<Out>> {
    let now = bot.now();
    let since = now - LEADERBOARD_DAYS * DAY;
    // The picture is drawn once the read is over, so the store is not held while drawing.
    let (mut reply, picture) = bot.read(|tx| {
        let mut active: Vec<(Variant, u32)> = Vec::new();
        // One rating per variant (docs/rules.md §10, ratings: kingdoms and knots share one).
        for v in Variant::ALL {
            let n = tx.active_rated_players(&ctx.server, v.id(), since)?;
            if n > 0 {
                active.push((v, n));
            }
        }
        let chosen = match variant {
            Some(v) => v,
            None => match active.iter().max_by_key(|(v, n)| (*n, std::cmp::Reverse(v.id()))) {
                Some((v, _)) => *v,
                None => {
                    let none = Builder::new()
                        .text(
                            "No rated games in the last 90 days on this server yet. \
                             Challenges are rated unless made with `rated:false`.",
                        )
                        .build();
                    return Ok((none, None));
                }
            },
        };
        let rows = tx.leaderboard(&ctx.server, chosen.id(), since, LEADERBOARD_ROWS)?;
        let total = tx.active_rated_players(&ctx.server, chosen.id(), since)?;
        let mut b = Builder::new().text(format!(
            "**Leaderboard · {} ({})** · players with a rated game in the last {LEADERBOARD_DAYS} days",
            chosen.name(),
            chosen.id()
        ));
        if rows.is_empty() {
            b = b.text("\nNobody yet.");
        }
        let board = leaderboard_rows(tx, &rows)?;
        for (row, entry) in rows.iter().zip(&board).take(LEADERBOARD_TEXT_ROWS) {
            b = b
                .text(format!("\n{}. ", entry.rank))
                .user(&row.user_id, &entry.name)
                .text(format!(
                    " {} · {} · {}W {}D {}L",
                    shown_with_rd(row.rating, row.rd),
                    describe::count(u64::from(row.games), "game"),
                    row.wins,
                    row.draws,
                    row.losses
                ));
        }
        if total as usize > LEADERBOARD_TEXT_ROWS.min(rows.len()) && !rows.is_empty() {
            b = b.text(format!(
                "\n… {} in all{}.",
                describe::count(u64::from(total), "player"),
                if total > LEADERBOARD_ROWS {
                    format!(" (the picture shows the first {LEADERBOARD_ROWS})")
                } else {
                    " (all in the picture)".into()
                }
            ));
        }
        let others: Vec<String> = active
            .iter()
            .filter(|(v, _)| *v != chosen)
            .map(|(v, n)| format!("{} ({})", v.id(), describe::count(u64::from(*n), "player")))
            .collect();
        if !others.is_empty() {
            b = b.text(format!(
                "\nAlso rated here: {}. See `/leaderboard variant:`.",
                others.join(", ")
            ));
        }
        let pictured: Vec<render::LeaderboardRow> = rows
            .iter()
            .zip(board)
            .map(|(r, e)| pictured_row(r, e))
            .collect();
        Ok((b.build(), Some((chosen, pictured))))
    })?;
    if let (Some((chosen, rows)), true) = (picture, bot.images()) {
        reply.image = Some(Attachment {
            filename: format!("leaderboard-{}.png", chosen.id()),
            bytes: render::leaderboard_png(
                &game_title(chosen),
                &format!("Players with a rated game in the last {LEADERBOARD_DAYS} days"),
                &rows,
            ),
        });
    }
    Ok(vec![Out::text(reply)])
}

/// `/profile [user]`: a player's ratings on this server (per game: rating, W/D/L, streak,
/// last five results, a rating-history chart) and their games in progress here.
/// A player's ratings on `server`, one per game, each with its results, streak, last five and
/// history: what `/profile` says and draws.
fn profile_ratings(
    tx: &Tx,
    server: &ServerId,
    who: &UserId,
) -> Outcome<Vec<render::ProfileRating>> {
    let mut pictured = Vec::new();
    for row in tx.ratings_of(server, who)? {
        let history = tx.rating_history(server, who, &row.game, HISTORY_POINTS)?;
        let card = recent_results(&history);
        let game_name = row
            .game
            .parse::<Variant>()
            .map_or(row.game.clone(), game_title);
        pictured.push(render::ProfileRating {
            game: game_name,
            rating: row.rating,
            rd: row.rd,
            provisional: row.rd > rating::PROVISIONAL_RD,
            wins: row.wins,
            draws: row.draws,
            losses: row.losses,
            streak: card.streak,
            last_five: card.last_five,
            history: history
                .iter()
                .map(|c| render::RatingPoint {
                    at_ms: c.at,
                    rating: c.after_rating,
                    rd: c.after_rd,
                })
                .collect(),
        });
    }
    Ok(pictured)
}

/// A player's games in progress on `server`, as `/profile` lists them.
fn open_games_on(tx: &Tx, server: &ServerId, who: &UserId, now: i64) -> Outcome<Vec<OpenGame>> {
    let mut open = Vec::new();
    for g in tx.active_games_of(who)? {
        if g.server_id == *server {
            open.push(open_game_line(tx, &g, who, now)?);
        }
    }
    Ok(open)
}

/// A player's profile as the web companion shows it (`tara-bot web`): the card `/profile`
/// draws (ratings per game with their history, games in progress), the games in progress and
/// the latest finished games on the server (newest first). `None` for a user never seen.
pub struct PlayerView {
    pub card: render::ProfileCard,
    pub playing: Vec<crate::store::GameRow>,
    pub finished: Vec<crate::store::GameRow>,
}

/// The web companion's view of `who` on `server` at `now`; `None` for a user never stored.
pub(crate) fn player_view(
    tx: &Tx,
    server: &ServerId,
    who: &UserId,
    now: i64,
) -> Outcome<Option<PlayerView>> {
    let Some(name) = tx.user_name(who)? else {
        return Ok(None);
    };
    let open = open_games_on(tx, server, who, now)?;
    let playing = tx
        .active_games_of(who)?
        .into_iter()
        .filter(|g| g.server_id == *server)
        .collect();
    Ok(Some(PlayerView {
        card: render::ProfileCard {
            name,
            ratings: profile_ratings(tx, server, who)?,
            open_games: open.into_iter().map(|g| g.picture).collect(),
        },
        playing,
        finished: tx.finished_games_of(server, who, None, PLAYER_GAMES)?,
    }))
}

/// Most finished games a player's web page lists.
const PLAYER_GAMES: u32 = 30;

pub(crate) fn profile(bot: &Bot, ctx: &Ctx, user: Option<User>) -> Outcome<Vec<Out>> {
    let now = bot.now();
    let who = user.unwrap_or_else(|| ctx.user.clone());
    // The card is drawn once the read is over, so the store is not held while drawing.
    let (mut reply, card) = bot.read(|tx| {
        let name = tx.user_name(&who.id)?.unwrap_or_else(|| who.name.clone());
        let mut b = Builder::new().text("**Profile** · ").user(&who.id, &name);
        let pictured = profile_ratings(tx, &ctx.server, &who.id)?;
        for r in &pictured {
            b = b.text(format!(
                "\n**{}**: {} · {}W {}D {}L{}{}",
                r.game,
                shown_with_rd(r.rating, r.rd),
                r.wins,
                r.draws,
                r.losses,
                if r.streak.is_empty() {
                    String::new()
                } else {
                    format!(" · streak: {}", r.streak)
                },
                if r.last_five.is_empty() {
                    String::new()
                } else {
                    format!(
                        " · last five: {}",
                        r.last_five
                            .iter()
                            .map(char::to_string)
                            .collect::<Vec<_>>()
                            .join(" ")
                    )
                },
            ));
        }
        if pictured.is_empty() {
            b = b.text("\nNo rated games on this server yet.");
        }
        let open = open_games_on(tx, &ctx.server, &who.id, now)?;
        if !open.is_empty() {
            b = b.text(format!("\n**Games in progress** ({}):", open.len()));
            for g in &open {
                b = b.text(format!("\n{} · ", g.text)).channel(&g.channel);
            }
        }
        let card = render::ProfileCard {
            name,
            ratings: pictured,
            open_games: open.into_iter().map(|g| g.picture).collect(),
        };
        Ok((b.build(), card))
    })?;
    if bot.images() {
        reply.image = Some(Attachment {
            filename: format!("profile-{}.png", who.id),
            bytes: render::profile_png(&card),
        });
    }
    Ok(vec![Out::text(reply)])
}
