//! Monte Carlo tree search (UCT) over any of the five games; the levels use it for the Tara games
//! (Ard Rí has its alpha-beta search, `tafl.rs`).
//!
//! One iteration walks down the tree by UCB1, adds one new child (the next untried move, in an
//! order shuffled per node by the seeded generator), plays the rest of the game at random, and
//! adds the result to every node on the way back. A node's statistics are from the view of the
//! side that made the move into it, so every choice maximises the chooser's own result.
//!
//! The result of a playout counts a win 1, a draw ½ and a loss 0, with a share of the reward
//! for the margin in the Tara games (their points are 2 + the difference of kingdoms or knots,
//! and a big win is worth more than a narrow one). The evaluation reported is the expected
//! score alone (win 1, draw ½), from the side to move.
//!
//! Everything is decided by the position, the seed and the number of playouts: the same
//! inputs give the same move on any machine. Only the optional `stop` check (a clock, for a
//! time limit) can end a search early.

use crate::game::playout::{playout_preferring, Rng};
use crate::game::{GamePosition, Move, MoveList, Outcome, Position, Side};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// How a search is bounded and tuned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Most playouts; `None` for no bound other than `stop`.
    pub playouts: Option<u64>,
    /// The UCB1 exploration constant.
    pub exploration: f64,
    /// The part of a playout's reward given by the margin (Tara), 0 to 1.
    pub margin_weight: f64,
    /// The generator's seed.
    pub seed: u64,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// The move chosen (the most visited; a move that wins at once is always chosen).
    pub chosen: Move,
    /// The side to move's expected score (0 to 1) after the chosen move.
    pub eval: f64,
    /// Playouts made.
    pub playouts: u64,
    /// Every legal move with its visits and expected score, most visited first.
    pub moves: Vec<MoveStat>,
}

/// One root move's statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveStat {
    pub mv: Move,
    pub visits: u64,
    /// The mover's expected score after it (0 to 1); 0.5 when unvisited.
    pub eval: f64,
}

/// Sentinel for "no node".
const NONE: u32 = u32::MAX;

/// A node of the tree: the position after `mv` from its parent.
#[derive(Clone, Debug)]
struct Node {
    mv: Move,
    /// The side that played `mv`.
    mover: Side,
    parent: u32,
    first_child: u32,
    next_sibling: u32,
    /// Moves of this node's position not yet given a child; `u16::MAX` before the position's
    /// moves were first counted.
    untried: u16,
    /// Added to a child's index to pick the next untried move, so the order is shuffled.
    offset: u16,
    visits: u32,
    /// Sum of the shaped rewards (for choosing) and of the plain scores (for the evaluation).
    reward: f64,
    score: f64,
}

impl Node {
    fn new(mv: Move, mover: Side, parent: u32) -> Node {
        Node {
            mv,
            mover,
            parent,
            first_child: NONE,
            next_sibling: NONE,
            untried: u16::MAX,
            offset: 0,
            visits: 0,
            reward: 0.0,
            score: 0.0,
        }
    }
}

/// The score (win 1, draw ½, loss 0) and the shaped reward of a finished game for `side`.
pub fn result_for(outcome: &Outcome, side: Side, margin_weight: f64) -> (f64, f64) {
    let score = match outcome.winner {
        Some(w) if w == side => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    };
    let other = side.opponent();
    let (mine, theirs) = (outcome.points[side].value(), outcome.points[other].value());
    let share = if mine + theirs > 0.0 {
        mine / (mine + theirs)
    } else {
        score
    };
    (score, (1.0 - margin_weight) * score + margin_weight * share)
}

/// A move that ends the game at once with a win for the side to move, if there is one.
pub fn winning_move(pos: &Position, moves: &MoveList) -> Option<Move> {
    let me = pos.to_move()?;
    moves.iter().copied().find(|&m| {
        let mut p = pos.clone();
        p.play_unchecked(m);
        p.outcome().is_some_and(|o| o.winner == Some(me))
    })
}

/// Searches `pos` (a game in progress) and returns the move to play, or `None` when the game
/// is over. `stop` is asked every few playouts whether to end early (a time limit).
pub fn search(
    pos: &Position,
    settings: &Settings,
    stop: &mut dyn FnMut() -> bool,
) -> Option<Found> {
    let root_side = pos.to_move()?;
    let mut rng = Rng::new(settings.seed);
    let mut list = MoveList::new();
    pos.legal_moves_into(&mut list);
    if list.is_empty() {
        return None;
    }
    let mut nodes: Vec<Node> = Vec::with_capacity(
        settings
            .playouts
            .map_or(1 << 16, |n| (n as usize).saturating_add(2).min(1 << 22)),
    );
    // The root's mover is the side that moved before it.
    let before = root_side.opponent();
    nodes.push(Node::new(Move::Pass, before, NONE));
    nodes[0].untried = list.len() as u16;
    nodes[0].offset = rng.below(list.len()) as u16;
    let mut playouts = 0u64;
    let mut scratch = MoveList::new();
    let limit = settings.playouts.unwrap_or(u64::MAX);
    while playouts < limit {
        if playouts.is_multiple_of(64) && playouts > 0 && stop() {
            break;
        }
        // Selection: down the tree while the node is fully expanded and has children.
        let mut p = pos.clone();
        let mut at = 0u32;
        loop {
            let node = &nodes[at as usize];
            if p.outcome().is_some() {
                break;
            }
            if node.untried > 0 {
                // Expansion: the next untried move (the moves are counted, and their order
                // shuffled, the first time the node is reached).
                scratch.clear();
                p.legal_moves_into(&mut scratch);
                let n = scratch.len();
                if node.untried == u16::MAX {
                    let offset = rng.below(n.max(1)) as u16;
                    let node = &mut nodes[at as usize];
                    node.untried = n as u16;
                    node.offset = offset;
                }
                let node = &mut nodes[at as usize];
                if node.untried > 0 {
                    let tried = n - usize::from(node.untried);
                    let m = scratch[(tried + usize::from(node.offset)) % n];
                    node.untried -= 1;
                    let mover = p.to_move().unwrap_or(root_side);
                    p.play_unchecked(m);
                    let child = nodes.len() as u32;
                    let mut new = Node::new(m, mover, at);
                    new.next_sibling = nodes[at as usize].first_child;
                    nodes.push(new);
                    nodes[at as usize].first_child = child;
                    at = child;
                    break;
                }
            }
            at = best_child(&nodes, at, settings.exploration);
            if at == NONE {
                break;
            }
            p.play_unchecked(nodes[at as usize].mv);
        }
        if at == NONE {
            break;
        }
        // Simulation.
        playout(&mut p, &mut rng, &mut scratch);
        playouts += 1;
        // Backpropagation.
        let Some(outcome) = p.outcome() else {
            // A playout cut at the safety bound: count it a draw.
            backpropagate(&mut nodes, at, |_| (0.5, 0.5));
            continue;
        };
        let outcome = *outcome;
        backpropagate(&mut nodes, at, |side| {
            result_for(&outcome, side, settings.margin_weight)
        });
    }
    // The root's moves, most visited first (ties by the better score, then generation order).
    let mut moves: Vec<MoveStat> = list
        .iter()
        .map(|&m| MoveStat {
            mv: m,
            visits: 0,
            eval: 0.5,
        })
        .collect();
    let mut child = nodes[0].first_child;
    while child != NONE {
        let n = &nodes[child as usize];
        if let Some(s) = moves.iter_mut().find(|s| s.mv == n.mv) {
            s.visits = u64::from(n.visits);
            if n.visits > 0 {
                s.eval = n.score / f64::from(n.visits);
            }
        }
        child = n.next_sibling;
    }
    sort_moves(&mut moves);
    let (chosen, eval) = match winning_move(pos, &list) {
        Some(m) => (m, 1.0),
        None => (moves[0].mv, moves[0].eval),
    };
    Some(Found {
        chosen,
        eval,
        playouts,
        moves,
    })
}

/// [`search`] on `threads` threads at once when the search has no budget of playouts (root
/// parallelism: each thread grows its own tree from its own seed until `stop` fires on this
/// thread, and the roots' statistics are added up); otherwise [`search`] itself.
pub fn search_threads(
    pos: &Position,
    settings: &Settings,
    threads: usize,
    stop: &mut dyn FnMut() -> bool,
) -> Option<Found> {
    if threads <= 1 || settings.playouts.is_some() {
        return search(pos, settings, stop);
    }
    let done = AtomicBool::new(false);
    let (main, helpers) = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads)
            .map(|i| {
                let done = &done;
                let settings = Settings {
                    seed: settings.seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                    ..*settings
                };
                scope.spawn(move || search(pos, &settings, &mut || done.load(Relaxed)))
            })
            .collect();
        let main = search(pos, settings, &mut || {
            let s = stop();
            if s {
                done.store(true, Relaxed);
            }
            s
        });
        done.store(true, Relaxed);
        let helpers: Vec<Option<Found>> = handles
            .into_iter()
            .map(|h| h.join().expect("a helper search does not panic"))
            .collect();
        (main, helpers)
    });
    let mut found = main?;
    for other in helpers.into_iter().flatten() {
        found.playouts += other.playouts;
        for o in other.moves {
            if let Some(s) = found.moves.iter_mut().find(|s| s.mv == o.mv) {
                let visits = s.visits + o.visits;
                if visits > 0 {
                    s.eval = (s.eval * s.visits as f64 + o.eval * o.visits as f64) / visits as f64;
                }
                s.visits = visits;
            }
        }
    }
    sort_moves(&mut found.moves);
    if winning_move(pos, &pos.legal_moves()).is_none() {
        // The most visited move over all the trees (a move that wins at once stays chosen).
        found.chosen = found.moves[0].mv;
        found.eval = found.moves[0].eval;
    }
    Some(found)
}

/// Root moves most visited first (ties by the better score, then generation order).
fn sort_moves(moves: &mut [MoveStat]) {
    moves.sort_by(|a, b| {
        b.visits.cmp(&a.visits).then(
            b.eval
                .partial_cmp(&a.eval)
                .unwrap_or(std::cmp::Ordering::Equal),
        )
    });
}

/// Plays the game out from `p`: at random, except that in Ard Rí a move that wins at once is
/// always taken (random Ard Rí play walks past a king's escape or capture most of the time,
/// which makes its results noise; with these "decisive moves" a playout's result says much
/// more about the position, for about the same cost).
fn playout(p: &mut Position, rng: &mut Rng, list: &mut MoveList) {
    playout_preferring(p, rng, list, |p, list| p.decisive_move(list));
}

/// The child of `at` with the highest UCB1 value (`NONE` if it has no children).
fn best_child(nodes: &[Node], at: u32, c: f64) -> u32 {
    let parent = &nodes[at as usize];
    let log_n = f64::from(parent.visits.max(1)).ln();
    let mut best = (f64::NEG_INFINITY, NONE);
    let mut child = parent.first_child;
    while child != NONE {
        let n = &nodes[child as usize];
        let v = if n.visits == 0 {
            f64::INFINITY
        } else {
            let visits = f64::from(n.visits);
            n.reward / visits + c * (log_n / visits).sqrt()
        };
        if v > best.0 {
            best = (v, child);
        }
        child = n.next_sibling;
    }
    best.1
}

/// Adds a playout's result to `at` and every node above it, each from its mover's view.
fn backpropagate(nodes: &mut [Node], mut at: u32, result: impl Fn(Side) -> (f64, f64)) {
    while at != NONE {
        let n = &mut nodes[at as usize];
        let (score, reward) = result(n.mover);
        n.visits += 1;
        n.score += score;
        n.reward += reward;
        at = n.parent;
    }
}
