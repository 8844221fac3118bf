//! Commands that only look: board, record, status, games, rules, help; and move autocomplete.

use super::board::Board;
use super::buttons::{Press, NEVER_EXPIRES, STEP_SECONDS};
use super::discussion::read_notes;
use super::reply::{code_block, escape_markdown, ButtonStyle, Ctx, Part, Reply, WebPage};
use super::session::{
    active_here, load_game, load_here, names, replay, time_left, Bot, Fail, Out, Outcome, Pick,
};
use super::text::{self, Builder};
use crate::game::{describe, BySide, GameRecord, Move, Position, Variant};
use crate::render::Frame;
use crate::store::ServerSetting;
use crate::store::{GameId, GameRow, GameStatus, Tx};

/// This channel's active game (the caller's, in a thread of several: [`active_here`]), else
/// its most recent one, if any.
pub(crate) fn channel_game(tx: &Tx, ctx: &Ctx) -> Outcome<Option<GameRow>> {
    Ok(match active_here(tx, ctx, None, Pick::Any)? {
        Some(g) => Some(g),
        None => tx.latest_game(&ctx.channel)?,
    })
}

/// The game a command means: `game` when named (one played in this channel, in progress or
/// not), else this channel's active game, else its most recent one.
fn game_here(tx: &Tx, ctx: &Ctx, game: Option<GameId>) -> Outcome<GameRow> {
    if let Some(id) = game {
        return match tx.game(id)?.filter(|g| g.server_id == ctx.server) {
            Some(g) if g.channel_id == ctx.channel => Ok(g),
            Some(_) => Err(Fail::User(format!(
                "Game {} is not played in this channel: `/game id:{}` shows it anywhere.",
                id.0, id.0
            ))),
            None => Err(Fail::User(format!("There is no game {id} on this server."))),
        };
    }
    channel_game(tx, ctx)?
        .ok_or_else(|| Fail::User("No game has been played in this channel yet.".into()))
}

/// "3 hours ago" from milliseconds.
fn ago(ms: i64) -> String {
    let mins = ms.max(0) / 60_000;
    match mins {
        0 => "just now".into(),
        1 => "1 minute ago".into(),
        m if m < 60 => format!("{m} minutes ago"),
        m if m < 48 * 60 => format!("{} ago", describe::count((m / 60) as u64, "hour")),
        m => format!("{} ago", describe::count((m / (24 * 60)) as u64, "day")),
    }
}

/// How far ahead of this process's clock a button's time may be (the clocks of several
/// processes sharing a database differ a little); a time further ahead was never given out.
const CLOCK_SKEW_SECONDS: u32 = 60;

/// Whether stepping buttons shown at `drawn` (Unix seconds) have expired at `now`: after
/// [`STEP_SECONDS`], unless they never expire ([`NEVER_EXPIRES`]). The time is the button's
/// own (it travels in its id), so one from the future, which the bot never gave out, counts
/// as expired: a forged id cannot make buttons that never expire.
fn expired(drawn: u32, now: u32) -> bool {
    drawn != NEVER_EXPIRES
        && (now.saturating_sub(drawn) > STEP_SECONDS
            || drawn > now.saturating_add(CLOCK_SKEW_SECONDS))
}

impl Bot {
    /// The dialog a pressed button opens ([`Press::dialog`]), unless it has none or its
    /// stepping buttons have expired: such a press is then run as a command
    /// ([`Command::from_button`](super::Command::from_button)), which says so.
    pub fn dialog_of(&self, custom_id: &str) -> Option<super::buttons::Dialog> {
        let press = Press::parse(custom_id)?;
        if let Press::StepJump { drawn, .. } = press {
            if expired(drawn, unix_seconds(self.now())) {
                return None;
            }
        }
        press.dialog()
    }

    /// Legal moves matching what has been typed, most useful first, at most 25 (Discord's
    /// limit on choices). Empty unless the user is the player on move in
    /// this channel's game.
    pub fn autocomplete_move(&self, ctx: &Ctx, typed: &str) -> Vec<String> {
        self.autocomplete_move_in(ctx, typed, None)
    }

    /// [`Bot::autocomplete_move`] in game `game` when the command names one (a thread that
    /// holds several games).
    pub fn autocomplete_move_in(
        &self,
        ctx: &Ctx,
        typed: &str,
        game: Option<GameId>,
    ) -> Vec<String> {
        let mut moves = self.moves_in(ctx, typed, game);
        moves.truncate(AUTOCOMPLETE_LIMIT);
        moves
    }

    /// The caller's games in progress in this channel for a command's `game` option, those
    /// where they are on move first, at most 25 (Discord's limit on choices): each a label
    /// ("#12 vs Brian · your move") and the game's number. Empty unless the channel holds
    /// several games.
    pub fn autocomplete_game(&self, ctx: &Ctx) -> Vec<(String, i64)> {
        let found = self.read(|tx| {
            let games = tx.active_games_in(&ctx.channel)?;
            if games.len() < 2 {
                return Ok(Vec::new());
            }
            let mut choices = Vec::new();
            for g in games {
                let Some(seat) = g.seat_of(&ctx.user.id) else {
                    continue;
                };
                let l = load_game(tx, g)?;
                let on_move = l.pos.to_move() == Some(seat);
                let label = format!(
                    "#{} vs {}{}",
                    l.game.id.0,
                    l.names[seat.opponent()],
                    if on_move { " · your move" } else { "" }
                );
                choices.push((!on_move, label, l.game.id.0));
            }
            choices.sort();
            Ok(choices)
        });
        found
            .unwrap_or_default()
            .into_iter()
            .take(AUTOCOMPLETE_LIMIT)
            .map(|(_, label, id)| (label.chars().take(100).collect(), id))
            .collect()
    }

    /// Every legal move matching what has been typed, most useful first (the console's
    /// `/moves`). Empty unless the user is the player on move in this channel's game.
    pub fn moves_matching(&self, ctx: &Ctx, typed: &str) -> Vec<String> {
        self.moves_in(ctx, typed, None)
    }

    fn moves_in(&self, ctx: &Ctx, typed: &str, game: Option<GameId>) -> Vec<String> {
        let Ok(l) = self.read(|tx| load_here(tx, ctx, game, Pick::OnMove)) else {
            return Vec::new();
        };
        let Some(seat) = l.game.seat_of(&ctx.user.id) else {
            return Vec::new();
        };
        if l.pos.to_move() != Some(seat) {
            return Vec::new();
        }
        rank_moves(&l.pos, typed)
    }
}

/// How many moves autocomplete offers at most (Discord's limit on choices).
const AUTOCOMPLETE_LIMIT: usize = 25;

/// A game of this server by its number; a game of another server is answered exactly as a
/// game that does not exist.
pub(crate) fn server_game(tx: &Tx, ctx: &Ctx, id: GameId) -> Outcome<GameRow> {
    tx.game(id)?
        .filter(|g| g.server_id == ctx.server)
        .ok_or_else(|| Fail::User(format!("There is no game {id} on this server.")))
}

/// "Game 12 has ended: Red wins by … " (with a line break) for a game that is over, else
/// nothing.
fn ended_line(tx: &Tx, game: &GameRow) -> Outcome<String> {
    Ok(match (&game.outcome, game.status) {
        (Some(o), _) => {
            let moves = tx.moves(game.id)?;
            let (pos, _) = replay(game, &moves, None)?;
            format!(
                "Game {} has ended: {}.\n",
                game.id.0,
                describe::result(&pos, o)
            )
        }
        (None, GameStatus::Aborted) => format!("Game {} has ended: it was aborted.\n", game.id.0),
        _ => String::new(),
    })
}

/// A game's record as `/record` and `/export` give it: comment lines (the game, the players,
/// the result) and the record that `tara-bot engine --record` and `render --record` read; and
/// the number of moves.
pub(crate) fn record_text(tx: &Tx, game: &GameRow) -> Outcome<(String, usize)> {
    let moves = tx.moves(game.id)?;
    let (pos, played) = replay(game, &moves, None)?;
    let n = names(tx, game)?;
    // Names are the players' own text: one line each, so that they stay comments.
    let n = n.map(|s| s.replace(['\n', '\r'], " "));
    let mut header = format!(
        "# game {} · {} {} vs {} {}\n",
        game.id.0,
        game.sides()[0].name(),
        n.first(),
        game.sides()[1].name(),
        n.second()
    );
    match (&game.outcome, game.status) {
        (Some(o), _) => header.push_str(&format!(
            "# result: {} · points {}\n",
            describe::result(&pos, o),
            describe::points(o, game.options.variant.sides())
        )),
        (None, GameStatus::Aborted) => header.push_str("# aborted\n"),
        _ => {}
    }
    let record = GameRecord {
        options: game.options,
        moves: played,
    };
    Ok((format!("{header}{record}"), record.moves.len()))
}

/// A game's board after `ply` moves (all when `None`), with a line about the game, and the
/// analysis marks and arrows given.
fn board_of(
    tx: &Tx,
    game: GameRow,
    ply: Option<u32>,
    marks: Option<&str>,
    arrows: Option<&str>,
    stepping: Stepping,
) -> Outcome<Vec<Out>> {
    let notes = read_notes(game.options.variant, marks, arrows).map_err(Fail::User)?;
    let moves = tx.moves(game.id)?;
    let upto = ply.map(|p| p as usize).unwrap_or(moves.len());
    if upto > moves.len() {
        return Err(Fail::User(format!(
            "The game has only {} so far; choose a ply from 0 to {}.",
            describe::count(moves.len() as u64, "move"),
            moves.len()
        )));
    }
    let (pos, played) = replay(&game, &moves, Some(upto))?;
    let n = names(tx, &game)?;
    let mut b = Builder::new().text(format!(
        "{} · {} {} vs {} {} · ",
        game.options.variant.name(),
        game.sides()[0].name(),
        escape_markdown(n.first()),
        game.sides()[1].name(),
        escape_markdown(n.second())
    ));
    b = b.text(
        if upto == moves.len() && game.status == GameStatus::Active {
            format!(
                "position now (after {})",
                describe::count(upto as u64, "move")
            )
        } else {
            format!(
                "position after {upto} of {}",
                describe::count(moves.len() as u64, "move")
            )
        },
    );
    if let Some(c) = text::counts_line(&pos) {
        b = b.text(format!("\n{c}"));
    }
    match (&game.outcome, game.status) {
        (Some(o), _) if upto == moves.len() => {
            b = b.text(format!(
                "\nThe game is over: {}. Points: ",
                describe::result(&pos, o),
            ));
            b = text::points_line(b, &game, &n, o).text(".");
        }
        (Some(_), _) => {
            // A position from before the end (a move number, a better-move button): the
            // game went on from here.
            b = b.text(format!(
                "\nThe game went on from here for {} and is over: `/board` without a move \
                 shows how it ended.",
                describe::count((moves.len() - upto) as u64, "more move")
            ));
        }
        (None, GameStatus::Aborted) => {
            b = b.text("\nThe game was aborted: no result, no points.");
        }
        (None, _) => {}
    }
    if stepping.pressed {
        b = b.text(format!("\n{}", move_in_words(&game, &n, &pos, &played)));
    }
    let b = step_buttons(
        b,
        game.id,
        upto as u32,
        moves.len() as u32,
        stepping.shared,
        stepping.drawn,
    );
    // The same position on the web: the page at that move when one was asked for.
    let page = WebPage::Game {
        id: game.id,
        ply: ply.map(|_| upto as u32),
    };
    let b = b.on_the_web(&game.server_id, page);
    Ok(vec![Out {
        reply: b.build(),
        board: Some(Board::new(
            pos,
            played.clone(),
            notes.frame(Frame::new(n, played.last().copied())),
            format!("game-{}-ply-{upto}.png", game.id.0),
        )),
    }])
}

/// The stepping buttons a board gets ([`step_buttons`]), and whether it answers one.
struct Stepping {
    /// The board answers a stepping button (or the jump dialog): it says the move in words.
    pressed: bool,
    /// Its message is public.
    shared: bool,
    /// When its buttons are shown (Unix seconds).
    drawn: u32,
}

/// "Move 7, Brian: …" for the last move of `played` (the start, before any).
fn move_in_words(game: &GameRow, n: &BySide<String>, pos: &Position, played: &[Move]) -> String {
    let Some(&last) = played.last() else {
        return "The start: no move yet.".into();
    };
    let seat = game.options.side_after(played.len() - 1);
    format!(
        "Move {}, {}: {}",
        played.len(),
        escape_markdown(&n[seat]),
        describe::last_move(pos, Some(last)).unwrap_or_else(|| last.to_string())
    )
}

/// The stepping buttons under a board of `game` at `ply` of its `last` plies: ⏮ ◀ ▶ ⏭ (those
/// that lead somewhere else: ⏮ only when it goes further back than ◀, ⏭ further on than ▶)
/// and "Jump to move…". `shared`: the message is public, so a press answers with a private
/// copy; `drawn`: when they are shown (Unix seconds; they work for [`STEP_SECONDS`]).
pub(crate) fn step_buttons(
    mut b: Builder,
    game: GameId,
    ply: u32,
    last: u32,
    shared: bool,
    drawn: u32,
) -> Builder {
    let mut to = Vec::new();
    if ply > 1 {
        to.push(("⏮", 0));
    }
    if ply > 0 {
        to.push(("◀", ply - 1));
    }
    if ply < last {
        to.push(("▶", ply + 1));
    }
    if ply + 1 < last {
        to.push(("⏭", last));
    }
    for (label, ply) in to {
        let press = Press::Step {
            game,
            ply,
            shared,
            drawn,
        };
        b = b.button(press, label, ButtonStyle::Secondary);
    }
    if last > 0 {
        let jump = Press::StepJump {
            game,
            shared,
            drawn,
        };
        b = b.button(jump, "Jump to move…", ButtonStyle::Primary);
    }
    b
}

/// The time in Unix seconds, as stepping buttons carry it.
pub(crate) fn unix_seconds(ms: i64) -> u32 {
    u32::try_from(ms.max(0) / 1000).unwrap_or(u32::MAX)
}

/// Ranks the legal moves of a position against typed text: moves that start with it first,
/// then moves that contain it (e.g. a destination); within each, captures before the rest.
/// Returns every matching move.
pub fn rank_moves(pos: &Position, typed: &str) -> Vec<String> {
    let key: String = typed
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '*')
        .collect::<String>()
        .to_ascii_lowercase();
    let mut scored: Vec<(u8, u8, String)> = Vec::new();
    for m in pos.legal_moves().iter() {
        let text = m.to_string();
        let flat: String = text
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '*')
            .collect::<String>()
            .to_ascii_lowercase();
        let place = if flat.starts_with(&key) {
            0
        } else if flat.contains(&key) {
            1
        } else {
            continue;
        };
        scored.push((place, 2 - impact(pos, *m), text));
    }
    scored.sort();
    scored.into_iter().map(|(_, _, t)| t).collect()
}

/// 2 for a move that captures a king or several pieces, 1 for one that captures a ringfort or
/// a piece, 0 otherwise.
fn impact(pos: &Position, m: Move) -> u8 {
    let mut next = pos.clone();
    next.play_unchecked(m);
    let captured = next.last_move_captures();
    if captured.kings != 0 {
        2
    } else {
        captured.pieces.min(2) as u8
    }
}

/// `/board`: this channel's game, now or after `ply` moves, with analysis marks and
/// arrows.
pub(crate) fn board(
    bot: &Bot,
    ctx: &Ctx,
    ply: Option<u32>,
    marks: Option<String>,
    arrows: Option<String>,
    game: Option<GameId>,
) -> Outcome<Vec<Out>> {
    let drawn = unix_seconds(bot.now());
    bot.read(|tx| {
        let stepping = Stepping {
            pressed: false,
            shared: true,
            drawn,
        };
        board_of(
            tx,
            game_here(tx, ctx, game)?,
            ply,
            marks.as_deref(),
            arrows.as_deref(),
            stepping,
        )
    })
}

/// The refusal of a press on expired stepping buttons, with the command that shows the board
/// again.
fn expired_buttons(id: GameId, ply: Option<u32>) -> Fail {
    Fail::User(format!(
        "These buttons have expired: they work for {} minutes after they are shown. `/game {} \
         ply:{}` shows that board again, with new buttons.",
        STEP_SECONDS / 60,
        id.0,
        ply.unwrap_or(0)
    ))
}

/// `/game id`: any game of this server by its number, now or after `ply` moves, with
/// analysis marks and arrows. With `drawn` (a stepping button pressed, or the jump dialog
/// answered: [`Press::Step`]), the board at `ply` comes privately: in place of the pressed
/// message when that is private, as a private copy of a public one (`shared`); buttons shown
/// more than [`STEP_SECONDS`] ago are refused.
#[allow(clippy::too_many_arguments)]
pub(crate) fn game(
    bot: &Bot,
    ctx: &Ctx,
    id: GameId,
    ply: Option<u32>,
    marks: Option<String>,
    arrows: Option<String>,
    drawn: Option<u32>,
    shared: bool,
) -> Outcome<Vec<Out>> {
    let now = unix_seconds(bot.now());
    if let Some(drawn) = drawn {
        if expired(drawn, now) {
            return Err(expired_buttons(id, ply));
        }
    }
    bot.read(|tx| {
        let game = server_game(tx, ctx, id)?;
        // Buttons that never expire are an analysis's, and an analysis is of a finished game
        // only: on a game in progress such an id was never given out.
        if drawn == Some(NEVER_EXPIRES) && game.status == GameStatus::Active {
            return Err(expired_buttons(id, ply));
        }
        let channel = game.channel_id.clone();
        let stepping = Stepping {
            pressed: drawn.is_some(),
            shared: drawn.is_none(),
            drawn: now,
        };
        let mut outs = board_of(tx, game, ply, marks.as_deref(), arrows.as_deref(), stepping)?;
        if let Some(first) = outs.first_mut() {
            first.reply.parts.push(Part::Text("\nPlayed in ".into()));
            first.reply.parts.push(Part::Channel(channel));
            first.reply.parts.push(Part::Text(".".into()));
            if drawn.is_some() {
                first.reply.ephemeral = true;
                first.reply.replaces_pressed = !shared;
            }
        }
        Ok(outs)
    })
}

/// `/record`: this channel's game record (of its latest game when none is in progress,
/// saying that it has ended).
pub(crate) fn record(bot: &Bot, ctx: &Ctx, game: Option<GameId>) -> Outcome<Vec<Out>> {
    bot.read(|tx| {
        let game = game_here(tx, ctx, game)?;
        let ended = ended_line(tx, &game)?;
        let (body, moves) = record_text(tx, &game)?;
        let mut reply = Builder::new()
            .text(format!("{ended}{}", code_block(&body)))
            .build();
        // Too long for one Discord message, it goes as a file.
        reply.document = Some(super::reply::Document {
            filename: format!("game-{}.txt", game.id.0),
            note: format!(
                "{ended}The record of game {} ({moves} moves) is in the attached file; it \
                 can be imported as it is.",
                game.id.0,
            ),
            text: body,
            always: false,
        });
        Ok(vec![Out::text(reply)])
    })
}

/// `/status`: this channel's game in progress, or, when none is, its latest game and how
/// it ended.
pub(crate) fn status(bot: &Bot, ctx: &Ctx, game: Option<GameId>) -> Outcome<Vec<Out>> {
    let now = bot.now();
    bot.read(|tx| {
        let game = match game {
            Some(_) => game_here(tx, ctx, game)?,
            None => channel_game(tx, ctx)?.ok_or_else(|| {
                Fail::User(
                    "There is no game in this channel. Start one with `/challenge`, or see \
                     `/games`."
                        .into(),
                )
            })?,
        };
        let l = load_game(tx, game)?;
        let mut b = Builder::new().text(format!(
            "**{}** (game {}) · {} ",
            l.game.options.variant.name(),
            l.game.id.0,
            l.game.sides()[0].name()
        ));
        b = b
            .user(l.game.seats.first(), l.names.first())
            .text(format!(" vs {} ", l.game.sides()[1].name()))
            .user(l.game.seats.second(), l.names.second())
            .text(format!(
                " · {} played",
                describe::count(l.moves.len() as u64, "move")
            ));
        let ended = l.game.ended_at.map(|t| ago(now - t)).unwrap_or_default();
        match (l.game.status, &l.game.outcome) {
            (GameStatus::Active, _) => {
                if let Some(side) = l.pos.to_move() {
                    let seat = side;
                    b = b
                        .text(format!("\n{} (", side.name()))
                        .user(&l.game.seats[seat], &l.names[seat])
                        .text(format!(
                            ") to move{}, since {}{}.",
                            l.pos.phase().map(|p| format!(" · {p}")).unwrap_or_default(),
                            ago(now - l.game.turn_started_at),
                            time_left(
                                &l.game,
                                now,
                                tx.vacation_end(&l.game.seats[seat], now)?
                            )
                            .map(|t| format!(" · {t}"))
                            .unwrap_or_else(|| " · no clock".into())
                        ));
                }
            }
            (_, Some(o)) => {
                b = b.text(format!(
                    "\n**This game is over** (it ended {ended}): {}. Points: ",
                    describe::result(&l.pos, o),
                ));
                b = text::points_line(b, &l.game, &l.names, o).text(".");
            }
            (_, None) => {
                b = b.text(format!(
                    "\n**This game was aborted** {ended}: no result, no points."
                ));
            }
        }
        if l.game.status != GameStatus::Active {
            b = b.text(" No game is in progress here: `/challenge` starts a new one.");
        }
        if let Some(c) = text::counts_line(&l.pos) {
            b = b.text(format!("\n{c}"));
        }
        if let Some(f) = l.pos.forces() {
            b = b.text(format!(
                "\nAttackers: {} · defenders: {} and the king · moves without a capture: {} (100 draws)",
                f.attackers, f.defenders, f.plies_without_capture
            ));
        }
        if let Some(m) = l.game.match_id {
            let games = tx.match_games(m)?;
            let mut done = Vec::new();
            // The games played before this one (not this one, once it has ended).
            for (g, o) in games
                .iter()
                .filter(|g| g.id < l.game.id)
                .filter_map(|g| g.outcome.as_ref().map(|o| (g, o)))
            {
                let gn = names(tx, g)?;
                done.push(format!(
                    "game {}: {} {} – {} {}",
                    g.match_game.unwrap_or(1),
                    escape_markdown(gn.first()),
                    o.points.first(),
                    o.points.second(),
                    escape_markdown(gn.second())
                ));
            }
            b = b.text(format!(
                "\nMatch {}{}",
                text::match_game(l.game.match_game.unwrap_or(1)),
                if done.is_empty() {
                    String::new()
                } else {
                    format!(" · earlier: {}", done.join(", "))
                }
            ));
        }
        Ok(vec![Out::text(b.private().build())])
    })
}

/// `/games`: the user's games in progress with the time left in each, most urgent first:
/// the games waiting for their move, then those waiting for their opponent; within each,
/// games with a clock by deadline (soonest first), then games without one by how long the
/// turn has lasted (longest first).
pub(crate) fn games(bot: &Bot, ctx: &Ctx) -> Outcome<Vec<Out>> {
    const SHOWN: usize = 25;
    let now = bot.now();
    bot.read(|tx| {
        let games = tx.active_games_of(&ctx.user.id)?;
        if games.is_empty() {
            return Ok(vec![Out::text(Reply::private(
                "You have no games in progress. `/challenge` someone!",
            ))]);
        }
        let mut rows = Vec::with_capacity(games.len());
        for g in games {
            let moves = tx.moves(g.id)?;
            let (pos, _) = replay(&g, &moves, None)?;
            let seat = g.seat_of(&ctx.user.id).unwrap_or(g.sides()[0]);
            let mover = pos.to_move();
            let yours = mover == Some(seat);
            let left = match mover {
                Some(m) => time_left(&g, now, tx.vacation_end(&g.seats[m], now)?),
                None => None,
            };
            // Sorted by: whose move, then clock or none, then deadline or turn start.
            let key = (
                !yours,
                g.deadline_at.is_none(),
                g.deadline_at.unwrap_or(g.turn_started_at),
                g.id,
            );
            rows.push((key, g, moves.len(), seat, yours, left));
        }
        rows.sort_by_key(|r| r.0);
        let mut b = Builder::new().text(format!(
            "Your games in progress ({}), most urgent first:",
            rows.len()
        ));
        for (_, g, plies, seat, yours, left) in rows.iter().take(SHOWN) {
            let n = names(tx, g)?;
            b = b
                .text(format!("\n• game {} in ", g.id.0))
                .channel(&g.channel_id)
                .text(format!(
                    ": {} against {}, you play {} · move {} · {} · {}",
                    g.options.variant.id(),
                    escape_markdown(&n[seat.opponent()]),
                    seat.name(),
                    plies + 1,
                    if *yours {
                        "**your move**"
                    } else {
                        "their move"
                    },
                    left.as_deref().unwrap_or("no clock")
                ));
        }
        if rows.len() > SHOWN {
            b = b.text(format!("\n… and {} more.", rows.len() - SHOWN));
        }
        Ok(vec![Out::text(b.private().build())])
    })
}

/// The rules as the bot applies them (`docs/rules.md`, built in), for `/rules`.
const RULES_DOC: &str = include_str!("../../docs/rules.md");
/// The most characters of a page of `/rules`: with its header line and a server's rules link
/// (at most 200 characters) it stays within a Discord message (2,000).
const RULES_PAGE_CHARS: usize = 1_700;

/// The full rules in pages of at most [`RULES_PAGE_CHARS`]: sections kept whole where they
/// fit, else cut between paragraphs; a paragraph's lines joined (Discord breaks lines where the
/// file does), lists, tables and code left as written. Made once.
fn rules_pages() -> &'static [String] {
    static PAGES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    PAGES.get_or_init(|| paginate(&blocks(&tables_as_lists(RULES_DOC)), RULES_PAGE_CHARS))
}

/// The document's Markdown tables as Discord can show them (it draws no tables): a table's
/// header in italics, then a list item a row, the cells in order joined by " — ". Code blocks
/// are left alone.
fn tables_as_lists(doc: &str) -> String {
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_start_matches('|')
            .trim_end_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    let separator = |line: &str| line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '));
    let mut out = String::with_capacity(doc.len());
    let mut code = false;
    let mut in_table = false;
    for line in doc.lines() {
        if line.starts_with("```") {
            code = !code;
        }
        let row = !code && line.trim_start().starts_with('|');
        if row && !in_table {
            out.push_str(&format!("*{}*\n", cells(line).join(" — ")));
        } else if row && !separator(line) {
            out.push_str(&format!("- {}\n", cells(line).join(" — ")));
        } else if !row {
            out.push_str(line);
            out.push('\n');
        }
        in_table = row;
    }
    out
}

/// The document's paragraphs (and headings, list items, tables, code blocks), each one piece.
fn blocks(doc: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut code = false;
    let flush = |current: &mut String, out: &mut Vec<String>| {
        if !current.trim().is_empty() {
            out.push(std::mem::take(current));
        }
        current.clear();
    };
    for line in doc.lines() {
        if line.starts_with("```") {
            if code {
                current.push_str(line);
                current.push('\n');
                flush(&mut current, &mut out);
            } else {
                flush(&mut current, &mut out);
                current.push_str(line);
                current.push('\n');
            }
            code = !code;
            continue;
        }
        if code {
            current.push_str(line);
            current.push('\n');
            continue;
        }
        let trimmed = line.trim_start();
        let starts_item = trimmed.starts_with("* ")
            || trimmed.starts_with("- ")
            || trimmed.starts_with('|')
            || trimmed
                .split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if line.trim().is_empty() {
            flush(&mut current, &mut out);
        } else if line.starts_with('#') {
            flush(&mut current, &mut out);
            out.push(format!("{line}\n"));
        } else if starts_item || current.is_empty() {
            if starts_item && !current.is_empty() && !current.ends_with('\n') {
                current.push('\n');
            }
            current.push_str(line);
        } else if current.ends_with('\n') {
            current.push_str(line);
        } else {
            // A paragraph's next line: joined to it.
            current.push(' ');
            current.push_str(trimmed);
        }
        if trimmed.starts_with('|') {
            current.push('\n');
        }
    }
    flush(&mut current, &mut out);
    out.into_iter().map(|b| b.trim_end().to_string()).collect()
}

/// Blocks packed into pages of at most `max` characters, a new page at each top-level
/// section (`## `); a heading stays on the page of the block it heads; a block longer than a
/// page is cut between lines, and a line longer than a page between words.
fn paginate(blocks: &[String], max: usize) -> Vec<String> {
    // Each heading joined to the block after it, so no page ends on a heading.
    let mut units: Vec<String> = Vec::new();
    let mut heading = String::new();
    for block in blocks {
        if block.starts_with('#') {
            if !heading.is_empty() {
                heading.push_str("\n\n");
            }
            heading.push_str(block);
            continue;
        }
        if heading.is_empty() {
            units.push(block.clone());
        } else {
            units.push(format!("{}\n\n{block}", std::mem::take(&mut heading)));
        }
    }
    if !heading.is_empty() {
        units.push(heading);
    }
    let mut pages: Vec<String> = Vec::new();
    let mut page = String::new();
    for unit in units {
        for piece in cut_to(&unit, max) {
            let section = piece.starts_with("## ");
            if !page.is_empty()
                && (section || page.chars().count() + 2 + piece.chars().count() > max)
            {
                pages.push(std::mem::take(&mut page));
            }
            if !page.is_empty() {
                page.push_str("\n\n");
            }
            page.push_str(&piece);
        }
    }
    if !page.is_empty() {
        pages.push(page);
    }
    pages
}

/// `text` in pieces of at most `max` characters: whole when it fits, else cut after a line
/// break, and a line longer than `max` after its last space within the limit (or at the
/// limit, when it has none).
fn cut_to(text: &str, max: usize) -> Vec<String> {
    if text.chars().count() <= max {
        return vec![text.to_string()];
    }
    let mut cut = Vec::new();
    let mut piece = String::new();
    for line in text.split_inclusive('\n') {
        let mut rest = line;
        loop {
            let room = max - piece.chars().count();
            if rest.chars().count() <= room {
                piece.push_str(rest);
                break;
            }
            if rest.chars().count() <= max && !piece.is_empty() {
                cut.push(std::mem::take(&mut piece));
                continue;
            }
            // A line longer than a page: as much of it as fits, up to a space where it has one.
            let limit = rest.char_indices().nth(room).map_or(rest.len(), |(i, _)| i);
            let at = rest[..limit].rfind(' ').map(|i| i + 1);
            let at = match at {
                Some(at) => at,
                None if piece.is_empty() => limit,
                None => {
                    cut.push(std::mem::take(&mut piece));
                    continue;
                }
            };
            piece.push_str(&rest[..at]);
            rest = &rest[at..];
            cut.push(std::mem::take(&mut piece));
        }
    }
    if !piece.is_empty() || cut.is_empty() {
        cut.push(piece);
    }
    cut
}

/// The page (from 1) where `variant`'s own section starts.
fn rules_page_of(variant: Variant) -> u32 {
    let tag = format!("`{}`", variant.id());
    rules_pages()
        .iter()
        .position(|p| p.lines().any(|l| l.starts_with("## ") && l.contains(&tag)))
        .map_or(1, |i| i as u32 + 1)
}

/// `/rules [variant] [page]`: without a page, a short summary (of one game, or all five) and
/// the way into the full rules; with one, that page of the full rules (`docs/rules.md`, built
/// in), with buttons to turn the pages (each replacing the page before). Privately, in a server
/// or a direct message; a server's own rules link (`/settings rules-url`) is given with them.
pub(crate) fn rules(
    bot: &Bot,
    ctx: &Ctx,
    variant: Option<Variant>,
    page: Option<u32>,
) -> Outcome<Vec<Out>> {
    let pages = rules_pages();
    let total = pages.len() as u32;
    // (In a direct message the server is `DM_SERVER`, which has no settings.)
    let link = bot
        .read(|tx| Ok(tx.server_setting(&ctx.server, ServerSetting::RULES_URL)?))?
        .filter(|u| !u.is_empty());
    let mut b = Builder::new();
    let to = |page| Press::Rules { variant, page };
    match page {
        None | Some(0) => {
            let summary = match variant {
                Some(v) => text::rules(v).to_string(),
                None => Variant::ALL
                    .iter()
                    .map(|v| text::rules(*v))
                    .collect::<Vec<_>>()
                    .join("\n\n"),
            };
            let start = variant.map_or(1, rules_page_of);
            b = b.text(format!(
                "{summary}\n\nThe full rules as tara-bot applies them are here too, in {total} \
                 pages: the button below, or `/rules page:{start}`{}.",
                if variant.is_some() {
                    " (this game's own section)"
                } else {
                    ""
                }
            ));
            b = b.button(to(start), "Full rules ▶", ButtonStyle::Primary);
        }
        Some(n) => {
            let n = n.min(total);
            b = b.text(format!("**The rules** · page {n} of {total}\n"));
            b = b.text(pages[n as usize - 1].clone());
            if n > 1 {
                b = b.button(to(n - 1), "◀ Previous", ButtonStyle::Secondary);
            }
            if n < total {
                b = b.button(to(n + 1), "Next ▶", ButtonStyle::Secondary);
            }
        }
    }
    if let Some(url) = link {
        b = b.text(format!("\nThis server's own rules: <{url}>"));
    }
    let mut reply = b.private().build();
    reply.replaces_pressed = page.is_some();
    Ok(vec![Out::text(reply)])
}

#[cfg(test)]
mod tests {
    use super::{blocks, paginate, rules_pages, tables_as_lists};

    #[test]
    fn tables_become_a_header_line_and_a_list_item_a_row() {
        let doc = "Before.\n\n| a | b |\n|---|---|\n| `x` | **1** |\n| y | 2 |\n\nAfter.\n\n```\n| kept |\n```\n";
        assert_eq!(
            tables_as_lists(doc),
            "Before.\n\n*a — b*\n- `x` — **1**\n- y — 2\n\nAfter.\n\n```\n| kept |\n```\n"
        );
        // No page of the rules shows a table's Markdown.
        for page in rules_pages() {
            assert!(
                !page.lines().any(|l| l.trim_start().starts_with('|')),
                "{page}"
            );
        }
    }

    #[test]
    fn a_paragraph_longer_than_a_page_is_cut_between_words_and_headings_stay_with_their_text() {
        let long = "word ".repeat(100);
        let doc = format!("## One\n\nshort\n\n### Two\n\n{long}\n");
        let pages = paginate(&blocks(&doc), 120);
        assert!(pages.iter().all(|p| p.chars().count() <= 120), "{pages:?}");
        // No page ends on a heading; "### Two" starts the page of its text.
        assert!(pages
            .iter()
            .all(|p| !p.lines().last().unwrap().starts_with('#')));
        assert!(
            pages.iter().any(|p| p.starts_with("### Two\n\nword")),
            "{pages:?}"
        );
        let squeezed = |s: &str| s.split_whitespace().collect::<String>();
        assert_eq!(squeezed(&pages.concat()), squeezed(&doc));
        // A word longer than a page is cut at the limit.
        let pages = paginate(&blocks(&"x".repeat(250)), 100);
        assert_eq!(
            pages.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [100, 100, 50]
        );
    }
}
