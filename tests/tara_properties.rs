//! Differential and property tests of the four Tara games (docs/rules.md §2–7).
//!
//! * `Ref` is an independent, deliberately simple reference implementation of the Tara rules,
//!   written from the rules (docs/rules.md §2–7) alone: plain arrays and loops over the 45 hills,
//!   no bitboards, nothing shared with the engine but the public vocabulary types (`Hill`, `Move`,
//!   `Player`, `Variant`, `GameOptions`, `Scoring`, `Side`, `Phase`). Its knots trace the strands
//!   of A.3 arc by arc.
//! * `differential_*`: thousands of random games per variant (moves chosen by `playout::Rng`
//!   among the engine's legal moves, some policies favouring captures, backtracks, sacrifices,
//!   passes and back-and-forth shuffles); at every ply the engine and the reference must agree
//!   on the board, kings captured, what the last move did, phase, player to move and the legal
//!   move set, and at the end on the outcome (winner, reason, points).
//! * `setup_differential_*`: the same from random set-up positions (any position the rules
//!   apply to, reachable or not), to reach forced passes, kings on enemy territory, repetition
//!   and the like far more often; `worked_position_*` and the B.4 test: the worked examples of
//!   docs/rules.md.
//! * `properties_*`: properties of the engine's own games: record replay (also through its text
//!   form), territory, kingdoms, knots, bridges, kings, the bound on game length, A.2 points,
//!   the sacred-hill-2 order of priority when Battle starts, and `check` giving a specific and
//!   true reason for every illegal move we can enumerate.
//!
//! Every disagreement is reported with the shortest game showing it: the record (variant,
//! options, moves up to the ply where it happened) or the set-up diagram and the moves after it.
//! `TARA_PROPERTIES_SCALE=20` multiplies the number of games for a deeper search.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::OnceLock;

use tara_bot::game::playout::{Rng, MAX_PLIES};
use tara_bot::game::tara::{Setup, TaraPosition};
use tara_bot::game::{
    BySide, EndReason, GameOptions, GameRecord, Hill, IllegalMove, Move, Outcome, Phase, Points,
    Position, Scoring, Side, Square, Variant,
};
use tara_bot::game::{Counts, Player};

// =================================================================================================
// Reference implementation: geometry
// =================================================================================================

/// Cells of the 7x7 grid, `row * 7 + col`; the four corners are not hills.
const CELLS: usize = 49;

fn cell_exists(c: i32, r: i32) -> bool {
    (0..7).contains(&c) && (0..7).contains(&r) && !((c == 0 || c == 6) && (r == 0 || r == 6))
}

fn cell(c: i32, r: i32) -> usize {
    (r * 7 + c) as usize
}

fn col_of(i: usize) -> i32 {
    (i % 7) as i32
}

fn row_of(i: usize) -> i32 {
    (i / 7) as i32
}

struct Geo {
    hills: Vec<usize>,
    nbrs: Vec<Vec<usize>>,
    knight: Vec<Vec<usize>>,
}

fn geo() -> &'static Geo {
    static G: OnceLock<Geo> = OnceLock::new();
    G.get_or_init(|| {
        let mut hills = Vec::new();
        let mut nbrs = vec![Vec::new(); CELLS];
        let mut knight = vec![Vec::new(); CELLS];
        for r in 0..7 {
            for c in 0..7 {
                if !cell_exists(c, r) {
                    continue;
                }
                let i = cell(c, r);
                hills.push(i);
                for (dc, dr) in [(0, 1), (1, 0), (0, -1), (-1, 0)] {
                    if cell_exists(c + dc, r + dr) {
                        nbrs[i].push(cell(c + dc, r + dr));
                    }
                }
                for (dc, dr) in [
                    (1, 2),
                    (2, 1),
                    (2, -1),
                    (1, -2),
                    (-1, -2),
                    (-2, -1),
                    (-2, 1),
                    (-1, 2),
                ] {
                    if cell_exists(c + dc, r + dr) {
                        knight[i].push(cell(c + dc, r + dr));
                    }
                }
            }
        }
        assert_eq!(hills.len(), 45);
        Geo {
            hills,
            nbrs,
            knight,
        }
    })
}

/// Squared Euclidean distance between two cells.
fn dist2(a: usize, b: usize) -> i32 {
    let dc = col_of(a) - col_of(b);
    let dr = row_of(a) - row_of(b);
    dc * dc + dr * dr
}

fn adjacent(a: usize, b: usize) -> bool {
    dist2(a, b) == 1
}

fn cell_name(i: usize) -> String {
    format!("{}{}", (b'A' + col_of(i) as u8) as char, row_of(i) + 1)
}

fn to_hill(i: usize) -> Hill {
    Hill::new(col_of(i) as u8, row_of(i) as u8).expect("a hill")
}

fn from_hill(h: Hill) -> usize {
    cell(i32::from(h.col()), i32::from(h.row()))
}

// =================================================================================================
// Reference implementation: moves, state, rules
// =================================================================================================

/// A move of the reference: one hill (placement, Sacred Hill build or capture), a king move, or
/// a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum RMove {
    Hill(usize),
    King(usize, usize, bool),
    Pass,
}

impl RMove {
    fn text(self) -> String {
        match self {
            RMove::Hill(h) => cell_name(h),
            RMove::King(f, t, s) => {
                format!(
                    "{}-{}{}",
                    cell_name(f),
                    cell_name(t),
                    if s { "*" } else { "" }
                )
            }
            RMove::Pass => "pass".to_string(),
        }
    }

    fn from_engine(m: Move) -> RMove {
        match m {
            Move::Build { hill } => RMove::Hill(from_hill(hill)),
            Move::King {
                from,
                to,
                sacrifice,
            } => RMove::King(from_hill(from), from_hill(to), sacrifice),
            Move::Pass => RMove::Pass,
            Move::Step { .. } => panic!("Ard Rí move in a Tara game"),
        }
    }
}

const VACANT: i8 = -1;
const NO_KING: i8 = -1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ROutcome {
    winner: Option<usize>,
    double_capture: bool,
    points: [u32; 2],
}

/// What repetition compares (B.5): ringforts, kings, captured counts, player to move, pending
/// one-more-turn and passed state.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    owner: [i8; CELLS],
    king: [i8; CELLS],
    captured: [u32; 2],
    to_move: usize,
    passed: [bool; 2],
    last_turn: bool,
}

/// How often the interesting rules fired (coverage of the random games).
#[derive(Clone, Copy, Debug, Default)]
struct Events {
    games: u64,
    plies: u64,
    battle_games: u64,
    king_captures: u64,
    ringfort_captures: u64,
    sacrifices: u64,
    sacrifice_with_capture: u64,
    voluntary_passes: u64,
    skip_passes: u64,
    stranded_lost_at_start: u64,
    stranded_lost_at_end: u64,
    last_hill: u64,
    repetition_end: u64,
    double_capture_end: u64,
    triple_capture_end: u64,
    draws: u64,
    sh_captures: u64,
    sh_passes: u64,
    sh_op_choices: u64,
    max_plies: u64,
}

impl Events {
    fn add(&mut self, o: &Events) {
        self.games += o.games;
        self.plies += o.plies;
        self.battle_games += o.battle_games;
        self.king_captures += o.king_captures;
        self.ringfort_captures += o.ringfort_captures;
        self.sacrifices += o.sacrifices;
        self.sacrifice_with_capture += o.sacrifice_with_capture;
        self.voluntary_passes += o.voluntary_passes;
        self.skip_passes += o.skip_passes;
        self.stranded_lost_at_start += o.stranded_lost_at_start;
        self.stranded_lost_at_end += o.stranded_lost_at_end;
        self.last_hill += o.last_hill;
        self.repetition_end += o.repetition_end;
        self.double_capture_end += o.double_capture_end;
        self.triple_capture_end += o.triple_capture_end;
        self.draws += o.draws;
        self.sh_captures += o.sh_captures;
        self.sh_passes += o.sh_passes;
        self.sh_op_choices += o.sh_op_choices;
        self.max_plies = self.max_plies.max(o.max_plies);
    }
}

/// What the last move did, as the bot announces it (compared with `TaraPosition::last_move`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct RLast {
    built: Option<usize>,
    fort_captured: Option<usize>,
    sacrificed: Option<usize>,
    kings_captured: Vec<usize>,
    kings_removed: Vec<usize>,
    passed_out: bool,
    battle_started: bool,
    stranded_king_lost: Option<usize>,
    last_hill: bool,
}

/// A Tara position of the reference.
#[derive(Clone)]
struct Ref {
    variant: Variant,
    knots: bool,
    /// Owner of the ringfort on each cell, or `VACANT`.
    owner: [i8; CELLS],
    /// Owner of the king on each cell, or `NO_KING`.
    king: [i8; CELLS],
    /// Enemy kings captured by each player.
    captured: [u32; 2],
    to_move: usize,
    ply: u32,
    battle: [bool; 2],
    passed: [bool; 2],
    last_turn: bool,
    outcome: Option<ROutcome>,
    history: HashMap<Key, u32>,
    ev: Events,
    last: RLast,
}

impl Ref {
    fn new(o: GameOptions) -> Ref {
        let mut r = Ref {
            variant: o.variant,
            knots: o.scoring == Scoring::Knots,
            owner: [VACANT; CELLS],
            king: [NO_KING; CELLS],
            captured: [0; 2],
            to_move: if o.first == Side::Blue { 1 } else { 0 },
            ply: 0,
            battle: [false; 2],
            passed: [false; 2],
            last_turn: false,
            outcome: None,
            history: HashMap::new(),
            ev: Events::default(),
            last: RLast::default(),
        };
        r.ev.games = 1;
        if r.high_kings() {
            let k = r.key();
            r.history.insert(k, 1);
        }
        r
    }

    fn high_kings(&self) -> bool {
        matches!(self.variant, Variant::Hkot1 | Variant::Hkot2)
    }

    fn key(&self) -> Key {
        Key {
            owner: self.owner,
            king: self.king,
            captured: self.captured,
            to_move: self.to_move,
            passed: self.passed,
            last_turn: self.last_turn,
        }
    }

    fn is_vacant(&self, h: usize) -> bool {
        self.owner[h] == VACANT
    }

    fn any_vacant(&self) -> bool {
        geo().hills.iter().any(|&h| self.is_vacant(h))
    }

    /// Every neighbour of `h` holds a ringfort of `x`.
    fn besieged_by(&self, h: usize, x: usize) -> bool {
        geo().nbrs[h].iter().all(|&n| self.owner[n] == x as i8)
    }

    fn next_to_own_fort(&self, h: usize, p: usize) -> bool {
        geo().nbrs[h].iter().any(|&n| self.owner[n] == p as i8)
    }

    fn kings_of(&self, p: usize) -> Vec<usize> {
        geo()
            .hills
            .iter()
            .copied()
            .filter(|&h| self.king[h] == p as i8)
            .collect()
    }

    /// Kings of `p` standing on enemy ringforts (hkot-2, after a sacrifice).
    fn stranded(&self, p: usize) -> Vec<usize> {
        self.kings_of(p)
            .into_iter()
            .filter(|&h| self.owner[h] == (1 - p) as i8)
            .collect()
    }

    fn phase(&self) -> Phase {
        if self.high_kings() && self.ply < 6 {
            Phase::Placement
        } else if self.battle[self.to_move] {
            Phase::Battle
        } else {
            Phase::Manoeuvres
        }
    }

    // ---------------------------------------------------------------- High Kings: mobility

    /// Manoeuvres (B.1.2): knight's moves to vacant hills not next to an own ringfort.
    fn manoeuvre_targets(&self, p: usize, k: usize) -> Vec<usize> {
        geo().knight[k]
            .iter()
            .copied()
            .filter(|&t| self.is_vacant(t) && !self.next_to_own_fort(t, p))
            .collect()
    }

    /// Battle (B.2): knight's moves to vacant hills not next to another king of the mover.
    fn battle_targets(&self, p: usize, k: usize) -> Vec<usize> {
        geo().knight[k]
            .iter()
            .copied()
            .filter(|&t| {
                self.is_vacant(t)
                    && !geo().nbrs[t]
                        .iter()
                        .any(|&n| n != k && self.king[n] == p as i8)
            })
            .collect()
    }

    /// B.5: every king on the board, of both colours, is immobile under Battle rules.
    fn all_kings_immobile(&self) -> bool {
        (0..2).all(|p| {
            self.kings_of(p)
                .into_iter()
                .all(|k| self.battle_targets(p, k).is_empty())
        })
    }

    /// B.2 / B.6 moves of an immobile king: backtracks (with sacrifice in hkot-2) and ringfort
    /// captures, none ending next to another friendly king or on a king.
    fn immobile_moves(&self, p: usize, k: usize) -> Vec<RMove> {
        let o = 1 - p;
        let mut v = Vec::new();
        for &t in &geo().knight[k] {
            if self.king[t] != NO_KING {
                continue;
            }
            if geo().nbrs[t]
                .iter()
                .any(|&n| n != k && self.king[n] == p as i8)
            {
                continue;
            }
            if self.owner[t] == p as i8 {
                v.push(RMove::King(k, t, false));
                if self.variant == Variant::Hkot2 && self.captured[o] == 1 && self.besieged_by(t, o)
                {
                    v.push(RMove::King(k, t, true));
                }
            } else if self.owner[t] == o as i8 && self.besieged_by(t, p) {
                v.push(RMove::King(k, t, false));
            }
        }
        v
    }

    /// The moves of the kings in `movers` under Battle rules, without any pass.
    fn battle_moves(&self, p: usize, movers: &[usize]) -> Vec<RMove> {
        let mut v = Vec::new();
        for &k in movers {
            for t in self.battle_targets(p, k) {
                v.push(RMove::King(k, t, false));
            }
        }
        if v.is_empty() {
            for &k in movers {
                v.extend(self.immobile_moves(p, k));
            }
        }
        v
    }

    fn high_kings_legal(&self) -> Vec<RMove> {
        let p = self.to_move;
        let mut v = Vec::new();
        if self.ply < 6 {
            for &h in &geo().hills {
                if self.is_vacant(h) && !self.next_to_own_fort(h, p) {
                    v.push(RMove::Hill(h));
                }
            }
        } else if !self.battle[p] {
            for k in self.kings_of(p) {
                for t in self.manoeuvre_targets(p, k) {
                    v.push(RMove::King(k, t, false));
                }
            }
        } else {
            let stranded = self.stranded(p);
            let movers = if stranded.is_empty() {
                self.kings_of(p)
            } else {
                stranded.clone()
            };
            v = self.battle_moves(p, &movers);
            let some_build = v
                .iter()
                .any(|m| matches!(m, RMove::King(_, t, _) if self.is_vacant(*t)));
            if !some_build && stranded.is_empty() && self.all_kings_immobile() {
                v.push(RMove::Pass);
            }
        }
        if v.is_empty() {
            v.push(RMove::Pass);
        }
        v
    }

    // ---------------------------------------------------------------- High Kings: playing

    /// B.4: after a king arrives on `t`, capture enemy kings next to `t` that stand on their own
    /// ringfort besieged by the mover.
    fn capture_kings(&mut self, p: usize, t: usize) -> u32 {
        let o = 1 - p;
        let mut n_captured = 0;
        for &n in &geo().nbrs[t] {
            if self.king[n] == o as i8 && self.owner[n] == o as i8 && self.besieged_by(n, p) {
                self.king[n] = NO_KING;
                self.captured[p] += 1;
                self.last.kings_captured.push(n);
                n_captured += 1;
            }
        }
        self.ev.king_captures += u64::from(n_captured);
        n_captured
    }

    fn high_kings_play(&mut self, m: RMove) {
        let p = self.to_move;
        let o = 1 - p;
        let final_turn = self.last_turn;
        let mut built = false;
        let mut passed_out = false;
        match m {
            RMove::Hill(h) => {
                assert!(self.ply < 6);
                self.last.built = Some(h);
                self.owner[h] = p as i8;
                self.king[h] = p as i8;
                built = true;
                self.capture_kings(p, h);
            }
            RMove::King(f, t, sacrifice) => {
                self.king[f] = NO_KING;
                if self.is_vacant(t) {
                    self.last.built = Some(t);
                    self.owner[t] = p as i8;
                    self.king[t] = p as i8;
                    built = true;
                    self.capture_kings(p, t);
                } else if self.owner[t] == p as i8 {
                    self.king[t] = p as i8;
                    // B.4: a sacrifice checks for captures before the colour changes.
                    let n = self.capture_kings(p, t);
                    if sacrifice {
                        self.owner[t] = o as i8;
                        self.ev.sacrifices += 1;
                        self.last.sacrificed = Some(t);
                        if n > 0 {
                            self.ev.sacrifice_with_capture += 1;
                        }
                    }
                } else {
                    self.owner[t] = p as i8;
                    self.king[t] = p as i8;
                    self.ev.ringfort_captures += 1;
                    self.last.fort_captured = Some(t);
                    self.capture_kings(p, t);
                }
            }
            RMove::Pass => {
                if self.all_kings_immobile() {
                    for k in self.kings_of(p) {
                        self.king[k] = NO_KING;
                        self.last.kings_removed.push(k);
                    }
                    self.last.passed_out = true;
                    self.passed[p] = true;
                    passed_out = true;
                    self.ev.voluntary_passes += 1;
                } else {
                    self.ev.skip_passes += 1;
                }
            }
        }
        self.ply += 1;
        self.to_move = o;
        if self.captured[p] >= 2 {
            self.end_by_double_capture(p);
            return;
        }
        if final_turn || (self.passed[p] && self.passed[o]) {
            self.end_by_score();
            return;
        }
        if passed_out {
            self.last_turn = true;
        } else if built && !self.any_vacant() {
            self.last_turn = true;
            self.ev.last_hill += 1;
            self.last.last_hill = true;
        }
        self.high_kings_begin_turn();
        if self.outcome.is_some() {
            return;
        }
        let key = self.key();
        let seen = self.history.entry(key).or_insert(0);
        *seen += 1;
        if *seen >= 3 {
            self.ev.repetition_end += 1;
            self.end_by_score();
        }
    }

    /// Start of a turn: the global BATTLE switch (B.1.3) and the capture by default of a king
    /// on enemy territory that has no move (B.6).
    fn high_kings_begin_turn(&mut self) {
        let p = self.to_move;
        let o = 1 - p;
        if self.ply >= 6 && !self.battle[p] {
            let any = self
                .kings_of(p)
                .into_iter()
                .any(|k| !self.manoeuvre_targets(p, k).is_empty());
            if !any {
                self.battle = [true, true];
                self.ev.battle_games += 1;
                self.last.battle_started = true;
            }
        }
        let stranded = self.stranded(p);
        if !stranded.is_empty() && self.battle_moves(p, &stranded).is_empty() {
            self.last.stranded_king_lost = Some(stranded[0]);
            for k in stranded {
                self.king[k] = NO_KING;
                self.captured[o] += 1;
                self.ev.stranded_lost_at_start += 1;
            }
            if self.captured[o] >= 2 {
                self.end_by_double_capture(o);
            }
        }
    }

    fn end_by_double_capture(&mut self, w: usize) {
        let l = 1 - w;
        let mut points = [0; 2];
        points[w] = self.captured[w];
        points[l] = u32::from(self.captured[l] > 0);
        self.ev.double_capture_end += 1;
        if self.captured[w] >= 3 {
            self.ev.triple_capture_end += 1;
        }
        self.outcome = Some(ROutcome {
            winner: Some(w),
            double_capture: true,
            points,
        });
    }

    /// Any ending but double capture: a king still on enemy territory is captured by default
    /// (B.6; the player to move is judged first), then A.2.
    fn end_by_score(&mut self) {
        if self.high_kings() {
            for q in [self.to_move, 1 - self.to_move] {
                let stranded = self.stranded(q);
                if stranded.is_empty() {
                    continue;
                }
                for k in stranded {
                    self.king[k] = NO_KING;
                    self.captured[1 - q] += 1;
                    self.ev.stranded_lost_at_end += 1;
                }
                if self.captured[1 - q] >= 2 {
                    self.end_by_double_capture(1 - q);
                    return;
                }
            }
        }
        let o = self.score();
        if o.winner.is_none() {
            self.ev.draws += 1;
        }
        self.outcome = Some(o);
    }

    // ---------------------------------------------------------------- Sacred Hill

    /// C.1: the hills `p` may build on under the Manoeuvres spacing rule.
    fn spacing_builds(&self, p: usize) -> Vec<usize> {
        let own: Vec<usize> = geo()
            .hills
            .iter()
            .copied()
            .filter(|&h| self.owner[h] == p as i8)
            .collect();
        geo()
            .hills
            .iter()
            .copied()
            .filter(|&h| {
                self.is_vacant(h)
                    && (own.is_empty()
                        || (own.iter().any(|&f| dist2(f, h) == 5)
                            && own.iter().all(|&f| dist2(f, h) >= 5)))
            })
            .collect()
    }

    /// C.3 Level 2: the order of priority of a candidate for `p`, `None` when not a candidate.
    fn order_of_priority(&self, p: usize, h: usize) -> Option<u32> {
        let o = 1 - p;
        if self.is_vacant(h) {
            Some(
                geo().nbrs[h]
                    .iter()
                    .filter(|&&n| self.owner[n] == p as i8)
                    .count() as u32,
            )
        } else if self.owner[h] == o as i8 && self.besieged_by(h, p) {
            Some(geo().nbrs[h].len() as u32)
        } else {
            None
        }
    }

    fn sacred_hill_legal(&self) -> Vec<RMove> {
        let p = self.to_move;
        let o = 1 - p;
        let mut targets: Vec<usize> = Vec::new();
        if self.variant == Variant::SacredHill2 && self.battle[p] {
            let ops: Vec<(usize, u32)> = geo()
                .hills
                .iter()
                .filter_map(|&h| self.order_of_priority(p, h).map(|op| (h, op)))
                .collect();
            if let Some(best) = ops.iter().map(|x| x.1).max() {
                targets = ops.iter().filter(|x| x.1 == best).map(|x| x.0).collect();
            }
        } else {
            let besieged: Vec<usize> = geo()
                .hills
                .iter()
                .copied()
                .filter(|&h| self.owner[h] == o as i8 && self.besieged_by(h, p))
                .collect();
            if !besieged.is_empty() {
                targets = besieged;
            } else if !self.battle[p] {
                targets = self.spacing_builds(p);
            } else {
                let vacant: Vec<usize> = geo()
                    .hills
                    .iter()
                    .copied()
                    .filter(|&h| self.is_vacant(h))
                    .collect();
                let next_to_own: Vec<usize> = vacant
                    .iter()
                    .copied()
                    .filter(|&h| self.next_to_own_fort(h, p))
                    .collect();
                targets = if next_to_own.is_empty() {
                    vacant
                } else {
                    next_to_own
                };
            }
        }
        if targets.is_empty() {
            vec![RMove::Pass]
        } else {
            targets.into_iter().map(RMove::Hill).collect()
        }
    }

    fn sacred_hill_play(&mut self, m: RMove) {
        let p = self.to_move;
        let o = 1 - p;
        match m {
            RMove::Hill(h) => {
                if self.owner[h] == o as i8 {
                    self.ev.sh_captures += 1;
                    self.last.fort_captured = Some(h);
                } else {
                    self.last.built = Some(h);
                }
                if self.variant == Variant::SacredHill2 && self.battle[p] {
                    self.ev.sh_op_choices += 1;
                }
                self.owner[h] = p as i8;
            }
            RMove::Pass => self.ev.sh_passes += 1,
            RMove::King(..) => panic!("no kings in Sacred Hill"),
        }
        self.ply += 1;
        self.to_move = o;
        let any_besieged = geo()
            .hills
            .iter()
            .any(|&h| self.owner[h] != VACANT && self.besieged_by(h, 1 - self.owner[h] as usize));
        if !self.any_vacant() && !any_besieged {
            let out = self.score();
            if out.winner.is_none() {
                self.ev.draws += 1;
            }
            self.outcome = Some(out);
            return;
        }
        let q = self.to_move;
        if !self.battle[q] && self.spacing_builds(q).is_empty() {
            self.battle[q] = true;
            self.ev.battle_games += 1;
            self.last.battle_started = true;
        }
    }

    // ---------------------------------------------------------------- common

    fn legal(&self) -> Vec<RMove> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        if self.high_kings() {
            self.high_kings_legal()
        } else {
            self.sacred_hill_legal()
        }
    }

    fn legal_text(&self) -> Vec<String> {
        let mut v: Vec<String> = self.legal().into_iter().map(RMove::text).collect();
        v.sort();
        v
    }

    fn play(&mut self, m: RMove) {
        assert!(self.outcome.is_none(), "reference: move after the end");
        self.last = RLast::default();
        if self.high_kings() {
            self.high_kings_play(m);
        } else {
            self.sacred_hill_play(m);
        }
        self.ev.plies += 1;
        self.ev.max_plies = self.ev.max_plies.max(u64::from(self.ply));
    }

    fn forts_of(&self, p: usize) -> Vec<usize> {
        geo()
            .hills
            .iter()
            .copied()
            .filter(|&h| self.owner[h] == p as i8)
            .collect()
    }

    fn kingdoms(&self, p: usize) -> u32 {
        ref_kingdoms(&self.forts_of(p))
    }

    fn knots(&self, p: usize) -> u32 {
        ref_knots(&self.forts_of(p))
    }

    fn territory(&self, p: usize) -> u32 {
        self.forts_of(p).len() as u32
    }

    /// A.2 for a game not ended by double capture.
    fn score(&self) -> ROutcome {
        let first = |p: usize| {
            if self.knots {
                self.knots(p)
            } else {
                self.kingdoms(p)
            }
        };
        ref_score(
            [first(0), first(1)],
            [self.territory(0), self.territory(1)],
            self.captured,
        )
    }
}

/// A.2 steps 1–4 from the counts.
fn ref_score(first: [u32; 2], territory: [u32; 2], captured: [u32; 2]) -> ROutcome {
    let mut points = captured;
    let winner = if first[0] != first[1] {
        let w = if first[0] < first[1] { 0 } else { 1 };
        points[w] += 2 + first[0].abs_diff(first[1]);
        Some(w)
    } else if territory[0] != territory[1] {
        let w = if territory[0] > territory[1] { 0 } else { 1 };
        points[w] += 2 + territory[0].abs_diff(territory[1]);
        Some(w)
    } else {
        points[0] += 1;
        points[1] += 1;
        None
    };
    ROutcome {
        winner,
        double_capture: false,
        points,
    }
}

/// Connected groups under orthogonal adjacency (flood fill).
fn ref_kingdoms(forts: &[usize]) -> u32 {
    let mut seen = vec![false; forts.len()];
    let mut n = 0;
    for start in 0..forts.len() {
        if seen[start] {
            continue;
        }
        n += 1;
        seen[start] = true;
        let mut stack = vec![start];
        while let Some(i) = stack.pop() {
            for j in 0..forts.len() {
                if !seen[j] && adjacent(forts[i], forts[j]) {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
    }
    n
}

/// A.3 by tracing strands: every ringfort has four arcs (NE, NW, SW, SE); each arc has two
/// ends, joined according to the bridges; the strands are the cycles of that graph.
fn ref_knots(forts: &[usize]) -> u32 {
    const NE: usize = 0;
    const NW: usize = 1;
    const SW: usize = 2;
    const SE: usize = 3;
    let has = |c: i32, r: i32| cell_exists(c, r) && forts.contains(&cell(c, r));
    let idx = |f: usize| forts.iter().position(|&x| x == f).unwrap();
    let arc = |i: usize, a: usize| i * 4 + a;
    let mut links: Vec<Vec<usize>> = vec![Vec::new(); forts.len() * 4];
    let mut join = |a: usize, b: usize| {
        links[a].push(b);
        links[b].push(a);
    };
    for (i, &f) in forts.iter().enumerate() {
        let (c, r) = (col_of(f), row_of(f));
        // North side.
        if has(c, r + 1) {
            let n = idx(cell(c, r + 1));
            join(arc(i, NW), arc(n, SE));
            join(arc(i, NE), arc(n, SW));
        } else {
            join(arc(i, NW), arc(i, NE));
        }
        // East side.
        if has(c + 1, r) {
            let e = idx(cell(c + 1, r));
            join(arc(i, NE), arc(e, SW));
            join(arc(i, SE), arc(e, NW));
        } else {
            join(arc(i, NE), arc(i, SE));
        }
        // South and west sides: a bridge there was joined from the other ringfort.
        if !has(c, r - 1) {
            join(arc(i, SW), arc(i, SE));
        }
        if !has(c - 1, r) {
            join(arc(i, NW), arc(i, SW));
        }
    }
    // Every arc has two ends, each joined to exactly one other end.
    for (a, l) in links.iter().enumerate() {
        assert_eq!(l.len(), 2, "arc {a} has {} joins", l.len());
    }
    let mut seen = vec![false; links.len()];
    let mut strands = 0;
    for start in 0..links.len() {
        if seen[start] {
            continue;
        }
        strands += 1;
        // Walk the cycle.
        let mut prev = usize::MAX;
        let mut cur = start;
        loop {
            seen[cur] = true;
            let next = if links[cur][0] != prev {
                links[cur][0]
            } else {
                links[cur][1]
            };
            prev = cur;
            cur = next;
            if cur == start {
                break;
            }
        }
    }
    strands
}

// =================================================================================================
// Harness helpers
// =================================================================================================

fn tara(pos: &Position) -> &TaraPosition {
    match pos {
        Position::Tara(t) => t,
        Position::ArdRi(_) => panic!("not a Tara game"),
    }
}

fn player(i: usize) -> Player {
    [Player::Red, Player::Blue][i]
}

fn side_index(s: Side) -> usize {
    match s {
        Side::Red => 0,
        Side::Blue => 1,
        other => panic!("{other:?} in a Tara game"),
    }
}

fn record_text(options: GameOptions, moves: &[Move]) -> String {
    GameRecord {
        options,
        moves: moves.to_vec(),
    }
    .to_string()
}

fn hill_set(b: u64) -> Vec<usize> {
    geo()
        .hills
        .iter()
        .copied()
        .filter(|&h| b & to_hill(h).bit() != 0)
        .collect()
}

fn names(v: &[usize]) -> String {
    v.iter()
        .map(|&h| cell_name(h))
        .collect::<Vec<_>>()
        .join(" ")
}

fn pts(p: u32) -> Points {
    Points::whole(p)
}

/// The first difference between the engine and the reference in the current position, if any.
fn compare(pos: &Position, r: &Ref) -> Option<(String, String)> {
    let t = tara(pos);
    // Board first: a different board explains everything after it.
    for p in 0..2 {
        let ef = hill_set(t.forts(player(p)));
        let rf = r.forts_of(p);
        if ef != rf {
            return Some((
                "ringforts differ".into(),
                format!(
                    "{:?} ringforts: engine [{}], reference [{}]",
                    player(p),
                    names(&ef),
                    names(&rf)
                ),
            ));
        }
        let ek = hill_set(t.kings(player(p)));
        let rk = r.kings_of(p);
        if ek != rk {
            return Some((
                "kings differ".into(),
                format!(
                    "{:?} kings: engine [{}], reference [{}]",
                    player(p),
                    names(&ek),
                    names(&rk)
                ),
            ));
        }
        if t.kings_captured(player(p)) != r.captured[p] {
            return Some((
                "kings captured differ".into(),
                format!(
                    "{:?} captured: engine {}, reference {}",
                    player(p),
                    t.kings_captured(player(p)),
                    r.captured[p]
                ),
            ));
        }
    }
    if t.ply() > 0 && t.last_move().mv.is_some() {
        let l = t.last_move();
        let one = |h: Option<Hill>| h.map(from_hill);
        let engine = RLast {
            built: one(l.built),
            fort_captured: one(l.fort_captured),
            sacrificed: one(l.sacrificed),
            kings_captured: hill_set(l.kings_captured),
            kings_removed: hill_set(l.kings_removed),
            passed_out: l.passed_out,
            battle_started: l.battle_started,
            stranded_king_lost: one(l.stranded_king_lost),
            last_hill: l.last_hill,
        };
        let mut want = r.last.clone();
        want.kings_captured.sort();
        want.kings_removed.sort();
        if engine != want {
            return Some((
                "last-move report differs".into(),
                format!("engine {engine:?}, reference {want:?}"),
            ));
        }
    }
    if pos.outcome().is_some() != r.outcome.is_some() {
        return Some((
            "game over differs".into(),
            format!(
                "engine outcome {:?}, reference outcome {:?}",
                pos.outcome(),
                r.outcome
            ),
        ));
    }
    if let (Some(e), Some(o)) = (pos.outcome(), r.outcome) {
        let expect = Outcome {
            winner: o.winner.map(|w| [Side::Red, Side::Blue][w]),
            reason: if o.double_capture {
                EndReason::DoubleCapture
            } else {
                EndReason::Score
            },
            points: BySide::new(pts(o.points[0]), pts(o.points[1])),
        };
        if *e != expect {
            return Some((
                "outcome differs".into(),
                format!("engine {e:?}, reference {expect:?}"),
            ));
        }
        return None;
    }
    let rto = [Side::Red, Side::Blue][r.to_move];
    if pos.to_move() != Some(rto) {
        return Some((
            "player to move differs".into(),
            format!("engine {:?}, reference {rto:?}", pos.to_move()),
        ));
    }
    if pos.phase() != Some(r.phase()) {
        return Some((
            "phase differs".into(),
            format!("engine {:?}, reference {:?}", pos.phase(), r.phase()),
        ));
    }
    if !r.high_kings() {
        for p in 0..2 {
            if t.in_battle(player(p)) != r.battle[p] {
                return Some((
                    "battle state differs".into(),
                    format!(
                        "{:?} in Battle: engine {}, reference {}",
                        player(p),
                        t.in_battle(player(p)),
                        r.battle[p]
                    ),
                ));
            }
        }
    }
    let e = pos.legal_notation();
    let rl = r.legal_text();
    if e != rl {
        let only_e: Vec<&String> = e.iter().filter(|m| !rl.contains(m)).collect();
        let only_r: Vec<&String> = rl.iter().filter(|m| !e.contains(m)).collect();
        return Some((
            format!("legal moves differ ({:?})", r.phase()),
            format!(
                "engine only {only_e:?}, reference only {only_r:?}; engine {e:?}, reference {rl:?}"
            ),
        ));
    }
    None
}

struct Finding {
    kind: String,
    ply: u32,
    detail: String,
    record: String,
}

fn diff_play(
    pos: Position,
    r: Ref,
    rng: &mut Rng,
    policy: Policy,
    describe: &dyn Fn(&[Move]) -> String,
) -> (Events, Option<Finding>) {
    diff_play_checked(pos, r, rng, policy, false, describe)
}

/// Plays from `pos`/`r` to the end, choosing among the engine's legal moves, and compares
/// the engine with the reference at every ply. `describe` writes the reproduction of a game
/// (the record, or the set-up position and the moves).
/// With `check`, also checks the reasons `check` gives at every ply (see [`check_reasons`]).
fn diff_play_checked(
    mut pos: Position,
    mut r: Ref,
    rng: &mut Rng,
    policy: Policy,
    check: bool,
    describe: &dyn Fn(&[Move]) -> String,
) -> (Events, Option<Finding>) {
    let mut moves: Vec<Move> = Vec::new();
    loop {
        if let Some((kind, detail)) = compare(&pos, &r) {
            let f = Finding {
                kind,
                ply: pos.ply(),
                detail,
                record: describe(&moves),
            };
            return (r.ev, Some(f));
        }
        if pos.outcome().is_some() {
            return (r.ev, None);
        }
        assert!(
            pos.ply() < MAX_PLIES,
            "reached MAX_PLIES\n{}",
            describe(&moves)
        );
        if check {
            check_reasons(&pos, rng, || describe(&moves));
        }
        let legal = pos.legal_moves();
        let m = pick(&pos, &legal, &moves, rng, policy);
        pos.play_unchecked(m);
        r.play(RMove::from_engine(m));
        moves.push(m);
    }
}

/// Plays `games` random games from the start and compares the engine with the reference at
/// every ply. Returns the coverage counters; panics with the shortest reproduction of every
/// kind of disagreement.
fn differential(variant: Variant, scoring: Scoring, games: u64, seed: u64) -> Events {
    let mut total = Events::default();
    let mut findings: Vec<Finding> = Vec::new();
    for g in 0..games {
        let first = if g % 2 == 0 { Side::Red } else { Side::Blue };
        let options = GameOptions::with(variant, Some(scoring), Some(first)).unwrap();
        let mut rng = Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(g));
        let describe = |moves: &[Move]| record_text(options, moves);
        let (ev, finding) = diff_play(
            Position::new(options),
            Ref::new(options),
            &mut rng,
            policy_for(g),
            &describe,
        );
        total.add(&ev);
        findings.extend(finding);
    }
    report(variant, scoring, &findings);
    total
}

/// How a random game chooses among the engine's legal moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Policy {
    /// Uniformly.
    Uniform,
    /// Mostly moves onto ringforts (captures, backtracks, sacrifices) and passes when there
    /// are some, to reach the rarer rules more often.
    Special,
    /// Like `Special`, and mostly the reverse of the mover's previous king move when it is
    /// legal: kings shuffle back and forth, so positions repeat (B.5).
    Shuffle,
}

fn policy_for(g: u64) -> Policy {
    match g % 4 {
        0 | 1 => Policy::Uniform,
        2 => Policy::Special,
        _ => Policy::Shuffle,
    }
}

fn pick(pos: &Position, legal: &[Move], moves: &[Move], rng: &mut Rng, policy: Policy) -> Move {
    if policy == Policy::Shuffle && moves.len() >= 2 {
        if let Move::King { from, to, .. } = moves[moves.len() - 2] {
            let back = Move::King {
                from: to,
                to: from,
                sacrifice: false,
            };
            if legal.contains(&back) && rng.below(8) != 0 {
                return back;
            }
        }
    }
    if policy != Policy::Uniform {
        let t = tara(pos);
        let special: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| match m {
                Move::King { to, sacrifice, .. } => *sacrifice || t.vacant() & to.bit() == 0,
                Move::Pass => true,
                _ => false,
            })
            .collect();
        if !special.is_empty() && rng.below(4) != 0 {
            return special[rng.below(special.len())];
        }
    }
    legal[rng.below(legal.len())]
}

fn report(variant: Variant, scoring: Scoring, findings: &[Finding]) {
    if findings.is_empty() {
        return;
    }
    let mut by_kind: Vec<&Finding> = Vec::new();
    for f in findings {
        match by_kind.iter_mut().find(|x| x.kind == f.kind) {
            Some(x) if x.ply <= f.ply => {}
            Some(x) => *x = f,
            None => by_kind.push(f),
        }
    }
    let mut msg = format!(
        "{variant} ({scoring}): the engine and the RULES.md reference disagree in {} games\n",
        findings.len()
    );
    for f in by_kind {
        let _ = writeln!(
            msg,
            "\n== {} (shortest game: at ply {}, after the moves below)\n{}\n{}",
            f.kind, f.ply, f.detail, f.record
        );
    }
    panic!("{msg}");
}

fn print_events(label: &str, e: &Events) {
    eprintln!("{label}: {e:?}");
}

// =================================================================================================
// Tests of the reference itself (A.2 seed checks, A.3 reference values) and of the engine's
// public counting functions against it
// =================================================================================================

fn rect(c0: i32, r0: i32, w: i32, h: i32) -> Vec<usize> {
    let mut v = Vec::new();
    for r in r0..r0 + h {
        for c in c0..c0 + w {
            assert!(cell_exists(c, r));
            v.push(cell(c, r));
        }
    }
    v
}

fn bits(v: &[usize]) -> u64 {
    v.iter().fold(0, |b, &h| b | to_hill(h).bit())
}

#[test]
fn reference_knots_match_the_rules_values() {
    let b2 = cell(1, 1);
    let cases: Vec<(&str, Vec<usize>, u32)> = vec![
        ("lone ringfort", vec![cell(3, 3)], 1),
        ("chain of 4", rect(1, 2, 4, 1), 1),
        (
            "tree (T shape)",
            vec![cell(2, 2), cell(3, 2), cell(4, 2), cell(3, 3), cell(3, 4)],
            1,
        ),
        ("2x2", rect(2, 2, 2, 2), 2),
        ("2x3", rect(2, 2, 2, 3), 1),
        ("3x2", rect(2, 2, 3, 2), 1),
        ("3x3", rect(2, 2, 3, 3), 3),
        ("2x4", rect(1, 2, 2, 4), 2),
        ("4x2", rect(1, 2, 4, 2), 2),
        ("4x4", rect(1, 1, 4, 4), 4),
        (
            "3x3 ring",
            {
                let mut v = rect(2, 2, 3, 3);
                v.retain(|&h| h != cell(3, 3));
                v
            },
            2,
        ),
        (
            "2x2 plus one",
            {
                let mut v = rect(2, 2, 2, 2);
                v.push(cell(4, 2));
                v
            },
            2,
        ),
        ("5x5", rect(1, 1, 5, 5), 5),
        ("3x5", rect(1, 1, 3, 5), 1),
        ("4x6", rect(1, 0, 4, 6), 2),
        (
            "corner-side 2x2 at B1",
            vec![b2, cell(1, 0), cell(2, 0), cell(2, 1)],
            2,
        ),
    ];
    for (name, forts, want) in &cases {
        assert_eq!(ref_knots(forts), *want, "reference knots of {name}");
        assert_eq!(
            tara_bot::game::tara::knots(bits(forts)),
            *want,
            "engine knots of {name}"
        );
    }
    // Two separate kingdoms add up.
    let mut two = rect(0, 1, 2, 2);
    two.extend(rect(4, 4, 3, 2));
    assert_eq!(ref_kingdoms(&two), 2);
    assert_eq!(ref_knots(&two), 3);
    // Random sets: the engine's knots and kingdoms agree with the reference.
    let mut rng = Rng::new(7);
    for _ in 0..3000 {
        let density = 1 + rng.below(4);
        let forts: Vec<usize> = geo()
            .hills
            .iter()
            .copied()
            .filter(|_| rng.below(5) < density)
            .collect();
        assert_eq!(
            tara_bot::game::tara::knots(bits(&forts)),
            ref_knots(&forts),
            "knots of [{}]",
            names(&forts)
        );
        assert_eq!(
            tara_bot::game::tara::kingdoms(bits(&forts)),
            ref_kingdoms(&forts),
            "kingdoms of [{}]",
            names(&forts)
        );
    }
}

#[test]
fn reference_scoring_matches_the_seed_checks() {
    // Red 6 kingdoms, Blue 7, Red captured one king -> Red 4, Blue 0.
    let o = ref_score([6, 7], [20, 20], [1, 0]);
    assert_eq!((o.winner, o.points), (Some(0), [4, 0]));
    // Blue 4 kingdoms, Red 6, Red captured one Blue king -> Blue 4, Red 1.
    let o = ref_score([6, 4], [20, 20], [1, 0]);
    assert_eq!((o.winner, o.points), (Some(1), [1, 4]));
    // Blue 3 kingdoms, Red 6, Red captured one -> Blue 5, Red 1.
    let o = ref_score([6, 3], [20, 20], [1, 0]);
    assert_eq!((o.winner, o.points), (Some(1), [1, 5]));
    // Knots 4-4, territory Red 23 Blue 22 -> Red 3, Blue 0.
    let o = ref_score([4, 4], [23, 22], [0, 0]);
    assert_eq!((o.winner, o.points), (Some(0), [3, 0]));
    // Case 3 with a capture point: no winner, totals differ.
    let o = ref_score([4, 4], [20, 20], [1, 0]);
    assert_eq!((o.winner, o.points), (None, [2, 1]));
    // The engine's public scoring function agrees on random counts.
    let mut rng = Rng::new(11);
    for _ in 0..2000 {
        let c: Vec<Counts> = (0..2)
            .map(|_| Counts {
                kingdoms: rng.below(8) as u32,
                knots: rng.below(8) as u32,
                territory: rng.below(5) as u32 + 18,
                kings_captured: rng.below(2) as u32,
            })
            .collect();
        for scoring in [Scoring::Kingdoms, Scoring::Knots] {
            let e = tara_bot::game::tara::score(scoring, &BySide::new(c[0], c[1]));
            let first = |x: &Counts| match scoring {
                Scoring::Kingdoms => x.kingdoms,
                Scoring::Knots => x.knots,
            };
            let r = ref_score(
                [first(&c[0]), first(&c[1])],
                [c[0].territory, c[1].territory],
                [c[0].kings_captured, c[1].kings_captured],
            );
            assert_eq!(e.winner, r.winner.map(|w| [Side::Red, Side::Blue][w]));
            assert_eq!(
                e.points.into_array(),
                [pts(r.points[0]), pts(r.points[1])],
                "{c:?}"
            );
            assert_eq!(e.reason, EndReason::Score);
        }
    }
}

#[test]
fn reference_geometry_matches_the_rules() {
    let g = geo();
    let two = ["B1", "A2", "F1", "G2", "A6", "B7", "F7", "G6"];
    for &h in &g.hills {
        let n = g.nbrs[h].len();
        let name = cell_name(h);
        let edge = col_of(h) == 0 || col_of(h) == 6 || row_of(h) == 0 || row_of(h) == 6;
        let want = if two.contains(&name.as_str()) {
            2
        } else if edge {
            3
        } else {
            4
        };
        assert_eq!(n, want, "{name}");
        // The engine's Hill agrees on names and neighbours.
        assert_eq!(to_hill(h).to_string(), name);
        assert_eq!(hill_set(to_hill(h).neighbours()), {
            let mut v = g.nbrs[h].clone();
            v.sort();
            v
        });
    }
    // B3 reaches A5, C5, D4, D2, C1, never A1.
    let b3 = cell(1, 2);
    let mut k: Vec<String> = g.knight[b3].iter().map(|&h| cell_name(h)).collect();
    k.sort();
    assert_eq!(k, ["A5", "C1", "C5", "D2", "D4"]);
}

// =================================================================================================
// Differential tests: engine against reference, thousands of random games
// =================================================================================================

/// Multiplies the number of games of every randomized test: `TARA_PROPERTIES_SCALE=20 cargo
/// test --release --test integration tara_properties::` for a deeper search (default 1).
fn scale() -> u64 {
    std::env::var("TARA_PROPERTIES_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
}

const DIFF_GAMES_HK: u64 = 4000;
const DIFF_GAMES_SH: u64 = 3000;

#[test]
fn differential_hkot1() {
    let e = differential(
        Variant::Hkot1,
        Scoring::Kingdoms,
        DIFF_GAMES_HK * scale(),
        101,
    );
    print_events("hkot-1", &e);
    assert!(e.battle_games > 0 && e.king_captures > 0 && e.ringfort_captures > 0);
    assert!(e.voluntary_passes > 0 && e.double_capture_end > 0 && e.last_hill > 0);
    assert!(e.repetition_end > 0 && e.draws > 0);
}

#[test]
fn differential_hkot1_knots() {
    let e = differential(Variant::Hkot1, Scoring::Knots, DIFF_GAMES_HK * scale(), 102);
    print_events("hkot-1 knots", &e);
}

#[test]
fn differential_hkot2() {
    let e = differential(
        Variant::Hkot2,
        Scoring::Kingdoms,
        DIFF_GAMES_HK * scale(),
        103,
    );
    print_events("hkot-2", &e);
    assert!(e.sacrifices > 0, "no sacrifice was ever played: {e:?}");
    assert!(
        e.stranded_lost_at_end > 0 && e.stranded_lost_at_start > 0,
        "{e:?}"
    );
}

#[test]
fn differential_sacred_hill1() {
    let e = differential(
        Variant::SacredHill1,
        Scoring::Kingdoms,
        DIFF_GAMES_SH * scale(),
        104,
    );
    print_events("sacred-hill-1", &e);
    assert!(e.sh_captures > 0 && e.battle_games > 0);
}

#[test]
fn differential_sacred_hill1_knots() {
    let e = differential(
        Variant::SacredHill1,
        Scoring::Knots,
        DIFF_GAMES_SH * scale(),
        105,
    );
    print_events("sacred-hill-1 knots", &e);
}

#[test]
fn differential_sacred_hill2() {
    let e = differential(
        Variant::SacredHill2,
        Scoring::Kingdoms,
        DIFF_GAMES_SH * scale(),
        106,
    );
    print_events("sacred-hill-2", &e);
    assert!(e.sh_captures > 0 && e.sh_op_choices > 0);
}

// =================================================================================================
// Properties of the engine's own games
// =================================================================================================

/// No legal Tara game gets near this many plies (45 builds plus backtracking bounded by the
/// third-repetition rule in practice).
const PLY_BOUND: u32 = 1_000;

const PROP_GAMES: u64 = 1000;
/// Of those, how many also get every enumerable illegal move checked at every ply.
const CHECK_GAMES: u64 = 250;

fn properties(variant: Variant, scoring: Scoring, games: u64, seed: u64) {
    let mut longest = 0;
    for g in 0..games {
        let first = if g % 2 == 0 { Side::Red } else { Side::Blue };
        let options = GameOptions::with(variant, Some(scoring), Some(first)).unwrap();
        let mut rng = Rng::new(seed.wrapping_mul(7_919).wrapping_add(g));
        let policy = policy_for(g + 1);
        let mut pos = Position::new(options);
        let mut moves: Vec<Move> = Vec::new();
        let mut prev_battle = [false; 2];
        loop {
            let ctx = || {
                format!(
                    "game {g} ply {}\n{}",
                    pos.ply(),
                    record_text(options, &moves)
                )
            };
            position_properties(&pos, &moves, ctx);
            if variant == Variant::SacredHill2 {
                op_at_battle_start(&pos, &mut prev_battle, ctx);
            }
            if g < CHECK_GAMES {
                check_reasons(&pos, &mut rng, ctx);
            }
            if pos.outcome().is_some() {
                break;
            }
            assert!(
                pos.ply() < PLY_BOUND,
                "{variant}: game longer than {PLY_BOUND} plies\n{}",
                ctx()
            );
            let legal = pos.legal_moves();
            assert!(!legal.is_empty(), "no legal move, not even pass\n{}", ctx());
            let m = pick(&pos, &legal, &moves, &mut rng, policy);
            // Canonical text reads back as the same move.
            assert_eq!(pos.parse_move(&m.to_string()), Ok(m), "{}", ctx());
            if let Err(e) = pos.check(m) {
                panic!("listed move {m} refused: {e}\n{}", ctx());
            }
            pos.play_unchecked(m);
            moves.push(m);
        }
        longest = longest.max(pos.ply());
        assert!(pos.ply() < MAX_PLIES);
        final_properties(&pos, options, &moves, g);
    }
    eprintln!("{variant} ({scoring}): longest game {longest} plies");
}

/// Invariants of every position of a game.
fn position_properties(pos: &Position, moves: &[Move], ctx: impl Fn() -> String) {
    let t = tara(pos);
    let variant = pos.variant();
    let g = geo();
    for p in 0..2 {
        let pl = player(p);
        let forts = hill_set(t.forts(pl));
        // Territory is the ringfort count.
        let counted = g
            .hills
            .iter()
            .filter(|&&h| t.owner(to_hill(h)) == Some(pl))
            .count() as u32;
        assert_eq!(counted, forts.len() as u32, "{}", ctx());
        let c = t.counts(pl);
        assert_eq!(c.territory, counted, "territory of {pl}\n{}", ctx());
        assert_eq!(
            c.kingdoms,
            ref_kingdoms(&forts),
            "kingdoms of {pl}\n{}",
            ctx()
        );
        assert_eq!(c.knots, ref_knots(&forts), "knots of {pl}\n{}", ctx());
        assert_eq!(c.kings_captured, t.kings_captured(pl), "{}", ctx());
        // Bridges are exactly the adjacent same-colour pairs.
        let mut want: Vec<(usize, usize)> = Vec::new();
        for (i, &a) in g.hills.iter().enumerate() {
            for &b in &g.hills[i + 1..] {
                if adjacent(a, b)
                    && t.owner(to_hill(a)) == Some(pl)
                    && t.owner(to_hill(b)) == Some(pl)
                {
                    want.push((a.min(b), a.max(b)));
                }
            }
        }
        want.sort();
        let mut got: Vec<(usize, usize)> = t
            .bridges(pl)
            .into_iter()
            .map(|(a, b)| {
                let (a, b) = (from_hill(a), from_hill(b));
                (a.min(b), a.max(b))
            })
            .collect();
        got.sort();
        assert_eq!(got, want, "bridges of {pl}\n{}", ctx());
        // Kings.
        let kings = hill_set(t.kings(pl));
        if !variant.has_kings() {
            assert!(kings.is_empty());
            continue;
        }
        assert!(kings.len() <= 3, "{}", ctx());
        assert!(t.forts(pl.opponent()) & t.kings(pl.opponent()) & t.kings(pl) == 0);
        for (i, &a) in kings.iter().enumerate() {
            for &b in &kings[i + 1..] {
                assert!(
                    !adjacent(a, b),
                    "friendly kings of {pl} adjacent on {} and {}\n{}",
                    cell_name(a),
                    cell_name(b),
                    ctx()
                );
            }
            match t.owner(to_hill(a)) {
                Some(o) if o == pl => {}
                Some(_) => {
                    // Only in hkot-2, right after its owner sacrificed that hill.
                    assert_eq!(variant, Variant::Hkot2, "king on enemy ringfort\n{}", ctx());
                    let owner_last = moves
                        .iter()
                        .rev()
                        .nth(if t.to_move() == pl { 1 } else { 0 })
                        .copied();
                    let ok = matches!(owner_last,
                        Some(Move::King { to, sacrifice: true, .. }) if from_hill(to) == a);
                    assert!(
                        ok,
                        "{pl} king on enemy ringfort {} without a sacrifice there\n{}",
                        cell_name(a),
                        ctx()
                    );
                }
                None => panic!("king on vacant hill {}\n{}", cell_name(a), ctx()),
            }
        }
        // Kings captured + kings on board (+ kings removed by a pass) is three after Placement.
        if t.ply() >= 6 && !t.has_passed(pl) && pos.outcome().is_none() {
            assert_eq!(
                kings.len() as u32 + t.kings_captured(pl.opponent()),
                3,
                "{pl} kings on board\n{}",
                ctx()
            );
        }
    }
    if let Some(o) = pos.outcome() {
        check_points(t, o, &ctx);
    }
    // Legal moves: no duplicates, pass only alone except as a High Kings voluntary pass.
    let legal = pos.legal_notation();
    let mut d = legal.clone();
    d.dedup();
    assert_eq!(
        d.len(),
        legal.len(),
        "duplicate legal moves {legal:?}\n{}",
        ctx()
    );
    if pos.outcome().is_none() && !variant.has_kings() && legal.contains(&"pass".to_string()) {
        assert_eq!(legal.len(), 1, "{}", ctx());
    }
}

/// The points follow A.2 recomputed from the counts (or the double-capture rule).
fn check_points(t: &TaraPosition, o: &Outcome, ctx: &impl Fn() -> String) {
    let c = [t.counts(Player::Red), t.counts(Player::Blue)];
    let cap = [c[0].kings_captured, c[1].kings_captured];
    match o.reason {
        EndReason::DoubleCapture => {
            assert!(t.variant().has_kings(), "{}", ctx());
            let w = side_index(o.winner.expect("a double capture has a winner"));
            assert!(cap[w] >= 2 && cap[w] <= 3, "{o:?}\n{}", ctx());
            assert!(cap[1 - w] <= 1, "{o:?}\n{}", ctx());
            let mut want = [0; 2];
            want[w] = cap[w];
            want[1 - w] = u32::from(cap[1 - w] > 0);
            assert_eq!(
                o.points.into_array(),
                [pts(want[0]), pts(want[1])],
                "{}",
                ctx()
            );
        }
        EndReason::Score => {
            let knots = t.options().scoring == Scoring::Knots;
            let first = |x: &Counts| if knots { x.knots } else { x.kingdoms };
            let r = ref_score(
                [first(&c[0]), first(&c[1])],
                [c[0].territory, c[1].territory],
                cap,
            );
            assert!(cap[0] <= 1 && cap[1] <= 1, "{o:?}\n{}", ctx());
            assert_eq!(o.winner.map(side_index), r.winner, "{}", ctx());
            assert_eq!(
                o.points.into_array(),
                [pts(r.points[0]), pts(r.points[1])],
                "{}",
                ctx()
            );
            if !t.variant().has_kings() {
                // The Sacred Hill ending: full board, nothing besieged; no tie on territory.
                assert_eq!(t.vacant(), 0, "{}", ctx());
                assert_eq!(
                    t.besieged_forts(Player::Red) | t.besieged_forts(Player::Blue),
                    0
                );
                assert_ne!(c[0].territory, c[1].territory, "{}", ctx());
                assert!(o.winner.is_some());
            } else {
                // No king is left on enemy territory once the game is scored.
                for p in Player::BOTH {
                    assert_eq!(t.stranded_kings(p), 0, "{}", ctx());
                }
            }
        }
        other => panic!("Tara game ended by {other:?}\n{}", ctx()),
    }
}

/// C.1 ruling (sacred-hill-2): when a player's Battle starts, no vacant hill has an order of
/// priority above 1 for them.
fn op_at_battle_start(pos: &Position, prev: &mut [bool; 2], ctx: impl Fn() -> String) {
    let t = tara(pos);
    for (p, was) in prev.iter_mut().enumerate() {
        let now = t.in_battle(player(p));
        if now && !*was {
            assert_eq!(t.to_move(), player(p), "Battle started off-turn\n{}", ctx());
            for &h in &geo().hills {
                if t.owner(to_hill(h)).is_some() {
                    continue;
                }
                let op = geo().nbrs[h]
                    .iter()
                    .filter(|&&n| t.owner(to_hill(n)) == Some(player(p)))
                    .count();
                assert!(
                    op <= 1,
                    "{:?}'s Battle starts with {} at order of priority {op}\n{}",
                    player(p),
                    cell_name(h),
                    ctx()
                );
            }
        }
        assert!(!*was || now, "Battle went back to Manoeuvres\n{}", ctx());
        *was = now;
    }
}

/// Every listed move passes `check`; every other move we can enumerate gets a specific reason.
fn check_reasons(pos: &Position, rng: &mut Rng, ctx: impl Fn() -> String) {
    let legal = pos.legal_moves();
    for &m in legal.iter() {
        assert_eq!(pos.check(m), Ok(()), "listed move {m}\n{}", ctx());
    }
    let t = tara(pos);
    let mut candidates: Vec<Move> = Vec::new();
    for &h in &geo().hills {
        candidates.push(Move::Build { hill: to_hill(h) });
    }
    candidates.push(Move::Pass);
    if pos.variant().has_kings() {
        for k in hill_set(t.kings(t.to_move())) {
            for &d in &geo().knight[k] {
                for sacrifice in [false, true] {
                    candidates.push(Move::King {
                        from: to_hill(k),
                        to: to_hill(d),
                        sacrifice,
                    });
                }
            }
        }
    }
    // A few arbitrary king moves (not knight's moves, from empty hills, enemy kings...).
    for _ in 0..6 {
        let f = geo().hills[rng.below(45)];
        let d = geo().hills[rng.below(45)];
        candidates.push(Move::King {
            from: to_hill(f),
            to: to_hill(d),
            sacrifice: rng.below(2) == 0,
        });
    }
    candidates.push(Move::Step {
        from: Square::new(3, 1).unwrap(),
        to: Square::new(3, 2).unwrap(),
    });
    for m in candidates {
        if legal.contains(&m) {
            continue;
        }
        match pos.check(m) {
            Ok(()) => panic!("{m} is not listed but check accepts it\n{}", ctx()),
            Err(IllegalMove::NotLegal { examples }) => panic!(
                "{m}: check gives only the fallback NotLegal (you can play {examples})\n{}",
                ctx()
            ),
            Err(e) => {
                assert!(
                    !e.to_string().trim().is_empty(),
                    "{m}: empty message\n{}",
                    ctx()
                );
                if let Err(why) = reason_is_true(pos, m, &e, &legal) {
                    panic!("{m}: check says \"{e}\" ({e:?}), but {why}\n{}", ctx());
                }
                if rng.below(16) == 0 {
                    // `play` refuses it with the same reason and leaves the position as it was.
                    let mut p2 = pos.clone();
                    assert_eq!(p2.play(m), Err(e.clone()), "{}", ctx());
                    assert_eq!(p2.ply(), pos.ply());
                    assert_eq!(p2.legal_notation(), pos.legal_notation(), "{}", ctx());
                    assert_eq!(tara(&p2).forts(Player::Red), tara(pos).forts(Player::Red));
                    assert_eq!(tara(&p2).forts(Player::Blue), tara(pos).forts(Player::Blue));
                }
                if pos.outcome().is_some() {
                    assert_eq!(e, IllegalMove::GameOver);
                }
            }
        }
    }
}

/// Whether the facts a refusal states hold in the position (the right owner, the right
/// priority...), judged from the rules with the reference's geometry.
fn reason_is_true(pos: &Position, m: Move, e: &IllegalMove, legal: &[Move]) -> Result<(), String> {
    use IllegalMove as I;
    let t = tara(pos);
    let hk = pos.variant().has_kings();
    let p = t.to_move();
    let o = p.opponent();
    let at = |h: Hill| t.owner(h);
    let besieged_by = |h: Hill, x: Player| {
        geo().nbrs[from_hill(h)]
            .iter()
            .all(|&n| at(to_hill(n)) == Some(x))
    };
    let d2 = |a: Hill, b: Hill| dist2(from_hill(a), from_hill(b));
    let own_forts: Vec<Hill> = hill_set(t.forts(p)).into_iter().map(to_hill).collect();
    let is_build = |m: &Move| matches!(m, Move::King { to, .. } if at(*to).is_none());
    let (mfrom, mto, msac) = match m {
        Move::King {
            from,
            to,
            sacrifice,
        } => (Some(from), Some(to), sacrifice),
        Move::Build { hill } => (None, Some(hill), false),
        _ => (None, None, false),
    };
    let phase = pos.phase();
    let ok = match e {
        I::GameOver => pos.outcome().is_some(),
        I::WrongGame { .. } => matches!(m, Move::Step { .. }),
        I::MustPass => legal == [Move::Pass],
        I::PassNotAllowed { .. } => m == Move::Pass && !legal.contains(&Move::Pass),
        I::PlacementNeedsHill { .. } => {
            phase == Some(Phase::Placement) && !matches!(m, Move::Build { .. })
        }
        I::KingMoveExpected { .. } => {
            hk && phase != Some(Phase::Placement) && matches!(m, Move::Build { .. })
        }
        I::NoKingsInSacredHill { .. } => !hk && matches!(m, Move::King { .. }),
        I::NotVacant { hill, owner } => at(*hill) == Some(*owner) && mto == Some(*hill),
        I::OwnRingfort { hill } => at(*hill) == Some(p) && mto == Some(*hill),
        I::TouchesOwnRingfort {
            hill,
            fort,
            phase: ph,
        } => {
            at(*fort) == Some(p)
                && d2(*hill, *fort) == 1
                && at(*hill).is_none()
                && Some(*ph) == phase
                && mto == Some(*hill)
        }
        I::NoKing { player, hill } => {
            *player == p && t.king_at(*hill) != Some(p) && mfrom == Some(*hill)
        }
        I::NotKnightMove { from, to } => d2(*from, *to) != 5 && mfrom == Some(*from),
        I::NextToFriendlyKing { to, king } => {
            t.king_at(*king) == Some(p)
                && d2(*to, *king) == 1
                && mfrom != Some(*king)
                && mto == Some(*to)
        }
        I::VacantOnly { to, phase: ph } => {
            at(*to).is_some() && Some(*ph) == phase && *ph == Phase::Manoeuvres
        }
        I::KingsStillMobile { .. } => legal.iter().any(is_build) && !is_build(&m),
        I::KingOnTarget { hill, owner } => t.king_at(*hill) == Some(*owner) && mto == Some(*hill),
        I::EnemyNotBesieged { hill } => at(*hill) == Some(o) && !besieged_by(*hill, p),
        I::SacrificeNotInVariant => msac && pos.variant() != Variant::Hkot2,
        I::SacrificeNeedsOneLostKing => msac && t.kings_captured(o) != 1,
        I::SacrificeNeedsOwnRingfort { hill } => msac && at(*hill) != Some(p),
        I::SacrificeNotBesieged { hill } => msac && !besieged_by(*hill, o),
        I::StrandedKingMustMove { king, .. } => {
            t.stranded_kings(p) & king.bit() != 0 && mfrom != Some(*king)
        }
        I::StrandedKingMustBuild { king, .. } => {
            t.stranded_kings(p) & king.bit() != 0 && legal.iter().any(is_build)
        }
        I::MustCapture { .. } => geo()
            .hills
            .iter()
            .any(|&h| at(to_hill(h)) == Some(o) && besieged_by(to_hill(h), p)),
        I::NotKnightFromOwn { hill, .. } => {
            !own_forts.is_empty() && own_forts.iter().all(|&f| d2(*hill, f) != 5)
        }
        I::TooClose { hill, fort } => at(*fort) == Some(p) && d2(*hill, *fort) < 5,
        I::MustBuildAdjacent { hill, .. } => {
            at(*hill).is_none()
                && own_forts.iter().all(|&f| d2(*hill, f) != 1)
                && geo().hills.iter().any(|&h| {
                    at(to_hill(h)).is_none() && own_forts.iter().any(|&f| d2(to_hill(h), f) == 1)
                })
        }
        I::LowerPriority { hill, op, best, .. } => {
            let op_of = |h: Hill| -> Option<u32> {
                if at(h).is_none() {
                    Some(own_forts.iter().filter(|&&f| d2(h, f) == 1).count() as u32)
                } else if at(h) == Some(o) && besieged_by(h, p) {
                    Some(geo().nbrs[from_hill(h)].len() as u32)
                } else {
                    None
                }
            };
            let max = geo().hills.iter().filter_map(|&h| op_of(to_hill(h))).max();
            op_of(*hill) == Some(*op) && max == Some(*best) && op < best
        }
        I::NotBesieged { hill, owner } => {
            *owner == o && at(*hill) == Some(o) && !besieged_by(*hill, p)
        }
        other => return Err(format!("{other:?} is not a Tara reason")),
    };
    if ok {
        Ok(())
    } else {
        Err("that is not what the position shows".to_string())
    }
}

/// At the end: replaying the record (directly and through its text form) rebuilds the same
/// final position; the game ended within the bound.
fn final_properties(pos: &Position, options: GameOptions, moves: &[Move], g: u64) {
    let record = GameRecord {
        options,
        moves: moves.to_vec(),
    };
    let ctx = || format!("game {g}\n{record}");
    let same = |other: &Position, how: &str| {
        let (a, b) = (tara(pos), tara(other));
        for p in Player::BOTH {
            assert_eq!(a.counts(p), b.counts(p), "{how}: counts of {p}\n{}", ctx());
            assert_eq!(a.forts(p), b.forts(p), "{how}: ringforts of {p}\n{}", ctx());
            assert_eq!(a.kings(p), b.kings(p), "{how}: kings of {p}\n{}", ctx());
        }
        assert_eq!(pos.outcome(), other.outcome(), "{how}: outcome\n{}", ctx());
        assert_eq!(
            pos.legal_notation(),
            other.legal_notation(),
            "{how}\n{}",
            ctx()
        );
        assert_eq!(pos.ply(), other.ply(), "{how}: ply\n{}", ctx());
    };
    let replayed = record
        .position()
        .unwrap_or_else(|e| panic!("replay failed: {e}\n{}", ctx()));
    same(&replayed, "replay");
    let text = record.to_string();
    let parsed =
        GameRecord::parse(&text).unwrap_or_else(|e| panic!("parse failed: {e}\n{}", ctx()));
    assert_eq!(parsed, record, "{}", ctx());
    let reparsed = parsed
        .position()
        .unwrap_or_else(|e| panic!("replay of parsed record failed: {e}\n{}", ctx()));
    same(&reparsed, "text round trip");
    // Every prefix of a finished game is unfinished.
    if let Some(last) = moves.len().checked_sub(1) {
        let before = record.position_at(last).unwrap();
        assert!(before.outcome().is_none(), "{}", ctx());
    }
    assert!(pos.outcome().is_some(), "{}", ctx());
}

#[test]
fn properties_hkot1() {
    properties(Variant::Hkot1, Scoring::Kingdoms, PROP_GAMES * scale(), 201);
}

#[test]
fn properties_hkot1_knots() {
    properties(
        Variant::Hkot1,
        Scoring::Knots,
        PROP_GAMES / 4 * scale(),
        202,
    );
}

#[test]
fn properties_hkot2() {
    properties(Variant::Hkot2, Scoring::Kingdoms, PROP_GAMES * scale(), 203);
}

#[test]
fn properties_sacred_hill1() {
    properties(
        Variant::SacredHill1,
        Scoring::Kingdoms,
        PROP_GAMES * scale(),
        204,
    );
}

#[test]
fn properties_sacred_hill1_knots() {
    properties(
        Variant::SacredHill1,
        Scoring::Knots,
        PROP_GAMES / 4 * scale(),
        205,
    );
}

#[test]
fn properties_sacred_hill2() {
    properties(
        Variant::SacredHill2,
        Scoring::Kingdoms,
        PROP_GAMES * scale(),
        206,
    );
}

// =================================================================================================
// Set-up positions: the worked positions of B.7 and random positions (reachable or not, the
// rules apply to any position), engine against reference, then random play to the end
// =================================================================================================

/// A hand-made or random position, built the same way for the engine and the reference.
#[derive(Clone)]
struct RawSetup {
    options: GameOptions,
    owner: [i8; CELLS],
    king: [i8; CELLS],
    to_move: usize,
    ply: u32,
    battle: [bool; 2],
    captured: [u32; 2],
}

impl RawSetup {
    /// Reads the engine's diagram format (row 7 first; `.` vacant, `r`/`b` ringforts, `R`/`B`
    /// ringforts with their owner's king, `S` a Red king on a Blue ringfort, `T` a Blue king on
    /// a Red ringfort, `-` corners), independently of the engine.
    fn parse(
        options: GameOptions,
        diagram: &str,
        to_move: usize,
        ply: u32,
        battle: [bool; 2],
        captured: [u32; 2],
    ) -> RawSetup {
        let rows: Vec<Vec<char>> = diagram
            .lines()
            .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect::<Vec<_>>())
            .filter(|r| !r.is_empty())
            .collect();
        assert_eq!(rows.len(), 7);
        let mut s = RawSetup {
            options,
            owner: [VACANT; CELLS],
            king: [NO_KING; CELLS],
            to_move,
            ply,
            battle,
            captured,
        };
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(row.len(), 7);
            let r = 6 - i as i32;
            for (c, &ch) in row.iter().enumerate() {
                let c = c as i32;
                if !cell_exists(c, r) {
                    assert!(ch == '-' || ch == '.');
                    continue;
                }
                let h = cell(c, r);
                let (o, k) = match ch {
                    '.' => (VACANT, NO_KING),
                    'r' => (0, NO_KING),
                    'b' => (1, NO_KING),
                    'R' => (0, 0),
                    'B' => (1, 1),
                    'S' => (1, 0),
                    'T' => (0, 1),
                    _ => panic!("bad cell {ch}"),
                };
                s.owner[h] = o;
                s.king[h] = k;
            }
        }
        s
    }

    fn diagram(&self) -> String {
        let mut out = String::new();
        for r in (0..7).rev() {
            for c in 0..7 {
                if !cell_exists(c, r) {
                    out.push('-');
                    continue;
                }
                let h = cell(c, r);
                out.push(match (self.owner[h], self.king[h]) {
                    (VACANT, _) => '.',
                    (0, NO_KING) => 'r',
                    (1, NO_KING) => 'b',
                    (0, 0) => 'R',
                    (1, 1) => 'B',
                    (1, 0) => 'S',
                    (0, 1) => 'T',
                    x => panic!("bad cell {x:?}"),
                });
            }
            out.push('\n');
        }
        out
    }

    fn describe(&self, moves: &[Move]) -> String {
        let ms: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
        format!(
            "set-up position ({}, {}): to move {:?}, ply {}, battle {:?}, captured {:?}\n{}moves from there: {}",
            self.options.variant,
            self.options.scoring,
            player(self.to_move),
            self.ply,
            self.battle,
            self.captured,
            self.diagram(),
            ms.join(" ")
        )
    }

    fn engine(&self) -> Position {
        let d = self.diagram();
        let t = TaraPosition::setup(&Setup {
            options: self.options,
            diagram: &d,
            to_move: player(self.to_move),
            ply: self.ply,
            battle: self.battle.into(),
            captured: BySide::new(self.captured[0] as u8, self.captured[1] as u8),
        })
        .unwrap_or_else(|e| panic!("{e}\n{d}"));
        Position::Tara(t)
    }

    /// The reference position; the start-of-turn rules run as if the position had been
    /// reached by play.
    fn reference(&self) -> Ref {
        let mut r = Ref::new(self.options);
        r.owner = self.owner;
        r.king = self.king;
        r.to_move = self.to_move;
        r.ply = self.ply;
        r.battle = self.battle;
        r.captured = self.captured;
        r.history.clear();
        if r.high_kings() {
            r.high_kings_begin_turn();
            if r.outcome.is_none() {
                let k = r.key();
                r.history.insert(k, 1);
            }
        } else if !r.battle[r.to_move] && r.spacing_builds(r.to_move).is_empty() {
            r.battle[r.to_move] = true;
        }
        r
    }
}

fn hk_options(variant: Variant) -> GameOptions {
    GameOptions::new(variant)
}

/// Asserts that engine and reference agree on a set-up position and that its legal moves are
/// `want` (sorted canonical text).
fn assert_setup_moves(s: &RawSetup, want: &[&str]) {
    let pos = s.engine();
    let r = s.reference();
    if let Some((kind, detail)) = compare(&pos, &r) {
        panic!("{kind}: {detail}\n{}", s.describe(&[]));
    }
    let mut want: Vec<String> = want.iter().map(|x| x.to_string()).collect();
    want.sort();
    assert_eq!(r.legal_text(), want, "reference\n{}", s.describe(&[]));
    assert_eq!(pos.legal_notation(), want, "engine\n{}", s.describe(&[]));
}

/// Plays `texts` on both and compares after each move.
fn play_both(s: &RawSetup, texts: &[&str]) -> (Position, Ref) {
    let mut pos = s.engine();
    let mut r = s.reference();
    let mut moves = Vec::new();
    for t in texts {
        let m = pos.parse_move(t).unwrap();
        pos.play(m)
            .unwrap_or_else(|e| panic!("{t}: {e}\n{}", s.describe(&moves)));
        r.play(RMove::from_engine(m));
        moves.push(m);
        if let Some((kind, detail)) = compare(&pos, &r) {
            panic!("{kind}: {detail}\n{}", s.describe(&moves));
        }
    }
    (pos, r)
}

#[test]
fn worked_position_fig_1b_stranded_king() {
    // hkot-2: a Blue king on B3 stands on a Red ringfort (after a sacrifice); A5 and D2 hold
    // Red ringforts. It must move, and only it: C5, D4, C1 (a knight never reaches A1).
    let d1 = "
        - . . . . . -
        R . . . . B .
        r . . . . . .
        . r . . . . .
        r T r . . . R
        . r . r . . .
        - . . . R . -";
    let s = RawSetup::parse(hk_options(Variant::Hkot2), d1, 1, 30, [true; 2], [1, 0]);
    assert_setup_moves(&s, &["B3-C1", "B3-C5", "B3-D4"]);
    // C5, D4, C1 Blue ringforts, C1 besieged by Red: the king is immobile and may backtrack,
    // and sacrifice C1.
    let d2 = "
        - . . . . . -
        R . . . . B .
        r . b . . . .
        . r . b . . .
        r T r . . . R
        . r r r . . .
        - r b r R . -";
    let s = RawSetup::parse(hk_options(Variant::Hkot2), d2, 1, 30, [true; 2], [1, 0]);
    assert_setup_moves(&s, &["B3-C1", "B3-C1*", "B3-C5", "B3-D4"]);
    // Sacrificing C1 leaves the king on enemy territory again (play_both compares the engine
    // with the reference after the move).
    let (pos, _) = play_both(&s, &["B3-C1*"]);
    assert!(pos.outcome().is_none());
    assert_eq!(
        tara(&pos).stranded_kings(Player::Blue),
        to_hill(cell(2, 0)).bit()
    );
    // With no move at all the stranded king is captured by default at the start of its
    // owner's turn: double capture for Red.
    let d3 = "
        - . . . . . -
        R . . . . B .
        r . r . . . .
        . r . r . . .
        r T r . . . R
        . r . r . . .
        - r r r R . -";
    let s = RawSetup::parse(hk_options(Variant::Hkot2), d3, 1, 30, [true; 2], [1, 0]);
    let pos = s.engine();
    let r = s.reference();
    assert!(compare(&pos, &r).is_none(), "{:?}", compare(&pos, &r));
    let o = pos
        .outcome()
        .expect("stranded king without a move is captured by default");
    assert_eq!(o.reason, EndReason::DoubleCapture);
    assert_eq!(o.winner, Some(Side::Red));
    assert_eq!(o.points.into_array(), [pts(2), pts(0)]);
}

#[test]
fn worked_position_fig_11_double_capture() {
    // Red's king F5 builds on E7 (neighbours D7, F7, E6 all Blue). Blue's king on F7 (its
    // neighbours E7, F6; F6 Red) falls; with C7 and D6 Red, Blue's king on D7 falls too.
    let d = "
        - . r B . B -
        . . . r b r .
        . . . . . R .
        . . . . . . .
        R . . . . . .
        . B . . . . .
        - . R . . . -";
    let s = RawSetup::parse(hk_options(Variant::Hkot1), d, 0, 30, [true; 2], [0, 0]);
    let (pos, _) = play_both(&s, &["F5-E7"]);
    let o = pos.outcome().expect("double capture ends the game");
    assert_eq!(o.reason, EndReason::DoubleCapture);
    assert_eq!(o.winner, Some(Side::Red));
    assert_eq!(o.points.into_array(), [pts(2), pts(0)]);
    // Without C7 only F7 falls.
    let d = d.replacen("- . r B", "- . . B", 1);
    let s = RawSetup::parse(hk_options(Variant::Hkot1), &d, 0, 30, [true; 2], [0, 0]);
    let (pos, _) = play_both(&s, &["F5-E7"]);
    assert!(pos.outcome().is_none());
    assert_eq!(tara(&pos).kings_captured(Player::Red), 1);
    assert_eq!(
        hill_set(tara(&pos).kings(Player::Blue)),
        vec![cell(1, 1), cell(3, 6)]
    );
}

#[test]
fn king_moving_next_to_enemy_king_is_safe_until_another_comes() {
    // B.4. Blue's king F2 builds on D3, whose neighbours C3, E3, D2, D4 are all Red (a Red king
    // stands on E3): the Blue king is safe, the Red king did not move.
    let d = "
        - . . . . . -
        . . . . . . .
        . R . . . . .
        . . . r . . .
        . . r . R . .
        . . . r . B .
        - . . . . . -";
    let s = RawSetup::parse(hk_options(Variant::Hkot1), d, 1, 30, [true; 2], [0, 0]);
    let (pos, _) = play_both(&s, &["F2-D3"]);
    assert_eq!(
        tara(&pos).kings_captured(Player::Red),
        0,
        "the Blue king is safe"
    );
    assert_eq!(tara(&pos).king_at(to_hill(cell(3, 2))), Some(Player::Blue));
    // Blue's king on D3 with C3, D2, D4 Red and E3 vacant: Red's king F5 builds the last
    // besieging ringfort on E3 and captures it.
    let d = "
        - . . . . . -
        . . . . . . .
        . . . . . R .
        . . . r . . .
        . . r B . . .
        . . . r . . .
        - R . . . . -";
    let s = RawSetup::parse(hk_options(Variant::Hkot1), d, 0, 30, [true; 2], [0, 0]);
    let (pos, _) = play_both(&s, &["F5-E3"]);
    assert_eq!(tara(&pos).kings_captured(Player::Red), 1);
    assert_eq!(tara(&pos).king_at(to_hill(cell(3, 2))), None);
}

/// A random position: random ringforts, kings on own ringforts never next to a friendly king,
/// captured counts 0 or 1, in hkot-2 sometimes a king on enemy territory (on a hill all of
/// whose neighbours are enemy ringforts, as after a sacrifice).
fn random_setup(variant: Variant, scoring: Scoring, rng: &mut Rng) -> RawSetup {
    let first = if rng.below(2) == 0 {
        Side::Red
    } else {
        Side::Blue
    };
    let options = GameOptions::with(variant, Some(scoring), Some(first)).unwrap();
    let hk = variant.has_kings();
    let mut s = RawSetup {
        options,
        owner: [VACANT; CELLS],
        king: [NO_KING; CELLS],
        to_move: rng.below(2),
        ply: 6 + rng.below(60) as u32,
        battle: [false; 2],
        captured: [0; 2],
    };
    let density = 30 + rng.below(66);
    let red_share = 30 + rng.below(41);
    for &h in &geo().hills {
        if rng.below(100) < density {
            s.owner[h] = if rng.below(100) < red_share { 0 } else { 1 };
        }
    }
    if hk {
        let b = rng.below(5) != 0;
        s.battle = [b, b];
        s.captured = [rng.below(2) as u32, rng.below(2) as u32];
        for p in 0..2 {
            let want = 3 - s.captured[1 - p] as usize;
            let mut placed = 0;
            for _ in 0..40 {
                if placed == want {
                    break;
                }
                let h = geo().hills[rng.below(45)];
                if s.owner[h] != p as i8 || s.king[h] != NO_KING {
                    continue;
                }
                if geo().nbrs[h].iter().any(|&n| s.king[n] == p as i8) {
                    continue;
                }
                s.king[h] = p as i8;
                placed += 1;
            }
        }
        if variant == Variant::Hkot2 && s.battle[0] {
            for p in 0..2 {
                if s.captured[1 - p] != 1 || rng.below(2) == 0 {
                    continue;
                }
                let kings: Vec<usize> = geo()
                    .hills
                    .iter()
                    .copied()
                    .filter(|&h| s.king[h] == p as i8)
                    .collect();
                if kings.is_empty() {
                    continue;
                }
                let k = kings[rng.below(kings.len())];
                // As after a sacrifice: the hill was besieged by the opponent.
                if geo().nbrs[k].iter().any(|&n| s.king[n] == p as i8) {
                    continue;
                }
                s.owner[k] = (1 - p) as i8;
                // (An enemy king on a neighbour already stands on its own ringfort.)
                for &n in &geo().nbrs[k] {
                    if s.king[n] == NO_KING {
                        s.owner[n] = (1 - p) as i8;
                    }
                }
            }
        }
        // Kings only on ringforts.
        for &h in &geo().hills {
            if s.owner[h] == VACANT {
                s.king[h] = NO_KING;
            }
        }
    } else {
        s.ply = 0;
        s.battle = [rng.below(3) != 0, rng.below(3) != 0];
    }
    s
}

fn setup_differential(variant: Variant, scoring: Scoring, positions: u64, seed: u64) -> Events {
    let mut total = Events::default();
    let mut findings: Vec<Finding> = Vec::new();
    let mut rng = Rng::new(seed);
    for g in 0..positions {
        let s = random_setup(variant, scoring, &mut rng);
        let describe = |moves: &[Move]| s.describe(moves);
        let check = g % 3 == 0;
        let (ev, finding) = diff_play_checked(
            s.engine(),
            s.reference(),
            &mut rng,
            policy_for(g),
            check,
            &describe,
        );
        total.add(&ev);
        findings.extend(finding);
    }
    report(variant, scoring, &findings);
    total
}

const SETUP_POSITIONS: u64 = 3000;

#[test]
fn setup_differential_hkot1() {
    let e = setup_differential(
        Variant::Hkot1,
        Scoring::Kingdoms,
        SETUP_POSITIONS * scale(),
        301,
    );
    print_events("hkot-1 set-ups", &e);
    assert!(e.skip_passes > 0 && e.repetition_end > 0 && e.triple_capture_end > 0);
}

#[test]
fn setup_differential_hkot2() {
    let e = setup_differential(
        Variant::Hkot2,
        Scoring::Kingdoms,
        SETUP_POSITIONS * scale(),
        302,
    );
    print_events("hkot-2 set-ups", &e);
    assert!(e.sacrifice_with_capture > 0 && e.stranded_lost_at_start > 0);
}

#[test]
fn setup_differential_sacred_hill1() {
    let e = setup_differential(
        Variant::SacredHill1,
        Scoring::Knots,
        SETUP_POSITIONS * scale(),
        303,
    );
    print_events("sacred-hill-1 set-ups", &e);
}

#[test]
fn setup_differential_sacred_hill2() {
    let e = setup_differential(
        Variant::SacredHill2,
        Scoring::Kingdoms,
        SETUP_POSITIONS * scale(),
        304,
    );
    print_events("sacred-hill-2 set-ups", &e);
    assert!(e.sh_passes > 0 && e.sh_captures > 0);
}

// =================================================================================================
// Perft data files: the reference counts the Tara entries of `tests/perft/*.perft`
// =================================================================================================

/// The number of legal move sequences of length `depth` by the reference (finished positions
/// are not expanded), as `tests/perft.rs` counts them with the engine.
fn ref_perft(r: &Ref, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if r.outcome.is_some() {
        return 0;
    }
    let legal = r.legal();
    if depth == 1 {
        return legal.len() as u64;
    }
    legal
        .into_iter()
        .map(|m| {
            let mut next = r.clone();
            next.play(m);
            ref_perft(&next, depth - 1)
        })
        .sum()
}

/// A move of a data file (`D4`, `G2-E3`, `C5-B3*`, `pass`) read by the reference.
fn ref_move(text: &str) -> RMove {
    let t = text.to_ascii_uppercase();
    if t == "PASS" {
        return RMove::Pass;
    }
    let (body, sacrifice) = match t.strip_suffix('*') {
        Some(b) => (b, true),
        None => (t.as_str(), false),
    };
    let hill = |name: &str| {
        (0..CELLS)
            .find(|&i| cell_exists(col_of(i), row_of(i)) && cell_name(i) == name)
            .unwrap_or_else(|| panic!("{name} is not a hill"))
    };
    match body.split_once('-') {
        Some((a, b)) => RMove::King(hill(a), hill(b), sacrifice),
        None => RMove::Hill(hill(body)),
    }
}

/// The independent check of the Tara counts in the perft data files (the engine's side is
/// `tests/perft.rs`).
#[test]
fn reference_perft_matches_the_data_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/perft");
    let mut checked = 0;
    for file in std::fs::read_dir(&dir).unwrap() {
        let path = file.unwrap().path();
        if path.extension().is_none_or(|e| e != "perft") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for block in text.split("\n\n") {
            let mut fields: HashMap<&str, &str> = HashMap::new();
            let mut counts: Vec<(u32, u64)> = Vec::new();
            for line in block.lines().map(str::trim) {
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                let (key, value) = line.split_once(' ').unwrap_or((line, ""));
                if key == "perft" {
                    let (d, n) = value.trim().split_once(' ').unwrap();
                    counts.push((d.parse().unwrap(), n.trim().parse().unwrap()));
                } else {
                    fields.insert(key, value.trim());
                }
            }
            let Some(variant) = fields.get("variant").map(|v| v.parse::<Variant>().unwrap()) else {
                continue;
            };
            if !variant.is_tara() {
                continue;
            }
            let scoring = fields.get("scoring").map(|s| s.parse::<Scoring>().unwrap());
            let first = fields.get("first").map(|s| Side::from_id(s).unwrap());
            let mut r = Ref::new(GameOptions::with(variant, scoring, first).unwrap());
            let id = fields.get("id").copied().unwrap_or("?");
            for text in fields
                .get("moves")
                .copied()
                .unwrap_or("")
                .split_whitespace()
            {
                let m = ref_move(text);
                assert!(
                    r.legal().contains(&m),
                    "{id}: {text} is illegal for the reference"
                );
                r.play(m);
            }
            for (depth, expected) in counts {
                assert_eq!(ref_perft(&r, depth), expected, "{id} perft {depth}");
                checked += 1;
            }
        }
    }
    assert!(
        checked >= 20,
        "only {checked} Tara counts in the data files"
    );
}
