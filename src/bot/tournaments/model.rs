//! A stored tournament read as the tournament model: its players, results and pairings
//! ([`Model`]), the standings, and the FIDE TRF-16 file the Dutch system pairs a Swiss from.

use crate::bot::reply::Ctx;
use crate::bot::session::{Fail, Outcome};
use crate::store::TournamentId;
use crate::store::UserId;
use crate::store::{
    EntrantRow, PairingResult, PairingRow, TournamentFormat, TournamentRow, TournamentStatus, Tx,
};
use crate::tournament::{
    self as tm, Code, Colour, GameResult, Pairing, Points, Results, RoundEntry, Standing, Trf,
    TrfPlayer,
};
use std::collections::{HashMap, HashSet};

/// The name of a format in words.
pub(super) fn format_name(f: TournamentFormat) -> &'static str {
    match f {
        TournamentFormat::Swiss => "Swiss",
        TournamentFormat::RoundRobin => "round robin",
        TournamentFormat::Knockout => "knockout",
    }
}

/// `**Spring Cup** (#3)`.
pub(super) fn title(t: &TournamentRow) -> String {
    crate::bot::text::event_title(&t.name, "#", t.id)
}

/// The stable key of a pairing's thread: `t3-r2-b1`.
pub(super) fn thread_key(t: &TournamentRow, p: &PairingRow) -> String {
    format!("t{}-r{}-b{}", t.id, p.round, p.board)
}

/// An event's start that would open more threads than this puts several games in a thread
/// instead (docs/operating.md, "Discord's limits"): about a minute of the threads Discord lets
/// a bot open on one server, so that every player hears where their games are within it.
pub(crate) const THREADS_AT_ONCE: usize = 50;

/// The stable key of a thread shared by several games: a round's (`t3-r2`), or with no round
/// the whole event's (`t3`, a league division).
pub(crate) fn shared_thread_key(t: TournamentId, round: Option<u32>) -> String {
    match round {
        Some(r) => format!("t{}-r{r}", t),
        None => format!("t{}", t),
    }
}

/// Whether a pairing's thread is shared with other games ([`shared_thread_key`]).
pub(super) fn shares_thread(t: &TournamentRow, p: &PairingRow) -> bool {
    p.thread_key
        .as_deref()
        .is_some_and(|k| k != thread_key(t, p))
}

pub(super) fn store_corrupt(what: String) -> Fail {
    Fail::Store(crate::store::StoreError::Corrupt(what))
}

/// The tournament a command names (`id`), or the one of the channel: the tournament of the
/// game thread it is sent in, else the newest of the channel in one of `statuses`.
pub(super) fn find(
    tx: &Tx,
    ctx: &Ctx,
    id: Option<TournamentId>,
    statuses: &[TournamentStatus],
) -> Outcome<TournamentRow> {
    if let Some(id) = id {
        return tx
            .tournament(id)?
            .filter(|t| t.server_id == ctx.server)
            .ok_or_else(|| {
                Fail::User(format!(
                    "There is no tournament #{id} on this server; `/tournament list` lists them."
                ))
            });
    }
    if let Some(p) = tx.pairing_in_thread(&ctx.channel)? {
        if let Some(t) = tx.tournament(p.tournament_id)? {
            return Ok(t);
        }
    }
    tx.server_tournaments(&ctx.server)?
        .into_iter()
        .find(|t| t.channel_id == ctx.channel && statuses.contains(&t.status))
        .ok_or_else(|| {
            Fail::User(
                "No tournament of this channel fits: give its number (`id:3`); \
                 `/tournament list` lists the server's tournaments."
                    .into(),
            )
        })
}

/// A tournament's players and results as the standings and the TRF file read them: the
/// players in seed order (sign-up order before the start).
pub(crate) struct Model {
    pub players: Vec<EntrantRow>,
    pub names: Vec<String>,
    pub results: Results,
    pub pairings: Vec<PairingRow>,
}

impl Model {
    pub(super) fn index(&self, user: &UserId) -> Option<usize> {
        self.players.iter().position(|p| p.user_id == user)
    }
}

/// Reads a tournament's model.
pub(crate) fn model(tx: &Tx, t: &TournamentRow) -> Outcome<Model> {
    let mut players = tx.entrants(t.id)?;
    players.sort_by_key(|p| (p.seed.unwrap_or(u32::MAX), p.signup));
    let names = players
        .iter()
        .map(|p| tx.name_or_id(&p.user_id))
        .collect::<Result<Vec<String>, _>>()?;
    let pairings = tx.pairings(t.id, None)?;
    let idx: HashMap<&str, usize> = players
        .iter()
        .enumerate()
        .map(|(i, p)| (p.user_id.as_str(), i))
        .collect();
    let rounds = pairings.iter().map(|p| p.round).max().unwrap_or(0) as usize;
    let mut table: Vec<Vec<Pairing>> = vec![Vec::new(); rounds];
    let bye_points = if t.format == TournamentFormat::RoundRobin {
        Points::ZERO
    } else {
        Points::ONE
    };
    for p in &pairings {
        let Some(&a) = idx.get(p.player0.as_str()) else {
            continue;
        };
        let b = p
            .player1
            .as_ref()
            .map(UserId::as_str)
            .and_then(|u| idx.get(u).copied());
        let entry = match (b, p.result) {
            (None, _) => Pairing::Bye {
                player: a,
                points: bye_points,
            },
            (Some(b), Some(r)) => match r {
                PairingResult::Win0 => game(a, b, Some(GameResult::FirstWins)),
                PairingResult::Win1 => game(a, b, Some(GameResult::SecondWins)),
                PairingResult::Draw => game(a, b, Some(GameResult::Draw)),
                PairingResult::Forfeit0 => Pairing::Forfeit {
                    winner: b,
                    loser: a,
                },
                PairingResult::Forfeit1 => Pairing::Forfeit {
                    winner: a,
                    loser: b,
                },
                PairingResult::Bye => Pairing::Bye {
                    player: a,
                    points: bye_points,
                },
            },
            // A game in progress; a pairing not started yet is no game at all, and neither
            // is a game called off with its tournament (it ended without a result).
            (Some(b), None) if p.game_id.is_some() && t.status != TournamentStatus::Cancelled => {
                game(a, b, None)
            }
            (Some(_), None) => continue,
        };
        table[p.round as usize - 1].push(entry);
    }
    let results = Results {
        players: players
            .iter()
            .map(|p| tm::Entrant {
                rating: p.rating,
                signup: p.signup,
            })
            .collect(),
        rounds: table,
    };
    Ok(Model {
        players,
        names,
        results,
        pairings,
    })
}

fn game(first: usize, second: usize, result: Option<GameResult>) -> Pairing {
    Pairing::Game {
        first,
        second,
        result,
    }
}

/// The table of tiebreaks of a tournament's system.
pub(super) fn system(t: &TournamentRow) -> tm::System {
    match t.format {
        TournamentFormat::Swiss => tm::System::Swiss,
        TournamentFormat::RoundRobin => tm::System::RoundRobin,
        TournamentFormat::Knockout => tm::System::Knockout,
    }
}

/// The standings of a model, by the system's tiebreaks, as the bot shows them: a bye counts
/// together with its round, so in the middle of a round its point waits until every other
/// pairing of the round has a result (else the player with the bye would lead at once,
/// ahead of players still playing). Finished games count as they end. A knockout's bye is
/// no point but a place in the next round, and counts at once.
pub(crate) fn standings_of(t: &TournamentRow, m: &Model) -> Vec<Standing> {
    let open: HashSet<u32> = m
        .pairings
        .iter()
        .filter(|p| p.result.is_none())
        .map(|p| p.round)
        .collect();
    if t.format == TournamentFormat::Knockout || open.is_empty() {
        return tm::standings(&m.results, system(t));
    }
    let mut results = m.results.clone();
    for (r, round) in results.rounds.iter_mut().enumerate() {
        if open.contains(&(r as u32 + 1)) {
            round.retain(|p| !matches!(p, Pairing::Bye { .. }));
        }
    }
    tm::standings(&results, system(t))
}

/// The tournament as a FIDE TRF-16 file: players by starting rank, one entry per round.
pub(crate) fn trf_of(t: &TournamentRow, m: &Model) -> Trf {
    // The file's points are those of its round entries, a bye of the round in progress
    // included (a pairing program reads them with the entries); its places are the bot's
    // standings' places, where that bye counts only once its round is over.
    let points: HashMap<usize, Points> = tm::standings(&m.results, system(t))
        .iter()
        .map(|s| (s.player, s.score))
        .collect();
    let places: HashMap<usize, u32> = standings_of(t, m)
        .iter()
        .map(|s| (s.player, s.rank))
        .collect();
    let rounds = m.results.rounds.len();
    let mut players: Vec<TrfPlayer> = m
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| TrfPlayer {
            rank: i as u32 + 1,
            name: m.names[i].clone(),
            rating: u32::try_from(p.rating).unwrap_or(0),
            points: points.get(&i).copied().unwrap_or(Points::ZERO),
            // The place in the standings (final, or so far), once a round has been paired.
            place: places.get(&i).copied().filter(|_| rounds > 0),
            rounds: vec![RoundEntry::NOT_PAIRED; rounds],
        })
        .collect();
    let (win, draw, loss) = if t.rated {
        (Code::Win, Code::Draw, Code::Loss)
    } else {
        (Code::UnratedWin, Code::UnratedDraw, Code::UnratedLoss)
    };
    let bye = match t.format {
        TournamentFormat::RoundRobin => Code::ZeroBye,
        // docs/rules.md §10 (Swiss): the pairing-allocated bye (`U`: one point, unplayed).
        TournamentFormat::Swiss => Code::PairingBye,
        TournamentFormat::Knockout => Code::FullBye,
    };
    for (r, round) in m.results.rounds.iter().enumerate() {
        let mut put = |who: usize, opponent: Option<usize>, colour: Option<Colour>, code: Code| {
            if let Some(p) = players.get_mut(who) {
                p.rounds[r] = RoundEntry {
                    opponent: opponent.map(|o| o as u32 + 1),
                    colour,
                    code,
                };
            }
        };
        for p in round {
            match *p {
                Pairing::Game {
                    first,
                    second,
                    result: Some(res),
                } => {
                    let (a, b) = match res {
                        GameResult::FirstWins => (win, loss),
                        GameResult::Draw => (draw, draw),
                        GameResult::SecondWins => (loss, win),
                    };
                    put(first, Some(second), Some(Colour::White), a);
                    put(second, Some(first), Some(Colour::Black), b);
                }
                // A game in progress is left unpaired, as pairing programs expect.
                Pairing::Game { result: None, .. } => {}
                Pairing::Forfeit { winner, loser } => {
                    put(winner, Some(loser), None, Code::ForfeitWin);
                    put(loser, Some(winner), None, Code::ForfeitLoss);
                }
                Pairing::Bye { player, .. } => put(player, None, None, bye),
            }
        }
    }
    if t.format == TournamentFormat::Swiss {
        swiss_absences(t, m, &mut players, rounds);
    }
    for p in &mut players {
        while p.rounds.last() == Some(&RoundEntry::NOT_PAIRED) {
            p.rounds.pop();
        }
    }
    let first_colour = first_colour(t, m);
    Trf {
        players,
        total_rounds: t.total_rounds,
        first_colour,
        other_lines: vec![
            format!("012 {}", t.name),
            // 092, the type of tournament: the system and the game (022 is the city).
            format!(
                "092 {}{}, {} (tara-bot)",
                if t.double_rr { "double " } else { "" },
                format_name(t.format),
                t.variant.id()
            ),
        ],
    }
}

/// A Swiss's rounds a player was not paired in (a late entrant's first, a withdrawn player's
/// after withdrawing) entered as absences in `players`, and a withdrawn player's absence from
/// the next round in advance.
fn swiss_absences(t: &TournamentRow, m: &Model, players: &mut [TrfPlayer], rounds: usize) {
    // A round a player was not paired in (a late entrant's first, a withdrawn player's
    // after withdrawing) is an absence, 0 points (`Z`), not a blank (a game in progress);
    // a withdrawn player of a running Swiss is absent from the next round too, entered in
    // advance, so that `pair --dutch` pairs the file as the bot does.
    let absent = RoundEntry {
        opponent: None,
        colour: None,
        code: Code::ZeroBye,
    };
    // Who was paired in which round, read once.
    let paired: HashSet<(u32, &str)> = m
        .pairings
        .iter()
        .flat_map(|q| {
            std::iter::once(q.player0.as_str())
                .chain(q.player1.as_ref().map(UserId::as_str))
                .map(move |u| (q.round, u))
        })
        .collect();
    for (i, p) in m.players.iter().enumerate() {
        let tp = &mut players[i];
        for (r, e) in tp.rounds.iter_mut().enumerate() {
            if !paired.contains(&(r as u32 + 1, p.user_id.as_str())) {
                *e = absent;
            }
        }
        let next = rounds as u32 + 1;
        if p.withdrawn_at.is_some()
            && t.status == TournamentStatus::Running
            && t.total_rounds.is_some_and(|n| next <= n)
        {
            tp.rounds.push(absent);
        }
    }
}

/// A Swiss's `XXC` ([`trf_of`]).
fn first_colour(t: &TournamentRow, m: &Model) -> Option<Colour> {
    // A Swiss's `XXC`: the top player's colour in round 1, read back from its pairings (the
    // first mover is player 0), drawn by lot before round 1 (docs/rules.md §10: Swiss). The top player is the
    // highest seed who played round 1 (a late entrant did not): as board 1's higher player
    // they had the initial colour.
    let in_round_1 = |user: &UserId| {
        m.pairings.iter().any(|p| {
            p.round == 1
                && p.player1.is_some()
                && (p.player0 == user
                    || p.player1.as_ref().map(UserId::as_str) == Some(user.as_str()))
        })
    };
    let top = m.players.iter().map(|p| &p.user_id).find(|u| in_round_1(u));
    m.pairings
        .iter()
        .filter(|_| t.format == TournamentFormat::Swiss)
        .find(|p| {
            p.round == 1
                && p.player1.is_some()
                && (Some(&p.player0) == top || p.player1.as_ref() == top)
        })
        .map(|p| {
            if Some(&p.player0) == top {
                Colour::White
            } else {
                Colour::Black
            }
        })
}

/// The TRF-16 the Dutch system pairs Swiss round `paired + 1` from: [`trf_of`], with the
/// top player's colour in round 1 (`XXC`) drawn by `lot` before round 1, every round already
/// paired without a player (a late entrant's) marked absent (`Z`, 0 points), and every
/// withdrawn player marked absent from their last round to the next one, so that they are not
/// paired.
pub(crate) fn swiss_trf(
    t: &TournamentRow,
    m: &Model,
    paired: u32,
    lot: impl FnOnce() -> bool,
) -> Trf {
    let mut trf = trf_of(t, m);
    if trf.first_colour.is_none() {
        trf.first_colour = if paired == 0 {
            Some(if lot() { Colour::White } else { Colour::Black })
        } else {
            trf.first_colour_or_inferred()
        };
    }
    let absent = RoundEntry {
        opponent: None,
        colour: None,
        code: Code::ZeroBye,
    };
    for (i, p) in m.players.iter().enumerate() {
        let Some(tp) = trf.players.get_mut(i) else {
            continue;
        };
        // Rounds already paired without them (a late entrant's first): absent, 0 points.
        for e in tp
            .rounds
            .iter_mut()
            .filter(|e| **e == RoundEntry::NOT_PAIRED)
        {
            *e = absent;
        }
        tp.rounds.resize(paired as usize, absent);
        if p.withdrawn_at.is_some() {
            tp.rounds.push(absent);
        }
    }
    trf
}

/// One line of the standings as the `tara-bot tournament standings --json` contract writes it
/// (docs/rules.md §10: standings).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct StandingLine {
    /// The place (players still tied share it).
    pub rank: u32,
    /// The player's name.
    pub player: String,
    /// The player's id (a Discord id, a console name).
    pub id: UserId,
    pub score: f64,
    pub buchholz_cut1: f64,
    pub buchholz: f64,
    pub sonneborn_berger: f64,
    /// Games won over the board.
    pub wins: u32,
    /// The rating the player was seeded with.
    pub rating: i32,
}

/// Why a tournament cannot be read from a database.
pub(crate) fn report_error(e: Fail, id: TournamentId) -> String {
    match e {
        Fail::User(m) => m,
        Fail::Store(e) => format!("tournament {id} cannot be read: {e}"),
    }
}

pub(super) fn read_tournament(tx: &Tx, id: TournamentId) -> Outcome<TournamentRow> {
    tx.tournament(id)?
        .ok_or_else(|| Fail::User(format!("there is no tournament {id} in this database")))
}

/// A stored tournament's standings, best first (read in `tx`; `tara-bot tournament standings`).
pub(crate) fn standing_lines(tx: &Tx, id: TournamentId) -> Outcome<Vec<StandingLine>> {
    let t = read_tournament(tx, id)?;
    let m = model(tx, &t)?;
    Ok(standings_of(&t, &m)
        .into_iter()
        .map(|s| StandingLine {
            rank: s.rank,
            player: m.names[s.player].clone(),
            id: m.players[s.player].user_id.clone(),
            score: s.score.as_f64(),
            buchholz_cut1: s.buchholz_cut1.as_f64(),
            buchholz: s.buchholz.as_f64(),
            sonneborn_berger: s.sonneborn_berger.as_f64(),
            wins: s.wins,
            rating: s.rating,
        })
        .collect())
}

/// A stored tournament as a FIDE TRF-16 file (read in `tx`; `tara-bot tournament export`).
pub(crate) fn trf_text(tx: &Tx, id: TournamentId) -> Outcome<String> {
    let t = read_tournament(tx, id)?;
    let m = model(tx, &t)?;
    Ok(trf_of(&t, &m).write())
}
