//! Challenges: challenge, accept, decline, cancel; starting games and matches.

use super::reply::{escape_markdown, ButtonStyle, Ctx, Reply, User};
use super::session::{
    busy_channel, create_game, default_time_control, game_start, names, Bot, Fail, Out, Outcome,
};
use super::text::Builder;
use super::time::TimeControl;
use crate::game::{GameOptions, Scoring, Variant};
use crate::store::{ChallengeRow, ChallengeStatus, FirstChoice, NewChallenge, Tx};

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
    ) -> Outcome<Vec<Out>> {
        if opponent.id == ctx.user.id {
            return Err(Fail::User(
                "You cannot challenge yourself: name another player as the opponent.".into(),
            ));
        }
        GameOptions::with(variant, scoring, None).map_err(|e| Fail::User(format!("{e}.")))?;
        let first = first.unwrap_or(FirstChoice::Random);
        self.write(ctx, |tx, now| {
            tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
            tx.upsert_user(&opponent.id, &opponent.name, now)?;
            if let Some(g) = tx.active_game(&ctx.channel)? {
                return Err(Fail::User(busy_channel(tx, &g)?));
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
                    rated: false,
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
                " · {days} · {} · ",
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
                let c = tx
                    .challenge(id)?
                    .ok_or_else(|| Fail::User(format!("There is no challenge #{id}.")))?;
                if c.status != ChallengeStatus::Open {
                    return Err(Fail::User(format!(
                        "Challenge #{id} is no longer open (it was {}).",
                        match c.status {
                            ChallengeStatus::Accepted => "accepted",
                            ChallengeStatus::Declined => "declined",
                            ChallengeStatus::Cancelled => "cancelled",
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
                now,
            )?;
            tx.set_challenge_status(c.id, ChallengeStatus::Accepted, Some(game.id), now)?;
            let n = names(tx, &game)?;
            let mut start = game_start(&game, &n, why);
            start.reply.pressed_message = Some(
                answered(
                    tx,
                    &c,
                    &format!("accepted, game {} has started.", game.id),
                    None,
                )?
                .parts,
            );
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
            Ok(vec![Out::text(reply.build())])
        })
    }
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
