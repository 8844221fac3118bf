//! Challenges: challenge, accept, decline, cancel; starting games and matches.

use super::text::{self, Builder};
use super::{Bot, ButtonStyle, Ctx, Fail, Out, Outcome, User};
use crate::game::{GameOptions, Position, Scoring, Side, Variant};
use crate::render::Frame;
use crate::store::{
    ChallengeRow, ChallengeStatus, FirstChoice, GameRow, NewChallenge, NewGame, Tx,
};

/// The stored names of a game's two players (their ids when unknown).
pub(crate) fn names(tx: &Tx, game: &GameRow) -> Outcome<[String; 2]> {
    let n =
        |id: &str| -> Outcome<String> { Ok(tx.user_name(id)?.unwrap_or_else(|| id.to_string())) };
    Ok([n(&game.seats[0])?, n(&game.seats[1])?])
}

/// "there is already a game here" with the game's players.
pub(crate) fn busy_channel(tx: &Tx, game: &GameRow) -> Outcome<String> {
    let n = names(tx, game)?;
    Ok(format!(
        "A game is already running in this channel ({} {} vs {} {}). Finish it first, or play in \
         another channel or thread.",
        text::side_of(game, 0).name(),
        n[0],
        text::side_of(game, 1).name(),
        n[1]
    ))
}

/// The announcement of a game that starts now, with its board.
pub(crate) fn game_start(game: &GameRow, names: &[String; 2], why_first: &str) -> Out {
    let pos = Position::new(game.options);
    let first = game.options.first;
    let seat = first.index();
    let mut b = Builder::new()
        .text(format!("**Game on!** {} · ", game.options.variant.name()))
        .text(format!("{}: ", text::side_of(game, 0).name()))
        .user(&game.seats[0], &names[0])
        .text(format!(" · {}: ", text::side_of(game, 1).name()))
        .user(&game.seats[1], &names[1]);
    if game.options.variant.allows_knots() {
        b = b.text(format!(" · scored by {}", game.options.scoring));
    }
    if let (Some(_), Some(n)) = (game.match_id, game.match_game) {
        b = b.text(format!(" · match game {n} of 2"));
    }
    if let Some(d) = game.days_per_move {
        b = b.text(format!(
            " · {d} day{} per move",
            if d == 1 { "" } else { "s" }
        ));
    }
    b = b
        .text(format!(
            "\n{} first ({why_first}). ",
            match first {
                Side::Attackers | Side::Defenders =>
                    format!("The {} move", first.name().to_lowercase()),
                _ => format!("{} moves", first.name()),
            }
        ))
        .ping(&game.seats[seat], &names[seat])
        .text(match game.options.variant {
            Variant::Hkot1 | Variant::Hkot2 => {
                ", your move: place your first king and ringfort, e.g. `/move D4`."
            }
            Variant::SacredHill1 | Variant::SacredHill2 => {
                ", your move: build your first ringfort anywhere, e.g. `/move D4`."
            }
            Variant::ArdRi => ", your move: step one attacker, e.g. `/move d2-c2`.",
        });
    Out {
        reply: b.build(),
        board: Some((
            pos,
            Frame::new(names.clone(), None),
            format!("game-{}-start.png", game.id),
        )),
    }
}

impl Bot {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn challenge(
        &self,
        ctx: &Ctx,
        opponent: &User,
        variant: &str,
        scoring: Option<&str>,
        first: Option<&str>,
        is_match: bool,
        days: Option<&str>,
    ) -> Outcome<Vec<Out>> {
        if opponent.id == ctx.user.id {
            return Err(Fail::User(
                "You cannot challenge yourself: name another player as the opponent.".into(),
            ));
        }
        let variant: Variant = variant
            .parse()
            .map_err(|e: crate::game::UnknownVariant| Fail::User(format!("{e}.")))?;
        let scoring = match scoring {
            None => None,
            Some(s) => Some(
                s.parse::<Scoring>()
                    .map_err(|e| Fail::User(format!("{e}.")))?,
            ),
        };
        GameOptions::with(variant, scoring, None).map_err(|e| Fail::User(format!("{e}.")))?;
        let first = match first.map(|f| f.trim().to_ascii_lowercase()).as_deref() {
            None | Some("") | Some("random") => FirstChoice::Random,
            Some("me") | Some("challenger") => FirstChoice::Challenger,
            Some("opponent") | Some("them") => FirstChoice::Opponent,
            Some(other) => {
                return Err(Fail::User(format!(
                    "'{other}' is not a choice for who starts: use random, me or opponent."
                )))
            }
        };
        let days = match days {
            Some(d) => Some(super::clock::parse_days(d).map_err(|e| Fail::User(format!("{e}.")))?),
            None => None,
        };
        let now = self.now();
        let mut store = self.store();
        store.write(|tx| {
            tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
            tx.upsert_user(&opponent.id, &opponent.name, now)?;
            if let Some(g) = tx.active_game(&ctx.channel)? {
                return Err(Fail::User(busy_channel(tx, &g)?));
            }
            let days = match days {
                Some(d) => d,
                None => super::clock::default_days(tx, &ctx.server)?,
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
                    rated: false,
                    days_per_move: days,
                },
                now,
            )?;
            let who_starts = match first {
                FirstChoice::Random => "who starts is drawn by lot".to_string(),
                FirstChoice::Challenger => format!("{} starts", ctx.user.name),
                FirstChoice::Opponent => format!("{} starts", opponent.name),
            };
            let mut b = Builder::new()
                .user(&ctx.user.id, &ctx.user.name)
                .text(" challenges ")
                .ping(&opponent.id, &opponent.name)
                .text(format!(" to **{}**", variant.name()));
            if variant.allows_knots() {
                b = b.text(format!(" · scored by {}", scoring.unwrap_or_default()));
            }
            b = b
                .text(format!(
                    " · {} · {} · {}.",
                    match days {
                        Some(d) => format!("{d} day{} per move", if d == 1 { "" } else { "s" }),
                        None => "no clock".to_string(),
                    },
                    if is_match {
                        "a two-game match (each player starts one game)"
                    } else {
                        "a single game"
                    },
                    who_starts
                ))
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
        let now = self.now();
        let coin = self.coin();
        let mut store = self.store();
        store.write(|tx| {
            tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
            let c = Bot::find_challenge(tx, ctx, id, false)?;
            if c.opponent_id != ctx.user.id {
                let msg = if c.challenger_id == ctx.user.id {
                    "You cannot accept your own challenge; `/cancel` withdraws it.".to_string()
                } else {
                    let name = tx.user_name(&c.opponent_id)?.unwrap_or_default();
                    format!("Only {name} can accept challenge #{}.", c.id)
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

    pub(crate) fn decline(&self, ctx: &Ctx, id: Option<i64>) -> Outcome<Vec<Out>> {
        let now = self.now();
        let mut store = self.store();
        store.write(|tx| {
            let c = Bot::find_challenge(tx, ctx, id, false)?;
            if c.opponent_id != ctx.user.id {
                return Err(Fail::User(if c.challenger_id == ctx.user.id {
                    "That is your own challenge; `/cancel` withdraws it.".into()
                } else {
                    format!("Challenge #{} is not addressed to you.", c.id)
                }));
            }
            tx.set_challenge_status(c.id, ChallengeStatus::Declined, None, now)?;
            let challenger = tx.user_name(&c.challenger_id)?.unwrap_or_default();
            let reply = Builder::new()
                .ping(&c.challenger_id, &challenger)
                .text(format!(
                    ", {} declined your challenge #{} ({}).",
                    ctx.user.name,
                    c.id,
                    c.variant.id()
                ))
                .build();
            Ok(vec![Out::text(reply)])
        })
    }

    pub(crate) fn cancel(&self, ctx: &Ctx, id: Option<i64>) -> Outcome<Vec<Out>> {
        let now = self.now();
        let mut store = self.store();
        store.write(|tx| {
            let c = Bot::find_challenge(tx, ctx, id, true)?;
            if c.challenger_id != ctx.user.id {
                return Err(Fail::User(if c.opponent_id == ctx.user.id {
                    format!(
                        "Only the challenger can cancel challenge #{}; `/decline` turns it down.",
                        c.id
                    )
                } else {
                    format!("Challenge #{} is not yours to cancel.", c.id)
                }));
            }
            tx.set_challenge_status(c.id, ChallengeStatus::Cancelled, None, now)?;
            let reply = Builder::new()
                .text(format!(
                    "{} withdrew challenge #{} ({}).",
                    ctx.user.name,
                    c.id,
                    c.variant.id()
                ))
                .build();
            Ok(vec![Out::text(reply)])
        })
    }
}

/// Creates a game between `players` (challenger, opponent). Tara: the challenger is Red and
/// the first player is Red or Blue; Ard Rí: whoever moves first plays the attackers.
#[allow(clippy::too_many_arguments)]
pub(crate) fn create_game(
    tx: &Tx,
    server_id: &str,
    channel_id: &str,
    variant: Variant,
    scoring: Scoring,
    players: [&str; 2],
    challenger_first: bool,
    match_game: Option<(i64, i64)>,
    days_per_move: Option<u32>,
    now: i64,
) -> Outcome<GameRow> {
    let (seats, first) = if variant.is_tara() {
        let first = if challenger_first {
            Side::Red
        } else {
            Side::Blue
        };
        (players, first)
    } else if challenger_first {
        (players, Side::Attackers)
    } else {
        ([players[1], players[0]], Side::Attackers)
    };
    let options = GameOptions::with(variant, Some(scoring), Some(first))
        .map_err(|e| Fail::User(format!("{e}.")))?;
    let id = tx.insert_game(
        &NewGame {
            server_id,
            channel_id,
            options,
            seats,
            match_id: match_game.map(|m| m.0),
            match_game: match_game.map(|m| m.1),
            pairing_id: None,
            rated: false,
            ai_levels: [None, None],
            days_per_move,
        },
        now,
    )?;
    let game = tx.game(id)?.ok_or_else(|| {
        Fail::Store(crate::store::StoreError::Corrupt(format!(
            "game {id} vanished"
        )))
    })?;
    // The first mover's clock starts now.
    let first = game.seats[game.options.first.index()].clone();
    let clock = super::clock::turn_clock(tx, &game, &first, now)?;
    tx.start_turn(id, now, clock)?;
    Ok(tx.game(id)?.unwrap_or(game))
}
