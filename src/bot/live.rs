//! `/live`: the server's games in progress, for spectators. A public answer that pings nobody:
//! players are named with mentions that do not ping, games are linked by their channel.

use super::reply::{Ctx, Reply};
use super::session::{load_game, Bot, Out, Outcome};
use super::text::Builder;
use super::time::{date_text, left_text};

/// How many games `/live` lists; the rest are counted.
pub(crate) const LIVE_SHOWN: u32 = 25;

/// `/live`: the server's games in progress, latest activity (the start of the current
/// turn) first: a link to each game's channel or thread, its players, whose turn it is and
/// the deadline.
pub(crate) fn live(bot: &Bot, ctx: &Ctx) -> Outcome<Vec<Out>> {
    let now = bot.now();
    bot.read(|tx| {
        let games = tx.live_games(&ctx.server, LIVE_SHOWN)?;
        if games.is_empty() {
            return Ok(vec![Out::text(Reply::private(
                "No games are in progress on this server. `/challenge` starts one.",
            ))]);
        }
        let total = tx.live_game_count(&ctx.server)?;
        let mut b = Builder::new().text(format!(
            "**Games in progress** ({total}), latest move first:"
        ));
        for g in games {
            let l = load_game(tx, g)?;
            let g = &l.game;
            b = b
                .text(format!("\n**#{}** ", g.id.0))
                .channel(&g.channel_id)
                .text(format!(" · {} · ", g.options.variant.id()))
                .user(g.seats.first(), l.names.first())
                .text(format!(" ({}) vs ", g.sides()[0].name()))
                .user(g.seats.second(), l.names.second())
                .text(format!(" ({})", g.sides()[1].name()));
            if let Some(side) = l.pos.to_move() {
                let seat = side;
                b = b
                    .text(" · ")
                    .user(&g.seats[seat], &l.names[seat])
                    .text(" to move");
            }
            b = b.text(match g.deadline_at {
                Some(d) if d > now => {
                    format!(" · deadline {} ({} left)", date_text(d), left_text(d - now))
                }
                Some(d) => format!(" · deadline {} (passed)", date_text(d)),
                None => " · no clock".to_string(),
            });
        }
        let rest = total - i64::from(LIVE_SHOWN);
        if rest > 0 {
            b = b.text(format!(
                "\n…and {rest} more game{}.",
                if rest == 1 { "" } else { "s" }
            ));
        }
        // Mentions that do not ping: the reply's ping list stays empty.
        Ok(vec![Out::text(b.build())])
    })
}
