//! How a tournament is shown: the standings as text, and the data of its pictures (the
//! standings card, a round robin's crosstable, a knockout's bracket).

use super::model::{format_name, model, standings_of, title, Model};
use crate::bot::reply::{Attachment, Reply, WebPage};
use crate::bot::session::{Out, Outcome};
use crate::bot::text::Builder;
use crate::render::{
    self, BracketCard, BracketSeat, BracketTie, CrossPlayer, Crosstable, StandingsCard,
    StandingsRow,
};
use crate::store::{GameId, TournamentId, UserId};
use crate::store::{
    PairingResult, PairingRow, TournamentFormat, TournamentRow, TournamentStatus, Tx,
};
use crate::tournament::{GameResult, Pairing, Points, Standing};
use std::collections::HashMap;

/// A tournament's options, as its creation and `/tournament info` show them: "Ard Rí · Swiss ·
/// single games · no clock · rated · 3 rounds", with a round robin's pace, a Swiss's rounds
/// (or how they will be counted), the scoring where the game has a choice and the cap on
/// players where there is one.
pub(super) fn options_text(t: &TournamentRow) -> String {
    let mut s = format!(
        "{} · {}{}",
        t.variant.name(),
        format_name(t.format),
        if t.double_rr { " (double)" } else { "" }
    );
    if t.variant.allows_knots() {
        s.push_str(&format!(" · scored by {}", t.scoring));
    }
    s.push_str(if t.is_match {
        " · two-game matches"
    } else {
        " · single games"
    });
    s.push_str(&format!(
        " · {}",
        crate::bot::time::TimeControl::from_days(t.days_per_move)
    ));
    s.push_str(if t.rated { " · rated" } else { " · casual" });
    match t.format {
        TournamentFormat::RoundRobin => s.push_str(&format!(" · {}", t.pace.id())),
        TournamentFormat::Swiss => s.push_str(&match t.total_rounds {
            Some(r) => format!(" · {}", crate::bot::time::plural(i64::from(r), "round")),
            None => " · rounds: ⌈log2 players⌉ + 1".to_string(),
        }),
        TournamentFormat::Knockout => {}
    }
    if let Some(n) = t.max_players {
        s.push_str(&format!(" · at most {n} players"));
    }
    s
}

/// Points as the pictures and the text table write them, one way in every column: "2",
/// "2½", "½", "1¼", "¾" (Sonneborn-Berger counts half of a half).
fn written(p: Points) -> String {
    let n = p.in_quarters();
    let fraction = ["", "¼", "½", "¾"][(n % 4) as usize];
    match n / 4 {
        0 if !fraction.is_empty() => fraction.to_string(),
        w => format!("{w}{fraction}"),
    }
}

/// A knockout's Round column: the last round a player reached, or "champion" for the
/// winner of the final (whom the standings count as reaching the round after it).
fn round_text(t: &TournamentRow, reached: Option<u32>) -> String {
    match reached {
        Some(n) if t.total_rounds.is_some_and(|total| n > total) => "champion".into(),
        Some(n) => n.to_string(),
        None => "-".into(),
    }
}

/// What the pictures' subtitles say of a tournament's progress.
fn progress(t: &TournamentRow, m: &Model, rows: &[Standing]) -> String {
    let done = m
        .results
        .rounds
        .iter()
        .enumerate()
        .filter(|(r, _)| {
            let ps: Vec<_> = m
                .pairings
                .iter()
                .filter(|p| p.round == *r as u32 + 1)
                .collect();
            !ps.is_empty() && ps.iter().all(|p| p.result.is_some())
        })
        .count();
    let playing: u32 = rows.iter().map(|r| r.in_progress).sum::<u32>() / 2;
    let mut s = match (t.status, t.total_rounds) {
        (TournamentStatus::Finished, _) => "Final standings".to_string(),
        (TournamentStatus::Cancelled, Some(n)) => format!("Cancelled after round {done} of {n}"),
        (TournamentStatus::Cancelled, None) => "Cancelled before the start".to_string(),
        (_, Some(n)) => format!("After round {done} of {n}"),
        _ => "Before the start".to_string(),
    };
    if playing > 0 {
        s.push_str(&format!(
            " · {playing} game{} in progress",
            if playing == 1 { "" } else { "s" }
        ));
    }
    s
}

fn picture_title(t: &TournamentRow) -> String {
    format!("{} · {} ({})", t.name, t.variant.name(), t.variant.id())
}

/// The standings picture's data: the rows of [`standings_of`], written.
pub(crate) fn standings_card(t: &TournamentRow, m: &Model, rows: &[Standing]) -> StandingsCard {
    // The columns of the text table: the system's tiebreaks, then the rating seeded with.
    let tiebreaks: Vec<&str> = match t.format {
        TournamentFormat::Swiss => vec!["BH-C1", "BH", "SB", "Wins", "Rating"],
        TournamentFormat::RoundRobin => vec!["SB", "DE", "Wins", "Rating"],
        TournamentFormat::Knockout => vec!["Round", "Rating"],
    };
    StandingsCard {
        title: picture_title(t),
        subtitle: progress(t, m, rows),
        tiebreaks: tiebreaks.into_iter().map(String::from).collect(),
        rows: rows
            .iter()
            .map(|r| StandingsRow {
                place: r.rank,
                shared: r.shared,
                name: m.names[r.player].clone(),
                score: written(r.score),
                tiebreaks: match t.format {
                    TournamentFormat::Swiss => vec![
                        written(r.buchholz_cut1),
                        written(r.buchholz),
                        written(r.sonneborn_berger),
                        r.wins.to_string(),
                        r.rating.to_string(),
                    ],
                    TournamentFormat::RoundRobin => vec![
                        written(r.sonneborn_berger),
                        r.direct_encounter.map_or("-".into(), written),
                        r.wins.to_string(),
                        r.rating.to_string(),
                    ],
                    TournamentFormat::Knockout => {
                        vec![round_text(t, r.round_reached), r.rating.to_string()]
                    }
                },
                playing: r.in_progress,
                withdrawn: m.players[r.player].withdrawn_at.is_some(),
            })
            .collect(),
    }
}

/// A round robin's crosstable: players in table order, one mark per game.
pub(crate) fn crosstable(t: &TournamentRow, m: &Model, rows: &[Standing]) -> Crosstable {
    let n = m.players.len();
    let mut cells = vec![vec![String::new(); n]; n];
    let mut mark = |i: usize, j: usize, s: &str| {
        if let Some(c) = cells.get_mut(i).and_then(|r| r.get_mut(j)) {
            if !c.is_empty() {
                c.push(' ');
            }
            c.push_str(s);
        }
    };
    for round in &m.results.rounds {
        for p in round {
            match *p {
                Pairing::Game {
                    first,
                    second,
                    result,
                } => {
                    let (a, b) = match result {
                        Some(GameResult::FirstWins) => ("1", "0"),
                        Some(GameResult::Draw) => ("½", "½"),
                        Some(GameResult::SecondWins) => ("0", "1"),
                        None => ("…", "…"),
                    };
                    mark(first, second, a);
                    mark(second, first, b);
                }
                Pairing::Forfeit { winner, loser } => {
                    mark(winner, loser, "+");
                    mark(loser, winner, "−");
                }
                Pairing::Bye { .. } => {}
            }
        }
    }
    let place: HashMap<usize, (u32, Points)> =
        rows.iter().map(|r| (r.player, (r.rank, r.score))).collect();
    Crosstable {
        title: picture_title(t),
        subtitle: progress(t, m, rows),
        players: (0..n)
            .map(|i| {
                let (p, s) = place.get(&i).copied().unwrap_or((0, Points::ZERO));
                CrossPlayer {
                    name: m.names[i].clone(),
                    score: written(s),
                    place: p,
                }
            })
            .collect(),
        cells,
    }
}

/// A knockout's bracket: each round's ties in board order (tie k of a round takes the
/// winners of ties 2k and 2k + 1 of the one before), the points each player has in the tie,
/// and the rounds not paired yet as ties waiting for their players.
pub(crate) fn bracket(
    tx: &Tx,
    t: &TournamentRow,
    m: &Model,
    rows: &[Standing],
) -> Outcome<BracketCard> {
    let total = t.total_rounds.unwrap_or(0).max(1);
    let mut rounds = Vec::new();
    let mut ties_before = 0;
    for r in 1..=total {
        let name = match total - r {
            0 => "Final".to_string(),
            1 => "Semi-finals".to_string(),
            2 => "Quarter-finals".to_string(),
            _ => format!("Round {r}"),
        };
        let ps: Vec<&PairingRow> = m.pairings.iter().filter(|p| p.round == r).collect();
        let mut ties = Vec::new();
        for p in &ps {
            let mut points = [Points::ZERO; 2];
            let mut deciding = false;
            for g in tx.pairing_games(p.id)? {
                if let Some(o) = &g.outcome {
                    for (k, who) in [Some(&p.player0), p.player1.as_ref()].iter().enumerate() {
                        let Some(who) = who else { continue };
                        points[k] += match o.winner {
                            None => Points::HALF,
                            Some(w) if g.seats[w] == **who => Points::ONE,
                            Some(_) => Points::ZERO,
                        };
                    }
                } else if g.match_game.unwrap_or(1) > 2 {
                    deciding = true;
                }
            }
            let seat = |k: usize, user: &UserId| {
                let i = m.index(user).unwrap_or(0);
                BracketSeat::Player {
                    seed: m.players[i].seed.unwrap_or(i as u32 + 1),
                    name: m.names[i].clone(),
                    score: if p.game_id.is_some() {
                        written(points[k])
                    } else {
                        String::new()
                    },
                }
            };
            let seats = [
                seat(0, &p.player0),
                match &p.player1 {
                    Some(u) => seat(1, u),
                    None => BracketSeat::Bye,
                },
            ];
            let winner = match p.result {
                Some(PairingResult::Win0 | PairingResult::Forfeit1 | PairingResult::Bye) => Some(0),
                Some(PairingResult::Win1 | PairingResult::Forfeit0) => Some(1),
                Some(PairingResult::Draw) | None => None,
            };
            let note = match p.result {
                Some(PairingResult::Forfeit0 | PairingResult::Forfeit1) => "forfeit",
                None if deciding => "decider in progress",
                _ => "",
            };
            ties.push(BracketTie {
                seats,
                winner,
                note: note.into(),
            });
        }
        if ties.is_empty() {
            let n = (ties_before / 2).max(1);
            ties = (0..n)
                .map(|_| BracketTie {
                    seats: [BracketSeat::Waiting, BracketSeat::Waiting],
                    winner: None,
                    note: String::new(),
                })
                .collect();
        }
        ties_before = ties.len();
        rounds.push((name, ties));
    }
    Ok(BracketCard {
        title: picture_title(t),
        subtitle: progress(t, m, rows),
        rounds,
    })
}

/// The tournament's pictures: the standings, and a round robin's crosstable or a knockout's
/// bracket (a Swiss has no second picture). Before the start there is nothing to draw.
pub(crate) fn pictures(
    tx: &Tx,
    t: &TournamentRow,
    m: &Model,
    rows: &[Standing],
) -> Outcome<Vec<Attachment>> {
    let mut out = Vec::new();
    for which in ["standings", "crosstable", "bracket"] {
        out.extend(picture(tx, t, m, rows, which)?);
    }
    Ok(out)
}

/// One of the tournament's [`pictures`] (`which`: `standings`, `crosstable`, `bracket`),
/// drawn alone; `None` when the tournament has no such picture (or none yet).
fn picture(
    tx: &Tx,
    t: &TournamentRow,
    m: &Model,
    rows: &[Standing],
    which: &str,
) -> Outcome<Option<Attachment>> {
    if t.status == TournamentStatus::Open || m.players.is_empty() {
        return Ok(None);
    }
    let bytes = match (which, t.format) {
        ("standings", _) => render::standings_png(&standings_card(t, m, rows)),
        ("crosstable", TournamentFormat::RoundRobin) => {
            render::crosstable_png(&crosstable(t, m, rows))
        }
        ("bracket", TournamentFormat::Knockout) => render::bracket_png(&bracket(tx, t, m, rows)?),
        _ => return Ok(None),
    };
    Ok(Some(Attachment {
        filename: format!("tournament-{}-{which}.png", t.id),
        bytes,
    }))
}

/// A tournament's standings as a league division shows them: the lines best first (as
/// `tara-bot tournament standings` gives them, players level on every tiebreak sharing a
/// rank), each line's player withdrawn or not, the picture's data and the table as text. The
/// picture and the table give every line a place of its own: a league places players level
/// on every tiebreak by their seed (docs/rules.md §11.2), as promotion and relegation do.
pub(crate) fn division_standings(
    tx: &Tx,
    id: TournamentId,
) -> Outcome<(
    Vec<super::model::StandingLine>,
    Vec<bool>,
    StandingsCard,
    String,
)> {
    let lines = super::model::standing_lines(tx, id)?;
    let t = tx
        .tournament(id)?
        .ok_or_else(|| crate::bot::session::Fail::User(format!("there is no tournament {id}")))?;
    let m = model(tx, &t)?;
    let mut rows = standings_of(&t, &m);
    for (k, r) in rows.iter_mut().enumerate() {
        r.rank = k as u32 + 1;
        r.shared = false;
    }
    let withdrawn = rows
        .iter()
        .map(|r| m.players[r.player].withdrawn_at.is_some())
        .collect();
    Ok((
        lines,
        withdrawn,
        standings_card(&t, &m, &rows),
        standings_table(&t, &m, &rows),
    ))
}

/// The standings as a text table: place, player, score, the system's tiebreak columns and
/// games in progress. (A picture can be attached beside it: the rows are the same.)
pub(crate) fn standings_table(t: &TournamentRow, m: &Model, rows: &[Standing]) -> String {
    let q = written;
    let width = m
        .names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(6)
        .clamp(6, 24);
    let mut s = String::new();
    let head = match t.format {
        TournamentFormat::Swiss => "   BhC1    Bh    SB  Wins",
        TournamentFormat::RoundRobin => "     SB    DE  Wins",
        TournamentFormat::Knockout => "      Round",
    };
    s.push_str(&format!(
        "{:>3}  {:<width$}  {:>5}{head}  Rating  Playing\n",
        "#", "Player", "Score"
    ));
    for r in rows {
        let name: String = m.names[r.player].chars().take(width).collect();
        let place = format!("{}{}", r.rank, if r.shared { "=" } else { "" });
        let cols = match t.format {
            TournamentFormat::Swiss => format!(
                "{:>7}{:>6}{:>6}{:>6}",
                q(r.buchholz_cut1),
                q(r.buchholz),
                q(r.sonneborn_berger),
                r.wins
            ),
            TournamentFormat::RoundRobin => format!(
                "{:>7}{:>6}{:>6}",
                q(r.sonneborn_berger),
                r.direct_encounter.map_or("-".to_string(), q),
                r.wins
            ),
            TournamentFormat::Knockout => format!("{:>11}", round_text(t, r.round_reached)),
        };
        s.push_str(&format!(
            "{place:>3}  {name:<width$}  {:>5}{cols}  {:>6}  {:>7}\n",
            q(r.score),
            r.rating,
            r.in_progress
        ));
    }
    s
}

/// A message about tournament `t`, with the link to its page on the web.
pub(super) fn on_its_page(b: Builder, t: &TournamentRow) -> Reply {
    b.on_the_web(&t.server_id, WebPage::Tournament(t.id))
        .build()
}

/// A reply with the tournament's pictures: the first (the standings) on the reply itself,
/// the second (crosstable or bracket) in a message of its own after it, with a line saying
/// what it shows for screen readers and notifications.
pub(super) fn with_pictures(
    mut reply: Reply,
    mut pictures: Vec<Attachment>,
    t: &TournamentRow,
) -> Vec<Out> {
    let second = (pictures.len() > 1).then(|| pictures.remove(1));
    reply.image = pictures.into_iter().next();
    let mut outs = vec![Out::text(reply.clone())];
    if let Some(img) = second {
        let what = match t.format {
            TournamentFormat::Knockout => "bracket",
            _ => "crosstable",
        };
        let mut r = Builder::new()
            .text(format!("{} · the {what}.", title(t)))
            .build();
        r.channel = reply.channel.clone();
        r.ephemeral = reply.ephemeral;
        r.image = Some(img);
        outs.push(Out::text(r));
    }
    outs
}

pub(super) fn result_text(r: PairingResult) -> &'static str {
    match r {
        PairingResult::Win0 => "1–0",
        PairingResult::Win1 => "0–1",
        PairingResult::Draw => "½–½",
        PairingResult::Forfeit0 => "−/+ (forfeit)",
        PairingResult::Forfeit1 => "+/− (forfeit)",
        PairingResult::Bye => "bye",
    }
}

/// A tournament as the web companion shows it (`tara-bot web`): its row, its options in
/// words, the standings as `/tournament standings` draws them (the same columns), and every
/// round's pairings with their games.
pub struct TournamentView {
    pub row: TournamentRow,
    pub options: String,
    pub standings: StandingsCard,
    pub rounds: Vec<(u32, Vec<PairingView>)>,
}

/// One board of a round, as the web companion shows it: the players (the second `None` for a
/// bye), the result as written ("1–0", "½–½", "+/−" for a forfeit; empty while played) and
/// the pairing's games.
pub struct PairingView {
    pub board: u32,
    pub players: (String, Option<String>),
    pub result: String,
    pub games: Vec<GameId>,
}

/// The web companion's view of tournament `id` (read in `tx`); `None` when there is none.
pub(crate) fn tournament_view(tx: &Tx, id: TournamentId) -> Outcome<Option<TournamentView>> {
    let Some(t) = tx.tournament(id)? else {
        return Ok(None);
    };
    let m = model(tx, &t)?;
    let rows = standings_of(&t, &m);
    let name_of = |u: &UserId| -> Outcome<String> { Ok(tx.name_or_id(u)?) };
    let mut rounds: Vec<(u32, Vec<PairingView>)> = Vec::new();
    for p in &m.pairings {
        let mut games: Vec<GameId> = tx.pairing_games(p.id)?.into_iter().map(|g| g.id).collect();
        games.sort();
        let view = PairingView {
            board: p.board,
            players: (
                name_of(&p.player0)?,
                p.player1.as_ref().map(name_of).transpose()?,
            ),
            result: match p.result {
                Some(PairingResult::Win0) => "1–0",
                Some(PairingResult::Win1) => "0–1",
                Some(PairingResult::Draw) => "½–½",
                Some(PairingResult::Forfeit0) => "−/+",
                Some(PairingResult::Forfeit1) => "+/−",
                Some(PairingResult::Bye) => "bye",
                None => "",
            }
            .to_string(),
            games,
        };
        match rounds.last_mut().filter(|(r, _)| *r == p.round) {
            Some((_, boards)) => boards.push(view),
            None => rounds.push((p.round, vec![view])),
        }
    }
    for (_, boards) in &mut rounds {
        boards.sort_by_key(|b| b.board);
    }
    rounds.sort_by_key(|(r, _)| *r);
    Ok(Some(TournamentView {
        options: options_text(&t),
        standings: standings_card(&t, &m, &rows),
        rounds,
        row: t,
    }))
}

/// The pictures of tournament `id` the web companion shows, by name: `standings`, and
/// `crosstable` (a round robin) or `bracket` (a knockout); `None` for another name, or before
/// the start.
pub(crate) fn tournament_picture(
    tx: &Tx,
    id: TournamentId,
    which: &str,
) -> Outcome<Option<Vec<u8>>> {
    let Some(t) = tx.tournament(id)? else {
        return Ok(None);
    };
    let m = model(tx, &t)?;
    let rows = standings_of(&t, &m);
    Ok(picture(tx, &t, &m, &rows, which)?.map(|a| a.bytes))
}

#[cfg(test)]
mod tests {
    use super::written;
    use crate::tournament::Points;

    #[test]
    fn points_are_written_one_way() {
        let w = |q: u32| written(Points::quarters(q));
        assert_eq!(
            [w(0), w(1), w(2), w(3), w(4), w(5), w(6), w(7), w(10)],
            ["0", "¼", "½", "¾", "1", "1¼", "1½", "1¾", "2½"]
        );
    }
}
