//! The end of a game, and what it means for its match: the result recorded and announced with
//! both players pinged, the running match score, and the second game started.

use super::reply::{escape_markdown, ButtonStyle};
use super::session::{create_game, game_start, names, Bot, Fail, Loaded, Out, Outcome};
use super::text::{self, Builder};
use crate::game::{Points, Position};
use crate::render::Frame;
use crate::store::{GameRow, Tx};

impl Bot {
    /// Records a result; announces it with both players pinged, and moves the match on.
    pub(crate) fn end_game(
        &self,
        tx: &Tx,
        l: &Loaded,
        b: Builder,
        o: crate::game::Outcome,
        board: (Position, Frame, String),
        now: i64,
    ) -> Outcome<Vec<Out>> {
        tx.finish_game(l.game.id, &o, now)?;
        // A draw offer still pending (a resignation, a timeout) is spent with the game.
        let unanswered = tx.clear_draw_offer(l.game.id)?.map(|offer| {
            let seat = l.game.seat_of(&offer.offered_by).unwrap_or(0);
            text::draw_offer_closed(
                &l.game,
                (l.game.seats[seat].as_str(), l.names[seat].as_str()),
                Builder::new().text("; the game ended before it was answered."),
            )
        });
        let b = b.text(format!(
            "\n**Game over.** {}. Points: ",
            text::result_sentence(&l.pos, &o),
        ));
        let mut b = text::points_line(b, &l.game, &l.names, &o).text(".");
        if let Some(c) = text::counts_line(&l.pos) {
            b = b.text(format!("\n{c}"));
        }
        b = self.rate_game(tx, &l.game, &o, &l.names, now, b)?;
        b = text::ping_players(b.text("\n"), &l.game, &l.names, " ");
        let mut outs = Vec::new();
        let mut next = None;
        let tournament = l.game.pairing_id.is_some();
        if let (Some(match_id), false) = (l.game.match_id, tournament) {
            let (summary, start) = self.match_progress(tx, &l.game, match_id, now)?;
            b = b.text(format!("\n{summary}"));
            next = start;
        }
        // Either player may ask for a rematch: of a single game at once, of a match once the
        // match is over (never of a game against the AI, nor of a tournament's).
        if next.is_none() && !tournament && l.game.ai_levels.iter().all(Option::is_none) {
            b = b.button(
                format!("rematch:{}", l.game.id),
                "Rematch",
                ButtonStyle::Primary,
            );
        }
        let mut reply = b.build();
        reply.retire = unanswered;
        outs.push(Out {
            reply,
            board: Some(board),
        });
        outs.extend(next);
        // A tournament game: the match goes on, or the pairing's result moves the tournament
        // on (the next round made here, in this transaction, exactly once).
        outs.extend(self.tournament_game_over(tx, &l.game, &o, now)?);
        Ok(outs)
    }

    /// Aborts a game: no result, no points, announced in `b`. In a match, the game is replayed
    /// with the same player first (`replay`), or the match is called off.
    pub(crate) fn abort_game(
        &self,
        tx: &Tx,
        l: &Loaded,
        mut b: Builder,
        replay: bool,
        now: i64,
    ) -> Outcome<Vec<Out>> {
        tx.abort_game(l.game.id, now)?;
        tx.clear_draw_offer(l.game.id)?;
        let (Some(match_id), Some(number)) = (l.game.match_id, l.game.match_game) else {
            return Ok(vec![Out::text(b.build())]);
        };
        if !replay {
            tx.finish_match(match_id, now)?;
            b = b.text(" The match is called off.");
            return Ok(vec![Out::text(b.build())]);
        }
        let m = tx
            .match_row(match_id)?
            .ok_or_else(|| Fail::User(format!("Match {match_id} is missing.")))?;
        let first_seat = l.game.options.first.index();
        let challenger_first = l.game.seats[first_seat] == m.players[0];
        let again = create_game(
            tx,
            &l.game.server_id,
            &l.game.channel_id,
            m.variant,
            m.scoring,
            [&m.players[0], &m.players[1]],
            challenger_first,
            Some((match_id, number)),
            l.game.days_per_move,
            l.game.rated,
            now,
        )?;
        b = b.text(format!(" Match game {number} is replayed."));
        let n = names(tx, &again)?;
        Ok(vec![
            Out::text(b.build()),
            game_start(&again, &n, "the same player as before"),
        ])
    }

    /// After a game of a match ends: the running score, and the second game started.
    fn match_progress(
        &self,
        tx: &Tx,
        game: &GameRow,
        match_id: i64,
        now: i64,
    ) -> Outcome<(String, Option<Out>)> {
        let m = tx
            .match_row(match_id)?
            .ok_or_else(|| Fail::User(format!("Match {match_id} is missing.")))?;
        let games = tx.match_games(match_id)?;
        let mut totals = [Points(0); 2];
        let mut finished = 0;
        for g in &games {
            if let Some(o) = &g.outcome {
                finished += 1;
                for seat in 0..2 {
                    let who = usize::from(g.seats[seat] != m.players[0]);
                    totals[who] = totals[who] + o.points[text::side_of(g, seat)];
                }
            }
        }
        // Names in the Markdown text: escaped.
        let pname = |i: usize| -> Outcome<String> {
            Ok(escape_markdown(
                &tx.user_name(&m.players[i])?.unwrap_or_default(),
            ))
        };
        let (n0, n1) = (pname(0)?, pname(1)?);
        let score = format!("{n0} {} – {} {n1}", totals[0], totals[1]);
        if finished < 2 {
            // Game 2: the other player moves first.
            let first_seat = game.options.first.index();
            let challenger_started = game.seats[first_seat] == m.players[0];
            let next = create_game(
                tx,
                &game.server_id,
                &game.channel_id,
                m.variant,
                m.scoring,
                [&m.players[0], &m.players[1]],
                !challenger_started,
                Some((match_id, 2)),
                game.days_per_move,
                game.rated,
                now,
            )?;
            let n = names(tx, &next)?;
            let start = game_start(&next, &n, "the other player starts the second game");
            Ok((
                format!("**Match:** {score} after game 1. Game 2 starts now."),
                Some(start),
            ))
        } else {
            tx.finish_match(match_id, now)?;
            let verdict = match totals[0].cmp(&totals[1]) {
                std::cmp::Ordering::Greater => format!("{n0} wins the match"),
                std::cmp::Ordering::Less => format!("{n1} wins the match"),
                std::cmp::Ordering::Equal => "the match is drawn".to_string(),
            };
            Ok((format!("**Match over:** {verdict}, {score}."), None))
        }
    }
}
