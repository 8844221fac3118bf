//! The FIDE Dutch pairing itself (C.04.3, the revision in force since February 2026), done as
//! bbpPairings 6 does it: one maximum-weight matching over the whole compatibility graph,
//! whose edge weights encode the completion and quality criteria lexicographically (the most
//! important criterion in the highest bits), refined bracket by bracket. Within a bracket the
//! moved-down players to pair, their opponents, the exchanges between S1 and S2 and finally
//! each S1 player's opponent are fixed one at a time, each by raising the weights of the
//! edges that the rule prefers by less than any criterion can weigh, and matching again —
//! incrementally: each step re-opens only the players where a changed edge breaks the
//! matching's optimality, and a pair once decided is fixed ([`Matcher::fix_pair`]) and leaves
//! the searches.
//!
//! Weights are wide integers sized for the tournament: about 11 bits per criterion and score
//! group for 2,000 players (see [`layout_bits`]), in as few 64-bit words as hold them (up to
//! 12 words, then 16 and 32).

use super::dutch::{Board, DutchError, DutchPlayer, Float, NextRound, Strength};
use super::matching::{Matcher, Stats, Weight, Wide};
use super::points::Points;
use super::trf::{Colour, Trf};
use std::collections::HashMap;

/// Pairs the round after those in `trf`: the boards in the order bbpPairings prints them
/// (the bye, if any, last), each game with its first mover (White) first.
///
/// Fails when the file has no `XXR`, when all rounds are paired, when there is nobody to
/// pair, or when no pairing satisfies the absolute criteria (no rematch, at most one
/// pairing-allocated bye or win without play each, the colour rules).
pub fn pair(trf: &Trf) -> Result<Vec<Board>, DutchError> {
    let next = NextRound::from_trf(trf)?;
    let first = trf.first_colour_or_inferred().unwrap_or(Colour::White);
    pair_round(&next, first)
}

/// [`pair`] for a round already prepared; `first` is the top player's colour in round 1.
pub fn pair_round(next: &NextRound, first: Colour) -> Result<Vec<Board>, DutchError> {
    pair_round_counted(next, first).map(|(boards, _)| boards)
}

/// [`pair`] with the work the matching did (for the benchmark).
pub fn pair_counted(trf: &Trf) -> Result<(Vec<Board>, Stats), DutchError> {
    let next = NextRound::from_trf(trf)?;
    let first = trf.first_colour_or_inferred().unwrap_or(Colour::White);
    pair_round_counted(&next, first)
}

fn pair_round_counted(next: &NextRound, first: Colour) -> Result<(Vec<Board>, Stats), DutchError> {
    let mut sorted: Vec<&DutchPlayer> = next.players.iter().collect();
    if sorted.is_empty() {
        return Err(DutchError::NobodyToPair);
    }
    sorted.sort_by_key(|p| (std::cmp::Reverse(p.score), p.order));
    let layout = Layout::new(&sorted, next.paired);
    let (mates, stats) = match layout.total_bits + 8 {
        0..=128 => run::<2>(next, &sorted, &layout),
        129..=192 => run::<3>(next, &sorted, &layout),
        193..=256 => run::<4>(next, &sorted, &layout),
        257..=320 => run::<5>(next, &sorted, &layout),
        321..=384 => run::<6>(next, &sorted, &layout),
        385..=448 => run::<7>(next, &sorted, &layout),
        449..=512 => run::<8>(next, &sorted, &layout),
        513..=576 => run::<9>(next, &sorted, &layout),
        577..=640 => run::<10>(next, &sorted, &layout),
        641..=768 => run::<12>(next, &sorted, &layout),
        769..=1024 => run::<16>(next, &sorted, &layout),
        1025..=2048 => run::<32>(next, &sorted, &layout),
        bits => run_huge(bits, next, &sorted, &layout),
    }?;
    let mut boards = Vec::new();
    for (i, p) in sorted.iter().enumerate() {
        let m = mates[i];
        if m == i {
            boards.push(Board::Bye { player: p.rank });
        } else if p.order < sorted[m].order {
            let q = sorted[m];
            boards.push(match next.colour_of(p, q, first) {
                Colour::White => Board::Game {
                    white: p.rank,
                    black: q.rank,
                },
                Colour::Black => Board::Game {
                    white: q.rank,
                    black: p.rank,
                },
            });
        }
    }
    next.published_order(&mut boards);
    Ok((boards, stats))
}

fn run_huge(
    bits: u32,
    _: &NextRound,
    _: &[&DutchPlayer],
    _: &Layout,
) -> Result<(Vec<usize>, Stats), DutchError> {
    Err(DutchError::TooLarge(bits))
}

/// Bits needed to write `n` (0 for 0).
fn bits_for(n: usize) -> u32 {
    usize::BITS - n.leading_zeros()
}

/// The widths of the weight's fields.
struct Layout {
    /// Bits for a count of players of one score group.
    group_bits: u32,
    /// Bits for all score groups together, and where each score's field starts.
    groups_bits: u32,
    shift: HashMap<Points, u32>,
    played: u32,
    total_bits: u32,
}

impl Layout {
    fn new(sorted: &[&DutchPlayer], played: u32) -> Layout {
        let mut shift = HashMap::new();
        let mut groups_bits = 0;
        let mut largest = 0;
        let mut i = sorted.len();
        while i > 0 {
            let score = sorted[i - 1].score;
            let mut j = i;
            while j > 0 && sorted[j - 1].score == score {
                j -= 1;
            }
            shift.insert(score, groups_bits);
            largest = largest.max(i - j);
            groups_bits += bits_for(i - j);
            i = j;
        }
        let group_bits = bits_for(largest);
        let g = group_bits;
        let s = groups_bits;
        let mut total = 2 + g + s + g + s + 2 * g + 4 * g;
        if played >= 1 {
            total += 2 * g + 2 * s;
        }
        if played >= 2 {
            total += 2 * g + 2 * s;
        }
        total += 3 * g + 1;
        Layout {
            group_bits,
            groups_bits,
            shift,
            played,
            total_bits: total,
        }
    }
}

/// The number of bits of the weights: exposed for the benchmark's report.
pub fn layout_bits(next: &NextRound) -> u32 {
    let mut sorted: Vec<&DutchPlayer> = next.players.iter().collect();
    sorted.sort_by_key(|p| (std::cmp::Reverse(p.score), p.order));
    Layout::new(&sorted, next.paired).total_bits
}

fn colour(p: &DutchPlayer) -> Option<Colour> {
    p.preference.map(|(c, _)| c)
}

fn strong(p: &DutchPlayer) -> bool {
    matches!(p.preference, Some((_, Strength::Strong)))
}

fn imbalance(p: &DutchPlayer) -> u32 {
    p.colour_difference.unsigned_abs()
}

/// The inputs of the weights that change from bracket to bracket.
struct Context<'a> {
    next: &'a NextRound,
    layout: &'a Layout,
    bye_score: Points,
    single_downfloater_is_bye: bool,
    /// By [`DutchPlayer::order`]: where the player's score group field starts (the layout's
    /// `shift`), and for a player of the bye's score the rank of their number of games
    /// played (more games first; the last rank of equal numbers).
    at: Vec<u32>,
    unplayed: Vec<u64>,
}

impl Context<'_> {
    fn bye_candidate(&self, p: &DutchPlayer) -> bool {
        p.bye_eligible && p.score <= self.bye_score
    }

    /// The weight of pairing `higher` (earlier in the order) with `lower`; zero when the
    /// absolute criteria forbid it. `current`/`following`: `lower` is a resident of the
    /// bracket being paired / of the next score group.
    ///
    /// The fields from the most significant down: each value is added where the layout puts
    /// it (`rem`, the bits below the field, goes down field by field to 0).
    fn weight<const N: usize>(
        &self,
        higher: &DutchPlayer,
        lower: &DutchPlayer,
        current: bool,
        following: bool,
    ) -> Wide<N> {
        let mut r = Wide::<N>::zero();
        if !self.next.compatible(higher, lower) {
            return r;
        }
        let l = self.layout;
        let (g, s) = (l.group_bits, l.groups_bits);
        let at = |p: &DutchPlayer| self.at[p.order as usize];
        let mut rem = l.total_bits - 2;
        // Completion, and the bye only for an eligible player of the lowest possible score.
        let bye = 1 + !self.bye_candidate(higher) as u64 + !self.bye_candidate(lower) as u64;
        r.add_shifted(bye, rem);
        // Pairs in the bracket, then the scores paired in it; the same for the next bracket.
        rem -= g;
        r.add_shifted(current as u64, rem);
        rem -= s;
        if current {
            r.add_shifted(1, rem + at(higher));
        }
        rem -= g;
        r.add_shifted(following as u64, rem);
        rem -= s;
        if following {
            r.add_shifted(1, rem + at(higher));
        }
        // The fewest unplayed games for the bye's receiver.
        rem -= 2 * g;
        if self.single_downfloater_is_bye {
            if higher.score == self.bye_score {
                r.add_shifted(self.unplayed[higher.order as usize], rem);
            }
            if lower.score == self.bye_score {
                r.add_shifted(self.unplayed[lower.order as usize], rem);
            }
        }
        // Colours (lower as the player, higher as the opponent).
        rem -= 4 * g;
        if current {
            for (k, ok) in colour_fields(lower, higher).into_iter().enumerate() {
                r.add_shifted(ok as u64, rem + (3 - k as u32) * g);
            }
        }
        // Floats of the last round and of the one before.
        let played = l.played as usize;
        for back in 0..played.min(2) {
            rem -= g;
            if current {
                r.add_shifted((lower.floats[back] == Float::Down) as u64, rem);
                r.add_shifted(
                    (higher.score <= lower.score && higher.floats[back] == Float::Down) as u64,
                    rem,
                );
            }
            rem -= g;
            if current {
                let up = higher.score > lower.score && lower.floats[back] == Float::Up;
                r.add_shifted(!up as u64, rem);
            }
        }
        for back in 0..played.min(2) {
            rem -= s;
            if current {
                if lower.floats[back] == Float::Down {
                    r.add_shifted(1, rem + at(lower));
                }
                if higher.floats[back] == Float::Down {
                    r.add_shifted(1, rem + at(higher));
                }
            }
            rem -= s;
            if current && !(lower.floats[back] == Float::Up && higher.score > lower.score) {
                r.add_shifted(1, rem + at(higher));
            }
        }
        // Room for the order of the exchanges and of the pairs within a bracket.
        debug_assert_eq!(rem, 3 * g + 1);
        r
    }
}

/// The four colour fields of a pair in the bracket, the most significant first, `p` as the
/// player and `o` as the opponent.
fn colour_fields(p: &DutchPlayer, o: &DutchPlayer) -> [bool; 4] {
    let differ = colour(p) != colour(o);
    let repeat_ok = if imbalance(p) == imbalance(o) {
        p.repeated.is_none() || p.repeated != o.repeated
    } else {
        let bigger = if imbalance(p) > imbalance(o) { o } else { p };
        bigger.repeated != colour(p).map(Colour::opposite)
    };
    [
        imbalance(p) <= 1 || imbalance(o) <= 1 || differ,
        !p.absolute() || !o.absolute() || differ || repeat_ok,
        differ || colour(p).is_none() || colour(o).is_none(),
        (!strong(p) && !p.absolute())
            || (!strong(o) && !o.absolute())
            || (p.absolute() && o.absolute())
            || differ,
    ]
}

fn run<const N: usize>(
    next: &NextRound,
    sorted: &[&DutchPlayer],
    layout: &Layout,
) -> Result<(Vec<usize>, Stats), DutchError> {
    let mut pairer = Pairer::<N>::new(next, sorted, layout);
    pairer.first_matching()?;
    while pairer.vi.len() > 1 || pairer.next_at != sorted.len() {
        pairer.pair_bracket();
    }
    Ok((pairer.result, pairer.m.stats()))
}

/// The state of a pairing that runs across the brackets: the matcher, the inputs of the
/// weights, and who is paired so far.
struct Pairer<'a, const N: usize> {
    next: &'a NextRound,
    sorted: &'a [&'a DutchPlayer],
    layout: &'a Layout,
    ctx: Context<'a>,
    m: Matcher<Wide<N>>,
    /// The weight above all others that a fixed pair is given.
    top: Wide<N>,
    /// An odd number of players: somebody gets the bye.
    odd: bool,
    /// Each player's opponent (the player itself for the bye or while unpaired).
    result: Vec<usize>,
    /// The players of the bracket being paired (moved-down players first) and of the next
    /// score group, as vertices.
    vi: Vec<usize>,
    /// The first player not yet in `vi`.
    next_at: usize,
    /// The players whose pair in the bracket is decided.
    matched: Vec<bool>,
    /// Where the bracket's residents start in `vi` (after the moved-down players), and the
    /// first of their vertices.
    group_begin: usize,
    group_begin_vertex: usize,
}

/// One bracket being paired: where its parts lie in [`Pairer::vi`], its plain weights and the
/// matching last computed.
struct Bracket<const N: usize> {
    /// Where the next score group starts in `vi`, and the first of its vertices.
    next_begin: usize,
    next_begin_vertex: usize,
    /// The first player of the next score group.
    group_at: usize,
    /// The weights without the orders of the stages, by place in `vi` (larger place first).
    base: Vec<Vec<Wide<N>>>,
    /// The matching last computed.
    stable: Vec<usize>,
    /// The residents not paired with a moved-down player (as places in `vi`), and how many
    /// of them form S1.
    remainder: Vec<usize>,
    pairs: usize,
}

impl<const N: usize> Bracket<N> {
    /// Whether `v` is matched to a player of S2 or left over: an S1 player exchanged.
    fn exchanged_s1(&self, v: usize) -> bool {
        self.stable[v] <= v || self.stable[v] >= self.next_begin_vertex
    }

    /// Whether `v` is matched to a later player of the bracket: a player of S1.
    fn paired_down(&self, v: usize) -> bool {
        self.stable[v] > v && self.stable[v] < self.next_begin_vertex
    }
}

#[allow(clippy::needless_range_loop)] // indices into several parallel tables
impl<'a, const N: usize> Pairer<'a, N> {
    /// The pairing before the first matching, with the first score group as the bracket.
    fn new(next: &'a NextRound, sorted: &'a [&'a DutchPlayer], layout: &'a Layout) -> Self {
        let n = sorted.len();
        let mut top = Wide::<N>::small(1);
        top.shl(layout.total_bits);
        top.sub_small(1);
        let orders = sorted
            .iter()
            .map(|p| p.order as usize + 1)
            .max()
            .unwrap_or(0);
        let mut at = vec![0; orders];
        for p in sorted {
            at[p.order as usize] = layout.shift[&p.score];
        }
        let ctx = Context {
            next,
            layout,
            bye_score: Points::ZERO,
            single_downfloater_is_bye: false,
            at,
            unplayed: vec![0; orders],
        };
        let mut vi: Vec<usize> = Vec::new();
        let mut next_at = 0;
        while next_at < n && sorted[next_at].score >= sorted[0].score {
            vi.push(next_at);
            next_at += 1;
        }
        Pairer {
            next,
            sorted,
            layout,
            ctx,
            m: Matcher::<Wide<N>>::new(n),
            top,
            odd: n % 2 == 1,
            result: (0..n).collect(),
            vi,
            next_at,
            matched: vec![false; n],
            group_begin: 0,
            group_begin_vertex: 0,
        }
    }

    /// The score of the player at `v`.
    fn score(&self, v: usize) -> Points {
        self.sorted[v].score
    }

    /// The matching for the weights as they now are.
    fn rematch(&mut self) -> Vec<usize> {
        self.m.compute();
        self.m.matching().to_vec()
    }

    /// Completability: whether all but at most one (eligible) player can be paired, and who
    /// gets the bye; then the weights of the whole graph for the brackets.
    fn first_matching(&mut self) -> Result<(), DutchError> {
        let (next, sorted, layout) = (self.next, self.sorted, self.layout);
        let n = sorted.len();
        let odd = self.odd;
        let g = layout.group_bits;
        for i in 0..n {
            for j in 0..i {
                let (p, o) = (sorted[i], sorted[j]);
                let w = if odd {
                    let mut w = Wide::<N>::zero();
                    if next.compatible(p, o) {
                        w.or_small(1 + !p.bye_eligible as u64 + !o.bye_eligible as u64);
                        w.shl(layout.groups_bits);
                        w.add_small((layout.shift[&p.score] + layout.shift[&o.score]) as u64);
                        w.shl(g);
                        w.or_small((p.score >= sorted[0].score) as u64);
                    }
                    w
                } else {
                    self.ctx.weight(o, p, false, false)
                };
                self.m.set(i, j, w);
            }
        }
        self.m.compute();
        let mates = self.m.matching();
        let unpaired: Vec<usize> = (0..n).filter(|&v| mates[v] == v).collect();
        if unpaired.len() > 1 || unpaired.iter().any(|&v| !sorted[v].bye_eligible) {
            return Err(no_pairing(next, sorted, &unpaired));
        }
        if odd {
            let ctx = &mut self.ctx;
            let score = |v: usize| sorted[v].score;
            let bye = unpaired[0];
            ctx.bye_score = score(bye);
            let top_score = score(0);
            ctx.single_downfloater_is_bye = ctx.bye_score >= top_score
                && (0..n)
                    .take_while(|&v| score(v) >= top_score)
                    .all(|v| score(mates[v]) >= top_score);
            let mut counts: Vec<u32> = sorted
                .iter()
                .filter(|p| p.score == ctx.bye_score)
                .map(|p| p.played_games)
                .collect();
            counts.sort_unstable_by(|a, b| b.cmp(a));
            let mut unplayed_ranks = HashMap::new();
            for (rank, c) in counts.into_iter().enumerate() {
                unplayed_ranks.insert(c, rank as u64);
            }
            for p in sorted.iter().filter(|p| p.score == ctx.bye_score) {
                ctx.unplayed[p.order as usize] = unplayed_ranks[&p.played_games];
            }
            for i in 0..n {
                for j in 0..i {
                    self.m
                        .set(i, j, self.ctx.weight(sorted[j], sorted[i], false, false));
                }
            }
        }
        Ok(())
    }

    /// Pairs the bracket in `vi` as far as it can be paired, and carries the rest down.
    fn pair_bracket(&mut self) {
        let mut b = self.open_bracket();
        self.choose_moved_down(&mut b);
        self.pair_moved_down(&mut b);
        let exchanges = self.order_exchanges(&mut b);
        self.exchange_lowest_s1(&mut b, exchanges);
        self.exchange_highest_s2(&mut b, exchanges);
        self.restore_plain_weights(&mut b);
        self.pair_s1(&mut b);
        self.carry_down(&b);
    }

    /// Adds the next score group to `vi`, gives the bracket its weights and matches.
    fn open_bracket(&mut self) -> Bracket<N> {
        let n = self.sorted.len();
        let next_begin = self.vi.len();
        let next_begin_vertex = self.group_begin_vertex + (next_begin - self.group_begin);
        let group_at = self.next_at;
        while self.next_at < n && self.score(self.next_at) >= self.score(group_at) {
            self.vi.push(self.next_at);
            self.next_at += 1;
        }
        let (sorted, vi) = (self.sorted, &self.vi);
        let count = vi.len();
        let mut base: Vec<Vec<Wide<N>>> = vec![Vec::new(); count];
        for (larger, row) in base.iter_mut().enumerate().skip(self.group_begin) {
            for smaller in 0..larger {
                row.push(self.ctx.weight(
                    sorted[vi[smaller]],
                    sorted[vi[larger]],
                    larger < next_begin,
                    larger >= next_begin,
                ));
            }
        }
        for (larger, row) in base.iter().enumerate() {
            for (smaller, w) in row.iter().enumerate() {
                self.m.set(vi[larger], vi[smaller], *w);
            }
        }
        Bracket {
            next_begin,
            next_begin_vertex,
            group_at,
            base,
            stable: self.rematch(),
            remainder: Vec::new(),
            pairs: 0,
        }
    }

    /// The weight in the remainder with the exchange order: fewer exchanges, then the
    /// smallest difference of the exchanged numbers.
    fn exchange_weight(
        &self,
        b: &Bracket<N>,
        smaller: usize,
        larger: usize,
        index: usize,
    ) -> Wide<N> {
        let mut w = b.base[larger][smaller];
        if !w.is_zero() {
            w.add_at(2 * self.layout.group_bits + 1, (index < b.pairs) as u64);
            w.sub_small(2 * index as u64);
        }
        w
    }

    /// Whether `v` is matched to a resident of the bracket.
    fn in_bracket(&self, b: &Bracket<N>, v: usize) -> bool {
        b.stable[v] >= self.group_begin_vertex && b.stable[v] < b.next_begin_vertex
    }

    /// The moved-down players to pair in this bracket, from the top.
    fn choose_moved_down(&mut self, b: &mut Bracket<N>) {
        let (group_begin, next_begin) = (self.group_begin, b.next_begin);
        let mut md_score = Points::ZERO;
        let mut remaining = 0usize;
        let mut remaining_matched = 0usize;
        for i in 0..group_begin {
            if i == 0 || self.score(self.vi[i]) < md_score {
                md_score = self.score(self.vi[i]);
                remaining = 0;
                remaining_matched = 0;
                let mut k = i;
                while k < group_begin && self.score(self.vi[k]) >= md_score {
                    remaining += 1;
                    if self.in_bracket(b, self.vi[k]) {
                        remaining_matched += 1;
                    }
                    k += 1;
                }
            }
            if remaining_matched == 0 {
                continue;
            }
            let v = self.vi[i];
            if remaining <= remaining_matched {
                self.matched[v] = true;
                continue;
            }
            remaining -= 1;
            if !self.in_bracket(b, v) {
                for o in group_begin..next_begin {
                    let mut w = b.base[o][i];
                    if !w.is_zero() {
                        w.or_small(1);
                        self.m.set(v, self.vi[o], w);
                    }
                }
                b.stable = self.rematch();
            }
            if self.in_bracket(b, v) {
                self.matched[v] = true;
                remaining_matched -= 1;
                for o in group_begin..next_begin {
                    let mut w = b.base[o][i];
                    if !w.is_zero() {
                        w.or_small((next_begin - group_begin) as u64);
                        w.add_small(1);
                        self.m.set(v, self.vi[o], w);
                    }
                }
            }
        }
    }

    /// The moved-down players' opponents: the highest possible resident for each, in order.
    fn pair_moved_down(&mut self, b: &mut Bracket<N>) {
        let count = self.vi.len();
        for i in 0..self.group_begin {
            let v = self.vi[i];
            if !self.matched[v] {
                continue;
            }
            let mut addend = count as u64;
            for o in (self.group_begin..b.next_begin).rev() {
                let ov = self.vi[o];
                if self.matched[ov] {
                    continue;
                }
                let mut w = b.base[o][i];
                if !w.is_zero() {
                    w.add_small(addend);
                    self.m.set(v, ov, w);
                    addend += 1;
                }
            }
            b.stable = self.rematch();
            let mv = b.stable[v];
            self.matched[mv] = true;
            self.m.fix_pair(v, mv, &self.top);
        }
    }

    /// The remainder (the residents not paired with a moved-down player) weighted with the
    /// exchange order; returns how many exchanges the best pairing needs.
    fn order_exchanges(&mut self, b: &mut Bracket<N>) -> usize {
        for i in self.group_begin..b.next_begin {
            let v = self.vi[i];
            if b.stable[v] < self.group_begin_vertex {
                continue;
            }
            b.remainder.push(i);
            if b.stable[v] < v {
                b.pairs += 1;
            }
        }
        for (oi, &o) in b.remainder.iter().enumerate() {
            for (pi, &p) in b.remainder[..oi].iter().enumerate() {
                let w = self.exchange_weight(b, p, o, pi);
                self.m.set(self.vi[p], self.vi[o], w);
            }
        }
        b.stable = self.rematch();
        b.remainder[..b.pairs]
            .iter()
            .filter(|&&p| b.exchanged_s1(self.vi[p]))
            .count()
    }

    /// The lowest players of S1 to exchange, where possible.
    fn exchange_lowest_s1(&mut self, b: &mut Bracket<N>, exchanges: usize) {
        let mut left = exchanges;
        let mut pos = b.pairs;
        while pos > 0 && left > 0 {
            let from = pos;
            pos -= 1;
            let v = self.vi[b.remainder[pos]];
            if b.paired_down(v) {
                for &o in &b.remainder[from..] {
                    let mut w = self.exchange_weight(b, b.remainder[pos], o, pos);
                    if !w.is_zero() {
                        w.sub_small(1);
                        self.m.set(v, self.vi[o], w);
                    }
                }
                b.stable = self.rematch();
            }
            let exchange = b.exchanged_s1(v);
            left -= exchange as usize;
            for k in pos + 1..b.remainder.len() {
                let o = b.remainder[k];
                if exchange {
                    b.base[o][b.remainder[pos]] = Wide::zero();
                }
                let w = self.exchange_weight(b, b.remainder[pos], o, pos);
                self.m.set(v, self.vi[o], w);
            }
        }
    }

    /// The highest players of S2 to exchange, where possible.
    fn exchange_highest_s2(&mut self, b: &mut Bracket<N>, exchanges: usize) {
        let mut left = exchanges;
        let mut pos = b.pairs;
        while pos < b.remainder.len() && left > 1 {
            let p = b.remainder[pos];
            let v = self.vi[p];
            let already = b.paired_down(v);
            if !already {
                for &o in &b.remainder[pos + 1..] {
                    let mut w = self.exchange_weight(b, p, o, pos);
                    if !w.is_zero() {
                        w.add_small(1);
                        self.m.set(v, self.vi[o], w);
                    }
                }
                b.stable = self.rematch();
            }
            if b.paired_down(v) {
                left -= 1;
                for &o in &b.remainder[..pos] {
                    b.base[p][o] = Wide::zero();
                    self.m.set(v, self.vi[o], Wide::zero());
                }
                for o in b.next_begin..self.vi.len() {
                    b.base[o][p] = Wide::zero();
                    self.m.set(v, self.vi[o], Wide::zero());
                }
            }
            if !already {
                for &o in &b.remainder[pos + 1..] {
                    let w = self.exchange_weight(b, p, o, pos);
                    self.m.set(v, self.vi[o], w);
                }
            }
            pos += 1;
        }
    }

    /// S1 and S2 are fixed: back to the plain weights.
    fn restore_plain_weights(&mut self, b: &mut Bracket<N>) {
        for (a, &p) in b.remainder.iter().enumerate() {
            let pv = self.vi[p];
            for &o in &b.remainder[a + 1..] {
                let ov = self.vi[o];
                if b.exchanged_s1(pv) || b.paired_down(ov) {
                    b.base[o][p] = Wide::zero();
                }
                self.m.set(pv, ov, b.base[o][p]);
            }
        }
    }

    /// Each S1 player in order gets the highest S2 player the criteria allow.
    fn pair_s1(&mut self, b: &mut Bracket<N>) {
        for &p in &b.remainder {
            let pv = self.vi[p];
            if !b.paired_down(pv) {
                continue;
            }
            let mut addend = 0u64;
            for &o in b.remainder.iter().rev() {
                let ov = self.vi[o];
                if o <= p || self.matched[ov] {
                    continue;
                }
                let mut w = b.base[o][p];
                if !w.is_zero() {
                    w.add_small(addend);
                    self.m.set(pv, ov, w);
                }
                addend += 1;
            }
            b.stable = self.rematch();
            let mv = b.stable[pv];
            self.matched[pv] = true;
            self.matched[mv] = true;
            self.m.fix_pair(pv, mv, &self.top);
        }
    }

    /// Pairs made; the rest move down to the next bracket.
    fn carry_down(&mut self, b: &Bracket<N>) {
        let n = self.sorted.len();
        let (next_begin, group_at, stable) = (b.next_begin, b.group_at, &b.stable);
        let mut carried = Vec::new();
        self.group_begin = 0;
        self.ctx.single_downfloater_is_bye =
            self.odd && group_at != n && self.ctx.bye_score >= self.score(group_at);
        for (i, &v) in self.vi.iter().enumerate() {
            if i < next_begin && self.matched[v] {
                self.result[v] = stable[v];
                self.result[stable[v]] = v;
            } else {
                carried.push(v);
                if i < next_begin {
                    self.group_begin += 1;
                }
                if self.ctx.single_downfloater_is_bye
                    && self.score(stable[v]) < self.score(group_at)
                {
                    self.ctx.single_downfloater_is_bye = false;
                }
            }
        }
        self.vi = carried;
        self.group_begin_vertex = b.next_begin_vertex;
    }
}

/// Why no pairing exists, in words: the players left over by the best pairing the absolute
/// criteria allow.
fn no_pairing(next: &NextRound, sorted: &[&DutchPlayer], unpaired: &[usize]) -> DutchError {
    let names: Vec<String> = unpaired
        .iter()
        .map(|&v| sorted[v].rank.to_string())
        .collect();
    let n = sorted.len();
    // A round robin is the most rounds without a rematch: n - 1 for even n, n for odd n.
    let most = if n.is_multiple_of(2) { n - 1 } else { n };
    let reason = if next.paired as usize + 1 > most {
        format!(
            "{} players cannot play {} rounds without a rematch",
            n,
            next.paired + 1
        )
    } else if unpaired.len() == 1 {
        format!(
            "only player {} is left without an opponent and may not have the bye again",
            names[0]
        )
    } else {
        format!(
            "at best players {} are left without an opponent (all other pairs would be rematches or break the colour rules)",
            names.join(", ")
        )
    };
    DutchError::NoLegalPairing(reason)
}
