//! Plain-English descriptions of moves, results and the games' rules, shared by the board
//! images and the bot's messages.

use super::board::{squares, Bits, Hill, Square};
use super::moves::Move;
use super::outcome::{EndReason, Outcome};
use super::side::{Player, Side, Team};
use super::tara::TaraPosition;
use super::variant::{Scoring, Variant};
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
pub fn tara_last_move(pos: &TaraPosition) -> Option<String> {
    let last = pos.last_move();
    let variant_has_kings = pos.variant().has_kings();
    // "One more turn" only while the game goes on: a pass that answers the opponent's (B.5),
    // or an ending at the start of the next turn, ends it at once.
    let goes_on = pos.outcome().is_none();
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
    if last.last_hill && goes_on {
        s.push_str(&format!(
            " That was the last vacant hill: {q} has one more turn."
        ));
    } else if last.last_hill {
        s.push_str(" That was the last vacant hill.");
    } else if last.passed_out && goes_on {
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
        Position::Tara(t) => tara_last_move(t),
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

/// A count with its noun, in the singular for exactly one: "1 kingdom", "0 kingdoms",
/// "7 ringforts".
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// How a finished game was decided, in words that say why the winner won, e.g. "Red wins with
/// fewer kingdoms: 4 to Blue's 6" or "Kingdoms level at 4; Blue wins with more ringforts, 23 to
/// 22" (A.2: fewer kingdoms or knots wins; if equal, more territory).
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
                (r.knots, b.knots, "knot")
            } else {
                (r.kingdoms, b.kingdoms, "kingdom")
            };
            // The winner's count first, then the loser's with their name.
            let red_won = o.winner == Some(Side::Red);
            let order = |a: u32, b: u32| if red_won { (a, b) } else { (b, a) };
            let loser = loser_name(o);
            match winner {
                Some(w) if kr != kb => {
                    let (x, y) = order(kr, kb);
                    format!("{w} with fewer {what}s: {x} to {loser}'s {y}")
                }
                Some(w) => {
                    let (x, y) = order(r.territory, b.territory);
                    let level = if knots { "Knots" } else { "Kingdoms" };
                    format!("{level} level at {kr}; {w} with more ringforts, {x} to {y}")
                }
                None => format!(
                    "Draw: level on {what}s ({kr} each) and on territory ({} each)",
                    count(u64::from(r.territory), "ringfort")
                ),
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
        (EndReason::Agreed, _) => "Draw by agreement".into(),
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

/// A short summary of a variant's rules, in our own words.
pub fn rules(variant: Variant) -> &'static str {
    match variant {
        Variant::Hkot1 => "**High Kings of Tara (hkot-1)**\n\
            Each player has three kings. **Placement** (first six turns): put a ringfort with a new king on any \
            vacant hill not next to one of your ringforts. **Manoeuvres**: move a king by a knight's move to a \
            vacant hill not next to your ringforts and build a ringfort there. When a player's kings are all \
            stuck, **BATTLE!** starts for both: ringforts may now touch and link by bridges, but friendly kings \
            never stand side by side. A player whose kings are all stuck may backtrack onto an own ringfort or \
            capture an enemy ringfort that is besieged (every neighbour yours). A king standing on a besieged \
            hill is captured when an enemy king moves next to it; two captures win at once. Passing is allowed \
            when every king on the board is stuck (your kings leave the board; your opponent gets one more turn). \
            **Scoring**: fewest kingdoms (or knots) wins 2 + the difference; if equal, most territory wins 2 + \
            the difference; +1 per captured king. Moves: `D4` (placement), `G2-E3` (king move), `pass`.",
        Variant::Hkot2 => "**High Kings of Tara, Level 2 (hkot-2)**\n\
            As hkot-1, plus **sacrifices**: after losing exactly one king, when all your kings are stuck, a king \
            may backtrack onto your own besieged ringfort and hand it to your opponent (`C5-B3*`). That king \
            then stands on enemy territory, safe from capture, but must move on your next turn; if it cannot, \
            it is captured and you lose by double capture. Always scored by kingdoms.",
        Variant::SacredHill1 => "**Tara: Sacred Hill (sacred-hill-1)**\n\
            No kings: each turn you build one ringfort. **Manoeuvres**: your first ringfort goes anywhere; later \
            ones must be a knight's move from one of yours and no closer than a knight's move to any of yours. \
            When you cannot, your own **Battle** starts: build next to your ringforts while you can, else \
            anywhere. An enemy ringfort you besiege (every neighbour yours) must be captured on your turn. The \
            game ends when the board is full and nothing is besieged. **Scoring**: fewest kingdoms (or knots) \
            wins 2 + the difference; if equal, most territory. Moves: `D4`.",
        Variant::SacredHill2 => "**Tara: Sacred Hill, Level 2 (sacred-hill-2)**\n\
            As sacred-hill-1, but in Battle every vacant hill has an **order of priority** (how many of your \
            ringforts touch it) and every enemy ringfort you besiege has the priority of its number of \
            neighbours. You must play one with the highest priority, so a besieged ringfort may wait while an \
            equal or better hill is open. Always scored by kingdoms.",
        Variant::ArdRi => "**Ard Rí (ard-ri)**\n\
            7x7 tafl. 16 attackers surround 8 defenders and their king on the throne (d4); the attackers move \
            first. Every piece, the king too, moves **one square** along a rank or file; only the king may stop \
            on the throne or a corner. Trap an enemy between two of yours (or against an empty corner or \
            throne) to capture it. The armed king captures too. The **defenders win** when the king reaches a \
            corner; the **attackers win** by surrounding the king on all four sides (a king on the edge is safe). \
            No legal move loses; a third repetition is not allowed; 100 moves without a capture is a draw. \
            Moves: `d2-d3`.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::playout::{random_game, Rng};
    use crate::game::{GameOptions, Variant};

    #[test]
    fn counts_are_singular_for_one() {
        assert_eq!(count(1, "kingdom"), "1 kingdom");
        assert_eq!(count(0, "ringfort"), "0 ringforts");
        assert_eq!(count(7, "ringfort"), "7 ringforts");
    }

    /// Scored results name the rule that decided them: fewer kingdoms (or knots) wins, and
    /// on equal counts more territory wins (A.2).
    #[test]
    fn scored_results_say_why_the_winner_won() {
        let mut seen = (false, false);
        for (variant, scoring) in [
            (Variant::SacredHill1, Scoring::Kingdoms),
            (Variant::SacredHill1, Scoring::Knots),
            (Variant::Hkot1, Scoring::Kingdoms),
        ] {
            let options = GameOptions::with(variant, Some(scoring), None).unwrap();
            for seed in 0..200 {
                let (pos, _) = random_game(options, &mut Rng::new(seed));
                let o = *pos.outcome().unwrap();
                let Position::Tara(t) = &pos else {
                    unreachable!()
                };
                if o.reason != EndReason::Score {
                    continue;
                }
                let text = result(&pos, &o);
                let what = if scoring == Scoring::Knots {
                    "knots"
                } else {
                    "kingdoms"
                };
                let count_of = |p: Player| {
                    let c = t.counts(p);
                    (
                        if scoring == Scoring::Knots {
                            c.knots
                        } else {
                            c.kingdoms
                        },
                        c.territory,
                    )
                };
                let Some(w) = o.winner else {
                    let (k, terr) = count_of(Player::Red);
                    assert_eq!(
                        text,
                        format!(
                            "Draw: level on {what} ({k} each) and on territory ({} each)",
                            count(terr.into(), "ringfort")
                        )
                    );
                    continue;
                };
                let winner = if w == Side::Red {
                    Player::Red
                } else {
                    Player::Blue
                };
                let ((kw, tw), (kl, tl)) = (count_of(winner), count_of(winner.opponent()));
                let loser = w.opponent().name();
                if kw != kl {
                    assert!(kw < kl, "{text}");
                    assert_eq!(
                        text,
                        format!(
                            "{} wins with fewer {what}: {kw} to {loser}'s {kl}",
                            w.name()
                        )
                    );
                    seen.0 = true;
                } else {
                    assert!(tw > tl, "{text}");
                    let level = if scoring == Scoring::Knots {
                        "Knots"
                    } else {
                        "Kingdoms"
                    };
                    assert_eq!(
                        text,
                        format!(
                            "{level} level at {kw}; {} wins with more ringforts, {tw} to {tl}",
                            w.name()
                        )
                    );
                    seen.1 = true;
                }
            }
        }
        assert!(
            seen.0 && seen.1,
            "no game was won on kingdoms and on territory: {seen:?}"
        );
    }
}
