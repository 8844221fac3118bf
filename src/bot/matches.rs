//! A game's end for its match (a subscriber of [`GameEnded`]): the running match score, the
//! second game started; an aborted match game replayed, or the match called off.

use super::reply::escape_markdown;
use super::session::{
    create_game, game_start, names, Announcement, EndCause, Fail, GameEnded, GameSpec, Out,
    Outcome, Seating, Session,
};
use crate::store::MatchId;
use crate::store::{match_totals, GameRow, Tx};

/// Subscriber: after a result, a match (not a tournament's: the tournament runs those) gets
/// its score and its second game; after an abort, a match game is replayed with the same
/// player first (a player's abort) or the match is called off (a moderator's, or a player who
/// never moved). Aborts that announce nothing (a tournament called off, a tournament match
/// forfeited) are settled by the tournament.
pub(crate) fn game_ended(s: &Session, e: &GameEnded, ann: &mut Announcement) -> Outcome<()> {
    let l = e.game;
    let (tx, now) = (s.tx, s.now);
    if e.outcome.is_some() {
        if let (Some(match_id), None) = (l.game.match_id, l.game.pairing_id) {
            let (summary, start) = match_progress(tx, &l.game, match_id, now)?;
            ann.text = std::mem::take(&mut ann.text).text(format!("\n{summary}"));
            ann.after.extend(start);
        }
        return Ok(());
    }
    let replay = match e.reason {
        EndCause::Aborted => true,
        EndCause::NoShow | EndCause::ModeratorAbort => false,
        _ => return Ok(()),
    };
    let (Some(match_id), Some(number)) = (l.game.match_id, l.game.match_game) else {
        return Ok(());
    };
    if !replay {
        tx.finish_match(match_id, now)?;
        ann.text = std::mem::take(&mut ann.text).text(" The match is called off.");
        return Ok(());
    }
    let m = tx
        .match_row(match_id)?
        .ok_or_else(|| Fail::User(format!("Match {match_id} is missing.")))?;
    let first_seat = l.game.options.first;
    let challenger_first = l.game.seats[first_seat] == m.players[0];
    let spec = GameSpec {
        server: &l.game.server_id,
        channel: &l.game.channel_id,
        variant: m.variant,
        scoring: m.scoring,
        seating: Seating::people([&m.players[0], &m.players[1]], challenger_first),
        match_game: Some((match_id, number)),
        days_per_move: l.game.days_per_move,
        rated: l.game.rated,
        pairing: None,
    };
    let again = create_game(tx, spec, now)?;
    ann.text = std::mem::take(&mut ann.text).text(format!(" Match game {number} is replayed."));
    let n = names(tx, &again)?;
    ann.after
        .push(game_start(&again, &n, "the same player as before"));
    Ok(())
}

/// Whether the end of `game` with a result (stored) starts its match's next game: a match's
/// (not a tournament's) first game played to a result. Read from the match's finished games
/// only, so it is the same before and after [`game_ended`] has started that game.
pub(crate) fn next_game_follows(tx: &Tx, game: &GameRow) -> Outcome<bool> {
    let (Some(match_id), None) = (game.match_id, game.pairing_id) else {
        return Ok(false);
    };
    let finished = tx
        .match_games(match_id)?
        .iter()
        .filter(|g| g.outcome.is_some())
        .count();
    Ok(finished < 2)
}

/// After a game of a match ends: the running score, and the second game started.
fn match_progress(
    tx: &Tx,
    game: &GameRow,
    match_id: MatchId,
    now: i64,
) -> Outcome<(String, Option<Out>)> {
    let m = tx
        .match_row(match_id)?
        .ok_or_else(|| Fail::User(format!("Match {match_id} is missing.")))?;
    let games = tx.match_games(match_id)?;
    let totals = match_totals(&games, &m.players[0]);
    let finished = games.iter().filter(|g| g.outcome.is_some()).count();
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
        let first_seat = game.options.first;
        let challenger_started = game.seats[first_seat] == m.players[0];
        let spec = GameSpec {
            server: &game.server_id,
            channel: &game.channel_id,
            variant: m.variant,
            scoring: m.scoring,
            seating: Seating::people([&m.players[0], &m.players[1]], !challenger_started),
            match_game: Some((match_id, 2)),
            days_per_move: game.days_per_move,
            rated: game.rated,
            pairing: None,
        };
        let next = create_game(tx, spec, now)?;
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
