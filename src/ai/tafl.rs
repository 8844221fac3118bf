//! Ard Rí's search: alpha-beta (negamax with a principal-variation window) over the engine's
//! own moves, deepened one ply at a time, with a transposition table, killer and history move
//! ordering, late quiet moves searched shallower first, a short capture-only quiescence search
//! and an evaluation of what decides tafl games (the pieces, the king's free paths to the
//! corners and his room, the attackers around him and beside the corners): at level 5 its
//! weights are fitted to the results of the search's own games, at levels 1 to 4 they are the
//! hand-set ones the level ladder was measured with ([`Evaluation`]).
//!
//! Random playouts are poor judges of a tafl position (they walk past escapes and captures), so
//! Ard Rí uses this search at every level and Monte Carlo tree search is kept for the Tara games.
//! The evaluation fades towards a draw as the move limit's counter (100 plies without a
//! capture) runs up, so the side ahead looks for captures instead of shuffling.
//!
//! A search is bounded by a number of positions (the `playouts` of [`Found`], which for Ard Rí
//! count the positions searched) or by its `stop` check. The same position, budget and seed
//! give the same move on any machine; the seed adds a small, fixed jitter to the evaluation so
//! that games with different seeds differ.

use super::mcts::{winning_move, Found, MoveStat};
use crate::game::ard_ri::{EDGE, THRONE};
use crate::game::board::{dilate, Bits, ALL, CORNERS, SQUARE_NEIGHBOURS};
use crate::game::{ArdRiPosition, Move, MoveList, Outcome, Position, Side, Team};
use std::cmp::Reverse;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64};

/// The score of a won position (less the plies to the win, so sooner wins score higher).
const WIN: i32 = 30_000;
/// Beyond every score.
const INF: i32 = 32_000;
/// Scores at least this far from zero are wins or losses found by the search.
const PROVEN: i32 = WIN - 1_000;
/// The deepest iteration.
const MAX_DEPTH: i32 = 64;
/// Plies of captures the quiescence search follows past the nominal depth.
const QUIESCENCE_PLIES: i32 = 4;
/// The ordering key of the first killer move (the second's is one less); quiet moves rank
/// below both.
const KILLER: i32 = 1 << 27;
/// The first move, in the searched order, that may be searched shallower (late move reduction).
const LATE_MOVE: usize = 3;
/// Log2 of the transposition table's most slots (16 bytes each: 16 MiB).
const TABLE_BITS: u32 = 20;

/// The weights of an evaluation, in points for the attackers.
struct Weights {
    /// A piece's worth, for the attackers (16 of them) and the defenders (8).
    attacker: i32,
    defender: i32,
    /// A constant, and the attackers' gain from having the move.
    attackers_base: i32,
    attackers_tempo: i32,
    /// The danger of an open corner by the king's distance to it along empty squares (index:
    /// the number of steps; 0 unused).
    corner_open: [i32; 8],
    /// The defenders' gain from a king on the edge, where he cannot be captured.
    king_on_edge: i32,
    /// The attackers' gain from closing 0 to 3 of the king's four sides away from the edge.
    enclosed: [i32; 4],
    /// The attackers' gain from each attacker two steps from the king.
    near_king: i32,
    /// The defenders' gain from each four squares of room the king has (the empty squares he
    /// can reach, up to 20).
    king_room: i32,
    /// The defenders' gain from each attacker beside a corner (where it can be captured
    /// against the corner).
    beside_corner: i32,
}

/// The hand-set evaluation of levels 1 to 4, by which their ladder was measured: the pieces,
/// the king's free paths to the corners and his enclosure.
const HAND_SET: Weights = Weights {
    attacker: 100,
    defender: 200,
    attackers_base: 0,
    attackers_tempo: 0,
    corner_open: [0, 420, 190, 90, 45, 22, 11, 5],
    king_on_edge: 0,
    enclosed: [0, 10, 30, 75],
    near_king: 0,
    king_room: 0,
    beside_corner: 0,
};

/// Level 5's evaluation, fitted to the results of 1,800 games of the search against itself
/// (20,000 positions a move, random openings of 2 to 6 plies) by logistic regression over
/// 71,000 positions without a capture just made (docs/benchmarks.md). An attacker is worth
/// more than a defender, since it takes four of them to capture the king and several to close
/// a corner; with the pieces' worth and the rest, the start is 511 points for the attackers;
/// one side closed alone is a loss for the attackers, as fitted.
const FITTED: Weights = Weights {
    attacker: 256,
    defender: 150,
    attackers_base: -2635,
    attackers_tempo: 62,
    corner_open: [0, 1702, 860, 567, 295, 149, 25, 25],
    king_on_edge: 120,
    enclosed: [0, -25, 15, 64],
    near_king: 47,
    king_room: 42,
    beside_corner: 74,
};

/// Which evaluation a search uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evaluation {
    /// Levels 1 to 4: the hand-set weights of the pieces, the king's free paths to the corners
    /// and his enclosure.
    HandSet,
    /// Level 5: weights fitted to game results, more terms, and a quiescence search that
    /// knows a king free to step beside a corner has escaped.
    Fitted,
}

/// The evaluation's scale on the expected score: a lead of this many points is about 73%.
const SCALE: f64 = 250.0;

/// How a tafl search is bounded.
pub struct Bounds<'a> {
    /// Most positions searched; `None` for no bound other than `stop`.
    pub nodes: Option<u64>,
    /// Asked every few hundred positions whether to end the search.
    pub stop: &'a mut dyn FnMut() -> bool,
    /// The seed of the evaluation's jitter.
    pub seed: u64,
    /// Threads searching at once when there is no budget of positions (at least 1).
    pub threads: usize,
    /// The evaluation (and the quiescence search's knowledge) by level.
    pub evaluation: Evaluation,
}

/// What the transposition table keeps of a position.
#[derive(Clone, Copy, Default)]
struct Entry {
    /// The best move found, as `from * 49 + to + 1` (0: none).
    mv: u16,
    depth: i8,
    bound: Bound,
    score: i32,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Bound {
    #[default]
    Exact,
    Lower,
    Upper,
}

impl Entry {
    fn pack(self) -> u64 {
        let bound = match self.bound {
            Bound::Exact => 1u64,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        u64::from(self.mv)
            | u64::from(self.depth as u8) << 16
            | bound << 24
            | u64::from(self.score as i16 as u16) << 32
    }

    fn unpack(data: u64) -> Option<Entry> {
        let bound = match (data >> 24) & 0xff {
            1 => Bound::Exact,
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => return None,
        };
        Some(Entry {
            mv: data as u16,
            depth: (data >> 16) as u8 as i8,
            bound,
            score: i32::from((data >> 32) as u16 as i16),
        })
    }
}

/// The transposition table, shared by the threads of a search: each slot holds the data and
/// the position's hash xored with it, so that a slot torn by two threads writing at once reads
/// as empty rather than as another position's entry.
struct Table(Vec<[AtomicU64; 2]>);

impl Table {
    fn new(bits: u32) -> Table {
        Table((0..1usize << bits).map(|_| Default::default()).collect())
    }

    fn slot(&self, hash: u64) -> &[AtomicU64; 2] {
        &self.0[(hash as usize) & (self.0.len() - 1)]
    }

    fn probe(&self, hash: u64) -> Option<Entry> {
        let slot = self.slot(hash);
        let (check, data) = (slot[0].load(Relaxed), slot[1].load(Relaxed));
        (check ^ data == hash)
            .then(|| Entry::unpack(data))
            .flatten()
    }

    fn store(&self, hash: u64, depth: i32, score: i32, bound: Bound, mv: u16) {
        let slot = self.slot(hash);
        let (check, data) = (slot[0].load(Relaxed), slot[1].load(Relaxed));
        let old = (check ^ data == hash)
            .then(|| Entry::unpack(data))
            .flatten();
        if old.is_none_or(|e| depth >= i32::from(e.depth) || bound == Bound::Exact) {
            let data = Entry {
                mv,
                depth: depth.clamp(0, 127) as i8,
                bound,
                score,
            }
            .pack();
            slot[0].store(hash ^ data, Relaxed);
            slot[1].store(data, Relaxed);
        }
    }
}

fn code(m: Move) -> u16 {
    match m {
        Move::Step { from, to } => u16::from(from.index()) * 49 + u16::from(to.index()) + 1,
        _ => 0,
    }
}

/// Why a search stopped before its iteration was done.
struct Aborted;

struct Searcher<'a> {
    table: &'a Table,
    killers: [[u16; 2]; MAX_DEPTH as usize + QUIESCENCE_PLIES as usize + 2],
    history: Vec<i32>,
    nodes: u64,
    limit: u64,
    stop: &'a mut dyn FnMut() -> bool,
    jitter: u64,
    evaluation: Evaluation,
}

impl<'a> Searcher<'a> {
    fn new(
        table: &'a Table,
        nodes: Option<u64>,
        stop: &'a mut dyn FnMut() -> bool,
        jitter: u64,
        evaluation: Evaluation,
    ) -> Searcher<'a> {
        Searcher {
            table,
            killers: [[0; 2]; MAX_DEPTH as usize + QUIESCENCE_PLIES as usize + 2],
            history: vec![0; 49 * 49 + 1],
            nodes: 0,
            limit: nodes.unwrap_or(u64::MAX),
            stop,
            jitter,
            evaluation,
        }
    }

    /// Counts a position about to be searched; `Err` when the budget or the clock is spent.
    #[inline]
    fn count(&mut self) -> Result<(), Aborted> {
        if self.nodes >= self.limit {
            return Err(Aborted);
        }
        if self.nodes % 256 == 255 && (self.stop)() {
            self.limit = self.nodes;
            return Err(Aborted);
        }
        self.nodes += 1;
        Ok(())
    }

    /// The position's value for the side to move, jittered by the seed.
    fn evaluate(&self, p: &ArdRiPosition) -> i32 {
        let j = (p.hash() ^ self.jitter).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 61;
        let v = match self.evaluation {
            Evaluation::HandSet => evaluate(p, &HAND_SET),
            Evaluation::Fitted => evaluate(p, &FITTED),
        };
        v + j as i32
    }

    /// Orders `moves` best first: the table's move, wins at once, captures (more first),
    /// killers, then by history.
    fn order(
        &self,
        p: &ArdRiPosition,
        moves: &MoveList,
        best: u16,
        ply: usize,
    ) -> Vec<(i32, Move)> {
        let win = p.winning_step(moves);
        let mut v: Vec<(i32, Move)> = moves
            .iter()
            .map(|&m| {
                let c = code(m);
                let key = if c == best {
                    1 << 30
                } else if Some(m) == win {
                    1 << 29
                } else {
                    let caps = p.step_captures(m).count_ones() as i32;
                    if caps > 0 {
                        (1 << 28) + caps
                    } else if self.killers[ply][0] == c {
                        KILLER
                    } else if self.killers[ply][1] == c {
                        KILLER - 1
                    } else {
                        self.history[usize::from(c)]
                    }
                };
                (key, m)
            })
            .collect();
        v.sort_by_key(|e| Reverse(e.0));
        v
    }

    fn negamax(
        &mut self,
        p: &ArdRiPosition,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> Result<i32, Aborted> {
        if depth <= 0 {
            // The quiescence search makes the checks below itself.
            return self.quiescence(p, QUIESCENCE_PLIES, ply, alpha, beta);
        }
        if let Some(o) = p.outcome() {
            return Ok(terminal(o, p.to_move(), ply));
        }
        if let Some(v) = escape_next(p, ply) {
            return Ok(v);
        }
        let hash = p.hash() ^ u64::from(p.plies_without_capture() / 8);
        let mut best_code = 0;
        if let Some(e) = self.table.probe(hash) {
            best_code = e.mv;
            if i32::from(e.depth) >= depth {
                let s = e.score;
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return Ok(s);
                }
            }
        }
        let mut moves = MoveList::new();
        p.legal_moves_into(&mut moves);
        let ordered = self.order(p, &moves, best_code, ply);
        let alpha0 = alpha;
        let mut best = -INF;
        let king = p.king();
        for (i, &(key, m)) in ordered.iter().enumerate() {
            self.count()?;
            let mut child = p.clone();
            child.play_unchecked(m);
            let score = if i == 0 {
                -self.negamax(&child, depth - 1, ply + 1, -beta, -alpha)?
            } else {
                // Late quiet moves (after the table's move, wins, captures and killers, and
                // not the king's) are searched a ply shallower first (two from depth 6 on,
                // from index `3 * LATE_MOVE` of the searched order), and at full depth only if
                // that beats the best so far.
                let late = depth >= 3
                    && i >= LATE_MOVE
                    && key < KILLER - 1
                    && !matches!(m, Move::Step { from, .. } if from == king);
                let reduced = if late {
                    let r = if depth >= 6 && i >= 3 * LATE_MOVE {
                        2
                    } else {
                        1
                    };
                    Some(-self.negamax(&child, depth - 1 - r, ply + 1, -alpha - 1, -alpha)?)
                } else {
                    None
                };
                let s = match reduced {
                    Some(s) if s <= alpha => s,
                    _ => -self.negamax(&child, depth - 1, ply + 1, -alpha - 1, -alpha)?,
                };
                if s > alpha && s < beta {
                    -self.negamax(&child, depth - 1, ply + 1, -beta, -alpha)?
                } else {
                    s
                }
            };
            if score > best {
                best = score;
                best_code = code(m);
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                let c = code(m);
                if p.step_captures(m) == 0 {
                    if self.killers[ply][0] != c {
                        self.killers[ply][1] = self.killers[ply][0];
                        self.killers[ply][0] = c;
                    }
                    self.history[usize::from(c)] += depth * depth;
                }
                break;
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.table.store(hash, depth, best, bound, best_code);
        Ok(best)
    }

    /// Captures only (and wins at once), from a standing evaluation, for `left` more plies.
    fn quiescence(
        &mut self,
        p: &ArdRiPosition,
        left: i32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> Result<i32, Aborted> {
        if let Some(o) = p.outcome() {
            return Ok(terminal(o, p.to_move(), ply));
        }
        if let Some(v) = escape_next(p, ply) {
            return Ok(v);
        }
        let mut moves = MoveList::new();
        p.legal_moves_into(&mut moves);
        if p.winning_step(&moves).is_some() {
            return Ok(WIN - ply as i32 - 1);
        }
        if self.evaluation == Evaluation::Fitted {
            if let Some(v) = step_beside_corner(p, &moves, ply) {
                return Ok(v);
            }
        }
        let stand = self.evaluate(p);
        if stand >= beta || left == 0 {
            return Ok(stand);
        }
        alpha = alpha.max(stand);
        let mut captures: Vec<(u32, Move)> = moves
            .iter()
            .filter_map(|&m| {
                let c = p.step_captures(m).count_ones();
                (c > 0).then_some((c, m))
            })
            .collect();
        captures.sort_by_key(|e| Reverse(e.0));
        let mut best = stand;
        for (_, m) in captures {
            self.count()?;
            let mut child = p.clone();
            child.play_unchecked(m);
            let s = -self.quiescence(&child, left - 1, ply + 1, -beta, -alpha)?;
            if s > best {
                best = s;
            }
            if s > alpha {
                alpha = s;
                if alpha >= beta {
                    break;
                }
            }
        }
        Ok(best)
    }
}

/// The squares next to a corner, all on the edge.
const NEXT_TO_CORNER: Bits = dilate(CORNERS) & ALL & !CORNERS;

/// The value for the attackers to move of a position where the king stands next to a corner:
/// lost, since only the king may enter a corner and a king on the edge cannot be captured, so
/// he steps into it next. The escape is judged before the move limit, so only an attackers'
/// move that reaches the limit (the 100th ply without a capture) saves them.
fn escape_next(p: &ArdRiPosition, ply: usize) -> Option<i32> {
    (p.to_move() == Team::Attackers
        && p.king().bit() & NEXT_TO_CORNER != 0
        && p.plies_without_capture() < 99)
        .then(|| -(WIN - ply as i32 - 2))
}

/// The value for the defenders to move of a position where the king may step beside a corner
/// (one of `moves`, the legal moves): won in three plies, by [`escape_next`], when the move limit
/// does not come first.
fn step_beside_corner(p: &ArdRiPosition, moves: &MoveList, ply: usize) -> Option<i32> {
    let king = p.king();
    (p.to_move() == Team::Defenders
        && p.plies_without_capture() < 98
        && moves.iter().any(
            |m| matches!(*m, Move::Step { from, to } if from == king && to.bit() & NEXT_TO_CORNER != 0),
        ))
    .then(|| WIN - ply as i32 - 3)
}

/// The value of a finished game for `to_move`, `ply` plies from the root.
fn terminal(o: &Outcome, to_move: Team, ply: usize) -> i32 {
    match o.winner {
        None => 0,
        Some(w) if w == Side::from(to_move) => WIN - ply as i32,
        Some(_) => -(WIN - ply as i32),
    }
}

/// The static evaluation of a game in progress by weights `w`, for the side to move.
#[inline]
fn evaluate(p: &ArdRiPosition, w: &Weights) -> i32 {
    let att = p.attackers();
    let def = p.defenders();
    let king = p.king().bit();
    let mut s = w.attackers_base + w.attacker * att.count_ones() as i32
        - w.defender * def.count_ones() as i32;
    if p.to_move() == Team::Attackers {
        s += w.attackers_tempo;
    }
    // The king's ways out: a flood over the empty squares, one step a ply as he moves, on to
    // the whole of his room.
    let free = ALL & !(att | def);
    let (mut seen, mut frontier) = (king, king);
    let mut steps = 0;
    loop {
        frontier = dilate(frontier) & free & !seen;
        if frontier == 0 {
            break;
        }
        seen |= frontier;
        steps += 1;
        if let Some(open) = w.corner_open.get(steps) {
            s -= open * (frontier & CORNERS).count_ones() as i32;
        }
        // A corner reached is not passed through.
        frontier &= !CORNERS;
    }
    let room = (seen & !CORNERS & !king).count_ones().min(20) as i32;
    s -= w.king_room * room / 4;
    let k = p.king().index() as usize;
    let beside = SQUARE_NEIGHBOURS[k];
    let two_steps = dilate(beside | king) & ALL & !(beside | king);
    s += w.near_king * (two_steps & att).count_ones() as i32;
    s -= w.beside_corner * (att & NEXT_TO_CORNER).count_ones() as i32;
    if king & EDGE != 0 {
        s -= w.king_on_edge;
    } else {
        let throne = if king & THRONE == 0 { THRONE } else { 0 };
        let closed = (beside & (att | throne)).count_ones() as usize;
        s += w.enclosed[closed.min(3)];
    }
    faded(p, s)
}

/// A value `s` for the attackers, faded towards a draw as the move limit nears (every lead
/// fades), for the side to move.
fn faded(p: &ArdRiPosition, s: i32) -> i32 {
    let left = 100i32
        .saturating_sub(p.plies_without_capture() as i32)
        .max(0);
    let s = s * (20 + left) / 120;
    match p.to_move() {
        Team::Attackers => s,
        Team::Defenders => -s,
    }
}

/// The expected score (0 to 1) a value stands for.
fn expected(score: i32) -> f64 {
    if score >= PROVEN {
        1.0
    } else if score <= -PROVEN {
        0.0
    } else {
        1.0 / (1.0 + (-f64::from(score) / SCALE).exp())
    }
}

/// The root moves of a search with their latest scores and the positions searched under each,
/// and the best move with its score.
struct Root {
    moves: Vec<(Move, i32, u64)>,
    best: Option<(Move, i32)>,
}

impl Searcher<'_> {
    /// Deepens the search of `pos` one ply at a time from `first` until the budget or the
    /// clock runs out or a result is proven.
    fn deepen(&mut self, pos: &ArdRiPosition, root: &mut Root, first: i32) {
        'deepen: for depth in first..=MAX_DEPTH {
            let mut alpha = -INF;
            let beta = INF;
            // The previous iteration's best first, then the others by their last scores.
            root.moves.sort_by_key(|r| Reverse(r.1));
            if let Some((m, _)) = root.best {
                if let Some(i) = root.moves.iter().position(|r| r.0 == m) {
                    let r = root.moves.remove(i);
                    root.moves.insert(0, r);
                }
            }
            let mut iteration: Option<(Move, i32)> = None;
            for i in 0..root.moves.len() {
                let m = root.moves[i].0;
                let before = self.nodes;
                if self.count().is_err() {
                    break 'deepen;
                }
                let mut child = pos.clone();
                child.play_unchecked(m);
                let result = if i == 0 {
                    self.negamax(&child, depth - 1, 1, -beta, -alpha)
                        .map(|v| -v)
                } else {
                    match self.negamax(&child, depth - 1, 1, -alpha - 1, -alpha) {
                        Ok(v) if -v > alpha => self
                            .negamax(&child, depth - 1, 1, -beta, -alpha)
                            .map(|v| -v),
                        other => other.map(|v| -v),
                    }
                };
                root.moves[i].2 += self.nodes - before;
                let Ok(score) = result else {
                    // A move that beat the iteration's best before time ran out still counts.
                    if let Some(b) = iteration {
                        root.best = Some(b);
                    }
                    break 'deepen;
                };
                root.moves[i].1 = score;
                if score > alpha {
                    alpha = score;
                    iteration = Some((m, score));
                }
            }
            root.best = iteration.or(root.best);
            // A proven result needs no deeper search.
            if root.best.is_some_and(|(_, v)| v.abs() >= PROVEN) {
                break;
            }
        }
    }
}

/// Log2 of the table's slots for a search of at most `nodes` positions.
fn table_bits(nodes: Option<u64>) -> u32 {
    match nodes {
        Some(n) => (64 - n.max(1).leading_zeros()).clamp(10, TABLE_BITS),
        None => TABLE_BITS,
    }
}

/// Searches an Ard Rí position in progress; `None` when the game is over. With `threads`
/// above 1 and no budget of positions, helper threads search the same position beside this one
/// (sharing the table, starting at staggered depths); the move is this thread's choice.
pub fn search(pos: &ArdRiPosition, bounds: &mut Bounds<'_>) -> Option<Found> {
    if pos.outcome().is_some() {
        return None;
    }
    let mut list = MoveList::new();
    pos.legal_moves_into(&mut list);
    if list.is_empty() {
        return None;
    }
    let jitter = bounds.seed.wrapping_mul(0xd6e8_feb8_6659_fd93) | 1;
    let evaluation = bounds.evaluation;
    let table = Table::new(table_bits(bounds.nodes));
    let fresh = || Root {
        moves: list.iter().map(|&m| (m, -INF, 0)).collect(),
        best: None,
    };
    let helpers = if bounds.nodes.is_none() {
        bounds.threads.saturating_sub(1)
    } else {
        0
    };
    let done = AtomicBool::new(false);
    let (root, nodes) = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..helpers)
            .map(|i| {
                let (table, done) = (&table, &done);
                let mut root = fresh();
                scope.spawn(move || {
                    let mut stop = || done.load(Relaxed);
                    let mut s = Searcher::new(table, None, &mut stop, jitter, evaluation);
                    s.deepen(pos, &mut root, 2 + (i as i32 % 2));
                    s.nodes
                })
            })
            .collect();
        let stop = &mut *bounds.stop;
        let mut stop = || {
            let s = stop();
            if s {
                done.store(true, Relaxed);
            }
            s
        };
        let mut s = Searcher::new(&table, bounds.nodes, &mut stop, jitter, evaluation);
        let mut root = fresh();
        s.deepen(pos, &mut root, 1);
        done.store(true, Relaxed);
        let mut nodes = s.nodes;
        for h in handles {
            nodes += h.join().expect("a helper search does not panic");
        }
        (root, nodes)
    });
    let (chosen, value) = match (
        winning_move(&Position::ArdRi(pos.clone()), &list),
        root.best,
    ) {
        (Some(m), _) => (m, WIN),
        (None, Some(b)) => b,
        (None, None) => (root.moves[0].0, 0),
    };
    let mut moves: Vec<MoveStat> = root
        .moves
        .iter()
        .map(|&(mv, score, visits)| MoveStat {
            mv,
            visits,
            eval: if score == -INF { 0.5 } else { expected(score) },
        })
        .collect();
    moves.sort_by(|a, b| {
        (b.mv == chosen)
            .cmp(&(a.mv == chosen))
            .then(b.eval.total_cmp(&a.eval))
    });
    Some(Found {
        chosen,
        eval: expected(value),
        playouts: nodes,
        moves,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(notation: &str, nodes: u64) -> Found {
        find_pos(&ArdRiPosition::from_notation(notation).unwrap(), nodes)
    }

    fn find_pos(pos: &ArdRiPosition, nodes: u64) -> Found {
        searched(pos, nodes, 1, Evaluation::Fitted)
    }

    fn searched(pos: &ArdRiPosition, nodes: u64, seed: u64, evaluation: Evaluation) -> Found {
        search(
            pos,
            &mut Bounds {
                nodes: Some(nodes),
                stop: &mut || false,
                seed,
                threads: 1,
                evaluation,
            },
        )
        .unwrap()
    }

    #[test]
    fn the_start_is_even_and_the_count_is_exact() {
        let pos = ArdRiPosition::new();
        let f = searched(&pos, 5_000, 3, Evaluation::HandSet);
        assert_eq!(f.playouts, 5_000);
        assert_eq!(f.moves.iter().map(|m| m.visits).sum::<u64>(), 5_000);
        assert!((0.2..0.8).contains(&f.eval), "{}", f.eval);
    }

    #[test]
    fn the_fitted_evaluation_has_the_attackers_ahead_at_the_start_without_deciding_the_game() {
        let f = searched(&ArdRiPosition::new(), 5_000, 3, Evaluation::Fitted);
        assert_eq!(f.playouts, 5_000);
        // Between searches of equal strength the attackers win most games (the evaluation is
        // fitted to such games), but the start is far from a proven result.
        assert!((0.6..0.95).contains(&f.eval), "{}", f.eval);
    }

    #[test]
    fn a_king_two_steps_from_two_corners_escapes() {
        // The king on b6 steps to a6 or b7, beside the corner a7, where he cannot be taken.
        let f = find("7/1k5/7/7/7/3a3/7 d 0 0", 20_000);
        let mut p = ArdRiPosition::from_notation("7/1k5/7/7/7/3a3/7 d 0 0").unwrap();
        p.play_unchecked(f.chosen);
        // Whatever the attackers do, the king escapes next move.
        assert!(f.eval > 0.99, "{} {}", f.chosen, f.eval);
        assert!(p.outcome().is_none());
    }

    #[test]
    fn attackers_to_move_with_the_king_beside_a_corner_have_lost_unless_the_limit_saves_them() {
        // The king on b7, beside the corner a7: nothing stops his step into it.
        let lost = find("1k5/7/7/7/7/3a3/7 a 0 0", 200);
        assert_eq!(lost.eval, 0.0, "{}", lost.chosen);
        let mut p = ArdRiPosition::from_notation("1k5/7/7/7/7/3a3/7 a 0 0").unwrap();
        p.play_unchecked(lost.chosen);
        assert!(find_pos(&p, 200).eval == 1.0);
        // With 99 plies gone without a capture, the attackers' move ends the game in a draw.
        let drawn = find("1k5/7/7/7/7/3a3/7 a 99 99", 200);
        assert!((0.2..0.8).contains(&drawn.eval), "{}", drawn.eval);
        // The search knows it without searching: at any ply, not for the defenders to move,
        // nor a king one step further away, nor near the limit.
        let at = |n: &str| escape_next(&ArdRiPosition::from_notation(n).unwrap(), 3);
        assert_eq!(at("1k5/7/7/7/7/3a3/7 a 0 0"), Some(-(WIN - 5)));
        assert_eq!(at("7/7/7/7/7/3a3/5k1 a 0 0"), Some(-(WIN - 5)));
        assert_eq!(at("1k5/7/7/7/7/3a3/7 d 0 0"), None);
        assert_eq!(at("7/1k5/7/7/7/3a3/7 a 0 0"), None);
        assert_eq!(at("1k5/7/7/7/7/3a3/7 a 98 98"), Some(-(WIN - 5)));
        assert_eq!(at("1k5/7/7/7/7/3a3/7 a 99 99"), None);
        // What the search finds by playing it out agrees, at the limit's last safe ply.
        assert_eq!(find("1k5/7/7/7/7/3a3/7 a 98 98", 200).eval, 0.0);
    }

    #[test]
    fn the_defenders_to_move_with_the_king_a_step_from_beside_a_corner_have_won_in_the_quiescence()
    {
        // The king on c7 may step to b7, beside the corner a7; then nothing stops him.
        let at = |n: &str| {
            let p = ArdRiPosition::from_notation(n).unwrap();
            let mut moves = MoveList::new();
            p.legal_moves_into(&mut moves);
            step_beside_corner(&p, &moves, 3)
        };
        assert_eq!(at("2k4/7/7/7/7/3a3/7 d 0 0"), Some(WIN - 6));
        // b7 taken, or the attackers to move, or a king two steps away: not known at once.
        assert_eq!(at("1ak4/7/7/7/7/3a3/7 d 0 0"), None);
        assert_eq!(at("2k4/7/7/7/7/3a3/7 a 0 0"), None);
        assert_eq!(at("3k3/7/7/7/7/3a3/7 d 0 0"), None);
        // The move limit comes first from 98 plies without a capture on.
        assert_eq!(at("2k4/7/7/7/7/3a3/7 d 97 97"), Some(WIN - 6));
        assert_eq!(at("2k4/7/7/7/7/3a3/7 d 98 98"), None);
        // The search playing it out agrees: won at 97, drawn at 98.
        assert_eq!(find("2k4/7/7/7/7/3a3/7 d 97 97", 500).eval, 1.0);
        let drawn = find("2k4/7/7/7/7/3a3/7 d 98 98", 500);
        assert!((0.2..0.8).contains(&drawn.eval), "{}", drawn.eval);
        // And the quiescence search scores it so from a standing position.
        let table = Table::new(10);
        let mut stop = || false;
        let mut s = Searcher::new(&table, None, &mut stop, 1, Evaluation::Fitted);
        let p = ArdRiPosition::from_notation("2k4/7/7/7/7/3a3/7 d 0 0").unwrap();
        assert_eq!(s.quiescence(&p, 0, 3, -INF, INF).ok(), Some(WIN - 6));
    }

    #[test]
    fn the_start_is_worth_what_the_docs_say_and_the_same_for_either_side_to_move() {
        // docs/benchmarks.md: 511 points to the attackers, an expected score of 0.89.
        let start = ArdRiPosition::new();
        assert_eq!(evaluate(&start, &FITTED), 511);
        assert_eq!((expected(511) * 100.0).round(), 89.0);
        // The same pieces with the defenders to move: the attackers' tempo is gone, and the
        // value is the defenders' (the negation).
        let n = start.to_notation().replace(" a ", " d ");
        let p = ArdRiPosition::from_notation(&n).unwrap();
        assert_eq!(evaluate(&p, &FITTED), -(511 - FITTED.attackers_tempo));
    }

    #[test]
    fn the_attackers_take_a_defender_offered() {
        // The attacker on c1 steps to c2 and takes the defender on d2 against the attacker on
        // e2.
        let f = find("7/7/7/7/3k3/3da2/2a4 a 0 0", 20_000);
        let pos = ArdRiPosition::from_notation("7/7/7/7/3k3/3da2/2a4 a 0 0").unwrap();
        assert_ne!(pos.step_captures(f.chosen), 0, "{}", f.chosen);
    }
}
