//! Ard Rí, 7x7 tafl (docs/rules.md §8).
//!
//! The position is three bitsets (attackers, defenders, the king's square) on the 7x7 grid of
//! [`board`](super::board). Moves are generated a whole direction at a time by shifting sets.
//!
//! Repetition is tracked cheaply: captures cannot be undone, so a position can only come back
//! while no capture has been made. The position keeps the Zobrist hashes of every position since
//! the last capture and a short list of the hashes that have already occurred twice. Only while
//! that list is non-empty does move generation rule out third occurrences: each hash seen twice
//! differs from the current one by the keys of one step at most, found in a table of the
//! steps by the change they make to the hash, and that step is taken out of the list unless it
//! captures (a capturing move always makes a new position, so it is never ruled out).

use super::board::{
    east, north, south, squares, west, Bits, Hill, Square, ALL, CORNERS, SQUARE_NEIGHBOURS,
};
use super::by_side::BySide;
use super::error::IllegalMove;
#[cfg(test)]
use super::moves::STEP_BACK;
use super::moves::{Move, MoveList};
use super::outcome::Counts;
use super::outcome::{EndReason, Outcome, Points};
use super::phase::Phase;
use super::position::{Captures, Forces, GamePosition};
use super::side::{Side, Team};
use super::variant::{GameOptions, Variant};
use std::fmt;

/// A piece on the Ard Rí board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    Attacker,
    Defender,
    King,
}

impl Piece {
    const fn team(self) -> Team {
        match self {
            Piece::Attacker => Team::Attackers,
            Piece::Defender | Piece::King => Team::Defenders,
        }
    }

    /// Row of [`ZOBRIST`] (the tests' hashing of a step; `step_of_hash_change` reads the rows
    /// back).
    #[cfg(test)]
    const fn zobrist_row(self) -> usize {
        match self {
            Piece::Attacker => 0,
            Piece::Defender => 1,
            Piece::King => 2,
        }
    }
}

/// The throne `d4`.
const THRONE_INDEX: u8 = 3 * 7 + 3;
pub const THRONE: Bits = 1 << THRONE_INDEX;
/// The squares only the king may stop on: the throne and the four corners.
pub const RESTRICTED: Bits = CORNERS | THRONE;
/// Squares with fewer than four neighbours: a king there cannot be captured.
pub const EDGE: Bits = ALL & !(north(ALL) & south(ALL) & east(ALL) & west(ALL));

/// Plies without a capture after which the game is drawn.
pub const MOVE_LIMIT: u32 = 100;

/// The bit of a square named like `c1` (for the constant start position).
const fn bit(name: &[u8; 2]) -> Bits {
    1 << ((name[1] - b'1') as u32 * 7 + (name[0] - b'a') as u32)
}

const START_ATTACKERS: Bits = bit(b"c1")
    | bit(b"d1")
    | bit(b"e1")
    | bit(b"d2")
    | bit(b"c7")
    | bit(b"d7")
    | bit(b"e7")
    | bit(b"d6")
    | bit(b"a3")
    | bit(b"a4")
    | bit(b"a5")
    | bit(b"b4")
    | bit(b"g3")
    | bit(b"g4")
    | bit(b"g5")
    | bit(b"f4");
const START_DEFENDERS: Bits = bit(b"c3")
    | bit(b"d3")
    | bit(b"e3")
    | bit(b"c4")
    | bit(b"e4")
    | bit(b"c5")
    | bit(b"d5")
    | bit(b"e5");

const fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const fn zobrist_keys() -> ([[u64; 49]; 3], u64) {
    let mut state = 0x41_7264_5269_u64; // "ArdRi"
    let mut keys = [[0; 49]; 3];
    let mut p = 0;
    while p < 3 {
        let mut sq = 0;
        while sq < 49 {
            keys[p][sq] = splitmix64(&mut state);
            sq += 1;
        }
        p += 1;
    }
    (keys, splitmix64(&mut state))
}

const ZOBRIST_ALL: ([[u64; 49]; 3], u64) = zobrist_keys();
/// Zobrist keys: `[attacker, defender, king][square]`.
static ZOBRIST: [[u64; 49]; 3] = ZOBRIST_ALL.0;
/// Xored in when the defenders are to move.
const ZOBRIST_DEFENDERS_TO_MOVE: u64 = ZOBRIST_ALL.1;

/// Size of [`STEP_OF_HASH_CHANGE`], a power of two.
const HASH_CHANGES: usize = 1024;

/// Every step of a piece between two neighbouring squares `a < b` by the change it makes to
/// the hash (`ZOBRIST[row][a] ^ ZOBRIST[row][b]`, the same either way): open addressing on the
/// change's low bits, `(change, row, a, b)`, row 3 for an empty slot. Building it checks that
/// no two steps change the hash alike, so a change names at most one step.
static STEP_OF_HASH_CHANGE: [(u64, u8, u8, u8); HASH_CHANGES] = hash_changes();

const fn hash_changes() -> [(u64, u8, u8, u8); HASH_CHANGES] {
    let mut table = [(0, 3, 0, 0); HASH_CHANGES];
    let mut row = 0;
    while row < 3 {
        let mut a = 0;
        while a < 49 {
            // The neighbour east (same row of the board), then north.
            let mut k = 0;
            while k < 2 {
                let b = if k == 0 { a + 1 } else { a + 7 };
                if (k == 0 && a % 7 < 6) || (k == 1 && b < 49) {
                    let change = ZOBRIST_ALL.0[row][a] ^ ZOBRIST_ALL.0[row][b];
                    let mut i = change as usize % HASH_CHANGES;
                    while table[i].1 != 3 {
                        assert!(table[i].0 != change, "two steps change the hash alike");
                        i = (i + 1) % HASH_CHANGES;
                    }
                    table[i] = (change, row as u8, a as u8, b as u8);
                }
                k += 1;
            }
            a += 1;
        }
        row += 1;
    }
    table
}

/// The step (piece and its two squares, in either direction) that changes the hash by
/// `change`, if there is one.
#[inline]
fn step_of_hash_change(change: u64) -> Option<(Piece, u32, u32)> {
    let mut i = change as usize % HASH_CHANGES;
    loop {
        let (key, row, a, b) = STEP_OF_HASH_CHANGE[i];
        if row == 3 {
            return None;
        }
        if key == change {
            let piece = match row {
                0 => Piece::Attacker,
                1 => Piece::Defender,
                _ => Piece::King,
            };
            return Some((piece, u32::from(a), u32::from(b)));
        }
        i = (i + 1) % HASH_CHANGES;
    }
}

/// Hashes since the last capture: at most one per ply of the move limit, plus the first.
const HISTORY_CAP: usize = MOVE_LIMIT as usize + 1;
/// Hashes seen twice: each needs two entries of the history.
const TWICE_CAP: usize = HISTORY_CAP / 2 + 1;

#[inline]
fn square(index: u32) -> Square {
    match Square::from_index(index as u8) {
        Some(s) => s,
        None => unreachable!("square index {index} off the board"),
    }
}

/// The pieces of `enemy` captured by a move of `mover` that has just arrived on `to`, given the
/// board after the move (`anvil`: the mover's own pieces plus the squares hostile to `enemy`).
#[inline]
fn custodial(to: Bits, enemy: Bits, anvil: Bits) -> Bits {
    let mut cap = south(north(north(to) & enemy) & anvil);
    cap |= north(south(south(to) & enemy) & anvil);
    cap |= west(east(east(to) & enemy) & anvil);
    cap |= east(west(west(to) & enemy) & anvil);
    cap
}

/// A position of Ard Rí, with everything needed to continue the game: the side to move, the
/// counters of the move limit and the positions that repetition forbids.
#[derive(Clone)]
pub struct ArdRiPosition {
    attackers: Bits,
    /// The defenders without the king.
    defenders: Bits,
    king: u8,
    to_move: Team,
    ply: u32,
    quiet: u32,
    last_captures: Bits,
    hash: u64,
    outcome: Option<Outcome>,
    history_len: u8,
    twice_len: u8,
    /// A filter of the hashes in `history`: bit `hash % 256` is set for each. A clear bit
    /// means the hash is not in the history, so most plies look no further.
    seen: [u64; 4],
    /// Hashes of the positions since the last capture (or the start), the current one last.
    history: [u64; HISTORY_CAP],
    /// Hashes that occur twice in `history`: a move recreating one of them is illegal.
    twice: [u64; TWICE_CAP],
}

impl Default for ArdRiPosition {
    fn default() -> ArdRiPosition {
        ArdRiPosition::new()
    }
}

impl ArdRiPosition {
    /// The start position: attackers to move, ply 0.
    pub fn new() -> ArdRiPosition {
        ArdRiPosition::from_parts(
            START_ATTACKERS,
            START_DEFENDERS,
            THRONE_INDEX,
            Team::Attackers,
        )
    }

    /// A position from its pieces, counted as occurring for the first time. The caller ensures
    /// the sets are disjoint and on the board.
    fn from_parts(attackers: Bits, defenders: Bits, king: u8, to_move: Team) -> ArdRiPosition {
        let mut pos = ArdRiPosition {
            attackers,
            defenders: defenders & !(1 << king),
            king,
            to_move,
            ply: 0,
            quiet: 0,
            last_captures: 0,
            hash: 0,
            outcome: None,
            history_len: 1,
            twice_len: 0,
            seen: [0; 4],
            history: [0; HISTORY_CAP],
            twice: [0; TWICE_CAP],
        };
        pos.hash = pos.compute_hash();
        pos.history[0] = pos.hash;
        pos.seen = seen_filter(pos.hash);
        if CORNERS & (1 << king) != 0 {
            pos.outcome = Some(win(Team::Defenders, EndReason::KingEscaped));
        } else if !pos.any_legal_move() {
            pos.outcome = Some(win(to_move.opponent(), EndReason::NoMoves));
        }
        pos
    }

    /// A position read from the public notation: the pieces, the side to move, the move
    /// limit's counter and the ply number, with no repetition history before it. The game is
    /// over at once if the king stands on a corner (escaped), is surrounded on four sides
    /// away from the edge (captured), the counter has reached the move limit (drawn), or the
    /// side to move has no legal move. The caller ensures the sets are disjoint, on the board
    /// and off the restricted squares.
    pub(super) fn from_setup(
        attackers: Bits,
        defenders: Bits,
        king: u8,
        to_move: Team,
        plies_without_capture: u32,
        ply: u32,
    ) -> ArdRiPosition {
        let mut pos = ArdRiPosition::from_parts(attackers, defenders, king, to_move);
        pos.ply = ply;
        pos.quiet = plies_without_capture;
        let king_bit: Bits = 1 << king;
        let neighbours = SQUARE_NEIGHBOURS[usize::from(king)];
        pos.outcome = if king_bit & CORNERS != 0 {
            Some(win(Team::Defenders, EndReason::KingEscaped))
        } else if king_bit & EDGE == 0 && neighbours & !(attackers | THRONE) == 0 {
            Some(win(Team::Attackers, EndReason::KingCaptured))
        } else if plies_without_capture >= MOVE_LIMIT {
            Some(Outcome {
                winner: None,
                reason: EndReason::MoveLimit,
                points: BySide::both(Points::HALF),
            })
        } else if !pos.any_legal_move() {
            Some(win(to_move.opponent(), EndReason::NoMoves))
        } else {
            None
        };
        pos
    }

    /// Plies played so far.
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The side to move (once the game is over: the side that would have moved next).
    pub fn to_move(&self) -> Team {
        self.to_move
    }

    /// The result, once the game is over.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// The squares of the attackers.
    pub fn attackers(&self) -> Bits {
        self.attackers
    }

    /// The squares of the defenders, without the king.
    pub fn defenders(&self) -> Bits {
        self.defenders
    }

    /// The king's square; after his capture, the square he was captured on.
    pub fn king(&self) -> Square {
        square(u32::from(self.king))
    }

    /// The piece on a square, if any. A captured king is still reported on his square.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let b = sq.bit();
        if self.attackers & b != 0 {
            Some(Piece::Attacker)
        } else if self.defenders & b != 0 {
            Some(Piece::Defender)
        } else if sq.index() == self.king {
            Some(Piece::King)
        } else {
            None
        }
    }

    /// Consecutive plies, up to now, in which no piece was captured (the move limit's counter).
    pub fn plies_without_capture(&self) -> u32 {
        self.quiet
    }

    /// The squares of the pieces the last move captured custodially (0 at the start).
    pub fn last_captures(&self) -> Bits {
        self.last_captures
    }

    /// Zobrist hash of the pieces and the side to move.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Appends every legal move to `out` (nothing once the game is over).
    pub fn legal_moves_into(&self, out: &mut MoveList) {
        if self.outcome.is_some() {
            return;
        }
        if self.twice_len == 0 {
            self.push_moves(out, &[0; 5]);
        } else {
            self.push_moves(out, &self.third_repetition_targets());
        }
    }

    /// Whether the side to move has a legal move (false once the game is over).
    pub fn has_legal_move(&self) -> bool {
        self.outcome.is_none() && self.any_legal_move()
    }

    /// Why `m` is illegal here, or `Ok` when it is one of [`ArdRiPosition::legal_moves_into`].
    pub fn check(&self, m: Move) -> Result<(), IllegalMove> {
        if self.outcome.is_some() {
            return Err(IllegalMove::GameOver);
        }
        let Move::Step { from, to } = m else {
            return Err(IllegalMove::WrongGame {
                game: "Ard Rí",
                example: "d2-d3",
            });
        };
        let Some(piece) = self.piece_at(from) else {
            return Err(IllegalMove::EmptySquare { square: from });
        };
        if piece.team() != self.to_move {
            return Err(IllegalMove::NotYourPiece {
                square: from,
                owner: piece.team(),
                to_move: self.to_move,
            });
        }
        if SQUARE_NEIGHBOURS[usize::from(from.index())] & to.bit() == 0 {
            return Err(IllegalMove::NotOneStep { from, to });
        }
        if self.occupied() & to.bit() != 0 {
            return Err(IllegalMove::SquareOccupied { square: to });
        }
        if piece != Piece::King && RESTRICTED & to.bit() != 0 {
            return Err(IllegalMove::RestrictedSquare { square: to });
        }
        if self.twice_len != 0 {
            let (f, t) = (u32::from(from.index()), u32::from(to.index()));
            if self.third_repetition_targets()[target_set(piece, f, t)] & to.bit() != 0 {
                return Err(IllegalMove::ThirdRepetition { from, to });
            }
        }
        let mut list = MoveList::new();
        self.legal_moves_into(&mut list);
        if list.contains(&m) {
            Ok(())
        } else {
            let mut examples: Vec<String> = list.iter().map(|m| m.to_string()).collect();
            examples.sort_unstable();
            examples.truncate(5);
            Err(IllegalMove::NotLegal {
                examples: examples.join(", "),
            })
        }
    }

    /// A move of `moves` (legal here) that wins at once, if there is one: the king onto a
    /// corner, or an attacker closing the last side around the king (as
    /// [`ArdRiPosition::play_unchecked`] decides them).
    pub fn winning_step(&self, moves: &[Move]) -> Option<Move> {
        let king = usize::from(self.king);
        match self.to_move {
            Team::Defenders => moves.iter().copied().find(|m| {
                matches!(m, Move::Step { from, to } if from.index() == self.king && to.bit() & CORNERS != 0)
            }),
            Team::Attackers => {
                if (1 << self.king) & EDGE != 0 {
                    return None;
                }
                moves.iter().copied().find(|m| match *m {
                    Move::Step { from, to } => {
                        let after = self.attackers ^ from.bit() ^ to.bit();
                        SQUARE_NEIGHBOURS[king] & to.bit() != 0
                            && SQUARE_NEIGHBOURS[king] & !(after | THRONE) == 0
                    }
                    _ => false,
                })
            }
        }
    }

    /// Plays a move known to be legal (one of [`ArdRiPosition::legal_moves_into`]): moves the
    /// piece, removes the captured pieces and decides whether the game is over.
    /// Does nothing once the game is over or for a move that is not a step.
    pub fn play_unchecked(&mut self, m: Move) {
        let Move::Step { from, to } = m else {
            debug_assert!(false, "{m} is not an Ard Rí move");
            return;
        };
        if self.outcome.is_some() {
            debug_assert!(false, "{m} played after the end of the game");
            return;
        }
        let (f, t) = (usize::from(from.index()), usize::from(to.index()));
        let to_bit = to.bit();
        let step = from.bit() | to_bit;
        let mover = self.to_move;
        let mut hash = self.hash ^ ZOBRIST_DEFENDERS_TO_MOVE;
        let captured = match mover {
            Team::Attackers => {
                self.attackers ^= step;
                hash ^= ZOBRIST[0][f] ^ ZOBRIST[0][t];
                let king_bit = 1 << self.king;
                let cap = custodial(
                    to_bit,
                    self.defenders,
                    self.attackers | (RESTRICTED & !king_bit),
                );
                self.defenders &= !cap;
                for sq in squares(cap) {
                    hash ^= ZOBRIST[1][usize::from(sq)];
                }
                cap
            }
            Team::Defenders => {
                if f == usize::from(self.king) {
                    self.king = to.index();
                    hash ^= ZOBRIST[2][f] ^ ZOBRIST[2][t];
                } else {
                    self.defenders ^= step;
                    hash ^= ZOBRIST[1][f] ^ ZOBRIST[1][t];
                }
                let cap = custodial(
                    to_bit,
                    self.attackers,
                    self.defenders | RESTRICTED | 1 << self.king,
                );
                self.attackers &= !cap;
                for sq in squares(cap) {
                    hash ^= ZOBRIST[0][usize::from(sq)];
                }
                cap
            }
        };
        self.hash = hash;
        self.last_captures = captured;
        self.to_move = mover.opponent();
        self.ply += 1;
        if captured != 0 {
            self.quiet = 0;
            self.history[0] = hash;
            self.history_len = 1;
            self.twice_len = 0;
            self.seen = seen_filter(hash);
        } else {
            self.quiet += 1;
            self.remember(hash);
        }

        let king = usize::from(self.king);
        let king_bit = 1 << self.king;
        if mover == Team::Defenders {
            if king_bit & CORNERS != 0 {
                self.outcome = Some(win(Team::Defenders, EndReason::KingEscaped));
                return;
            }
        } else if SQUARE_NEIGHBOURS[king] & to_bit != 0
            && king_bit & EDGE == 0
            && SQUARE_NEIGHBOURS[king] & !(self.attackers | THRONE) == 0
        {
            self.outcome = Some(win(Team::Attackers, EndReason::KingCaptured));
            return;
        }
        if self.quiet >= MOVE_LIMIT {
            self.outcome = Some(Outcome {
                winner: None,
                reason: EndReason::MoveLimit,
                points: BySide::both(Points::HALF),
            });
            return;
        }
        if !self.any_legal_move() {
            self.outcome = Some(win(mover, EndReason::NoMoves));
        }
    }

    /// Adds a quiet move's new position to the history, noting a second occurrence.
    #[inline]
    fn remember(&mut self, hash: u64) {
        let len = usize::from(self.history_len);
        let (word, bit) = seen_bit(hash);
        let maybe_seen = self.seen[word] & bit != 0;
        self.seen[word] |= bit;
        // The same side is to move only at every other entry, and a position cannot come back
        // after two plies (each side moved a different piece), so the nearest candidate is
        // four plies back: index len - 4.
        let mut i = if maybe_seen { len.wrapping_sub(4) } else { len };
        while i < len {
            if self.history[i] == hash {
                let n = usize::from(self.twice_len);
                if n < TWICE_CAP {
                    self.twice[n] = hash;
                    self.twice_len += 1;
                }
                break;
            }
            i = i.wrapping_sub(2);
        }
        if len < HISTORY_CAP {
            self.history[len] = hash;
            self.history_len += 1;
        }
    }

    #[inline]
    fn occupied(&self) -> Bits {
        self.attackers | self.defenders | 1 << self.king
    }

    /// Whether moving `piece` from `from` to `to` would make a position for the third time,
    /// by hashing the position it makes: the tests' reference for
    /// [`ArdRiPosition::third_repetition_targets`].
    #[cfg(test)]
    fn repeats_third_time(&self, piece: Piece, from: u32, to: u32) -> bool {
        let row = piece.zobrist_row();
        let (f, t) = (from as usize, to as usize);
        let hash = self.hash ^ ZOBRIST_DEFENDERS_TO_MOVE ^ ZOBRIST[row][f] ^ ZOBRIST[row][t];
        if !self.twice[..usize::from(self.twice_len)].contains(&hash) {
            return false;
        }
        // Same pieces on the same squares, unless the move captures (then it is a new position).
        self.captures_by(piece, from, to) == 0
    }

    /// The pieces that `piece` stepping from `from` to `to` would capture custodially.
    #[inline]
    fn captures_by(&self, piece: Piece, from: u32, to: u32) -> Bits {
        let step = 1 << from | 1 << to;
        let to_bit = 1 << to;
        match piece {
            Piece::Attacker => {
                let attackers = self.attackers ^ step;
                custodial(
                    to_bit,
                    self.defenders,
                    attackers | (RESTRICTED & !(1 << self.king)),
                )
            }
            Piece::Defender => custodial(
                to_bit,
                self.attackers,
                (self.defenders ^ step) | RESTRICTED | 1 << self.king,
            ),
            Piece::King => custodial(to_bit, self.attackers, self.defenders | RESTRICTED | to_bit),
        }
    }

    /// The pieces a step of the side to move would capture custodially, without playing it
    /// (0 for a move that is not a step of the side to move). For the AI's move ordering.
    pub fn step_captures(&self, m: Move) -> Bits {
        let Move::Step { from, to } = m else {
            return 0;
        };
        match self.piece_at(from) {
            Some(piece) if piece.team() == self.to_move => {
                self.captures_by(piece, u32::from(from.index()), u32::from(to.index()))
            }
            _ => 0,
        }
    }

    /// What the side to move's steps start from and go to, repetition aside: its pieces but
    /// the king, the empty squares they may stop on, and the king's destinations (none for the
    /// attackers).
    #[inline]
    fn candidates(&self) -> (Bits, Bits, Bits) {
        let empty = ALL & !self.occupied();
        let open = empty & !RESTRICTED;
        match self.to_move {
            Team::Attackers => (self.attackers, open, 0),
            Team::Defenders => (
                self.defenders,
                open,
                SQUARE_NEIGHBOURS[usize::from(self.king)] & empty,
            ),
        }
    }

    /// Whether the side to move has a legal move, ignoring a recorded outcome.
    #[inline]
    fn any_legal_move(&self) -> bool {
        if self.twice_len != 0 {
            return self.any_legal_move_but_third_repetitions();
        }
        let (pieces, open, king_steps) = self.candidates();
        dilate_to(pieces) & open != 0 || king_steps != 0
    }

    /// [`ArdRiPosition::any_legal_move`] when some positions have occurred twice.
    #[inline(never)]
    fn any_legal_move_but_third_repetitions(&self) -> bool {
        let (pieces, open, king_steps) = self.candidates();
        let [n, s, e, w, k] = self.third_repetition_targets();
        north(pieces) & open & !n != 0
            || south(pieces) & open & !s != 0
            || east(pieces) & open & !e != 0
            || west(pieces) & open & !w != 0
            || king_steps & !k != 0
    }

    /// The steps of the side to move that would make a position for the third time, as their
    /// destinations by direction (north, south, east, west, the order of `moves::STEP_BACK`,
    /// for the pieces other than the king; then the king's): for each hash seen twice, the step
    /// whose keys change the current hash into it, if that step is a candidate (onto an empty
    /// square it may stop on) and captures nothing.
    fn third_repetition_targets(&self) -> [Bits; 5] {
        let mut targets = [0; 5];
        let occupied = self.occupied();
        for &h in &self.twice[..usize::from(self.twice_len)] {
            let Some((piece, a, b)) =
                step_of_hash_change(h ^ self.hash ^ ZOBRIST_DEFENDERS_TO_MOVE)
            else {
                continue;
            };
            if piece.team() != self.to_move {
                continue;
            }
            let own = match piece {
                Piece::Attacker => self.attackers,
                Piece::Defender => self.defenders,
                Piece::King => 1 << self.king,
            };
            let (from, to) = if own >> a & 1 != 0 && occupied >> b & 1 == 0 {
                (a, b)
            } else if own >> b & 1 != 0 && occupied >> a & 1 == 0 {
                (b, a)
            } else {
                continue;
            };
            if piece != Piece::King && RESTRICTED >> to & 1 != 0 {
                continue;
            }
            if self.captures_by(piece, from, to) != 0 {
                continue;
            }
            targets[target_set(piece, from, to)] |= 1 << to;
        }
        targets
    }

    /// Generates the steps of the side to move that pass `keep`, handing each to `emit`; stops
    /// and returns true as soon as `emit` returns true. The tests' reference for
    /// [`ArdRiPosition::push_moves`] and the repetition rule.
    #[cfg(test)]
    fn generate(
        &self,
        keep: impl Fn(Piece, u32, u32) -> bool,
        mut emit: impl FnMut(Move) -> bool,
    ) -> bool {
        let empty = ALL & !self.occupied();
        let open = empty & !RESTRICTED;
        let (pieces, piece) = match self.to_move {
            Team::Attackers => (self.attackers, Piece::Attacker),
            Team::Defenders => (self.defenders, Piece::Defender),
        };
        // (destinations, index offset from destination back to origin)
        let dirs: [(Bits, i32); 4] = [
            (north(pieces) & open, STEP_BACK[0]),
            (south(pieces) & open, STEP_BACK[1]),
            (east(pieces) & open, STEP_BACK[2]),
            (west(pieces) & open, STEP_BACK[3]),
        ];
        for (targets, back) in dirs {
            for t in squares(targets) {
                let to = u32::from(t);
                let from = to.wrapping_add_signed(back);
                if keep(piece, from, to) {
                    let m = Move::Step {
                        from: square(from),
                        to: square(to),
                    };
                    if emit(m) {
                        return true;
                    }
                }
            }
        }
        if self.to_move == Team::Defenders {
            let from = u32::from(self.king);
            for t in squares(SQUARE_NEIGHBOURS[from as usize] & empty) {
                let to = u32::from(t);
                if keep(Piece::King, from, to) {
                    let m = Move::Step {
                        from: square(from),
                        to: square(to),
                    };
                    if emit(m) {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Appends every step of the side to move onto a square it may stop on but those onto the
    /// `excluded` destinations (by direction, then the king's; see
    /// [`ArdRiPosition::third_repetition_targets`]): the steps north, south, east and west,
    /// each direction by destination, then the king's (by destination), each step copied from
    /// a table.
    fn push_moves(&self, out: &mut MoveList, excluded: &[Bits; 5]) {
        let (pieces, open, king_steps) = self.candidates();
        // In the order of `STEP_BACK`.
        out.push_steps_4([
            north(pieces) & open & !excluded[0],
            south(pieces) & open & !excluded[1],
            east(pieces) & open & !excluded[2],
            west(pieces) & open & !excluded[3],
        ]);
        if self.to_move == Team::Defenders {
            out.push_king_steps(self.king, king_steps & !excluded[4]);
        }
    }

    fn compute_hash(&self) -> u64 {
        let mut h = ZOBRIST[2][usize::from(self.king)];
        for sq in squares(self.attackers) {
            h ^= ZOBRIST[0][usize::from(sq)];
        }
        for sq in squares(self.defenders) {
            h ^= ZOBRIST[1][usize::from(sq)];
        }
        if self.to_move == Team::Defenders {
            h ^= ZOBRIST_DEFENDERS_TO_MOVE;
        }
        h
    }
}

/// Which of [`ArdRiPosition::third_repetition_targets`]'s sets holds a step of `piece` from
/// `from` to `to` (neighbours): its direction (of `moves::STEP_BACK`), or 4 for the king's.
#[inline]
fn target_set(piece: Piece, from: u32, to: u32) -> usize {
    match piece {
        Piece::King => 4,
        _ if to == from + 7 => 0,
        _ if to + 7 == from => 1,
        _ if to == from + 1 => 2,
        _ => 3,
    }
}

/// The word and bit of `hash` in [`ArdRiPosition::seen`].
#[inline]
fn seen_bit(hash: u64) -> (usize, u64) {
    ((hash >> 6) as usize & 3, 1 << (hash & 63))
}

/// A filter of history holding only `hash`.
#[inline]
fn seen_filter(hash: u64) -> [u64; 4] {
    let mut seen = [0; 4];
    let (word, bit) = seen_bit(hash);
    seen[word] = bit;
    seen
}

/// Every square orthogonally next to a square of `b`.
#[inline]
fn dilate_to(b: Bits) -> Bits {
    north(b) | south(b) | east(b) | west(b)
}

fn win(team: Team, reason: EndReason) -> Outcome {
    let mut points = BySide::both(Points(0));
    points[team] = Points::whole(1);
    Outcome {
        winner: Some(team.side()),
        reason,
        points,
    }
}

impl GamePosition for ArdRiPosition {
    #[inline]
    fn options(&self) -> GameOptions {
        GameOptions::new(Variant::ArdRi)
    }
    #[inline]
    fn ply(&self) -> u32 {
        self.ply
    }
    #[inline]
    fn turn(&self) -> Side {
        self.to_move.side()
    }
    #[inline]
    fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }
    #[inline]
    fn phase_to_move(&self) -> Option<Phase> {
        None
    }
    #[inline]
    fn legal_moves_into(&self, out: &mut MoveList) {
        ArdRiPosition::legal_moves_into(self, out)
    }
    #[inline]
    fn check(&self, m: Move) -> Result<(), IllegalMove> {
        ArdRiPosition::check(self, m)
    }
    #[inline]
    fn play_unchecked(&mut self, m: Move) {
        ArdRiPosition::play_unchecked(self, m)
    }
    fn position_notation(&self) -> Option<String> {
        Some(self.to_notation())
    }
    fn side_counts(&self) -> Option<BySide<Counts>> {
        None
    }
    /// Ard Rí: 1 to 0.
    fn forfeit_points(&self, winner: Side) -> BySide<Points> {
        let mut points = BySide::both(Points(0));
        points[winner] = Points::whole(1);
        points
    }
    fn forces(&self) -> Option<Forces> {
        Some(Forces {
            attackers: self.attackers.count_ones(),
            defenders: self.defenders.count_ones(),
            king: self.king(),
            plies_without_capture: self.quiet,
        })
    }
    /// The king's capture is not counted: it ends the game.
    fn last_move_captures(&self) -> Captures {
        Captures {
            kings: 0,
            pieces: self.last_captures.count_ones(),
        }
    }
    fn is_last_turn(&self) -> bool {
        false
    }
    fn king_that_must_move(&self) -> Option<Hill> {
        None
    }
    #[inline]
    fn decisive_move(&self, legal: &[Move]) -> Option<Move> {
        self.winning_step(legal)
    }
}

impl fmt::Debug for ArdRiPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "ArdRiPosition {{ ply: {}, to_move: {}, plies_without_capture: {}, hash: {:#018x}, outcome: {:?}",
            self.ply, self.to_move, self.quiet, self.hash, self.outcome
        )?;
        for row in (0..7u8).rev() {
            write!(f, "  {} ", row + 1)?;
            for col in 0..7u8 {
                let sq = Square::new(col, row).expect("on the board");
                let c = match self.piece_at(sq) {
                    Some(Piece::Attacker) => 'A',
                    Some(Piece::Defender) => 'D',
                    Some(Piece::King) => 'K',
                    None if RESTRICTED & sq.bit() != 0 => '+',
                    None => '.',
                };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "    abcdefg")?;
        write!(
            f,
            "  history: {:x?}, seen twice: {:x?} }}",
            &self.history[..usize::from(self.history_len)],
            &self.twice[..usize::from(self.twice_len)]
        )
    }
}

#[cfg(test)]
impl ArdRiPosition {
    /// A hand-built position from a diagram: seven rows, rank 7 first, files a–g left to right,
    /// `A` attacker, `D` defender, `K` king, `.` empty (blank lines and indentation ignored).
    pub(crate) fn from_diagram(diagram: &str, to_move: Team) -> ArdRiPosition {
        let rows: Vec<&str> = diagram
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(rows.len(), 7, "a diagram has seven rows");
        let (mut attackers, mut defenders, mut king) = (0, 0, None);
        for (r, line) in rows.iter().enumerate() {
            assert_eq!(line.len(), 7, "row {line:?} must have seven squares");
            for (col, c) in line.chars().enumerate() {
                let b: Bits = 1 << ((6 - r) * 7 + col);
                match c {
                    'A' => attackers |= b,
                    'D' => defenders |= b,
                    'K' => {
                        assert!(king.is_none(), "two kings");
                        king = Some(b.trailing_zeros() as u8);
                    }
                    '.' => {}
                    _ => panic!("unknown piece {c:?}"),
                }
            }
        }
        ArdRiPosition::from_parts(attackers, defenders, king.expect("a king"), to_move)
    }

    /// The same position with the move-limit counter set (as if `n` quiet plies had been
    /// played before it).
    pub(crate) fn with_plies_without_capture(mut self, n: u32) -> ArdRiPosition {
        self.quiet = n;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_winning_step_is_a_move_that_wins_at_once_and_found_whenever_one_exists() {
        use crate::game::playout::Rng;
        let mut checked = 0;
        for seed in 0..40 {
            let mut rng = Rng::new(seed);
            let mut pos = ArdRiPosition::new();
            let mut list = MoveList::new();
            while pos.outcome().is_none() && pos.ply() < 400 {
                list.clear();
                pos.legal_moves_into(&mut list);
                let wins: Vec<Move> = list
                    .iter()
                    .copied()
                    .filter(|&m| {
                        let mut p = pos.clone();
                        p.play_unchecked(m);
                        p.outcome()
                            .is_some_and(|o| o.winner == Some(pos.to_move().into()))
                    })
                    .collect();
                match pos.winning_step(&list) {
                    Some(m) => assert!(wins.contains(&m), "{m} does not win"),
                    None => assert!(wins.is_empty(), "missed {wins:?}"),
                }
                checked += usize::from(!wins.is_empty());
                pos.play_unchecked(list[rng.below(list.len())]);
            }
        }
        // Random games offer many escapes and some captures.
        assert!(checked > 20, "{checked}");
    }

    #[test]
    fn the_winning_step_closes_the_last_side_around_the_king() {
        let pos = ArdRiPosition::from_notation("7/2a4/1aka3/7/2a4/7/7 a 0 0").unwrap();
        let mut list = MoveList::new();
        pos.legal_moves_into(&mut list);
        assert_eq!(
            pos.winning_step(&list).map(|m| m.to_string()).as_deref(),
            Some("c3-c4")
        );
        let pos = ArdRiPosition::from_notation("1k5/7/3a3/7/7/7/7 d 0 0").unwrap();
        list.clear();
        pos.legal_moves_into(&mut list);
        assert_eq!(
            pos.winning_step(&list).map(|m| m.to_string()).as_deref(),
            Some("b7-a7")
        );
    }

    fn sq(name: &str) -> Square {
        let b = name.as_bytes();
        Square::new(b[0] - b'a', b[1] - b'1').unwrap()
    }

    fn bits(names: &str) -> Bits {
        names.split_whitespace().fold(0, |acc, n| acc | sq(n).bit())
    }

    fn mv(text: &str) -> Move {
        let (a, b) = text.split_once('-').unwrap();
        Move::Step {
            from: sq(a),
            to: sq(b),
        }
    }

    fn legal(pos: &ArdRiPosition) -> Vec<String> {
        let mut list = MoveList::new();
        pos.legal_moves_into(&mut list);
        let mut v: Vec<String> = list.iter().map(|m| m.to_string()).collect();
        v.sort();
        v
    }

    /// Checks and plays a move.
    fn play(pos: &mut ArdRiPosition, text: &str) {
        let m = mv(text);
        assert_eq!(pos.check(m), Ok(()), "{text} in {pos:?}");
        pos.play_unchecked(m);
    }

    fn won(team: Team, reason: EndReason) -> Outcome {
        win(team, reason)
    }

    /// A small xorshift generator for reproducible random games.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    fn perft(pos: &ArdRiPosition, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut list = MoveList::new();
        pos.legal_moves_into(&mut list);
        if depth == 1 {
            return list.len() as u64;
        }
        list.iter()
            .map(|&m| {
                let mut child = pos.clone();
                child.play_unchecked(m);
                perft(&child, depth - 1)
            })
            .sum()
    }

    // --- the start -------------------------------------------------------------------------

    #[test]
    fn start_position_matches_the_setup() {
        let pos = ArdRiPosition::new();
        assert_eq!(
            pos.attackers(),
            bits("c1 d1 e1 d2 c7 d7 e7 d6 a3 a4 a5 b4 g3 g4 g5 f4")
        );
        assert_eq!(pos.defenders(), bits("c3 d3 e3 c4 e4 c5 d5 e5"));
        assert_eq!(pos.king(), sq("d4"));
        assert_eq!(pos.piece_at(sq("d4")), Some(Piece::King));
        assert_eq!(pos.piece_at(sq("a3")), Some(Piece::Attacker));
        assert_eq!(pos.piece_at(sq("c5")), Some(Piece::Defender));
        assert_eq!(pos.piece_at(sq("a1")), None);
        assert_eq!(pos.to_move(), Team::Attackers);
        assert_eq!(pos.ply(), 0);
        assert_eq!(pos.plies_without_capture(), 0);
        assert_eq!(pos.last_captures(), 0);
        assert!(pos.outcome().is_none());
        assert_eq!(pos.hash(), ArdRiPosition::default().hash());
    }

    #[test]
    fn start_position_has_24_legal_first_moves() {
        let pos = ArdRiPosition::new();
        let moves = legal(&pos);
        assert_eq!(moves.len(), 24, "{moves:?}");
        assert!(moves.contains(&"d2-c2".to_string()));
        assert!(moves.contains(&"b4-b3".to_string()));
        assert!(pos.has_legal_move());
    }

    #[test]
    fn team_index_opponent_and_display() {
        assert_eq!(Team::Attackers.index(), 0);
        assert_eq!(Team::Defenders.index(), 1);
        assert_eq!(Team::Attackers.opponent(), Team::Defenders);
        assert_eq!(Team::Defenders.opponent(), Team::Attackers);
        assert_eq!(Team::Attackers.to_string(), "attackers");
        assert_eq!(Team::Defenders.to_string(), "defenders");
    }

    // --- movement --------------------------------------------------------------------------

    #[test]
    fn every_piece_steps_one_square_orthogonally() {
        let pos = ArdRiPosition::from_diagram(
            "
                .......
                .......
                .......
                ...K...
                ...A...
                .D.....
                .......
            ",
            Team::Defenders,
        );
        // The defender on b2 has four steps (none onto a corner here); the king has three
        // (d3 holds an attacker), the throne he stands on is left empty.
        assert_eq!(
            legal(&pos),
            ["b2-a2", "b2-b1", "b2-b3", "b2-c2", "d4-c4", "d4-d5", "d4-e4"]
        );
    }

    #[test]
    fn only_the_king_may_stop_on_the_throne_or_a_corner() {
        let pos = ArdRiPosition::from_diagram(
            "
                .A.....
                .......
                .......
                ..A.K..
                .......
                D......
                .......
            ",
            Team::Attackers,
        );
        let moves = legal(&pos);
        assert!(!moves.contains(&"b7-a7".to_string()));
        assert!(!moves.contains(&"c4-d4".to_string()));
        let pos = ArdRiPosition::from_diagram(
            "
                .......
                .......
                .......
                ..A.K..
                .......
                D......
                .......
            ",
            Team::Defenders,
        );
        let moves = legal(&pos);
        assert!(!moves.contains(&"a2-a1".to_string()));
        assert!(
            moves.contains(&"e4-d4".to_string()),
            "the king may return to the throne"
        );
    }

    // --- captures --------------------------------------------------------------------------

    #[test]
    fn capture_against_a_friendly_piece() {
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                ..A....
                ..D....
                .......
                ..A....
                .......
                ....K..
            ",
            Team::Attackers,
        );
        play(&mut pos, "c3-c4");
        assert_eq!(pos.defenders(), 0);
        assert_eq!(pos.last_captures(), bits("c5"));
        assert_eq!(pos.piece_at(sq("c5")), None);
        assert_eq!(pos.plies_without_capture(), 0);
    }

    #[test]
    fn capture_against_an_empty_corner_works_for_both_sides() {
        // Attackers capture a defender next to the empty corner a1.
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                .......
                .......
                ....K..
                .......
                ..A....
                .D.....
            ",
            Team::Attackers,
        );
        play(&mut pos, "c2-c1");
        assert_eq!(pos.last_captures(), bits("b1"));
        // Defenders capture an attacker next to the empty corner g7.
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                ......A
                .....D.
                ....K..
                .......
                .......
                .......
            ",
            Team::Defenders,
        );
        play(&mut pos, "f5-g5");
        assert_eq!(pos.last_captures(), bits("g6"));
        assert_eq!(pos.attackers(), 0);
    }

    #[test]
    fn capture_against_the_empty_throne_works_for_both_sides() {
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                ....A..
                ...D...
                .......
                .......
                .......
                .K.....
            ",
            Team::Attackers,
        );
        play(&mut pos, "e6-d6");
        assert_eq!(pos.last_captures(), bits("d5"));
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                .......
                .......
                .......
                ...A...
                ..D....
                .K.....
            ",
            Team::Defenders,
        );
        play(&mut pos, "c2-d2");
        assert_eq!(pos.last_captures(), bits("d3"));
    }

    #[test]
    fn throne_with_the_king_is_hostile_to_attackers_only() {
        // An attacker between a defender and the occupied throne is captured...
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                .......
                .......
                ...K...
                ...A...
                ..D....
                .......
            ",
            Team::Defenders,
        );
        play(&mut pos, "c2-d2");
        assert_eq!(pos.last_captures(), bits("d3"));
        // ...a defender there is not.
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                .......
                .......
                ...K...
                ...D...
                ..A....
                .......
            ",
            Team::Attackers,
        );
        play(&mut pos, "c2-d2");
        assert_eq!(pos.last_captures(), 0);
        assert_eq!(pos.defenders(), bits("d3"));
        assert_eq!(pos.plies_without_capture(), 1);
    }

    #[test]
    fn moving_between_two_enemies_is_safe() {
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                .......
                .D.D...
                .......
                ..A....
                .......
                .....K.
            ",
            Team::Attackers,
        );
        play(&mut pos, "c3-c4");
        play(&mut pos, "f1-f2");
        play(&mut pos, "c4-c5");
        assert_eq!(pos.attackers(), bits("c5"));
        assert_eq!(pos.last_captures(), 0);
        // A defender's move elsewhere does not capture it either.
        play(&mut pos, "f2-f1");
        assert_eq!(pos.attackers(), bits("c5"));
        assert_eq!(pos.defenders(), bits("b5 d5"));
    }

    #[test]
    fn several_pieces_are_captured_by_one_move() {
        let mut pos = ArdRiPosition::from_diagram(
            "
                ..A....
                ..D....
                AD.A...
                ..D....
                ..A....
                .......
                .....K.
            ",
            Team::Attackers,
        );
        play(&mut pos, "d5-c5");
        assert_eq!(pos.last_captures(), bits("c6 b5 c4"));
        assert_eq!(pos.defenders(), 0);
    }

    #[test]
    fn the_board_edge_is_not_hostile() {
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                .......
                .......
                D.A....
                .......
                .......
                .....K.
            ",
            Team::Attackers,
        );
        play(&mut pos, "c4-b4");
        assert_eq!(pos.last_captures(), 0);
        assert_eq!(pos.defenders(), bits("a4"));
    }

    #[test]
    fn the_king_captures_as_hammer() {
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                .D.....
                .A.....
                .......
                .K.....
                .......
                .......
            ",
            Team::Defenders,
        );
        play(&mut pos, "b3-b4");
        assert_eq!(pos.last_captures(), bits("b5"));
        assert_eq!(pos.king(), sq("b4"));
    }

    #[test]
    fn the_king_captures_as_anvil() {
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                .KA....
                ...D...
                .......
                .......
                .......
                .......
            ",
            Team::Defenders,
        );
        play(&mut pos, "d5-d6");
        assert_eq!(pos.last_captures(), bits("c6"));
    }

    #[test]
    fn the_king_is_never_captured_custodially() {
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                .......
                .AK.A..
                .......
                .......
                ......D
                .......
            ",
            Team::Attackers,
        );
        play(&mut pos, "e5-d5");
        assert_eq!(pos.king(), sq("c5"));
        assert_eq!(pos.piece_at(sq("c5")), Some(Piece::King));
        assert_eq!(pos.last_captures(), 0);
        assert!(pos.outcome().is_none());
    }

    // --- the king's capture and escape -------------------------------------------------------

    #[test]
    fn the_king_is_captured_on_four_sides() {
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                ..A....
                .AKA...
                .......
                ..A....
                .......
                ......D
            ",
            Team::Attackers,
        );
        play(&mut pos, "c3-c4");
        assert_eq!(
            pos.outcome(),
            Some(&won(Team::Attackers, EndReason::KingCaptured))
        );
        assert_eq!(
            pos.outcome().unwrap().points,
            BySide::new(Points::whole(1), Points(0))
        );
        assert_eq!(pos.king(), sq("c5"));
        assert!(!pos.has_legal_move());
        assert_eq!(legal(&pos), Vec::<String>::new());
    }

    #[test]
    fn the_empty_throne_counts_as_the_fourth_side() {
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                .......
                .......
                .......
                ..AKA..
                .......
                ...A..D
            ",
            Team::Attackers,
        );
        play(&mut pos, "d1-d2");
        assert_eq!(
            pos.outcome(),
            Some(&won(Team::Attackers, EndReason::KingCaptured))
        );
    }

    #[test]
    fn the_king_is_captured_only_by_an_attackers_move_next_to_him() {
        // The king steps off the throne between three attackers: the empty throne makes four
        // hostile sides, but it was his own move.
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                A......
                .......
                ...K...
                ..A.A..
                ...A...
                .......
            ",
            Team::Defenders,
        );
        play(&mut pos, "d4-d3");
        assert!(pos.outcome().is_none());
        // An attacker's move elsewhere does not capture him either.
        play(&mut pos, "a6-b6");
        assert!(pos.outcome().is_none());
    }

    #[test]
    fn a_king_on_the_edge_cannot_be_captured() {
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                .......
                A......
                K.A....
                A......
                .......
                ......D
            ",
            Team::Attackers,
        );
        play(&mut pos, "c4-b4");
        assert!(pos.outcome().is_none());
        assert!(pos.has_legal_move());
    }

    #[test]
    fn the_king_escapes_to_a_corner() {
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                .......
                .......
                .......
                .......
                ......K
                A......
            ",
            Team::Defenders,
        );
        play(&mut pos, "g2-g1");
        let outcome = pos.outcome().unwrap();
        assert_eq!(outcome, &won(Team::Defenders, EndReason::KingEscaped));
        assert_eq!(outcome.winner, Some(Side::Defenders));
        assert_eq!(outcome.points, BySide::new(Points(0), Points::whole(1)));
        assert_eq!(pos.king(), sq("g1"));
    }

    // --- no moves, repetition, the move limit ------------------------------------------------

    /// Defenders: a defender on b1 next to the corner and an attacker on c1; the king walled in
    /// on the edge. After `c2-b2` the defenders cannot move.
    fn blockade() -> ArdRiPosition {
        ArdRiPosition::from_diagram(
            "
                .......
                .......
                ......A
                .....AK
                ......A
                ..A....
                .DA....
            ",
            Team::Attackers,
        )
    }

    #[test]
    fn a_side_with_no_legal_move_loses() {
        let mut pos = blockade();
        play(&mut pos, "c2-b2");
        assert_eq!(pos.last_captures(), 0);
        assert_eq!(pos.to_move(), Team::Defenders);
        assert_eq!(
            pos.outcome(),
            Some(&won(Team::Attackers, EndReason::NoMoves))
        );
        assert!(!pos.has_legal_move());
        // A hand-built position whose side to move is stuck is already lost.
        let stuck = ArdRiPosition::from_diagram(
            "
                .......
                .......
                ......A
                .....AK
                ......A
                .A.....
                .DA....
            ",
            Team::Defenders,
        );
        assert_eq!(
            stuck.outcome(),
            Some(&won(Team::Attackers, EndReason::NoMoves))
        );
    }

    #[test]
    fn a_third_repetition_is_illegal() {
        let mut pos = ArdRiPosition::new();
        let start = pos.hash();
        for m in ["g3-g2", "e3-f3", "g2-g3", "f3-e3"] {
            play(&mut pos, m);
        }
        assert_eq!(pos.hash(), start, "the start position a second time");
        for m in ["g3-g2", "e3-f3", "g2-g3"] {
            play(&mut pos, m);
        }
        let back = mv("f3-e3");
        assert_eq!(
            pos.check(back),
            Err(IllegalMove::ThirdRepetition {
                from: sq("f3"),
                to: sq("e3")
            })
        );
        let moves = legal(&pos);
        assert!(!moves.contains(&"f3-e3".to_string()));
        assert!(moves.contains(&"f3-f2".to_string()));
        assert!(pos.has_legal_move());
        assert!(pos.outcome().is_none());
    }

    #[test]
    fn a_capturing_move_never_repeats_a_position() {
        // Y shuttles g2-g3 and the king e7-f7 until the position P (attackers c4 c6 g3,
        // defender c5, king e7, defenders to move) has occurred twice. Then the attacker on c4
        // steps away and back: the pieces would stand as in P, but the return captures c5, so
        // the move is legal.
        let mut pos = ArdRiPosition::from_diagram(
            "
                ....K..
                ..A....
                ..D....
                ..A....
                .......
                ......A
                .......
            ",
            Team::Attackers,
        );
        play(&mut pos, "g2-g3");
        let p = pos.hash();
        for m in [
            "e7-f7", "g3-g2", "f7-e7", "g2-g3", "e7-f7", "c4-c3", "f7-e7",
        ] {
            play(&mut pos, m);
        }
        let twice = &pos.twice[..usize::from(pos.twice_len)];
        assert!(twice.contains(&p), "P has occurred twice");
        assert!(legal(&pos).contains(&"c3-c4".to_string()));
        play(&mut pos, "c3-c4");
        assert_eq!(pos.last_captures(), bits("c5"));
        assert_eq!(pos.twice_len, 0, "a capture forgets the history");
    }

    #[test]
    fn repetition_leaving_no_move_loses() {
        // The defenders' only mobile piece shuttles a2-a3 (the king on g4 is walled in); the
        // attackers shuttle e6-e7.
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                ....A..
                A.....A
                A....AK
                .AA...A
                DA.....
                .......
            ",
            Team::Attackers,
        );
        for m in ["e6-e7", "a2-a3", "e7-e6", "a3-a2", "e6-e7", "a2-a3"] {
            play(&mut pos, m);
            assert!(pos.outcome().is_none());
        }
        play(&mut pos, "e7-e6");
        // a3-a2 would make the first position for the third time: no legal move is left.
        assert_eq!(
            pos.outcome(),
            Some(&won(Team::Attackers, EndReason::NoMoves))
        );
        assert_eq!(pos.to_move(), Team::Defenders);
    }

    #[test]
    fn the_game_is_drawn_after_100_plies_without_a_capture() {
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                .......
                .......
                ...K...
                .......
                .......
                ..A....
            ",
            Team::Attackers,
        )
        .with_plies_without_capture(98);
        play(&mut pos, "c1-c2");
        assert_eq!(pos.plies_without_capture(), 99);
        assert!(pos.outcome().is_none());
        play(&mut pos, "d4-d5");
        assert_eq!(pos.plies_without_capture(), 100);
        let outcome = pos.outcome().unwrap();
        assert_eq!(outcome.winner, None);
        assert_eq!(outcome.reason, EndReason::MoveLimit);
        assert_eq!(outcome.points, BySide::both(Points::HALF));
    }

    #[test]
    fn a_capture_restarts_the_move_limit() {
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                .......
                .......
                ....K..
                .......
                ..A....
                .D.....
            ",
            Team::Attackers,
        )
        .with_plies_without_capture(99);
        play(&mut pos, "c2-c1");
        assert_eq!(pos.last_captures(), bits("b1"));
        assert_eq!(pos.plies_without_capture(), 0);
        assert!(pos.outcome().is_none());
    }

    // --- order of the checks after a move ---------------------------------------------------

    #[test]
    fn escape_is_checked_before_the_move_limit() {
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                .......
                .......
                .......
                .......
                ......K
                A......
            ",
            Team::Defenders,
        )
        .with_plies_without_capture(99);
        play(&mut pos, "g2-g1");
        assert_eq!(
            pos.outcome(),
            Some(&won(Team::Defenders, EndReason::KingEscaped))
        );
    }

    #[test]
    fn king_capture_is_checked_before_the_move_limit() {
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                ..A....
                .AKA...
                .......
                ..A....
                .......
                ......D
            ",
            Team::Attackers,
        )
        .with_plies_without_capture(99);
        play(&mut pos, "c3-c4");
        assert_eq!(pos.plies_without_capture(), 100);
        assert_eq!(
            pos.outcome(),
            Some(&won(Team::Attackers, EndReason::KingCaptured))
        );
    }

    #[test]
    fn the_move_limit_is_checked_before_a_lack_of_moves() {
        let mut pos = blockade().with_plies_without_capture(99);
        play(&mut pos, "c2-b2");
        assert_eq!(pos.outcome().unwrap().reason, EndReason::MoveLimit);
        assert_eq!(pos.outcome().unwrap().winner, None);
    }

    #[test]
    fn escape_is_checked_before_a_lack_of_moves() {
        // The king's step onto a1 also leaves the attackers on a2 and a3 without a move.
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                .......
                .......
                D......
                AD.....
                AD.....
                .K.....
            ",
            Team::Defenders,
        );
        play(&mut pos, "b1-a1");
        assert_eq!(pos.last_captures(), 0);
        assert_eq!(
            pos.outcome(),
            Some(&won(Team::Defenders, EndReason::KingEscaped))
        );
    }

    // --- illegal moves -------------------------------------------------------------------

    #[test]
    fn illegal_game_over() {
        let mut pos = ArdRiPosition::from_diagram(
            "
                .......
                .......
                .......
                .......
                .......
                ......K
                A......
            ",
            Team::Defenders,
        );
        play(&mut pos, "g2-g1");
        assert_eq!(pos.check(mv("a1-a2")), Err(IllegalMove::GameOver));
        assert_eq!(pos.check(Move::Pass), Err(IllegalMove::GameOver));
    }

    #[test]
    fn illegal_wrong_game() {
        let pos = ArdRiPosition::new();
        let expected = Err(IllegalMove::WrongGame {
            game: "Ard Rí",
            example: "d2-d3",
        });
        assert_eq!(pos.check(Move::Pass), expected);
        let hill = super::super::board::Hill::new(3, 3).unwrap();
        assert_eq!(pos.check(Move::Build { hill }), expected);
    }

    #[test]
    fn illegal_empty_square() {
        let pos = ArdRiPosition::new();
        assert_eq!(
            pos.check(mv("b2-b3")),
            Err(IllegalMove::EmptySquare { square: sq("b2") })
        );
    }

    #[test]
    fn illegal_not_your_piece() {
        let pos = ArdRiPosition::new();
        let err = pos.check(mv("c3-c2")).unwrap_err();
        assert_eq!(
            err,
            IllegalMove::NotYourPiece {
                square: sq("c3"),
                owner: Team::Defenders,
                to_move: Team::Attackers
            }
        );
        assert_eq!(
            err.to_string(),
            "c3 holds a piece of the defenders, and it is the attackers' turn"
        );
        assert_eq!(
            pos.check(mv("d4-d3")),
            Err(IllegalMove::NotYourPiece {
                square: sq("d4"),
                owner: Team::Defenders,
                to_move: Team::Attackers
            })
        );
    }

    #[test]
    fn illegal_not_one_step() {
        let pos = ArdRiPosition::new();
        for m in ["d2-b2", "d2-c3", "d2-e1", "d2-d2", "a3-g3"] {
            let (f, t) = m.split_once('-').unwrap();
            assert_eq!(
                pos.check(mv(m)),
                Err(IllegalMove::NotOneStep {
                    from: sq(f),
                    to: sq(t)
                }),
                "{m}"
            );
        }
    }

    #[test]
    fn illegal_square_occupied() {
        let pos = ArdRiPosition::new();
        assert_eq!(
            pos.check(mv("d2-d3")),
            Err(IllegalMove::SquareOccupied { square: sq("d3") })
        );
        assert_eq!(
            pos.check(mv("d2-d1")),
            Err(IllegalMove::SquareOccupied { square: sq("d1") })
        );
    }

    #[test]
    fn illegal_restricted_square() {
        let pos = ArdRiPosition::from_diagram(
            "
                .......
                .......
                .......
                ..A...K
                .......
                .......
                .A.....
            ",
            Team::Attackers,
        );
        assert_eq!(
            pos.check(mv("c4-d4")),
            Err(IllegalMove::RestrictedSquare { square: sq("d4") })
        );
        assert_eq!(
            pos.check(mv("b1-a1")),
            Err(IllegalMove::RestrictedSquare { square: sq("a1") })
        );
    }

    #[test]
    fn illegal_third_repetition() {
        // (Also covered with the legal-move list in `a_third_repetition_is_illegal`.)
        let mut pos = ArdRiPosition::new();
        for m in [
            "b4-b3", "c5-b5", "b3-b4", "b5-c5", "b4-b3", "c5-b5", "b3-b4",
        ] {
            play(&mut pos, m);
        }
        assert_eq!(
            pos.check(mv("b5-c5")),
            Err(IllegalMove::ThirdRepetition {
                from: sq("b5"),
                to: sq("c5")
            })
        );
    }

    // --- consistency ----------------------------------------------------------------------

    /// Plays a random game, preferring now and then to move the piece just moved back (which
    /// provokes repetitions), and calls `visit` on every position before its move.
    fn random_game(
        rng: &mut Rng,
        mut visit: impl FnMut(&ArdRiPosition, &MoveList),
    ) -> ArdRiPosition {
        let mut pos = ArdRiPosition::new();
        let mut last: BySide<Option<Move>> = BySide::both(None);
        while pos.outcome().is_none() {
            let mut list = MoveList::new();
            pos.legal_moves_into(&mut list);
            visit(&pos, &list);
            let side = pos.to_move();
            let back = last[side].map(|m| match m {
                Move::Step { from, to } => Move::Step { from: to, to: from },
                other => other,
            });
            let m = match back {
                Some(b) if rng.below(4) != 0 && list.contains(&b) => b,
                _ => list[rng.below(list.len())],
            };
            last[side] = Some(m);
            pos.play_unchecked(m);
        }
        pos
    }

    /// The moves copied from the table are the moves `generate` finds, in its order, in every
    /// position of random games.
    #[test]
    fn the_table_of_steps_gives_the_generated_moves_in_order() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut positions = 0;
        for _ in 0..30 {
            random_game(&mut rng, |pos, _| {
                let mut copied = MoveList::new();
                pos.push_moves(&mut copied, &[0; 5]);
                let mut generated = Vec::new();
                pos.generate(
                    |_, _, _| true,
                    |m| {
                        generated.push(m);
                        false
                    },
                );
                assert_eq!(copied.as_slice(), generated.as_slice());
                positions += 1;
            });
        }
        assert!(positions > 1_000, "{positions}");
    }

    /// The legal moves are the moves `generate` finds that do not make a position for the third
    /// time (each candidate hashed and looked up, as the rule reads), in its order, and there is
    /// a legal move exactly when that list is not empty, in every position of random games that
    /// often step back and so repeat positions.
    #[test]
    fn ruling_out_third_repetitions_by_the_hash_change_table_is_hashing_every_candidate() {
        let mut rng = Rng(0x5851_f42d_4c95_7f2d);
        let (mut positions, mut ruled_out) = (0, 0);
        for _ in 0..60 {
            random_game(&mut rng, |pos, list| {
                let mut reference = Vec::new();
                pos.generate(
                    |piece, from, to| !pos.repeats_third_time(piece, from, to),
                    |m| {
                        reference.push(m);
                        false
                    },
                );
                assert_eq!(list.as_slice(), reference.as_slice(), "{pos:?}");
                assert_eq!(pos.any_legal_move(), !reference.is_empty());
                ruled_out += pos
                    .third_repetition_targets()
                    .iter()
                    .map(|b| b.count_ones())
                    .sum::<u32>();
                positions += 1;
            });
        }
        assert!(positions > 2_000, "{positions}");
        assert!(ruled_out > 100, "the games repeated positions: {ruled_out}");
    }

    /// Random games: `check` agrees with `legal_moves` for every from-to pair (and never falls
    /// back to `NotLegal`), the incremental hash is the hash of the pieces, `has_legal_move`
    /// agrees with the list, and pieces never share a square.
    #[test]
    fn check_hash_and_has_legal_move_agree_with_legal_moves() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut repetitions = 0;
        let mut reasons = Vec::new();
        for _ in 0..30 {
            let end = random_game(&mut rng, |pos, list| {
                assert_eq!(pos.has_legal_move(), !list.is_empty());
                assert_eq!(pos.hash(), pos.compute_hash());
                assert_eq!(pos.attackers() & pos.defenders(), 0);
                assert_eq!((pos.attackers() | pos.defenders()) & pos.king().bit(), 0);
                for f in 0..49u8 {
                    for t in 0..49u8 {
                        let m = Move::Step {
                            from: Square::from_index(f).unwrap(),
                            to: Square::from_index(t).unwrap(),
                        };
                        match pos.check(m) {
                            Ok(()) => assert!(list.contains(&m), "{m}: {pos:?}"),
                            Err(IllegalMove::NotLegal { .. }) => panic!("fallback for {m}"),
                            Err(IllegalMove::ThirdRepetition { .. }) => {
                                repetitions += 1;
                                assert!(!list.contains(&m));
                            }
                            Err(_) => assert!(!list.contains(&m), "{m}: {pos:?}"),
                        }
                    }
                }
            });
            assert!(!end.has_legal_move());
            let mut list = MoveList::new();
            end.legal_moves_into(&mut list);
            assert!(list.is_empty());
            reasons.push(end.outcome().unwrap().reason);
        }
        assert!(repetitions > 0, "the games exercised the repetition rule");
        assert!(reasons.contains(&EndReason::MoveLimit));
    }

    // --- perft -------------------------------------------------------------------------

    /// Cross-checked against an independent naive implementation of the rules (depths 1 to 6;
    /// depth 6 is 10_489_192); the same numbers are in `tests/perft/ard_ri.perft`.
    const PERFT: [u64; 5] = [24, 184, 4144, 40720, 932320];

    #[test]
    fn perft_from_the_start_position() {
        let pos = ArdRiPosition::new();
        for (depth, &expected) in (1..).zip(PERFT.iter()) {
            assert_eq!(perft(&pos, depth), expected, "perft({depth})");
        }
    }
}
