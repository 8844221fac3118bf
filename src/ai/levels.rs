//! The five strengths of the AI, and the plain players it is measured against.

use super::endgame::{Solver, Value, LOSS, WIN};
use super::mcts::{search_threads, Found, MoveStat, Settings};
use super::tafl;
use crate::game::playout::Rng;
use crate::game::{GamePosition, Move, Position, Variant};

/// A strength from 1 (weak, but not random) to 5 (the strongest, bounded by time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u8);

impl Level {
    pub const MIN: Level = Level(1);
    pub const MAX: Level = Level(5);

    /// Level `n`, if it is 1 to 5.
    pub fn new(n: u8) -> Option<Level> {
        (1..=5).contains(&n).then_some(Level(n))
    }

    /// The level's number.
    pub fn number(self) -> u8 {
        self.0
    }

    /// The playouts a move gets at this level when no other bound is given: levels 1 to 4
    /// are fixed budgets (each about five times the one below), level 5 has none and is
    /// bounded by its time limit.
    pub fn playouts(self) -> Option<u64> {
        match self.0 {
            1 => Some(40),
            2 => Some(200),
            3 => Some(1_000),
            4 => Some(5_000),
            _ => None,
        }
    }

    /// The positions an Ard Rí move searches at most at this level when no other bound is
    /// given (alpha-beta's work grows by a ply for about eight times the positions): fixed
    /// budgets at levels 1 to 4, none at level 5.
    pub fn positions(self) -> Option<u64> {
        match self.0 {
            1 => Some(40),
            2 => Some(300),
            3 => Some(2_500),
            4 => Some(20_000),
            _ => None,
        }
    }

    /// The search settings of this level with `seed`, bounded as `limit` says.
    pub fn settings(self, seed: u64, limit: Limit) -> Settings {
        Settings {
            playouts: match limit {
                Limit::Level => self.playouts(),
                Limit::Playouts(n) => Some(n),
                Limit::Clock => None,
            },
            exploration: 0.5,
            margin_weight: 0.2,
            seed,
            playout_greed: 0.5,
            // Level 5 shares a position's node between the orders of moves that reach it;
            // levels 1 to 4 keep the tree they were calibrated with.
            transpositions: self.0 == 5,
            // Level 5 tries a node's moves one by one as its playouts grow.
            widening: if self.0 == 5 { 1.0 } else { 0.0 },
            // Level 5 learns the answers to moves in Sacred Hill ([`think_threads`]).
            pair_playouts: 0,
        }
    }
}

/// What ends a search besides its `stop` check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The level's own budget of playouts (none at level 5).
    Level,
    /// Exactly this many playouts.
    Playouts(u64),
    /// Only the `stop` check (a clock).
    Clock,
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The AI's move at `level` for the side to move (`None` once the game is over), bounded by
/// `limit`; `stop` may end the search early (a time limit). With the same position, level,
/// limit and seed, and a `stop` that never fires, the move is always the same.
pub fn think(
    pos: &Position,
    level: Level,
    limit: Limit,
    seed: u64,
    stop: &mut dyn FnMut() -> bool,
) -> Option<Found> {
    think_threads(pos, level, limit, seed, 1, stop)
}

/// [`think`] with up to `threads` threads searching at once. Only a search with no budget of
/// playouts (level 5 against a clock) uses more than one; a budgeted search is the same on one
/// thread whatever `threads` says, so it stays deterministic.
pub fn think_threads(
    pos: &Position,
    level: Level,
    limit: Limit,
    seed: u64,
    threads: usize,
    stop: &mut dyn FnMut() -> bool,
) -> Option<Found> {
    let mut settings = level.settings(seed, limit);
    if let (Position::ArdRi(_), Limit::Level) = (pos, limit) {
        settings.playouts = level.positions();
    }
    // Both searches run a budgeted search on one thread, whatever `threads` says.
    match pos {
        Position::ArdRi(p) => tafl::search(
            p,
            &mut tafl::Bounds {
                nodes: settings.playouts,
                stop,
                seed,
                threads,
                // Level 5 weighs positions by the fitted evaluation; levels 1 to 4 keep the
                // hand-set one their ladder was measured with (each step of it must stay
                // ahead: between strong searches the attackers win nearly every game).
                evaluation: if level == Level::MAX {
                    tafl::Evaluation::Fitted
                } else {
                    tafl::Evaluation::HandSet
                },
            },
        ),
        // Level 5 solves Sacred Hill's endings exactly. In High Kings a position costs the
        // solver about three times as much (the kings, the positions the repetition rule
        // keeps) and a Battle's kings may shuffle for dozens of plies, so the solver proved
        // little there and cost a fifth to a half of the time: 10 of 24 games against the
        // search without it (docs/benchmarks.md).
        Position::Tara(_)
            if level == Level::MAX
                && matches!(pos.variant(), Variant::SacredHill1 | Variant::SacredHill2) =>
        {
            // Sacred Hill's playouts answer the opponent's last hill by what paid after it
            // before. In High Kings the pairs of king moves cost two fifths of the playouts
            // and did not pay for it (docs/benchmarks.md).
            settings.pair_playouts = SACRED_HILL_PAIR_PLAYOUTS;
            solved_search(pos, &settings, threads, stop)
        }
        Position::Tara(_) => search_threads(pos, &settings, threads, stop, None),
    }
}

/// How many playouts a pair of moves needs at level 5 in Sacred Hill before its average
/// guides the playouts ([`Settings::pair_playouts`]).
const SACRED_HILL_PAIR_PLAYOUTS: u32 = 8;

/// The positions level 5's endgame solver may visit before a Sacred Hill move's search, in
/// all: 50 to 75 ms on the development machine (5 to 7.5 million positions a second). Under a
/// budget of playouts it is ten positions a playout, if that is fewer (so a small budget stays
/// small).
const SOLVER_POSITIONS: u64 = 400_000;

/// Level 5's Sacred Hill move: every move is first put to the exact endgame solver ([`Solver`])
/// with a share of [`SOLVER_POSITIONS`], in rounds of growing shares, until each is proven or the
/// positions run out. A move proven to win is played at once. Otherwise the Monte Carlo search
/// chooses among the moves not proven worse than another: those proven to lose are left out
/// while any move is not proven to, and once every move is proven, those below the best.
/// Under a budget the same inputs still give the same move (the solver counts positions).
fn solved_search(
    pos: &Position,
    settings: &Settings,
    threads: usize,
    stop: &mut dyn FnMut() -> bool,
) -> Option<Found> {
    let list = pos.legal_moves();
    if list.len() <= 1 {
        return search_threads(pos, settings, threads, stop, None);
    }
    let total = settings.playouts.map_or(SOLVER_POSITIONS, |n| {
        n.saturating_mul(10).min(SOLVER_POSITIONS)
    });
    let mut values: Vec<Option<Value>> = vec![None; list.len()];
    let mut used = 0u64;
    let mut share = 1_000u64;
    while used < total && values.iter().any(Option::is_none) {
        for (k, &m) in list.iter().enumerate() {
            if values[k].is_some() {
                continue;
            }
            if stop() {
                used = total;
                break;
            }
            let mut solver = Solver::new(share.min(total - used), stop);
            values[k] = solver.value_of(pos, m);
            used += solver.nodes;
            if values[k] == Some(WIN) {
                return Some(proven(&list, &values, m));
            }
            if used >= total {
                break;
            }
        }
        share = share.saturating_mul(4);
    }
    let best = values.iter().flatten().copied().max();
    let open = values.iter().any(Option::is_none);
    let keep = |v: Option<Value>| match v {
        None => true,
        Some(v) => Some(v) == best && (v > LOSS || !open),
    };
    let allowed: Vec<Move> = list
        .iter()
        .zip(&values)
        .filter(|&(_, &v)| keep(v))
        .map(|(&m, _)| m)
        .collect();
    let allowed = if allowed.is_empty() {
        list.to_vec()
    } else {
        allowed
    };
    let mut found = search_threads(pos, settings, threads, stop, Some(&allowed))?;
    // The moves left out stay in the list the callers read (an analysis counts the moves to
    // tell a forced one), unvisited, at their proven value.
    for (&m, &v) in list.iter().zip(&values) {
        if !allowed.contains(&m) {
            found.moves.push(unvisited(m, v));
        }
    }
    if !open {
        found.eval = best.map_or(found.eval, score);
    }
    Some(found)
}

/// A proven value as an expected score (a loss 0, a draw ½, a win 1).
fn score(v: Value) -> f64 {
    f64::from(v + 1) / 2.0
}

/// A move the Monte Carlo search did not visit, at its proven value `v` (½ where unproven).
fn unvisited(mv: Move, v: Option<Value>) -> MoveStat {
    MoveStat {
        mv,
        visits: 0,
        eval: v.map_or(0.5, score),
    }
}

/// What a search that proved `chosen` wins reports: no playouts, every move at its proven
/// value (½ where unproven), the winning move first.
fn proven(list: &[Move], values: &[Option<Value>], chosen: Move) -> Found {
    let mut moves: Vec<MoveStat> = list
        .iter()
        .zip(values)
        .map(|(&mv, &v)| unvisited(mv, v))
        .collect();
    moves.sort_by_key(|s| s.mv != chosen);
    Found {
        chosen,
        eval: 1.0,
        playouts: 0,
        moves,
    }
}

/// A uniformly random legal move.
pub fn random_move(pos: &Position, rng: &mut Rng) -> Option<Move> {
    let moves = pos.legal_moves();
    (!moves.is_empty()).then(|| moves[rng.below(moves.len())])
}

/// The greedy one-ply player: a move that wins at once if there is one; otherwise the move
/// that most improves the mover's standing one ply ahead (Tara: kingdoms or knots by the
/// game's scoring, then kings captured, then territory, each as the difference to the
/// opponent; Ard Rí: pieces on the board, own minus the opponent's, and the king's distance
/// to a corner), ties broken at random.
pub fn greedy_move(pos: &Position, rng: &mut Rng) -> Option<Move> {
    let me = pos.to_move()?;
    let moves = pos.legal_moves();
    let mut best: (i64, Vec<Move>) = (i64::MIN, Vec::new());
    for &m in moves.iter() {
        let mut p = pos.clone();
        p.play_unchecked(m);
        let v = match p.outcome() {
            Some(o) if o.winner == Some(me) => i64::MAX,
            Some(o) if o.winner.is_none() => 0,
            Some(_) => i64::MIN + 1,
            None => standing(&p, me),
        };
        if v > best.0 {
            best = (v, vec![m]);
        } else if v == best.0 {
            best.1.push(m);
        }
    }
    (!best.1.is_empty()).then(|| best.1[rng.below(best.1.len())])
}

/// How well `me` stands in `pos`, for the greedy player: higher is better.
fn standing(pos: &Position, me: crate::game::Side) -> i64 {
    let opp = me.opponent();
    if let Some(c) = pos.side_counts() {
        // Tara: kingdoms (or knots) first, then kings captured, then territory.
        let knots = pos.options().scoring == crate::game::Scoring::Knots;
        let (a, b) = (c[me], c[opp]);
        let main = if knots {
            i64::from(a.knots) - i64::from(b.knots)
        } else {
            i64::from(a.kingdoms) - i64::from(b.kingdoms)
        };
        let kings = i64::from(a.kings_captured) - i64::from(b.kings_captured);
        let territory = i64::from(a.territory) - i64::from(b.territory);
        main * 10_000 + kings * 100 + territory
    } else if let Some(f) = pos.forces() {
        // Ard Rí: pieces, then the king's way to a corner.
        let (att, def) = (i64::from(f.attackers), i64::from(f.defenders));
        // The king's distance to its nearest corner (0 to 6 on the 7x7 board).
        let k = f.king;
        let (c, r) = (i64::from(k.col()), i64::from(k.row()));
        let corner = c.min(6 - c) + r.min(6 - r);
        let pieces = if me == crate::game::Side::Attackers {
            att - def
        } else {
            def - att
        };
        let king = if me == crate::game::Side::Attackers {
            corner
        } else {
            -corner
        };
        pieces * 100 + king
    } else {
        0
    }
}
