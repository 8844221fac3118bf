//! Board geometry shared by the Tara games and Ard Rí: a 7x7 grid indexed `row * 7 + col`
//! (`A1` = 0, `G7` = 48), 64-bit sets of squares, and precomputed neighbour, knight and
//! spacing tables.
//!
//! The Tara board is the grid without its four corners (45 hills); Ard Rí uses all 49 squares.

use std::fmt;

/// Width and height of both boards.
pub const SIZE: u8 = 7;
/// Number of squares in the 7x7 grid (Tara corners included).
pub const SQUARES: usize = 49;

/// A set of squares of the 7x7 grid, one bit per square index.
pub type Bits = u64;

/// Every square of the 7x7 grid (Ard Rí's board).
pub const ALL: Bits = (1 << 49) - 1;
/// The four corners `A1`, `G1`, `A7`, `G7`.
pub const CORNERS: Bits = 1 | 1 << 6 | 1 << 42 | 1 << 48;
/// The 45 hills of the Tara board.
pub const HILLS: Bits = ALL & !CORNERS;
/// Column `A` of the grid.
pub const COL_A: Bits = col_mask(0);
/// Column `G` of the grid.
pub const COL_G: Bits = col_mask(6);

const fn col_mask(col: u8) -> Bits {
    let mut m = 0;
    let mut row = 0;
    while row < SIZE {
        m |= 1 << (row * SIZE + col);
        row += 1;
    }
    m
}

/// The squares one step north (towards row 7) of `b`.
#[inline]
pub const fn north(b: Bits) -> Bits {
    (b << 7) & ALL
}
/// The squares one step south of `b`.
#[inline]
pub const fn south(b: Bits) -> Bits {
    b >> 7
}
/// The squares one step east (towards column G) of `b`.
#[inline]
pub const fn east(b: Bits) -> Bits {
    (b << 1) & !COL_A & ALL
}
/// The squares one step west of `b`.
#[inline]
pub const fn west(b: Bits) -> Bits {
    (b >> 1) & !COL_G
}
/// Every square orthogonally next to a square of `b` (on the 7x7 grid; mask with
/// [`HILLS`] for the Tara board).
#[inline]
pub const fn dilate(b: Bits) -> Bits {
    north(b) | south(b) | east(b) | west(b)
}

/// Iterates over the square indices in a set, lowest first.
#[inline]
pub fn squares(b: Bits) -> BitIter {
    BitIter(b)
}

/// Iterator over the indices of the set bits of a [`Bits`].
#[derive(Clone, Copy, Debug)]
pub struct BitIter(Bits);

impl Iterator for BitIter {
    type Item = u8;
    #[inline]
    fn next(&mut self) -> Option<u8> {
        if self.0 == 0 {
            None
        } else {
            let i = self.0.trailing_zeros() as u8;
            self.0 &= self.0 - 1;
            Some(i)
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for BitIter {}

const fn offset_table(offsets: &[(i8, i8)], valid: Bits) -> [Bits; SQUARES] {
    let mut table = [0; SQUARES];
    let mut i = 0;
    while i < SQUARES {
        if valid & (1 << i) != 0 {
            let col = (i % 7) as i8;
            let row = (i / 7) as i8;
            let mut k = 0;
            while k < offsets.len() {
                let c = col + offsets[k].0;
                let r = row + offsets[k].1;
                if c >= 0 && c < 7 && r >= 0 && r < 7 {
                    let j = (r * 7 + c) as usize;
                    if valid & (1 << j) != 0 {
                        table[i] |= 1 << j;
                    }
                }
                k += 1;
            }
        }
        i += 1;
    }
    table
}

const ORTHOGONAL: [(i8, i8); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];
const KNIGHT_OFFSETS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
/// Offsets closer than a knight's move (Euclidean distance below √5), the Sacred Hill spacing rule.
const NEAR_OFFSETS: [(i8, i8); 12] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
    (2, 0),
    (-2, 0),
    (0, 2),
    (0, -2),
];

/// Orthogonal neighbours of each hill, on the Tara board.
pub static HILL_NEIGHBOURS: [Bits; SQUARES] = offset_table(&ORTHOGONAL, HILLS);
/// Knight's-move destinations of each hill, on the Tara board.
pub static HILL_KNIGHT: [Bits; SQUARES] = offset_table(&KNIGHT_OFFSETS, HILLS);
/// Hills closer than a knight's move to each hill (Sacred Hill spacing rule).
pub static HILL_NEAR: [Bits; SQUARES] = offset_table(&NEAR_OFFSETS, HILLS);
/// Orthogonal neighbours of each square on the full 7x7 grid (Ard Rí).
pub static SQUARE_NEIGHBOURS: [Bits; SQUARES] = offset_table(&ORTHOGONAL, ALL);

/// The hills each of whose neighbours (on the Tara board) is in `b`: the hills that `b`
/// besieges when `b` is one player's ringforts. Computed for all hills at once.
#[inline]
pub const fn surrounded_by(b: Bits) -> Bits {
    // A hill passes a direction when it has no neighbour that way, or that neighbour is in `b`.
    let no_north = HILLS & !south(HILLS);
    let no_south = HILLS & !north(HILLS);
    let no_east = HILLS & !west(HILLS);
    let no_west = HILLS & !east(HILLS);
    let b = b & HILLS;
    HILLS
        & (no_north | south(b))
        & (no_south | north(b))
        & (no_east | west(b))
        & (no_west | east(b))
}

/// A hill of the Tara board (`A2`…`G6`, 45 of them; the corners do not exist).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hill(u8);

impl Hill {
    /// The hill at column `col` (0 = `A`) and row `row` (0 = row `1`), if it exists.
    pub const fn new(col: u8, row: u8) -> Option<Hill> {
        if col < SIZE && row < SIZE && HILLS & (1 << (row * SIZE + col)) != 0 {
            Some(Hill(row * SIZE + col))
        } else {
            None
        }
    }
    /// The hill with square index `index`, if that index is a hill.
    pub const fn from_index(index: u8) -> Option<Hill> {
        if (index as usize) < SQUARES && HILLS & (1 << index) != 0 {
            Some(Hill(index))
        } else {
            None
        }
    }
    /// The hill with square index `index`, which the caller knows to be a hill (an index
    /// taken from a set of hills): no check outside debug builds.
    #[inline]
    pub(crate) const fn from_hill_index(index: u8) -> Hill {
        debug_assert!((index as usize) < SQUARES && HILLS & (1 << index) != 0);
        Hill(index)
    }
    /// Orthogonal neighbours of this hill.
    #[inline]
    pub fn neighbours(self) -> Bits {
        HILL_NEIGHBOURS[self.0 as usize]
    }
    /// Hills a knight's move away.
    #[inline]
    pub fn knight(self) -> Bits {
        HILL_KNIGHT[self.0 as usize]
    }
    /// Every hill, `A2` first, in index order.
    pub fn all() -> impl Iterator<Item = Hill> {
        squares(HILLS).map(Hill)
    }
    /// The hills of a set.
    pub fn in_set(b: Bits) -> impl Iterator<Item = Hill> {
        squares(b & HILLS).map(Hill)
    }
}

impl fmt::Display for Hill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'A' + self.col()) as char, self.row() + 1)
    }
}

/// The methods [`Hill`] and [`Square`] share: both are a cell of the 7x7 grid, numbered
/// `row * 7 + col`.
macro_rules! grid_cell {
    ($t:ident) => {
        impl $t {
            /// Cell index (`row * 7 + col`).
            #[inline]
            pub const fn index(self) -> u8 {
                self.0
            }
            /// The one-bit set of this cell.
            #[inline]
            pub const fn bit(self) -> Bits {
                1 << self.0
            }
            /// Column, 0 = `A` (Tara) or `a` (Ard Rí).
            pub const fn col(self) -> u8 {
                self.0 % SIZE
            }
            /// Row, 0 = row `1`.
            pub const fn row(self) -> u8 {
                self.0 / SIZE
            }
        }
    };
}

grid_cell!(Hill);
grid_cell!(Square);

/// A square of the Ard Rí board (`a1`…`g7`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square at column `col` (0 = `a`) and row `row` (0 = rank `1`).
    pub const fn new(col: u8, row: u8) -> Option<Square> {
        if col < SIZE && row < SIZE {
            Some(Square(row * SIZE + col))
        } else {
            None
        }
    }
    /// The square with index `index` (`row * 7 + col`), if below 49.
    pub const fn from_index(index: u8) -> Option<Square> {
        if (index as usize) < SQUARES {
            Some(Square(index))
        } else {
            None
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.col()) as char, self.row() + 1)
    }
}

/// Writes a set of hills as `C3, D5, E4` (for messages).
pub fn hill_list(b: Bits) -> String {
    Hill::in_set(b)
        .map(|h| h.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hill(s: &str) -> Hill {
        let b = s.as_bytes();
        Hill::new(b[0] - b'A', b[1] - b'1').unwrap()
    }

    #[test]
    fn board_has_45_hills_and_corners_do_not_exist() {
        assert_eq!(HILLS.count_ones(), 45);
        assert_eq!(Hill::all().count(), 45);
        for (c, r) in [(0, 0), (6, 0), (0, 6), (6, 6)] {
            assert!(Hill::new(c, r).is_none());
        }
        assert_eq!(hill("D4").to_string(), "D4");
    }

    #[test]
    fn neighbour_counts_match_the_rules() {
        for h in ["B1", "A2", "F1", "G2", "A6", "B7", "F7", "G6"] {
            assert_eq!(hill(h).neighbours().count_ones(), 2, "{h}");
        }
        for h in ["C1", "D1", "E1", "A3", "A5", "G4", "D7"] {
            assert_eq!(hill(h).neighbours().count_ones(), 3, "{h}");
        }
        for h in ["B2", "D4", "F6", "C5"] {
            assert_eq!(hill(h).neighbours().count_ones(), 4, "{h}");
        }
    }

    #[test]
    fn knight_moves_never_land_on_missing_corners() {
        // B3 reaches A5, C5, D4, D2, C1 but never A1.
        let k = hill("B3").knight();
        assert_eq!(hill_list(k), "C1, D2, D4, A5, C5");
        assert_eq!(hill("D4").knight().count_ones(), 8);
    }

    #[test]
    fn surrounded_by_matches_neighbour_tables() {
        // A few pseudo-random sets: the bitwise answer agrees with the table answer.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let b = x & x.rotate_left(17) & HILLS;
            let fast = surrounded_by(b);
            let slow = Hill::all()
                .filter(|h| h.neighbours() & !b == 0)
                .fold(0, |acc, h| acc | h.bit());
            assert_eq!(fast, slow);
        }
    }

    #[test]
    fn dilate_agrees_with_neighbour_tables() {
        for h in Hill::all() {
            assert_eq!(dilate(h.bit()) & HILLS, h.neighbours());
        }
        for i in 0..49u8 {
            assert_eq!(dilate(1 << i), SQUARE_NEIGHBOURS[i as usize]);
        }
    }
}
