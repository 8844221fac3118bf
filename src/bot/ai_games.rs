//! Games against the bot's AI: `/play-ai` (and `/challenge` naming the bot), the games where
//! the AI is to move, and applying its move. The search itself is not run here: the core stays
//! synchronous and quick, and an adapter runs the search off its event loop (see
//! `crate::ai_runner`), then hands the move back with the ply it was found for, which is
//! refused once stale, so that a search repeated (after a restart) never plays twice.

use super::clocks::expire_if_due;
use super::options::ChallengeOptions;
use super::play::play_checked;
use super::reply::{Ctx, Reply, User};
use super::session::{
    busy_channel, create_game, default_time_control, game_start, load_game, names, Bot, Fail,
    GameSpec, Out, Outcome, Seating,
};
use super::text::Builder;
use super::time::TimeControl;
use crate::ai::Level;
use crate::game::{GameOptions, Move, Position, Scoring, Variant};
use crate::store::GameId;
use crate::store::ServerId;
use crate::store::ServerSetting;
use crate::store::UserId;
use crate::store::{FirstChoice, Tx, AI_USER_ID};

/// The AI's level when none is given (`/play-ai` without a level, `/challenge` naming the bot).
pub const DEFAULT_AI_LEVEL: u8 = 3;

/// Games against the AI a player may have in progress on a server at once, unless the server
/// sets `max_ai_games`.
pub(crate) const DEFAULT_MAX_AI_GAMES: u32 = 3;

/// How many games against the AI a player may have in progress on the server at once.
pub(crate) fn max_ai_games(tx: &Tx, server: &ServerId) -> Outcome<u32> {
    super::session::server_number(
        tx,
        server,
        ServerSetting::MAX_AI_GAMES,
        DEFAULT_MAX_AI_GAMES,
    )
}

/// Why `ctx.user` may not start one more game against the AI: the server's `max_ai_games`, if
/// reached. The private refusal names the games in progress (with links, pinging nobody).
fn ai_game_limit(tx: &Tx, ctx: &Ctx) -> Outcome<Option<Reply>> {
    let max = max_ai_games(tx, &ctx.server)?;
    let games = tx.active_ai_games_of(&ctx.server, &ctx.user.id)?;
    if games.len() < max as usize {
        return Ok(None);
    }
    let mut b = Builder::new().text(format!(
        "You already have {} {} against the AI in progress on this server: ",
        games.len(),
        if games.len() == 1 { "game" } else { "games" }
    ));
    for (i, g) in games.iter().enumerate() {
        if i > 0 {
            b = b.text(", ");
        }
        b = b.text(format!("#{} in ", g.id.0)).channel(&g.channel_id);
    }
    // The server's limit may have been lowered below what the player already has.
    Ok(Some(
        b.text(format!(
            ". This server allows {max} at a time: finish one of them (or `/resign` it) first."
        ))
        .private()
        .build(),
    ))
}

/// A game where the AI is to move: what a search needs, and the ply to hand back with its move
/// ([`Bot::apply_ai_move`]).
#[derive(Clone, Debug)]
pub struct AiTurn {
    /// The game's id.
    pub game: GameId,
    /// The number of moves played so far: the AI's move will be move `ply`.
    pub ply: u32,
    /// The AI's level in this game.
    pub level: Level,
    /// The position to move in.
    pub position: Position,
    /// The search's seed (from the bot's seed, the game and the ply).
    pub seed: u64,
}

impl Bot {
    /// Why `ctx.user` may not start a game against the AI now, if the server's limit on games
    /// against the AI in progress forbids it: the private refusal. Changes nothing; for an
    /// adapter that checks before opening a thread for the game (`/play-ai` checks again).
    pub fn ai_game_refusal(&self, ctx: &Ctx) -> Option<Reply> {
        // A failure to read is left to the command itself to report.
        self.read(|tx| ai_game_limit(tx, ctx)).unwrap_or_default()
    }

    /// Every active game where the AI is to move, oldest first (for an adapter to search, on
    /// start-up and after each change). Games where the person is to move cost one count of
    /// their moves each, not a replay.
    pub fn ai_turns(&self) -> Vec<AiTurn> {
        let turns = self.read(|tx| {
            let mut turns = Vec::new();
            for game in tx.active_games_of(&UserId::new(AI_USER_ID))? {
                // Only games where the AI's seat is to move are loaded and replayed: the
                // sides alternate every ply, so the count of moves says whose turn it is.
                let plies = tx.move_count(game.id)? as usize;
                if game.ai_levels[game.options.side_after(plies)].is_none() {
                    continue;
                }
                let l = load_game(tx, game)?;
                let Some(side) = l.pos.to_move() else {
                    continue;
                };
                let Some(level) = l.game.ai_levels[side].and_then(Level::new) else {
                    continue;
                };
                let ply = l.moves.len() as u32;
                turns.push(AiTurn {
                    game: l.game.id,
                    ply,
                    level,
                    seed: self.ai_seed(l.game.id, ply),
                    position: l.pos,
                });
            }
            Ok(turns)
        });
        match turns {
            Ok(t) => t,
            Err(e) => {
                tracing::error!(error = ?e, "reading the games the AI is to move in failed");
                Vec::new()
            }
        }
    }

    /// Claims the search of the AI's move in `game` after `ply` moves ([`AiTurn::ply`]) for
    /// this process ([`Bot::worker`]), for a search of `ms` and a margin (a quarter of
    /// [`Bot::lease_ms`], 30 s by default): false while another process sharing the database
    /// holds it, or once the game has moved on from `ply`. A process that dies holding it
    /// loses it when the lease runs out.
    pub fn claim_ai_turn(&self, game: GameId, ply: u32, ms: u64) -> bool {
        let now = self.now();
        let until = now + 2 * ms as i64 + self.lease_ms() / 4;
        self.store()
            .claim(|tx| tx.claim_ai_turn(game, ply, self.worker(), now, until))
            .unwrap_or_else(|e| {
                tracing::error!(error = %e, game = game.0, "claiming the AI's move failed");
                false
            })
    }

    /// Gives up this process's claim on the AI's move in `game` (its search ended).
    pub fn release_ai_turn(&self, game: GameId) {
        if let Err(e) = self
            .store()
            .claim(|tx| tx.release_ai_turn(game, self.worker()))
        {
            tracing::error!(error = %e, game = game.0, "releasing the AI's move failed");
        }
    }

    /// Plays the AI's move `mv` in `game` as move `ply`, through the normal move path in one
    /// transaction (forced passes after it, the board and the prompt pinging the player, all
    /// stored as owed messages for the game's channel). Nothing happens, and no reply comes
    /// back, when the game has moved on from `ply` (a takeback, a resignation, the same move
    /// already played by an earlier search), when the AI is not to move, or when `mv` is not
    /// legal there.
    pub fn apply_ai_move(&self, game: GameId, ply: u32, mv: Move) -> Vec<Reply> {
        let result = self.write_owed(None, self.now(), |tx, now| {
            let Some(row) = tx.game(game)? else {
                return Ok(vec![]);
            };
            if row.status != crate::store::GameStatus::Active {
                return Ok(vec![]);
            }
            let l = load_game(tx, row)?;
            let stale = || Fail::User(String::new());
            if l.moves.len() as u32 != ply {
                return Err(stale());
            }
            let side = l.pos.to_move().ok_or_else(stale)?;
            let seat = side;
            if l.game.ai_levels[seat].is_none() || l.pos.check(mv).is_err() {
                return Err(stale());
            }
            if let Some(outs) = expire_if_due(&self.session(tx, now), &l)? {
                return Ok(outs);
            }
            let channel = l.game.channel_id.clone();
            let ai = User::new(AI_USER_ID, l.names[seat].clone());
            let mut outs = play_checked(&self.session(tx, now), l, &ai, mv)?;
            for o in &mut outs {
                if o.reply.channel.is_none() && o.reply.dm.is_none() {
                    o.reply.channel = Some(channel.clone());
                }
            }
            Ok(outs)
        });
        match result {
            Ok(replies) => replies,
            Err(Fail::User(_)) => {
                tracing::debug!(game = game.0, ply, "a stale AI move was not played");
                Vec::new()
            }
            Err(Fail::Store(e)) => {
                tracing::error!(error = %e, game = game.0, ply, "playing the AI's move failed");
                Vec::new()
            }
        }
    }
}

/// `/play-ai`: a game against the AI at `level` (default 3) in this channel, unrated; the
/// player's clock is the server's default time per move, the AI has none.
pub(crate) fn play_ai(
    bot: &Bot,
    ctx: &Ctx,
    variant: Variant,
    level: Option<u32>,
    first: Option<FirstChoice>,
    scoring: Option<Scoring>,
) -> Outcome<Vec<Out>> {
    start_ai_game(bot, ctx, variant, level, first, scoring, None)
}

/// `/challenge` naming the bot: a game against the AI at the default level. A match or a
/// rated game is refused (the AI plays single, unrated games).
pub(crate) fn challenge_ai(bot: &Bot, ctx: &Ctx, options: ChallengeOptions) -> Outcome<Vec<Out>> {
    let o = options;
    if o.is_match {
        return Err(Fail::User(
            "The bot's AI plays single games, not matches: challenge it without `match`, or \
             use `/play-ai`."
                .into(),
        ));
    }
    if o.rated == Some(true) {
        return Err(Fail::User(
            "Games against the bot's AI are never rated: challenge it without `rated`, or \
             use `/play-ai`."
                .into(),
        ));
    }
    start_ai_game(bot, ctx, o.variant, None, o.first, o.scoring, o.days)
}

fn start_ai_game(
    bot: &Bot,
    ctx: &Ctx,
    variant: Variant,
    level: Option<u32>,
    first: Option<FirstChoice>,
    scoring: Option<Scoring>,
    days: Option<TimeControl>,
) -> Outcome<Vec<Out>> {
    let level = match level {
        None => DEFAULT_AI_LEVEL,
        Some(n) => u8::try_from(n)
            .ok()
            .and_then(Level::new)
            .map(Level::number)
            .ok_or_else(|| Fail::User(format!("The AI plays at levels 1 to 5, not {n}.")))?,
    };
    GameOptions::with(variant, scoring, None).map_err(|e| Fail::User(format!("{e}.")))?;
    let coin = bot.coin();
    bot.write(ctx, |tx, now| {
        if let Some(refusal) = ai_game_limit(tx, ctx)? {
            // Refused: nothing is stored (the refusal carries channel links, so it is a
            // private reply rather than a plain-text failure).
            return Ok(vec![Out::text(refusal)]);
        }
        tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
        if let Some(g) = tx.active_game(&ctx.channel)? {
            return Err(Fail::User(busy_channel(tx, &g)?));
        }
        let (human_first, why) = match first.unwrap_or(FirstChoice::Random) {
            FirstChoice::Random => (coin, "drawn by lot"),
            FirstChoice::Challenger => (true, "as you asked"),
            FirstChoice::Opponent => (false, "as you asked"),
        };
        let days = match days {
            Some(d) => d,
            None => default_time_control(tx, &ctx.server)?,
        };
        let days = match days {
            TimeControl::DaysPerMove(d) => Some(d),
            TimeControl::NoClock => None,
        };
        let seating = Seating {
            players: [&ctx.user.id, &UserId::new(AI_USER_ID)],
            ai_levels: [None, Some(level)],
            challenger_first: human_first,
        };
        let spec = GameSpec {
            server: &ctx.server,
            channel: &ctx.channel,
            variant,
            scoring: scoring.unwrap_or_default(),
            seating,
            match_game: None,
            days_per_move: days,
            rated: false,
            pairing: None,
        };
        let game = create_game(tx, spec, now)?;
        let n = names(tx, &game)?;
        Ok(vec![game_start(&game, &n, why)])
    })
}
