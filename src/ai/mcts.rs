//! Monte Carlo tree search (UCT) over any of the five games; the levels use it for the Tara games
//! (Ard Rí has its alpha-beta search, `tafl.rs`).
//!
//! One iteration walks down the tree by UCB1, adds one new child, plays the rest of the game
//! out, and adds the result to every node on the way back. A node's statistics are from the
//! view of the side that made the move into it, so every choice maximises the chooser's own
//! result.
//!
//! Playouts are guided by the move-average sampling technique (MAST): the search keeps, for
//! each side and each move's destination, the average result of the playouts that played such
//! a move, and a playout takes the best-rated move with probability `playout_greed`, a random
//! one otherwise. The same averages choose which untried move a node expands first (ties in an
//! order shuffled per node by the seeded generator). In the Tara games, at the same time a move,
//! MAST playouts beat uniform ones in 26 of 32 games (all 16 in High Kings), and expanding by
//! the averages added 14.5 of 24 on top (docs/benchmarks.md).
//!
//! The result of a playout counts a win 1, a draw ½ and a loss 0, with a share of the reward
//! for the margin in the Tara games (their points are 2 + the difference of kingdoms or knots,
//! and a big win is worth more than a narrow one). The evaluation reported is the expected
//! score alone (win 1, draw ½), from the side to move, of the chosen move, drawn towards the
//! whole search's average where few playouts stand behind it ([`EVAL_PRIOR`]).
//!
//! Everything is decided by the position, the seed and the number of playouts: the same
//! inputs give the same move on any machine. Only the optional `stop` check (a clock, for a
//! time limit) can end a search early.

use crate::game::board::SQUARES;
use crate::game::playout::{Rng, MAX_PLIES};
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
    /// How often a playout move is the one with the best average result so far in this
    /// search's playouts (0 to 1; the rest are random): the move-average sampling technique.
    pub playout_greed: f64,
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
    let mut list = MoveList::new();
    pos.legal_moves_into(&mut list);
    if list.is_empty() {
        return None;
    }
    let mut tree = Tree::new(settings, root_side, &list);
    let mut playouts = 0u64;
    let limit = settings.playouts.unwrap_or(u64::MAX);
    while playouts < limit {
        if playouts.is_multiple_of(64) && playouts > 0 && stop() {
            break;
        }
        let mut p = pos.clone();
        let at = tree.descend(&mut p);
        if at == NONE {
            break;
        }
        tree.play_out(&mut p, at);
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
    nodes: Vec<Node>,
    scratch: MoveList,
    mast: Mast,
    /// Each side's index and move's MAST key of the iteration's moves, from the root.
    line: Vec<(usize, usize)>,
}

impl<'a> Tree<'a> {
    /// A tree of the root alone, whose position has the moves `list` (not empty).
    fn new(settings: &'a Settings, root_side: Side, list: &MoveList) -> Tree<'a> {
        let mut rng = Rng::new(settings.seed);
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
        Tree {
            settings,
            root_side,
            rng,
            nodes,
            scratch: MoveList::new(),
            mast: Mast::new(),
            line: Vec::with_capacity(256),
        }
    }

    /// Selection: down the tree from the root while the node is fully expanded and has
    /// children, playing the moves on `p`, then the expansion of one new child. Returns the
    /// node reached, or `NONE` when a node of a game in progress has no moves to take.
    fn descend(&mut self, p: &mut Position) -> u32 {
        let mut at = 0u32;
        self.line.clear();
        loop {
            let node = &self.nodes[at as usize];
            if p.outcome().is_some() {
                break;
            }
            if node.untried > 0 {
                if let Some(child) = self.expand(p, at) {
                    return child;
                }
            }
            at = best_child(&self.nodes, at, self.settings.exploration);
            if at == NONE {
                break;
            }
            let n = &self.nodes[at as usize];
            self.line.push((side_index(n.mover), mast_key(n.mv)));
            p.play_unchecked(n.mv);
        }
        at
    }

    /// Expansion: a new child of `at` for its next untried move, played on `p` (the moves are
    /// counted, and their order shuffled, the first time the node is reached); `None` when
    /// the node turns out to have no untried move.
    fn expand(&mut self, p: &mut Position, at: u32) -> Option<u32> {
        self.scratch.clear();
        p.legal_moves_into(&mut self.scratch);
        let n = self.scratch.len();
        if self.nodes[at as usize].untried == u16::MAX {
            let offset = self.rng.below(n.max(1)) as u16;
            let node = &mut self.nodes[at as usize];
            node.untried = n as u16;
            node.offset = offset;
        }
        if self.nodes[at as usize].untried == 0 {
            return None;
        }
        // The untried move with the best playout average (MAST) goes first.
        let mover = p.to_move().unwrap_or(self.root_side);
        let side = side_index(mover);
        let mast = &self.mast;
        let m = next_untried(&self.nodes, at, &self.scratch, |m| {
            mast.value(side, mast_key(m))
        });
        self.nodes[at as usize].untried -= 1;
        self.line.push((side, mast_key(m)));
        p.play_unchecked(m);
        let child = self.nodes.len() as u32;
        let mut new = Node::new(m, mover, at);
        new.next_sibling = self.nodes[at as usize].first_child;
        self.nodes.push(new);
        self.nodes[at as usize].first_child = child;
        Some(child)
    }

    /// Simulation from node `at`, whose position is `p`, then backpropagation of the result
    /// to the tree and to the move averages.
    fn play_out(&mut self, p: &mut Position, at: u32) {
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
        backpropagate(&mut self.nodes, at, |side| results[side_index(side)]);
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
        let mut child = self.nodes[0].first_child;
        while child != NONE {
            let n = &self.nodes[child as usize];
            if let Some(s) = moves.iter_mut().find(|s| s.mv == n.mv) {
                s.visits = u64::from(n.visits);
                if n.visits > 0 {
                    s.eval = n.score / f64::from(n.visits);
                }
            }
            child = n.next_sibling;
        }
        moves
    }
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
/// sampling technique, MAST), else a random one. MAST learns in a few thousand playouts which
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
                let mut best = (f64::NEG_INFINITY, list[0]);
                for &m in list.iter() {
                    let v = mast.value(side, mast_key(m));
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
}

impl Mast {
    fn new() -> Mast {
        Mast {
            sum: [[0.0; MAST_KEYS]; 2],
            n: [[0; MAST_KEYS]; 2],
            mean: [[1.0; MAST_KEYS]; 2],
        }
    }
    #[inline]
    fn value(&self, side: usize, key: usize) -> f64 {
        self.mean[side][key]
    }
    fn add(&mut self, line: &[(usize, usize)], reward: impl Fn(usize) -> f64) {
        for &(side, key) in line {
            self.sum[side][key] += reward(side);
            self.n[side][key] += 1;
            self.mean[side][key] = self.sum[side][key] / f64::from(self.n[side][key]);
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

/// The move to expand next at `at` (which has untried moves): of the moves in `legal` (the
/// node's position's moves) without a child yet, the one `value` rates highest; between equal
/// ones, the first in the node's shuffled order.
fn next_untried(nodes: &[Node], at: u32, legal: &MoveList, value: impl Fn(Move) -> f64) -> Move {
    let node = &nodes[at as usize];
    let n = legal.len();
    let offset = usize::from(node.offset);
    let mut best = (f64::NEG_INFINITY, None);
    for k in 0..n {
        let m = legal[(k + offset) % n];
        let mut child = node.first_child;
        while child != NONE && nodes[child as usize].mv != m {
            child = nodes[child as usize].next_sibling;
        }
        if child != NONE {
            continue;
        }
        let v = value(m);
        if v > best.0 {
            best = (v, Some(m));
        }
    }
    // Every move has a child only if `untried` were wrong; then any move will do.
    best.1.unwrap_or(legal[offset % n])
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::board::Hill;

    fn hill(col: u8, row: u8) -> Hill {
        Hill::new(col, row).expect("a hill of the board")
    }

    #[test]
    fn move_averages_start_at_one_and_average_each_sides_results() {
        let mut mast = Mast::new();
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
    fn the_best_rated_move_without_a_child_is_expanded_next() {
        let moves = [hill(0, 1), hill(3, 3), hill(6, 1)].map(|hill| Move::Build { hill });
        let mut legal = MoveList::new();
        for m in moves {
            legal.push(m);
        }
        let mut nodes = vec![Node::new(Move::Pass, Side::Blue, NONE)];
        // The best-rated move already has a child.
        nodes.push(Node::new(moves[1], Side::Red, 0));
        nodes[0].first_child = 1;
        let rating = |m: Move| match m {
            m if m == moves[0] => 0.2,
            m if m == moves[1] => 0.9,
            _ => 0.7,
        };
        assert_eq!(next_untried(&nodes, 0, &legal, rating), moves[2]);
        // Between equal ratings, the node's shuffled order decides.
        nodes[0].offset = 2;
        assert_eq!(next_untried(&nodes, 0, &legal, |_| 0.5), moves[2]);
        nodes[0].offset = 0;
        assert_eq!(next_untried(&nodes, 0, &legal, |_| 0.5), moves[0]);
    }
}
