//! An exact solver for the ends of the Tara games: an alpha-beta search to the end of the game
//! over three values (a loss, a draw, a win for the side to move), bounded by a number of
//! positions. Level 5 asks it about each of its Sacred Hill moves before its Monte Carlo
//! search: a move proven to win is played, and moves proven worse than the best proven one
//! are left out of the search, so that a won ending is not let go and a lost one is not walked
//! into when the playouts happen to miss the one reply that decides it.
//!
//! Sacred Hill ends within 45 to 50 plies and its ends are narrow (the Battle of Level 2
//! forces most moves), so its last ten to twenty plies are often solved in a few thousand to a
//! few hundred thousand positions. The solver is exact in High Kings too (its tests cover
//! both), where a Battle's kings may shuffle until the third repetition: a line longer than
//! [`MAX_DEPTH`] plies leaves its move unproven.

use crate::game::{GamePosition, Move, MoveList, Outcome, Position, Side};

/// A proven result for the side that moves: a loss, a draw or a win.
pub type Value = i8;
pub const LOSS: Value = -1;
pub const DRAW: Value = 0;
pub const WIN: Value = 1;

/// How deep the search goes before it gives up on a line (a High Kings Battle may shuffle
/// kings back and forth until the third repetition).
const MAX_DEPTH: usize = 64;

/// A solver bounded by `budget` positions in all and by `stop`, asked every 256 positions.
pub struct Solver<'a> {
    budget: u64,
    /// Positions visited so far.
    pub nodes: u64,
    stop: &'a mut dyn FnMut() -> bool,
    /// Set once the budget, `stop` or [`MAX_DEPTH`] ended the search: every search of a
    /// position after it is `None` (a move that ends the game at once still has its value).
    out: bool,
    lists: Vec<MoveList>,
}

impl<'a> Solver<'a> {
    pub fn new(budget: u64, stop: &'a mut dyn FnMut() -> bool) -> Solver<'a> {
        Solver {
            budget,
            nodes: 0,
            stop,
            out: false,
            lists: Vec::new(),
        }
    }

    /// The value of playing `m` in `pos` (a game in progress) for the side to move there,
    /// when the search can prove it within what is left of its bounds.
    pub fn value_of(&mut self, pos: &Position, m: Move) -> Option<Value> {
        let me = pos.to_move()?;
        let mut p = pos.clone();
        p.play_unchecked(m);
        self.after(&p, me, LOSS, WIN, 0)
    }

    /// The value for `me` of `p`, reached by a move of `me`, within the window
    /// (`alpha`, `beta`) (fail-soft: a value at most `alpha` is an upper bound, one at least
    /// `beta` a lower bound).
    fn after(
        &mut self,
        p: &Position,
        me: Side,
        alpha: Value,
        beta: Value,
        depth: usize,
    ) -> Option<Value> {
        if let Some(o) = p.outcome() {
            return Some(outcome_value(o, me));
        }
        let next = p.to_move()?;
        if next == me {
            self.solve(p, alpha, beta, depth + 1)
        } else {
            self.solve(p, -beta, -alpha, depth + 1).map(|v| -v)
        }
    }

    /// The value of `p` (a game in progress) for its side to move, within (`alpha`, `beta`).
    fn solve(
        &mut self,
        p: &Position,
        mut alpha: Value,
        beta: Value,
        depth: usize,
    ) -> Option<Value> {
        if self.out || depth > MAX_DEPTH {
            self.out = true;
            return None;
        }
        self.nodes += 1;
        if self.nodes > self.budget || (self.nodes.is_multiple_of(256) && (self.stop)()) {
            self.out = true;
            return None;
        }
        let me = p.to_move()?;
        if self.lists.len() <= depth {
            self.lists.resize_with(depth + 1, MoveList::new);
        }
        let mut list = std::mem::take(&mut self.lists[depth]);
        list.clear();
        p.legal_moves_into(&mut list);
        // A move that wins at once, where the game finds one cheaply, is the whole answer.
        if p.decisive_move(&list).is_some() {
            self.lists[depth] = list;
            return Some(WIN);
        }
        let mut best = LOSS;
        for &m in list.iter() {
            let mut c = p.clone();
            c.play_unchecked(m);
            let Some(v) = self.after(&c, me, alpha, beta, depth) else {
                self.lists[depth] = list;
                return None;
            };
            if v > best {
                best = v;
                // (`beta` is at most a win, so a win always ends the loop here.)
                if best >= beta {
                    break;
                }
                alpha = alpha.max(best);
            }
        }
        self.lists[depth] = list;
        Some(best)
    }
}

/// A finished game's value for `me`.
fn outcome_value(o: &Outcome, me: Side) -> Value {
    match o.winner {
        Some(w) if w == me => WIN,
        Some(_) => LOSS,
        None => DRAW,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::playout::{random_game, Rng};
    use crate::game::{GameOptions, Variant};

    /// The value of `pos` for its side to move by trying every line to the end, no pruning;
    /// `None` when a line is longer than `depth` plies.
    fn minimax(pos: &Position, depth: u32) -> Option<Value> {
        let me = pos.to_move().unwrap();
        let mut best = LOSS;
        for &m in pos.legal_moves().iter() {
            let mut c = pos.clone();
            c.play_unchecked(m);
            let v = match c.outcome() {
                Some(o) => outcome_value(o, me),
                _ if depth == 0 => return None,
                None if c.to_move() == Some(me) => minimax(&c, depth - 1)?,
                None => -minimax(&c, depth - 1)?,
            };
            best = best.max(v);
        }
        Some(best)
    }

    /// Random positions `plies_left` plies or so before the end of a random game.
    fn near_the_end(variant: Variant, seed: u64, plies_left: usize) -> Option<Position> {
        let (_, moves) = random_game(GameOptions::new(variant), &mut Rng::new(seed));
        let mut p = Position::new(GameOptions::new(variant));
        for &m in &moves[..moves.len().checked_sub(plies_left)?] {
            p.play_unchecked(m);
        }
        Some(p)
    }

    #[test]
    fn the_solver_agrees_with_plain_minimax_on_every_move_near_the_end() {
        let mut checked = [0; 3];
        for variant in [
            Variant::Hkot1,
            Variant::Hkot2,
            Variant::SacredHill1,
            Variant::SacredHill2,
        ] {
            for seed in 0..12 {
                let Some(pos) = near_the_end(variant, seed, 6) else {
                    continue;
                };
                for &m in pos.legal_moves().iter() {
                    let mut never = || false;
                    // A High Kings Battle may shuffle kings for hundreds of plies before a
                    // third repetition: such lines are left out, as the solver leaves them.
                    let mut solver = Solver::new(200_000, &mut never);
                    let Some(v) = solver.value_of(&pos, m) else {
                        assert!(
                            matches!(variant, Variant::Hkot1 | Variant::Hkot2),
                            "{variant:?} seed {seed} move {m:?}"
                        );
                        continue;
                    };
                    let mut c = pos.clone();
                    c.play_unchecked(m);
                    let me = pos.to_move().unwrap();
                    let exact = match c.outcome() {
                        Some(o) => Some(outcome_value(o, me)),
                        None if c.to_move() == Some(me) => minimax(&c, 40),
                        None => minimax(&c, 40).map(|v| -v),
                    };
                    let Some(exact) = exact else {
                        continue;
                    };
                    assert_eq!(v, exact, "{variant:?} seed {seed} move {m:?}");
                    checked[(v + 1) as usize] += 1;
                }
            }
        }
        // Losses and wins both came up (draws are rare: Sacred Hill has none).
        assert!(checked[0] > 10 && checked[2] > 10, "{checked:?}");
    }

    #[test]
    fn a_budget_too_small_proves_nothing() {
        let pos = near_the_end(Variant::SacredHill1, 3, 20).expect("a long game");
        let m = pos.legal_moves()[0];
        let mut never = || false;
        let mut solver = Solver::new(10, &mut never);
        assert_eq!(solver.value_of(&pos, m), None);
        // And once out, it stays out.
        assert_eq!(solver.value_of(&pos, m), None);
    }
}
