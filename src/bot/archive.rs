//! The archive: any game of the server as an animated replay (`/replay`) or an exported record
//! file (`/export`), and a player's finished games page by page (`/history`).

use super::buttons::{Press, HISTORY_PAGES};
use super::info::{record_text, server_game, step_buttons, unix_seconds};
use super::notes::note_for_export;
use super::reply::{code_block, Attachment, ButtonStyle, Ctx, Document, Reply, User};
use super::session::{names, replay as replay_moves, Bot, Fail, Out, Outcome};
use super::text::Builder;
use super::time::date_text;
use crate::game::{describe, Variant};
use crate::render::{replay_gif_within, UPLOAD_LIMIT};
use crate::store::{GameId, GameStatus};

/// Games listed on one page of `/history`.
pub(crate) const HISTORY_PAGE: u32 = 10;
/// Discord's limit on a button's id.
const BUTTON_ID_MAX: usize = 100;

/// "2nd", "3rd", "10th": which positions a thinned replay keeps.
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// `/replay id`: the game as an animated GIF, within Discord's upload limit (a long game
/// shows every k-th position and its last few, and says so).
pub(crate) fn replay(bot: &Bot, ctx: &Ctx, id: GameId) -> Outcome<Vec<Out>> {
    let (game, played, n) = bot.read(|tx| {
        let game = server_game(tx, ctx, id)?;
        let moves = tx.moves(game.id)?;
        let (_, played) = replay_moves(&game, &moves, None)?;
        let n = names(tx, &game)?;
        Ok((game, played, n))
    })?;
    let total = played.len();
    let mut b = Builder::new().text(format!(
        "Replay of game {} · {} · {} ",
        game.id.0,
        game.options.variant.name(),
        game.sides()[0].name()
    ));
    b = b
        .user(game.seats.first(), n.first())
        .text(format!(" vs {} ", game.sides()[1].name()))
        .user(game.seats.second(), n.second())
        .text(format!(
            " · {}{}",
            describe::count(total as u64, "move"),
            match game.status {
                GameStatus::Active => " so far (in progress)",
                GameStatus::Finished => ", finished",
                GameStatus::Aborted => ", aborted",
            }
        ));
    let mut image = None;
    if bot.images() {
        let r =
            replay_gif_within(game.options, &played, &n.into(), UPLOAD_LIMIT).ok_or_else(|| {
                Fail::User(format!(
                    "Game {} cannot be drawn as a replay within Discord's upload limit.",
                    game.id.0
                ))
            })?;
        let skipped = r.skipped(total);
        if skipped > 0 {
            b = b.text(format!(
                "\nThe whole game would be larger than Discord's upload limit ({} MiB), so \
                 this replay shows every {} position and the last few: {} of {} positions \
                 ({} skipped). `/game {} ply:N` shows any position.",
                UPLOAD_LIMIT >> 20,
                ordinal(r.step),
                r.shown.len(),
                total + 1,
                skipped,
                game.id.0
            ));
        }
        image = Some(Attachment {
            filename: format!("game-{}.gif", game.id.0),
            bytes: r.bytes,
        });
    } else {
        b = b.text("\n(Images are turned off here, so there is no replay to show.)");
    }
    // Stepping buttons from the end, where the replay stops.
    let b = step_buttons(
        b,
        game.id,
        total as u32,
        total as u32,
        true,
        unix_seconds(bot.now()),
    );
    let mut reply = b.build();
    reply.image = image;
    Ok(vec![Out::text(reply)])
}

/// `/export id`: the game's record as a file (`game-N.txt`), in the format `tara-bot
/// engine --record` and `render --record` read; once the game has ended, with the caller's own
/// note (`/note`) as comment lines at the end.
pub(crate) fn export(bot: &Bot, ctx: &Ctx, id: GameId) -> Outcome<Vec<Out>> {
    bot.read(|tx| {
        let game = server_game(tx, ctx, id)?;
        let (mut body, moves) = record_text(tx, &game)?;
        // The caller's own note, once the game has ended (the answer is private).
        if let Some(note) = note_for_export(tx, ctx, &game)? {
            if !body.ends_with('\n') {
                body.push('\n');
            }
            body.push_str(&note);
        }
        let mut reply = Builder::new().text(code_block(&body)).build();
        reply.document = Some(Document {
            filename: format!("game-{}.txt", game.id.0),
            note: format!(
                "The record of game {} ({}{}), as `tara-bot engine --record` and `tara-bot \
                 render --record` read it.",
                game.id.0,
                describe::count(moves as u64, "move"),
                match game.status {
                    GameStatus::Active => ", in progress",
                    GameStatus::Finished => ", finished",
                    GameStatus::Aborted => ", aborted",
                }
            ),
            text: body,
            always: true,
        });
        Ok(vec![Out::text(reply)])
    })
}

/// `/history`: a user's finished games on this server (the caller's by default; of one
/// variant or all), newest first, [`HISTORY_PAGE`] a page, with Previous/Next buttons. A
/// page shown by a button takes the place of the page before.
pub(crate) fn history(
    bot: &Bot,
    ctx: &Ctx,
    user: Option<User>,
    variant: Option<Variant>,
    page: Option<u32>,
) -> Outcome<Vec<Out>> {
    let page = page.unwrap_or(1).clamp(1, HISTORY_PAGES);
    let who = user.unwrap_or_else(|| ctx.user.clone());
    bot.read(|tx| {
        let skip = (page - 1) * HISTORY_PAGE;
        let mut games =
            tx.finished_games_page(&ctx.server, &who.id, variant, skip, HISTORY_PAGE + 1)?;
        let more = games.len() > HISTORY_PAGE as usize;
        games.truncate(HISTORY_PAGE as usize);
        let name = tx.user_name(&who.id)?.unwrap_or_else(|| who.name.clone());
        let which = variant
            .map(|v| format!("{} ", v.name()))
            .unwrap_or_default();
        let mut b = Builder::new().text(format!("Finished {which}games of "));
        b = b.user(&who.id, &name);
        if games.is_empty() {
            b = b.text(if page == 1 {
                " on this server: none yet.".to_string()
            } else {
                format!(" on this server: page {page} is past the last one.")
            });
        } else {
            b = b.text(format!(
                " on this server, newest first · page {page} (games {}–{}):",
                skip + 1,
                skip + games.len() as u32
            ));
        }
        for g in &games {
            let n = names(tx, g)?;
            b = b
                .text(format!("\n• #{} · {} · ", g.id.0, g.options.variant.id()))
                .user(g.seats.first(), n.first())
                .text(format!(" ({}) vs ", g.sides()[0].name()))
                .user(g.seats.second(), n.second())
                .text(format!(" ({}) · ", g.sides()[1].name()));
            let result = match &g.outcome {
                Some(o) => format!(
                    "{} ({}), {}",
                    o.winner
                        .map(describe::wins)
                        .unwrap_or_else(|| "draw".into()),
                    o.reason.id().replace('-', " "),
                    describe::points(o, g.options.variant.sides())
                ),
                None => "no result".into(),
            };
            let date = g
                .ended_at
                .map(|t| date_text(t)[..10].to_string())
                .unwrap_or_default();
            b = b.text(format!("{result} · {date}"));
        }
        if !games.is_empty() {
            b = b.text("\n`/game id` shows one, `/replay id` replays it.");
        }
        let history = |page| Press::History {
            user: who.id.clone(),
            variant,
            page,
        };
        let fits = history(HISTORY_PAGES).id().len() <= BUTTON_ID_MAX;
        if fits && page > 1 {
            b = b.button(history(page - 1), "Previous", ButtonStyle::Secondary);
        }
        if fits && more && page < HISTORY_PAGES {
            b = b.button(history(page + 1), "Next", ButtonStyle::Secondary);
        }
        let mut reply: Reply = b.private().build();
        reply.replaces_pressed = true;
        Ok(vec![Out::text(reply)])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // The `/history` buttons' ids are tested with the other buttons', in `buttons.rs`.
    #[test]
    fn ordinals() {
        assert_eq!(
            (ordinal(2), ordinal(3), ordinal(11), ordinal(21)),
            ("2nd".into(), "3rd".into(), "11th".into(), "21st".into())
        );
    }
}
