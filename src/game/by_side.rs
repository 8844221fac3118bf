//! [`BySide`]: one value per side of a game, indexed by [`Side`], [`Player`] or [`Team`].

use super::side::{Player, Side, Team};
use std::ops::{Index, IndexMut};

/// One value for each side of a game: the first seat (Red, or the attackers) and the second
/// (Blue, or the defenders).
///
/// Index it by [`Side`], by [`Player`] (Tara) or by [`Team`] (Ard Rí); the first seat is
/// `Side::Red`, `Side::Attackers`, `Player::Red` and `Team::Attackers`.
#[derive(Clone, Copy, Debug, Default, Eq, Hash)]
pub struct BySide<T>([T; 2]);

/// Two `BySide`s are equal when their values are, seat by seat (of any two types that compare).
impl<T: PartialEq<U>, U> PartialEq<BySide<U>> for BySide<T> {
    fn eq(&self, other: &BySide<U>) -> bool {
        self.0[0] == other.0[0] && self.0[1] == other.0[1]
    }
}

impl<T> BySide<T> {
    /// The values of the first seat (Red / attackers) and the second (Blue / defenders).
    #[inline]
    pub const fn new(first: T, second: T) -> BySide<T> {
        BySide([first, second])
    }

    /// The same value for both sides.
    #[inline]
    pub fn both(value: T) -> BySide<T>
    where
        T: Clone,
    {
        BySide([value.clone(), value])
    }

    /// The value of the first seat (Red / attackers).
    #[inline]
    pub const fn first(&self) -> &T {
        &self.0[0]
    }

    /// The value of the second seat (Blue / defenders).
    #[inline]
    pub const fn second(&self) -> &T {
        &self.0[1]
    }

    /// Applies `f` to both values, first seat first.
    #[inline]
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> BySide<U> {
        BySide(self.0.map(f))
    }

    /// Both values by reference, first seat first.
    #[inline]
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    /// Both values, first seat first, as an array.
    #[inline]
    pub fn into_array(self) -> [T; 2] {
        self.0
    }
}

impl<T> From<[T; 2]> for BySide<T> {
    #[inline]
    fn from(values: [T; 2]) -> BySide<T> {
        BySide(values)
    }
}

impl<T> From<BySide<T>> for [T; 2] {
    #[inline]
    fn from(values: BySide<T>) -> [T; 2] {
        values.0
    }
}

impl<T> IntoIterator for BySide<T> {
    type Item = T;
    type IntoIter = std::array::IntoIter<T, 2>;
    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a, T> IntoIterator for &'a BySide<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

macro_rules! index_by {
    ($key:ty) => {
        impl<T> Index<$key> for BySide<T> {
            type Output = T;
            #[inline]
            fn index(&self, key: $key) -> &T {
                &self.0[key.index()]
            }
        }
        impl<T> IndexMut<$key> for BySide<T> {
            #[inline]
            fn index_mut(&mut self, key: $key) -> &mut T {
                &mut self.0[key.index()]
            }
        }
    };
}

index_by!(Side);
index_by!(Player);
index_by!(Team);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexing_by_side_player_and_team_agrees() {
        let mut b = BySide::new(1, 2);
        assert_eq!(b[Side::Red], 1);
        assert_eq!(b[Side::Attackers], 1);
        assert_eq!(b[Player::Blue], 2);
        assert_eq!(b[Team::Defenders], 2);
        b[Player::Red] += 10;
        b[Team::Defenders] += 20;
        assert_eq!(b, BySide::new(11, 22));
        assert_eq!((*b.first(), *b.second()), (11, 22));
    }

    #[test]
    fn map_iter_and_conversions() {
        let b = BySide::from(["a", "bc"]);
        assert_eq!(b.map(str::len), BySide::new(1, 2));
        assert_eq!(b.iter().copied().collect::<Vec<_>>(), ["a", "bc"]);
        assert_eq!(b.into_iter().collect::<String>(), "abc");
        assert_eq!(<[&str; 2]>::from(b), ["a", "bc"]);
        assert_eq!(BySide::both(7).into_array(), [7, 7]);
    }
}
