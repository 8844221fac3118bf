//! Plain-English descriptions of moves and results, shared by the board images and the bot's
//! messages.

use super::board::{squares, Bits, Hill, Square};
use super::moves::Move;
use super::outcome::{EndReason, Outcome};
use super::side::{Player, Side, Team};
use super::tara::LastMove;
use super::variant::Scoring;
use super::variant_position::Position;

fn hills(b: Bits) -> String {
    let v: Vec<String> = Hill::in_set(b).map(|h| h.to_string()).collect();
    match v.len() {
        0 => String::new(),
        1 => v[0].clone(),
        n => format!("{} and {}", v[..n - 1].join(", "), v[n - 1]),
    }
}

fn squares_text(b: Bits) -> String {
    let v: Vec<String> = squares(b)
        .filter_map(Square::from_index)
        .map(|s| s.to_string())
        .collect();
    match v.len() {
        0 => String::new(),
        1 => v[0].clone(),
        n => format!("{} and {}", v[..n - 1].join(", "), v[n - 1]),
    }
}

/// What the last move of a Tara game did, as one sentence ("Blue moved G2-E3 and captured
/// Red's king on F7."). `None` at the start.
pub fn tara_last_move(last: &LastMove, variant_has_kings: bool) -> Option<String> {
    let m = last.mv?;
    let p = last.player?;
    let q = p.opponent();
    let mut s = match m {
        Move::Build { hill } if variant_has_kings => format!("{p} placed a king on {hill}"),
        Move::Build { hill } if last.fort_captured.is_some() => {
            format!("{p} captured {q}'s ringfort on {hill}")
        }
        Move::Build { hill } => format!("{p} built on {hill}"),
        Move::King { from, to, .. } => {
            if let Some(h) = last.sacrificed {
                format!("{p} backtracked {from}-{to} and sacrificed the ringfort on {h} to {q}")
            } else if let Some(h) = last.fort_captured {
                format!("{p} moved {from}-{to} and captured {q}'s ringfort on {h}")
            } else if last.built.is_some() {
                format!("{p} moved {from}-{to} and built")
            } else {
                format!("{p} backtracked {from}-{to}")
            }
        }
        Move::Pass if last.passed_out => format!("{p} passed and took their kings off the board"),
        Move::Pass => format!("{p} had no legal move and passed"),
        Move::Step { .. } => return None,
    };
    let kings = last.kings_captured.count_ones();
    if kings == 1 {
        s.push_str(&format!(
            ", capturing {q}'s king on {}",
            hills(last.kings_captured)
        ));
    } else if kings > 1 {
        s.push_str(&format!(
            ", capturing {q}'s kings on {}",
            hills(last.kings_captured)
        ));
    }
    s.push('.');
    if last.last_hill {
        s.push_str(&format!(
            " That was the last vacant hill: {q} has one more turn."
        ));
    } else if last.passed_out {
        s.push_str(&format!(" {q} has one more turn."));
    }
    if let Some(h) = last.stranded_king_lost {
        s.push_str(&format!(
            " {q}'s king on {h} is trapped on enemy territory and is captured by default."
        ));
    }
    if let Some((h, owner)) = last.stranded_at_end {
        s.push_str(&format!(
            " {owner}'s king on {h} is still on enemy territory as the game ends, so it is captured by default."
        ));
    }
    if last.third_repetition {
        s.push_str(" The same position has now occurred three times: the game ends and is scored.");
    }
    if last.battle_started {
        if variant_has_kings {
            s.push_str(" BATTLE!");
        } else {
            // Sacred Hill: each player's Battle starts on their own.
            s.push_str(&format!(" {q}'s Battle begins."));
        }
    }
    Some(s)
}

/// What an Ard Rí move did ("Attackers moved d2-c2, capturing c3.").
pub fn ard_ri_move(m: Move, mover: Team, captured: Bits) -> String {
    let who = match mover {
        Team::Attackers => "Attackers",
        Team::Defenders => "Defenders",
    };
    let mut s = format!("{who} moved {m}");
    if captured != 0 {
        s.push_str(&format!(", capturing {}", squares_text(captured)));
    }
    s.push('.');
    s
}

/// The last move of any game in one sentence; `last` is the move played (needed for Ard Rí).
pub fn last_move(pos: &Position, last: Option<Move>) -> Option<String> {
    match pos {
        Position::Tara(t) => tara_last_move(t.last_move(), t.variant().has_kings()),
        Position::ArdRi(a) => {
            let m = last?;
            // The attackers move at even plies, so an odd ply count means they moved last.
            let mover = if a.ply() % 2 == 1 {
                Team::Attackers
            } else {
                Team::Defenders
            };
            Some(ard_ri_move(m, mover, a.last_captures()))
        }
    }
}

/// "Red wins" or "Attackers win".
pub fn wins(side: Side) -> String {
    match side {
        Side::Attackers | Side::Defenders => format!("{} win", side.name()),
        _ => format!("{} wins", side.name()),
    }
}

/// The loser's name in a sentence ("Blue", "the attackers").
fn loser_name(o: &Outcome) -> String {
    match o.winner.map(Side::opponent) {
        Some(s @ (Side::Attackers | Side::Defenders)) => format!("the {}", s.name().to_lowercase()),
        Some(s) => s.name().to_string(),
        None => String::new(),
    }
}

/// How a finished game was decided, e.g. "Red wins with 4 kingdoms to 6".
pub fn result(pos: &Position, o: &Outcome) -> String {
    let winner = o.winner.map(wins);
    let winner = winner.as_deref();
    match (o.reason, pos) {
        (EndReason::DoubleCapture, _) => {
            format!("{} by double capture", winner.unwrap_or("Nobody wins"))
        }
        (EndReason::Score, Position::Tara(t)) => {
            let (r, b) = (t.counts(Player::Red), t.counts(Player::Blue));
            let knots = t.options().scoring == Scoring::Knots;
            let (kr, kb, what) = if knots {
                (r.knots, b.knots, "knots")
            } else {
                (r.kingdoms, b.kingdoms, "kingdoms")
            };
            // The winner's count first.
            let red_won = o.winner == Some(Side::Red);
            let order = |a: u32, b: u32| if red_won { (a, b) } else { (b, a) };
            match winner {
                Some(w) if kr != kb => {
                    let (x, y) = order(kr, kb);
                    format!("{w} with {x} {what} to {y}")
                }
                Some(w) => {
                    let (x, y) = order(r.territory, b.territory);
                    format!("{w} on territory, {x} ringforts to {y} ({what} {kr} each)")
                }
                None => format!("Draw: {kr} {what} and {} ringforts each", r.territory),
            }
        }
        (EndReason::Score, _) => "Scored".to_string(),
        (EndReason::KingEscaped, _) => "Defenders win: the king escaped to a corner".into(),
        (EndReason::KingCaptured, _) => "Attackers win: the king is captured".into(),
        (EndReason::NoMoves, _) => format!(
            "{}: {} have no legal move",
            winner.unwrap_or("Nobody wins"),
            loser_name(o)
        ),
        (EndReason::MoveLimit, _) => "Draw: 100 moves without a capture".into(),
        (EndReason::Resigned, _) => format!(
            "{}: {} resigned",
            winner.unwrap_or("Nobody wins"),
            loser_name(o)
        ),
        (EndReason::Timeout, _) => format!(
            "{} on time: {} ran out of time",
            winner.unwrap_or("Nobody wins"),
            loser_name(o)
        ),
    }
}

/// Points as "Red 4 – 1 Blue" (seat order).
pub fn points(o: &Outcome, sides: [Side; 2]) -> String {
    format!(
        "{} {} – {} {}",
        sides[0].name(),
        o.points.first(),
        o.points.second(),
        sides[1].name()
    )
}
