//! The rule a league applies between seasons, after Little Golem's championship (docs/rules.md
//! §11, leagues): how many divisions the league has and how many players each holds, who goes
//! up and who goes down, and who plays in which division next season. Pure and synchronous.
//!
//! The league has levels. Level 1 has one division, level 2 has two, level 3 has four, and so
//! on. A division normally holds `size` players. The lowest level may have fewer divisions,
//! and its divisions hold as many players as are left, shared out evenly.
//!
//! Between seasons:
//! 1. [`movements`] says, for each division, who goes up, who stays and who goes down.
//! 2. The caller turns that into a target level for each returning player
//!    ([`Movement::target`]). Newcomers have no level yet ([`Target::New`]).
//! 3. [`place`] builds next season's divisions: it sorts the players by target level, then
//!    rating, cuts that order by the sizes of the levels, and refills the divisions of each
//!    level by rating.

use std::cmp::Ordering;

/// The name of a division: `index` (from 0) among the divisions of `level` (from 1).
///
/// Level 1 is "1". Level 2 and below are the level followed by letters: "2a", "2b", "3a" to
/// "3d", and so on. After "z" come "aa", "ab", and so on (bijective base 26).
///
/// # Panics
///
/// When `level` is 0, or when `index` is not below the number of divisions of the level.
pub fn division_name(level: u32, index: usize) -> String {
    assert!(level >= 1, "levels start at 1");
    assert!(
        index < divisions_at(level),
        "level {level} has no division {index}"
    );
    if level == 1 {
        return "1".to_string();
    }
    let mut letters = Vec::new();
    let mut n = index + 1;
    while n > 0 {
        n -= 1;
        letters.push(char::from(b'a' + (n % 26) as u8));
        n /= 26;
    }
    letters.reverse();
    let mut name = level.to_string();
    name.extend(letters);
    name
}

/// The number of divisions a full level has: 2 to the power `level - 1` (as many as fit in a
/// `usize` for very deep levels).
fn divisions_at(level: u32) -> usize {
    1usize
        .checked_shl(level.saturating_sub(1))
        .unwrap_or(usize::MAX)
}

/// How `divisions` divisions fill the levels, level 1 first: the number of levels, and the
/// number of divisions of the lowest level (at least 1, at most the level's full count).
fn layout(divisions: usize) -> (usize, usize) {
    let mut left = divisions;
    let mut levels = 1;
    let mut full = 1usize;
    while left > full {
        left -= full;
        levels += 1;
        full = full.saturating_mul(2);
    }
    (levels, left)
}

/// The number of players of each division for a league of `n` players with divisions of
/// `size` players: level by level from level 1, and within a level in name order.
///
/// The rule:
/// * Start with `ceil(n / size)` divisions (at least 1). Give them to the levels in order:
///   1 to level 1, then 2 to level 2, then 4, and so on. The lowest level gets what is left.
/// * Every division above the lowest level has exactly `size` players. The lowest level has
///   the rest.
/// * The smallest division allowed is `max(2, ceil(size / 2))` players. While there is more
///   than one division and the lowest level has fewer players than that for each of its
///   divisions, take one division away and start again. So the players of a lowest level
///   that is too small join the level above, whose divisions may then hold more than `size`.
/// * The players of the lowest level are shared out among its divisions as evenly as
///   possible, the larger divisions first.
///
/// No players gives no levels. One player gives one division of one player: a league needs
/// two players to play, and the caller checks that.
///
/// # Panics
///
/// When `size` is 0. (The league allows sizes from 3 to 20.)
pub fn structure(n: usize, size: usize) -> Vec<Vec<usize>> {
    assert!(size > 0, "a division must hold at least one player");
    if n == 0 {
        return Vec::new();
    }
    let smallest = 2.max(size.div_ceil(2));
    let mut divisions = n.div_ceil(size).max(1);
    loop {
        let (levels, lowest) = layout(divisions);
        // `divisions` is at most ceil(n / size), so the divisions above the lowest level hold
        // fewer than `n` players.
        let rest = n - size * (divisions - lowest);
        if divisions == 1 || rest >= lowest * smallest {
            let mut shape: Vec<Vec<usize>> = (1..levels as u32)
                .map(|level| vec![size; divisions_at(level)])
                .collect();
            shape.push(
                (0..lowest)
                    .map(|i| rest / lowest + usize::from(i < rest % lowest))
                    .collect(),
            );
            return shape;
        }
        divisions -= 1;
    }
}

/// What happens to a player of a division between seasons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Movement {
    /// Promoted: next season one level higher (a smaller level number).
    Up,
    /// Stays at the same level.
    Stay,
    /// Relegated: next season one level lower (a larger level number).
    Down,
}

impl Movement {
    /// The level this movement aims at for a player of `level`. `Up` from level 1 (which
    /// [`movements`] never gives) stays at level 1.
    pub fn target(self, level: u32) -> Target {
        Target::Level(match self {
            Movement::Up => level.saturating_sub(1).max(1),
            Movement::Stay => level,
            Movement::Down => level.saturating_add(1),
        })
    }
}

/// The movements of the `n` continuing players of a division of `level`, in final standings
/// order (first place first). Continuing players are those who stay in the league: the caller
/// leaves out players who left or were withdrawn.
///
/// The first `min(promote, n)` places go up, except at level 1, where nobody goes up. Of the
/// others, the last `min(relegate, n - up)` go down. The rest stay.
///
/// Relegation exists at every level, also the lowest. There it only puts the relegated players
/// after the others of that level (and before newcomers) when [`place`] orders the league.
pub fn movements(level: u32, n: usize, promote: usize, relegate: usize) -> Vec<Movement> {
    let up = if level > 1 { promote.min(n) } else { 0 };
    let down = relegate.min(n - up);
    let mut out = vec![Movement::Stay; n];
    out[..up].fill(Movement::Up);
    out[n - down..].fill(Movement::Down);
    out
}

/// Where a player heads for next season.
///
/// The order of targets is the league's order: levels first, from level 1 down, and newcomers
/// after every level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    /// A returning player heading for this level (from 1).
    Level(u32),
    /// A newcomer. In season 1 every player is a newcomer.
    New,
}

/// A player to place in next season's divisions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed<K> {
    /// The caller's key for the player. [`place`] returns it.
    pub key: K,
    /// The level the player heads for, or [`Target::New`].
    pub target: Target,
    /// The player's rating (higher is better).
    pub rating: i32,
    /// A tie-break when ratings are equal: lower comes first (for example, the earlier join).
    pub order: u64,
}

/// Orders players by rating (higher first), then by `order` (lower first).
fn by_rating<K>(a: &Placed<K>, b: &Placed<K>) -> Ordering {
    b.rating.cmp(&a.rating).then(a.order.cmp(&b.order))
}

/// Next season's divisions: levels from level 1, divisions in name order, and the keys of
/// their players by rating (higher first).
///
/// The rule:
/// * The shape is [`structure`] for all the players given, with divisions of `size` players.
/// * Sort the players by target level (newcomers after every level), then by rating (higher
///   first), then by `order` (lower first). This is the league's order.
/// * Cut that order by the sizes of the levels: the first players fill level 1, the next fill
///   level 2, and so on. So when more players head for a level than it has places, the
///   lowest-rated of them go down one more level. When fewer do, the highest-rated of those
///   heading for the levels below come up.
/// * Within a level, sort its players by rating (then `order`) and deal them into the
///   divisions in name order: the first division takes the first players up to its size, the
///   next division the next, and so on.
///
/// Season 1 is the same call with every player [`Target::New`]: the players are dealt by
/// rating into divisions 1, 2a, 2b, and so on.
///
/// # Panics
///
/// When `size` is 0 (see [`structure`]).
pub fn place<K: Clone>(players: &[Placed<K>], size: usize) -> Vec<Vec<Vec<K>>> {
    let shape = structure(players.len(), size);
    let mut league: Vec<&Placed<K>> = players.iter().collect();
    league.sort_by(|a, b| a.target.cmp(&b.target).then(by_rating(a, b)));
    let mut rest = league.as_slice();
    shape
        .iter()
        .map(|sizes| {
            let (level, tail) = rest.split_at(sizes.iter().sum());
            rest = tail;
            let mut level = level.to_vec();
            level.sort_by(|a, b| by_rating(a, b));
            let mut players = level.into_iter();
            sizes
                .iter()
                .map(|&n| players.by_ref().take(n).map(|p| p.key.clone()).collect())
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_names() {
        assert_eq!(division_name(1, 0), "1");
        assert_eq!(division_name(2, 0), "2a");
        assert_eq!(division_name(2, 1), "2b");
        assert_eq!(division_name(3, 0), "3a");
        assert_eq!(division_name(3, 3), "3d");
        assert_eq!(division_name(5, 15), "5p");
        assert_eq!(division_name(6, 25), "6z");
        assert_eq!(division_name(6, 26), "6aa");
        assert_eq!(division_name(6, 27), "6ab");
        // 26 names of one letter and 26 * 26 of two come before "aaa".
        assert_eq!(division_name(11, 26 + 26 * 26 - 1), "11zz");
        assert_eq!(division_name(11, 26 + 26 * 26), "11aaa");
    }

    #[test]
    #[should_panic]
    fn level_1_has_one_division() {
        division_name(1, 1);
    }

    #[test]
    fn structure_examples() {
        // Each worked out by hand from the rule, with size 10 (smallest division 5).
        // 200: 20 divisions = 1 + 2 + 4 + 8 + 5; the lowest level has 200 - 150 = 50 >= 5 * 5.
        assert_eq!(
            structure(200, 10),
            vec![vec![10], vec![10; 2], vec![10; 4], vec![10; 8], vec![10; 5]]
        );
        // 12: 2 divisions = 1 + 1; level 2 has 2 < 5 players, so 1 division of 12.
        assert_eq!(structure(12, 10), vec![vec![12]]);
        // 15: 2 divisions = 1 + 1; level 2 has 5 >= 5.
        assert_eq!(structure(15, 10), vec![vec![10], vec![5]]);
        // 33: 4 divisions = 1 + 2 + 1; level 3 has 3 < 5, so 3 divisions = 1 + 2; level 2 has
        // 23 >= 2 * 5, shared 12 and 11.
        assert_eq!(structure(33, 10), vec![vec![10], vec![12, 11]]);
        // 20: 2 divisions = 1 + 1; level 2 has 10.
        assert_eq!(structure(20, 10), vec![vec![10], vec![10]]);
        // 21: 3 divisions = 1 + 2; level 2 has 11 >= 2 * 5, shared 6 and 5.
        assert_eq!(structure(21, 10), vec![vec![10], vec![6, 5]]);
        // 34: 4 divisions = 1 + 2 + 1; level 3 has 4 < 5, so 3 divisions = 1 + 2; level 2 has
        // 24 >= 2 * 5, shared 12 and 12.
        assert_eq!(structure(34, 10), vec![vec![10], vec![12, 12]]);
        // 9 with size 4 (smallest division 2): 3 divisions = 1 + 2; level 2 has 5 >= 2 * 2.
        assert_eq!(structure(9, 4), vec![vec![4], vec![3, 2]]);
    }

    #[test]
    fn structure_of_no_and_one_player() {
        assert_eq!(structure(0, 10), Vec::<Vec<usize>>::new());
        assert_eq!(structure(1, 10), vec![vec![1]]);
        assert_eq!(structure(2, 3), vec![vec![2]]);
    }

    #[test]
    fn structure_keeps_its_shape_for_every_size() {
        for size in 3..=20usize {
            let smallest = 2.max(size.div_ceil(2));
            for n in 1..=600 {
                let shape = structure(n, size);
                let total: usize = shape.iter().flatten().sum();
                assert_eq!(total, n, "n {n} size {size}");
                let (lowest, above) = shape.split_last().unwrap();
                for (k, level) in above.iter().enumerate() {
                    assert_eq!(level, &vec![size; 1 << k], "n {n} size {size}");
                }
                assert!(!lowest.is_empty() && lowest.len() <= 1 << above.len());
                assert!(lowest.windows(2).all(|w| w[0] == w[1] || w[0] == w[1] + 1));
                if shape.len() > 1 || lowest.len() > 1 {
                    assert!(lowest.iter().all(|&d| d >= smallest), "n {n} size {size}");
                }
            }
        }
    }

    #[test]
    fn movement_counts() {
        use Movement::{Down, Stay, Up};
        // Nobody goes up from level 1.
        assert_eq!(movements(1, 4, 1, 1), vec![Stay, Stay, Stay, Down]);
        assert_eq!(movements(2, 3, 1, 1), vec![Up, Stay, Down]);
        assert_eq!(movements(2, 2, 1, 1), vec![Up, Down]);
        // Promotion comes first: with 3 players, 2 up leave 1 to relegate.
        assert_eq!(movements(3, 3, 2, 2), vec![Up, Up, Down]);
        assert_eq!(movements(3, 1, 1, 1), vec![Up]);
        // A lone player of level 1 is relegated.
        assert_eq!(movements(1, 1, 1, 1), vec![Down]);
        assert_eq!(movements(2, 3, 0, 0), vec![Stay; 3]);
        assert_eq!(movements(2, 0, 1, 1), vec![]);
    }

    #[test]
    fn movement_targets() {
        assert_eq!(Movement::Up.target(3), Target::Level(2));
        assert_eq!(Movement::Up.target(1), Target::Level(1));
        assert_eq!(Movement::Stay.target(2), Target::Level(2));
        assert_eq!(Movement::Down.target(2), Target::Level(3));
        assert!(Target::Level(1) < Target::Level(2));
        assert!(Target::Level(u32::MAX) < Target::New);
    }

    fn player(key: &'static str, target: Target, rating: i32, order: u64) -> Placed<&'static str> {
        Placed {
            key,
            target,
            rating,
            order,
        }
    }

    /// The continuing players of a division of `level`, in final standings order, with their
    /// ratings, as [`Placed`] with the target their movement gives (promote 1, relegate 1).
    fn returning(level: u32, division: &[(&'static str, i32, u64)]) -> Vec<Placed<&'static str>> {
        let moves = movements(level, division.len(), 1, 1);
        division
            .iter()
            .zip(moves)
            .map(|(&(key, rating, order), m)| player(key, m.target(level), rating, order))
            .collect()
    }

    #[test]
    fn example_a_season_1() {
        // Nine newcomers p1..p9 rated 1900 down to 1500 in steps of 50, size 4.
        // structure(9, 4): 3 divisions = 1 + 2; level 2 has 5 >= 2 * 2 players, shared 3 and 2.
        // All are new, so the league's order is by rating: p1..p4 fill level 1, and level 2 is
        // p5..p9 dealt 3 to 2a and 2 to 2b.
        let names = ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9"];
        let players: Vec<_> = names
            .iter()
            .enumerate()
            .map(|(i, &key)| player(key, Target::New, 1900 - 50 * i as i32, i as u64 + 1))
            .collect();
        assert_eq!(
            place(&players, 4),
            vec![
                vec![vec!["p1", "p2", "p3", "p4"]],
                vec![vec!["p5", "p6", "p7"], vec!["p8", "p9"]],
            ]
        );
    }

    #[test]
    fn example_b_season_2() {
        // From example (a), size 4, promote 1, relegate 1. Ratings as in (a).
        // Division 1 finished p2, p1, p4, p3, and p4 left: the continuing players are p2, p1,
        // p3, and level 1 has no promotion, so p3 goes down (target 2).
        // Division 2a finished p7, p5, p6: p7 up (target 1), p5 stays (2), p6 down (3).
        // Division 2b finished p9, p8: p9 up (target 1), p8 down (3).
        // Newcomer p10 rated 2000.
        let mut players = returning(1, &[("p2", 1850, 2), ("p1", 1900, 1), ("p3", 1800, 3)]);
        players.extend(returning(
            2,
            &[("p7", 1600, 7), ("p5", 1700, 5), ("p6", 1650, 6)],
        ));
        players.extend(returning(2, &[("p9", 1500, 9), ("p8", 1550, 8)]));
        players.push(player("p10", Target::New, 2000, 10));
        let targets: Vec<_> = players.iter().map(|p| (p.key, p.target)).collect();
        assert_eq!(
            targets,
            vec![
                ("p2", Target::Level(1)),
                ("p1", Target::Level(1)),
                ("p3", Target::Level(2)),
                ("p7", Target::Level(1)),
                ("p5", Target::Level(2)),
                ("p6", Target::Level(3)),
                ("p9", Target::Level(1)),
                ("p8", Target::Level(3)),
                ("p10", Target::New),
            ]
        );
        // 9 players again: structure [[4], [3, 2]].
        // The league's order: level 1 p1 1900, p2 1850, p7 1600, p9 1500; level 2 p3 1800,
        // p5 1700; level 3 p6 1650, p8 1550; new p10 2000.
        // Level 1 takes the first 4: p1, p2, p7, p9. Level 2 takes the other 5. Only 2 head
        // for level 2, so p6 and p8 (heading for a level 3 that does not exist) and p10 fill
        // it. By rating: p10 2000, p3 1800, p5 1700 make 2a; p6 1650, p8 1550 make 2b.
        assert_eq!(
            place(&players, 4),
            vec![
                vec![vec!["p1", "p2", "p7", "p9"]],
                vec![vec!["p10", "p3", "p5"], vec!["p6", "p8"]],
            ]
        );
    }

    #[test]
    fn example_c_overfull_level_and_empty_lowest_level() {
        // Size 4, promote 1, relegate 1. Last season had 17 players: structure(17, 4) is 5
        // divisions = 1 + 2 + 2, with 17 - 12 = 5 >= 2 * 2 players at level 3.
        assert_eq!(structure(17, 4), vec![vec![4], vec![4, 4], vec![3, 2]]);
        // All 5 players of 3a and 3b left. The others finished in this order:
        // 1: a1 2100, a2 2050, a3 2000, a4 1950 -> a4 down (2).
        // 2a: b1 1900, b2 1850, b3 1700, b4 1600 -> b1 up (1), b4 down (3).
        // 2b: c1 1980, c2 1800, c3 1750, c4 1650 -> c1 up (1), c4 down (3).
        let mut players = returning(
            1,
            &[
                ("a1", 2100, 1),
                ("a2", 2050, 2),
                ("a3", 2000, 3),
                ("a4", 1950, 4),
            ],
        );
        players.extend(returning(
            2,
            &[
                ("b1", 1900, 5),
                ("b2", 1850, 6),
                ("b3", 1700, 7),
                ("b4", 1600, 8),
            ],
        ));
        players.extend(returning(
            2,
            &[
                ("c1", 1980, 9),
                ("c2", 1800, 10),
                ("c3", 1750, 11),
                ("c4", 1650, 12),
            ],
        ));
        // 12 players: 3 divisions = 1 + 2, level 2 has 8 >= 2 * 2, shared 4 and 4. Level 3
        // is gone.
        assert_eq!(structure(12, 4), vec![vec![4], vec![4, 4]]);
        // Five head for level 1 (a1, a2, a3, b1, c1) and it has 4 places. By rating: a1 2100,
        // a2 2050, a3 2000, c1 1980 stay there, and b1 1900, the lowest-rated, goes down one
        // more level. Level 2 takes the rest: b1, the five heading for level 2 (a4, b2, b3, c2,
        // c3) and the two heading for level 3 (b4, c4).
        // Level 2 by rating: a4 1950, b1 1900, b2 1850, c2 1800 make 2a; c3 1750, b3 1700,
        // c4 1650, b4 1600 make 2b.
        assert_eq!(
            place(&players, 4),
            vec![
                vec![vec!["a1", "a2", "a3", "c1"]],
                vec![vec!["a4", "b1", "b2", "c2"], vec!["c3", "b3", "c4", "b4"]],
            ]
        );
    }

    #[test]
    fn example_d_short_level_1() {
        // From example (a), size 4, promote 1, relegate 1, no newcomers. p1, p2 and p3 left,
        // so p4 is division 1's only continuing player: level 1 has no promotion and
        // min(1, 1) = 1 goes down, so p4 heads for level 2.
        // 2a finished p7, p5, p6: p7 up (1), p5 stays (2), p6 down (3).
        // 2b finished p9, p8: p9 up (1), p8 down (3).
        let mut players = returning(1, &[("p4", 1750, 4)]);
        players.extend(returning(
            2,
            &[("p7", 1600, 7), ("p5", 1700, 5), ("p6", 1650, 6)],
        ));
        players.extend(returning(2, &[("p9", 1500, 9), ("p8", 1550, 8)]));
        // 6 players: 2 divisions = 1 + 1, level 2 has 2 >= 2: structure [[4], [2]].
        assert_eq!(structure(6, 4), vec![vec![4], vec![2]]);
        // The league's order: level 1 p7 1600, p9 1500; level 2 p4 1750, p5 1700; level 3
        // p6 1650, p8 1550. Only 2 head for level 1's 4 places, so the 2 highest-rated of
        // those heading for level 2 (p4, p5) come up. Level 1 by rating: p4, p5, p7, p9.
        // Level 2 (2a) is p6, p8.
        assert_eq!(
            place(&players, 4),
            vec![vec![vec!["p4", "p5", "p7", "p9"]], vec![vec!["p6", "p8"]]]
        );
    }

    #[test]
    fn equal_ratings_go_by_order() {
        let players = vec![
            player("late", Target::New, 1500, 9),
            player("early", Target::New, 1500, 1),
            player("middle", Target::New, 1500, 5),
        ];
        assert_eq!(
            place(&players, 3),
            vec![vec![vec!["early", "middle", "late"]]]
        );
        assert_eq!(place::<&str>(&[], 3), Vec::<Vec<Vec<&str>>>::new());
    }
}
