//! The Tara model shared by High Kings of Tara and Tara: Sacred Hill: ringforts, kings,
//! kingdoms, knots, sieges and scoring (docs/rules.md §2–3).

mod high_kings;
mod sacred_hill;

use super::board::{
    self, dilate, east, north, south, squares, surrounded_by, west, Bits, Hill, HILLS,
};
use super::by_side::BySide;
use super::error::IllegalMove;
use super::moves::{Move, MoveList};
use super::outcome::{Counts, EndReason, Outcome, Points};
use super::phase::Phase;
use super::position::{Captures, Forces, GamePosition};
use super::side::{Player, Side};
use super::variant::{GameOptions, Scoring, Variant};

/// What the last move did, for announcements and for drawing it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LastMove {
    /// The move, `None` at the start.
    pub mv: Option<Move>,
    /// Who played it.
    pub player: Option<Player>,
    /// The hill a new ringfort was built on (placement or build).
    pub built: Option<Hill>,
    /// The enemy ringfort captured (it is now the mover's).
    pub fort_captured: Option<Hill>,
    /// The ringfort sacrificed to the opponent (`hkot-2`).
    pub sacrificed: Option<Hill>,
    /// Hills on which enemy kings were captured by this move.
    pub kings_captured: Bits,
    /// Hills from which the mover's kings were removed by a pass.
    pub kings_removed: Bits,
    /// A pass that removed the mover's kings (every king on the board was immobile).
    pub passed_out: bool,
    /// Battle started at the start of the turn that followed this move.
    pub battle_started: bool,
    /// A king on enemy territory was captured by default at the start of the next turn.
    pub stranded_king_lost: Option<Hill>,
    /// The last vacant hill was built on: the opponent has one more turn.
    pub last_hill: bool,
    /// The game ended because the position occurred for the third time (B.5).
    pub third_repetition: bool,
    /// A king left on enemy territory when the game ended, captured by default (B.6), and
    /// its owner.
    pub stranded_at_end: Option<(Hill, Player)>,
}

/// The state a High Kings repetition compares (B.5). The kings come first: between two
/// builds they are what differs most often, and the comparison stops at the first difference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    kings: BySide<Bits>,
    forts: BySide<Bits>,
    captured: BySide<u8>,
    to_move: Player,
    battle: bool,
    passed: BySide<bool>,
    last_turn: bool,
}

/// A position of one of the four Tara games.
#[derive(Debug)]
pub struct TaraPosition {
    options: GameOptions,
    forts: BySide<Bits>,
    kings: BySide<Bits>,
    /// Enemy kings captured by each player.
    captured: BySide<u8>,
    to_move: Player,
    ply: u32,
    /// In Battle: High Kings switches both at once, Sacred Hill each player alone.
    battle: BySide<bool>,
    /// High Kings: the player passed with every king immobile (their kings are gone).
    passed: BySide<bool>,
    /// High Kings: the player to move plays the last turn of the game.
    last_turn: bool,
    outcome: Option<Outcome>,
    /// High Kings: positions since the last build (builds make earlier positions unreachable).
    history: Vec<Key>,
    last: LastMove,
}

impl Clone for TaraPosition {
    fn clone(&self) -> TaraPosition {
        self.with_history(self.history.clone())
    }
    /// Keeps this position's room for its history: a search copies its root into the same
    /// position before every playout, and a High Kings playout adds to the history at once.
    fn clone_from(&mut self, source: &TaraPosition) {
        let mut history = std::mem::take(&mut self.history);
        history.clone_from(&source.history);
        *self = source.with_history(history);
    }
}

impl TaraPosition {
    /// This position with `history` (a copy of its own) as its history.
    fn with_history(&self, history: Vec<Key>) -> TaraPosition {
        // Every other field is a plain copy.
        TaraPosition { history, ..*self }
    }

    /// The start position: an empty board.
    pub fn new(options: GameOptions) -> TaraPosition {
        assert!(options.variant.is_tara(), "not a Tara variant");
        let to_move = if options.first == Side::Blue {
            Player::Blue
        } else {
            Player::Red
        };
        let mut p = TaraPosition {
            options,
            forts: BySide::both(0),
            kings: BySide::both(0),
            captured: BySide::both(0),
            to_move,
            ply: 0,
            battle: BySide::both(false),
            passed: BySide::both(false),
            last_turn: false,
            outcome: None,
            history: Vec::new(),
            last: LastMove::default(),
        };
        if p.is_high_kings() {
            p.history.push(p.key());
        }
        p
    }

    pub fn options(&self) -> GameOptions {
        self.options
    }
    pub fn variant(&self) -> Variant {
        self.options.variant
    }
    #[inline]
    fn is_high_kings(&self) -> bool {
        self.options.variant.has_kings()
    }
    pub fn ply(&self) -> u32 {
        self.ply
    }
    /// The player to move (the last one to have moved's opponent once the game is over).
    pub fn to_move(&self) -> Player {
        self.to_move
    }
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }
    /// Ringforts of a player.
    pub fn forts(&self, p: Player) -> Bits {
        self.forts[p]
    }
    /// Hills with a king of a player on them.
    pub fn kings(&self, p: Player) -> Bits {
        self.kings[p]
    }
    /// Enemy kings captured by a player.
    pub fn kings_captured(&self, p: Player) -> u32 {
        u32::from(self.captured[p])
    }
    /// Whether a player passed (High Kings) and so has no kings any more.
    pub fn has_passed(&self, p: Player) -> bool {
        self.passed[p]
    }
    /// Whether the player to move is playing the game's last turn (High Kings).
    pub fn is_last_turn(&self) -> bool {
        self.last_turn && self.outcome.is_none()
    }
    /// Whether a player is in Battle.
    pub fn in_battle(&self, p: Player) -> bool {
        self.battle[p]
    }
    /// What the last move did.
    pub fn last_move(&self) -> &LastMove {
        &self.last
    }
    /// Vacant hills.
    #[inline]
    pub fn vacant(&self) -> Bits {
        HILLS & !(self.forts[Player::Red] | self.forts[Player::Blue])
    }
    /// The owner of the ringfort on a hill.
    pub fn owner(&self, h: Hill) -> Option<Player> {
        if self.forts[Player::Red] & h.bit() != 0 {
            Some(Player::Red)
        } else if self.forts[Player::Blue] & h.bit() != 0 {
            Some(Player::Blue)
        } else {
            None
        }
    }
    /// The owner of the king on a hill.
    pub fn king_at(&self, h: Hill) -> Option<Player> {
        Player::BOTH
            .into_iter()
            .find(|&p| self.kings[p] & h.bit() != 0)
    }
    /// Ringforts of `p` besieged by the opponent.
    pub fn besieged_forts(&self, p: Player) -> Bits {
        surrounded_by(self.forts[p.opponent()]) & self.forts[p]
    }
    /// High Kings: `p`'s kings standing on enemy territory (after a sacrifice).
    pub fn stranded_kings(&self, p: Player) -> Bits {
        self.kings[p] & self.forts[p.opponent()]
    }

    /// A hash of what decides the position's moves and its future: the ringforts, the kings,
    /// the kings captured, who moves, Battle, the passes, the last turn, the placement plies and
    /// whether the game is over. Not how the position was reached, so the same position after
    /// other orders of moves has the same key (a search shares its node); only High Kings'
    /// repetitions, which count the positions since the last build, can end the two lines'
    /// games differently, and the search plays each line's own moves, so it sees that.
    pub fn transposition_key(&self) -> u64 {
        let state = u64::from(self.captured[Player::Red])
            | u64::from(self.captured[Player::Blue]) << 8
            | u64::from(self.to_move == Player::Red) << 16
            | u64::from(self.battle[Player::Red]) << 17
            | u64::from(self.battle[Player::Blue]) << 18
            | u64::from(self.passed[Player::Red]) << 19
            | u64::from(self.passed[Player::Blue]) << 20
            | u64::from(self.last_turn) << 21
            | u64::from(self.outcome.is_some()) << 22
            | u64::from(self.ply.min(6)) << 23;
        let mut h = 0x243f_6a88_85a3_08d3u64;
        for w in [
            self.forts[Player::Red],
            self.forts[Player::Blue],
            self.kings[Player::Red],
            self.kings[Player::Blue],
            state,
        ] {
            h = (h ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            h ^= h >> 29;
        }
        h
    }

    /// The phase of the player to move.
    pub fn phase(&self) -> Phase {
        self.phase_of(self.to_move)
    }

    /// The phase of a player.
    pub fn phase_of(&self, p: Player) -> Phase {
        if self.is_high_kings() && self.ply < 6 {
            Phase::Placement
        } else if self.battle[p] {
            Phase::Battle
        } else {
            Phase::Manoeuvres
        }
    }

    /// Kingdoms, knots, territory and kings captured of a player.
    pub fn counts(&self, p: Player) -> Counts {
        let f = self.forts[p];
        Counts {
            kingdoms: kingdoms(f),
            knots: knots(f),
            territory: f.count_ones(),
            kings_captured: self.kings_captured(p),
        }
    }

    /// Appends the legal moves of the player to move (nothing once the game is over; only
    /// `pass` when there is nothing else).
    pub fn legal_moves_into(&self, out: &mut MoveList) {
        if self.outcome.is_some() {
            return;
        }
        let start = out.len();
        if self.is_high_kings() {
            self.high_kings_moves(out);
        } else {
            self.sacred_hill_moves(out);
        }
        if out.len() == start {
            out.push(Move::Pass);
        }
    }

    /// `Ok` when `m` is legal, else the reason it is not.
    pub fn check(&self, m: Move) -> Result<(), IllegalMove> {
        if self.outcome.is_some() {
            return Err(IllegalMove::GameOver);
        }
        let mut legal = MoveList::new();
        self.legal_moves_into(&mut legal);
        if legal.contains(&m) {
            return Ok(());
        }
        if let Move::Step { .. } = m {
            return Err(IllegalMove::WrongGame {
                game: "Tara",
                example: if self.is_high_kings() {
                    "D4 or G2-E3"
                } else {
                    "D4"
                },
            });
        }
        if legal.as_slice() == [Move::Pass] {
            return Err(IllegalMove::MustPass);
        }
        let reason = if self.is_high_kings() {
            self.high_kings_illegal(m, &legal)
        } else {
            self.sacred_hill_illegal(m, &legal)
        };
        Err(reason.unwrap_or_else(|| IllegalMove::NotLegal {
            examples: examples(&legal),
        }))
    }

    /// Plays a move known to be legal.
    pub fn play_unchecked(&mut self, m: Move) {
        debug_assert!(self.outcome.is_none(), "move after the end");
        self.last = LastMove {
            mv: Some(m),
            player: Some(self.to_move),
            ..LastMove::default()
        };
        if self.is_high_kings() {
            self.play_high_kings(m);
        } else {
            self.play_sacred_hill(m);
        }
    }

    fn key(&self) -> Key {
        Key {
            forts: self.forts,
            kings: self.kings,
            captured: self.captured,
            to_move: self.to_move,
            battle: self.battle[Player::Red],
            passed: self.passed,
            last_turn: self.last_turn,
        }
    }

    /// Ends the game by kingdoms (or knots), then territory (A.2), kings captured added.
    fn finish_by_score(&mut self) {
        let c = BySide::new(
            self.score_counts(Player::Red),
            self.score_counts(Player::Blue),
        );
        self.outcome = Some(score(self.options.scoring, &c));
    }

    /// The counts [`score`] reads for a player under this game's scoring: kingdoms or knots
    /// (the other left 0, so knots are not traced in games scored by kingdoms), territory
    /// and kings captured.
    fn score_counts(&self, p: Player) -> Counts {
        let f = self.forts[p];
        let (kingdoms, knots) = match self.options.scoring {
            Scoring::Kingdoms => (kingdoms(f), 0),
            Scoring::Knots => (0, knots(f)),
        };
        Counts {
            kingdoms,
            knots,
            territory: f.count_ones(),
            kings_captured: self.kings_captured(p),
        }
    }

    /// Ends the game by double capture won by `p`.
    fn finish_by_double_capture(&mut self, p: Player) {
        let loser_took = self.captured[p.opponent()] > 0;
        let mut points = BySide::both(Points(0));
        points[p] = Points::whole(u32::from(self.captured[p]));
        points[p.opponent()] = Points::whole(u32::from(loser_took));
        self.outcome = Some(Outcome {
            winner: Some(p.into()),
            reason: EndReason::DoubleCapture,
            points,
        });
    }
}

impl GamePosition for TaraPosition {
    #[inline]
    fn options(&self) -> GameOptions {
        self.options
    }
    #[inline]
    fn ply(&self) -> u32 {
        self.ply
    }
    #[inline]
    fn turn(&self) -> Side {
        self.to_move.into()
    }
    #[inline]
    fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }
    #[inline]
    fn phase_to_move(&self) -> Option<Phase> {
        self.outcome.is_none().then(|| self.phase())
    }
    #[inline]
    fn legal_moves_into(&self, out: &mut MoveList) {
        TaraPosition::legal_moves_into(self, out)
    }
    #[inline]
    fn check(&self, m: Move) -> Result<(), IllegalMove> {
        TaraPosition::check(self, m)
    }
    #[inline]
    fn play_unchecked(&mut self, m: Move) {
        TaraPosition::play_unchecked(self, m)
    }
    /// The Tara games have no public position notation (a game is its options and moves).
    fn position_notation(&self) -> Option<String> {
        None
    }
    fn side_counts(&self) -> Option<BySide<Counts>> {
        Some(BySide::new(
            self.counts(Player::Red),
            self.counts(Player::Blue),
        ))
    }
    /// The winner scores the larger of 2 + the kings they captured and what scoring the
    /// current position would give them; the loser scores the kings they captured.
    fn forfeit_points(&self, winner: Side) -> BySide<Points> {
        let c = BySide::new(self.counts(Player::Red), self.counts(Player::Blue));
        let loser = winner.opponent();
        let by_score = score(self.options.scoring, &c).points[winner];
        let base = Points::whole(2 + c[winner].kings_captured);
        let mut points = BySide::both(Points(0));
        points[winner] = by_score.max(base);
        points[loser] = Points::whole(c[loser].kings_captured);
        points
    }
    fn forces(&self) -> Option<Forces> {
        None
    }
    fn last_move_captures(&self) -> Captures {
        Captures {
            kings: self.last.kings_captured.count_ones(),
            pieces: u32::from(self.last.fort_captured.is_some()),
        }
    }
    fn is_last_turn(&self) -> bool {
        TaraPosition::is_last_turn(self)
    }
    fn king_that_must_move(&self) -> Option<Hill> {
        Hill::in_set(self.stranded_kings(self.to_move)).next()
    }
    /// High Kings: a move that completes a double capture by its own captures (Sacred Hill
    /// does not look).
    #[inline]
    fn decisive_move(&self, legal: &[Move]) -> Option<Move> {
        if self.is_high_kings() {
            self.double_capture_move(legal)
        } else {
            None
        }
    }
}

/// Scores a finished Tara game from both players' counts (A.2).
pub fn score(scoring: Scoring, c: &BySide<Counts>) -> Outcome {
    let first = |c: &Counts| match scoring {
        Scoring::Kingdoms => c.kingdoms,
        Scoring::Knots => c.knots,
    };
    let (red, blue) = (&c[Player::Red], &c[Player::Blue]);
    let (a, b) = (first(red), first(blue));
    let mut points = c.map(|c| Points::whole(c.kings_captured));
    let winner = if a != b {
        // Fewer kingdoms (knots) wins.
        let w = if a < b { Player::Red } else { Player::Blue };
        points[w] = points[w] + Points::whole(2 + a.abs_diff(b));
        Some(w)
    } else if red.territory != blue.territory {
        let w = if red.territory > blue.territory {
            Player::Red
        } else {
            Player::Blue
        };
        points[w] = points[w] + Points::whole(2 + red.territory.abs_diff(blue.territory));
        Some(w)
    } else {
        points = points.map(|p| p + Points::whole(1));
        None
    };
    Outcome {
        winner: winner.map(Side::from),
        reason: EndReason::Score,
        points,
    }
}

/// The kingdoms (connected groups under adjacency) of a set of ringforts, one set each.
pub fn kingdom_groups(forts: Bits) -> impl Iterator<Item = Bits> {
    let mut rest = forts & HILLS;
    std::iter::from_fn(move || {
        if rest == 0 {
            return None;
        }
        let mut group = rest & rest.wrapping_neg();
        loop {
            let grown = (group | dilate(group)) & rest;
            if grown == group {
                break;
            }
            group = grown;
        }
        rest &= !group;
        Some(group)
    })
}

/// The number of kingdoms in a set of ringforts.
pub fn kingdoms(forts: Bits) -> u32 {
    kingdom_groups(forts).count() as u32
}

/// The kingdoms of a set of ringforts, each as a set.
pub fn kingdom_sets(forts: Bits) -> Vec<Bits> {
    kingdom_groups(forts).collect()
}

/// The number of knots (closed strands of the Celtic drawing, A.3) in a set of ringforts.
///
/// Counted without tracing a strand: the knots of a set are the dimension, over GF(2), of the
/// kernel of its matrix `L` (rows and columns indexed by the ringforts; `L[u][v]` is 1 when
/// `u` and `v` are neighbours, and `L[u][u]` is the parity of `u`'s number of neighbours in
/// the set). The strands are the straight-ahead circuits of the medial graph of the kingdoms,
/// and a connected graph's medial graph has `1 + d` of them, `d` the dimension of its bicycle
/// space (cycles that are also cuts), which is the dimension of the kernel of `L` less one
/// (Rosenstiehl and Read); each kingdom adds its `1 + d`. `traced_knots` (in the tests)
/// traces the strands themselves and the tests compare the two, and a union-find over the arcs.
///
/// A ringfort with one neighbour can be taken away without changing the knots (a pendant edge
/// does not change the straight-ahead circuits), and a lone ringfort is one knot. Taking such
/// ringforts away until none is left leaves the 2-core (the ringforts with two neighbours or
/// more among the rest); the kingdoms that go entirely are the trees, each one knot, and there
/// are as many as `ringforts - bridges` of the set less that of its core (that is kingdoms
/// less independent cycles, and the core keeps every cycle). [`kernel_dimension`] counts the
/// core's knots.
pub fn knots(forts: Bits) -> u32 {
    let f = forts & HILLS;
    let core = two_core(f);
    // Ringforts less bridges of the set less those of the core, written so that no difference
    // is negative (the peeled-off part has at least as many ringforts as bridges).
    let trees = (f.count_ones() - core.count_ones()) - (bridge_count(f) - bridge_count(core));
    trees + kernel_dimension(core)
}

/// The hills of `b` with at least two neighbours in `b`, again and again until every one has.
fn two_core(b: Bits) -> Bits {
    let mut core = b;
    loop {
        // The hills whose north (south, east, west) neighbour is in the core.
        let n = south(core);
        let s = north(core);
        let e = west(core);
        let w = east(core);
        let two = (n & s) | ((n | s) & (e | w)) | (e & w);
        let next = core & two;
        if next == core {
            return core;
        }
        core = next;
    }
}

/// The number of pairs of orthogonally adjacent hills of `b` (the edges of its kingdoms).
#[inline]
fn bridge_count(b: Bits) -> u32 {
    (b & east(b)).count_ones() + (b & north(b)).count_ones()
}

/// The dimension of the kernel of `L` (see [`knots`]) for a set of hills `f`: its knots.
///
/// The kernel is found by chasing up the board: a vector `y` with `L y = 0` is free on the
/// ringforts with no ringfort south of them, and the equation of a ringfort with one north of
/// it gives `y` there. The equations of the ringforts with none north of them are the
/// constraints left: the knots are the free ringforts less the rank of the constraints, each
/// written over the free ringforts (one bit each).
fn kernel_dimension(f: Bits) -> u32 {
    if f == 0 {
        return 0;
    }
    // The ringforts with a ringfort north (south, east, west) of them.
    let has_north = f & south(f);
    let has_south = f & north(f);
    let has_east = f & west(f);
    let has_west = f & east(f);
    let odd = has_north ^ has_south ^ has_east ^ has_west;
    let bit = |set: Bits, u: usize| 0u64.wrapping_sub(set >> u & 1);
    // `y` of hill `u` at `u + 8`, over the free ringforts; 0 off the set.
    let mut y = [0u64; 64];
    let mut free = 0;
    for u in squares(f & !has_south) {
        y[u as usize + 8] = 1 << free;
        free += 1;
    }
    // The constraints' rank: rows reduced to echelon form, each by its lowest bit.
    let mut rows = [0u64; board::SQUARES];
    let mut rank = 0;
    for u in squares(f) {
        let u = u as usize;
        let i = u + 8;
        let s = (y[i] & bit(odd, u))
            ^ y[i - 7]
            ^ (y[i - 1] & bit(has_west, u))
            ^ (y[i + 1] & bit(has_east, u));
        if has_north >> u & 1 != 0 {
            y[i + 7] = s;
            continue;
        }
        let mut v = s;
        for &r in &rows[..rank] {
            v ^= r & 0u64.wrapping_sub(v >> r.trailing_zeros() & 1);
        }
        if v != 0 {
            rows[rank] = v;
            rank += 1;
        }
    }
    free - rank as u32
}

/// [`knots`] by tracing each strand: the reference the count is tested against.
///
/// Each ringfort holds four arcs, one per corner (`NE`, `NW`, `SE`, `SW` as 0–3: bit 1 south,
/// bit 0 west). An arc leaves through its north or south side and through its east or west
/// side; through a side with a ringfort beyond it continues as that ringfort's diagonally
/// opposite arc, else it turns into the arc of the same ringfort on the other end of that
/// side. Every arc so has two ends and the strands are cycles, entered alternately through a
/// north/south and an east/west side: each is traced once and counted.
#[cfg(test)]
pub(crate) fn traced_knots(forts: Bits) -> u32 {
    let forts = forts & HILLS;
    let has = |i: usize| forts >> i & 1 != 0;
    // Arcs already on a traced strand: one set of hills per corner.
    let mut seen = [0u64; 4];
    let mut count = 0;
    for f in squares(forts) {
        let f = f as usize;
        for a in 0..4 {
            if seen[a] >> f & 1 != 0 {
                continue;
            }
            count += 1;
            let (mut h, mut arc, mut vertical) = (f, a, true);
            loop {
                seen[arc] |= 1 << h;
                let beyond = match (vertical, arc & 2 != 0, arc & 1 != 0) {
                    (true, false, _) => (h + 7 < board::SQUARES && has(h + 7)).then(|| h + 7),
                    (true, true, _) => (h >= 7 && has(h - 7)).then(|| h - 7),
                    (false, _, false) => (h % 7 < 6 && has(h + 1)).then(|| h + 1),
                    (false, _, true) => (h % 7 > 0 && has(h - 1)).then(|| h - 1),
                };
                match beyond {
                    Some(n) => {
                        h = n;
                        arc ^= 3;
                    }
                    None => arc ^= if vertical { 1 } else { 2 },
                }
                vertical = !vertical;
                if vertical && h == f && arc == a {
                    break;
                }
            }
        }
    }
    count
}

/// [`knots`] by union-find over the arcs: the reference the strand tracing is tested against.
#[cfg(test)]
pub(crate) fn knots_union_find(forts: Bits) -> u32 {
    const NE: usize = 0;
    const NW: usize = 1;
    const SW: usize = 2;
    const SE: usize = 3;
    let forts = forts & HILLS;
    if forts == 0 {
        return 0;
    }
    let mut parent = [0u8; board::SQUARES * 4];
    for (i, p) in parent.iter_mut().enumerate() {
        *p = i as u8;
    }
    fn find(parent: &mut [u8], mut x: usize) -> usize {
        while parent[x] as usize != x {
            let up = parent[parent[x] as usize];
            parent[x] = up;
            x = up as usize;
        }
        x
    }
    let mut joins = 0u32;
    let mut union = |parent: &mut [u8], a: usize, b: usize| {
        let (ra, rb) = (find(parent, a), find(parent, b));
        if ra != rb {
            parent[ra] = rb as u8;
            joins += 1;
        }
    };
    for f in squares(forts) {
        let f = f as usize;
        let arc = |h: usize, a: usize| h * 4 + a;
        // North side.
        if f + 7 < board::SQUARES && forts & (1 << (f + 7)) != 0 {
            let n = f + 7;
            union(&mut parent, arc(f, NW), arc(n, SE));
            union(&mut parent, arc(f, NE), arc(n, SW));
        } else {
            union(&mut parent, arc(f, NW), arc(f, NE));
        }
        // East side.
        if f % 7 < 6 && forts & (1 << (f + 1)) != 0 {
            let e = f + 1;
            union(&mut parent, arc(f, NE), arc(e, SW));
            union(&mut parent, arc(f, SE), arc(e, NW));
        } else {
            union(&mut parent, arc(f, NE), arc(f, SE));
        }
        // South and west sides: bridges there are joined from the other ringfort.
        if f < 7 || forts & (1 << (f - 7)) == 0 {
            union(&mut parent, arc(f, SW), arc(f, SE));
        }
        if f.is_multiple_of(7) || forts & (1 << (f - 1)) == 0 {
            union(&mut parent, arc(f, NW), arc(f, SW));
        }
    }
    4 * forts.count_ones() - joins
}

/// A few moves of a list as text, for messages ("C3, D5, E4 or F2").
pub(crate) fn examples(list: &[Move]) -> String {
    let mut v: Vec<String> = list.iter().map(|m| m.to_string()).collect();
    v.sort();
    v.dedup();
    const SHOW: usize = 6;
    if v.len() > SHOW {
        let more = v.len() - SHOW;
        v.truncate(SHOW);
        return format!("{} and {more} more", v.join(", "));
    }
    match v.len() {
        0 => String::new(),
        1 => v[0].clone(),
        n => format!("{} or {}", v[..n - 1].join(", "), v[n - 1]),
    }
}

/// Hills of a set as text, "C3, D5 or E4".
pub(crate) fn hills_text(b: Bits) -> String {
    let moves: Vec<Move> = Hill::in_set(b).map(|hill| Move::Build { hill }).collect();
    examples(&moves)
}

#[cfg(test)]
mod tests;

/// A hand-made Tara position, for tests, puzzles and discussion of examples.
#[derive(Clone, Debug)]
pub struct Setup<'a> {
    pub options: GameOptions,
    /// Seven rows, row 7 first, seven cells each (white space between cells is ignored):
    /// `.` vacant, `r`/`b` a Red/Blue ringfort, `R`/`B` a ringfort with its owner's king,
    /// `S` a Red king on a Blue ringfort, `T` a Blue king on a Red ringfort (High Kings after a
    /// sacrifice), and `-` (or any of `.`) for the four missing corners.
    pub diagram: &'a str,
    pub to_move: Player,
    /// Plies played so far (High Kings: below 6 is Placement).
    pub ply: u32,
    /// Whether each player is in Battle (High Kings: both or neither).
    pub battle: BySide<bool>,
    /// Enemy kings captured by Red and by Blue.
    pub captured: BySide<u8>,
}

/// A diagram that does not describe a Tara board.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad diagram: {0}")]
pub struct DiagramError(String);

impl TaraPosition {
    /// Builds a position from a [`Setup`]. The start-of-turn rules (the BATTLE switch) are
    /// applied as if the position had been reached by play.
    pub fn setup(s: &Setup) -> Result<TaraPosition, DiagramError> {
        let rows: Vec<Vec<char>> = s
            .diagram
            .lines()
            .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect::<Vec<_>>())
            .filter(|r| !r.is_empty())
            .collect();
        if rows.len() != 7 || rows.iter().any(|r| r.len() != 7) {
            return Err(DiagramError("expected 7 rows of 7 cells".into()));
        }
        let mut p = TaraPosition::new(s.options);
        for (i, row) in rows.iter().enumerate() {
            let r = 6 - i as u8;
            for (c, ch) in row.iter().enumerate() {
                let Some(h) = Hill::new(c as u8, r) else {
                    if matches!(ch, '-' | '.') {
                        continue;
                    }
                    return Err(DiagramError(format!("corner cell holds '{ch}'")));
                };
                let (fort, king) = match ch {
                    '.' => continue,
                    'r' => (Player::Red, None),
                    'b' => (Player::Blue, None),
                    'R' => (Player::Red, Some(Player::Red)),
                    'B' => (Player::Blue, Some(Player::Blue)),
                    'S' => (Player::Blue, Some(Player::Red)),
                    'T' => (Player::Red, Some(Player::Blue)),
                    _ => return Err(DiagramError(format!("unknown cell '{ch}' at {h}"))),
                };
                if king.is_some() && !s.options.variant.has_kings() {
                    return Err(DiagramError("Sacred Hill has no kings".into()));
                }
                p.forts[fort] |= h.bit();
                if let Some(k) = king {
                    p.kings[k] |= h.bit();
                }
            }
        }
        p.to_move = s.to_move;
        p.ply = s.ply;
        p.battle = s.battle;
        p.captured = s.captured;
        p.history.clear();
        if p.is_high_kings() {
            p.begin_turn_high_kings();
            p.history.push(p.key());
        } else if !p.battle[s.to_move] && p.manoeuvre_builds_for(s.to_move) == 0 {
            p.battle[s.to_move] = true;
        }
        Ok(p)
    }

    /// The bridges: every pair of orthogonally adjacent ringforts of one colour, each pair once
    /// (lower hill first).
    pub fn bridges(&self, p: Player) -> Vec<(Hill, Hill)> {
        let f = self.forts[p];
        let mut v = Vec::new();
        for h in Hill::in_set(f) {
            for n in Hill::in_set(h.neighbours() & f) {
                if n > h {
                    v.push((h, n));
                }
            }
        }
        v
    }
}
