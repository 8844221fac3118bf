//! Moves of all five games and a fixed-capacity move list.

use super::board::{squares, Bits, Hill, Square, HILLS, HILL_KNIGHT, SQUARES};
use std::fmt;

/// One move of any of the games. Displays in canonical notation (docs/rules.md §2.1 and §8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
// Four bytes, aligned: a move is copied by one load and one store, not byte by byte (move
// lists are filled by copying from the tables below).
#[repr(align(4))]
pub enum Move {
    /// Tara, one hill: in High Kings' Placement, build a ringfort there and put a new king on it;
    /// in Sacred Hill, build on a vacant hill or capture the enemy ringfort standing there.
    Build { hill: Hill },
    /// High Kings: move a king by a knight's move. Onto a vacant hill it builds; onto an own
    /// ringfort it backtracks; onto a besieged enemy ringfort it captures it. With `sacrifice`
    /// (`hkot-2`), the backtrack hands the destination ringfort to the opponent.
    King {
        from: Hill,
        to: Hill,
        sacrifice: bool,
    },
    /// Tara: pass (voluntary or forced).
    Pass,
    /// Ard Rí: move a piece one square along a rank or file.
    Step { from: Square, to: Square },
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Build { hill } => write!(f, "{hill}"),
            Move::King {
                from,
                to,
                sacrifice,
            } => write!(f, "{from}-{to}{}", if *sacrifice { "*" } else { "" }),
            Move::Pass => f.write_str("pass"),
            Move::Step { from, to } => write!(f, "{from}-{to}"),
        }
    }
}

/// A build on each hill (`Pass` for the corners), copied into move lists.
static BUILDS: [Move; SQUARES] = builds();

const fn builds() -> [Move; SQUARES] {
    let mut table = [Move::Pass; SQUARES];
    let mut i = 0;
    while i < SQUARES {
        if HILLS & (1 << i) != 0 {
            table[i] = Move::Build {
                hill: Hill::from_hill_index(i as u8),
            };
        }
        i += 1;
    }
    table
}

/// The builds on each four squares (squares `4i` to `4i + 3`) by the set of them (bit `j`
/// for square `4i + j`): the builds on the hills of that set, lowest index first, then
/// padding (`Pass`, never kept).
static BUILD_FOURS: [[[Move; 4]; 16]; SQUARES.div_ceil(4)] = build_fours();
/// The number of squares in each set of four (bit `j` for square `j`).
static FOUR_COUNTS: [u8; 16] = four_counts();

const fn build_fours() -> [[[Move; 4]; 16]; SQUARES.div_ceil(4)] {
    let mut table = [[[Move::Pass; 4]; 16]; SQUARES.div_ceil(4)];
    let mut i = 0;
    while i < SQUARES.div_ceil(4) {
        let mut set = 0;
        while set < 16 {
            let mut n = 0;
            let mut j = 0;
            while j < 4 {
                let h = 4 * i + j;
                if set >> j & 1 != 0 && h < SQUARES && HILLS & (1 << h) != 0 {
                    table[i][set][n] = BUILDS[h];
                    n += 1;
                }
                j += 1;
            }
            set += 1;
        }
        i += 1;
    }
    table
}

const fn four_counts() -> [u8; 16] {
    let mut counts = [0; 16];
    let mut set = 0;
    while set < 16 {
        counts[set] = (set as u32).count_ones() as u8;
        set += 1;
    }
    counts
}

/// A knight's move from square `h` goes to `h + o - 15`, `o` one of these (ascending): two
/// rows and a column, or a row and two columns, either way.
const KNIGHT_WINDOW: [u32; 8] = [0, 2, 6, 10, 20, 24, 28, 30];

/// Multipliers that gather the bits of each half of [`KNIGHT_WINDOW`] (after the second half
/// is shifted down by 20) into the top four bits, each of the 16 sets of a half to a
/// different number: a perfect hash, found by search.
const HALF_MAGIC: [u64; 2] = [0x1208_2008_0000_0000, 0x2810_0001_0000_0000];
/// The bits of each half of [`KNIGHT_WINDOW`] (the second shifted down by 20).
const HALF_MASK: [u64; 2] = [0x445, 0x511];

/// The indices of the sets of `targets` (knight's-move destinations of square `h`) in each
/// half of [`KNIGHT_WINDOW`], for [`KING_MOVE_HALVES`] and [`HALF_COUNTS`].
#[inline(always)]
const fn knight_halves(targets: Bits, h: usize) -> [usize; 2] {
    // Destination `h + o - 15` at bit `o`; `targets` is below bit 49, so nothing is lost.
    let window = (targets << 15) >> h;
    let low = (window & HALF_MASK[0]).wrapping_mul(HALF_MAGIC[0]) >> 60;
    let high = ((window >> 20) & HALF_MASK[1]).wrapping_mul(HALF_MAGIC[1]) >> 60;
    [low as usize, high as usize]
}

/// Each square's king moves (no sacrifice) by half of [`KNIGHT_WINDOW`] and index of a set of
/// that half's destinations: the moves to that set, lowest index first, then padding (`Pass`,
/// never kept). Empty for a square that is no hill.
static KING_MOVE_HALVES: [[[[Move; 4]; 16]; 2]; SQUARES] = king_move_halves();
/// The number of destinations of each index of [`KING_MOVE_HALVES`].
static HALF_COUNTS: [[u8; 16]; 2] = half_counts();

const fn king_move_halves() -> [[[[Move; 4]; 16]; 2]; SQUARES] {
    let mut table = [[[[Move::Pass; 4]; 16]; 2]; SQUARES];
    let mut h = 0;
    while h < SQUARES {
        if HILLS & (1 << h) != 0 {
            let mut half = 0;
            while half < 2 {
                let mut set = 0;
                while set < 16 {
                    let mut targets: Bits = 0;
                    let mut j = 0;
                    while j < 4 {
                        let to = h as i32 + KNIGHT_WINDOW[half * 4 + j] as i32 - 15;
                        if set >> j & 1 != 0
                            && to >= 0
                            && to < SQUARES as i32
                            && HILL_KNIGHT[h] & (1 << to) != 0
                        {
                            targets |= 1 << to;
                        }
                        j += 1;
                    }
                    let index = knight_halves(targets, h)[half];
                    let mut n = 0;
                    let mut rest = targets;
                    while rest != 0 {
                        table[h][half][index][n] = Move::King {
                            from: Hill::from_hill_index(h as u8),
                            to: Hill::from_hill_index(rest.trailing_zeros() as u8),
                            sacrifice: false,
                        };
                        n += 1;
                        rest &= rest - 1;
                    }
                    set += 1;
                }
                half += 1;
            }
        }
        h += 1;
    }
    table
}

const fn half_counts() -> [[u8; 16]; 2] {
    let mut counts = [[0; 16]; 2];
    let mut half = 0;
    while half < 2 {
        let mut seen = 0u32;
        let mut set = 0u64;
        while set < 16 {
            let mut bits = 0;
            let mut j = 0;
            while j < 4 {
                if set >> j & 1 != 0 {
                    bits |= 1 << KNIGHT_WINDOW[half * 4 + j];
                }
                j += 1;
            }
            // From square 15 the window is the board itself.
            let index = knight_halves(bits, 15)[half];
            // Every set its own index: the hash is perfect.
            assert!(
                seen & (1 << index) == 0,
                "two sets of a half share an index"
            );
            seen |= 1 << index;
            counts[half][index] = set.count_ones() as u8;
            set += 1;
        }
        half += 1;
    }
    counts
}

/// Ard Rí's steps as moves, by direction (of [`STEP_BACK`]) and destination, copied into move
/// lists; `Pass` for a step off the board, and at entry 64 (an empty set's `trailing_zeros`),
/// never kept.
static STEPS_BY_DIRECTION: [[Move; 65]; 4] = steps_by_direction();

const fn steps_by_direction() -> [[Move; 65]; 4] {
    let steps = steps();
    let mut table = [[Move::Pass; 65]; 4];
    let mut t = 0;
    while t < SQUARES {
        let mut d = 0;
        while d < 4 {
            table[d][t] = steps[t][d];
            d += 1;
        }
        t += 1;
    }
    table
}

/// Ard Rí's king's steps from each square, by destination (one row down, one column left, one
/// right, one row up: lowest index first), and their destinations; 63 (never a square) for a
/// step off the board.
static KING_STEPS: [([Move; 4], [u8; 4]); SQUARES] = king_steps();

const fn king_steps() -> [([Move; 4], [u8; 4]); SQUARES] {
    let steps = steps();
    let mut table = [([Move::Pass; 4], [63; 4]); SQUARES];
    // The directions (of `STEP_BACK`) in the order of their destinations: south, west, east,
    // north.
    let directions = [1, 3, 2, 0];
    let mut from = 0;
    while from < SQUARES {
        let mut j = 0;
        while j < 4 {
            let d = directions[j];
            let to = from as i32 - STEP_BACK[d];
            if to >= 0 && to < SQUARES as i32 {
                if let Move::Step { .. } = steps[to as usize][d] {
                    table[from].0[j] = steps[to as usize][d];
                    table[from].1[j] = to as u8;
                }
            }
            j += 1;
        }
        from += 1;
    }
    table
}

/// The offset from a step's destination back to its origin, by direction: a step north (up a
/// row), south, east, west.
pub(crate) const STEP_BACK: [i32; 4] = [-7, 7, -1, 1];

/// Ard Rí's steps as moves, by destination and direction (of [`STEP_BACK`]); `Pass` for a
/// step off the board: what the tables above are made from.
const fn steps() -> [[Move; 4]; SQUARES] {
    let mut table = [[Move::Pass; 4]; SQUARES];
    let mut to = 0;
    while to < SQUARES {
        let mut d = 0;
        while d < 4 {
            let from = to as i32 + STEP_BACK[d];
            let (col, from_col) = (to as i32 % 7, from % 7);
            if from >= 0
                && from < SQUARES as i32
                && (col - from_col).abs() + (to as i32 / 7 - from / 7).abs() == 1
            {
                if let (Some(from), Some(to)) =
                    (Square::from_index(from as u8), Square::from_index(to as u8))
                {
                    table[to.index() as usize][d] = Move::Step { from, to };
                }
            }
            d += 1;
        }
        to += 1;
    }
    table
}

/// Capacity of a [`MoveList`]: more than any position of the five games can have
/// (Ard Rí: 25 pieces with 4 steps each).
pub const MAX_MOVES: usize = 128;

/// A list of moves on the stack.
#[derive(Clone)]
pub struct MoveList {
    len: usize,
    moves: [Move; MAX_MOVES],
}

impl MoveList {
    pub const fn new() -> MoveList {
        MoveList {
            len: 0,
            moves: [Move::Pass; MAX_MOVES],
        }
    }
    #[inline]
    pub fn push(&mut self, m: Move) {
        self.moves[self.len] = m;
        self.len += 1;
    }
    /// Appends a `Build` on each hill of `hills` (a set of hills), lowest index first: the
    /// same as a `push` per hill. The squares are taken four at a time: each four's builds
    /// are copied from a table by the set of them in `hills`, and the length moves on by
    /// their number, so the number of builds costs no mispredicted branch.
    #[inline]
    pub(crate) fn push_builds(&mut self, hills: Bits) {
        debug_assert_eq!(hills & !HILLS, 0);
        if self.len + SQUARES + 4 > MAX_MOVES {
            for h in squares(hills) {
                self.push(BUILDS[h as usize]);
            }
            return;
        }
        let mut len = self.len;
        for (i, fours) in BUILD_FOURS.iter().enumerate() {
            let set = (hills >> (4 * i)) as usize & 15;
            self.moves[len..len + 4].copy_from_slice(&fours[set]);
            len += usize::from(FOUR_COUNTS[set]);
        }
        self.len = len;
    }
    /// Appends a step north onto each square of `targets[0]`, then south onto `targets[1]`,
    /// east onto `targets[2]` and west onto `targets[3]` (each with a piece of the side to
    /// move behind it), each direction lowest index first: the same as a `push` per square,
    /// direction by direction. The four directions are written side by side, one step of each
    /// a round, each at its own place in the list (known from the counts), so that one loop
    /// ends instead of four.
    #[inline]
    pub(crate) fn push_steps_4(&mut self, targets: [Bits; 4]) {
        let counts = targets.map(|t| t.count_ones() as usize);
        let end = self.len + counts.iter().sum::<usize>();
        if end >= MAX_MOVES {
            for (dir, &t) in targets.iter().enumerate() {
                for to in squares(t) {
                    self.push(STEPS_BY_DIRECTION[dir][to as usize]);
                }
            }
            return;
        }
        // Where each direction's next step goes; a direction with none left writes its
        // (never kept) `Pass` past the end. Every slot is below the capacity, a power of two,
        // so masking the index changes none: it spares a bounds check.
        let mut at = [self.len; 4];
        at[1] = at[0] + counts[0];
        at[2] = at[1] + counts[1];
        at[3] = at[2] + counts[2];
        let mut sets = targets;
        while sets[0] | sets[1] | sets[2] | sets[3] != 0 {
            for d in 0..4 {
                let set = sets[d];
                let live = set != 0;
                let slot = if live { at[d] } else { end };
                self.moves[slot % MAX_MOVES] = STEPS_BY_DIRECTION[d][set.trailing_zeros() as usize];
                at[d] += usize::from(live);
                sets[d] = set & set.wrapping_sub(1);
            }
        }
        self.len = end;
    }
    /// Appends the Ard Rí king's step from `from` onto each square of `targets` (some of its
    /// neighbours), lowest index first: the same as a `push` per square. All four steps are
    /// written and the length moves on past those onto `targets`, so the number of steps
    /// costs no mispredicted branch.
    #[inline]
    pub(crate) fn push_king_steps(&mut self, from: u8, targets: Bits) {
        let (steps, to) = &KING_STEPS[usize::from(from)];
        if self.len + 4 > MAX_MOVES {
            for (&m, &t) in steps.iter().zip(to) {
                if targets >> t & 1 != 0 {
                    self.push(m);
                }
            }
            return;
        }
        let mut len = self.len;
        for (&m, &t) in steps.iter().zip(to) {
            self.moves[len % MAX_MOVES] = m;
            len += (targets >> t & 1) as usize;
        }
        self.len = len;
    }
    /// Appends a king's move (no sacrifice) from `from` to each hill of `targets` (some of
    /// its knight's-move destinations), lowest index first: the same as a `push` per hill.
    /// The destinations fall in two halves of four (see [`KING_MOVE_HALVES`]); each half's
    /// moves are copied from a table by the set of its destinations, four moves at once, and
    /// the length moves on by their number, so the number of moves costs no mispredicted
    /// branch.
    #[inline(always)]
    pub(crate) fn push_king_moves(&mut self, from: Hill, targets: Bits) {
        debug_assert_eq!(targets & !from.knight(), 0);
        if self.len + 8 > MAX_MOVES {
            for t in squares(targets) {
                self.push(Move::King {
                    from,
                    to: Hill::from_hill_index(t),
                    sacrifice: false,
                });
            }
            return;
        }
        let h = from.index() as usize;
        let [low, high] = knight_halves(targets, h);
        let halves = &KING_MOVE_HALVES[h];
        let len = self.len;
        let slots: &mut [Move; 8] = (&mut self.moves[len..len + 8]).try_into().expect("8 moves");
        slots[..4].copy_from_slice(&halves[0][low]);
        let n = usize::from(HALF_COUNTS[0][low]);
        let at = n.min(4);
        slots[at..at + 4].copy_from_slice(&halves[1][high]);
        self.len = len + n + usize::from(HALF_COUNTS[1][high]);
    }
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    #[inline]
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The four directions' steps written side by side are the steps a `push` each gives,
    /// direction by direction, for random sets of destinations, also when the list is too
    /// full for the side-by-side writes.
    #[test]
    fn steps_of_four_directions_are_pushed_in_order() {
        let mut rng = crate::game::playout::Rng::new(48);
        for _ in 0..2_000 {
            // About 12 destinations a direction, as many as a side's pieces can have.
            let targets: [Bits; 4] =
                std::array::from_fn(|_| rng.next_u64() & rng.next_u64() & ((1 << SQUARES) - 1));
            let total: usize = targets.iter().map(|t| t.count_ones() as usize).sum();
            for prefix in [0, 3, MAX_MOVES - total] {
                let (mut fast, mut slow) = (MoveList::new(), MoveList::new());
                for _ in 0..prefix {
                    fast.push(Move::Pass);
                    slow.push(Move::Pass);
                }
                fast.push_steps_4(targets);
                for (dir, &t) in targets.iter().enumerate() {
                    for to in squares(t) {
                        slow.push(STEPS_BY_DIRECTION[dir][to as usize]);
                    }
                }
                assert_eq!(
                    fast.as_slice(),
                    slow.as_slice(),
                    "{targets:x?} after {prefix}"
                );
            }
        }
    }

    /// Builds on random sets of hills, and on none and all, are the builds a `push` per hill
    /// gives, in the same order, also in a list too full for the four-wide writes.
    #[test]
    fn builds_are_pushed_in_order() {
        let mut rng = crate::game::playout::Rng::new(4);
        let sets = (0..2_000)
            .map(|i| rng.next_u64() >> (i % 8) & rng.next_u64() & HILLS)
            .chain([0, HILLS]);
        for hills in sets {
            let n = hills.count_ones() as usize;
            for prefix in [0, 5, MAX_MOVES - SQUARES - 4, MAX_MOVES - n] {
                let (mut fast, mut slow) = (MoveList::new(), MoveList::new());
                for _ in 0..prefix {
                    fast.push(Move::Pass);
                    slow.push(Move::Pass);
                }
                fast.push_builds(hills);
                for h in squares(hills) {
                    slow.push(Move::Build {
                        hill: Hill::from_hill_index(h),
                    });
                }
                assert_eq!(
                    fast.as_slice(),
                    slow.as_slice(),
                    "{hills:#x} after {prefix}"
                );
            }
        }
    }

    /// A king's moves to every set of its destinations, from every hill, are the moves a
    /// `push` per destination gives, in the same order, after a move already in the list and
    /// in a list too full for the eight-wide writes.
    #[test]
    fn king_moves_are_pushed_in_order_for_every_set_of_destinations() {
        for h in squares(HILLS) {
            let from = Hill::from_hill_index(h);
            let destinations: Vec<u8> = squares(from.knight()).collect();
            for set in 0..1u32 << destinations.len() {
                let targets = destinations
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| set >> j & 1 != 0)
                    .fold(0, |b, (_, &t)| b | 1 << t);
                for prefix in [1, MAX_MOVES - 7] {
                    if prefix + set.count_ones() as usize > MAX_MOVES {
                        continue;
                    }
                    let (mut fast, mut slow) = (MoveList::new(), MoveList::new());
                    for _ in 0..prefix {
                        fast.push(Move::Pass);
                        slow.push(Move::Pass);
                    }
                    fast.push_king_moves(from, targets);
                    for t in squares(targets) {
                        slow.push(Move::King {
                            from,
                            to: Hill::from_hill_index(t),
                            sacrifice: false,
                        });
                    }
                    assert_eq!(fast.as_slice(), slow.as_slice(), "{from:?} {targets:#x}");
                }
            }
        }
    }
}
