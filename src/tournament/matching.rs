//! Maximum-weight matching in a general graph (Edmonds' blossom algorithm with dual
//! variables), over any exact integer weight type: the Dutch system encodes its criteria
//! lexicographically in very wide integers ([`Wide`]). A first computation is O(n³); later ones
//! re-open only the vertices where a changed edge breaks the optimality conditions, and pairs
//! fixed for good leave the searches (see [`Matcher`]). Within a computation the forest of
//! alternating trees outlives each augmentation: only the trees it used are taken down, so
//! many free vertices do not each cost a scan of every other tree again.
//!
//! The searches' arithmetic is on wide integers; most edges far from tight are passed over by
//! their top two words alone ([`Weight::top`], kept beside each distinct weight). The
//! weights themselves are few distinct values: each is stored once, and the `(n + 1)²` table
//! holds a 4-byte index an entry.
//!
//! A weight of zero means "no edge". The matching maximises the total weight; it need not be
//! of maximum cardinality (the Dutch weights make cardinality their highest criterion).

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// The integer arithmetic the matching needs. Values never go below zero.
pub trait Weight: Clone + Ord + Debug + Hash {
    fn zero() -> Self;
    fn is_zero(&self) -> bool;
    fn plus(&self, other: &Self) -> Self;
    /// `self - other`, with `other <= self`.
    fn minus(&self, other: &Self) -> Self;
    /// `self + b - c`, with `c <= self + b`: an edge's slack from its ends' duals.
    fn plus_minus(&self, b: &Self, c: &Self) -> Self {
        self.plus(b).minus(c)
    }
    fn half(&self) -> Self;
    fn twice(&self) -> Self;
    /// The two most significant 64-bit words (the whole value if it has fewer), as one
    /// number below 2^125: for `a`, `b`, `c`, the top of `a + b - c` lies within one of
    /// `top(a) + top(b) - top(c)`, which lets the searches pass over most edges far from tight
    /// without the whole arithmetic.
    fn top(&self) -> u128;
}

impl Weight for u64 {
    fn zero() -> Self {
        0
    }
    fn is_zero(&self) -> bool {
        *self == 0
    }
    fn plus(&self, other: &Self) -> Self {
        self + other
    }
    fn minus(&self, other: &Self) -> Self {
        self - other
    }
    fn half(&self) -> Self {
        self / 2
    }
    fn twice(&self) -> Self {
        self * 2
    }
    fn top(&self) -> u128 {
        *self as u128
    }
}

/// An unsigned integer of `N` 64-bit words, least significant first.
#[derive(Clone, Copy, Eq, Debug)]
pub struct Wide<const N: usize>(pub [u64; N]);

impl<const N: usize> PartialEq for Wide<N> {
    /// All words at once, without a call to `memcmp`.
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        let mut diff = 0;
        for i in 0..N {
            diff |= self.0[i] ^ other.0[i];
        }
        diff == 0
    }
}

impl<const N: usize> Hash for Wide<N> {
    /// Word by word, as [`PartialEq`] compares.
    fn hash<H: Hasher>(&self, state: &mut H) {
        for &w in &self.0 {
            state.write_u64(w);
        }
    }
}

impl<const N: usize> Default for Wide<N> {
    fn default() -> Self {
        Wide([0; N])
    }
}

impl<const N: usize> Ord for Wide<N> {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        for i in (0..N).rev() {
            if self.0[i] != other.0[i] {
                return self.0[i].cmp(&other.0[i]);
            }
        }
        Ordering::Equal
    }
}

impl<const N: usize> PartialOrd for Wide<N> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<const N: usize> Wide<N> {
    pub fn small(v: u64) -> Self {
        let mut w = Wide([0; N]);
        w.0[0] = v;
        w
    }
    /// Shifts left by `bits` (bits beyond the top are lost).
    pub fn shl(&mut self, bits: u32) {
        let words = (bits / 64) as usize;
        let rest = bits % 64;
        for i in (0..N).rev() {
            let lo = if i >= words { self.0[i - words] } else { 0 };
            let lower = if i > words { self.0[i - words - 1] } else { 0 };
            self.0[i] = if rest == 0 {
                lo
            } else {
                (lo << rest) | (lower >> (64 - rest))
            };
        }
    }
    /// Adds `1 << bit` times `v` (v small).
    pub fn add_at(&mut self, bit: u32, v: u64) {
        self.add_shifted(v, bit);
    }
    pub fn add_small(&mut self, v: u64) {
        self.add_shifted(v, 0);
    }
    pub fn sub_small(&mut self, v: u64) {
        *self = self.minus(&Wide::small(v));
    }
    pub fn or_small(&mut self, v: u64) {
        self.0[0] |= v;
    }
    /// Adds `v << bit`, as [`Wide::add_at`] does (what goes beyond the top is lost), with
    /// no shift of the whole number.
    #[inline]
    pub fn add_shifted(&mut self, v: u64, bit: u32) {
        if v == 0 {
            return;
        }
        let (at, rest) = ((bit / 64) as usize, bit % 64);
        let lo = v << rest;
        let hi = if rest == 0 { 0 } else { v >> (64 - rest) };
        let mut carry = false;
        for (k, add) in [(at, lo), (at + 1, hi)] {
            if k < N {
                let (x, c1) = self.0[k].overflowing_add(add);
                let (x, c2) = x.overflowing_add(carry as u64);
                self.0[k] = x;
                carry = c1 | c2;
            }
        }
        let mut k = at + 2;
        while carry && k < N {
            let (x, c) = self.0[k].overflowing_add(1);
            self.0[k] = x;
            carry = c;
            k += 1;
        }
    }
}

impl<const N: usize> Weight for Wide<N> {
    fn zero() -> Self {
        Wide([0; N])
    }
    #[inline]
    fn is_zero(&self) -> bool {
        // The top word first: a weight's or a dual's is seldom zero.
        self.0[N - 1] == 0 && self.0.iter().fold(0, |a, &w| a | w) == 0
    }
    fn plus(&self, other: &Self) -> Self {
        let mut out = [0; N];
        let mut carry = false;
        for (i, o) in out.iter_mut().enumerate() {
            let (s, c1) = self.0[i].overflowing_add(other.0[i]);
            let (s, c2) = s.overflowing_add(carry as u64);
            *o = s;
            carry = c1 || c2;
        }
        Wide(out)
    }
    fn minus(&self, other: &Self) -> Self {
        let mut out = [0; N];
        let mut borrow = false;
        for (i, o) in out.iter_mut().enumerate() {
            let (s, b1) = self.0[i].overflowing_sub(other.0[i]);
            let (s, b2) = s.overflowing_sub(borrow as u64);
            *o = s;
            borrow = b1 || b2;
        }
        debug_assert!(!borrow, "negative weight");
        Wide(out)
    }
    #[inline]
    fn plus_minus(&self, b: &Self, c: &Self) -> Self {
        // One pass, a carry chain and a borrow chain side by side (modulo 2^(64N): the
        // result fits, so a carry out of the sum cancels the borrow out of the difference).
        let mut out = [0; N];
        let (mut carry, mut borrow) = (false, false);
        for (i, o) in out.iter_mut().enumerate() {
            let (s, c1) = self.0[i].overflowing_add(b.0[i]);
            let (s, c2) = s.overflowing_add(carry as u64);
            carry = c1 | c2;
            let (d, b1) = s.overflowing_sub(c.0[i]);
            let (d, b2) = d.overflowing_sub(borrow as u64);
            borrow = b1 | b2;
            *o = d;
        }
        debug_assert!(carry == borrow, "negative weight");
        Wide(out)
    }
    fn half(&self) -> Self {
        let mut out = [0; N];
        for (i, o) in out.iter_mut().enumerate() {
            let hi = if i + 1 < N { self.0[i + 1] << 63 } else { 0 };
            *o = (self.0[i] >> 1) | hi;
        }
        Wide(out)
    }
    fn twice(&self) -> Self {
        let mut w = *self;
        w.shl(1);
        w
    }
    fn top(&self) -> u128 {
        if N >= 2 {
            ((self.0[N - 1] as u128) << 64) | self.0[N - 2] as u128
        } else {
            self.0[0] as u128
        }
    }
}

const NONE: usize = 0;

/// A hasher for the weights' words (the multiply-and-rotate of rustc's `FxHasher`, with a
/// last mix so that the low bits depend on every word): the weights are not chosen by an
/// adversary, and hashing them must cost little next to the searches.
#[derive(Default)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u64(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn finish(&self) -> u64 {
        let h = self.0 ^ (self.0 >> 29);
        h.wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ (h >> 32)
    }
}

/// A weighted graph on vertices `0..n` whose maximum-weight matching is kept up to date as
/// weights change.
///
/// The matching, the dual variables and the blossoms stay between computations. Each
/// [`Matcher::set`] names a *modified* vertex (its first argument). The next
/// [`Matcher::compute`] keeps the matching where the change leaves it provably optimal (an
/// unmatched edge between two vertices outside blossoms that stays within their duals) and
/// otherwise re-opens the modified vertex: frees it from its mate and blossoms, raises its
/// dual until every dual constraint holds again, and augments from it (free vertices joined
/// by a tight edge are matched at once, many per search). After changes at `k` vertices a
/// computation costs at most about `k` augmentations instead of a whole solve; changes at
/// more than half of the vertices start over from scratch.
/// [`Matcher::fix_pair`] settles a matched pair for good at no cost and leaves it out of
/// later searches. Weights are kept doubled, each distinct one once, with an `(n + 1)²` table
/// of their indices read row by row.
pub struct Matcher<W: Weight> {
    n: usize,
    b: Blossom<W>,
    /// Edges changed since the last computation (vertices from 1, the modified one first).
    changed: Vec<(u32, u32)>,
    /// Vertices to re-open (from 1), and a flag for each.
    dirty: Vec<usize>,
    is_dirty: Vec<bool>,
    fresh: bool,
    matching: Vec<usize>,
    stats: Stats,
}

/// Counters of the work done, for the benchmark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Calls of [`Matcher::compute`].
    pub computes: u64,
    /// Of those, the ones that started from scratch.
    pub from_scratch: u64,
    /// Vertices re-opened in all.
    pub reopened: u64,
    /// Augmentations (and other changes of the matching) in all.
    pub stages: u64,
    /// Vertices whose edges the searches scanned, in all.
    pub scans: u64,
    /// Changes of the dual variables in the searches, in all.
    pub dual_updates: u64,
    /// Pairs fixed without a search (see [`Matcher::fix_pair`]).
    pub fixed_at_once: u64,
    /// Augmentations along a single tight edge between free vertices, made without a search.
    pub paired_at_once: u64,
}

impl<W: Weight> Matcher<W> {
    pub fn new(n: usize) -> Self {
        Matcher {
            n,
            b: Blossom::new(n),
            changed: Vec::new(),
            dirty: Vec::new(),
            is_dirty: vec![false; n + 1],
            fresh: true,
            matching: (0..n).collect(),
            stats: Stats::default(),
        }
    }

    /// Sets the weight of edge `u`–`v` (from 0); zero removes it. `u` is the modified vertex:
    /// the next computation re-opens it (unless the weight is unchanged).
    pub fn set(&mut self, u: usize, v: usize, w: W) {
        debug_assert_ne!(u, v);
        let w2 = w.twice();
        if *self.b.wt(u + 1, v + 1) == w2 {
            return;
        }
        self.b.put(u + 1, v + 1, w2);
        if !self.fresh {
            self.changed.push((u as u32 + 1, v as u32 + 1));
        }
        for x in [u + 1, v + 1] {
            // A fixed pair back in the searches: re-opened, which also renews the blossoms'
            // best edges to them (made while they were left out).
            if let Some(p) = self.b.revive(x) {
                for y in [x, p] {
                    if !self.is_dirty[y] {
                        self.is_dirty[y] = true;
                        self.dirty.push(y);
                    }
                }
            }
        }
    }

    /// Fixes the pair `a`–`b` (from 0): its weight becomes `w`, at least the weight of any
    /// edge, and every other edge at `a` or `b` is removed. After a computation that matched
    /// them to each other outside blossoms this costs no search: the duals are raised so that
    /// the matching stays optimal, and the two are left out of later searches (until an edge
    /// at them is set again). Otherwise it is the same as setting those edges.
    pub fn fix_pair(&mut self, a: usize, b: usize, w: &W) {
        let (x, y) = (a + 1, b + 1);
        let w2 = w.twice();
        let bl = &self.b;
        let sum = bl.lab[x].plus(&bl.lab[y]);
        let fast = !self.fresh
            && self.changed.is_empty()
            && bl.mate[x] == y
            && bl.st[x] == x
            && bl.st[y] == y
            && bl.fixed[x] == NONE
            && bl.fixed[y] == NONE
            && sum == *bl.wt(x, y)
            && w2 >= sum;
        if !fast {
            for u in 0..self.n {
                if u != a {
                    self.set(a, u, if u == b { w.clone() } else { W::zero() });
                }
                if u != b {
                    self.set(b, u, if u == a { w.clone() } else { W::zero() });
                }
            }
            return;
        }
        self.stats.fixed_at_once += 1;
        let bl = &mut self.b;
        for u in 1..=self.n {
            if u != x && u != y {
                bl.put(x, u, W::zero());
                bl.put(y, u, W::zero());
            }
        }
        bl.lab[x] = bl.lab[x].plus(&w2.minus(&sum));
        bl.put(x, y, w2);
        bl.fixed[x] = y;
        bl.fixed[y] = x;
        bl.live.retain(|&v| v != x && v != y);
    }

    pub fn weight(&self, u: usize, v: usize) -> W {
        self.b.wt(u + 1, v + 1).half()
    }

    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Computes a maximum-weight matching of the current weights, from the last one where
    /// possible.
    pub fn compute(&mut self) {
        // A changed edge that is unmatched, outside every blossom and still within its
        // endpoints' duals leaves the matching optimal: only the others re-open their vertex.
        for &(u, v) in &self.changed {
            let (u, v) = (u as usize, v as usize);
            if !self.is_dirty[u] && self.b.violated(u, v) {
                self.is_dirty[u] = true;
                self.dirty.push(u);
            }
        }
        self.changed.clear();
        let scratch = self.fresh || 2 * self.dirty.len() > self.n;
        self.run(scratch);
    }

    /// [`Matcher::compute`] forgetting the last matching and duals: the reference the
    /// incremental computation is tested against.
    pub fn compute_from_scratch(&mut self) {
        self.changed.clear();
        self.run(true);
    }

    fn run(&mut self, scratch: bool) {
        self.stats.computes += 1;
        if scratch {
            self.stats.from_scratch += 1;
            self.b.reset();
        } else {
            self.stats.reopened += self.dirty.len() as u64;
            self.b.reopen(&self.dirty);
        }
        for &v in &self.dirty {
            self.is_dirty[v] = false;
        }
        self.dirty.clear();
        self.fresh = false;
        // The unit tests check the blossom structure after every change.
        let chk = cfg!(test);
        if chk {
            self.b.check(if scratch { "reset" } else { "reopen" });
        }
        self.b.try_pairs = true;
        self.b.forest = false;
        while self.b.step(&mut self.stats) {
            self.stats.stages += 1;
            if chk {
                self.b.check("step");
            }
        }
        if chk {
            self.b.check_optimal("end");
        }
        for u in 0..self.n {
            let m = self.b.mate[u + 1];
            self.matching[u] = if m == NONE { u } else { m - 1 };
        }
    }

    /// The mate of each vertex after [`Matcher::compute`]; an unmatched vertex is its own.
    pub fn matching(&self) -> &[usize] {
        &self.matching
    }
}

/// The blossom algorithm's state (vertices from 1; blossoms numbered n+1..=2n), kept between
/// computations. `lab` holds twice the dual variables: an edge's slack is
/// `lab[u] + lab[v] - 2 w(u, v)` plus the labels of the blossoms holding both ends.
struct Blossom<W: Weight> {
    n: usize,
    nx: usize,
    stride: usize,
    /// Edge weights, doubled, row by row (`(n + 1)²`, row and column 0 zero), each as its
    /// index in `vals`: the searches read one row at a time. Few weights are distinct (they
    /// are made of score groups, colours and floats), so 4 bytes an entry instead of a whole
    /// weight.
    w2: Vec<u32>,
    /// Each distinct doubled weight set so far, once; entry 0 is zero (no edge), and no
    /// other entry is zero.
    vals: Vec<W>,
    /// The top of each entry of `vals` (see [`Weight::top`]), for the searches' filter.
    tops: Vec<u128>,
    /// Where each value of `vals` is, and the last one looked up.
    index: HashMap<W, u32, BuildHasherDefault<WordHasher>>,
    last: u32,
    /// For blossom b (row `b - n - 1`, made when first used) and each vertex or blossom x:
    /// the original edge between them (see [`Blossom::e`]; two vertices are their own edge).
    edge: Vec<Vec<(u32, u32)>>,
    lab: Vec<W>,
    mate: Vec<usize>,
    slack: Vec<usize>,
    /// The slack of the edge `slack` names, while its vertex is not T-labelled.
    slack_d: Vec<W>,
    /// For each blossom, the number of the last scan that updated its slack.
    scanned: Vec<usize>,
    scan_no: usize,
    /// Whether the next search first pairs free vertices joined by tight edges: at the start
    /// of a computation and after the duals changed.
    try_pairs: bool,
    st: Vec<usize>,
    pa: Vec<usize>,
    /// For blossom b (row `b - n - 1`, made when first used) and vertex x in it: the child
    /// of b holding x.
    flower_from: Vec<Vec<u32>>,
    s: Vec<i8>,
    vis: Vec<usize>,
    stamp: usize,
    flower: Vec<Vec<usize>>,
    queue: std::collections::VecDeque<usize>,
    leaves: Vec<usize>,
    /// Scratch: the S vertices, in the order of `live` (see [`Blossom::set_slack_among`]).
    outer: Vec<usize>,
    /// The vertices not in a fixed pair (see [`Matcher::fix_pair`]), ascending: the only
    /// ones the searches look at.
    live: Vec<usize>,
    /// For each vertex in a fixed pair, its partner; [`NONE`] for live vertices.
    fixed: Vec<usize>,
    /// Whether the labels, slacks and queue hold a forest of alternating trees that the next
    /// search goes on from: after an augmentation only its trees are taken down.
    forest: bool,
    /// For each labelled top-level blossom (or vertex), the root of its alternating tree.
    root: Vec<usize>,
    /// The roots of the trees an augmentation used (see [`Blossom::take_down`]).
    spent: Vec<usize>,
}

impl<W: Weight> Blossom<W> {
    fn new(n: usize) -> Self {
        let size = 2 * n + 1;
        Blossom {
            n,
            nx: n,
            stride: size,
            w2: vec![0; (n + 1) * (n + 1)],
            vals: vec![W::zero()],
            tops: vec![0],
            index: HashMap::default(),
            last: 0,
            edge: vec![Vec::new(); n],
            lab: vec![W::zero(); size],
            mate: vec![NONE; size],
            slack: vec![0; size],
            slack_d: vec![W::zero(); size],
            scanned: vec![0; size],
            scan_no: 0,
            try_pairs: true,
            st: (0..size).collect(),
            pa: vec![0; size],
            flower_from: vec![Vec::new(); n],
            s: vec![-1; size],
            vis: vec![0; size],
            stamp: 0,
            flower: vec![Vec::new(); size],
            queue: Default::default(),
            leaves: Vec::new(),
            outer: Vec::new(),
            live: (1..=n).collect(),
            fixed: vec![NONE; n + 1],
            forest: false,
            root: vec![0; size],
            spent: Vec::new(),
        }
    }

    /// Forgets the matching, the blossoms and the duals: every vertex free with the largest
    /// weight as its (doubled) dual.
    fn reset(&mut self) {
        let mut max = 0;
        for &i in &self.w2 {
            if i != max && self.vals[i as usize] > self.vals[max as usize] {
                max = i;
            }
        }
        let wmax = self.vals[max as usize].half();
        self.nx = self.n;
        self.live = (1..=self.n).collect();
        self.fixed.fill(NONE);
        for x in 0..self.stride {
            self.st[x] = x;
            self.mate[x] = NONE;
            self.lab[x] = if x >= 1 && x <= self.n {
                wmax.clone()
            } else {
                W::zero()
            };
        }
    }

    /// Re-opens the vertices in `dirty`, whose edge weights changed: each leaves its mate and
    /// its blossoms and gets a dual just large enough for all its edges, so that the dual
    /// constraints and complementary slackness hold again everywhere else.
    fn reopen(&mut self, dirty: &[usize]) {
        for &v in dirty {
            self.isolate(v);
        }
        // First duals surely large enough, then each as small as the others allow (all
        // even, the parity that the free vertices starting a search must share).
        // The weights compared by their tops first (see [`Weight::top`]): a smaller top is
        // a smaller number.
        let np = self.n + 1;
        for &v in dirty {
            let mut top = 0;
            for &x in &self.live {
                let i = self.w2[v * np + x] as usize;
                if x != v
                    && i != top
                    && (self.tops[i] > self.tops[top]
                        || (self.tops[i] == self.tops[top] && self.vals[i] > self.vals[top]))
                {
                    top = i;
                }
            }
            self.lab[v] = self.vals[top].clone();
        }
        for &v in dirty {
            let mut need = W::zero();
            let mut need_top = 0;
            for &x in &self.live {
                let i = self.w2[v * np + x] as usize;
                if x == v || i == 0 {
                    continue;
                }
                // `w - lab[x]`, where positive, has a top of at most the tops' difference.
                let (tw, tl) = (self.tops[i], self.lab[x].top());
                if tw < tl || tw - tl < need_top {
                    continue;
                }
                let two_w = &self.vals[i];
                if *two_w > self.lab[x] {
                    let d = two_w.minus(&self.lab[x]);
                    if d > need {
                        need_top = d.top();
                        need = d;
                    }
                }
            }
            self.lab[v] = Self::even_up(need);
        }
        // The best edge between each blossom and each re-opened vertex (which is in none).
        for &v in dirty {
            for b in self.n + 1..=self.nx {
                if self.st[b] == b {
                    self.renew_best_edges(b, v);
                }
            }
        }
    }

    /// Renews the best edge between vertex `v` and every blossom in `x` (a vertex or a
    /// blossom not holding `v`): the edge of least slack, the first in the order of the
    /// leaves. An edge leaving a blossom has the slack of its ends' duals alone, whatever
    /// blossoms hold them, so each blossom's best edge is the best of its children's. Returns
    /// the best edge's end in `x` and its slack.
    fn renew_best_edges(&mut self, x: usize, v: usize) -> Option<(usize, W)> {
        if x <= self.n {
            // Row v of the table, which the whole renewal reads in turn.
            let w = self.wt(v, x);
            if w.is_zero() {
                return None;
            }
            return Some((x, self.lab[x].plus_minus(&self.lab[v], w)));
        }
        let mut best: Option<(usize, W)> = None;
        for i in 0..self.flower[x].len() {
            let c = self.flower[x][i];
            if let Some((u, d)) = self.renew_best_edges(c, v) {
                if best.as_ref().is_none_or(|(_, bd)| d < *bd) {
                    best = Some((u, d));
                }
            }
        }
        let e = best.as_ref().map_or((0, 0), |(u, _)| (*u as u32, v as u32));
        self.set_e(x, v, e);
        best
    }

    /// Matches free vertices (outside blossoms, dual above zero) joined by a tight edge, in
    /// vertex order: each such edge is an augmenting path by itself, so many are taken at once
    /// instead of one per search. Returns how many.
    fn pair_tight_roots(&mut self) -> u64 {
        let np = self.n + 1;
        let mut roots = std::mem::take(&mut self.leaves);
        roots.clear();
        for &x in &self.live {
            if self.st[x] == x && self.mate[x] == NONE && !self.lab[x].is_zero() {
                roots.push(x);
            }
        }
        let mut count = 0;
        for i in 0..roots.len() {
            let x = roots[i];
            if self.mate[x] != NONE {
                continue;
            }
            for &y in &roots[i + 1..] {
                let i = self.w2[x * np + y];
                let w = &self.vals[i as usize];
                if self.mate[y] == NONE && i != 0 && self.lab[x].plus(&self.lab[y]) == *w {
                    self.mate[x] = y;
                    self.mate[y] = x;
                    count += 1;
                    break;
                }
            }
        }
        self.leaves = roots;
        count
    }

    /// Puts vertex `x` and its partner back into the searches if their pair was fixed, and
    /// names the partner.
    fn revive(&mut self, x: usize) -> Option<usize> {
        let p = self.fixed[x];
        if p == NONE {
            return None;
        }
        self.fixed[x] = NONE;
        self.fixed[p] = NONE;
        for v in [x, p] {
            let at = self.live.partition_point(|&l| l < v);
            self.live.insert(at, v);
        }
        Some(p)
    }

    /// Whether the change of edge `u`–`v` needs `u` re-opened: the edge is matched (its
    /// weight changed), or weighs more than its endpoints' duals allow, or an end lies in a
    /// blossom (whose best edges, kept between computations, may name it).
    fn violated(&self, u: usize, v: usize) -> bool {
        self.mate[u] == v
            || self.st[u] != u
            || self.st[v] != v
            || self.lab[u].plus(&self.lab[v]) < *self.wt(u, v)
    }

    /// Panics unless the duals prove the matching optimal (for the unit tests).
    fn check_optimal(&self, tag: &str) {
        let np = self.n + 1;
        // The top-level blossom chain of each vertex.
        let mut holders: Vec<Vec<usize>> = vec![Vec::new(); np];
        for b in self.n + 1..=self.nx {
            if self.st[b] == 0 {
                continue;
            }
            let mut leaves = Vec::new();
            self.collect_leaves(b, &mut leaves);
            for u in leaves {
                holders[u].push(b);
            }
        }
        for u in 1..=self.n {
            if self.mate[u] == NONE {
                assert!(self.lab[u].is_zero(), "{tag}: free {u} has a dual");
            }
            for v in u + 1..=self.n {
                let w = self.wt(u, v);
                if w.is_zero() {
                    continue;
                }
                let mut sum = self.lab[u].plus(&self.lab[v]);
                for b in &holders[u] {
                    if holders[v].contains(b) {
                        sum = sum.plus(&self.lab[*b]);
                    }
                }
                assert!(sum >= *w, "{tag}: edge {u}-{v} infeasible");
                if self.mate[u] == v {
                    assert!(sum == *w, "{tag}: matched {u}-{v} not tight");
                }
            }
        }
    }

    /// Panics unless every vertex lies in exactly one top-level blossom that `st` names and
    /// the mates agree (for the unit tests).
    #[allow(clippy::needless_range_loop)]
    fn check(&self, tag: &str) {
        let mut seen = vec![0; self.stride];
        for x in 1..=self.nx {
            if self.st[x] == x {
                let mut leaves = Vec::new();
                self.collect_leaves(x, &mut leaves);
                for &u in &leaves {
                    seen[u] += 1;
                    assert_eq!(self.st[u], x, "{tag}: st of {u} is {} not {x}", self.st[u]);
                }
            }
        }
        for u in 1..=self.n {
            assert_eq!(seen[u], 1, "{tag}: vertex {u} in {} top-levels", seen[u]);
            let m = self.mate[u];
            if m != NONE {
                assert_eq!(self.mate[m], u, "{tag}: mate of {u}");
            }
        }
    }

    fn even_up(x: W) -> W {
        let odd = x.minus(&x.half().twice());
        x.plus(&odd)
    }

    fn collect_leaves(&self, b: usize, out: &mut Vec<usize>) {
        if b <= self.n {
            out.push(b);
        } else {
            for &c in &self.flower[b] {
                self.collect_leaves(c, out);
            }
        }
    }

    /// Frees vertex `v` from its mate (whose side becomes a free vertex of even dual) and
    /// from its blossoms.
    fn isolate(&mut self, v: usize) {
        let b = self.st[v];
        let pv = self.mate[b];
        if pv != NONE {
            let p = self.st[pv];
            self.set_match_at(p, pv, NONE);
            self.dissolve_to(p, pv);
            self.lab[pv] = Self::even_up(self.lab[pv].clone());
        }
        self.set_match_at(b, v, NONE);
        self.dissolve_to(b, v);
    }

    /// Dissolves the blossoms holding vertex `v`, the base of the free top-level blossom
    /// `b`: each blossom's dual goes to its vertices in halves, which keeps every edge inside
    /// as tight as it was and only loosens the edges leaving it.
    fn dissolve_to(&mut self, mut b: usize, v: usize) {
        while b > self.n {
            let half = self.lab[b].half();
            let mut leaves = std::mem::take(&mut self.leaves);
            leaves.clear();
            self.collect_leaves(b, &mut leaves);
            for &u in &leaves {
                self.lab[u] = self.lab[u].plus(&half);
            }
            self.leaves = leaves;
            self.lab[b] = W::zero();
            for i in 0..self.flower[b].len() {
                let c = self.flower[b][i];
                self.set_st(c, c);
            }
            self.st[b] = 0;
            self.mate[b] = NONE;
            b = self.st[v];
        }
    }

    /// The base vertex of top-level blossom (or vertex) `x`.
    fn base(&self, mut x: usize) -> usize {
        while x > self.n {
            x = self.flower[x][0];
        }
        x
    }

    fn e(&self, x: usize, y: usize) -> (usize, usize) {
        let (u, v) = if x > self.n {
            self.edge[x - self.n - 1][y]
        } else if y > self.n {
            let (a, b) = self.edge[y - self.n - 1][x];
            (b, a)
        } else {
            (x as u32, y as u32)
        };
        (u as usize, v as usize)
    }

    /// Sets the best edge between blossom `b` and `x` (and the reverse, if `x` is one).
    fn set_e(&mut self, b: usize, x: usize, (u, v): (u32, u32)) {
        self.edge[b - self.n - 1][x] = (u, v);
        if x > self.n {
            self.edge[x - self.n - 1][b] = (v, u);
        }
    }

    fn wt(&self, u: usize, v: usize) -> &W {
        if u == 0 || v == 0 || u == v {
            return &self.vals[0];
        }
        self.wt_at(u * (self.n + 1) + v)
    }

    /// The doubled weight at entry `at` of the table.
    #[inline(always)]
    fn wt_at(&self, at: usize) -> &W {
        &self.vals[self.w2[at] as usize]
    }

    /// The top of the doubled weight at entry `at` of the table.
    #[inline(always)]
    fn top_at(&self, at: usize) -> u128 {
        self.tops[self.w2[at] as usize]
    }

    /// Whether entry `at` of the table is no edge.
    #[inline(always)]
    fn no_edge(&self, at: usize) -> bool {
        self.w2[at] == 0
    }

    /// Sets the doubled weight of edge `u`–`v` in both directions.
    fn put(&mut self, u: usize, v: usize, w2: W) {
        let np = self.n + 1;
        let i = self.intern(w2);
        self.w2[u * np + v] = i;
        self.w2[v * np + u] = i;
    }

    /// The index of `w` in `vals`, added if new.
    fn intern(&mut self, w: W) -> u32 {
        if w.is_zero() {
            return 0;
        }
        if self.vals[self.last as usize] == w {
            return self.last;
        }
        let i = match self.index.get(&w) {
            Some(&i) => i,
            None => {
                let i = u32::try_from(self.vals.len()).expect("fewer than 2^32 weights");
                self.vals.push(w.clone());
                self.tops.push(w.top());
                self.index.insert(w, i);
                i
            }
        };
        self.last = i;
        i
    }

    fn dist(&self, x: usize, y: usize) -> W {
        let (u, v) = self.e(x, y);
        self.lab[u].plus_minus(&self.lab[v], self.wt(u, v))
    }

    fn ff(&self, b: usize, x: usize) -> usize {
        if b > self.n {
            self.flower_from[b - self.n - 1][x] as usize
        } else {
            // A vertex holds only itself.
            if x == b {
                b
            } else {
                0
            }
        }
    }

    /// The slack of the edge that `slack[x]` names (nonzero): kept in `slack_d` for the
    /// unlabelled and S-labelled; T-labelled ones do not use theirs, so it is computed.
    fn slack_of(&self, x: usize) -> W {
        if self.s[x] == 1 {
            self.dist(self.slack[x], x)
        } else {
            self.slack_d[x].clone()
        }
    }

    /// Whether the slack of edge `a`–`c` is surely above `bound`, from top words alone (see
    /// [`Weight::top`]): its top is at least the tops' sum less one.
    #[inline(always)]
    fn surely_looser(&self, a: usize, c: usize, bound: &W) -> bool {
        let t = self.lab[a].top() as i128 + self.lab[c].top() as i128
            - self.top_at(a * (self.n + 1) + c) as i128;
        t - 1 > bound.top() as i128
    }

    /// Makes the edge with ends `a`–`c` (none if `a` is 0), from S vertex `u` to `x`, the
    /// slack edge of `x` if it is real and tighter than the one so far.
    #[inline(always)]
    fn update_slack(&mut self, u: usize, x: usize, (a, c): (usize, usize)) {
        if a == 0 {
            return;
        }
        // A T-labelled x keeps no slack of its own (see `slack_of`); the others are read
        // in place.
        let t_labelled = self.s[x] == 1;
        if self.slack[x] != 0 {
            let looser = if t_labelled {
                self.surely_looser(a, c, &self.slack_of(x))
            } else {
                self.surely_looser(a, c, &self.slack_d[x])
            };
            if looser {
                return;
            }
        }
        if self.no_edge(a * (self.n + 1) + c) {
            return;
        }
        let d = self.lab[a].plus_minus(&self.lab[c], self.wt(a, c));
        let tighter = self.slack[x] == 0
            || if t_labelled {
                d < self.slack_of(x)
            } else {
                d < self.slack_d[x]
            };
        if tighter {
            self.slack[x] = u;
            self.slack_d[x] = d;
        }
    }

    fn set_slack(&mut self, x: usize) {
        let mut outer = std::mem::take(&mut self.outer);
        self.collect_outer(&mut outer);
        self.set_slack_among(x, &outer);
        self.outer = outer;
    }

    /// The S vertices, in the order of `live`, into `out`.
    fn collect_outer(&self, out: &mut Vec<usize>) {
        out.clear();
        for &u in &self.live {
            if self.s[self.st[u]] == 0 {
                out.push(u);
            }
        }
    }

    /// The slack edge of `x` from the S vertices `outer` (all of them, in the order of
    /// `live`: the first of the tightest wins).
    fn set_slack_among(&mut self, x: usize, outer: &[usize]) {
        self.slack[x] = 0;
        if x > self.n || self.s[x] == 1 {
            for &u in outer {
                if self.st[u] != x {
                    let ends = if x <= self.n { (x, u) } else { self.e(x, u) };
                    self.update_slack(u, x, ends);
                }
            }
            return;
        }
        // A vertex: row x of the tables, read in order, the bound's top kept at hand.
        let row = x * (self.n + 1);
        let lx = self.lab[x].top() as i128;
        let mut bound: Option<i128> = None;
        for &u in outer {
            if u == x {
                continue;
            }
            let t = lx + self.lab[u].top() as i128 - self.top_at(row + u) as i128;
            if bound.is_some_and(|b| t - 1 > b) {
                continue;
            }
            if self.no_edge(row + u) {
                continue;
            }
            let d = self.lab[x].plus_minus(&self.lab[u], self.wt_at(row + u));
            if bound.is_none() || d < self.slack_d[x] {
                bound = Some(d.top() as i128);
                self.slack[x] = u;
                self.slack_d[x] = d;
            }
        }
    }

    fn q_push(&mut self, x: usize) {
        if x <= self.n {
            self.queue.push_back(x);
        } else {
            for i in 0..self.flower[x].len() {
                let y = self.flower[x][i];
                self.q_push(y);
            }
        }
    }

    fn set_st(&mut self, x: usize, b: usize) {
        self.st[x] = b;
        if x > self.n {
            for i in 0..self.flower[x].len() {
                let y = self.flower[x][i];
                self.set_st(y, b);
            }
        }
    }

    fn get_pr(&mut self, b: usize, xr: usize) -> usize {
        let pr = self.flower[b].iter().position(|&x| x == xr).unwrap();
        if pr % 2 == 1 {
            self.flower[b][1..].reverse();
            self.flower[b].len() - pr
        } else {
            pr
        }
    }

    fn set_match(&mut self, u: usize, v: usize) {
        let (eu, ev) = self.e(u, v);
        self.set_match_at(u, eu, ev);
    }

    /// Matches `u` (vertex or blossom) through its vertex `inner` to vertex `other` (or to
    /// nobody), making `inner` the base of `u` and of every blossom in it that holds it.
    fn set_match_at(&mut self, u: usize, inner: usize, other: usize) {
        self.mate[u] = other;
        if u > self.n {
            let xr = self.ff(u, inner);
            let pr = self.get_pr(u, xr);
            for i in 0..pr {
                let (a, c) = (self.flower[u][i], self.flower[u][i ^ 1]);
                self.set_match(a, c);
            }
            self.set_match_at(xr, inner, other);
            self.flower[u].rotate_left(pr);
        }
    }

    fn augment(&mut self, mut u: usize, mut v: usize) {
        loop {
            let xnv = self.st[self.mate[u]];
            self.set_match(u, v);
            if xnv == 0 {
                return;
            }
            let next = self.st[self.pa[xnv]];
            self.set_match(xnv, next);
            u = next;
            v = xnv;
        }
    }

    /// Outer vertex `u0` has reached a dual of zero: it may stay unmatched, so the
    /// alternating path from it to its tree's free root is flipped (same cardinality, and the
    /// root, whose dual is positive, is matched).
    fn flip_to_root(&mut self, u0: usize) {
        let b = self.st[u0];
        self.spent.push(self.root[b]);
        let xnv = self.st[self.mate[b]];
        self.set_match_at(b, u0, NONE);
        if xnv != 0 {
            let next = self.st[self.pa[xnv]];
            self.set_match(xnv, next);
            self.augment(next, xnv);
        }
    }

    fn get_lca(&mut self, mut u: usize, mut v: usize) -> usize {
        self.stamp += 1;
        let t = self.stamp;
        while u != 0 || v != 0 {
            if u != 0 {
                if self.vis[u] == t {
                    return u;
                }
                self.vis[u] = t;
                u = self.st[self.mate[u]];
                if u != 0 {
                    u = self.st[self.pa[u]];
                }
            }
            std::mem::swap(&mut u, &mut v);
        }
        0
    }

    fn add_blossom(&mut self, u: usize, lca: usize, v: usize) {
        let mut b = self.n + 1;
        while b <= self.nx && self.st[b] != 0 {
            b += 1;
        }
        if b > self.nx {
            self.nx += 1;
        }
        self.lab[b] = W::zero();
        self.s[b] = 0;
        self.root[b] = self.root[lca];
        self.mate[b] = self.mate[lca];
        let mut fl = std::mem::take(&mut self.flower[b]);
        fl.clear();
        fl.push(lca);
        let mut x = u;
        while x != lca {
            fl.push(x);
            let y = self.st[self.mate[x]];
            fl.push(y);
            self.q_push(y);
            x = self.st[self.pa[y]];
        }
        fl[1..].reverse();
        let mut x = v;
        while x != lca {
            fl.push(x);
            let y = self.st[self.mate[x]];
            fl.push(y);
            self.q_push(y);
            x = self.st[self.pa[y]];
        }
        self.flower[b] = fl;
        self.set_st(b, b);
        // Only live vertices and blossoms: a fixed pair is never in one.
        let live = std::mem::take(&mut self.live);
        let row = b - self.n - 1;
        if self.edge[row].is_empty() {
            self.edge[row] = vec![(0, 0); self.stride];
            self.flower_from[row] = vec![0; self.n + 1];
        }
        let kids = std::mem::take(&mut self.flower[b]);
        // The best edge to each x: the first of least slack in the order of the children
        // (each child's own best edge to x, or its edge if both are vertices). x by x, so
        // that the slacks stay at hand and a slack is computed in full only when the top
        // words leave two candidates undecided. Those inside b, and freed blossom numbers
        // (one made anew gets its edges then), get none. No edge read here is in row b.
        let mut best_row = std::mem::take(&mut self.edge[row]);
        // b's slack edge from the S vertices (as `set_slack` would find it), on the way:
        // the first of least slack in the order of `live`.
        let (sb, sd) = self.best_to_vertices(b, &kids, &live, &mut best_row);
        self.slack[b] = sb;
        if let Some(d) = sd {
            self.slack_d[b] = d;
        }
        let (first, last) = (self.n + 1, self.nx);
        for (x, slot) in best_row.iter_mut().enumerate().take(last + 1).skip(first) {
            let best = if self.st[x] == b || self.st[x] == 0 {
                (0, 0)
            } else {
                let xr = x - self.n - 1;
                self.best_among(&kids, |bl, c| {
                    if c <= bl.n {
                        let (p, q) = bl.edge[xr][c];
                        (q, p)
                    } else {
                        bl.edge[c - bl.n - 1][x]
                    }
                })
            };
            *slot = best;
            if x != b {
                self.edge[x - self.n - 1][b] = (best.1, best.0);
            }
        }
        self.edge[row] = best_row;
        for &x in &live {
            self.flower_from[row][x] = 0;
        }
        for &xs in &kids {
            if xs <= self.n {
                self.flower_from[row][xs] = xs as u32;
            } else {
                for &x in &live {
                    if self.flower_from[xs - self.n - 1][x] != 0 {
                        self.flower_from[row][x] = xs as u32;
                    }
                }
            }
        }
        self.flower[b] = kids;
        self.live = live;
    }

    /// [`Blossom::best_among`] for new blossom `b` and each vertex x of `live` outside it,
    /// into `row` (the ends in `b` first), with `b`'s slack edge from the S vertices on the
    /// way: the first of least slack in the order of `live`, as [`Blossom::set_slack`] finds
    /// it (returned: the S vertex, or 0, and the slack). The edges from a child to x all end
    /// at x; a vertex child's row of weights is read in order.
    fn best_to_vertices(
        &self,
        b: usize,
        kids: &[usize],
        live: &[usize],
        row: &mut [(u32, u32)],
    ) -> (usize, Option<W>) {
        let np = self.n + 1;
        // Each child: a vertex (its dual's top at hand) or a blossom's row of best edges.
        let kid_rows: Vec<_> = kids
            .iter()
            .map(|&c| {
                if c <= self.n {
                    (c, None, self.lab[c].top() as i128)
                } else {
                    (c, Some(&self.edge[c - self.n - 1][..]), 0)
                }
            })
            .collect();
        let (mut sb, mut sd): (usize, Option<W>) = (0, None);
        for &x in live {
            if self.st[x] == b {
                row[x] = (0, 0);
                continue;
            }
            let lx = self.lab[x].top() as i128;
            // The best so far: its end in b, its weight, the top of its slack within one
            // of `bt`, and the slack itself once computed.
            let (mut bu, mut bi, mut bt) = (0, 0, 0);
            let mut bd: Option<W> = None;
            // The bounds of the best slack's top.
            let (mut lo, mut hi) = (0, 0);
            for &(c, edges, ctop) in &kid_rows {
                let (u, ut) = match edges {
                    None => (c, ctop),
                    Some(edges) => {
                        let u = edges[x].0 as usize;
                        if u == 0 {
                            continue;
                        }
                        debug_assert_eq!(edges[x].1 as usize, x, "a best edge to x ends at x");
                        (u, self.lab[u].top() as i128)
                    }
                };
                let i = self.w2[u * np + x];
                if i == 0 {
                    continue;
                }
                let t = ut + lx - self.tops[i as usize] as i128;
                if bu == 0 {
                    (bu, bi, bt, lo, hi) = (u, i, t, t - 1, t + 1);
                    continue;
                }
                if t - 1 > hi {
                    // Surely looser than the best so far.
                    continue;
                }
                if t + 1 < lo {
                    // Surely tighter.
                    (bu, bi, bt, lo, hi, bd) = (u, i, t, t - 1, t + 1, None);
                    continue;
                }
                if i == bi {
                    // The same weight: the slacks differ by the duals of the ends in b alone
                    // (the usual case when the top words tie).
                    if self.lab[u] < self.lab[bu] {
                        (bu, bt, lo, hi, bd) = (u, t, t - 1, t + 1, None);
                    }
                    continue;
                }
                let best_d = match bd.take() {
                    Some(d) => d,
                    None => self.lab[bu].plus_minus(&self.lab[x], &self.vals[bi as usize]),
                };
                let d = self.lab[u].plus_minus(&self.lab[x], &self.vals[i as usize]);
                let keep = if d < best_d {
                    (bu, bi, bt) = (u, i, t);
                    d
                } else {
                    best_d
                };
                (lo, hi) = (keep.top() as i128, keep.top() as i128);
                bd = Some(keep);
            }
            if bu == 0 {
                row[x] = (0, 0);
                continue;
            }
            row[x] = (bu as u32, x as u32);
            // b's slack edge, as `update_slack` takes it.
            if self.s[self.st[x]] != 0 {
                continue;
            }
            if let Some(d0) = &sd {
                if bt - 1 > d0.top() as i128 {
                    continue;
                }
            }
            let d = bd
                .unwrap_or_else(|| self.lab[bu].plus_minus(&self.lab[x], &self.vals[bi as usize]));
            if sd.as_ref().is_none_or(|d0| d < *d0) {
                sb = x;
                sd = Some(d);
            }
        }
        (sb, sd)
    }

    /// Of the edges `cand(self, c)` from the children `kids` of a new blossom to one x (ends
    /// `(u, v)`, u in the child; none if `u` is 0), the first of least slack, or (0, 0).
    /// Top words decide where they can (the slack of `a`–`c` has a top within one of
    /// `top(lab a) + top(lab c) - top(w)`), and two edges of the same weight to the same end
    /// by the duals of their other ends; otherwise the whole slacks are compared. So the
    /// choice is the one a comparison of whole slacks in the children's order makes.
    #[inline(always)]
    fn best_among(&self, kids: &[usize], cand: impl Fn(&Self, usize) -> (u32, u32)) -> (u32, u32) {
        let np = self.n + 1;
        let mut best = (0u32, 0u32);
        let mut best_t: i128 = 0;
        let mut best_d: Option<W> = None;
        for &c in kids {
            let (u, v) = cand(self, c);
            if u == 0 {
                continue;
            }
            let (ui, vi) = (u as usize, v as usize);
            let at = ui * np + vi;
            if self.no_edge(at) {
                continue;
            }
            let t =
                self.lab[ui].top() as i128 + self.lab[vi].top() as i128 - self.top_at(at) as i128;
            if best.0 == 0 {
                best = (u, v);
                best_t = t;
                continue;
            }
            let (lo, hi) = match &best_d {
                Some(d) => {
                    let dt = d.top() as i128;
                    (dt, dt)
                }
                None => (best_t - 1, best_t + 1),
            };
            if t - 1 > hi {
                // Surely looser than the best so far.
                continue;
            }
            if t + 1 < lo {
                // Surely tighter.
                best = (u, v);
                best_t = t;
                best_d = None;
                continue;
            }
            // The same weight to the same end: the slacks differ by the duals of the other
            // ends alone (the usual case when the top words tie).
            if vi == best.1 as usize && self.w2[at] == self.w2[best.0 as usize * np + vi] {
                if self.lab[ui] < self.lab[best.0 as usize] {
                    best = (u, v);
                    best_t = t;
                    best_d = None;
                }
                continue;
            }
            if best_d.is_none() {
                best_d = Some(self.slack_at(best));
            }
            let d = self.lab[ui].plus_minus(&self.lab[vi], self.wt_at(at));
            if d < *best_d.as_ref().unwrap() {
                best = (u, v);
                best_t = t;
                best_d = Some(d);
            }
        }
        best
    }

    /// The slack of edge `u`–`v` from its ends' duals.
    #[inline(always)]
    fn slack_at(&self, (u, v): (u32, u32)) -> W {
        let (u, v) = (u as usize, v as usize);
        self.lab[u].plus_minus(&self.lab[v], self.wt_at(u * (self.n + 1) + v))
    }

    fn expand_blossom(&mut self, b: usize) {
        for i in 0..self.flower[b].len() {
            let x = self.flower[b][i];
            self.set_st(x, x);
            self.root[x] = self.root[b];
            // Unlabelled until labelled below (labels left from a tree taken down while
            // the blossom was whole must not count).
            self.s[x] = -1;
        }
        let (eu, _) = self.e(b, self.pa[b]);
        let xr = self.ff(b, eu);
        let pr = self.get_pr(b, xr);
        let mut i = 0;
        while i < pr {
            let xs = self.flower[b][i];
            let xns = self.flower[b][i + 1];
            self.pa[xs] = self.e(xns, xs).0;
            self.s[xs] = 1;
            self.s[xns] = 0;
            self.slack[xs] = 0;
            self.set_slack(xns);
            self.q_push(xns);
            i += 2;
        }
        self.s[xr] = 1;
        self.pa[xr] = self.pa[b];
        for i in pr + 1..self.flower[b].len() {
            let xs = self.flower[b][i];
            self.s[xs] = -1;
            self.set_slack(xs);
        }
        self.st[b] = 0;
    }

    fn on_found_edge(&mut self, eu: usize, ev: usize) -> bool {
        let (u, v) = (self.st[eu], self.st[ev]);
        if self.s[v] == -1 {
            if self.mate[v] == NONE {
                // A free vertex of dual zero, not searching itself: an augmenting path.
                self.spent.push(self.root[u]);
                self.augment(u, v);
                self.augment(v, u);
                return true;
            }
            self.pa[v] = eu;
            self.s[v] = 1;
            let nu = self.st[self.mate[v]];
            self.root[v] = self.root[u];
            self.root[nu] = self.root[u];
            self.slack[v] = 0;
            self.slack[nu] = 0;
            self.s[nu] = 0;
            self.q_push(nu);
        } else if self.s[v] == 0 {
            let lca = self.get_lca(u, v);
            if lca == 0 {
                self.spent.push(self.root[u]);
                self.spent.push(self.root[v]);
                self.augment(u, v);
                self.augment(v, u);
                return true;
            }
            self.add_blossom(u, lca, v);
        }
        false
    }

    /// One change of the matching (an augmentation, or a path flipped to a vertex whose
    /// dual reached zero); false when the matching is of maximum weight. The searches start
    /// at the free vertices (and blossoms) whose dual is above zero.
    fn step(&mut self, stats: &mut Stats) -> bool {
        if self.try_pairs {
            self.try_pairs = false;
            let paired = self.pair_tight_roots();
            if paired > 0 {
                stats.stages += paired - 1;
                stats.paired_at_once += paired;
                self.forest = false;
                return true;
            }
        }
        if self.forest {
            // Going on from the trees the last augmentation left, if any.
            if !(1..=self.nx).any(|x| self.st[x] == x && self.s[x] == 0 && self.mate[x] == NONE) {
                return false;
            }
        } else {
            for x in 1..=self.nx {
                self.s[x] = -1;
                self.slack[x] = 0;
            }
            self.queue.clear();
            for x in 1..=self.nx {
                if self.st[x] == x && self.mate[x] == NONE && !self.lab[self.base(x)].is_zero() {
                    self.pa[x] = 0;
                    self.s[x] = 0;
                    self.root[x] = x;
                    self.q_push(x);
                }
            }
            if self.queue.is_empty() {
                return false;
            }
            self.forest = true;
        }
        let done = self.search(stats);
        if !self.spent.is_empty() {
            self.take_down();
        }
        done
    }

    /// Takes down the trees whose roots are in `spent` (an augmentation changed their
    /// matching): their vertices lose their labels and get their slacks to the other trees,
    /// the slacks that came from them are found again, and tight edges from the other trees
    /// to them are followed as a scan would.
    fn take_down(&mut self) {
        while !self.spent.is_empty() {
            self.take_down_once();
        }
    }

    fn take_down_once(&mut self) {
        let spent = std::mem::take(&mut self.spent);
        let mut freed = Vec::new();
        for x in 1..=self.nx {
            if self.st[x] == x && self.s[x] != -1 && spent.contains(&self.root[x]) {
                self.s[x] = -1;
                self.slack[x] = 0;
                freed.push(x);
            }
        }
        // The labels stay as they are until the tight edges are followed below.
        let mut outer = std::mem::take(&mut self.outer);
        self.collect_outer(&mut outer);
        for x in 1..=self.nx {
            if self.st[x] == x
                && self.s[x] != 1
                && self.slack[x] != 0
                && self.s[self.st[self.slack[x]]] != 0
            {
                self.set_slack_among(x, &outer);
            }
        }
        for &x in &freed {
            self.set_slack_among(x, &outer);
        }
        self.outer = outer;
        for &x in &freed {
            if self.s[x] == -1 && self.slack[x] != 0 && self.slack_of(x).is_zero() {
                // A free one (flipped to a dual of zero) augments the tree reaching it.
                let (eu, ev) = self.e(self.slack[x], x);
                if self.on_found_edge(eu, ev) {
                    return;
                }
            }
        }
    }

    /// Grows the forest until an augmentation (true) or until no search can change the
    /// matching (false).
    fn search(&mut self, stats: &mut Stats) -> bool {
        loop {
            if self.scan_queue(stats) {
                return true;
            }
            let d = self.dual_step();
            stats.dual_updates += 1;
            // Edges between free vertices may have become tight together.
            self.try_pairs = true;
            let zero = self.update_duals(&d);
            if zero != NONE {
                self.flip_to_root(zero);
                return true;
            }
            if self.follow_tight_slacks() {
                return true;
            }
            for b in self.n + 1..=self.nx {
                if self.st[b] == b && self.s[b] == 1 && self.lab[b].is_zero() {
                    self.expand_blossom(b);
                }
            }
        }
    }

    /// Scans the S vertices in the queue: follows their tight edges and keeps the other
    /// vertices' slacks to them; true when an augmentation was made.
    fn scan_queue(&mut self, stats: &mut Stats) -> bool {
        while let Some(u) = self.queue.pop_front() {
            // Only S vertices are scanned (those of taken-down trees no longer are).
            if self.s[self.st[u]] != 0 {
                continue;
            }
            stats.scans += 1;
            let np = self.n + 1;
            self.scan_no += 1;
            // u's dual and row of weights do not change during its scan; its top-level
            // blossom does when a blossom is made.
            let ut = self.lab[u].top() as i128;
            let urow = u * np;
            let mut su = self.st[u];
            for i in 0..self.live.len() {
                let v = self.live[i];
                let sv = self.st[v];
                // A T-labelled end needs nothing: neither its tight edges nor its slack.
                if su == sv || self.s[sv] == 1 {
                    continue;
                }
                // The top of the slack is within one of `t` (see `surely_looser`).
                let wi = self.w2[urow + v] as usize;
                let t = ut + self.lab[v].top() as i128 - self.tops[wi] as i128;
                // Surely looser than v's slack so far: passed over without the whole
                // arithmetic.
                if sv == v && self.slack[v] != 0 && t - 1 > self.slack_d[v].top() as i128 {
                    continue;
                }
                if wi == 0 {
                    continue;
                }
                if sv != v && t >= 2 {
                    // Surely not tight. Inside a blossom only a tight edge counts, and the
                    // blossom's own slack to u (as below, when the edge is not tight).
                    if self.scanned[sv] != self.scan_no {
                        self.scanned[sv] = self.scan_no;
                        let ends = self.e(u, sv);
                        self.update_slack(u, sv, ends);
                    }
                    continue;
                }
                let d = self.lab[u].plus_minus(&self.lab[v], &self.vals[wi]);
                if d.is_zero() {
                    if self.on_found_edge(u, v) {
                        return true;
                    }
                    su = self.st[u];
                } else if sv == v {
                    // Not T-labelled (passed over above): its slack is kept.
                    if self.slack[v] == 0 || d < self.slack_d[v] {
                        self.slack[v] = u;
                        self.slack_d[v] = d;
                    }
                } else if self.scanned[sv] != self.scan_no {
                    // Once per blossom: its best edge to u is the same for all its vertices.
                    self.scanned[sv] = self.scan_no;
                    let ends = self.e(u, sv);
                    self.update_slack(u, sv, ends);
                }
            }
        }
        false
    }

    /// How far the duals can change before an edge becomes tight, a T blossom's dual or an S
    /// vertex's dual reaches zero.
    fn dual_step(&self) -> W {
        let mut d: Option<W> = None;
        let mut take = |x: W| {
            if d.as_ref().is_none_or(|d| x < *d) {
                d = Some(x);
            }
        };
        for b in self.n + 1..=self.nx {
            if self.st[b] == b && self.s[b] == 1 {
                take(self.lab[b].half());
            }
        }
        for x in 1..=self.nx {
            if self.st[x] == x && self.slack[x] != 0 {
                if self.s[x] == -1 {
                    take(self.slack_d[x].clone());
                } else if self.s[x] == 0 {
                    take(self.slack_d[x].half());
                }
            }
        }
        for &u in &self.live {
            if self.s[self.st[u]] == 0 {
                take(self.lab[u].clone());
            }
        }
        d.expect("a free vertex is labelled S")
    }

    /// Changes the duals by `d` (and the kept slacks with them); returns the first vertex
    /// whose dual reached zero, or `NONE`.
    fn update_duals(&mut self, d: &W) -> usize {
        let d2 = d.twice();
        let mut zero = NONE;
        for i in 0..self.live.len() {
            let u = self.live[i];
            match self.s[self.st[u]] {
                0 => {
                    self.lab[u] = self.lab[u].minus(d);
                    if zero == NONE && self.lab[u].is_zero() {
                        zero = u;
                    }
                }
                1 => self.lab[u] = self.lab[u].plus(d),
                _ => {}
            }
        }
        for b in self.n + 1..=self.nx {
            if self.st[b] == b {
                match self.s[b] {
                    0 => self.lab[b] = self.lab[b].plus(&d2),
                    1 => self.lab[b] = self.lab[b].minus(&d2),
                    _ => {}
                }
            }
        }
        // The kept slacks follow: an S vertex's dual fell by d.
        for x in 1..=self.nx {
            if self.st[x] == x && self.slack[x] != 0 {
                match self.s[x] {
                    -1 => self.slack_d[x] = self.slack_d[x].minus(d),
                    0 => self.slack_d[x] = self.slack_d[x].minus(&d2),
                    _ => {}
                }
            }
        }
        zero
    }

    /// After a dual update, the edges that became tight from the kept slacks, followed as a
    /// scan would; true when an augmentation was made.
    fn follow_tight_slacks(&mut self) -> bool {
        self.queue.clear();
        for x in 1..=self.nx {
            if self.st[x] == x
                && self.slack[x] != 0
                && self.st[self.slack[x]] != x
                && self.slack_of(x).is_zero()
            {
                let (eu, ev) = self.e(self.slack[x], x);
                if self.on_found_edge(eu, ev) {
                    return true;
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small reproducible generator for the random tests.
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// All matchings of a small graph, by brute force: the best total weight.
    fn best(n: usize, w: &dyn Fn(usize, usize) -> u64) -> u64 {
        fn go(free: &mut Vec<bool>, n: usize, w: &dyn Fn(usize, usize) -> u64) -> u64 {
            let Some(u) = (0..n).find(|&i| free[i]) else {
                return 0;
            };
            free[u] = false;
            let mut b = go(free, n, w);
            for v in u + 1..n {
                if free[v] && w(u, v) > 0 {
                    free[v] = false;
                    b = b.max(w(u, v) + go(free, n, w));
                    free[v] = true;
                }
            }
            free[u] = true;
            b
        }
        go(&mut vec![true; n], n, w)
    }

    #[test]
    #[allow(clippy::needless_range_loop)]
    fn matches_brute_force_on_random_graphs() {
        let mut rnd = xorshift(12345);
        for round in 0..300 {
            let n = 2 + round % 9;
            let mut table = vec![vec![0u64; n]; n];
            for u in 0..n {
                for v in 0..u {
                    let w = if rnd().is_multiple_of(3) {
                        0
                    } else {
                        rnd() % 20
                    };
                    table[u][v] = w;
                    table[v][u] = w;
                }
            }
            let mut m = Matcher::<u64>::new(n);
            let mut wide = Matcher::<Wide<2>>::new(n);
            for u in 0..n {
                for v in 0..u {
                    m.set(u, v, table[u][v]);
                    wide.set(u, v, Wide::small(table[u][v]));
                }
            }
            m.compute();
            wide.compute();
            let mates = m.matching();
            let mut total = 0;
            for u in 0..n {
                let v = mates[u];
                assert_eq!(mates[v], u);
                if v != u {
                    assert!(table[u][v] > 0);
                    if u < v {
                        total += table[u][v];
                    }
                }
            }
            assert_eq!(total, best(n, &|u, v| table[u][v]), "graph {table:?}");
            assert_eq!(wide.matching(), mates);
        }
    }

    /// The total weight of `mates` after checking that it is a matching of real edges.
    fn checked_total(m: &Matcher<u64>) -> u64 {
        let mates = m.matching();
        let mut total = 0;
        for (u, &v) in mates.iter().enumerate() {
            assert_eq!(mates[v], u, "not a matching: {mates:?}");
            if v != u {
                assert!(m.weight(u, v) > 0, "{u}-{v} is no edge");
                if u < v {
                    total += m.weight(u, v);
                }
            }
        }
        total
    }

    #[test]
    fn incremental_matching_equals_a_fresh_one_after_random_changes() {
        let mut rnd = xorshift(0x9e37_79b9_7f4a_7c15);
        let mut reopened = 0;
        for graph in 0..120 {
            let n = 2 + graph % 40;
            // Few distinct weights make many ties and blossoms; wide ones few.
            let range = [4, 30, 1 << 40][graph % 3];
            let density = 2 + graph % 4;
            let edge = |rnd: &mut dyn FnMut() -> u64| {
                if rnd().is_multiple_of(density as u64) {
                    0
                } else {
                    1 + rnd() % range
                }
            };
            let mut inc = Matcher::<u64>::new(n);
            let mut fresh = Matcher::<u64>::new(n);
            for u in 0..n {
                for v in 0..u {
                    let w = edge(&mut rnd);
                    inc.set(u, v, w);
                    fresh.set(u, v, w);
                }
            }
            inc.compute();
            for _ in 0..15 {
                // Change the edges of a few vertices, as the Dutch pairing does.
                let k = 1 + (rnd() % 3) as usize;
                for _ in 0..k {
                    let u = (rnd() % n as u64) as usize;
                    for v in 0..n {
                        if v != u && rnd().is_multiple_of(3) {
                            let w = edge(&mut rnd);
                            inc.set(u, v, w);
                            fresh.set(u, v, w);
                        }
                    }
                }
                inc.compute();
                fresh.compute_from_scratch();
                let got = checked_total(&inc);
                assert_eq!(got, checked_total(&fresh), "graph {graph}");
                if n <= 10 {
                    assert_eq!(got, best(n, &|u, v| fresh.weight(u, v)));
                }
            }
            reopened += inc.stats().reopened;
            assert!(inc.stats().from_scratch < inc.stats().computes);
        }
        assert!(reopened > 0);
    }

    /// Fixing matched pairs (as the Dutch pairing does once a pair is decided), then changing
    /// edges, sometimes at fixed vertices: always the matching that a fresh solve finds.
    #[test]
    fn fixed_pairs_leave_the_matching_optimal() {
        let mut rnd = xorshift(0x2545_f491_4f6c_dd1d);
        let (mut at_once, mut revived) = (0, 0);
        for graph in 0..80 {
            let n = 4 + graph % 30;
            let range = [3, 50][graph % 2];
            let top = range + 1;
            let mut inc = Matcher::<u64>::new(n);
            let mut fresh = Matcher::<u64>::new(n);
            for u in 0..n {
                for v in 0..u {
                    let w = if rnd().is_multiple_of(4) {
                        0
                    } else {
                        1 + rnd() % range
                    };
                    inc.set(u, v, w);
                    fresh.set(u, v, w);
                }
            }
            inc.compute();
            let mut fixed = vec![false; n];
            for _ in 0..n {
                let u = (rnd() % n as u64) as usize;
                let m = inc.matching()[u];
                if rnd().is_multiple_of(2) && m != u && !fixed[u] && !fixed[m] {
                    inc.fix_pair(u, m, &top);
                    for x in 0..n {
                        for (a, b) in [(u, m), (m, u)] {
                            if x != a {
                                fresh.set(a, x, if x == b { top } else { 0 });
                            }
                        }
                    }
                    fixed[u] = true;
                    fixed[m] = true;
                } else {
                    let v = (rnd() % n as u64) as usize;
                    if v != u {
                        let w = 1 + rnd() % range;
                        revived += (fixed[u] || fixed[v]) as u32;
                        inc.set(u, v, w);
                        fresh.set(u, v, w);
                        fixed[u] = false;
                        fixed[v] = false;
                    }
                }
                inc.compute();
                fresh.compute_from_scratch();
                let got = checked_total(&inc);
                assert_eq!(got, checked_total(&fresh), "graph {graph}");
                if n <= 10 {
                    assert_eq!(got, best(n, &|u, v| fresh.weight(u, v)));
                }
            }
            at_once += inc.stats().fixed_at_once;
        }
        assert!(at_once > 100 && revived > 10, "{at_once} {revived}");
    }

    #[test]
    fn wide_arithmetic_carries_across_words() {
        let mut a = Wide::<3>::small(1);
        a.shl(130);
        assert_eq!(a.0, [0, 0, 4]);
        let b = Wide::<3>::small(1);
        assert_eq!(a.minus(&b).0, [u64::MAX, u64::MAX, 3]);
        assert_eq!(a.minus(&b).plus(&b), a);
        assert_eq!(a.half().0, [0, 0, 2]);
        let mut c = Wide::<3>([u64::MAX, 1, 0]);
        c.shl(4);
        assert_eq!(c.0, [u64::MAX << 4, 0x1f, 0]);
        assert!(a > c);
        assert_eq!(c.cmp(&a), Ordering::Less);
    }

    /// `plus_minus` is `plus` then `minus`, and the top words bound the result's top word as
    /// the searches' filter assumes, on random values with carries and borrows across words.
    #[test]
    fn fused_slack_and_top_word_bound() {
        let mut rnd = xorshift(99);
        for _ in 0..20_000 {
            // Words near 0 and near the maximum, so that carries and borrows happen; top
            // words with room, as weights and duals have.
            let mut word = |top: bool| match rnd() % 4 {
                0 => 0,
                _ if top => rnd() >> 4,
                1 => u64::MAX - rnd() % 3,
                _ => rnd(),
            };
            let a = Wide::<3>([word(false), word(false), word(true)]);
            let b = Wide::<3>([word(false), word(false), word(true)]);
            let c = Wide::<3>([word(false), word(false), word(true)]);
            let sum = a.plus(&b);
            if c > sum {
                continue;
            }
            let d = a.plus_minus(&b, &c);
            assert_eq!(d, sum.minus(&c));
            let t = a.top() as i128 + b.top() as i128 - c.top() as i128;
            let top = d.top() as i128;
            assert!(top >= t - 1 && top <= t + 1, "{a:?} {b:?} {c:?}");
        }
    }
}
