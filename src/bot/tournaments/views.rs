//! The subcommands of `/tournament` that show a tournament: info, pairings, standings, list
//! and export.

use super::model::{find, format_name, model, standings_of, title, trf_of};
use super::presentation::{
    on_its_page, options_text, pictures, result_text, standings_table, with_pictures,
};
use crate::bot::reply::{code_block, escape_markdown, Ctx, Document, Reply};
use crate::bot::session::{Bot, Fail, Out, Outcome};
use crate::bot::text::Builder;
use crate::store::ChannelId;
use crate::store::TournamentId;
use crate::store::{PairingResult, PairingRow, TournamentRow, TournamentStatus, Tx};

/// `names` joined by commas, at most `shown` of them, then how many more.
fn first_names(names: &[String], shown: usize) -> String {
    if names.len() <= shown {
        names.join(", ")
    } else {
        format!(
            "{} and {} more",
            names[..shown].join(", "),
            names.len() - shown
        )
    }
}

const ALL_STATUSES: [TournamentStatus; 4] = [
    TournamentStatus::Open,
    TournamentStatus::Running,
    TournamentStatus::Finished,
    TournamentStatus::Cancelled,
];

/// `/tournament info`.
pub(crate) fn tournament_info(bot: &Bot, ctx: &Ctx, id: Option<TournamentId>) -> Outcome<Vec<Out>> {
    bot.read(|tx| {
        let t = find(tx, ctx, id, &ALL_STATUSES)?;
        let m = model(tx, &t)?;
        let mut s = format!(
            "{} · {}\nStatus: {}",
            title(&t),
            options_text(&t),
            t.status.id()
        );
        if let Some(n) = t.total_rounds {
            let done = (1..=n)
                .filter(|r| {
                    let ps: Vec<_> = m.pairings.iter().filter(|p| p.round == *r).collect();
                    !ps.is_empty() && ps.iter().all(|p| p.result.is_some())
                })
                .count();
            s.push_str(&format!(", {done} of {n} rounds complete"));
        }
        s.push_str(&format!("\nPlayers ({}): ", m.players.len()));
        let list: Vec<String> = m
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| {
                format!(
                    "{}{}{}",
                    p.seed.map_or(String::new(), |s| format!("{s}. ")),
                    escape_markdown(&m.names[i]),
                    if p.withdrawn_at.is_some() {
                        " (withdrawn)"
                    } else {
                        ""
                    }
                )
            })
            .collect();
        s.push_str(&list.join(", "));
        Ok(vec![Out::text(Reply::private(s))])
    })
}

/// `/tournament pairings [round]`.
pub(crate) fn tournament_pairings(
    bot: &Bot,
    ctx: &Ctx,
    round: Option<u32>,
    id: Option<TournamentId>,
) -> Outcome<Vec<Out>> {
    bot.read(|tx| {
        let t = find(tx, ctx, id, &ALL_STATUSES)?;
        let all = tx.pairings(t.id, None)?;
        if all.is_empty() {
            return Err(Fail::User(format!("{} has no pairings yet.", title(&t))));
        }
        let current = all
            .iter()
            .filter(|p| p.result.is_none())
            .map(|p| p.round)
            .min()
            .unwrap_or_else(|| all.iter().map(|p| p.round).max().unwrap_or(1));
        let round = round.unwrap_or(current);
        let ps: Vec<&PairingRow> = all.iter().filter(|p| p.round == round).collect();
        if ps.is_empty() {
            return Err(Fail::User(format!(
                "{} has no round {round} paired (rounds 1 to {}).",
                title(&t),
                all.iter().map(|p| p.round).max().unwrap_or(1)
            )));
        }
        let mut b = Builder::new().text(format!("{} · round {round}:", title(&t)));
        for p in ps {
            let n0 = tx.name_or_id(&p.player0)?;
            b = b
                .text(format!("\nBoard {}: ", p.board))
                .user(&p.player0, &n0);
            let Some(p1) = &p.player1 else {
                b = b.text(" has a bye.");
                continue;
            };
            let n1 = tx.name_or_id(p1)?;
            b = b.text(" vs ").user(p1, &n1);
            b = match p.result {
                Some(r) => b.text(format!(" · {}", result_text(r))),
                // Called off with the tournament: no game is left in progress.
                None if t.status == TournamentStatus::Cancelled => b.text(if p.game_id.is_some() {
                    " · cancelled: its game ended without a result"
                } else {
                    " · cancelled before it started"
                }),
                None if p.game_id.is_some() => {
                    let ch = p
                        .thread_id
                        .clone()
                        .or(p.thread_key.clone().map(ChannelId::new))
                        .unwrap_or_default();
                    b.text(" · playing in ").channel(&ch)
                }
                None => b.text(" · not started yet"),
            };
        }
        Ok(vec![Out::text(b.private().build())])
    })
}

/// `/tournament standings`: the table (text; the seam for a picture is
/// [`standings_table`]'s rows).
pub(crate) fn tournament_standings(
    bot: &Bot,
    ctx: &Ctx,
    id: Option<TournamentId>,
) -> Outcome<Vec<Out>> {
    bot.read(|tx| {
        let t = find(tx, ctx, id, &ALL_STATUSES)?;
        let m = model(tx, &t)?;
        let rows = standings_of(&t, &m);
        // Players still tied for first share the place (docs/rules.md §10: standings).
        let first: Vec<String> = rows
            .iter()
            .filter(|r| r.rank == 1)
            .map(|r| escape_markdown(&m.names[r.player]))
            .collect();
        // A result over the board or by forfeit (a bye alone decides no lead).
        let scored = m
            .pairings
            .iter()
            .any(|p| p.result.is_some_and(|r| r != PairingResult::Bye));
        let summary = match (t.status, first.as_slice()) {
            (TournamentStatus::Finished, [w]) => format!("final standings; winner {w}"),
            (TournamentStatus::Finished, ws) if !ws.is_empty() => {
                format!(
                    "final standings; sharing first place: {}",
                    first_names(ws, 5)
                )
            }
            (TournamentStatus::Running, _) if !scored => "no results yet".into(),
            (TournamentStatus::Running, [w]) => format!("standings so far; {w} leads"),
            (TournamentStatus::Running, ws) if !ws.is_empty() => {
                format!("standings so far; sharing the lead: {}", first_names(ws, 5))
            }
            // Called off: the results stand as they were.
            (TournamentStatus::Cancelled, ws) if !scored || ws.is_empty() => {
                "cancelled; no results".into()
            }
            (TournamentStatus::Cancelled, [w]) => {
                format!("cancelled; standings when it was called off; {w} led")
            }
            (TournamentStatus::Cancelled, ws) if !ws.is_empty() => format!(
                "cancelled; standings when it was called off; sharing the lead: {}",
                first_names(ws, 5)
            ),
            _ => "no games yet".into(),
        };
        let text = format!(
            "{} · {summary}.\n{}",
            title(&t),
            code_block(&standings_table(&t, &m, &rows))
        );
        let reply = on_its_page(Builder::new().text(text), &t);
        if !bot.images() {
            return Ok(vec![Out::text(reply)]);
        }
        Ok(with_pictures(reply, pictures(tx, &t, &m, &rows)?, &t))
    })
}

/// `/tournament list`.
pub(crate) fn tournament_list(bot: &Bot, ctx: &Ctx) -> Outcome<Vec<Out>> {
    bot.read(|tx| {
        let ts = tx.server_tournaments(&ctx.server)?;
        if ts.is_empty() {
            return Ok(vec![Out::text(Reply::private(
                "This server has no tournaments yet; a moderator creates one with \
                 `/tournament create`.",
            ))]);
        }
        let mut b = Builder::new().text("Tournaments of this server:");
        for t in ts.iter().take(25) {
            let n = tx.entrants(t.id)?.len();
            b = b
                .text(format!(
                    "\n#{} {} · {} · {} · {n} player{} · {} · ",
                    t.id,
                    escape_markdown(&t.name),
                    t.variant.id(),
                    format_name(t.format),
                    if n == 1 { "" } else { "s" },
                    t.status.id()
                ))
                .channel(&t.channel_id);
        }
        Ok(vec![Out::text(b.private().build())])
    })
}

/// `/tournament export`: the TRF-16 file.
pub(crate) fn tournament_export(
    bot: &Bot,
    ctx: &Ctx,
    id: Option<TournamentId>,
) -> Outcome<Vec<Out>> {
    bot.read(|tx| {
        let t = find(tx, ctx, id, &ALL_STATUSES)?;
        let text = tournament_trf(tx, &t)?;
        // The text shows the file where no file can be attached (the console); Discord
        // sends the note with the file instead.
        let mut reply = Reply::private(format!(
            "{} as a FIDE TRF-16 file:\n{}",
            title(&t),
            code_block(&text)
        ));
        reply.document = Some(Document {
            filename: format!("tournament-{}.trf", t.id),
            text,
            note: format!(
                "{} as a FIDE TRF-16 file (XXR: the number of rounds).",
                title(&t)
            ),
            always: true,
        });
        Ok(vec![Out::text(reply)])
    })
}

/// A tournament as TRF-16 text.
pub(crate) fn tournament_trf(tx: &Tx, t: &TournamentRow) -> Outcome<String> {
    let m = model(tx, t)?;
    Ok(trf_of(t, &m).write())
}

#[cfg(test)]
mod tests {
    use super::first_names;

    #[test]
    fn long_lists_of_names_are_cut() {
        let names: Vec<String> = ["a", "b", "c", "d", "e", "f", "g"]
            .map(String::from)
            .to_vec();
        assert_eq!(first_names(&names[..2], 5), "a, b");
        assert_eq!(first_names(&names[..5], 5), "a, b, c, d, e");
        assert_eq!(first_names(&names, 5), "a, b, c, d, e and 2 more");
    }
}
