//! The runner: the next round paired (a round robin's Berger table, a knockout's bracket, a
//! Swiss by the FIDE Dutch system) and its games opened in their threads, and the end.

use super::model::{
    model, shared_thread_key, shares_thread, standings_of, store_corrupt, swiss_trf, thread_key,
    title, Model, THREADS_AT_ONCE,
};
use super::presentation::{on_its_page, pictures, standings_table, with_pictures};
use crate::bot::reply::{code_block, ThreadRequest};
use crate::bot::session::{
    create_game, game_start, names, GameSpec, Out, Outcome, Seating, Session,
};
use crate::bot::text::Builder;
use crate::store::{ChannelId, UserId};
use crate::store::{MatchId, PairingId, TournamentId};
use crate::store::{
    NewPairing, Pace, PairingResult, PairingRow, TournamentFormat, TournamentRow, TournamentStatus,
    Tx,
};
use crate::tournament::{self as tm, Tie};
use std::collections::HashMap;

/// The thread of a pairing: its key, where it opens, and its name ("R2 · Aoife vs Brian";
/// a shared thread's "R2 · Spring Cup", or a division's own name).
pub(super) fn thread_request(tx: &Tx, t: &TournamentRow, p: &PairingRow) -> Outcome<ThreadRequest> {
    if shares_thread(t, p) {
        let key = p.thread_key.clone().unwrap_or_default();
        let name = if key == shared_thread_key(t.id, None) {
            t.name.clone()
        } else {
            format!("R{} · {}", p.round, t.name)
        };
        return Ok(ThreadRequest {
            key,
            parent: t.channel_id.clone(),
            name: name.chars().take(100).collect(),
        });
    }
    let n0 = tx.name_or_id(&p.player0)?;
    let n1 = match &p.player1 {
        Some(u) => tx.name_or_id(u)?,
        None => String::new(),
    };
    Ok(ThreadRequest {
        key: p.thread_key.clone().unwrap_or_else(|| thread_key(t, p)),
        parent: t.channel_id.clone(),
        name: format!("R{} · {n0} vs {n1}", p.round),
    })
}

/// The thread to open for a pairing's key (`t3-r2-b1`), when a pairing has that key.
pub(crate) fn thread_request_of(tx: &Tx, key: &str) -> Outcome<Option<ThreadRequest>> {
    let Some(p) = tx
        .pairing_in_thread(&ChannelId::new(key.to_string()))?
        .filter(|p| p.thread_key.as_deref() == Some(key))
    else {
        return Ok(None);
    };
    let Some(t) = tx.tournament(p.tournament_id)? else {
        return Ok(None);
    };
    Ok(Some(thread_request(tx, &t, &p)?))
}

pub(super) fn insert_pairing(
    tx: &Tx,
    t: &TournamentRow,
    round: u32,
    board: u32,
    p0: &UserId,
    p1: Option<&UserId>,
    now: i64,
) -> Outcome<PairingId> {
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
fn seed_users(tx: &Tx, id: TournamentId) -> Outcome<HashMap<u32, UserId>> {
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
    let seeds: HashMap<UserId, u32> = seed_users(tx, t.id)?
        .into_iter()
        .map(|(s, u)| (u, s))
        .collect();
    let seed = |u: &str| seeds.get(u).copied().unwrap_or(0);
    Ok(pairings
        .iter()
        .filter(|p| p.round == round)
        .map(|p| {
            let p1 = p.player1.as_ref().map(UserId::as_str).unwrap_or("");
            match p.result {
                Some(PairingResult::Win1) | Some(PairingResult::Forfeit0) => seed(p1),
                _ => seed(p.player0.as_str()),
            }
        })
        .collect())
}

/// How a pairing's game starts: its match and number in it, whether the pairing's first
/// player moves first, and why (said in the announcement).
pub(super) struct PairingStart<'a> {
    pub match_game: Option<(MatchId, i64)>,
    pub p0_first: bool,
    pub why_first: &'a str,
}

/// Creates a game of a pairing in its thread, and its announcement there (both players
/// pinged).
pub(super) fn pairing_game(
    s: &Session,
    t: &TournamentRow,
    p: &PairingRow,
    p1: &UserId,
    start: PairingStart,
) -> Outcome<Out> {
    let (tx, now) = (s.tx, s.now);
    let PairingStart {
        match_game,
        p0_first,
        why_first,
    } = start;
    let key = p.thread_key.clone().unwrap_or_else(|| thread_key(t, p));
    let channel = tx
        .thread_of_key(&key)?
        .unwrap_or_else(|| ChannelId::new(&key));
    let spec = GameSpec {
        server: &t.server_id,
        channel: &channel,
        variant: t.variant,
        scoring: t.scoring,
        seating: Seating::people([&p.player0, p1], p0_first),
        match_game,
        days_per_move: t.days_per_move,
        rated: t.rated,
        pairing: Some(p.id),
    };
    let game = create_game(tx, spec, now)?;
    tx.set_game_pairing(game.id, p.id)?;
    tx.set_pairing_game(p.id, Some(game.id), match_game.map(|m| m.0), now)?;
    let game = tx.game(game.id)?.unwrap_or(game);
    let n = names(tx, &game)?;
    let mut out = game_start(&game, &n, why_first);
    // The empty starting board says nothing, and an all-at-once round robin starts
    // hundreds of games in one transaction: no picture (`bench tournament`: 64 players
    // took 17.7 s with one, 0.4 s without). The first move's message shows the board.
    out.board = None;
    let (n0, n1) = (tx.name_or_id(&p.player0)?, tx.name_or_id(p1)?);
    let head = Builder::new()
        .text(format!("{} · round {} · ", title(t), p.round))
        .ping(&p.player0, &n0)
        .text(" vs ")
        .ping(p1, &n1)
        .text("\n")
        .build();
    out.reply.prepend(head);
    out.reply.channel = Some(channel);
    let mut thread = thread_request(tx, t, p)?;
    thread.key = key;
    out.reply.thread = Some(thread);
    Ok(out)
}

/// Starts a pairing: its first game in its thread (its players named, not pinged), or a
/// forfeit when a player is withdrawn.
fn start_pairing(
    s: &Session,
    t: &TournamentRow,
    p: &PairingRow,
    withdrawn: &[UserId],
) -> Outcome<Option<Out>> {
    let (tx, now) = (s.tx, s.now);
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
    // Its own thread, unless it shares one (its key set before: [`share_if_many`]).
    let mut p = tx.pairing(p.id)?.unwrap_or_else(|| p.clone());
    if p.thread_key.is_none() {
        let key = thread_key(t, &p);
        tx.set_pairing_thread_key(p.id, &key)?;
        p.thread_key = Some(key);
    }
    let match_game = if t.is_match {
        let key = p.thread_key.clone().unwrap_or_else(|| thread_key(t, &p));
        let m = tx.insert_match(
            &t.server_id,
            &ChannelId::new(&key),
            [&p.player0, &p1],
            t.variant,
            t.scoring,
            now,
        )?;
        Some((m, 1))
    } else {
        None
    };
    let start = PairingStart {
        match_game,
        p0_first: true,
        why_first: "the tournament's pairing",
    };
    pairing_game(s, t, &p, &p1, start).map(|mut out| {
        // The round's message (an all-at-once event's start message) pings the players,
        // once each: the thread's first message only names them.
        out.reply.mentions.clear();
        Some(out)
    })
}

/// Moves a tournament on as far as its results allow: starts the rounds that may start,
/// pairs the next knockout round, or finishes it. Runs in the transaction of the change
/// that allows it, and reads everything from the store, so it does each step once.
pub(crate) fn advance(s: &Session, id: TournamentId) -> Outcome<Vec<Out>> {
    let (tx, now) = (s.tx, s.now);
    let mut outs = Vec::new();
    loop {
        let Some(t) = tx.tournament(id)? else {
            return Ok(outs);
        };
        if t.status != TournamentStatus::Running {
            return Ok(outs);
        }
        let pairings = tx.pairings(t.id, None)?;
        let withdrawn: Vec<UserId> = tx
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
                let mut r: Vec<u32> = pairings.iter().filter(unstarted).map(|p| p.round).collect();
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
                outs.extend(start_all_at_once(s, &t, &pairings, &withdrawn)?);
            } else {
                for r in startable {
                    outs.extend(start_round(s, &t, r, &pairings, &withdrawn)?);
                }
            }
            continue;
        }
        if pairings.iter().all(|p| p.result.is_some()) {
            // docs/rules.md §10 (Swiss): the next Swiss round, paired when every game of the previous one
            // has ended — here, in the transaction of the result that ended the last.
            if t.format == TournamentFormat::Swiss && last_round < t.total_rounds.unwrap_or(0) {
                match pair_swiss(s, &t, last_round)? {
                    Ok(()) => continue,
                    Err(why) => {
                        outs.extend(finish_tournament(s, &t, Some(&why))?);
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
                            p1.as_ref(),
                            now,
                        )?;
                    }
                    continue;
                }
            }
            outs.extend(finish_tournament(s, &t, None)?);
        }
        return Ok(outs);
    }
}

/// Pairs Swiss round `paired + 1` by the FIDE Dutch system from the tournament's TRF-16
/// (withdrawn players absent, the first round's colour drawn by lot) and stores its
/// pairings, the first mover as player 0. `Err` with the reason when it cannot be paired:
/// fewer than two players left, or no pairing that keeps the absolute criteria (no
/// rematch, one bye each); the tournament then ends early.
fn pair_swiss(s: &Session, t: &TournamentRow, paired: u32) -> Outcome<Result<(), String>> {
    let (tx, now) = (s.tx, s.now);
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
    let trf = swiss_trf(t, &m, paired, || s.coin());
    let boards = match tm::dutch_pair::pair(&trf) {
        Ok(b) => b,
        Err(e) => {
            return Ok(Err(format!(
                "Round {next} cannot be paired by the FIDE Dutch system ({e}), so it ends \
                 after round {paired}."
            )))
        }
    };
    let user = |rank: u32| m.players.get(rank as usize - 1).map(|p| &p.user_id);
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
    s: &Session,
    t: &TournamentRow,
    round: u32,
    pairings: &[PairingRow],
    withdrawn: &[UserId],
) -> Outcome<Vec<Out>> {
    let tx = s.tx;
    let mut games = Vec::new();
    let mut b = Builder::new().text(format!(
        "{} · **round {round}**{}:",
        title(t),
        t.total_rounds.map_or(String::new(), |n| format!(" of {n}"))
    ));
    let todo: Vec<&PairingRow> = pairings
        .iter()
        .filter(|p| p.round == round && p.result.is_none() && p.game_id.is_none())
        .collect();
    let shared = share_if_many(tx, t, &todo, |p| shared_thread_key(t.id, Some(p.round)))?;
    let mut in_shared = Vec::new();
    for p in todo {
        let mut started = start_pairing(s, t, p, withdrawn)?;
        let p = tx.pairing(p.id)?.unwrap_or_else(|| p.clone());
        if shared {
            // One message a shared thread lists its games instead.
            started = None;
            in_shared.push(p.clone());
        }
        let n0 = tx.name_or_id(&p.player0)?;
        b = b.text(format!("\nBoard {}: ", p.board));
        match &p.player1 {
            None => {
                b = b.user(&p.player0, &n0).text(" has a bye.");
            }
            Some(p1) => {
                let n1 = tx.name_or_id(p1)?;
                b = b.ping(&p.player0, &n0).text(" vs ").ping(p1, &n1);
                match p.result {
                    Some(PairingResult::Forfeit0) | Some(PairingResult::Forfeit1) => {
                        b = b.text(" (a forfeit: a player is withdrawn)");
                    }
                    _ => {
                        let key = p.thread_key.clone().unwrap_or_else(|| thread_key(t, &p));
                        b = b.text(" → ").channel(&ChannelId::new(key));
                    }
                }
            }
        }
        games.extend(started);
    }
    games.extend(shared_thread_messages(s, t, &in_shared)?);
    let mut reply = on_its_page(b, t);
    reply.channel = Some(t.channel_id.clone());
    // The threads first (they are opened by their first message), then the round message
    // that links to them.
    games.push(Out::text(reply));
    Ok(games)
}

/// The threads of the started pairings' games, each once, in the order first met: the round
/// that first meets it, and its key.
fn thread_keys(started: &[PairingRow]) -> Vec<(u32, &str)> {
    let mut keys: Vec<(u32, &str)> = Vec::new();
    for p in started.iter().filter(|p| p.game_id.is_some()) {
        if let Some(k) = p.thread_key.as_deref() {
            if !keys.iter().any(|(_, x)| *x == k) {
                keys.push((p.round, k));
            }
        }
    }
    keys
}

/// How many threads the started pairings share (0: one thread a game).
fn shared_threads(started: &[PairingRow]) -> usize {
    let keys = thread_keys(started).len();
    if keys == started.iter().filter(|p| p.game_id.is_some()).count() {
        0
    } else {
        keys
    }
}

/// Gives the pairings about to start shared threads (`key` names each one's) when one thread
/// a game would open more than [`THREADS_AT_ONCE`] threads at once; true when they share
/// (also when their keys were shared before, as a league's are).
fn share_if_many(
    tx: &Tx,
    t: &TournamentRow,
    todo: &[&PairingRow],
    key: impl Fn(&PairingRow) -> String,
) -> Outcome<bool> {
    if todo.iter().any(|p| shares_thread(t, p)) {
        return Ok(true);
    }
    let games = todo.iter().filter(|p| p.player1.is_some()).count();
    if games <= THREADS_AT_ONCE {
        return Ok(false);
    }
    for p in todo {
        tx.set_pairing_thread_key(p.id, &key(p))?;
    }
    Ok(true)
}

/// The first message of each shared thread among `started` pairings: its games, each with
/// its number, players and who moves first, and how to name one (`game:`). One message a
/// thread, instead of one a game: a division's thread would otherwise take 45 messages.
fn shared_thread_messages(
    s: &Session,
    t: &TournamentRow,
    started: &[PairingRow],
) -> Outcome<Vec<Out>> {
    let tx = s.tx;
    let mut outs = Vec::new();
    for (_, key) in thread_keys(started) {
        let here: Vec<&PairingRow> = started
            .iter()
            .filter(|p| p.thread_key.as_deref() == Some(key) && p.game_id.is_some())
            .collect();
        let days = t.days_per_move.map_or(String::new(), |d| {
            format!(
                ", {}",
                crate::bot::time::plural(d as i64, "day") + " per move"
            )
        });
        let mut b = Builder::new().text(format!(
            "{} · **{}** in this thread, all starting now{days}. When several of yours are \
             here, name one with `game:` in `/move`, `/board`, `/resign` and the other game \
             commands (its list shows yours); `/move` alone plays in the one where you are \
             on move.",
            title(t),
            crate::bot::time::plural(here.len() as i64, "game")
        ));
        for p in &here {
            let Some(game) = p
                .game_id
                .and_then(|id| tx.game(id).transpose())
                .transpose()?
            else {
                continue;
            };
            let n = names(tx, &game)?;
            let [a, z] = game.sides();
            b = b
                .text(format!("\n• game {} · {}: ", game.id.0, a.name()))
                .user(game.seats.first(), n.first())
                .text(format!(" · {}: ", z.name()))
                .user(game.seats.second(), n.second());
            if let Some(g) = game.match_game {
                b = b.text(format!(" · match {}", crate::bot::text::match_game(g)));
            }
            b = b.text(format!(" · {} first", game.options.first.name()));
        }
        let mut reply = b.build();
        reply.channel = Some(ChannelId::new(key.to_string()));
        reply.thread = Some(thread_request(tx, t, here[0])?);
        outs.push(Out::text(reply));
    }
    Ok(outs)
}

/// Starts every pairing of an all-at-once round robin: its games in their threads, then
/// one message in the tournament's channel pinging each player once, with links to all of
/// their games (a 20-player event would otherwise ping each player 38 times).
fn start_all_at_once(
    s: &Session,
    t: &TournamentRow,
    pairings: &[PairingRow],
    withdrawn: &[UserId],
) -> Outcome<Vec<Out>> {
    let tx = s.tx;
    let mut outs = Vec::new();
    let mut started = Vec::new();
    let todo: Vec<&PairingRow> = pairings
        .iter()
        .filter(|p| p.result.is_none() && p.game_id.is_none())
        .collect();
    let shared = share_if_many(tx, t, &todo, |p| shared_thread_key(t.id, Some(p.round)))?;
    for p in todo {
        let out = start_pairing(s, t, p, withdrawn)?;
        if !shared {
            outs.extend(out);
        }
        started.push(tx.pairing(p.id)?.unwrap_or_else(|| p.clone()));
    }
    let games = started.iter().filter(|p| p.game_id.is_some()).count();
    if shared {
        outs.extend(shared_thread_messages(s, t, &started)?);
    }
    let m = model(tx, t)?;
    let per_round = started
        .iter()
        .any(|p| shares_thread(t, p) && p.thread_key != Some(shared_thread_key(t.id, None)));
    outs.push(if per_round {
        rounds_message(t, &m, &started, games)
    } else {
        games_message(t, &m, &started, games)
    });
    Ok(outs)
}

/// The message of an all-at-once start with a thread a round: the rounds' threads, and every
/// player pinged.
fn rounds_message(t: &TournamentRow, m: &Model, started: &[PairingRow], games: usize) -> Out {
    // A thread a round: every player has one game (or a bye) in each, so one list of the
    // rounds' threads says where everyone's games are (a line a player, each linking 63
    // threads, would make a 64-player start 50 messages long).
    let mut b = Builder::new().text(format!(
        "{} · all {} at once, one thread a round: each of you has one game in each \
         round's thread{}. Your games:",
        title(t),
        crate::bot::time::plural(games as i64, "game"),
        if started.iter().any(|p| p.player1.is_none()) {
            " (or a bye)"
        } else {
            ""
        }
    ));
    let mut keys = thread_keys(started);
    keys.sort();
    for (i, (round, key)) in keys.iter().enumerate() {
        b = b
            .text(format!("{}R{round} ", if i == 0 { " " } else { ", " }))
            .channel(&ChannelId::new(key.to_string()));
    }
    b = b.text("\n");
    for (i, player) in m.players.iter().enumerate() {
        b = b
            .text(if i == 0 { "" } else { " " })
            .ping(&player.user_id, &m.names[i]);
    }
    let mut reply = on_its_page(b, t);
    reply.channel = Some(t.channel_id.clone());
    Out::text(reply)
}

/// The message of an all-at-once start: every player pinged with where each of their games
/// is (a shared thread linked once, with the number of their games in it).
fn games_message(t: &TournamentRow, m: &Model, started: &[PairingRow], games: usize) -> Out {
    // "all 12 games at once, each in its thread"; a single game is no "all 1 game".
    let head = match (games, shared_threads(started)) {
        (1, _) => "its one game starts now, in its thread".to_string(),
        (n, k) => format!(
            "all {} at once, {}",
            crate::bot::time::plural(n as i64, "game"),
            match k {
                0 => "each in its thread",
                1 => "all in one thread (name yours with `game:` there)",
                _ => "several in a thread (name yours with `game:` there)",
            }
        ),
    };
    let mut b = Builder::new().text(format!("{} · {head}. Your games:", title(t)));
    for (i, player) in m.players.iter().enumerate() {
        let user = &player.user_id;
        let mine = started
            .iter()
            .filter(|p| p.player0 == user || p.player1.as_ref() == Some(user));
        b = b.text("\n").ping(user, &m.names[i]).text(":");
        let mut listed: Vec<&str> = Vec::new();
        for (k, p) in mine.enumerate() {
            // A shared thread is linked once, with the number of the player's games in it.
            if shares_thread(t, p) && p.game_id.is_some() {
                let key = p.thread_key.as_deref().unwrap_or_default();
                if listed.contains(&key) {
                    continue;
                }
                listed.push(key);
                let n = started
                    .iter()
                    .filter(|q| q.thread_key.as_deref() == Some(key) && q.game_id.is_some())
                    .filter(|q| q.player0 == user || q.player1.as_ref() == Some(user))
                    .count();
                b = b.text(if k == 0 { " " } else { ", " });
                b = b.channel(&ChannelId::new(key.to_string()));
                if n > 1 {
                    b = b.text(format!(" ({n} games)"));
                }
                continue;
            }
            b = b.text(if k == 0 { " " } else { ", " });
            b = match (&p.player1, p.result) {
                (None, _) => b.text(format!("a bye in round {}", p.round)),
                (Some(_), Some(PairingResult::Forfeit0 | PairingResult::Forfeit1)) => {
                    b.text(format!("round {}: a forfeit", p.round))
                }
                _ => b.channel(&ChannelId::new(
                    p.thread_key.clone().unwrap_or_else(|| thread_key(t, p)),
                )),
            };
        }
    }
    let mut reply = on_its_page(b, t);
    reply.channel = Some(t.channel_id.clone());
    // (After the threads: they are opened by their first message.)
    Out::text(reply)
}

/// The end: final standings, the winner announced, each participant pinged once.
fn finish_tournament(s: &Session, t: &TournamentRow, why: Option<&str>) -> Outcome<Vec<Out>> {
    let (tx, now) = (s.tx, s.now);
    let m = model(tx, t)?;
    let rows = standings_of(t, &m);
    let winner = rows
        .iter()
        .filter(|r| r.rank == 1)
        .map(|r| m.players[r.player].user_id.clone())
        .collect::<Vec<_>>();
    let sole = (winner.len() == 1).then(|| winner[0].clone());
    tx.finish_tournament(t.id, sole.as_ref(), now)?;
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
    let mut reply = on_its_page(b.text("."), t);
    reply.channel = Some(t.channel_id.clone());
    if !s.images() {
        return Ok(vec![Out::text(reply)]);
    }
    // The final pictures, drawn from the finished tournament.
    let t = tx.tournament(t.id)?.unwrap_or_else(|| t.clone());
    Ok(with_pictures(reply, pictures(tx, &t, &m, &rows)?, &t))
}
