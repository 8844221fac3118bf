//! Tournament points counted exactly, in quarter points: scores move in halves, and
//! Sonneborn-Berger (an opponent's score times ½) in quarters.

use std::fmt;
use std::ops::{Add, AddAssign};

/// A number of points, exact to a quarter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Points(u32);

impl Points {
    pub const ZERO: Points = Points(0);
    pub const HALF: Points = Points(2);
    pub const ONE: Points = Points(4);

    /// `n` half points.
    pub const fn halves(n: u32) -> Points {
        Points(2 * n)
    }

    /// `n` quarter points.
    pub const fn quarters(n: u32) -> Points {
        Points(n)
    }

    /// The number of quarter points.
    pub const fn in_quarters(self) -> u32 {
        self.0
    }

    /// The number of half points, when the value is a whole number of halves.
    pub const fn in_halves(self) -> Option<u32> {
        if self.0.is_multiple_of(2) {
            Some(self.0 / 2)
        } else {
            None
        }
    }

    pub fn as_f64(self) -> f64 {
        f64::from(self.0) / 4.0
    }

    /// Half of these points (exact when they are a whole number of halves, as scores are).
    pub const fn half(self) -> Points {
        Points(self.0 / 2)
    }
}

impl Add for Points {
    type Output = Points;
    fn add(self, o: Points) -> Points {
        Points(self.0 + o.0)
    }
}

impl AddAssign for Points {
    fn add_assign(&mut self, o: Points) {
        self.0 += o.0;
    }
}

impl std::iter::Sum for Points {
    fn sum<I: Iterator<Item = Points>>(iter: I) -> Points {
        iter.fold(Points::ZERO, Add::add)
    }
}

/// Decimal, as few digits as needed: `0`, `2`, `2.5`, `1.25`, `3.75`.
impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let whole = self.0 / 4;
        match self.0 % 4 {
            0 => write!(f, "{whole}"),
            1 => write!(f, "{whole}.25"),
            2 => write!(f, "{whole}.5"),
            _ => write!(f, "{whole}.75"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_and_display() {
        assert_eq!(Points::halves(5).to_string(), "2.5");
        assert_eq!(Points::quarters(5).to_string(), "1.25");
        assert_eq!(Points::quarters(15).to_string(), "3.75");
        assert_eq!(Points::ZERO.to_string(), "0");
        assert_eq!((Points::ONE + Points::HALF).in_halves(), Some(3));
        assert_eq!(Points::quarters(3).in_halves(), None);
        assert_eq!(Points::halves(5).half(), Points::quarters(5));
        assert_eq!(
            [Points::ONE, Points::HALF, Points::quarters(1)]
                .into_iter()
                .sum::<Points>(),
            Points::quarters(7)
        );
        assert_eq!(Points::quarters(7).as_f64(), 1.75);
    }
}
