//! Monte Carlo tree search (UCT) over any of the five games; the levels use it for the Tara games
//! (Ard Rí has its alpha-beta search, `tafl.rs`).
//!
//! One iteration walks down the tree by UCB1, adds one new child, plays the rest of the game
//! out, and adds the result to every move on the way back. A move's statistics are from the
//! view of the side that makes it, so every choice maximises the chooser's own result.
//!
//! A node's moves are kept side by side with their statistics (its edges), from the first time
//! the search chooses at it: the choice by UCB1 reads one short array, the untried moves are
//! not generated again, and the parts of a move's UCB1 value that depend on it alone (the mean
//! reward, kept as playouts are added; one over the square root of its visits, from a table)
//! are not worked out at every choice.
//!
//! With [`Settings::transpositions`] (level 5), a position the search reaches again by another
//! order of moves (two ringforts built in either order, a king that walks back) is the node it
//! was the first time, found by its [`Position::transposition_key`]: the moves there gather
//! the playouts of every line that reaches it, while each edge into it keeps the statistics of
//! its own playouts, and UCB1's exploration at a node counts every playout through it. In the
//! Tara games, where most moves add a ringfort, the same few ringforts are reached in many
//! orders, so the tree below them is grown once instead of once for each order.
//!
//! With [`Settings::widening`] (level 5), a node tries its moves one at a time as its playouts
//! grow (progressive widening), the best-rated by the move averages first: while it has tried
//! as many as 1 + `widening` × √(its playouts), the walk chooses among those by UCB1. A node
//! of forty moves then searches its first few deeper before it tries them all, where without
//! widening every move is tried once before any is tried again.
//!
//! Playouts are guided by the move-average sampling technique (MAST): the search keeps, for
//! each side and each move's destination, the average result of the playouts that played such
//! a move, and a playout takes the best-rated move with probability `playout_greed`, a random
//! one otherwise. The same averages choose which untried move a node expands first (ties in an
//! order shuffled per node by the seeded generator). In the Tara games, at the same time a move,
//! MAST playouts beat uniform ones in 26 of 32 games (all 16 in High Kings), and expanding by
//! the averages added 14.5 of 24 on top (docs/benchmarks.md).
//!
//! With [`Settings::pair_playouts`] (level 5 in Sacred Hill), the playouts also keep the
//! average result of each move as the answer to the move just before it (the pair of their
//! keys: the N-gram selection technique, NST, with pairs), and once a pair has that many
//! playouts behind it, a move is rated by the mean of its own average and its pair's. Which
//! hill pays depends on which hill the opponent just took, and the pairs learn that.
//!
//! The result of a playout counts a win 1, a draw ½ and a loss 0, with a share of the reward
//! given by the split of the points (the side's points over both sides'). A Tara winner's
//! points are the kings they captured, plus 2 + the difference of kingdoms or knots when the
//! score ends the game; the loser's are the kings they captured (one at most after a double
//! capture). So the split lowers a High Kings win only by the kings the loser took, and in
//! Sacred Hill, which has no kings, it is the result itself. The evaluation reported is the
//! expected score alone (win 1, draw ½), from the side to move, of the chosen move, drawn
//! towards the whole search's average where few playouts stand behind it ([`EVAL_PRIOR`]).
//!
//! Everything is decided by the position, the seed and the number of playouts: the same
//! inputs give the same move on any machine. Only the optional `stop` check (a clock, for a
//! time limit) can end a search early.

use crate::game::board::SQUARES;
use crate::game::playout::{Rng, MAX_PLIES};
use crate::game::{GamePosition, Move, MoveList, Outcome, Position, Side};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::OnceLock;

/// How a search is bounded and tuned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Most playouts; `None` for no bound other than `stop`.
    pub playouts: Option<u64>,
    /// The UCB1 exploration constant.
    pub exploration: f64,
    /// The part of a playout's reward given by the split of the points ([`result_for`]), 0 to 1.
    pub margin_weight: f64,
    /// The generator's seed.
    pub seed: u64,
    /// How often a playout move is the one with the best average result so far in this
    /// search's playouts (0 to 1; the rest are random): the move-average sampling technique.
    pub playout_greed: f64,
    /// Whether a position reached again by another order of moves is the node it was the
    /// first time (a transposition table), so that its moves' statistics gather every line's
    /// playouts.
    pub transpositions: bool,
    /// Progressive widening: a node tries another of its moves only while it has tried fewer
    /// than 1 + `widening` × √(its playouts), so that it searches its best-rated moves deeper
    /// before it tries the rest. 0 tries every move once before any move a second time.
    pub widening: f64,
    /// How many playouts a pair of moves (a move and the one before it) needs before its
    /// average counts in the playouts' choice (the N-gram selection technique); 0 rates a
    /// move by its own average alone.
    pub pair_playouts: u32,
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

/// Sentinel for "no node" and "no moves counted yet".
const NONE: u32 = u32::MAX;

/// A node of the tree: a position reached by the search. Its moves and their statistics are
/// its edges, kept side by side in [`Tree::edges`] once the node is first reached as a
/// position to choose from (a new node is played out before that, and many never are).
#[derive(Clone, Copy, Debug)]
struct Node {
    /// The first of the node's edges in [`Tree::edges`]; `NONE` before its moves were counted.
    edges: u32,
    /// How many moves the position has.
    moves: u16,
    /// How many of them have a child: the first `tried` edges, in the order they were given one.
    tried: u16,
    /// Playouts through the node (the root: every playout), by whichever edge they came (more
    /// than the edge's own when the node is shared).
    visits: u32,
}

impl Node {
    const NEW: Node = Node {
        edges: NONE,
        moves: 0,
        tried: 0,
        visits: 0,
    };
}

/// A move of a node's position, and, once tried, the child it leads to and the statistics of
/// the playouts through it, from the view of the side that makes it (`side`).
#[derive(Clone, Copy, Debug)]
struct Edge {
    mv: Move,
    /// The child node; `NONE` while the move is untried.
    child: u32,
    visits: u32,
    /// The index ([`side_index`]) of the side that makes the move.
    side: u8,
    /// Sum of the shaped rewards (for choosing; the plain scores, for the evaluation, are
    /// kept for the root's moves alone, in [`Tree::root_scores`]).
    reward: f64,
    /// The mean reward, the part of the move's UCB1 value that depends on it alone besides one
    /// over the square root of its visits ([`inv_sqrt`], read from a table), kept as playouts
    /// are added. An edge is 32 bytes: a tree is mostly the edges of moves not tried yet, and
    /// the memory a search first touches costs time (docs/benchmarks.md).
    mean: f64,
}

const _: () = assert!(std::mem::size_of::<Edge>() == 32);

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
    search_among(pos, None, settings, stop)
}

/// [`search`] choosing among the moves `among` (legal here) at the root, or among all the
/// legal moves when `None`.
fn search_among(
    pos: &Position,
    among: Option<&[Move]>,
    settings: &Settings,
    stop: &mut dyn FnMut() -> bool,
) -> Option<Found> {
    let root_side = pos.to_move()?;
    let mut list = MoveList::new();
    match among {
        Some(moves) => moves.iter().for_each(|&m| list.push(m)),
        None => pos.legal_moves_into(&mut list),
    }
    if list.is_empty() {
        return None;
    }
    let mut tree = Tree::new(settings, root_side, &list);
    let mut playouts = 0u64;
    let limit = settings.playouts.unwrap_or(u64::MAX);
    // Each iteration starts from a copy of `pos`, made into the same position each time (a
    // High Kings position keeps the room its history grew to).
    let mut p = pos.clone();
    while playouts < limit {
        if playouts.is_multiple_of(64) && playouts > 0 && stop() {
            break;
        }
        p.clone_from(pos);
        if !tree.descend(&mut p) {
            break;
        }
        tree.play_out(&mut p);
        playouts += 1;
    }
    let mut moves = tree.root_moves(&list);
    sort_moves(&mut moves);
    let (chosen, eval) = match winning_move(pos, &list) {
        Some(m) => (m, 1.0),
        None => (moves[0].mv, reported_eval(&moves)),
    };
    Some(Found {
        chosen,
        eval,
        playouts,
        moves,
    })
}

/// The tree of one search, with the generator, the move averages and the scratch space its
/// iterations share.
struct Tree<'a> {
    settings: &'a Settings,
    /// The side to move at the root.
    root_side: Side,
    rng: Rng,
    /// The root is node 0.
    nodes: Vec<Node>,
    /// Every counted node's moves, a node's side by side; the root's first.
    edges: Vec<Edge>,
    /// The sum of the plain scores of each of the root's moves (its first edges), for the
    /// evaluation.
    root_scores: Vec<f64>,
    scratch: MoveList,
    mast: Mast,
    /// Each side's index and move's MAST key of the iteration's moves, from the root.
    line: Vec<(usize, usize)>,
    /// The edges the iteration took in the tree, from the root.
    path: Vec<u32>,
    /// With [`Settings::transpositions`], the nodes by their position's
    /// [`Position::transposition_key`].
    table: Option<HashMap<u64, u32, BuildHasherDefault<KeyHasher>>>,
}

/// The hasher of [`Tree::table`]: its keys are hashes already, so a key is its own hash (a
/// fixed function, so a search stays the same from run to run).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = k;
    }
}

/// With shared nodes, the most edges a walk down the tree takes before it plays out from where
/// it is: a line can come back to a position (a Battle's kings walking to and fro). High Kings'
/// third repetition ends such a line first; this bounds any other. (Without shared nodes a
/// walk only goes down, to the end of the game at most, and is not bounded.)
const MAX_DEPTH: usize = 300;

impl<'a> Tree<'a> {
    /// A tree of the root alone, whose position has the moves `list` (not empty).
    fn new(settings: &'a Settings, root_side: Side, list: &MoveList) -> Tree<'a> {
        let capacity = settings
            .playouts
            .map_or(1 << 16, |n| (n as usize).saturating_add(2).min(1 << 22));
        let mut tree = Tree {
            settings,
            root_side,
            rng: Rng::new(settings.seed),
            nodes: Vec::with_capacity(capacity),
            edges: Vec::with_capacity(capacity.saturating_mul(8)),
            root_scores: vec![0.0; list.len()],
            scratch: MoveList::new(),
            mast: Mast::new(settings.pair_playouts),
            line: Vec::with_capacity(256),
            path: Vec::with_capacity(64),
            table: settings.transpositions.then(|| {
                HashMap::with_capacity_and_hasher(capacity, BuildHasherDefault::default())
            }),
        };
        let root = counted_node(&mut tree.edges, &mut tree.rng, list, side_index(root_side));
        tree.nodes.push(root);
        tree
    }

    /// Selection: down the tree from the root while the node has no untried move that it may
    /// try yet ([`Tree::widens`]), playing the moves on `p`, then the expansion of one new
    /// child. False when a node of a game in progress has no moves to take.
    fn descend(&mut self, p: &mut Position) -> bool {
        let mut at = 0u32;
        self.line.clear();
        self.path.clear();
        loop {
            if p.outcome().is_some() {
                return true;
            }
            if self.nodes[at as usize].edges == NONE {
                self.scratch.clear();
                p.legal_moves_into(&mut self.scratch);
                let side = side_index(p.to_move().unwrap_or(self.root_side));
                let visits = self.nodes[at as usize].visits;
                self.nodes[at as usize] = Node {
                    visits,
                    ..counted_node(&mut self.edges, &mut self.rng, &self.scratch, side)
                };
            }
            let node = self.nodes[at as usize];
            if node.tried < node.moves && self.widens(node.tried, node.visits) {
                self.expand(p, at);
                return true;
            }
            let first = node.edges as usize;
            let tried = &self.edges[first..first + usize::from(node.tried)];
            let Some(k) = best_edge(tried, node.visits, self.settings.exploration) else {
                return false;
            };
            let e = &self.edges[first + k];
            self.path.push((first + k) as u32);
            self.line.push((usize::from(e.side), mast_key(e.mv)));
            p.play_unchecked(e.mv);
            at = e.child;
            if self.path.len() >= MAX_DEPTH && self.table.is_some() {
                return true;
            }
        }
    }

    /// Whether a node that has tried `tried` of its moves and had `visits` playouts tries
    /// another ([`Settings::widening`]).
    fn widens(&self, tried: u16, visits: u32) -> bool {
        let c = self.settings.widening;
        c <= 0.0 || f64::from(tried) < 1.0 + c * f64::from(visits).sqrt()
    }

    /// Expansion: a new child of `at` (whose moves are counted, and not all tried) for the
    /// untried move with the best playout average (MAST; between equal ones, the first in the
    /// node's order), played on `p`.
    fn expand(&mut self, p: &mut Position, at: u32) {
        let node = self.nodes[at as usize];
        let first = node.edges as usize;
        let tried = first + usize::from(node.tried);
        let untried = &self.edges[tried..first + usize::from(node.moves)];
        let mast = &self.mast;
        let k = best_untried(untried, |e| mast.value(usize::from(e.side), mast_key(e.mv)));
        // The chosen move becomes the next tried one; the untried keep their order.
        self.edges[tried..=tried + k].rotate_right(1);
        let mv = self.edges[tried].mv;
        p.play_unchecked(mv);
        // The node of the position reached, when the table knows it; else a new one.
        let next = self.nodes.len() as u32;
        let child = match (&mut self.table, p.transposition_key()) {
            (Some(table), Some(key)) => *table.entry(key).or_insert(next),
            _ => next,
        };
        if child == next {
            self.nodes.push(Node::NEW);
        }
        let e = &mut self.edges[tried];
        e.child = child;
        self.nodes[at as usize].tried += 1;
        self.path.push(tried as u32);
        self.line.push((usize::from(e.side), mast_key(e.mv)));
    }

    /// Simulation from the end of the iteration's path, whose position is `p`, then
    /// backpropagation of the result to the tree and to the move averages.
    fn play_out(&mut self, p: &mut Position) {
        playout(
            p,
            &mut self.rng,
            &mut self.scratch,
            &self.mast,
            self.settings.playout_greed,
            &mut self.line,
        );
        // Each side's result by its index. A playout cut at the safety bound counts as a draw.
        let mut results = [(0.5, 0.5); 2];
        if let Some(outcome) = p.outcome() {
            for side in [self.root_side, self.root_side.opponent()] {
                results[side_index(side)] = result_for(outcome, side, self.settings.margin_weight);
            }
        }
        self.nodes[0].visits += 1;
        for &k in &self.path {
            let e = &mut self.edges[k as usize];
            let (score, reward) = results[usize::from(e.side)];
            e.visits += 1;
            e.reward += reward;
            e.mean = e.reward / f64::from(e.visits);
            self.nodes[e.child as usize].visits += 1;
            // The root's moves are its first edges (a walk reaches the root again by no edge).
            if let Some(sum) = self.root_scores.get_mut(k as usize) {
                *sum += score;
            }
        }
        self.mast.add(&self.line, |side| results[side].1);
    }

    /// The root's moves `list` with their visits and expected scores, in the order of `list`.
    fn root_moves(&self, list: &MoveList) -> Vec<MoveStat> {
        let mut moves: Vec<MoveStat> = list
            .iter()
            .map(|&m| MoveStat {
                mv: m,
                visits: 0,
                eval: 0.5,
            })
            .collect();
        let root = self.nodes[0];
        let first = root.edges as usize;
        let tried = first..first + usize::from(root.tried);
        for (e, score) in self.edges[tried.clone()]
            .iter()
            .zip(&self.root_scores[tried])
        {
            if let Some(s) = moves.iter_mut().find(|s| s.mv == e.mv) {
                s.visits = u64::from(e.visits);
                if e.visits > 0 {
                    s.eval = score / f64::from(e.visits);
                }
            }
        }
        moves
    }
}

/// A node whose position has the moves `legal`, which the side of index `side` makes: its
/// edges are added to `edges` in an order that starts at a random move (the order in which
/// equally rated moves are tried).
fn counted_node(edges: &mut Vec<Edge>, rng: &mut Rng, legal: &[Move], side: usize) -> Node {
    let n = legal.len();
    let offset = rng.below(n.max(1));
    let first = edges.len() as u32;
    edges.extend((0..n).map(|k| Edge {
        mv: legal[(k + offset) % n],
        child: NONE,
        visits: 0,
        side: side as u8,
        reward: 0.0,
        mean: 0.0,
    }));
    Node {
        edges: first,
        moves: n as u16,
        tried: 0,
        visits: 0,
    }
}

/// [`search`] on `threads` threads at once when the search has no budget of playouts (root
/// parallelism: each thread grows its own tree from its own seed until `stop` fires on this
/// thread, and the roots' statistics are added up); otherwise [`search`] itself. At the root
/// it chooses among the moves `among` (legal here), or among all the legal moves when `None`.
pub fn search_threads(
    pos: &Position,
    settings: &Settings,
    threads: usize,
    stop: &mut dyn FnMut() -> bool,
    among: Option<&[Move]>,
) -> Option<Found> {
    if threads <= 1 || settings.playouts.is_some() {
        return search_among(pos, among, settings, stop);
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
                scope.spawn(move || search_among(pos, among, &settings, &mut || done.load(Relaxed)))
            })
            .collect();
        let main = search_among(pos, among, settings, &mut || {
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
        found.eval = reported_eval(&found.moves);
    }
    Some(found)
}

/// How many playouts' worth of the whole search's average the reported evaluation of the
/// chosen move starts from (see [`reported_eval`]).
const EVAL_PRIOR: f64 = 10.0;

/// The evaluation reported for the chosen (first, most visited) of `moves`: its average score,
/// drawn towards the average of every playout of the search by [`EVAL_PRIOR`] playouts' worth.
/// With thousands of playouts behind the chosen move this is its own average; with a handful
/// (a small budget: level 1's 40 playouts spread over dozens of moves, where the chosen move
/// is the one that happened to win its single playout) it is mostly the search's average,
/// not the 1.0 of one lucky playout.
fn reported_eval(moves: &[MoveStat]) -> f64 {
    let Some(chosen) = moves.first() else {
        return 0.5;
    };
    let visits: u64 = moves.iter().map(|m| m.visits).sum();
    if visits == 0 {
        return chosen.eval;
    }
    let all = moves.iter().map(|m| m.eval * m.visits as f64).sum::<f64>() / visits as f64;
    let n = chosen.visits as f64;
    (chosen.eval * n + EVAL_PRIOR * all) / (n + EVAL_PRIOR)
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

/// Plays the game out from `p`, adding each move to `line` as (side, key). A move that wins
/// at once is always taken (in Ard Rí, random play walks past a king's escape or capture most
/// of the time, which makes its results noise); otherwise, with probability `greed`, the move
/// whose key has the best average result in this search's playouts so far (the move-average
/// sampling technique, MAST; with pairs, [`Pairs`], the mean of that and of the average as the
/// answer to the move before it), else a random one. MAST learns in a few thousand playouts which
/// hills pay for each side, and playouts that prefer them judge a position much better than
/// uniform ones, for about a fifth more time each.
fn playout(
    p: &mut Position,
    rng: &mut Rng,
    list: &mut MoveList,
    mast: &Mast,
    greed: f64,
    line: &mut Vec<(usize, usize)>,
) {
    // `greed` as a threshold for 32 random bits.
    let threshold = (greed.clamp(0.0, 1.0) * (1u64 << 32) as f64) as u64;
    while p.outcome().is_none() && p.ply() < MAX_PLIES {
        let Some(side) = p.to_move().map(side_index) else {
            break;
        };
        list.clear();
        p.legal_moves_into(list);
        let m = match p.decisive_move(list) {
            Some(m) => m,
            None if (rng.next_u64() >> 32) < threshold => {
                // With pairs, the side's answers to the move before this one.
                let answers = (mast.pairs.as_ref())
                    .zip(line.last())
                    .map(|(pairs, &(_, before))| pairs.row(side, before));
                let mut best = (f64::NEG_INFINITY, list[0]);
                for &m in list.iter() {
                    let key = mast_key(m);
                    let own = mast.value(side, key);
                    let v = answers.as_ref().map_or(own, |row| row.value(key, own));
                    if v > best.0 {
                        best = (v, m);
                    }
                }
                best.1
            }
            None => list[rng.below(list.len())],
        };
        line.push((side, mast_key(m)));
        p.play_unchecked(m);
    }
}

/// Keys of [`Mast`]'s table: 49 cells of the 7x7 grid as destinations, the same again for
/// High Kings' sacrifices, and a pass.
const MAST_KEYS: usize = 128;

/// The move-average table (MAST): for each side and move key, the sum and number of the
/// results of the playouts in which that side played such a move (tree moves included), and
/// their mean, kept as results are added (playouts read it for every move they weigh). A key
/// never played rates 1, so every move gets tried.
struct Mast {
    sum: [[f64; MAST_KEYS]; 2],
    n: [[u32; MAST_KEYS]; 2],
    mean: [[f64; MAST_KEYS]; 2],
    /// With [`Settings::pair_playouts`], the averages of the pairs of moves.
    pairs: Option<Pairs>,
}

impl Mast {
    /// Empty tables; with pairs when `pair_playouts` is not 0.
    fn new(pair_playouts: u32) -> Mast {
        Mast {
            sum: [[0.0; MAST_KEYS]; 2],
            n: [[0; MAST_KEYS]; 2],
            mean: [[1.0; MAST_KEYS]; 2],
            pairs: (pair_playouts > 0).then(|| Pairs::new(pair_playouts)),
        }
    }
    #[inline]
    fn value(&self, side: usize, key: usize) -> f64 {
        self.mean[side][key]
    }
    fn add(&mut self, line: &[(usize, usize)], reward: impl Fn(usize) -> f64) {
        if let Some(pairs) = &mut self.pairs {
            for w in line.windows(2) {
                let (side, key) = w[1];
                pairs.add(side, w[0].1, key, reward(side));
            }
        }
        for &(side, key) in line {
            self.sum[side][key] += reward(side);
            self.n[side][key] += 1;
            self.mean[side][key] = self.sum[side][key] / f64::from(self.n[side][key]);
        }
    }
}

/// The averages of pairs of moves for the N-gram selection technique: for each side, the key
/// of the move before and the key of the side's answer to it, the sum and number of the
/// results of the playouts that played the pair, and whether enough did for it to count.
struct Pairs {
    /// How many playouts a pair needs before its average counts.
    needed: u32,
    sum: Vec<f64>,
    n: Vec<u32>,
    /// The pair's mean once it has `needed` playouts, else `NaN` (a pair that does not count).
    mean: Vec<f64>,
}

/// One row of [`Pairs`]: a side's answers to one move before.
struct PairRow<'a> {
    mean: &'a [f64],
}

impl PairRow<'_> {
    /// A move's rating: the mean of `own` (its own average) and its pair's average, when the
    /// pair counts; else `own`.
    #[inline]
    fn value(&self, key: usize, own: f64) -> f64 {
        let pair = self.mean[key];
        if pair.is_nan() {
            own
        } else {
            (own + pair) * 0.5
        }
    }
}

impl Pairs {
    fn new(needed: u32) -> Pairs {
        let size = 2 * MAST_KEYS * MAST_KEYS;
        Pairs {
            needed,
            sum: vec![0.0; size],
            n: vec![0; size],
            mean: vec![f64::NAN; size],
        }
    }
    #[inline]
    fn index(side: usize, before: usize, key: usize) -> usize {
        (side * MAST_KEYS + before) * MAST_KEYS + key
    }
    /// The answers of the side of index `side` to a move of key `before`.
    #[inline]
    fn row(&self, side: usize, before: usize) -> PairRow<'_> {
        let first = Pairs::index(side, before, 0);
        PairRow {
            mean: &self.mean[first..first + MAST_KEYS],
        }
    }
    fn add(&mut self, side: usize, before: usize, key: usize, reward: f64) {
        let i = Pairs::index(side, before, key);
        self.sum[i] += reward;
        self.n[i] += 1;
        if self.n[i] >= self.needed {
            self.mean[i] = self.sum[i] / f64::from(self.n[i]);
        }
    }
}

/// 0 for Red and the attackers, 1 for Blue and the defenders.
#[inline]
fn side_index(side: Side) -> usize {
    match side {
        Side::Red | Side::Attackers => 0,
        Side::Blue | Side::Defenders => 1,
    }
}

/// A move's key in [`Mast`]: the cell it goes to (plus the 49 cells for a sacrifice), 127 for a
/// pass.
/// Where a move lands is what decides its worth in these games: the ringfort built or taken,
/// the king's new neighbours, the square a piece steps to.
#[inline]
fn mast_key(m: Move) -> usize {
    match m {
        Move::Build { hill } => usize::from(hill.index()),
        Move::King { to, sacrifice, .. } => {
            usize::from(to.index()) + if sacrifice { SQUARES } else { 0 }
        }
        Move::Step { to, .. } => usize::from(to.index()),
        Move::Pass => MAST_KEYS - 1,
    }
}

/// Which of a node's untried edges `untried` (not empty) to expand next: the one `value`
/// rates highest; between equal ones, the first.
fn best_untried(untried: &[Edge], value: impl Fn(&Edge) -> f64) -> usize {
    let mut best = (f64::NEG_INFINITY, 0);
    for (k, e) in untried.iter().enumerate() {
        let v = value(e);
        if v > best.0 {
            best = (v, k);
        }
    }
    best.1
}

/// Of a node's tried edges `tried` (in the order they were tried), the one with the highest
/// UCB1 value (mean reward + c·√(ln N / n)), the node having `visits` (N) playouts; between
/// equal values the one tried last. `None` when there are none.
fn best_edge(tried: &[Edge], visits: u32, c: f64) -> Option<usize> {
    let explore = c * sqrt_ln(visits.max(1));
    let mut best = (f64::NEG_INFINITY, None);
    for (k, e) in tried.iter().enumerate().rev() {
        let v = if e.visits == 0 {
            f64::INFINITY
        } else {
            e.mean + explore * inv_sqrt(e.visits)
        };
        if v > best.0 {
            best = (v, Some(k));
        }
    }
    best.1
}

/// How many of the values of [`sqrt_ln`] and [`inv_sqrt`] are worked out once and kept.
const SQRT_LN_KEPT: u32 = 1 << 16;

/// A function of the playout counts, kept in a table for the counts below [`SQRT_LN_KEPT`]
/// (which most nodes and moves have, filled on first use) and worked out for larger ones: the
/// same value either way.
struct Kept {
    f: fn(f64) -> f64,
    table: OnceLock<Vec<f64>>,
}

impl Kept {
    const fn new(f: fn(f64) -> f64) -> Kept {
        Kept {
            f,
            table: OnceLock::new(),
        }
    }
    #[inline]
    fn of(&self, n: u32) -> f64 {
        if n < SQRT_LN_KEPT {
            let table = self
                .table
                .get_or_init(|| (0..SQRT_LN_KEPT).map(|n| (self.f)(f64::from(n))).collect());
            table[n as usize]
        } else {
            (self.f)(f64::from(n))
        }
    }
}

/// √(ln `n`), as UCB1 needs it at every node a walk passes (working out the logarithm took a
/// tenth of level 5's time in High Kings, whose trees are deep).
#[inline]
fn sqrt_ln(n: u32) -> f64 {
    static SQRT_LN: Kept = Kept::new(|x| x.ln().sqrt());
    SQRT_LN.of(n)
}

/// One over √`n`, as a move's UCB1 value needs it at every choice.
#[inline]
fn inv_sqrt(n: u32) -> f64 {
    static INV_SQRT: Kept = Kept::new(|x| x.sqrt().recip());
    INV_SQRT.of(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::board::Hill;
    use crate::game::{GameOptions, Variant};

    fn hill(col: u8, row: u8) -> Hill {
        Hill::new(col, row).expect("a hill of the board")
    }

    #[test]
    fn move_averages_start_at_one_and_average_each_sides_results() {
        let mut mast = Mast::new(0);
        assert_eq!(mast.value(0, 5), 1.0);
        let line = [(0, 5), (1, 7), (0, 5)];
        mast.add(&line, |side| if side == 0 { 1.0 } else { 0.0 });
        mast.add(&line[..2], |side| if side == 0 { 0.0 } else { 0.5 });
        // Side 0's key 5: results 1, 1 and 0; side 1's key 7: 0 and 0.5.
        assert!((mast.value(0, 5) - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(mast.value(1, 7), 0.25);
        // The same key for the other side is its own entry.
        assert_eq!(mast.value(1, 5), 1.0);
    }

    #[test]
    fn a_pair_of_moves_counts_once_enough_playouts_played_it() {
        let mut mast = Mast::new(2);
        let line = [(0, 5), (1, 7), (0, 9)];
        mast.add(&line, |side| if side == 1 { 1.0 } else { 0.0 });
        let pairs = mast.pairs.as_ref().expect("pairs were asked for");
        // One playout of side 1's 7 after 5: not enough, so the move's own average alone.
        assert_eq!(pairs.row(1, 5).value(7, 0.25), 0.25);
        mast.add(&line[..2], |side| if side == 1 { 0.5 } else { 0.0 });
        let pairs = mast.pairs.as_ref().expect("pairs were asked for");
        // Two (results 1 and 0.5): the mean of the own average and the pair's 0.75.
        assert_eq!(pairs.row(1, 5).value(7, 0.25), 0.5);
        // The pair is side 1's answer to 5 alone: not side 0's, not an answer to another key.
        assert_eq!(pairs.row(0, 5).value(7, 0.25), 0.25);
        assert_eq!(pairs.row(1, 9).value(7, 0.25), 0.25);
        // Side 0's 9 after 7 was played once only.
        assert_eq!(pairs.row(0, 7).value(9, 0.1), 0.1);
        assert!(Mast::new(0).pairs.is_none());
    }

    #[test]
    fn a_playout_takes_the_best_answer_to_the_move_before_it() {
        // Sacred Hill's first move, chosen greedily: the own averages prefer D4 to A4, but after
        // a (notional) move to G4 the pair "A4 after G4" rates A4 above D4.
        let pos = Position::new(GameOptions::new(Variant::SacredHill1));
        let (d4, a4, g4) = (hill(3, 3), hill(0, 3), hill(6, 3));
        let key = |h: Hill| mast_key(Move::Build { hill: h });
        let mut mast = Mast::new(1);
        mast.mean = [[0.0; MAST_KEYS]; 2];
        mast.mean[0][key(d4)] = 0.7;
        mast.mean[0][key(a4)] = 0.6;
        if let Some(pairs) = &mut mast.pairs {
            pairs.add(0, key(g4), key(a4), 1.0);
        }
        let first = |mast: &Mast, mut line: Vec<(usize, usize)>| {
            let before = line.len();
            let mut p = pos.clone();
            let mut list = MoveList::new();
            playout(&mut p, &mut Rng::new(1), &mut list, mast, 1.0, &mut line);
            line[before].1
        };
        assert_eq!(first(&mast, Vec::new()), key(d4));
        assert_eq!(first(&mast, vec![(1, key(g4))]), key(a4));
        // Without pairs the move before changes nothing.
        mast.pairs = None;
        assert_eq!(first(&mast, vec![(1, key(g4))]), key(d4));
    }

    #[test]
    fn keys_tell_destinations_sacrifices_and_a_pass_apart() {
        let (a, b) = (hill(3, 3), hill(4, 5));
        let build = mast_key(Move::Build { hill: b });
        let king = mast_key(Move::King {
            from: a,
            to: b,
            sacrifice: false,
        });
        let sacrifice = mast_key(Move::King {
            from: a,
            to: b,
            sacrifice: true,
        });
        assert_eq!(build, king, "the key is where the move lands");
        assert_ne!(king, sacrifice);
        assert_eq!(mast_key(Move::Pass), MAST_KEYS - 1);
        assert!(sacrifice < MAST_KEYS - 1);
    }

    #[test]
    fn the_best_rated_untried_move_is_expanded_next_and_ties_keep_the_nodes_order() {
        let pos = Position::new(GameOptions::new(Variant::Hkot1));
        let list = pos.legal_moves();
        let settings = Settings {
            playouts: Some(10),
            exploration: 0.5,
            margin_weight: 0.2,
            seed: 7,
            playout_greed: 0.5,
            transpositions: false,
            widening: 0.0,
            pair_playouts: 0,
        };
        let side = pos.to_move().expect("a game in progress");
        let mut tree = Tree::new(&settings, side, &list);
        // The root's order is the list's, from a random move on.
        let order: Vec<Move> = tree.edges.iter().map(|e| e.mv).collect();
        let offset = list.iter().position(|&m| m == order[0]).unwrap();
        assert!(order.len() >= 6);
        for (k, m) in order.iter().enumerate() {
            assert_eq!(*m, list[(k + offset) % list.len()]);
        }
        // Every move rated 0.5 by its playouts, but the third 0.9 and the fifth 0.7.
        for (k, &m) in order.iter().enumerate() {
            let rating = [0.9, 0.7].get([2, 4].iter().position(|&i| i == k).unwrap_or(9));
            tree.mast.add(&[(side_index(side), mast_key(m))], |_| {
                *rating.unwrap_or(&0.5)
            });
        }
        for _ in 0..3 {
            tree.path.clear();
            tree.expand(&mut pos.clone(), 0);
        }
        let now: Vec<Move> = tree.edges.iter().map(|e| e.mv).collect();
        // The two best first, then the first of the equal ones; the untried keep their order.
        let mut expected = vec![order[2], order[4], order[0], order[1], order[3]];
        expected.extend_from_slice(&order[5..]);
        assert_eq!(now, expected);
        assert_eq!(tree.nodes[0].tried, 3);
        assert_eq!(tree.nodes.len(), 4, "a node a tried move");
        assert!(tree.edges[..3].iter().all(|e| e.child != NONE));
        assert!(tree.edges[3..].iter().all(|e| e.child == NONE));
    }

    /// A tree grown by `n` iterations from `pos`, as a search grows it.
    fn grown<'a>(pos: &Position, settings: &'a Settings, n: usize) -> Tree<'a> {
        let list = pos.legal_moves();
        let mut tree = Tree::new(settings, pos.to_move().expect("a game in progress"), &list);
        for _ in 0..n {
            let mut p = pos.clone();
            assert!(tree.descend(&mut p));
            tree.play_out(&mut p);
        }
        tree
    }

    /// For every node but the root: its position's key (the same by every edge into it), and
    /// how many edges lead to it. Checks on the way that a node's playouts are those of the
    /// edges into it.
    fn nodes_by_edges(tree: &Tree, pos: &Position) -> Vec<(Option<u64>, u32)> {
        let mut seen = vec![(None, 0u32); tree.nodes.len()];
        let mut into = vec![0u32; tree.nodes.len()];
        let mut stack = vec![(0u32, pos.clone())];
        let mut walked = vec![false; tree.nodes.len()];
        while let Some((at, p)) = stack.pop() {
            let node = tree.nodes[at as usize];
            if node.edges == NONE {
                continue;
            }
            let first = node.edges as usize;
            for e in &tree.edges[first..first + usize::from(node.tried)] {
                let mut after = p.clone();
                after.play_unchecked(e.mv);
                let c = e.child as usize;
                let key = after.transposition_key();
                if seen[c].1 > 0 {
                    assert_eq!(seen[c].0, key, "one node, one position");
                }
                seen[c] = (key, seen[c].1 + 1);
                into[c] += e.visits;
                if !walked[c] {
                    walked[c] = true;
                    stack.push((e.child, after));
                }
            }
        }
        for (c, node) in tree.nodes.iter().enumerate().skip(1) {
            assert_eq!(
                node.visits, into[c],
                "node {c}'s playouts came by its edges"
            );
        }
        seen
    }

    #[test]
    fn with_transpositions_a_position_reached_in_other_orders_is_one_node() {
        for variant in [Variant::SacredHill1, Variant::Hkot2] {
            let pos = Position::new(GameOptions::new(variant));
            let mut settings = Settings {
                playouts: Some(3_000),
                exploration: 0.5,
                margin_weight: 0.2,
                seed: 11,
                playout_greed: 0.5,
                transpositions: true,
                widening: 0.0,
                pair_playouts: 0,
            };
            let tree = grown(&pos, &settings, 3_000);
            let shared = nodes_by_edges(&tree, &pos);
            let many = shared.iter().filter(|(_, n)| *n > 1).count();
            assert!(
                many > 10,
                "{variant:?}: {many} nodes reached by two edges or more"
            );
            // Every node is its own position: no two nodes share a key.
            let mut keys: Vec<u64> = shared
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(k, _)| k.expect("a Tara position has a key"))
                .collect();
            let len = keys.len();
            keys.sort_unstable();
            keys.dedup();
            assert_eq!(keys.len(), len);

            // Without: a node per edge, and the same positions under several nodes.
            settings.transpositions = false;
            let tree = grown(&pos, &settings, 3_000);
            let plain = nodes_by_edges(&tree, &pos);
            assert!(plain.iter().skip(1).all(|(_, n)| *n == 1));
            let mut keys: Vec<u64> = plain
                .iter()
                .skip(1)
                .map(|(k, _)| k.expect("a Tara position has a key"))
                .collect();
            let len = keys.len();
            keys.sort_unstable();
            keys.dedup();
            assert!(keys.len() < len, "{variant:?}: no position reached twice");
        }
    }

    #[test]
    fn with_widening_a_node_tries_moves_as_its_playouts_grow() {
        for variant in [Variant::Hkot1, Variant::SacredHill2] {
            let pos = Position::new(GameOptions::new(variant));
            let settings = Settings {
                playouts: Some(500),
                exploration: 0.5,
                margin_weight: 0.2,
                seed: 3,
                playout_greed: 0.5,
                transpositions: false,
                widening: 1.0,
                pair_playouts: 0,
            };
            let tree = grown(&pos, &settings, 500);
            let root = tree.nodes[0];
            assert!(root.moves > 30, "{variant:?}: {} moves", root.moves);
            // A node tried its last move while it had tried fewer than 1 + √(its playouts then),
            // and its playouts only grow.
            let counted = |node: &Node, visits: u32| {
                node.edges != NONE && f64::from(node.tried) < 2.0 + f64::from(visits).sqrt()
            };
            assert!(counted(&root, root.visits));
            assert!(
                root.tried < root.moves,
                "{variant:?}: every root move tried"
            );
            // A node that chose among its tried moves again while others were untried (until it
            // has tried them all, a node without widening has one playout more than its tried
            // moves: the one that made it, then one a move).
            let revisited =
                |node: &Node| node.tried < node.moves && node.visits > u32::from(node.tried) + 1;
            let mut deep = 0;
            for node in tree.nodes.iter().skip(1).filter(|n| n.edges != NONE) {
                assert!(counted(node, node.visits), "{variant:?}: {node:?}");
                if revisited(node) {
                    deep += 1;
                }
            }
            assert!(deep > 0, "{variant:?}: no node searched deeper than wide");
            // The root's most visited move has more playouts than without widening.
            let most = |tree: &Tree| {
                let first = tree.nodes[0].edges as usize;
                let n = usize::from(tree.nodes[0].tried);
                tree.edges[first..first + n].iter().map(|e| e.visits).max()
            };
            let plain = Settings {
                widening: 0.0,
                pair_playouts: 0,
                ..settings
            };
            let wide = grown(&pos, &plain, 500);
            assert_eq!(wide.nodes[0].tried, wide.nodes[0].moves);
            assert!(!wide.nodes.iter().skip(1).any(revisited));
            assert!(most(&tree) > most(&wide), "{variant:?}");
        }
    }

    #[test]
    fn the_kept_square_roots_are_the_worked_out_ones() {
        for n in (1..SQRT_LN_KEPT + 10).chain([1 << 20, u32::MAX]) {
            let x = f64::from(n);
            assert_eq!(sqrt_ln(n).to_bits(), x.ln().sqrt().to_bits(), "{n}");
            assert_eq!(inv_sqrt(n).to_bits(), x.sqrt().recip().to_bits(), "{n}");
        }
    }

    #[test]
    fn a_position_copied_into_another_is_the_same_position() {
        // A search copies its root into the position its last playout ended in (a High Kings
        // one has a history of the positions since its last build, grown in the Battle):
        // High Kings after 14 moves, Sacred Hill's and Ard Rí's starts.
        let hk = "E7 B2 E4 G4 G2 D4 E4-F6 D4-C6 G2-E1 C6-E5 E1-C2 E5-F3 C2-B4 B2-D1";
        let mut root = Position::new(GameOptions::new(Variant::Hkot1));
        for m in hk.split(' ') {
            let m = root.parse_move(m).expect("a move");
            root.play(m).expect("legal");
        }
        let mut rng = Rng::new(7);
        for start in [
            root,
            Position::new(GameOptions::new(Variant::SacredHill2)),
            Position::new(GameOptions::new(Variant::ArdRi)),
        ] {
            let mut p = start.clone();
            let mut list = MoveList::new();
            while p.outcome().is_none() {
                list.clear();
                p.legal_moves_into(&mut list);
                p.play_unchecked(list[rng.below(list.len())]);
            }
            p.clone_from(&start);
            assert_eq!(format!("{p:?}"), format!("{start:?}"));
            assert_eq!(p.legal_moves().as_slice(), start.legal_moves().as_slice());
        }
    }
}
