//! Tournaments (docs/rules.md §10) in the bot: the subcommands of `/tournament`, and the runner
//! that opens each round's games in their threads, records every result in the transaction
//! that ends the game, and pairs or starts the next round there, exactly once.
//!
//! The runner is written per system around one question, "which pairings come next, given the
//! results so far": a round robin reads its Berger table (stored whole at the start), a
//! knockout its bracket, a Swiss the FIDE Dutch system on the tournament as a TRF-16 file
//! ([`swiss_trf`]).

use super::lifecycle;
use super::options::choices;
use super::reply::{
    code_block, escape_markdown, Attachment, Ctx, Document, Reply, ThreadRequest, User,
};
use super::session::{
    both_moved, create_game, default_time_control, forfeited_by, game_start, load_game, names,
    Announcement, Bot, EndCause, Fail, GameEnded, Out, Outcome, Session,
};
use super::text::Builder;
use super::time::TimeControl;
use crate::game::{forfeit, EndReason, GameOptions, Scoring, Side, Variant};
use crate::render::{
    self, BracketCard, BracketSeat, BracketTie, CrossPlayer, Crosstable, StandingsCard,
    StandingsRow,
};
use crate::store::{
    EntrantRow, GameRow, GameStatus, NewPairing, NewTournament, Pace, PairingResult, PairingRow,
    TournamentFormat, TournamentRow, TournamentStatus, Tx,
};
use crate::tournament::{
    self as tm, double_round_robin, single_round_robin, Bracket, Code, Colour, GameResult, Pairing,
    Points, Results, RoundEntry, Standing, TablePairing, Tie, Trf, TrfPlayer,
};
use std::collections::{HashMap, HashSet};

/// The systems offered when creating a tournament.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TournamentSystem {
    Swiss,
    RoundRobin,
    Knockout,
}

choices!(TournamentSystem {
    Swiss => "swiss", "Swiss (FIDE Dutch pairings, a fixed number of rounds)" | "dutch";
    RoundRobin => "round-robin", "round robin (everyone plays everyone)" | "rr" | "roundrobin";
    Knockout => "knockout", "knockout (single elimination, two-game ties)" | "ko" | "cup";
});

choices!(Pace {
    AllAtOnce => "all-at-once", "every game at once" | "all" | "at-once";
    ByRound => "by-round", "round by round" | "rounds" | "round";
});

/// The most players a round robin takes.
const MAX_ROUND_ROBIN: u32 = 64;
/// The most players a knockout or a Swiss takes.
const MAX_KNOCKOUT: u32 = 128;

/// The most players a tournament of `format` takes.
fn player_cap(format: TournamentFormat) -> u32 {
    match format {
        TournamentFormat::RoundRobin => MAX_ROUND_ROBIN,
        _ => MAX_KNOCKOUT,
    }
}

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

/// The most rounds a Swiss may be created with.
pub(crate) const MAX_SWISS_ROUNDS: u32 = 50;

/// docs/rules.md §10 (Swiss): the default number of rounds of a Swiss of `n` players, ⌈log2 n⌉ + 1, at most
/// n − 1.
pub(crate) fn default_swiss_rounds(n: u32) -> u32 {
    let log2 = u32::BITS - n.saturating_sub(1).leading_zeros();
    (log2 + 1).min(n.saturating_sub(1)).max(1)
}

/// The rating a player without one is seeded with (Glicko-2's starting rating).
const UNRATED: i32 = 1500;

/// The name of a format in words.
fn format_name(f: TournamentFormat) -> &'static str {
    match f {
        TournamentFormat::Swiss => "Swiss",
        TournamentFormat::RoundRobin => "round robin",
        TournamentFormat::Knockout => "knockout",
    }
}

/// A tournament's options, as its creation and `/tournament info` show them: "Ard Rí · Swiss ·
/// single games · no clock · rated · 3 rounds", with a round robin's pace, a Swiss's rounds
/// (or how they will be counted), the scoring where the game has a choice and the cap on
/// players where there is one.
fn options_text(t: &TournamentRow) -> String {
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
        super::time::TimeControl::from_days(t.days_per_move)
    ));
    s.push_str(if t.rated { " · rated" } else { " · casual" });
    match t.format {
        TournamentFormat::RoundRobin => s.push_str(&format!(" · {}", t.pace.id())),
        TournamentFormat::Swiss => s.push_str(&match t.total_rounds {
            Some(r) => format!(" · {}", super::time::plural(i64::from(r), "round")),
            None => " · rounds: ⌈log2 players⌉ + 1".to_string(),
        }),
        TournamentFormat::Knockout => {}
    }
    if let Some(n) = t.max_players {
        s.push_str(&format!(" · at most {n} players"));
    }
    s
}

/// `**Spring Cup** (#3)`.
fn title(t: &TournamentRow) -> String {
    format!("**{}** (#{})", escape_markdown(&t.name), t.id)
}

/// The stable key of a pairing's thread: `t3-r2-b1`.
fn thread_key(t: &TournamentRow, p: &PairingRow) -> String {
    format!("t{}-r{}-b{}", t.id, p.round, p.board)
}

fn user_name(tx: &Tx, id: &str) -> Outcome<String> {
    Ok(tx.user_name(id)?.unwrap_or_else(|| id.to_string()))
}

fn store_corrupt(what: String) -> Fail {
    Fail::Store(crate::store::StoreError::Corrupt(what))
}

/// The tournament a command names (`id`), or the one of the channel: the tournament of the
/// game thread it is sent in, else the newest of the channel in one of `statuses`.
fn find(
    tx: &Tx,
    ctx: &Ctx,
    id: Option<i64>,
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

/// The server setting naming the role whose members may create tournaments.
const CREATOR_ROLE: &str = "tournament_role";

/// Reads `/settings tournament-role`: a role mention (`<@&123>`), a role id or (in the
/// console) a role name; `moderators` (or `none`, `off`) for moderators only (`None`).
pub(crate) fn parse_role(text: &str) -> Result<Option<String>, String> {
    let t = text.trim();
    if ["moderators", "none", "off", "-"].contains(&t.to_ascii_lowercase().as_str()) {
        return Ok(None);
    }
    let id = t
        .strip_prefix("<@&")
        .and_then(|r| r.strip_suffix('>'))
        .unwrap_or(t)
        .trim_start_matches('@');
    if id.is_empty() || id.contains(char::is_whitespace) || id.contains(['<', '>']) {
        return Err(format!(
            "`tournament-role` takes one role, as @role, or `moderators` for moderators only; \
             \"{t}\" is not one."
        ));
    }
    Ok(Some(id.to_string()))
}

/// Stores the role whose members may create tournaments (`None`: moderators only).
pub(crate) fn set_creator_role(tx: &Tx, server: &str, role: Option<&str>) -> Outcome<()> {
    tx.set_server_setting(server, CREATOR_ROLE, role.unwrap_or(""))?;
    Ok(())
}

/// The role whose members may create tournaments besides moderators, if the server set one.
fn creator_role(tx: &Tx, server: &str) -> Outcome<Option<String>> {
    Ok(tx
        .server_setting(server, CREATOR_ROLE)?
        .filter(|r| !r.is_empty()))
}

/// The sentence `/settings` shows about who may create tournaments.
pub(crate) fn creator_role_text(tx: &Tx, server: &str) -> Outcome<String> {
    Ok(match creator_role(tx, server)? {
        Some(r) => format!(" Tournaments are created by moderators and members with <@&{r}>."),
        None => " Tournaments are created by moderators (`tournament-role` names a role that \
                  may too)."
            .into(),
    })
}

fn is_organiser(ctx: &Ctx, t: &TournamentRow) -> bool {
    ctx.moderator || ctx.user.id == t.creator_id
}

/// An organiser's action taken by a moderator's right (not the tournament's creator) goes in
/// the audit log like every moderator action; the entry for the log channel, if any.
fn audit_if_moderator(
    tx: &Tx,
    ctx: &Ctx,
    t: &TournamentRow,
    action: &str,
    detail: &str,
    now: i64,
) -> Outcome<Option<Out>> {
    if !ctx.moderator || ctx.user.id == t.creator_id {
        return Ok(None);
    }
    let subject = format!("tournament #{} {}", t.id, escape_markdown(&t.name));
    super::moderation::record_action(tx, ctx, action, &subject, detail, now)
}

fn organiser_only(ctx: &Ctx, t: &TournamentRow, what: &str) -> Outcome<()> {
    if is_organiser(ctx, t) {
        Ok(())
    } else {
        Err(Fail::User(format!(
            "Only the organiser (the creator of {} or a moderator) can {what}.",
            title(t)
        )))
    }
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
    fn index(&self, user: &str) -> Option<usize> {
        self.players.iter().position(|p| p.user_id == user)
    }
}

/// Reads a tournament's model.
pub(crate) fn model(tx: &Tx, t: &TournamentRow) -> Outcome<Model> {
    let mut players = tx.entrants(t.id)?;
    players.sort_by_key(|p| (p.seed.unwrap_or(u32::MAX), p.signup));
    let names = players
        .iter()
        .map(|p| user_name(tx, &p.user_id))
        .collect::<Outcome<Vec<String>>>()?;
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
        let b = p.player1.as_deref().and_then(|u| idx.get(u).copied());
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
fn system(t: &TournamentRow) -> tm::System {
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
    // included.
    let standings = tm::standings(&m.results, system(t));
    let score: HashMap<usize, (Points, u32)> = standings
        .iter()
        .map(|s| (s.player, (s.score, s.rank)))
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
            points: score.get(&i).map_or(Points::ZERO, |s| s.0),
            // The place in the standings (final, or so far), once a round has been paired.
            place: score.get(&i).map(|s| s.1).filter(|_| rounds > 0),
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
                    .chain(q.player1.as_deref())
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
    for p in &mut players {
        while p.rounds.last() == Some(&RoundEntry::NOT_PAIRED) {
            p.rounds.pop();
        }
    }
    // A Swiss's `XXC`: the top player's colour in round 1, read back from its pairings (the
    // first mover is player 0), drawn by lot before round 1 (docs/rules.md §10: Swiss). The top player is the
    // highest seed who played round 1 (a late entrant did not): as board 1's higher player
    // they had the initial colour.
    let in_round_1 = |user: &str| {
        m.pairings.iter().any(|p| {
            p.round == 1
                && p.player1.is_some()
                && (p.player0 == user || p.player1.as_deref() == Some(user))
        })
    };
    let top = m
        .players
        .iter()
        .map(|p| p.user_id.as_str())
        .find(|u| in_round_1(u));
    let first_colour = m
        .pairings
        .iter()
        .filter(|_| t.format == TournamentFormat::Swiss)
        .find(|p| {
            p.round == 1
                && p.player1.is_some()
                && (Some(p.player0.as_str()) == top || p.player1.as_deref() == top)
        })
        .map(|p| {
            if Some(p.player0.as_str()) == top {
                Colour::White
            } else {
                Colour::Black
            }
        });
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
                            Some(w) if g.seats[seat_of_side(&g, w)] == **who => Points::ONE,
                            Some(_) => Points::ZERO,
                        };
                    }
                } else if g.match_game.unwrap_or(1) > 2 {
                    deciding = true;
                }
            }
            let seat = |k: usize, user: &str| {
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
    if t.status == TournamentStatus::Open || m.players.is_empty() {
        return Ok(vec![]);
    }
    let mut out = vec![Attachment {
        filename: format!("tournament-{}-standings.png", t.id),
        bytes: render::standings_png(&standings_card(t, m, rows)),
    }];
    match t.format {
        TournamentFormat::RoundRobin => out.push(Attachment {
            filename: format!("tournament-{}-crosstable.png", t.id),
            bytes: render::crosstable_png(&crosstable(t, m, rows)),
        }),
        TournamentFormat::Knockout => out.push(Attachment {
            filename: format!("tournament-{}-bracket.png", t.id),
            bytes: render::bracket_png(&bracket(tx, t, m, rows)?),
        }),
        TournamentFormat::Swiss => {}
    }
    Ok(out)
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

impl Bot {
    /// `/tournament create`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn tournament_create(
        &self,
        ctx: &Ctx,
        name: String,
        variant: Variant,
        system: TournamentSystem,
        scoring: Option<Scoring>,
        rounds: Option<u32>,
        days: Option<TimeControl>,
        is_match: bool,
        rated: Option<bool>,
        max_players: Option<u32>,
        pace: Option<Pace>,
        double: bool,
    ) -> Outcome<Vec<Out>> {
        let name = name.trim().to_string();
        if name.is_empty() {
            return Err(Fail::User("Give the tournament a name.".into()));
        }
        let format = match system {
            TournamentSystem::Swiss => TournamentFormat::Swiss,
            TournamentSystem::RoundRobin => TournamentFormat::RoundRobin,
            TournamentSystem::Knockout => TournamentFormat::Knockout,
        };
        if format != TournamentFormat::RoundRobin && (pace.is_some() || double) {
            return Err(Fail::User(format!(
                "`pace` and `double` are for round robins; a {} plays each round when the \
                 previous one has ended.",
                format_name(format)
            )));
        }
        match (format, rounds) {
            (TournamentFormat::RoundRobin, Some(_)) => {
                return Err(Fail::User(
                    "`rounds` is for Swiss tournaments: a round robin plays every pairing of its \
                     table (n − 1 rounds for n players, n when n is odd; twice that with \
                     `double`)."
                        .into(),
                ))
            }
            (TournamentFormat::Knockout, Some(_)) => {
                return Err(Fail::User(
                    "`rounds` is for Swiss tournaments: a knockout plays until one player is \
                     left (⌈log2 n⌉ rounds for n players)."
                        .into(),
                ))
            }
            (_, Some(r)) if !(1..=MAX_SWISS_ROUNDS).contains(&r) => {
                return Err(Fail::User(format!(
                    "A Swiss has 1 to {MAX_SWISS_ROUNDS} rounds."
                )))
            }
            _ => {}
        }
        let cap = player_cap(format);
        if let Some(n) = max_players.filter(|&n| n > cap) {
            return Err(Fail::User(format!(
                "A {} takes at most {cap} players, so `max-players` can be at most {cap} (not \
                 {n}); leave it out for {cap}.",
                format_name(format)
            )));
        }
        let scoring = scoring.unwrap_or(Scoring::Kingdoms);
        GameOptions::with(variant, Some(scoring), None).map_err(|e| Fail::User(format!("{e}.")))?;
        // docs/rules.md §10 (knockout): every knockout tie is a two-game match.
        let is_match = is_match || format == TournamentFormat::Knockout;
        let pace = pace.unwrap_or(Pace::AllAtOnce);
        let rated = rated.unwrap_or(true);
        self.write(ctx, |tx, now| {
            // By default only moderators create tournaments; `/settings tournament-role`
            // names a role whose members may too.
            let role = creator_role(tx, &ctx.server)?;
            if !ctx.moderator && !role.as_ref().is_some_and(|r| ctx.roles.contains(r)) {
                return Err(Fail::User(match role {
                    Some(r) => format!(
                        "Only moderators (Manage Messages) and members with <@&{r}> can create \
                         tournaments on this server."
                    ),
                    None => "Only moderators (Manage Messages) can create tournaments on this \
                             server."
                        .into(),
                }));
            }
            let days = match days {
                Some(d) => d,
                None => default_time_control(tx, &ctx.server)?,
            };
            tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
            let id = tx.insert_tournament(
                &NewTournament {
                    server_id: &ctx.server,
                    channel_id: &ctx.channel,
                    creator_id: &ctx.user.id,
                    name: &name,
                    format,
                    variant,
                    scoring,
                    days_per_move: days.days(),
                    rated,
                    is_match,
                    double_rr: double,
                    max_players,
                    pace,
                    rounds,
                },
                now,
            )?;
            let t = read_tournament(tx, id)?;
            let mut b = Builder::new().text(format!(
                "**Tournament #{id}: {}** · {}",
                escape_markdown(&name),
                options_text(&t)
            ));
            b = b
                .text("\nOrganised by ")
                .user(&ctx.user.id, &ctx.user.name)
                .text(format!(
                    ". Sign up with `/tournament join id:{id}`; the organiser starts it with \
                     `/tournament start id:{id}`. Each game is played in a thread of this channel."
                ));
            Ok(vec![Out::text(b.build())])
        })
    }

    /// `/tournament join`: signs up for an open tournament, or joins a running Swiss late
    /// (docs/rules.md §10, Swiss: until round 2 is paired; the missed round scores 0 and is unplayed).
    pub(crate) fn tournament_join(&self, ctx: &Ctx, id: Option<i64>) -> Outcome<Vec<Out>> {
        self.write(ctx, |tx, now| {
            // The channel's open tournament, else its running one (a late entry).
            let t = find(tx, ctx, id, &[TournamentStatus::Open])
                .or_else(|e| find(tx, ctx, id, &[TournamentStatus::Running]).map_err(|_| e))?;
            let late = match t.status {
                TournamentStatus::Open => false,
                TournamentStatus::Running => {
                    late_entry_open(tx, &t)?;
                    true
                }
                _ => {
                    return Err(Fail::User(format!(
                        "{} is no longer taking sign-ups.",
                        title(&t)
                    )))
                }
            };
            let players = tx.entrants(t.id)?;
            if players.iter().any(|p| p.user_id == ctx.user.id) {
                return Err(Fail::User(format!(
                    "You are already signed up for {}.",
                    title(&t)
                )));
            }
            // A round robin of 64 plays 2,016 games, all started at once by default
            // (`bench tournament`: 0.4 s in one transaction); more is not offered.
            let cap = player_cap(t.format);
            if let Some(max) = t.max_players.map_or(Some(cap), |m| Some(m.min(cap))) {
                if players.len() as u32 >= max {
                    return Err(Fail::User(format!(
                        "{} is full ({max} players).",
                        title(&t)
                    )));
                }
            }
            tx.upsert_user(&ctx.user.id, &ctx.user.name, now)?;
            tx.insert_entrant(t.id, &ctx.user.id, now)?;
            let n = players.len() + 1;
            let mut b = Builder::new().user(&ctx.user.id, &ctx.user.name);
            if late {
                let seed = reseed_with_late_entrant(tx, &t, &ctx.user.id)?;
                b = b.text(format!(
                    " joins {} late, as seed {seed} of {n}: round 1 counts as 0 points \
                     (unplayed); they are paired from round 2.",
                    title(&t)
                ));
            } else {
                b = b.text(format!(
                    " joined {}: {n} player{} signed up.",
                    title(&t),
                    if n == 1 { "" } else { "s" }
                ));
            }
            Ok(vec![Out::text(b.build())])
        })
    }

    /// `/tournament leave`.
    pub(crate) fn tournament_leave(&self, ctx: &Ctx, id: Option<i64>) -> Outcome<Vec<Out>> {
        self.write(ctx, |tx, _now| {
            let t = find(tx, ctx, id, &[TournamentStatus::Open])?;
            if t.status != TournamentStatus::Open {
                return Err(Fail::User(format!(
                    "{} has started: ask the organiser to `/tournament withdraw` you, or withdraw \
                     yourself with `/tournament withdraw`.",
                    title(&t)
                )));
            }
            if !tx.delete_entrant(t.id, &ctx.user.id)? {
                return Err(Fail::User(format!(
                    "You are not signed up for {}.",
                    title(&t)
                )));
            }
            let reply = Builder::new()
                .user(&ctx.user.id, &ctx.user.name)
                .text(format!(" left {}.", title(&t)))
                .build();
            Ok(vec![Out::text(reply)])
        })
    }

    /// `/tournament cancel`.
    pub(crate) fn tournament_cancel(&self, ctx: &Ctx, id: Option<i64>) -> Outcome<Vec<Out>> {
        self.write(ctx, |tx, now| {
            let t = find(
                tx,
                ctx,
                id,
                &[TournamentStatus::Open, TournamentStatus::Running],
            )?;
            organiser_only(ctx, &t, "call it off")?;
            if matches!(
                t.status,
                TournamentStatus::Finished | TournamentStatus::Cancelled
            ) {
                return Err(Fail::User(format!("{} is already over.", title(&t))));
            }
            tx.set_tournament_status(t.id, TournamentStatus::Cancelled, now)?;
            // Its games in progress end without a result.
            let mut aborted = 0;
            let s = self.session(tx, now);
            for p in tx.pairings(t.id, None)? {
                for g in tx.pairing_games(p.id)? {
                    if g.status == GameStatus::Active {
                        // Nothing is announced per game: the message below says it.
                        let l = load_game(tx, g)?;
                        lifecycle::aborted(&s, &l, EndCause::TournamentCancelled, Builder::new())?;
                        aborted += 1;
                    }
                }
                if let Some(m) = p.match_id {
                    tx.finish_match(m, now)?;
                }
            }
            let mut b = Builder::new()
                .text(format!("{} is called off by ", title(&t)))
                .user(&ctx.user.id, &ctx.user.name)
                .text(".");
            if aborted > 0 {
                b = b.text(format!(
                    " Its {} in progress end{} without a result.",
                    super::time::plural(aborted, "game"),
                    if aborted == 1 { "s" } else { "" }
                ));
            }
            let mut reply = b.build();
            reply.channel = Some(t.channel_id.clone());
            let mut outs = vec![Out::text(reply)];
            outs.extend(audit_if_moderator(
                tx,
                ctx,
                &t,
                "tournament-cancel",
                &format!(
                    "called off; {} in progress ended without a result",
                    super::time::plural(aborted, "game")
                ),
                now,
            )?);
            Ok(outs)
        })
    }

    /// `/tournament start`: seeds by rating, stores the pairings, opens the first games.
    pub(crate) fn tournament_start(&self, ctx: &Ctx, id: Option<i64>) -> Outcome<Vec<Out>> {
        self.write(ctx, |tx, now| {
            let t = find(tx, ctx, id, &[TournamentStatus::Open])?;
            organiser_only(ctx, &t, "start it")?;
            if t.status != TournamentStatus::Open {
                return Err(Fail::User(format!("{} has already started.", title(&t))));
            }
            let mut players = tx.entrants(t.id)?;
            if players.len() < 2 {
                return Err(Fail::User(format!(
                    "{} needs at least two players to start; {} signed up.",
                    title(&t),
                    players.len()
                )));
            }
            // docs/rules.md §10 (round robin, knockout): seeds by rating (highest first), then the earlier sign-up.
            for p in &mut players {
                p.rating = tx
                    .rating(&t.server_id, t.variant.id(), &p.user_id)?
                    .map_or(UNRATED, |r| r.rating.round() as i32);
            }
            players.sort_by_key(|p| (-p.rating, p.signup));
            for (i, p) in players.iter().enumerate() {
                tx.seed_entrant(t.id, &p.user_id, p.rating, i as u32 + 1)?;
            }
            let user = |seed: u32| players[seed as usize - 1].user_id.as_str();
            let n = players.len() as u32;
            let mut cut = None;
            let total = match t.format {
                TournamentFormat::RoundRobin => {
                    let table = if t.double_rr {
                        double_round_robin(n)
                    } else {
                        single_round_robin(n)
                    };
                    for (r, round) in table.iter().enumerate() {
                        for (b, tp) in round.iter().enumerate() {
                            let (p0, p1) = match *tp {
                                TablePairing::Game { first, second } => {
                                    (user(first), Some(user(second)))
                                }
                                TablePairing::Bye { player } => (user(player), None),
                            };
                            insert_pairing(tx, &t, r as u32 + 1, b as u32 + 1, p0, p1, now)?;
                        }
                    }
                    table.len() as u32
                }
                TournamentFormat::Knockout => {
                    let bracket = Bracket::new(n)
                        .ok_or_else(|| Fail::User("A knockout needs two players.".into()))?;
                    for (b, tie) in bracket.first_round().iter().enumerate() {
                        let (p0, p1) = match *tie {
                            Tie::Match { high, low } => (user(high), Some(user(low))),
                            Tie::Bye { seed } => (user(seed), None),
                        };
                        insert_pairing(tx, &t, 1, b as u32 + 1, p0, p1, now)?;
                    }
                    bracket.rounds()
                }
                // docs/rules.md §10 (Swiss): the rounds chosen at creation, else ⌈log2 n⌉ + 1; at most
                // n − 1 (with fewer players no pairing avoids rematches). Each round is
                // paired by `advance` when the previous one has ended.
                TournamentFormat::Swiss => {
                    let most = n - 1;
                    let asked = t.total_rounds.unwrap_or_else(|| default_swiss_rounds(n));
                    if asked > most {
                        cut = Some(asked);
                    }
                    asked.min(most)
                }
            };
            tx.start_tournament(t.id, total, now)?;
            let mut b = Builder::new().text(format!(
                "{} starts: {n} players, {total} round{}. Seeds: ",
                title(&t),
                if total == 1 { "" } else { "s" }
            ));
            for (i, p) in players.iter().enumerate() {
                if i > 0 {
                    b = b.text(", ");
                }
                b = b
                    .text(format!("{}. ", i + 1))
                    .user(&p.user_id, &user_name(tx, &p.user_id)?)
                    .text(format!(" ({})", p.rating));
            }
            b = b.text(".");
            if let Some(asked) = cut {
                b = b.text(format!(
                    " ({asked} rounds were asked for, but {n} players can meet each other in at \
                     most {total}.)"
                ));
            }
            let mut reply = b.build();
            reply.channel = Some(t.channel_id.clone());
            let mut outs = vec![Out::text(reply)];
            outs.extend(audit_if_moderator(
                tx,
                ctx,
                &t,
                "tournament-start",
                &format!("started with {n} players"),
                now,
            )?);
            outs.extend(self.advance(tx, t.id, now)?);
            Ok(outs)
        })
    }

    /// `/tournament withdraw [player]`: the organiser withdraws anyone, a player themselves.
    pub(crate) fn tournament_withdraw(
        &self,
        ctx: &Ctx,
        player: Option<User>,
        id: Option<i64>,
    ) -> Outcome<Vec<Out>> {
        let who = player.unwrap_or_else(|| ctx.user.clone());
        self.write(ctx, |tx, now| {
            let t = find(tx, ctx, id, &[TournamentStatus::Running])?;
            if who.id != ctx.user.id {
                organiser_only(ctx, &t, "withdraw another player")?;
            }
            if t.status != TournamentStatus::Running {
                return Err(Fail::User(format!(
                    "{} is not running: before the start a player uses `/tournament leave`.",
                    title(&t)
                )));
            }
            let entrant = tx
                .entrants(t.id)?
                .into_iter()
                .find(|p| p.user_id == who.id)
                .ok_or_else(|| {
                    Fail::User(format!(
                        "{} is not playing in {}.",
                        escape_markdown(&who.name),
                        title(&t)
                    ))
                })?;
            if entrant.withdrawn_at.is_some() {
                return Err(Fail::User(format!(
                    "{} is already withdrawn from {}.",
                    escape_markdown(&who.name),
                    title(&t)
                )));
            }
            let by = if who.id == ctx.user.id {
                "at their own request".to_string()
            } else {
                format!("by {}", escape_markdown(&ctx.user.name))
            };
            let mut outs = self.withdraw(tx, &t, &who.id, &by, now)?;
            if who.id != ctx.user.id {
                outs.extend(audit_if_moderator(
                    tx,
                    ctx,
                    &t,
                    "tournament-withdraw",
                    &format!("withdrew {}", escape_markdown(&who.name)),
                    now,
                )?);
            }
            outs.extend(self.advance(tx, t.id, now)?);
            Ok(outs)
        })
    }

    /// Withdraws a player (docs/rules.md §10: forfeits): not paired again; their games in progress are resigned
    /// (in a round robin, they and the games not yet started are forfeits); past results stand.
    fn withdraw(
        &self,
        tx: &Tx,
        t: &TournamentRow,
        user: &str,
        why: &str,
        now: i64,
    ) -> Outcome<Vec<Out>> {
        if !tx.withdraw_entrant(t.id, user, now)? {
            return Ok(vec![]);
        }
        let name = user_name(tx, user)?;
        let round_robin = t.format == TournamentFormat::RoundRobin;
        let (mut ended, mut forfeits) = (0, 0);
        let mut outs = Vec::new();
        for p in tx.pairings(t.id, None)? {
            if p.result.is_some() || (p.player0 != user && p.player1.as_deref() != Some(user)) {
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
                let seat = l.game.seat_of(user).unwrap_or(0);
                let side: Side = super::text::side_of(&l.game, seat);
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
                let mut said = lifecycle::end_game(&self.session(tx, now), event, b, None)?;
                // The announcement goes to the game's thread.
                let announcement = said.remove(0).reply;
                outs.push(thread_out(tx, t, &p, &l.game.channel_id, announcement)?);
                outs.extend(said);
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
        &self,
        tx: &Tx,
        game: &GameRow,
        o: &crate::game::Outcome,
        now: i64,
    ) -> Outcome<Vec<Out>> {
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
        let forfeiter =
            forfeited_by(game, &tx.moves(game.id)?, o).map(|seat| game.seats[seat].clone());
        let result = if let Some(loser) = &forfeiter {
            Some(if *loser == p.player0 {
                PairingResult::Forfeit0
            } else {
                PairingResult::Forfeit1
            })
        } else if let Some(match_id) = p.match_id {
            match self.match_state(tx, &t, &p, &p1, match_id, now)? {
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
                    if game.seats[seat_of_side(game, w)] == p.player0 {
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
                    let s = self.session(tx, now);
                    lifecycle::aborted(&s, &l, EndCause::MatchForfeited, Builder::new())?;
                }
            }
        }
        tx.set_pairing_result(p.id, result, now)?;
        let (n0, n1) = (user_name(tx, &p.player0)?, user_name(tx, &p1)?);
        let verdict = match result {
            PairingResult::Win0 => format!("{} wins", escape_markdown(&n0)),
            PairingResult::Win1 => format!("{} wins", escape_markdown(&n1)),
            PairingResult::Draw => "a draw".to_string(),
            PairingResult::Forfeit0 => format!("{} forfeits", escape_markdown(&n0)),
            PairingResult::Forfeit1 => format!("{} forfeits", escape_markdown(&n1)),
            PairingResult::Bye => "a bye".into(),
        };
        let mut reply = Builder::new()
            .text(format!(
                "{} round {}: {verdict} ({} vs {}). `/tournament standings id:{}` shows the \
                 standings.",
                title(&t),
                p.round,
                escape_markdown(&n0),
                escape_markdown(&n1),
                t.id
            ))
            .build();
        reply.channel = Some(game.channel_id.clone());
        outs.push(Out::text(reply));
        if let Some(loser) = forfeiter {
            if tx.add_forfeit(t.id, &loser)? >= 2 {
                outs.extend(self.withdraw(tx, &t, &loser, "two forfeits", now)?);
            }
        }
        outs.extend(self.advance(tx, t.id, now)?);
        Ok(outs)
    }

    /// A tournament match after one of its games: the next game (game 2, or a decider), or
    /// its result.
    fn match_state(
        &self,
        tx: &Tx,
        t: &TournamentRow,
        p: &PairingRow,
        p1: &str,
        match_id: i64,
        now: i64,
    ) -> Outcome<MatchState> {
        let games = tx.match_games(match_id)?;
        let finished: Vec<&GameRow> = games.iter().filter(|g| g.outcome.is_some()).collect();
        let mut totals = [crate::game::Points(0); 2];
        for g in finished.iter().filter(|g| g.match_game.unwrap_or(1) <= 2) {
            if let Some(o) = &g.outcome {
                for seat in 0..2 {
                    let who = usize::from(g.seats[seat] != p.player0);
                    totals[who] = totals[who] + o.points[super::text::side_of(g, seat)];
                }
            }
        }
        let last = finished.last().copied();
        let number = finished.len() as i64 + 1;
        let knockout = t.format == TournamentFormat::Knockout;
        if finished.len() < 2 {
            // Game 2: the other player moves first.
            let first_was_p0 = last.is_some_and(|g| g.seats[g.options.first.index()] == p.player0);
            return self
                .pairing_game(
                    tx,
                    t,
                    p,
                    p1,
                    Some((match_id, 2)),
                    !first_was_p0,
                    "the other player starts game 2",
                    now,
                )
                .map(|o| MatchState::Next(Box::new(o)));
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
                let winner = &g.seats[seat_of_side(g, w)];
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
        let p0_first = self.coin();
        self.pairing_game(
            tx,
            t,
            p,
            p1,
            Some((match_id, number)),
            p0_first,
            "a decider: the first move drawn by lot",
            now,
        )
        .map(|o| MatchState::Next(Box::new(o)))
    }

    /// Creates a game of a pairing in its thread, and its announcement there (both players
    /// pinged).
    #[allow(clippy::too_many_arguments)]
    fn pairing_game(
        &self,
        tx: &Tx,
        t: &TournamentRow,
        p: &PairingRow,
        p1: &str,
        match_game: Option<(i64, i64)>,
        p0_first: bool,
        why_first: &str,
        now: i64,
    ) -> Outcome<Out> {
        let key = p.thread_key.clone().unwrap_or_else(|| thread_key(t, p));
        let channel = tx.thread_of_key(&key)?.unwrap_or_else(|| key.clone());
        let game = create_game(
            tx,
            &t.server_id,
            &channel,
            t.variant,
            t.scoring,
            [&p.player0, p1],
            p0_first,
            match_game,
            t.days_per_move,
            t.rated,
            now,
        )?;
        tx.set_game_pairing(game.id, p.id)?;
        tx.set_pairing_game(p.id, Some(game.id), match_game.map(|m| m.0), now)?;
        let game = tx.game(game.id)?.unwrap_or(game);
        let n = names(tx, &game)?;
        let mut out = game_start(&game, &n, why_first);
        // The empty starting board says nothing, and an all-at-once round robin starts
        // hundreds of games in one transaction: no picture (`bench tournament`: 64 players
        // took 17.7 s with one, 0.4 s without). The first move's message shows the board.
        out.board = None;
        let (n0, n1) = (user_name(tx, &p.player0)?, user_name(tx, p1)?);
        let head = Builder::new()
            .text(format!("{} · round {} · ", title(t), p.round))
            .ping(&p.player0, &n0)
            .text(" vs ")
            .ping(p1, &n1)
            .text("\n")
            .build();
        let mut parts = head.parts;
        parts.append(&mut out.reply.parts);
        out.reply.parts = parts;
        for m in head.mentions {
            if !out.reply.mentions.contains(&m) {
                out.reply.mentions.push(m);
            }
        }
        out.reply.channel = Some(channel);
        let mut thread = thread_request(tx, t, p)?;
        thread.key = key;
        out.reply.thread = Some(thread);
        Ok(out)
    }

    /// Starts a pairing: its first game in its thread (its players named, not pinged), or a
    /// forfeit when a player is withdrawn.
    fn start_pairing(
        &self,
        tx: &Tx,
        t: &TournamentRow,
        p: &PairingRow,
        withdrawn: &[String],
        now: i64,
    ) -> Outcome<Option<Out>> {
        let Some(p1) = p.player1.clone() else {
            tx.set_pairing_result(p.id, PairingResult::Bye, now)?;
            return Ok(None);
        };
        if withdrawn.contains(&p.player0) {
            tx.set_pairing_result(p.id, PairingResult::Forfeit0, now)?;
            return Ok(None);
        }
        if withdrawn.contains(&p1) {
            tx.set_pairing_result(p.id, PairingResult::Forfeit1, now)?;
            return Ok(None);
        }
        tx.set_pairing_thread_key(p.id, &thread_key(t, p))?;
        let p = tx.pairing(p.id)?.unwrap_or_else(|| p.clone());
        let match_game = if t.is_match {
            let key = thread_key(t, &p);
            let m = tx.insert_match(
                &t.server_id,
                &key,
                [&p.player0, &p1],
                t.variant,
                t.scoring,
                now,
            )?;
            Some((m, 1))
        } else {
            None
        };
        self.pairing_game(
            tx,
            t,
            &p,
            &p1,
            match_game,
            true,
            "the tournament's pairing",
            now,
        )
        .map(|mut out| {
            // The round's message (an all-at-once event's start message) pings the players,
            // once each: the thread's first message only names them.
            out.reply.mentions.clear();
            Some(out)
        })
    }

    /// Moves a tournament on as far as its results allow: starts the rounds that may start,
    /// pairs the next knockout round, or finishes it. Runs in the transaction of the change
    /// that allows it, and reads everything from the store, so it does each step once.
    pub(crate) fn advance(&self, tx: &Tx, id: i64, now: i64) -> Outcome<Vec<Out>> {
        let mut outs = Vec::new();
        loop {
            let Some(t) = tx.tournament(id)? else {
                return Ok(outs);
            };
            if t.status != TournamentStatus::Running {
                return Ok(outs);
            }
            let pairings = tx.pairings(t.id, None)?;
            let withdrawn: Vec<String> = tx
                .entrants(t.id)?
                .into_iter()
                .filter(|e| e.withdrawn_at.is_some())
                .map(|e| e.user_id)
                .collect();
            let unstarted = |p: &&PairingRow| p.result.is_none() && p.game_id.is_none();
            let done = |r: u32| {
                pairings
                    .iter()
                    .filter(|p| p.round == r)
                    .all(|p| p.result.is_some())
            };
            let last_round = pairings.iter().map(|p| p.round).max().unwrap_or(0);
            // The rounds to start now.
            let startable: Vec<u32> = match (t.format, t.pace) {
                (TournamentFormat::RoundRobin, Pace::AllAtOnce) => {
                    let mut r: Vec<u32> =
                        pairings.iter().filter(unstarted).map(|p| p.round).collect();
                    r.dedup();
                    r
                }
                _ => pairings
                    .iter()
                    .filter(unstarted)
                    .map(|p| p.round)
                    .min()
                    .filter(|&r| (1..r).all(done))
                    .into_iter()
                    .collect(),
            };
            if !startable.is_empty() {
                if (t.format, t.pace) == (TournamentFormat::RoundRobin, Pace::AllAtOnce) {
                    outs.extend(self.start_all_at_once(tx, &t, &pairings, &withdrawn, now)?);
                } else {
                    for r in startable {
                        outs.extend(self.start_round(tx, &t, r, &pairings, &withdrawn, now)?);
                    }
                }
                continue;
            }
            if pairings.iter().all(|p| p.result.is_some()) {
                // docs/rules.md §10 (Swiss): the next Swiss round, paired when every game of the previous one
                // has ended — here, in the transaction of the result that ended the last.
                if t.format == TournamentFormat::Swiss && last_round < t.total_rounds.unwrap_or(0) {
                    match self.pair_swiss(tx, &t, last_round, now)? {
                        Ok(()) => continue,
                        Err(why) => {
                            outs.extend(self.finish_tournament(tx, &t, Some(&why), now)?);
                            return Ok(outs);
                        }
                    }
                }
                if t.format == TournamentFormat::Knockout {
                    let winners = knockout_winners(&t, &pairings, last_round, tx)?;
                    if winners.len() > 1 {
                        let ties = tm::next_round(&winners).ok_or_else(|| {
                            store_corrupt(format!("tournament {}: odd number of winners", t.id))
                        })?;
                        let seeds = seed_users(tx, t.id)?;
                        for (b, tie) in ties.iter().enumerate() {
                            let (p0, p1) = match *tie {
                                Tie::Match { high, low } => (
                                    seeds.get(&high).cloned().unwrap_or_default(),
                                    seeds.get(&low).cloned(),
                                ),
                                Tie::Bye { seed } => {
                                    (seeds.get(&seed).cloned().unwrap_or_default(), None)
                                }
                            };
                            insert_pairing(
                                tx,
                                &t,
                                last_round + 1,
                                b as u32 + 1,
                                &p0,
                                p1.as_deref(),
                                now,
                            )?;
                        }
                        continue;
                    }
                }
                outs.extend(self.finish_tournament(tx, &t, None, now)?);
            }
            return Ok(outs);
        }
    }

    /// Pairs Swiss round `paired + 1` by the FIDE Dutch system from the tournament's TRF-16
    /// (withdrawn players absent, the first round's colour drawn by lot) and stores its
    /// pairings, the first mover as player 0. `Err` with the reason when it cannot be paired:
    /// fewer than two players left, or no pairing that keeps the absolute criteria (no
    /// rematch, one bye each); the tournament then ends early.
    fn pair_swiss(
        &self,
        tx: &Tx,
        t: &TournamentRow,
        paired: u32,
        now: i64,
    ) -> Outcome<Result<(), String>> {
        let m = model(tx, t)?;
        let next = paired + 1;
        let active = m
            .players
            .iter()
            .filter(|p| p.withdrawn_at.is_none())
            .count();
        if active < 2 {
            return Ok(Err(format!(
                "Round {next} cannot be paired: fewer than two players are left, so it ends \
                 after round {paired}."
            )));
        }
        let trf = swiss_trf(t, &m, paired, || self.coin());
        let boards = match tm::dutch_pair::pair(&trf) {
            Ok(b) => b,
            Err(e) => {
                return Ok(Err(format!(
                    "Round {next} cannot be paired by the FIDE Dutch system ({e}), so it ends \
                     after round {paired}."
                )))
            }
        };
        let user = |rank: u32| m.players.get(rank as usize - 1).map(|p| p.user_id.as_str());
        let mut board = 0;
        for b in &boards {
            let (p0, p1) = match *b {
                tm::dutch::Board::Game { white, black } => (user(white), user(black)),
                tm::dutch::Board::Bye { player } => (user(player), None),
            };
            let Some(p0) = p0 else {
                return Err(store_corrupt(format!(
                    "tournament {}: the pairing names an unknown player",
                    t.id
                )));
            };
            board += 1;
            insert_pairing(tx, t, next, board, p0, p1, now)?;
        }
        Ok(Ok(()))
    }

    /// Starts one round: its games in their threads, and the round message in the
    /// tournament's channel pinging that round's players.
    fn start_round(
        &self,
        tx: &Tx,
        t: &TournamentRow,
        round: u32,
        pairings: &[PairingRow],
        withdrawn: &[String],
        now: i64,
    ) -> Outcome<Vec<Out>> {
        let mut games = Vec::new();
        let mut b = Builder::new().text(format!(
            "{} · **round {round}**{}:",
            title(t),
            t.total_rounds.map_or(String::new(), |n| format!(" of {n}"))
        ));
        for p in pairings
            .iter()
            .filter(|p| p.round == round && p.result.is_none() && p.game_id.is_none())
        {
            let started = self.start_pairing(tx, t, p, withdrawn, now)?;
            let p = tx.pairing(p.id)?.unwrap_or_else(|| p.clone());
            let n0 = user_name(tx, &p.player0)?;
            b = b.text(format!("\nBoard {}: ", p.board));
            match &p.player1 {
                None => {
                    b = b.user(&p.player0, &n0).text(" has a bye.");
                }
                Some(p1) => {
                    let n1 = user_name(tx, p1)?;
                    b = b.ping(&p.player0, &n0).text(" vs ").ping(p1, &n1);
                    match p.result {
                        Some(PairingResult::Forfeit0) | Some(PairingResult::Forfeit1) => {
                            b = b.text(" (a forfeit: a player is withdrawn)");
                        }
                        _ => {
                            let key = p.thread_key.clone().unwrap_or_else(|| thread_key(t, &p));
                            b = b.text(" → ").channel(&key);
                        }
                    }
                }
            }
            games.extend(started);
        }
        let mut reply = b.build();
        reply.channel = Some(t.channel_id.clone());
        // The threads first (they are opened by their first message), then the round message
        // that links to them.
        games.push(Out::text(reply));
        Ok(games)
    }

    /// Starts every pairing of an all-at-once round robin: its games in their threads, then
    /// one message in the tournament's channel pinging each player once, with links to all of
    /// their games (a 20-player event would otherwise ping each player 38 times).
    fn start_all_at_once(
        &self,
        tx: &Tx,
        t: &TournamentRow,
        pairings: &[PairingRow],
        withdrawn: &[String],
        now: i64,
    ) -> Outcome<Vec<Out>> {
        let mut outs = Vec::new();
        let mut started = Vec::new();
        for p in pairings
            .iter()
            .filter(|p| p.result.is_none() && p.game_id.is_none())
        {
            outs.extend(self.start_pairing(tx, t, p, withdrawn, now)?);
            started.push(tx.pairing(p.id)?.unwrap_or_else(|| p.clone()));
        }
        let games = started.iter().filter(|p| p.game_id.is_some()).count();
        let mut b = Builder::new().text(format!(
            "{} · all {} at once, each in its thread. Your games:",
            title(t),
            super::time::plural(games as i64, "game")
        ));
        let m = model(tx, t)?;
        for (i, player) in m.players.iter().enumerate() {
            let user = player.user_id.as_str();
            let mine = started
                .iter()
                .filter(|p| p.player0 == user || p.player1.as_deref() == Some(user));
            b = b.text("\n").ping(user, &m.names[i]).text(":");
            for (k, p) in mine.enumerate() {
                b = b.text(if k == 0 { " " } else { ", " });
                b = match (&p.player1, p.result) {
                    (None, _) => b.text(format!("a bye in round {}", p.round)),
                    (Some(_), Some(PairingResult::Forfeit0 | PairingResult::Forfeit1)) => {
                        b.text(format!("round {}: a forfeit", p.round))
                    }
                    _ => b.channel(&p.thread_key.clone().unwrap_or_else(|| thread_key(t, p))),
                };
            }
        }
        let mut reply = b.build();
        reply.channel = Some(t.channel_id.clone());
        // The threads first (they are opened by their first message), then the message that
        // links to them.
        outs.push(Out::text(reply));
        Ok(outs)
    }

    /// The end: final standings, the winner announced, each participant pinged once.
    fn finish_tournament(
        &self,
        tx: &Tx,
        t: &TournamentRow,
        why: Option<&str>,
        now: i64,
    ) -> Outcome<Vec<Out>> {
        let m = model(tx, t)?;
        let rows = standings_of(t, &m);
        let winner = rows
            .iter()
            .filter(|r| r.rank == 1)
            .map(|r| m.players[r.player].user_id.clone())
            .collect::<Vec<_>>();
        let sole = (winner.len() == 1).then(|| winner[0].clone());
        tx.finish_tournament(t.id, sole.as_deref(), now)?;
        let mut b = Builder::new().text(format!("🏆 {} is over. ", title(t)));
        if let Some(why) = why {
            b = b.text(format!("{why} "));
        }
        b = match winner.as_slice() {
            [w] => {
                let i = m.index(w).unwrap_or(0);
                b.text("The winner is ").ping(w, &m.names[i]).text("!")
            }
            ws => {
                b = b.text("Sharing first place: ");
                for (k, w) in ws.iter().enumerate() {
                    let i = m.index(w).unwrap_or(0);
                    b = b.text(if k > 0 { ", " } else { "" }).ping(w, &m.names[i]);
                }
                b.text(".")
            }
        };
        b = b.text(format!(
            "\nFinal standings:\n{}\nThank you for playing, ",
            code_block(&standings_table(t, &m, &rows))
        ));
        for (k, p) in m.players.iter().enumerate() {
            b = b
                .text(if k > 0 { ", " } else { "" })
                .ping(&p.user_id, &m.names[k]);
        }
        let mut reply = b.text(".").build();
        reply.channel = Some(t.channel_id.clone());
        if !self.images() {
            return Ok(vec![Out::text(reply)]);
        }
        // The final pictures, drawn from the finished tournament.
        let t = tx.tournament(t.id)?.unwrap_or_else(|| t.clone());
        Ok(with_pictures(reply, pictures(tx, &t, &m, &rows)?, &t))
    }

    /// `/tournament info`.
    pub(crate) fn tournament_info(&self, ctx: &Ctx, id: Option<i64>) -> Outcome<Vec<Out>> {
        self.read(|tx| {
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
        &self,
        ctx: &Ctx,
        round: Option<u32>,
        id: Option<i64>,
    ) -> Outcome<Vec<Out>> {
        self.read(|tx| {
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
                let n0 = user_name(tx, &p.player0)?;
                b = b
                    .text(format!("\nBoard {}: ", p.board))
                    .user(&p.player0, &n0);
                let Some(p1) = &p.player1 else {
                    b = b.text(" has a bye.");
                    continue;
                };
                let n1 = user_name(tx, p1)?;
                b = b.text(" vs ").user(p1, &n1);
                b = match p.result {
                    Some(r) => b.text(format!(" · {}", result_text(r))),
                    // Called off with the tournament: no game is left in progress.
                    None if t.status == TournamentStatus::Cancelled => {
                        b.text(if p.game_id.is_some() {
                            " · cancelled: its game ended without a result"
                        } else {
                            " · cancelled before it started"
                        })
                    }
                    None if p.game_id.is_some() => {
                        let ch = p
                            .thread_id
                            .clone()
                            .or(p.thread_key.clone())
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
    pub(crate) fn tournament_standings(&self, ctx: &Ctx, id: Option<i64>) -> Outcome<Vec<Out>> {
        self.read(|tx| {
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
            let reply = Builder::new().text(text).build();
            if !self.images() {
                return Ok(vec![Out::text(reply)]);
            }
            Ok(with_pictures(reply, pictures(tx, &t, &m, &rows)?, &t))
        })
    }

    /// `/tournament list`.
    pub(crate) fn tournament_list(&self, ctx: &Ctx) -> Outcome<Vec<Out>> {
        self.read(|tx| {
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
    pub(crate) fn tournament_export(&self, ctx: &Ctx, id: Option<i64>) -> Outcome<Vec<Out>> {
        self.read(|tx| {
            let t = find(tx, ctx, id, &ALL_STATUSES)?;
            let text = self.tournament_trf(tx, &t)?;
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
    pub(crate) fn tournament_trf(&self, tx: &Tx, t: &TournamentRow) -> Outcome<String> {
        let m = model(tx, t)?;
        Ok(trf_of(t, &m).write())
    }
}

const ALL_STATUSES: [TournamentStatus; 4] = [
    TournamentStatus::Open,
    TournamentStatus::Running,
    TournamentStatus::Finished,
    TournamentStatus::Cancelled,
];

/// What a match needs after one of its games.
enum MatchState {
    /// Its next game, started.
    Next(Box<Out>),
    /// It is over.
    Decided(PairingResult),
}

/// Subscriber: after a tournament game's result (not a withdrawal: that settles its pairings
/// itself), the tournament moves on ([`Bot::tournament_game_over`]).
pub(crate) fn game_ended(s: &Session, e: &GameEnded, ann: &mut Announcement) -> Outcome<()> {
    if let (Some(o), false) = (e.outcome, e.reason == EndCause::Withdrawn) {
        let game = &e.game.game;
        ann.after
            .extend(s.bot.tournament_game_over(s.tx, game, o, s.now)?);
    }
    Ok(())
}

/// Whether a running tournament still takes a late entry (docs/rules.md §10, Swiss: a Swiss of two or more
/// rounds, until its round 2 is paired); the reason if not.
fn late_entry_open(tx: &Tx, t: &TournamentRow) -> Outcome<()> {
    if t.format != TournamentFormat::Swiss {
        return Err(Fail::User(format!(
            "{} has started, and a {}'s {} is fixed at the start: it takes no late entries.",
            title(t),
            format_name(t.format),
            if t.format == TournamentFormat::Knockout {
                "bracket"
            } else {
                "table"
            }
        )));
    }
    if t.total_rounds.unwrap_or(0) < 2 {
        return Err(Fail::User(format!(
            "{} has started and has only one round: there is no round left to join.",
            title(t)
        )));
    }
    let paired = tx
        .pairings(t.id, None)?
        .iter()
        .map(|p| p.round)
        .max()
        .unwrap_or(0);
    if paired >= 2 {
        return Err(Fail::User(format!(
            "{} is in round {paired}: a Swiss takes late entries only until round 2 is paired.",
            title(t)
        )));
    }
    Ok(())
}

/// Seeds a late entrant of a running Swiss: their rating now, and the starting ranks of
/// everyone re-assigned by rating (highest first), then the earlier sign-up (docs/rules.md §10, Swiss: the
/// initial order). The others keep the ratings they started with, so their order among
/// themselves is unchanged. The late entrant's seed.
fn reseed_with_late_entrant(tx: &Tx, t: &TournamentRow, user: &str) -> Outcome<u32> {
    let mut players = tx.entrants(t.id)?;
    for p in players.iter_mut().filter(|p| p.user_id == user) {
        p.rating = tx
            .rating(&t.server_id, t.variant.id(), &p.user_id)?
            .map_or(UNRATED, |r| r.rating.round() as i32);
    }
    players.sort_by_key(|p| (-p.rating, p.signup));
    let mut seed = 0;
    for (i, p) in players.iter().enumerate() {
        tx.seed_entrant(t.id, &p.user_id, p.rating, i as u32 + 1)?;
        if p.user_id == user {
            seed = i as u32 + 1;
        }
    }
    Ok(seed)
}

/// A reply with the tournament's pictures: the first (the standings) on the reply itself,
/// the second (crosstable or bracket) in a message of its own after it, with a line saying
/// what it shows for screen readers and notifications.
fn with_pictures(mut reply: Reply, mut pictures: Vec<Attachment>, t: &TournamentRow) -> Vec<Out> {
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

/// The seat of a side in a game.
fn seat_of_side(game: &GameRow, side: Side) -> usize {
    usize::from(super::text::side_of(game, 0) != side)
}

/// The thread of a pairing: its key, where it opens, and its name ("R2 · Aoife vs Brian").
fn thread_request(tx: &Tx, t: &TournamentRow, p: &PairingRow) -> Outcome<ThreadRequest> {
    let n0 = user_name(tx, &p.player0)?;
    let n1 = match &p.player1 {
        Some(u) => user_name(tx, u)?,
        None => String::new(),
    };
    Ok(ThreadRequest {
        key: p.thread_key.clone().unwrap_or_else(|| thread_key(t, p)),
        parent: t.channel_id.clone(),
        name: format!("R{} · {n0} vs {n1}", p.round),
    })
}

/// A message in a pairing's thread (opened by it if it is not open yet).
fn thread_out(
    tx: &Tx,
    t: &TournamentRow,
    p: &PairingRow,
    channel: &str,
    mut reply: Reply,
) -> Outcome<Out> {
    reply.channel = Some(channel.to_string());
    reply.thread = Some(thread_request(tx, t, p)?);
    Ok(Out::text(reply))
}

fn result_text(r: PairingResult) -> &'static str {
    match r {
        PairingResult::Win0 => "1–0",
        PairingResult::Win1 => "0–1",
        PairingResult::Draw => "½–½",
        PairingResult::Forfeit0 => "−/+ (forfeit)",
        PairingResult::Forfeit1 => "+/− (forfeit)",
        PairingResult::Bye => "bye",
    }
}

fn insert_pairing(
    tx: &Tx,
    t: &TournamentRow,
    round: u32,
    board: u32,
    p0: &str,
    p1: Option<&str>,
    now: i64,
) -> Outcome<i64> {
    Ok(tx.insert_pairing(
        &NewPairing {
            tournament_id: t.id,
            round,
            board,
            player0: p0,
            player1: p1,
        },
        now,
    )?)
}

/// Seed → player.
fn seed_users(tx: &Tx, id: i64) -> Outcome<HashMap<u32, String>> {
    Ok(tx
        .entrants(id)?
        .into_iter()
        .filter_map(|e| e.seed.map(|s| (s, e.user_id)))
        .collect())
}

/// The seeds through from a knockout round, in board order.
fn knockout_winners(
    t: &TournamentRow,
    pairings: &[PairingRow],
    round: u32,
    tx: &Tx,
) -> Outcome<Vec<u32>> {
    let seeds: HashMap<String, u32> = seed_users(tx, t.id)?
        .into_iter()
        .map(|(s, u)| (u, s))
        .collect();
    let seed = |u: &str| seeds.get(u).copied().unwrap_or(0);
    Ok(pairings
        .iter()
        .filter(|p| p.round == round)
        .map(|p| {
            let p1 = p.player1.as_deref().unwrap_or("");
            match p.result {
                Some(PairingResult::Win1) | Some(PairingResult::Forfeit0) => seed(p1),
                _ => seed(&p.player0),
            }
        })
        .collect())
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
    pub id: String,
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
fn report_error(e: Fail, id: i64) -> String {
    match e {
        Fail::User(m) => m,
        Fail::Store(e) => format!("tournament {id} cannot be read: {e}"),
    }
}

fn read_tournament(tx: &Tx, id: i64) -> Outcome<TournamentRow> {
    tx.tournament(id)?
        .ok_or_else(|| Fail::User(format!("there is no tournament {id} in this database")))
}

/// A stored tournament's standings, best first.
pub fn tournament_standings(
    store: &mut crate::store::Store,
    id: i64,
) -> Result<Vec<StandingLine>, String> {
    store
        .read(|tx| -> Outcome<Vec<StandingLine>> {
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
        })
        .map_err(|e| report_error(e, id))
}

/// A stored tournament as a FIDE TRF-16 file.
pub fn tournament_trf(store: &mut crate::store::Store, id: i64) -> Result<String, String> {
    store
        .read(|tx| -> Outcome<String> {
            let t = read_tournament(tx, id)?;
            let m = model(tx, &t)?;
            Ok(trf_of(&t, &m).write())
        })
        .map_err(|e| report_error(e, id))
}

#[cfg(test)]
mod tests {
    use super::{default_swiss_rounds, first_names, written};
    use crate::tournament::Points;

    #[test]
    fn points_are_written_one_way() {
        let w = |q: u32| written(Points::quarters(q));
        assert_eq!(
            [w(0), w(1), w(2), w(3), w(4), w(5), w(6), w(7), w(10)],
            ["0", "¼", "½", "¾", "1", "1¼", "1½", "1¾", "2½"]
        );
    }

    #[test]
    fn long_lists_of_names_are_cut() {
        let names: Vec<String> = ["a", "b", "c", "d", "e", "f", "g"]
            .map(String::from)
            .to_vec();
        assert_eq!(first_names(&names[..2], 5), "a, b");
        assert_eq!(first_names(&names[..5], 5), "a, b, c, d, e");
        assert_eq!(first_names(&names, 5), "a, b, c, d, e and 2 more");
    }

    #[test]
    fn the_default_swiss_rounds_follow_part_f3() {
        // ⌈log2 n⌉ + 1, at most n − 1.
        for (n, r) in [
            (2, 1),
            (3, 2),
            (4, 3),
            (5, 4),
            (8, 4),
            (9, 5),
            (16, 5),
            (17, 6),
            (100, 8),
        ] {
            assert_eq!(default_swiss_rounds(n), r, "{n} players");
        }
    }
}
