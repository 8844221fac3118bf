//! Challenges: challenge (to one player, or open to anyone), accept, decline, cancel, rematch;
//! starting games and matches.

use super::buttons::Press;
use super::matches::next_game_follows;
use super::options::ChallengeOptions;
use super::reply::{escape_markdown, ButtonStyle, Ctx, Part, Reply, Retire, User};
use super::session::{
    busy_channel, create_game, default_time_control, game_start, names, server_number,
    Announcement, Bot, Fail, GameEnded, GameSpec, Out, Outcome, Seating, Session,
};
use super::text::Builder;
use super::time::{plural, TimeControl, DAY};
use crate::game::{GameOptions, Scoring, Variant};
use crate::store::ChallengeId;
use crate::store::ServerSetting;
use crate::store::{
    ChallengeRow, ChallengeStatus, FirstChoice, GameId, GameRow, GameStatus, NewChallenge, Tx,
    OPEN_OPPONENT_ID,
};
use crate::store::{ChannelId, ServerId, UserId};

/// Open challenges a user may have on a server, unless the server sets `max_challenges`.
pub(crate) const DEFAULT_MAX_CHALLENGES: u32 = 10;
/// Days a challenge stays open unanswered, unless the server sets `challenge_days`.
pub(crate) const DEFAULT_CHALLENGE_DAYS: u32 = 7;
/// The shortest `challenge_days` a server may set (expiry looks no further back).
pub(crate) const MIN_CHALLENGE_DAYS: u32 = 1;

/// The refusal of a challenge to oneself.
const SELF_CHALLENGE: &str = "You cannot challenge yourself: name another player as the opponent.";

/// How many open challenges a user may have on the server.
pub(crate) fn max_challenges(tx: &Tx, server: &ServerId) -> Outcome<u32> {
    server_number(
        tx,
        server,
        ServerSetting::MAX_CHALLENGES,
        DEFAULT_MAX_CHALLENGES,
    )
}

/// How many days a challenge stays open on the server.
pub(crate) fn challenge_days(tx: &Tx, server: &ServerId) -> Outcome<u32> {
    server_number(
        tx,
        server,
        ServerSetting::CHALLENGE_DAYS,
        DEFAULT_CHALLENGE_DAYS,
    )
    .map(|d| d.max(MIN_CHALLENGE_DAYS))
}

/// Subscriber: either player may ask for a rematch of a game decided by a result: of a single
/// game at once, of a match once the match is over (never of a game against the AI, nor of a
/// tournament's, nor of a ladder's: a ladder game is played again by a new ladder challenge).
pub(crate) fn offer_rematch(s: &Session, e: &GameEnded, ann: &mut Announcement) -> Outcome<()> {
    let g = &e.game.game;
    if e.outcome.is_some()
        && g.pairing_id.is_none()
        && g.ai_levels.iter().all(Option::is_none)
        && s.tx.ladder_game_of(g.id)?.is_none()
        && !next_game_follows(s.tx, g)?
    {
        ann.text = std::mem::take(&mut ann.text).button(
            Press::Rematch(g.id),
            "Rematch",
            ButtonStyle::Primary,
        );
    }
    Ok(())
}

impl Bot {
    /// Why `ctx.user` may not challenge `opponent` now, if a limit forbids it (a challenge to
    /// oneself, an open challenge between the two, too many open challenges; for the AI, too
    /// many games against it in progress): the private refusal. Changes nothing; for an
    /// adapter that checks before opening a thread for a challenge (`/challenge` checks again).
    pub fn challenge_refusal(&self, ctx: &Ctx, opponent: Option<&User>) -> Option<Reply> {
        if opponent.is_some_and(|o| o.id == ctx.user.id) {
            return Some(Reply::private(SELF_CHALLENGE));
        }
        if opponent.is_some_and(|o| self.is_ai_user(&o.id)) {
            // A game against the AI: no challenge is stored, so no challenge limit applies,
            // only the limit on games against the AI.
            return self.ai_game_refusal(ctx);
        }
        // A failure to read is left to the command itself to report.
        self.read(|tx| challenge_limits(tx, ctx, opponent))
            .unwrap_or_default()
    }
}

/// Why a challenge from `ctx.user` to `opponent` is refused by the server's limits, if it is:
/// one open challenge per pair of players (either direction), and at most the server's
/// `max_challenges` open challenges per challenger.
/// An open challenge (`opponent` `None`) pairs the challenger with anyone: one open challenge
/// to anyone per player.
fn challenge_limits(tx: &Tx, ctx: &Ctx, opponent: Option<&User>) -> Outcome<Option<Reply>> {
    let Some(opponent) = opponent else {
        if let Some(open) =
            tx.open_challenge_between(&ctx.server, &ctx.user.id, &UserId::new(OPEN_OPPONENT_ID))?
        {
            return Ok(Some(
                Builder::new()
                    .text(format!(
                        "You already have an open challenge to anyone on this server: challenge \
                         #{} in ",
                        open.id
                    ))
                    .channel(&open.channel_id)
                    .text(". Wait for someone to accept it, or `/cancel` it first.")
                    .private()
                    .build(),
            ));
        }
        return open_count_limit(tx, ctx);
    };
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
    open_count_limit(tx, ctx)
}

/// Why `ctx.user` may not open one more challenge: the server's `max_challenges`, if reached.
fn open_count_limit(tx: &Tx, ctx: &Ctx) -> Outcome<Option<Reply>> {
    let max = max_challenges(tx, &ctx.server)?;
    let open = tx.open_challenge_count(&ctx.server, &ctx.user.id)?;
    if open >= i64::from(max) {
        // The server's limit may have been lowered below what the user already has open.
        return Ok(Some(Reply::private(format!(
            "You already have {} on this server, and it allows at most {max}. Wait for \
             answers, or `/cancel` one first (open challenges expire after {}).",
            super::time::plural(open, "open challenge"),
            super::time::plural(i64::from(challenge_days(tx, &ctx.server)?), "day")
        ))));
    }
    Ok(None)
}

/// Expires challenge `id` if it is still open and older than its server's `challenge_days`:
/// its challenger is told (pinged) in the challenge's channel.
fn expire_challenge(tx: &Tx, id: ChallengeId, now: i64) -> Outcome<Vec<Out>> {
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
    let name = |id: &UserId| tx.name_or_id(id);
    let what = if c.is_open_to_anyone() {
        format!(
            "your open challenge #{} ({}) has expired: nobody accepted it within {}",
            c.id,
            c.variant.id(),
            plural(i64::from(days), "day")
        )
    } else {
        format!(
            "your challenge #{} to {} ({}) has expired: it was not answered within {}",
            c.id,
            escape_markdown(&name(&c.opponent_id)?),
            c.variant.id(),
            plural(i64::from(days), "day")
        )
    };
    let mut reply = Builder::new()
        .ping(&c.challenger_id, &name(&c.challenger_id)?)
        .text(format!(
            ", {what}. Its buttons no longer work; `/challenge` again to offer a new game."
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
        button: Press::Accept(c.id).id(),
        text,
    }
}

/// The channel of a challenge just closed without a game, if nothing else happens in it: no
/// game was ever played there and no other challenge is open there. The adapter archives it
/// if it is a thread it opened for the challenge.
fn spent_thread(tx: &Tx, c: &ChallengeRow) -> Outcome<Option<ChannelId>> {
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
    let name = |id: &UserId| tx.name_or_id(id);
    let b = Builder::new()
        .user(&c.challenger_id, &name(&c.challenger_id)?)
        .text(" challenged ");
    let b = if c.is_open_to_anyone() {
        b.text("anyone")
    } else {
        b.user(&c.opponent_id, &name(&c.opponent_id)?)
    };
    let b = b.text(format!(
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
    user: &UserId,
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

/// What a new challenge offers.
struct Offer<'a> {
    /// The channel it is made in (a rematch: the finished game's channel).
    channel: &'a ChannelId,
    /// Who is challenged; `None`: anyone (an open challenge).
    opponent: Option<&'a User>,
    variant: Variant,
    scoring: Scoring,
    first: FirstChoice,
    days: TimeControl,
    is_match: bool,
    rated: bool,
    /// The finished game it plays again.
    rematch_of: Option<GameId>,
}

/// Stores a challenge from `ctx.user` and announces it: an addressed one pings its opponent and
/// carries Accept and Decline buttons; an open one pings nobody and carries Accept and
/// Withdraw buttons.
fn post_challenge(tx: &Tx, ctx: &Ctx, o: &Offer, now: i64) -> Outcome<Out> {
    let id = tx.insert_challenge(
        &NewChallenge {
            server_id: &ctx.server,
            channel_id: o.channel,
            challenger_id: &ctx.user.id,
            opponent_id: &o
                .opponent
                .map_or_else(|| UserId::new(OPEN_OPPONENT_ID), |u| u.id.clone()),
            variant: o.variant,
            scoring: o.scoring,
            first: o.first,
            is_match: o.is_match,
            days_per_move: o.days.days(),
            rated: o.rated,
        },
        now,
    )?;
    let name = o.variant.name();
    let b = Builder::new().user(&ctx.user.id, &ctx.user.name);
    let mut b = match (o.opponent, o.rematch_of) {
        (Some(u), Some(game)) => b
            .text(" asks ")
            .ping(&u.id, &u.name)
            .text(format!(" for a rematch of game {}: **{name}**", game.0)),
        (Some(u), None) => b
            .text(" challenges ")
            .ping(&u.id, &u.name)
            .text(format!(" to **{name}**")),
        (None, _) => b.text(format!(" challenges anyone to **{name}**")),
    };
    if o.variant.allows_knots() {
        b = b.text(format!(" · scored by {}", o.scoring));
    }
    b = b.text(format!(
        " · {} · {} · {} · ",
        o.days,
        if o.rated { "rated" } else { "casual" },
        if o.is_match {
            "a two-game match (each player starts one game)"
        } else {
            "a single game"
        },
    ));
    b = match (o.first, o.opponent) {
        (FirstChoice::Random, _) => b.text("who starts is drawn by lot"),
        (FirstChoice::Challenger, _) => b.user(&ctx.user.id, &ctx.user.name).text(" starts"),
        (FirstChoice::Opponent, Some(u)) => b.user(&u.id, &u.name).text(" starts"),
        (FirstChoice::Opponent, None) => b.text("whoever accepts starts"),
    };
    b = b.text(".");
    b = if o.opponent.is_some() {
        b.text(format!(" (challenge #{id}: `/accept` or `/decline`)"))
            .yes_no(
                (Press::Accept(id), "Accept"),
                (Press::Decline(id), "Decline"),
            )
    } else {
        let days = challenge_days(tx, &ctx.server)?;
        b.text(format!(
            " (open challenge #{id}: anyone else may accept it with the button or `/accept {id}`; \
             it expires after {}.)",
            plural(i64::from(days), "day")
        ))
        .button(Press::Accept(id), "Accept", ButtonStyle::Success)
        .button(Press::Cancel(id), "Withdraw", ButtonStyle::Secondary)
    };
    let mut reply = b.build();
    if *o.channel != ctx.channel {
        // A rematch asked for from elsewhere is posted where the game was played.
        reply.channel = Some(o.channel.clone());
    }
    Ok(Out::text(reply))
}

/// The game a rematch of `game` copies who moved first from, and whether it is a match: the
/// game itself, or for a match game the match's first game, once the match is over.
fn rematch_base(tx: &Tx, game: &GameRow) -> Outcome<(GameRow, bool)> {
    let Some(match_id) = game.match_id else {
        return Ok((game.clone(), false));
    };
    let m = tx
        .match_row(match_id)?
        .ok_or_else(|| Fail::User(format!("Match {match_id} is missing.")))?;
    if !m.finished {
        return Err(Fail::User(format!(
            "Game {} belongs to a match still being played; a rematch of the match can be asked \
             for once the match is over.",
            game.id.0
        )));
    }
    let first = tx
        .match_games(match_id)?
        .into_iter()
        .rfind(|g| g.match_game == Some(1) && g.status == GameStatus::Finished)
        .unwrap_or_else(|| game.clone());
    Ok((first, true))
}

/// `/challenge`: a challenge to `opponent`, with Accept and Decline buttons; without an
/// opponent, an open challenge that anyone but the challenger may accept.
pub(crate) fn challenge(bot: &Bot, ctx: &Ctx, options: ChallengeOptions) -> Outcome<Vec<Out>> {
    if options
        .opponent
        .as_ref()
        .is_some_and(|o| bot.is_ai_user(&o.id))
    {
        return super::ai_games::challenge_ai(bot, ctx, options);
    }
    let ChallengeOptions {
        opponent,
        variant,
        scoring,
        first,
        days,
        is_match,
        rated,
    } = options;
    let rated = rated.unwrap_or(true);
    if opponent.as_ref().is_some_and(|o| o.id == ctx.user.id) {
        return Err(Fail::User(SELF_CHALLENGE.into()));
    }
    GameOptions::with(variant, scoring, None).map_err(|e| Fail::User(format!("{e}.")))?;
    let first = first.unwrap_or(FirstChoice::Random);
    bot.write(ctx, |tx, now| {
        tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
        if let Some(o) = &opponent {
            tx.upsert_user(&o.id, &o.name, now)?;
        }
        if let Some(g) = tx.active_game(&ctx.channel)? {
            return Err(Fail::User(busy_channel(tx, &g)?));
        }
        if let Some(refusal) = challenge_limits(tx, ctx, opponent.as_ref())? {
            // Refused: nothing is stored (the refusal may carry a channel link, so it is
            // returned as a private reply rather than as a plain-text failure).
            return Ok(vec![Out::text(refusal)]);
        }
        let days = match days {
            Some(d) => d,
            None => default_time_control(tx, &ctx.server)?,
        };
        let offer = Offer {
            channel: &ctx.channel,
            opponent: opponent.as_ref(),
            variant,
            scoring: scoring.unwrap_or_default(),
            first,
            days,
            is_match,
            rated,
            rematch_of: None,
        };
        Ok(vec![post_challenge(tx, ctx, &offer, now)?])
    })
}

/// `/rematch` (or a finished game's Rematch button): a challenge from one player of a
/// finished game to the other, with the same variant, scoring, days per move and rated
/// flag, and the first move swapped. A match game is played again as a whole match, and
/// only once the match is over; the player who started its first game moves second in the
/// new match's first game.
pub(crate) fn rematch(bot: &Bot, ctx: &Ctx, game_id: Option<GameId>) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, now| {
        tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
        let game = match game_id {
            Some(id) => tx
                .game(id)?
                .filter(|g| g.server_id == ctx.server)
                .ok_or_else(|| Fail::User(format!("There is no game {id} on this server.")))?,
            None => tx.latest_game(&ctx.channel)?.ok_or_else(|| {
                Fail::User(
                    "No game has been played in this channel yet, so there is nothing to \
                     play again; `/challenge` offers a game."
                        .into(),
                )
            })?,
        };
        let seat = game.seat_of(&ctx.user.id).ok_or_else(|| {
            Fail::User(format!(
                "Only the players of game {} can ask for a rematch.",
                game.id.0
            ))
        })?;
        match game.status {
            GameStatus::Finished => {}
            GameStatus::Active => {
                return Err(Fail::User(format!(
                    "Game {} is still being played; a rematch can be asked for once it is \
                     over.",
                    game.id.0
                )))
            }
            GameStatus::Aborted => {
                return Err(Fail::User(format!(
                    "Game {} was aborted, so there is no rematch of it; `/challenge` offers \
                     a new game.",
                    game.id.0
                )))
            }
        }
        let other = seat.opponent();
        if game.ai_levels[other].is_some() {
            return Err(Fail::User(
                "A rematch is a challenge to a person; this game was against the bot's AI.".into(),
            ));
        }
        let (base, is_match) = rematch_base(tx, &game)?;
        // The first move swapped: whoever moved second moves first.
        let first_mover = &base.seats[base.options.first];
        let first = if *first_mover == ctx.user.id {
            FirstChoice::Opponent
        } else {
            FirstChoice::Challenger
        };
        let n = names(tx, &game)?;
        let opponent = User::of(game.seats[other].clone(), n[other].clone());
        if let Some(g) = tx.active_game(&game.channel_id)? {
            return Err(Fail::User(busy_channel(tx, &g)?));
        }
        if let Some(refusal) = challenge_limits(tx, ctx, Some(&opponent))? {
            return Ok(vec![Out::text(refusal)]);
        }
        let days = match game.days_per_move {
            Some(d) => TimeControl::DaysPerMove(d),
            None => TimeControl::NoClock,
        };
        let offer = Offer {
            channel: &game.channel_id,
            opponent: Some(&opponent),
            variant: game.options.variant,
            scoring: game.options.scoring,
            first,
            days,
            is_match,
            rated: game.rated,
            rematch_of: Some(game.id),
        };
        let posted = post_challenge(tx, ctx, &offer, now)?;
        if game.channel_id == ctx.channel {
            return Ok(vec![posted]);
        }
        // Asked for from elsewhere: the challenge goes where the game was played.
        let note = Builder::new()
            .text("Your rematch challenge is posted in ")
            .channel(&game.channel_id)
            .text(", where the game was played.")
            .private()
            .build();
        Ok(vec![Out::text(note), posted])
    })
}

/// The open challenge a command refers to: by id, or the newest one here involving the
/// user in the given role (with `take_open`, else one open to anyone).
fn find_challenge(
    tx: &Tx,
    ctx: &Ctx,
    id: Option<ChallengeId>,
    as_challenger: bool,
    take_open: bool,
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
        None => {
            let open = tx.open_challenges(&ctx.channel)?;
            let mine = |c: &&ChallengeRow| {
                if as_challenger {
                    c.challenger_id == ctx.user.id
                } else {
                    c.opponent_id == ctx.user.id
                }
            };
            // To accept: one addressed to the user first, else one open to anyone.
            let anyones =
                |c: &&ChallengeRow| c.is_open_to_anyone() && c.challenger_id != ctx.user.id;
            open.iter()
                .find(mine)
                .or_else(|| open.iter().find(anyones).filter(|_| take_open))
                .cloned()
                .ok_or_else(|| {
                    Fail::User(if as_challenger {
                        "You have no open challenge in this channel.".into()
                    } else {
                        "There is no open challenge for you in this channel.".into()
                    })
                })
        }
    }
}

pub(crate) fn accept(bot: &Bot, ctx: &Ctx, id: Option<ChallengeId>) -> Outcome<Vec<Out>> {
    let coin = bot.coin();
    bot.write(ctx, |tx, now| {
        tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
        let mut c = find_challenge(tx, ctx, id, false, true)?;
        if c.is_open_to_anyone() && c.challenger_id != ctx.user.id {
            // An open challenge: whoever accepts it first becomes the opponent.
            tx.take_open_challenge(c.id, &ctx.user.id, now)?;
            c.opponent_id = ctx.user.id.clone();
        }
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
        let spec = GameSpec {
            server: &c.server_id,
            channel: &c.channel_id,
            variant: c.variant,
            scoring: c.scoring,
            seating: Seating::people([&c.challenger_id, &c.opponent_id], challenger_first),
            match_game: match_id.map(|m| (m, 1)),
            days_per_move: c.days_per_move,
            rated: c.rated,
            pairing: None,
        };
        let game = create_game(tx, spec, now)?;
        tx.set_challenge_status(c.id, ChallengeStatus::Accepted, Some(game.id), now)?;
        let n = names(tx, &game)?;
        let mut start = game_start(&game, &n, why);
        let text = answered(
            tx,
            &c,
            &format!("accepted, game {} has started.", game.id.0),
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
pub(crate) fn decline(bot: &Bot, ctx: &Ctx, id: Option<ChallengeId>) -> Outcome<Vec<Out>> {
    close_challenge(bot, ctx, id, ChallengeStatus::Declined)
}

/// `/cancel`: the challenger withdraws a challenge.
pub(crate) fn cancel(bot: &Bot, ctx: &Ctx, id: Option<ChallengeId>) -> Outcome<Vec<Out>> {
    close_challenge(bot, ctx, id, ChallengeStatus::Cancelled)
}

/// Declines (the opponent) or cancels (the challenger) an open challenge.
fn close_challenge(
    bot: &Bot,
    ctx: &Ctx,
    id: Option<ChallengeId>,
    status: ChallengeStatus,
) -> Outcome<Vec<Out>> {
    let by_challenger = status == ChallengeStatus::Cancelled;
    bot.write(ctx, |tx, now| {
        // `/decline` alone finds a challenge open to anyone too, to say why it cannot.
        let c = find_challenge(tx, ctx, id, by_challenger, !by_challenger)?;
        if !by_challenger && c.is_open_to_anyone() && c.challenger_id != ctx.user.id {
            return Err(Fail::User(format!(
                "Challenge #{} is open to anyone, so there is nothing to decline: an open \
                 challenge is withdrawn by its author (`/cancel`) or simply expires. \
                 `/accept {}` takes it.",
                c.id, c.id
            )));
        }
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

/// Expires every open challenge left unanswered for its server's `challenge_days`, each in
/// its own transaction (so that each is expired, and its challenger told, exactly once,
/// even with several processes ticking). Returns the notices, each naming its channel.
pub(crate) fn expire_challenges(bot: &Bot, now: i64) -> Vec<Reply> {
    let candidates = bot
        .read(|tx| Ok(tx.open_challenges_made_before(now - i64::from(MIN_CHALLENGE_DAYS) * DAY)?));
    let candidates = match candidates {
        Ok(c) => c,
        Err(e) => {
            tracing::error!(error = ?e, "reading open challenges failed");
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for c in candidates {
        match bot.write_owed(None, now, |tx, now| expire_challenge(tx, c.id, now)) {
            Ok(replies) => out.extend(replies),
            Err(Fail::User(_)) => {}
            Err(Fail::Store(e)) => {
                tracing::error!(error = %e, challenge = c.id.0, "expiring a challenge failed")
            }
        }
    }
    out
}
