//! Maximum-weight matching in a general graph (Edmonds' blossom algorithm with dual
//! variables, O(n³) per computation), over any exact integer weight type: the Dutch system
//! encodes its criteria lexicographically in very wide integers ([`Wide`]).
//!
//! A weight of zero means "no edge". The matching maximises the total weight; it need not be
//! of maximum cardinality (the Dutch weights make cardinality their highest criterion).

use std::cmp::Ordering;
use std::fmt::Debug;

/// The integer arithmetic the matching needs. Values never go below zero.
pub trait Weight: Clone + Ord + Debug {
    fn zero() -> Self;
    fn is_zero(&self) -> bool;
    fn plus(&self, other: &Self) -> Self;
    /// `self - other`, with `other <= self`.
    fn minus(&self, other: &Self) -> Self;
    fn half(&self) -> Self;
    fn twice(&self) -> Self;
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
}

/// An unsigned integer of `N` 64-bit words, least significant first.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Wide<const N: usize>(pub [u64; N]);

impl<const N: usize> Default for Wide<N> {
    fn default() -> Self {
        Wide([0; N])
    }
}

impl<const N: usize> Ord for Wide<N> {
    fn cmp(&self, other: &Self) -> Ordering {
        for i in (0..N).rev() {
            match self.0[i].cmp(&other.0[i]) {
                Ordering::Equal => continue,
                o => return o,
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
        let mut x = Wide::<N>::small(v);
        x.shl(bit);
        *self = self.plus(&x);
    }
    pub fn add_small(&mut self, v: u64) {
        *self = self.plus(&Wide::small(v));
    }
    pub fn sub_small(&mut self, v: u64) {
        *self = self.minus(&Wide::small(v));
    }
    pub fn or_small(&mut self, v: u64) {
        self.0[0] |= v;
    }
}

impl<const N: usize> Weight for Wide<N> {
    fn zero() -> Self {
        Wide([0; N])
    }
    fn is_zero(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
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
}

const NONE: usize = 0;

/// A weighted graph on vertices `0..n` whose maximum-weight matching can be computed again
/// after weights change.
pub struct Matcher<W: Weight> {
    n: usize,
    /// Edge weights of the lower triangle, `(u, v)` with `u > v`, vertices from 1.
    weights: Vec<W>,
    matching: Vec<usize>,
}

impl<W: Weight> Matcher<W> {
    pub fn new(n: usize) -> Self {
        Matcher {
            n,
            weights: vec![W::zero(); (n + 1) * (n + 2) / 2],
            matching: (0..n).collect(),
        }
    }

    fn index(u: usize, v: usize) -> usize {
        let (a, b) = if u > v { (u, v) } else { (v, u) };
        a * (a + 1) / 2 + b
    }

    /// Sets the weight of edge `u`–`v` (from 0); zero removes it.
    pub fn set(&mut self, u: usize, v: usize, w: W) {
        debug_assert_ne!(u, v);
        self.weights[Self::index(u + 1, v + 1)] = w;
    }

    pub fn weight(&self, u: usize, v: usize) -> &W {
        &self.weights[Self::index(u + 1, v + 1)]
    }

    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Computes a maximum-weight matching of the current weights. Pairs of vertices whose
    /// only edge joins them to each other are matched directly and vertices without edges
    /// left alone, so the blossom algorithm runs on the rest only.
    pub fn compute(&mut self) {
        let n = self.n;
        let mut degree = vec![0u32; n];
        let mut neighbour = vec![0usize; n];
        for u in 0..n {
            for v in 0..u {
                if !self.weights[Self::index(u + 1, v + 1)].is_zero() {
                    degree[u] += 1;
                    degree[v] += 1;
                    neighbour[u] = v;
                    neighbour[v] = u;
                }
            }
        }
        let mut active = Vec::new();
        for u in 0..n {
            self.matching[u] = u;
            match degree[u] {
                0 => {}
                1 if degree[neighbour[u]] == 1 => self.matching[u] = neighbour[u],
                _ => active.push(u),
            }
        }
        if active.len() < 2 {
            return;
        }
        let k = active.len();
        let mut sub = vec![W::zero(); (k + 1) * (k + 2) / 2];
        for (a, &u) in active.iter().enumerate() {
            for (b, &v) in active[..a].iter().enumerate() {
                sub[Self::index(a + 1, b + 1)] = self.weights[Self::index(u + 1, v + 1)].clone();
            }
        }
        let mut b = Blossom::new(k, &sub);
        b.run();
        for (a, &u) in active.iter().enumerate() {
            let m = b.mate[a + 1];
            if m != NONE {
                self.matching[u] = active[m - 1];
            }
        }
    }

    /// The mate of each vertex after [`Matcher::compute`]; an unmatched vertex is its own.
    pub fn matching(&self) -> &[usize] {
        &self.matching
    }
}

/// The state of one computation (vertices from 1; blossoms numbered n+1..=2n).
struct Blossom<'a, W: Weight> {
    n: usize,
    nx: usize,
    stride: usize,
    w: &'a [W],
    /// For each pair of (vertex or blossom) x, y: the original edge between them.
    edge: Vec<(u32, u32)>,
    lab: Vec<W>,
    mate: Vec<usize>,
    slack: Vec<usize>,
    st: Vec<usize>,
    pa: Vec<usize>,
    flower_from: Vec<usize>,
    s: Vec<i8>,
    vis: Vec<usize>,
    stamp: usize,
    flower: Vec<Vec<usize>>,
    queue: std::collections::VecDeque<usize>,
}

impl<'a, W: Weight> Blossom<'a, W> {
    fn new(n: usize, w: &'a [W]) -> Self {
        let size = 2 * n + 1;
        let mut edge = vec![(0, 0); size * size];
        for u in 1..=n {
            for v in 1..=n {
                edge[u * size + v] = (u as u32, v as u32);
            }
        }
        let mut flower_from = vec![0; size * (n + 1)];
        for u in 1..=n {
            flower_from[u * (n + 1) + u] = u;
        }
        let wmax = w.iter().max().cloned().unwrap_or_else(W::zero);
        let mut lab = vec![W::zero(); size];
        for l in lab.iter_mut().take(n + 1).skip(1) {
            *l = wmax.clone();
        }
        Blossom {
            n,
            nx: n,
            stride: size,
            w,
            edge,
            lab,
            mate: vec![NONE; size],
            slack: vec![0; size],
            st: (0..size).collect(),
            pa: vec![0; size],
            flower_from,
            s: vec![-1; size],
            vis: vec![0; size],
            stamp: 0,
            flower: vec![Vec::new(); size],
            queue: Default::default(),
        }
    }

    fn e(&self, x: usize, y: usize) -> (usize, usize) {
        let (u, v) = self.edge[x * self.stride + y];
        (u as usize, v as usize)
    }

    fn wt(&self, u: usize, v: usize) -> &W {
        if u == 0 || v == 0 || u == v {
            return &self.w[0];
        }
        &self.w[Matcher::<W>::index(u, v)]
    }

    /// Whether x and y (vertices or blossoms) are joined by a real edge.
    fn real(&self, x: usize, y: usize) -> bool {
        let (u, v) = self.e(x, y);
        !self.wt(u, v).is_zero()
    }

    fn dist(&self, x: usize, y: usize) -> W {
        let (u, v) = self.e(x, y);
        self.lab[u].plus(&self.lab[v]).minus(&self.wt(u, v).twice())
    }

    fn ff(&self, b: usize, x: usize) -> usize {
        self.flower_from[b * (self.n + 1) + x]
    }

    fn update_slack(&mut self, u: usize, x: usize) {
        if self.slack[x] == 0 || self.dist(u, x) < self.dist(self.slack[x], x) {
            self.slack[x] = u;
        }
    }

    fn set_slack(&mut self, x: usize) {
        self.slack[x] = 0;
        for u in 1..=self.n {
            if self.real(u, x) && self.st[u] != x && self.s[self.st[u]] == 0 {
                self.update_slack(u, x);
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
        self.mate[u] = ev;
        if u > self.n {
            let xr = self.ff(u, eu);
            let pr = self.get_pr(u, xr);
            for i in 0..pr {
                let (a, c) = (self.flower[u][i], self.flower[u][i ^ 1]);
                self.set_match(a, c);
            }
            self.set_match(xr, v);
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
        self.mate[b] = self.mate[lca];
        let mut fl = vec![lca];
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
        for x in 1..=self.nx {
            self.edge[b * self.stride + x] = (0, 0);
            self.edge[x * self.stride + b] = (0, 0);
        }
        let np = self.n + 1;
        for x in 1..=self.n {
            self.flower_from[b * np + x] = 0;
        }
        for i in 0..self.flower[b].len() {
            let xs = self.flower[b][i];
            for x in 1..=self.nx {
                if self.real(xs, x) && (!self.real(b, x) || self.dist(xs, x) < self.dist(b, x)) {
                    self.edge[b * self.stride + x] = self.edge[xs * self.stride + x];
                    self.edge[x * self.stride + b] = self.edge[x * self.stride + xs];
                }
            }
            for x in 1..=self.n {
                if self.flower_from[xs * np + x] != 0 {
                    self.flower_from[b * np + x] = xs;
                }
            }
        }
        self.set_slack(b);
    }

    fn expand_blossom(&mut self, b: usize) {
        for i in 0..self.flower[b].len() {
            let x = self.flower[b][i];
            self.set_st(x, x);
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
            self.pa[v] = eu;
            self.s[v] = 1;
            let nu = self.st[self.mate[v]];
            self.slack[v] = 0;
            self.slack[nu] = 0;
            self.s[nu] = 0;
            self.q_push(nu);
        } else if self.s[v] == 0 {
            let lca = self.get_lca(u, v);
            if lca == 0 {
                self.augment(u, v);
                self.augment(v, u);
                return true;
            }
            self.add_blossom(u, lca, v);
        }
        false
    }

    /// One augmentation; false when the matching is of maximum weight.
    fn step(&mut self) -> bool {
        for x in 1..=self.nx {
            self.s[x] = -1;
            self.slack[x] = 0;
        }
        self.queue.clear();
        for x in 1..=self.nx {
            if self.st[x] == x && self.mate[x] == 0 {
                self.pa[x] = 0;
                self.s[x] = 0;
                self.q_push(x);
            }
        }
        if self.queue.is_empty() {
            return false;
        }
        loop {
            while let Some(u) = self.queue.pop_front() {
                if self.s[self.st[u]] == 1 {
                    continue;
                }
                for v in 1..=self.n {
                    if self.st[u] != self.st[v] && !self.wt(u, v).is_zero() {
                        if self.dist(u, v).is_zero() {
                            if self.on_found_edge(u, v) {
                                return true;
                            }
                        } else {
                            let sv = self.st[v];
                            self.update_slack(u, sv);
                        }
                    }
                }
            }
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
                        take(self.dist(self.slack[x], x));
                    } else if self.s[x] == 0 {
                        take(self.dist(self.slack[x], x).half());
                    }
                }
            }
            for u in 1..=self.n {
                if self.s[self.st[u]] == 0 {
                    take(self.lab[u].clone());
                }
            }
            let d = d.expect("a free vertex is labelled S");
            for u in 1..=self.n {
                match self.s[self.st[u]] {
                    0 => {
                        if self.lab[u] <= d {
                            return false;
                        }
                        self.lab[u] = self.lab[u].minus(&d);
                    }
                    1 => self.lab[u] = self.lab[u].plus(&d),
                    _ => {}
                }
            }
            for b in self.n + 1..=self.nx {
                if self.st[b] == b {
                    match self.s[b] {
                        0 => self.lab[b] = self.lab[b].plus(&d.twice()),
                        1 => self.lab[b] = self.lab[b].minus(&d.twice()),
                        _ => {}
                    }
                }
            }
            self.queue.clear();
            for x in 1..=self.nx {
                if self.st[x] == x
                    && self.slack[x] != 0
                    && self.st[self.slack[x]] != x
                    && self.dist(self.slack[x], x).is_zero()
                {
                    let (eu, ev) = self.e(self.slack[x], x);
                    if self.on_found_edge(eu, ev) {
                        return true;
                    }
                }
            }
            for b in self.n + 1..=self.nx {
                if self.st[b] == b && self.s[b] == 1 && self.lab[b].is_zero() {
                    self.expand_blossom(b);
                }
            }
        }
    }

    fn run(&mut self) {
        while self.step() {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut seed = 12345u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..300 {
            let n = 2 + round % 9;
            let mut table = vec![vec![0u64; n]; n];
            for u in 0..n {
                for v in 0..u {
                    let w = if rnd() % 3 == 0 { 0 } else { rnd() % 20 };
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
}
