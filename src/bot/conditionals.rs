//! Conditional moves (`/conditional`): on the opponent's turn, a player stores lines of plies,
//! the opponent's expected move alternating with their own reply (`E3 D5 F2 C4`: if E3 then
//! D5, then if F2 then C4). Lines sharing a beginning form a tree. Each move played (in its
//! own transaction) looks at the lines: the reply of a line that foresaw every ply since it
//! was stored is played at once, announced as a conditional move; a line the game departed from
//! is dropped. The lines are private to their author, and dropped on a takeback and when the
//! game ends (docs/commands.md).

use super::board::Board;
use super::reply::Ctx;
use super::session::{
    active_here, load_game, Announcement, Bot, Fail, GameEnded, Loaded, Out, Outcome, Pick, Session,
};
use super::text::{legal_hint, said, Builder};
use crate::game::{notation, Move, Position, Side};
use crate::render::Frame;
use crate::store::{ConditionalRow, GameId, GameStatus, Tx, UserId};

/// The most lines a player may store on a game (Lichess's limit).
pub const MAX_LINES: usize = 30;
/// The most plies in a line (Lichess's limit).
pub const MAX_PLIES: usize = 30;

/// The reply due in `l`'s game from the stored lines: the player on move's next ply in a line
/// that foresaw every ply played since it was stored, when it is legal. Drops the lines the
/// game has played out or departed from, and a line whose reply is not legal.
pub(crate) fn due(tx: &Tx, l: &Loaded) -> Outcome<Option<(Side, Move)>> {
    let rows = tx.conditionals(l.game.id)?;
    let to_move = l.pos.to_move();
    let mut reply = None;
    for row in rows {
        let Some(next) = ahead(&l.played, &row).and_then(|a| a.first().copied()) else {
            tx.delete_conditional(l.game.id, &row.user_id, row.seq)?;
            continue;
        };
        let seat = l.game.seat_of(&row.user_id);
        if seat.is_none() || seat != to_move {
            // Waiting for the opponent's move.
            continue;
        }
        match l.pos.parse_move(next) {
            Ok(mv) if l.pos.check(mv).is_ok() => {
                reply = reply.or(seat.map(|s| (s, mv)));
            }
            _ => tx.delete_conditional(l.game.id, &row.user_id, row.seq)?,
        }
    }
    Ok(reply)
}

/// `GameEnded`: the game's lines are dropped.
pub(crate) fn game_ended(s: &Session, e: &GameEnded, _: &mut Announcement) -> Outcome<()> {
    s.tx.clear_conditionals(e.game.game.id, None)?;
    Ok(())
}

/// The channel's game in progress, for a player of it; a clear refusal otherwise.
fn players_game(tx: &Tx, ctx: &Ctx, game: Option<GameId>) -> Outcome<(Loaded, Side)> {
    let Some(game) = active_here(tx, ctx, game, Pick::Any)? else {
        return Err(Fail::User(match tx.latest_game(&ctx.channel)? {
            Some(g) if g.status != GameStatus::Active => format!(
                "Game {} in this channel is over: conditional moves are for a game in progress.",
                g.id
            ),
            _ => "There is no game in this channel: conditional moves are stored in the \
                  channel (or thread) of a game in progress."
                .into(),
        }));
    };
    let seat = game.seat_of(&ctx.user.id).ok_or_else(|| {
        Fail::User(format!(
            "Only the players of game {} may store conditional moves in it.",
            game.id
        ))
    })?;
    Ok((load_game(tx, game)?, seat))
}

/// `user`'s stored lines on `l`'s game, each from the current ply on (the plies played since it
/// was stored, which it foresaw, left out), in order.
fn lines_now(tx: &Tx, l: &Loaded, user: &UserId) -> Outcome<Vec<Vec<String>>> {
    let mut lines = Vec::new();
    for row in tx.conditionals(l.game.id)? {
        if row.user_id != *user {
            continue;
        }
        if let Some(ahead) = ahead(&l.played, &row) {
            lines.push(ahead.iter().map(|p| p.to_string()).collect());
        }
    }
    Ok(lines)
}

/// The plies of `row`'s line still ahead after the game's `played` plies, when it foresaw
/// every one played since it was stored and has at least one left; `None` once the game has
/// departed from it or played it out.
fn ahead<'a>(played: &[Move], row: &'a ConditionalRow) -> Option<Vec<&'a str>> {
    let plies = row.plies();
    let since = played.get(row.from_ply as usize..)?;
    let foreseen =
        since.len() < plies.len() && since.iter().zip(&plies).all(|(m, p)| m.to_string() == *p);
    foreseen.then(|| plies[since.len()..].to_vec())
}

/// The plies of `text` read as a line from `pos` (the opponent of the line's author to move),
/// each checked legal in turn; the line ends with a reply of the author's.
fn read_line(pos: &Position, text: &str) -> Outcome<Vec<Move>> {
    let tokens: Vec<&str> = notation::split_moves(text).collect();
    if tokens.is_empty() {
        return Err(Fail::User(
            "Give the line as moves separated by spaces: your opponent's expected move first, \
             then your reply, and so on (e.g. `E3 D5 F2 C4`: if E3 then D5, then if F2 then \
             C4)."
                .into(),
        ));
    }
    if tokens.len() > MAX_PLIES {
        return Err(Fail::User(format!(
            "A line may have at most {MAX_PLIES} moves; this one has {}.",
            tokens.len()
        )));
    }
    let mut p = pos.clone();
    let mut line: Vec<Move> = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        let whose = if i % 2 == 0 {
            "your opponent's expected move"
        } else {
            "your reply"
        };
        let after = if line.is_empty() {
            "from the current position".to_string()
        } else {
            format!("after `{}`", shown(&line))
        };
        if p.outcome().is_some() {
            return Err(Fail::User(format!(
                "The game is over {after}: the line cannot go on to move {} (`{}`).",
                i + 1,
                shown_token(token)
            )));
        }
        let mv = p.parse_move(token).map_err(|e| {
            Fail::User(format!(
                "Move {} of the line ({whose}): {}. {}",
                i + 1,
                said(&e),
                legal_hint(&p)
            ))
        })?;
        if let Err(e) = p.check(mv) {
            let hint = if e.lists_moves() {
                String::new()
            } else {
                format!(" {}", legal_hint(&p))
            };
            return Err(Fail::User(format!(
                "Move {} of the line, `{mv}` ({whose}), is not legal {after}: {e}.{hint}",
                i + 1
            )));
        }
        p.play_unchecked(mv);
        line.push(mv);
    }
    if line.len() % 2 == 1 {
        return Err(Fail::User(format!(
            "The line ends with your opponent's move `{}`: add the reply you want played to it.",
            line[line.len() - 1]
        )));
    }
    Ok(line)
}

/// Moves as written in a line, separated by spaces.
fn shown(line: &[Move]) -> String {
    line.iter()
        .map(Move::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A token as typed, safe in a code span.
fn shown_token(token: &str) -> String {
    token
        .chars()
        .filter(|c| *c != '`' && !c.is_control())
        .take(24)
        .collect()
}

/// What storing a line did to the tree.
enum Stored {
    /// A new branch.
    Added,
    /// A stored line it goes on from, replaced by it.
    Extended,
    /// It was there already (the same line, or the beginning of a longer one).
    Known,
}

/// Adds `new` to `lines`, which form a tree: one reply per position, at most [`MAX_LINES`].
fn merge(lines: &mut Vec<Vec<String>>, new: Vec<String>) -> Outcome<Stored> {
    if lines.iter().any(|l| l.starts_with(&new)) {
        return Ok(Stored::Known);
    }
    for l in lines.iter() {
        let same = l.iter().zip(&new).take_while(|(a, b)| a == b).count();
        if same < l.len() && same % 2 == 1 {
            let before = if same == 1 {
                format!("`{}`", new[0])
            } else {
                format!("`{}`", new[..same].join(" "))
            };
            return Err(Fail::User(format!(
                "After {before} you already reply `{}` in a stored line, and this line replies \
                 `{}`: there is one reply per position. `/conditional clear` removes your lines \
                 to store them again.",
                l[same], new[same]
            )));
        }
    }
    if let Some(i) = lines.iter().position(|l| new.starts_with(l)) {
        lines[i] = new;
        return Ok(Stored::Extended);
    }
    if lines.len() >= MAX_LINES {
        return Err(Fail::User(format!(
            "You already have {MAX_LINES} lines in this game, the most there may be: \
             `/conditional clear` removes them."
        )));
    }
    lines.push(new);
    Ok(Stored::Added)
}

/// `/conditional add line`: stores a line for the channel's game, privately.
pub(crate) fn add(bot: &Bot, ctx: &Ctx, line: String, game: Option<GameId>) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, now| {
        tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
        let (l, seat) = players_game(tx, ctx, game)?;
        if l.pos.to_move() == Some(seat) {
            return Err(Fail::User(
                "It is your move: play it with `/move`. Conditional moves are stored on your \
                 opponent's turn, for the moves they may make."
                    .into(),
            ));
        }
        let new = read_line(&l.pos, &line)?;
        let mut lines = lines_now(tx, &l, &ctx.user.id)?;
        let written: Vec<String> = new.iter().map(Move::to_string).collect();
        let stored = merge(&mut lines, written)?;
        let joined: Vec<String> = lines.iter().map(|l| l.join(" ")).collect();
        tx.set_conditionals(l.game.id, &ctx.user.id, l.played.len() as u32, &joined, now)?;
        let what = match stored {
            Stored::Added => "Stored",
            Stored::Extended => "Stored (it goes on from a line you had, which it replaces)",
            Stored::Known => "You had this line already",
        };
        let mut b = Builder::new().text(format!("{what} in game {}: ", l.game.id));
        for (i, pair) in new.chunks(2).enumerate() {
            if i > 0 {
                b = b.text("; then ");
            }
            b = b.text(format!("if `{}`, `{}`", pair[0], pair[1]));
        }
        b = b.text(format!(
            ". {} in all. If your opponent plays as you expect, your reply is played at once and \
             announced as a conditional move. Only you see your lines: `/conditional list` shows \
             them, `/conditional clear` removes them.",
            crate::game::describe::count(lines.len() as u64, "line")
        ));
        Ok(vec![Out::text(b.private().build())])
    })
}

/// A tree of lines: each branch the opponent's move, the reply, and what follows.
#[derive(Default)]
struct Tree {
    branches: Vec<(String, String, Tree)>,
}

impl Tree {
    fn insert(&mut self, line: &[String]) {
        let [theirs, mine, rest @ ..] = line else {
            return;
        };
        let i = match self
            .branches
            .iter()
            .position(|(t, m, _)| t == theirs && m == mine)
        {
            Some(i) => i,
            None => {
                self.branches
                    .push((theirs.clone(), mine.clone(), Tree::default()));
                self.branches.len() - 1
            }
        };
        self.branches[i].2.insert(rest);
    }

    fn write(&self, mut b: Builder, depth: usize) -> Builder {
        for (theirs, mine, rest) in &self.branches {
            b = b.text(format!(
                "\n{}• {}if `{theirs}`, `{mine}`",
                "\u{2003}".repeat(depth),
                if depth > 0 { "then " } else { "" }
            ));
            b = rest.write(b, depth + 1);
        }
        b
    }
}

/// `/conditional list`: the caller's lines in the channel's game as a tree, privately, with the
/// board at the end of the main line (the first stored).
pub(crate) fn list(bot: &Bot, ctx: &Ctx, game: Option<GameId>) -> Outcome<Vec<Out>> {
    bot.read(|tx| {
        let (l, _) = players_game(tx, ctx, game)?;
        let lines = lines_now(tx, &l, &ctx.user.id)?;
        let Some(main) = lines.first() else {
            let b = Builder::new().text(format!(
                "You have no conditional moves in game {}. On your opponent's turn, \
                 `/conditional add line:…` stores a line: their expected move, your reply, and \
                 so on.",
                l.game.id
            ));
            return Ok(vec![Out::text(b.private().build())]);
        };
        let mut tree = Tree::default();
        for line in &lines {
            tree.insert(line);
        }
        let b = Builder::new().text(format!(
            "Your conditional moves in game {} ({}; only you see them). The board shows the end \
             of the main line, `{}`:",
            l.game.id,
            crate::game::describe::count(lines.len() as u64, "line"),
            main.join(" ")
        ));
        let b = tree.write(b, 0);
        Ok(vec![Out {
            reply: b.private().build(),
            board: Some(main_line_board(&l, main)),
        }])
    })
}

/// The board at the end of `main`, played on from `l`'s position.
fn main_line_board(l: &Loaded, main: &[String]) -> Board {
    let (mut pos, mut played) = (l.pos.clone(), l.played.clone());
    for p in main {
        // Stored lines were checked legal in sequence; one that no longer reads ends here.
        match pos.parse_move(p) {
            Ok(mv) if pos.check(mv).is_ok() => {
                pos.play_unchecked(mv);
                played.push(mv);
            }
            _ => break,
        }
    }
    let last = played.last().copied();
    Board::new(
        pos,
        played,
        Frame::new(l.names.clone(), last),
        format!("game-{}-conditional.png", l.game.id.0),
    )
}

/// `/conditional clear`: removes the caller's lines in the channel's game.
pub(crate) fn clear(bot: &Bot, ctx: &Ctx, game: Option<GameId>) -> Outcome<Vec<Out>> {
    bot.write(ctx, |tx, _| {
        let (l, _) = players_game(tx, ctx, game)?;
        let n = lines_now(tx, &l, &ctx.user.id)?.len();
        tx.clear_conditionals(l.game.id, Some(&ctx.user.id))?;
        let text = if n == 0 {
            format!("You had no conditional moves in game {}.", l.game.id)
        } else {
            format!(
                "Your conditional moves in game {} are removed ({}).",
                l.game.id,
                crate::game::describe::count(n as u64, "line")
            )
        };
        Ok(vec![Out::text(Builder::new().text(text).private().build())])
    })
}
