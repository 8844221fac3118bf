//! The runner's side of a game's end: a tournament game's result recorded (a match going on
//! to its next game), withdrawals and their forfeits, and the `GameEnded` subscriber.

use super::model::title;
use super::presentation::on_its_page;
use super::runner::{advance, pairing_game, thread_request, PairingStart};
use crate::bot::lifecycle;
use crate::bot::reply::escape_markdown;
use crate::bot::session::{
    both_moved, forfeited_by, load_game, Announcement, EndCause, GameEnded, Out, Outcome, Place,
    Session,
};
use crate::bot::text::Builder;
use crate::game::{forfeit, EndReason, Side};
use crate::store::UserId;
use crate::store::{match_totals, MatchId};
use crate::store::{
    GameRow, GameStatus, PairingResult, PairingRow, TournamentFormat, TournamentRow,
    TournamentStatus,
};

/// What a match needs after one of its games.
enum MatchState {
    /// Its next game, started.
    Next(Box<Out>),
    /// It is over.
    Decided(PairingResult),
}

/// Subscriber: after a tournament game's result (not a withdrawal: that settles its pairings
/// itself), the tournament moves on ([`tournament_game_over`]).
pub(crate) fn game_ended(s: &Session, e: &GameEnded, ann: &mut Announcement) -> Outcome<()> {
    if let (Some(o), false) = (e.outcome, e.reason == EndCause::Withdrawn) {
        let game = &e.game.game;
        ann.after.extend(tournament_game_over(s, game, o)?);
    }
    Ok(())
}

/// Withdraws a player (docs/rules.md §10: forfeits): not paired again; their games in progress are resigned
/// (in a round robin, they and the games not yet started are forfeits); past results stand.
pub(super) fn withdraw(
    s: &Session,
    t: &TournamentRow,
    user: &UserId,
    why: &str,
) -> Outcome<Vec<Out>> {
    let (tx, now) = (s.tx, s.now);
    if !tx.withdraw_entrant(t.id, user, now)? {
        return Ok(vec![]);
    }
    let name = tx.name_or_id(user)?;
    let round_robin = t.format == TournamentFormat::RoundRobin;
    let (mut ended, mut forfeits) = (0, 0);
    let mut outs = Vec::new();
    for p in tx.pairings(t.id, None)? {
        if p.result.is_some()
            || (p.player0 != user && p.player1.as_ref().map(UserId::as_str) != Some(user.as_str()))
        {
            continue;
        }
        let Some(_) = p.player1 else { continue };
        let seat0 = p.player0 == user;
        let active = tx
            .pairing_games(p.id)?
            .into_iter()
            .find(|g| g.status == GameStatus::Active);
        // A game in progress that both players had not moved in yet is a forfeit too
        // (docs/rules.md §9), as all of them are in a round robin.
        let mut forfeited = round_robin;
        if let Some(g) = active {
            let mut l = load_game(tx, g)?;
            forfeited |= !both_moved(&l.game, &l.moves);
            if forfeited {
                tx.set_game_unrated(l.game.id)?;
                l.game.rated = false;
            }
            let seat = l.game.seat_of(user).unwrap_or(l.game.sides()[0]);
            let side: Side = seat;
            let o = forfeit(&l.pos, side, EndReason::Resigned);
            let b = Builder::new().user(user, &name).text(format!(
                " is withdrawn from {} ({why}), so this game is resigned{}.",
                title(t),
                if forfeited {
                    " as a forfeit (not rated)"
                } else {
                    ""
                }
            ));
            let event = GameEnded {
                game: &l,
                outcome: Some(&o),
                reason: EndCause::Withdrawn,
            };
            // The announcement goes to the game's thread. (When a forfeit in another game
            // withdraws the player, that game's end is being handled: this one is announced
            // after it.)
            let place = Place {
                channel: l.game.channel_id.clone(),
                thread: Some(thread_request(tx, t, &p)?),
            };
            outs.extend(lifecycle::end_game_in(s, event, b, None, Some(place))?);
            ended += 1;
            forfeits += usize::from(forfeited);
            if let Some(m) = p.match_id {
                tx.finish_match(m, now)?;
            }
        }
        // A knockout tie not begun yet is a forfeit too.
        forfeited |= p.game_id.is_none();
        let result = match (forfeited, seat0) {
            (true, true) => PairingResult::Forfeit0,
            (true, false) => PairingResult::Forfeit1,
            (false, true) => PairingResult::Win1,
            (false, false) => PairingResult::Win0,
        };
        tx.set_pairing_result(p.id, result, now)?;
    }
    let mut b = Builder::new()
        .user(user, &name)
        .text(format!(" is withdrawn from {} ({why}).", title(t)));
    if ended > 0 {
        b = b.text(format!(
            " {ended} game{} in progress {} resigned{}.",
            if ended == 1 { "" } else { "s" },
            if ended == 1 { "is" } else { "are" },
            match (forfeits, ended) {
                (0, _) => String::new(),
                (1, 1) => " as a forfeit".to_string(),
                (f, e) if f == e => " as forfeits".to_string(),
                (f, _) => format!(" ({f} as forfeits)"),
            }
        ));
    }
    let mut reply = b.build();
    reply.channel = Some(t.channel_id.clone());
    outs.push(Out::text(reply));
    Ok(outs)
}

/// After a game of a tournament ended (its result stored): the match goes on, or the
/// pairing's result is recorded and the tournament moves on — in the same transaction, so
/// the next round is made exactly once.
pub(crate) fn tournament_game_over(
    s: &Session,
    game: &GameRow,
    o: &crate::game::Outcome,
) -> Outcome<Vec<Out>> {
    let (tx, now) = (s.tx, s.now);
    let Some(pid) = game.pairing_id else {
        return Ok(vec![]);
    };
    let Some(p) = tx.pairing(pid)? else {
        return Ok(vec![]);
    };
    let Some(t) = tx.tournament(p.tournament_id)? else {
        return Ok(vec![]);
    };
    if p.result.is_some() || t.status != TournamentStatus::Running {
        return Ok(vec![]);
    }
    let Some(p1) = p.player1.clone() else {
        return Ok(vec![]);
    };
    let mut outs = Vec::new();
    // A forfeit (docs/rules.md §9 and §10: forfeits): a timeout before the player's own first move, or a
    // resignation before both players moved.
    let forfeiter = forfeited_by(game, &tx.moves(game.id)?, o).map(|seat| game.seats[seat].clone());
    let result = if let Some(loser) = &forfeiter {
        Some(if *loser == p.player0 {
            PairingResult::Forfeit0
        } else {
            PairingResult::Forfeit1
        })
    } else if let Some(match_id) = p.match_id {
        match match_state(s, &t, &p, &p1, match_id)? {
            MatchState::Next(out) => {
                outs.push(*out);
                None
            }
            MatchState::Decided(r) => Some(r),
        }
    } else {
        Some(match o.winner {
            None => PairingResult::Draw,
            Some(w) => {
                if game.seats[w] == p.player0 {
                    PairingResult::Win0
                } else {
                    PairingResult::Win1
                }
            }
        })
    };
    let Some(result) = result else {
        return Ok(outs);
    };
    if let Some(m) = p.match_id {
        tx.finish_match(m, now)?;
        // A forfeit ends the whole match.
        for g in tx.match_games(m)? {
            if g.status == GameStatus::Active {
                let l = load_game(tx, g)?;
                lifecycle::aborted(s, &l, EndCause::MatchForfeited, Builder::new())?;
            }
        }
    }
    tx.set_pairing_result(p.id, result, now)?;
    let (n0, n1) = (tx.name_or_id(&p.player0)?, tx.name_or_id(&p1)?);
    let verdict = match result {
        PairingResult::Win0 => format!("{} wins", escape_markdown(&n0)),
        PairingResult::Win1 => format!("{} wins", escape_markdown(&n1)),
        PairingResult::Draw => "a draw".to_string(),
        PairingResult::Forfeit0 => format!("{} forfeits", escape_markdown(&n0)),
        PairingResult::Forfeit1 => format!("{} forfeits", escape_markdown(&n1)),
        PairingResult::Bye => "a bye".into(),
    };
    let b = Builder::new().text(format!(
        "{} round {}: {verdict} ({} vs {}). `/tournament standings id:{}` shows the \
         standings.",
        title(&t),
        p.round,
        escape_markdown(&n0),
        escape_markdown(&n1),
        t.id
    ));
    let mut reply = on_its_page(b, &t);
    reply.channel = Some(game.channel_id.clone());
    outs.push(Out::text(reply));
    if let Some(loser) = forfeiter {
        // Two forfeits withdraw a player; a league division's own limit is more than half of
        // their games (docs/rules.md §11.2).
        let limit = t.forfeit_limit.unwrap_or(2);
        if tx.add_forfeit(t.id, &loser)? >= limit {
            let why = if limit == 2 {
                "two forfeits".to_string()
            } else {
                format!("{limit} forfeits, more than half of their games")
            };
            outs.extend(withdraw(s, &t, &loser, &why)?);
        }
    }
    outs.extend(advance(s, t.id)?);
    Ok(outs)
}

/// A tournament match after one of its games: the next game (game 2, or a decider), or
/// its result.
fn match_state(
    s: &Session,
    t: &TournamentRow,
    p: &PairingRow,
    p1: &UserId,
    match_id: MatchId,
) -> Outcome<MatchState> {
    let tx = s.tx;
    let games = tx.match_games(match_id)?;
    let finished: Vec<&GameRow> = games.iter().filter(|g| g.outcome.is_some()).collect();
    // The two games' points decide; a decider only breaks a tie.
    let two_games = finished.iter().filter(|g| g.match_game.unwrap_or(1) <= 2);
    let totals = match_totals(two_games.copied(), &p.player0);
    let last = finished.last().copied();
    let number = finished.len() as i64 + 1;
    let knockout = t.format == TournamentFormat::Knockout;
    if finished.len() < 2 {
        // Game 2: the other player moves first.
        let first_was_p0 = last.is_some_and(|g| g.seats[g.options.first] == p.player0);
        let start = PairingStart {
            match_game: Some((match_id, 2)),
            p0_first: !first_was_p0,
            why_first: "the other player starts game 2",
        };
        return pairing_game(s, t, p, p1, start).map(|o| MatchState::Next(Box::new(o)));
    }
    if finished.len() == 2 && totals[0] != totals[1] {
        return Ok(MatchState::Decided(if totals[0] > totals[1] {
            PairingResult::Win0
        } else {
            PairingResult::Win1
        }));
    }
    if finished.len() > 2 {
        if let Some(w) =
            last.and_then(|g| g.outcome.as_ref().and_then(|o| o.winner).map(|w| (g, w)))
        {
            let (g, w) = w;
            let winner = &g.seats[w];
            return Ok(MatchState::Decided(if *winner == p.player0 {
                PairingResult::Win0
            } else {
                PairingResult::Win1
            }));
        }
    }
    if !knockout {
        return Ok(MatchState::Decided(PairingResult::Draw));
    }
    // docs/rules.md §10 (knockout): a tie level on points is decided by one more game, first move by lot,
    // repeated until someone wins one.
    let p0_first = s.coin();
    let start = PairingStart {
        match_game: Some((match_id, number)),
        p0_first,
        why_first: "a decider: the first move drawn by lot",
    };
    pairing_game(s, t, p, p1, start).map(|o| MatchState::Next(Box::new(o)))
}
