//! Challenges: challenge, accept, decline, cancel; starting games and matches.

use super::reply::{escape_markdown, ButtonStyle, Ctx, Part, Reply, Retire, User};
use super::session::{
    busy_channel, create_game, default_time_control, game_start, names, Bot, Fail, Out, Outcome,
};
use super::text::Builder;
use super::time::{plural, TimeControl, DAY};
use crate::game::{GameOptions, Scoring, Variant};
use crate::store::{ChallengeRow, ChallengeStatus, FirstChoice, NewChallenge, Tx};

/// Open challenges a user may have on a server, unless the server sets `max_challenges`.
pub(crate) const DEFAULT_MAX_CHALLENGES: u32 = 10;
/// Days a challenge stays open unanswered, unless the server sets `challenge_days`.
pub(crate) const DEFAULT_CHALLENGE_DAYS: u32 = 7;
/// The shortest `challenge_days` a server may set (expiry looks no further back).
pub(crate) const MIN_CHALLENGE_DAYS: u32 = 1;

/// The refusal of a challenge to oneself.
const SELF_CHALLENGE: &str = "You cannot challenge yourself: name another player as the opponent.";

/// A server's number setting `key`, or `default` when unset or unreadable.
fn server_number(tx: &Tx, server: &str, key: &str, default: u32) -> Outcome<u32> {
    Ok(tx
        .server_setting(server, key)?
        .and_then(|n| n.parse::<u32>().ok())
        .filter(|n| *n >= 1)
        .unwrap_or(default))
}

/// How many open challenges a user may have on the server.
pub(crate) fn max_challenges(tx: &Tx, server: &str) -> Outcome<u32> {
    server_number(tx, server, "max_challenges", DEFAULT_MAX_CHALLENGES)
}

/// How many days a challenge stays open on the server.
pub(crate) fn challenge_days(tx: &Tx, server: &str) -> Outcome<u32> {
    server_number(tx, server, "challenge_days", DEFAULT_CHALLENGE_DAYS)
        .map(|d| d.max(MIN_CHALLENGE_DAYS))
}

impl Bot {
    /// `/challenge`: a challenge to `opponent`, with Accept and Decline buttons.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn challenge(
        &self,
        ctx: &Ctx,
        opponent: User,
        variant: Variant,
        scoring: Option<Scoring>,
        first: Option<FirstChoice>,
        days: Option<TimeControl>,
        is_match: bool,
        rated: Option<bool>,
    ) -> Outcome<Vec<Out>> {
        let rated = rated.unwrap_or(true);
        if opponent.id == ctx.user.id {
            return Err(Fail::User(SELF_CHALLENGE.into()));
        }
        GameOptions::with(variant, scoring, None).map_err(|e| Fail::User(format!("{e}.")))?;
        let first = first.unwrap_or(FirstChoice::Random);
        self.write(ctx, |tx, now| {
            tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
            tx.upsert_user(&opponent.id, &opponent.name, now)?;
            if let Some(g) = tx.active_game(&ctx.channel)? {
                return Err(Fail::User(busy_channel(tx, &g)?));
            }
            if let Some(refusal) = challenge_limits(tx, ctx, &opponent)? {
                // Refused: nothing is stored (the refusal may carry a channel link, so it is
                // returned as a private reply rather than as a plain-text failure).
                return Ok(vec![Out::text(refusal)]);
            }
            let days = match days {
                Some(d) => d,
                None => default_time_control(tx, &ctx.server)?,
            };
            let id = tx.insert_challenge(
                &NewChallenge {
                    server_id: &ctx.server,
                    channel_id: &ctx.channel,
                    challenger_id: &ctx.user.id,
                    opponent_id: &opponent.id,
                    variant,
                    scoring: scoring.unwrap_or_default(),
                    first,
                    is_match,
                    days_per_move: days.days(),
                    rated,
                },
                now,
            )?;
            let mut b = Builder::new()
                .user(&ctx.user.id, &ctx.user.name)
                .text(" challenges ")
                .ping(&opponent.id, &opponent.name)
                .text(format!(" to **{}**", variant.name()));
            if variant.allows_knots() {
                b = b.text(format!(" · scored by {}", scoring.unwrap_or_default()));
            }
            b = b.text(format!(
                " · {days} · {} · {} · ",
                if rated { "rated" } else { "casual" },
                if is_match {
                    "a two-game match (each player starts one game)"
                } else {
                    "a single game"
                },
            ));
            b = match first {
                FirstChoice::Random => b.text("who starts is drawn by lot"),
                FirstChoice::Challenger => b.user(&ctx.user.id, &ctx.user.name).text(" starts"),
                FirstChoice::Opponent => b.user(&opponent.id, &opponent.name).text(" starts"),
            };
            b = b
                .text(".")
                .text(format!(" (challenge #{id}: `/accept` or `/decline`)"))
                .button(format!("accept:{id}"), "Accept", ButtonStyle::Success)
                .button(format!("decline:{id}"), "Decline", ButtonStyle::Danger);
            Ok(vec![Out::text(b.build())])
        })
    }

    /// The open challenge a command refers to: by id, or the newest one here involving the
    /// user in the given role.
    fn find_challenge(
        tx: &Tx,
        ctx: &Ctx,
        id: Option<i64>,
        as_challenger: bool,
    ) -> Outcome<ChallengeRow> {
        match id {
            Some(id) => {
                // Only this server's challenges: another server's answers like a missing one.
                let c = tx
                    .challenge_on(&ctx.server, id)?
                    .ok_or_else(|| Fail::User(format!("There is no challenge #{id}.")))?;
                if c.status != ChallengeStatus::Open {
                    return Err(Fail::User(format!(
                        "Challenge #{id} is no longer open (it was {}).",
                        match c.status {
                            ChallengeStatus::Accepted => "accepted",
                            ChallengeStatus::Declined => "declined",
                            ChallengeStatus::Cancelled => "cancelled",
                            ChallengeStatus::Expired => "left unanswered until it expired",
                            ChallengeStatus::Open => "open",
                        }
                    )));
                }
                Ok(c)
            }
            None => tx
                .open_challenges(&ctx.channel)?
                .into_iter()
                .find(|c| {
                    if as_challenger {
                        c.challenger_id == ctx.user.id
                    } else {
                        c.opponent_id == ctx.user.id
                    }
                })
                .ok_or_else(|| {
                    Fail::User(if as_challenger {
                        "You have no open challenge in this channel.".into()
                    } else {
                        "There is no open challenge for you in this channel.".into()
                    })
                }),
        }
    }

    pub(crate) fn accept(&self, ctx: &Ctx, id: Option<i64>) -> Outcome<Vec<Out>> {
        let coin = self.coin();
        self.write(ctx, |tx, now| {
            tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
            let c = Bot::find_challenge(tx, ctx, id, false)?;
            if c.opponent_id != ctx.user.id {
                let msg = if c.challenger_id == ctx.user.id {
                    "You cannot accept your own challenge; `/cancel` withdraws it.".to_string()
                } else {
                    let name = tx.user_name(&c.opponent_id)?.unwrap_or_default();
                    format!(
                        "Only {} can accept challenge #{}.",
                        escape_markdown(&name),
                        c.id
                    )
                };
                return Err(Fail::User(msg));
            }
            if let Some(g) = tx.active_game(&c.channel_id)? {
                return Err(Fail::User(busy_channel(tx, &g)?));
            }
            let challenger_first = match c.first {
                FirstChoice::Random => coin,
                FirstChoice::Challenger => true,
                FirstChoice::Opponent => false,
            };
            let why = if c.first == FirstChoice::Random {
                "drawn by lot"
            } else {
                "as the challenge said"
            };
            let match_id = if c.is_match {
                Some(tx.insert_match(
                    &c.server_id,
                    &c.channel_id,
                    [&c.challenger_id, &c.opponent_id],
                    c.variant,
                    c.scoring,
                    now,
                )?)
            } else {
                None
            };
            let game = create_game(
                tx,
                &c.server_id,
                &c.channel_id,
                c.variant,
                c.scoring,
                [&c.challenger_id, &c.opponent_id],
                challenger_first,
                match_id.map(|m| (m, 1)),
                c.days_per_move,
                c.rated,
                now,
            )?;
            tx.set_challenge_status(c.id, ChallengeStatus::Accepted, Some(game.id), now)?;
            let n = names(tx, &game)?;
            let mut start = game_start(&game, &n, why);
            let text = answered(
                tx,
                &c,
                &format!("accepted, game {} has started.", game.id),
                None,
            )?
            .parts;
            start.reply.retire = Some(retire(&c, text.clone()));
            start.reply.pressed_message = Some(text);
            if c.channel_id == ctx.channel {
                return Ok(vec![start]);
            }
            // Accepted from elsewhere: the game is announced where it is played.
            start.reply.channel = Some(c.channel_id.clone());
            let note = Builder::new()
                .text(format!("You accepted challenge #{}; the game is in ", c.id))
                .channel(&c.channel_id)
                .text(".")
                .private()
                .build();
            Ok(vec![Out::text(note), start])
        })
    }

    /// `/decline`: the opponent turns a challenge down.
    pub(crate) fn decline(&self, ctx: &Ctx, id: Option<i64>) -> Outcome<Vec<Out>> {
        self.close_challenge(ctx, id, ChallengeStatus::Declined)
    }

    /// `/cancel`: the challenger withdraws a challenge.
    pub(crate) fn cancel(&self, ctx: &Ctx, id: Option<i64>) -> Outcome<Vec<Out>> {
        self.close_challenge(ctx, id, ChallengeStatus::Cancelled)
    }

    /// Declines (the opponent) or cancels (the challenger) an open challenge.
    fn close_challenge(
        &self,
        ctx: &Ctx,
        id: Option<i64>,
        status: ChallengeStatus,
    ) -> Outcome<Vec<Out>> {
        let by_challenger = status == ChallengeStatus::Cancelled;
        self.write(ctx, |tx, now| {
            let c = Bot::find_challenge(tx, ctx, id, by_challenger)?;
            let (other_player, stranger) = if by_challenger {
                (
                    format!(
                        "Only the challenger can cancel challenge #{}; `/decline` turns it down.",
                        c.id
                    ),
                    format!("Challenge #{} is not yours to cancel.", c.id),
                )
            } else {
                (
                    "That is your own challenge; `/cancel` withdraws it.".to_string(),
                    format!("Challenge #{} is not addressed to you.", c.id),
                )
            };
            require_player(&c, &ctx.user.id, by_challenger, other_player, stranger)?;
            tx.set_challenge_status(c.id, status, None, now)?;
            let what = format!("challenge #{} ({})", c.id, c.variant.id());
            let reply = if by_challenger {
                Builder::new()
                    .user(&ctx.user.id, &ctx.user.name)
                    .text(format!(" withdrew {what}."))
                    .pressed_message(answered(tx, &c, "withdrawn by", Some(&ctx.user))?)
            } else {
                let challenger = tx.user_name(&c.challenger_id)?.unwrap_or_default();
                Builder::new()
                    .ping(&c.challenger_id, &challenger)
                    .text(", ")
                    .user(&ctx.user.id, &ctx.user.name)
                    .text(format!(" declined your {what}."))
                    .pressed_message(answered(tx, &c, "declined by", Some(&ctx.user))?)
            };
            let mut reply = reply.build();
            reply.retire = reply.pressed_message.clone().map(|text| retire(&c, text));
            reply.archive_channel = spent_thread(tx, &c)?;
            Ok(vec![Out::text(reply)])
        })
    }

    /// Why `ctx.user` may not challenge `opponent` now, if a limit forbids it (a challenge to
    /// oneself, an open challenge between the two, too many open challenges): the private
    /// refusal. Changes nothing; for an adapter that checks before opening a thread for a
    /// challenge (`/challenge` checks again).
    pub fn challenge_refusal(&self, ctx: &Ctx, opponent: &User) -> Option<Reply> {
        if opponent.id == ctx.user.id {
            return Some(Reply::private(SELF_CHALLENGE));
        }
        // A failure to read is left to the command itself to report.
        self.read(|tx| challenge_limits(tx, ctx, opponent))
            .unwrap_or_default()
    }

    /// Expires every open challenge left unanswered for its server's `challenge_days`, each in
    /// its own transaction (so that each is expired, and its challenger told, exactly once,
    /// even with several processes ticking). Returns the notices, each naming its channel.
    pub(crate) fn expire_challenges(&self, now: i64) -> Vec<Reply> {
        let candidates = self.read(|tx| {
            Ok(tx.open_challenges_made_before(now - i64::from(MIN_CHALLENGE_DAYS) * DAY)?)
        });
        let candidates = match candidates {
            Ok(c) => c,
            Err(e) => {
                tracing::error!(error = ?e, "reading open challenges failed");
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for c in candidates {
            match self.write_owed(None, now, |tx, now| expire_challenge(tx, c.id, now)) {
                Ok(replies) => out.extend(replies),
                Err(Fail::User(_)) => {}
                Err(Fail::Store(e)) => {
                    tracing::error!(error = %e, challenge = c.id, "expiring a challenge failed")
                }
            }
        }
        out
    }
}

/// Why a challenge from `ctx.user` to `opponent` is refused by the server's limits, if it is:
/// one open challenge per pair of players (either direction), and at most the server's
/// `max_challenges` open challenges per challenger.
fn challenge_limits(tx: &Tx, ctx: &Ctx, opponent: &User) -> Outcome<Option<Reply>> {
    if let Some(open) = tx.open_challenge_between(&ctx.server, &ctx.user.id, &opponent.id)? {
        let b = Builder::new()
            .text("There is already an open challenge between you and ")
            .user(&opponent.id, &opponent.name)
            .text(format!(": challenge #{} in ", open.id));
        return Ok(Some(
            b.channel(&open.channel_id)
                .text(if open.challenger_id == ctx.user.id {
                    ". Wait for an answer, or `/cancel` it first."
                } else {
                    ". It is addressed to you: `/accept` or `/decline` it."
                })
                .private()
                .build(),
        ));
    }
    let max = max_challenges(tx, &ctx.server)?;
    if tx.open_challenge_count(&ctx.server, &ctx.user.id)? >= i64::from(max) {
        return Ok(Some(Reply::private(format!(
            "You already have {max} open challenges on this server, the most it allows. Wait \
             for answers, or `/cancel` one first (open challenges expire after {} days).",
            challenge_days(tx, &ctx.server)?
        ))));
    }
    Ok(None)
}

/// Expires challenge `id` if it is still open and older than its server's `challenge_days`:
/// its challenger is told (pinged) in the challenge's channel.
fn expire_challenge(tx: &Tx, id: i64, now: i64) -> Outcome<Vec<Out>> {
    let Some(c) = tx.challenge(id)? else {
        return Ok(vec![]);
    };
    if c.status != ChallengeStatus::Open {
        return Ok(vec![]);
    }
    let days = challenge_days(tx, &c.server_id)?;
    if now < c.created_at + i64::from(days) * DAY {
        return Ok(vec![]);
    }
    tx.set_challenge_status(c.id, ChallengeStatus::Expired, None, now)?;
    let name =
        |id: &str| -> Outcome<String> { Ok(tx.user_name(id)?.unwrap_or_else(|| id.to_string())) };
    let mut reply = Builder::new()
        .ping(&c.challenger_id, &name(&c.challenger_id)?)
        .text(format!(
            ", your challenge #{} to {} ({}) has expired: it was not answered within {}. Its \
             buttons no longer work; `/challenge` again to offer a new game.",
            c.id,
            escape_markdown(&name(&c.opponent_id)?),
            c.variant.id(),
            plural(i64::from(days), "day")
        ))
        .build();
    reply.channel = Some(c.channel_id.clone());
    reply.archive_channel = spent_thread(tx, &c)?;
    let how = format!(
        "expired unanswered after {}.",
        plural(i64::from(days), "day")
    );
    reply.retire = Some(retire(&c, answered(tx, &c, &how, None)?.parts));
    Ok(vec![Out::text(reply)])
}

/// The challenge's message, whose Accept and Decline buttons are spent, to show `text`.
fn retire(c: &ChallengeRow, text: Vec<Part>) -> Retire {
    Retire {
        channel: c.channel_id.clone(),
        button: format!("accept:{}", c.id),
        text,
    }
}

/// The channel of a challenge just closed without a game, if nothing else happens in it: no
/// game was ever played there and no other challenge is open there. The adapter archives it
/// if it is a thread it opened for the challenge.
fn spent_thread(tx: &Tx, c: &ChallengeRow) -> Outcome<Option<String>> {
    let idle = tx.latest_game(&c.channel_id)?.is_none()
        && tx
            .open_challenges(&c.channel_id)?
            .iter()
            .all(|o| o.id == c.id);
    Ok(idle.then(|| c.channel_id.clone()))
}

/// What a challenge's message says once the challenge is answered: who challenged whom to
/// what, and `how` it was answered ("declined by Brian."). It no longer asks anyone to accept.
/// The new text of an answered challenge's message: what happened (`how`), and by whom.
fn answered(tx: &Tx, c: &ChallengeRow, how: &str, by: Option<&User>) -> Outcome<Reply> {
    let name =
        |id: &str| -> Outcome<String> { Ok(tx.user_name(id)?.unwrap_or_else(|| id.to_string())) };
    let b = Builder::new()
        .user(&c.challenger_id, &name(&c.challenger_id)?)
        .text(" challenged ")
        .user(&c.opponent_id, &name(&c.opponent_id)?)
        .text(format!(
            " to **{}** (challenge #{}): {how}",
            c.variant.name(),
            c.id
        ));
    Ok(match by {
        Some(u) => b.text(" ").user(&u.id, &u.name).text("."),
        None => b,
    }
    .build())
}

/// Lets only the challenger (or only the opponent) act on a challenge: the other player of the
/// challenge is told `other_player`, anyone else `stranger`.
fn require_player(
    c: &ChallengeRow,
    user: &str,
    as_challenger: bool,
    other_player: String,
    stranger: String,
) -> Outcome<()> {
    let (me, other) = if as_challenger {
        (&c.challenger_id, &c.opponent_id)
    } else {
        (&c.opponent_id, &c.challenger_id)
    };
    if me == user {
        Ok(())
    } else if other == user {
        Err(Fail::User(other_player))
    } else {
        Err(Fail::User(stranger))
    }
}
