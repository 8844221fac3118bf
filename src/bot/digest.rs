//! The daily digest (`/settings digest:HH:MM tz:Zone`): once a day, at that time in the
//! player's time zone, one direct message listing every game where it is their move, on every
//! server, the least time left first (as Lichess's correspondence digest): the time left, the
//! opponent, a link to the game's channel or thread, and the boards in one picture. It is owed
//! through the outbox in the transaction that records the day as sent, so it comes once a day,
//! never twice, and survives restarts. A player whose direct messages are closed gets it
//! nowhere: the digest pauses and they are told once, in the channel of a game of theirs.

use super::outbox;
use super::reply::{Attachment, Reply};
use super::session::{load_game, names, Bot, Fail, Outcome};
use super::text::Builder;
use super::time::left_text;
use crate::game::describe;
use crate::render::{digest_png, Frame, DIGEST_BOARDS};
use crate::store::{GameRow, MessageId, Tx, UserId, UserSetting};
use chrono::{NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;

/// The most games a digest lists (the picture shows the first [`DIGEST_BOARDS`]).
const LISTED: usize = 25;

/// Reads a time of day, `HH:MM` (or `H:MM`), or `off`: `None` for off.
pub(crate) fn read_time(text: &str) -> Result<Option<NaiveTime>, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    let shown: String = t.chars().filter(|c| *c != '`').take(20).collect();
    let bad = || {
        format!(
            "`{shown}` is not a time of day: write it as HH:MM on a 24-hour clock, e.g. \
             `08:30`, or `off` to stop the digest."
        )
    };
    let (h, m) = t.split_once(':').ok_or_else(bad)?;
    let digits = |s: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit())
    };
    if !digits(h, 1..=2) || !digits(m, 2..=2) {
        return Err(bad());
    }
    let (h, m): (u32, u32) = (h.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?);
    NaiveTime::from_hms_opt(h, m, 0).map(Some).ok_or_else(bad)
}

/// Reads a time zone from the IANA database (`Europe/Dublin`, `UTC`), in any case.
pub(crate) fn read_zone(text: &str) -> Result<Tz, String> {
    let t = text.trim();
    t.parse::<Tz>()
        .ok()
        .or_else(|| Tz::from_str_insensitive(t).ok())
        .ok_or_else(|| {
            let shown: String = t.chars().filter(|c| *c != '`').take(40).collect();
            format!(
                "`{shown}` is not a time zone: use a name from the IANA time zone database, \
                 e.g. `Europe/Dublin`, `America/New_York`, `Asia/Kolkata` or `UTC`."
            )
        })
}

/// The player's digest time and zone, if they have one.
fn setting_of(tx: &Tx, user: &UserId) -> Outcome<Option<(NaiveTime, Tz)>> {
    let Some(time) = tx.user_setting(user, UserSetting::DIGEST_TIME)? else {
        return Ok(None);
    };
    let Ok(Some(time)) = read_time(&time) else {
        return Ok(None);
    };
    let zone = tx
        .user_setting(user, UserSetting::DIGEST_ZONE)?
        .and_then(|z| read_zone(&z).ok())
        .unwrap_or(Tz::UTC);
    Ok(Some((time, zone)))
}

/// The local day at `now` in `zone` (`2026-12-02`), and whether `time` has come on it.
fn local_day(now: i64, time: NaiveTime, zone: Tz) -> (String, bool) {
    let local = Utc
        .timestamp_millis_opt(now)
        .single()
        .unwrap_or_default()
        .with_timezone(&zone);
    (local.date_naive().to_string(), local.time() >= time)
}

/// Sets the caller's digest (`time`: `None` turns it off) and, when given, their time zone;
/// a digest set after today's time has come starts tomorrow. A paused digest starts again.
pub(crate) fn set(
    tx: &Tx,
    user: &UserId,
    time: Option<Option<NaiveTime>>,
    zone: Option<Tz>,
    now: i64,
) -> Outcome<()> {
    if let Some(zone) = zone {
        tx.set_user_setting(user, UserSetting::DIGEST_ZONE, zone.name())?;
    }
    if let Some(time) = time {
        match time {
            Some(t) => tx.set_user_setting(
                user,
                UserSetting::DIGEST_TIME,
                &t.format("%H:%M").to_string(),
            )?,
            None => tx.set_user_setting(user, UserSetting::DIGEST_TIME, "off")?,
        }
        tx.set_user_setting(user, UserSetting::DIGEST_PAUSED, "")?;
    }
    if let Some((time, zone)) = setting_of(tx, user)? {
        let (today, come) = local_day(now, time, zone);
        if come {
            tx.set_user_setting(user, UserSetting::DIGEST_SENT, &today)?;
        }
    }
    Ok(())
}

/// "daily at 08:30 (Europe/Dublin)", "off", or "paused: …", for `/settings`.
pub(crate) fn describe_setting(tx: &Tx, user: &UserId) -> Outcome<String> {
    let Some((time, zone)) = setting_of(tx, user)? else {
        return Ok("**off**".into());
    };
    let paused = tx
        .user_setting(user, UserSetting::DIGEST_PAUSED)?
        .is_some_and(|p| !p.is_empty());
    Ok(format!(
        "**daily at {} ({})**{}",
        time.format("%H:%M"),
        zone.name(),
        if paused {
            ", paused: your direct messages are closed to the bot"
        } else {
            ""
        }
    ))
}

/// The games where it is `user`'s move, on every server, the least time left first (those
/// without a clock last, the longest waiting first).
fn games_on_move(tx: &Tx, user: &UserId) -> Outcome<Vec<GameRow>> {
    let mut games = Vec::new();
    for game in tx.active_games_of(user)? {
        let plies = tx.move_count(game.id)? as usize;
        if game.seats[game.options.side_after(plies)] == *user {
            games.push(game);
        }
    }
    games.sort_by_key(|g| {
        (
            g.deadline_at.is_none(),
            g.deadline_at,
            g.clock_start_at,
            g.id,
        )
    });
    Ok(games)
}

/// Owes every digest that has fallen due: each player's in its own transaction, which
/// records the day as sent, so that it goes once however many processes look.
pub(crate) fn send_due(bot: &Bot, now: i64) -> Vec<Reply> {
    let users = match bot.read(|tx| Ok(tx.users_with_setting(UserSetting::DIGEST_TIME)?)) {
        Ok(u) => u,
        Err(e) => {
            tracing::error!(error = ?e, "reading the digests failed");
            return Vec::new();
        }
    };
    // Who is due, in one read: the write (one per due player) comes only when there is
    // something to send, and checks again inside.
    let due: Vec<UserId> = match bot.read(|tx| {
        let mut due = Vec::new();
        // (A time that does not read is no digest: `is_due` reads it.)
        for (user, _) in users {
            if is_due(tx, &user, now)?.is_some() {
                due.push(user);
            }
        }
        Ok(due)
    }) {
        Ok(d) => d,
        Err(e) => {
            tracing::error!(error = ?e, "reading the digests failed");
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for user in due {
        match bot.write_owed(None, now, |tx, now| digest(bot, tx, &user, now)) {
            Ok(replies) => out.extend(replies),
            Err(Fail::User(_)) => {}
            Err(Fail::Store(e)) => {
                tracing::error!(error = %e, user = %user, "sending a digest failed")
            }
        }
    }
    out
}

/// The local day (`YYYY-MM-DD`) whose digest `user` is owed at `now`, if one is: set, not
/// paused, its time come and that day not yet sent.
fn is_due(tx: &Tx, user: &UserId, now: i64) -> Outcome<Option<String>> {
    let Some((time, zone)) = setting_of(tx, user)? else {
        return Ok(None);
    };
    let (today, come) = local_day(now, time, zone);
    let sent = tx.user_setting(user, UserSetting::DIGEST_SENT)?;
    let paused = tx
        .user_setting(user, UserSetting::DIGEST_PAUSED)?
        .is_some_and(|p| !p.is_empty());
    if !come || sent.as_deref() == Some(today.as_str()) || paused {
        return Ok(None);
    }
    Ok(Some(today))
}

/// `user`'s digest, if it is due: owed (its day recorded as sent) and returned.
fn digest(bot: &Bot, tx: &Tx, user: &UserId, now: i64) -> Outcome<Vec<super::session::Out>> {
    let Some(today) = is_due(tx, user, now)? else {
        return Ok(vec![]);
    };
    tx.set_user_setting(user, UserSetting::DIGEST_SENT, &today)?;
    let games = games_on_move(tx, user)?;
    if games.is_empty() {
        // Nothing to say today.
        return Ok(vec![]);
    }
    let mut b = Builder::new().text(format!(
        "**Your daily digest** · it is your move in {}:",
        describe::count(games.len() as u64, "game")
    ));
    let mut boards = Vec::new();
    for (i, game) in games.iter().take(LISTED).enumerate() {
        let l = load_game(tx, game.clone())?;
        let n = names(tx, game)?;
        let Some(seat) = game.seat_of(user) else {
            continue;
        };
        let opponent = seat.opponent();
        let left = match game.deadline_at {
            Some(deadline) => format!("{} left", left_text(deadline - now)),
            None => "no clock".into(),
        };
        b = b
            .text(format!(
                "\n{}. **{}** against ",
                i + 1,
                game.options.variant.name()
            ))
            .user(&game.seats[opponent], &n[opponent])
            .text(format!(" · {left} · "))
            .channel(&game.channel_id)
            .text(format!(" (game {})", game.id.0));
        if boards.len() < DIGEST_BOARDS {
            let last = l.played.last().copied();
            boards.push((l.pos, Frame::new(n, last)));
        }
    }
    if games.len() > LISTED {
        b = b.text(format!(
            "\n… and {} more: `/games` in a server lists yours there.",
            games.len() - LISTED
        ));
    }
    b = b.text(format!(
        "\n{}`/settings digest:off` stops the digest; `/settings reminders:off` stops the \
         reminders of each turn.",
        if bot.images() {
            if games.len() > DIGEST_BOARDS {
                format!("The picture shows the first {DIGEST_BOARDS} boards, in this order. ")
            } else {
                "The picture shows the boards, in this order. ".to_string()
            }
        } else {
            String::new()
        }
    ));
    let mut reply = b.build();
    reply.dm = Some(user.clone());
    if bot.images() {
        reply.image = Some(Attachment {
            filename: format!("digest-{today}.png"),
            bytes: digest_png(&boards),
        });
    }
    // Owed here, so that a refusal of the direct message can be told apart as the digest's.
    let id = outbox::owe(
        tx,
        None,
        &reply,
        now,
        (bot.worker(), now + bot.in_flight_ms()),
    )?;
    reply.outbox = Some(id);
    tx.set_user_setting(user, UserSetting::DIGEST_MESSAGE, &id.0.to_string())?;
    Ok(vec![super::session::Out::text(reply)])
}

/// A direct message refused for good (`id`, given up): when it was someone's digest, the
/// digest pauses and they are told once, with a ping in the channel of their most pressing
/// game (or, with none on move, in one of their games in play). The notice, if any.
pub(crate) fn refused(tx: &Tx, id: MessageId) -> Outcome<Option<Reply>> {
    let Some((user, _)) = tx
        .users_with_setting(UserSetting::DIGEST_MESSAGE)?
        .into_iter()
        .find(|(_, v)| *v == id.0.to_string())
    else {
        return Ok(None);
    };
    tx.set_user_setting(&user, UserSetting::DIGEST_PAUSED, "dm-closed")?;
    // Where they will look: their most pressing game, else any game of theirs in play (with
    // no game in play there is no channel of theirs to say it in).
    let pressing = games_on_move(tx, &user)?.into_iter().next();
    let Some(game) = pressing.or(tx.active_games_of(&user)?.into_iter().next()) else {
        return Ok(None);
    };
    let n = names(tx, &game)?;
    let name = game
        .seat_of(&user)
        .map(|s| n[s].clone())
        .unwrap_or_default();
    let mut reply = Builder::new()
        .ping(&user, &name)
        .text(
            ", your daily digest could not reach you: Discord refuses the bot's direct messages \
             to you. It is paused; allow direct messages from this server's apps, then \
             `/settings digest:HH:MM` starts it again (or `digest:off` stops it).",
        )
        .build();
    reply.channel = Some(game.channel_id.clone());
    Ok(Some(reply))
}
