//! Private notes (`/note`): each player of a game may keep one note on it, seen only by them:
//! privately, and in their own `/export` of the game once it has ended. Never shown to the
//! opponent, to spectators, or in `/record`.

use super::info::{channel_game, server_game};
use super::reply::Ctx;
use super::session::{names, Bot, Fail, Out, Outcome};
use super::text::Builder;
use super::time::date_text;
use crate::game::describe;
use crate::store::{GameId, GameRow, GameStatus, NoteRow, Tx};

/// The longest note, in characters (Discord's option allows as many).
pub const NOTE_MAX_CHARS: usize = 1_500;
/// What deletes a note when written as its text.
const DELETE: &str = "-";
/// How many notes `/note` lists when no game is named or at hand.
const LISTED: u32 = 10;
/// How much of each note the list shows, in characters.
const LISTED_CHARS: usize = 80;

/// `/note [text] [game]`: writes (or with `-` deletes) the caller's note on the game, or shows
/// it; with no game named and none in the channel, lists the caller's notes on this server.
pub(crate) fn note(
    bot: &Bot,
    ctx: &Ctx,
    text: Option<String>,
    game: Option<GameId>,
) -> Outcome<Vec<Out>> {
    let text = text.map(|t| t.trim().to_string()).filter(|t| !t.is_empty());
    match text {
        Some(text) => bot.write(ctx, |tx, now| {
            let game = the_game(tx, ctx, game)?.ok_or_else(|| {
                Fail::User(
                    "There is no game in this channel: say which game the note is for, e.g. \
                     `/note text:… game:123`."
                        .into(),
                )
            })?;
            players_only(&game, ctx)?;
            let b = Builder::new();
            let b = if text == DELETE {
                if tx.delete_note(game.id, &ctx.user.id)? {
                    b.text(format!("Your note on game {} is deleted.", game.id))
                } else {
                    b.text(format!("You had no note on game {}.", game.id))
                }
            } else {
                let chars = text.chars().count();
                if chars > NOTE_MAX_CHARS {
                    return Err(Fail::User(format!(
                        "A note may be at most {NOTE_MAX_CHARS} characters; this one has {chars}."
                    )));
                }
                tx.set_note(game.id, &ctx.user.id, &text, now)?;
                let export = if game.status == GameStatus::Active {
                    format!(
                        "your `/export {}` includes it once the game has ended",
                        game.id.0
                    )
                } else {
                    format!("your `/export {}` includes it", game.id.0)
                };
                b.text(format!(
                    "Your note on game {} is saved. Only you will see it: `/note` shows it, and \
                     {export}.",
                    game.id
                ))
            };
            Ok(vec![Out::text(b.private().build())])
        }),
        None => bot.read(|tx| {
            let reply = match the_game(tx, ctx, game)? {
                Some(game) => {
                    players_only(&game, ctx)?;
                    match tx.note(game.id, &ctx.user.id)? {
                        Some(n) => quoted(
                            Builder::new().text(format!(
                                "Your note on game {} (written {} UTC):",
                                game.id,
                                &date_text(n.updated_at)[..16]
                            )),
                            &n.text,
                        ),
                        None => Builder::new().text(format!(
                            "You have no note on game {} yet: `/note text:…` writes one (only \
                             you will see it).",
                            game.id
                        )),
                    }
                }
                None => list(tx, ctx)?,
            };
            Ok(vec![Out::text(reply.private().build())])
        }),
    }
}

/// The note after `b` as a quote, each line quoted and shown as typed.
fn quoted(mut b: Builder, text: &str) -> Builder {
    for line in text.lines() {
        b = b.text("\n> ").verbatim(line);
    }
    b
}

/// The game named, or else the channel's game in progress, or else its latest.
fn the_game(tx: &Tx, ctx: &Ctx, id: Option<GameId>) -> Outcome<Option<GameRow>> {
    match id {
        Some(id) => server_game(tx, ctx, id).map(Some),
        None => channel_game(tx, ctx),
    }
}

fn players_only(game: &GameRow, ctx: &Ctx) -> Outcome<()> {
    match game.seat_of(&ctx.user.id) {
        Some(_) => Ok(()),
        None => Err(Fail::User(format!(
            "Only the players of game {} keep notes on it.",
            game.id
        ))),
    }
}

/// The caller's notes on this server's games, the latest written first.
fn list(tx: &Tx, ctx: &Ctx) -> Outcome<Builder> {
    let notes = tx.notes_of(&ctx.user.id, &ctx.server, LISTED + 1)?;
    if notes.is_empty() {
        return Ok(Builder::new().text(
            "You have no notes on this server's games. In a game's channel (or with \
             `game:123`), `/note text:…` writes one; only you ever see it.",
        ));
    }
    let mut b = Builder::new().text("Your notes on this server's games, the latest first:");
    for n in notes.iter().take(LISTED as usize) {
        let Some(game) = tx.game(n.game_id)? else {
            continue;
        };
        b = b.text(format!(
            "\n• game {} ({}",
            game.id,
            game.options.variant.id()
        ));
        let seat = game.seat_of(&ctx.user.id);
        if let Some(seat) = seat {
            let names = names(tx, &game)?;
            b = b.text(" against ").verbatim(names[seat.opponent()].clone());
        }
        b = b.text(match game.status {
            GameStatus::Active => ", in progress): ",
            GameStatus::Finished => ", finished): ",
            GameStatus::Aborted => ", aborted): ",
        });
        b = b.verbatim(shortened(&n.text));
    }
    if notes.len() > LISTED as usize {
        b = b.text(format!(
            "\n… and older ones: `/note game:123` shows any ({} listed).",
            describe::count(u64::from(LISTED), "note")
        ));
    }
    Ok(b)
}

/// The first line of a note, at most [`LISTED_CHARS`] characters.
fn shortened(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    let mut s: String = line.chars().take(LISTED_CHARS).collect();
    if s.chars().count() < text.chars().count() {
        s.push('…');
    }
    s
}

/// The caller's note on a game that has ended, as comment lines for its record file; nothing
/// for a game in progress (a note is never shown before the game ends, even to its author in a
/// file they might share).
pub(crate) fn note_for_export(tx: &Tx, ctx: &Ctx, game: &GameRow) -> Outcome<Option<String>> {
    if game.status == GameStatus::Active {
        return Ok(None);
    }
    let Some(NoteRow { text, .. }) = tx.note(game.id, &ctx.user.id)? else {
        return Ok(None);
    };
    let mut out = String::from("# Your note (private to you):\n");
    for line in text.lines() {
        out.push_str("#   ");
        out.push_str(line);
        out.push('\n');
    }
    Ok(Some(out))
}
