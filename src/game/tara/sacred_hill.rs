//! Tara: Sacred Hill (`sacred-hill-1`, `sacred-hill-2`): no kings, one ringfort built or
//! captured each turn (docs/rules.md §6–7).

use super::{examples, hills_text, TaraPosition};
use crate::game::board::{
    dilate, east, north, south, surrounded_by, west, Bits, Hill, HILLS, HILL_NEAR,
};
use crate::game::error::IllegalMove;
use crate::game::moves::{Move, MoveList};
use crate::game::side::Player;
use crate::game::variant::Variant;

/// Hills a knight's move from any hill of `b`.
#[inline]
fn knight_union(b: Bits) -> Bits {
    let h1 = east(b) | west(b);
    let h2 = east(east(b)) | west(west(b));
    (north(north(h1)) | south(south(h1)) | north(h2) | south(h2)) & HILLS
}

/// Hills closer than a knight's move to any hill of `b` (offsets with distance below √5).
#[inline]
fn near_union(b: Bits) -> Bits {
    let row = b | east(b) | west(b);
    let d = dilate(b) | north(row) | south(row) | north(north(b)) | south(south(b));
    (d | east(east(b)) | west(west(b))) & HILLS & !b
}

/// Sets of hills by the number of neighbours of each that are in `b`: element `k` holds the
/// hills with at least `k + 1` such neighbours.
#[inline]
const fn neighbour_counts(b: Bits) -> [Bits; 4] {
    // The hills whose north (east, south, west) neighbour is in `b`.
    let n = south(b) & HILLS;
    let s = north(b) & HILLS;
    let e = west(b) & HILLS;
    let w = east(b) & HILLS;
    [
        n | s | e | w,
        (n & s) | (n & e) | (n & w) | (s & e) | (s & w) | (e & w),
        (n & s & e) | (n & s & w) | (n & e & w) | (s & e & w),
        n & s & e & w,
    ]
}

impl TaraPosition {
    /// Hills `p` may build on under the Manoeuvres spacing rule (C.1).
    pub(super) fn manoeuvre_builds_for(&self, p: Player) -> Bits {
        let own = self.forts[p];
        if own == 0 {
            self.vacant()
        } else {
            self.vacant() & knight_union(own) & !near_union(own)
        }
    }

    /// Order of priority (C.3, Level 2 Battle): the highest priority and the candidates
    /// (vacant hills and besieged enemy ringforts) that have it.
    fn priority(&self, p: Player) -> (u32, Bits) {
        let own = self.forts[p];
        let besieged = surrounded_by(own) & self.forts[p.opponent()];
        let vacant = self.vacant();
        let counts = neighbour_counts(own);
        for op in (1..=4).rev() {
            let set = (vacant & exactly(&counts, op)) | (besieged & exactly(&DEGREE, op));
            if set != 0 {
                return (op as u32, set);
            }
        }
        (0, vacant)
    }

    /// The priority of one candidate hill for `p`.
    fn priority_of(&self, p: Player, h: Hill) -> u32 {
        if self.forts[p.opponent()] & h.bit() != 0 {
            h.neighbours().count_ones()
        } else {
            (h.neighbours() & self.forts[p]).count_ones()
        }
    }

    /// The hills `p` may play on this turn.
    fn sacred_hill_targets(&self, p: Player) -> Bits {
        let (pi, qi) = (p, p.opponent());
        if self.variant() == Variant::SacredHill2 && self.battle[pi] {
            return self.priority(p).1;
        }
        let besieged = surrounded_by(self.forts[pi]) & self.forts[qi];
        if besieged != 0 {
            return besieged;
        }
        if !self.battle[pi] {
            return self.manoeuvre_builds_for(p);
        }
        let vacant = self.vacant();
        let next_to_own = vacant & dilate(self.forts[pi]);
        if next_to_own != 0 {
            next_to_own
        } else {
            vacant
        }
    }

    pub(super) fn sacred_hill_moves(&self, out: &mut MoveList) {
        out.push_builds(self.sacred_hill_targets(self.to_move));
    }

    pub(super) fn play_sacred_hill(&mut self, m: Move) {
        let p = self.to_move;
        let (pi, qi) = (p, p.opponent());
        if let Move::Build { hill } = m {
            if self.forts[qi] & hill.bit() != 0 {
                self.forts[qi] &= !hill.bit();
                self.last.fort_captured = Some(hill);
            } else {
                self.last.built = Some(hill);
            }
            self.forts[pi] |= hill.bit();
        }
        self.ply += 1;
        self.to_move = p.opponent();
        let (red, blue) = (self.forts[Player::Red], self.forts[Player::Blue]);
        let besieged_any = (surrounded_by(red) & blue) | (surrounded_by(blue) & red);
        if self.vacant() == 0 && besieged_any == 0 {
            self.finish_by_score();
            return;
        }
        // Battle starts for the player to move when the spacing rule leaves no build (C.1).
        let q = self.to_move;
        if !self.battle[q] && self.manoeuvre_builds_for(q) == 0 {
            self.battle[q] = true;
            self.last.battle_started = true;
        }
    }

    /// The reason a Sacred Hill move that is not in `legal` is illegal.
    pub(super) fn sacred_hill_illegal(&self, m: Move, legal: &MoveList) -> Option<IllegalMove> {
        let p = self.to_move;
        let (pi, qi) = (p, p.opponent());
        let hill = match m {
            Move::King { .. } => {
                return Some(IllegalMove::NoKingsInSacredHill {
                    example: examples(legal),
                })
            }
            Move::Pass => {
                return Some(IllegalMove::PassNotAllowed {
                    why: "in Sacred Hill you pass only when you have no other move",
                    examples: examples(legal),
                })
            }
            Move::Build { hill } => hill,
            Move::Step { .. } => return None,
        };
        let options = examples(legal);
        if self.forts[pi] & hill.bit() != 0 {
            return Some(IllegalMove::OwnRingfort { hill });
        }
        let besieged = surrounded_by(self.forts[pi]) & self.forts[qi];
        let enemy_here = self.forts[qi] & hill.bit() != 0;
        if self.variant() == Variant::SacredHill2 && self.battle[pi] {
            if enemy_here && besieged & hill.bit() == 0 {
                return Some(IllegalMove::NotBesieged {
                    hill,
                    owner: p.opponent(),
                });
            }
            let (best, _) = self.priority(p);
            return Some(IllegalMove::LowerPriority {
                hill,
                op: self.priority_of(p, hill),
                best,
                options,
            });
        }
        if besieged != 0 {
            if enemy_here {
                return Some(IllegalMove::NotBesieged {
                    hill,
                    owner: p.opponent(),
                });
            }
            return Some(IllegalMove::MustCapture {
                options: hills_text(besieged),
            });
        }
        if enemy_here {
            return Some(IllegalMove::NotBesieged {
                hill,
                owner: p.opponent(),
            });
        }
        if !self.battle[pi] {
            let own = self.forts[pi];
            if let Some(fort) = Hill::in_set(HILL_NEAR[hill.index() as usize] & own).next() {
                return Some(IllegalMove::TooClose { hill, fort });
            }
            return Some(IllegalMove::NotKnightFromOwn { hill, options });
        }
        Some(IllegalMove::MustBuildAdjacent { hill, options })
    }
}

/// Hills by their number of neighbours on the board (as [`neighbour_counts`] gives it).
const DEGREE: [Bits; 4] = neighbour_counts(HILLS);

/// The hills of `counts` with exactly `k` (1 to 4) neighbours in the counted set.
#[inline]
fn exactly(counts: &[Bits; 4], k: usize) -> Bits {
    counts[k - 1] & if k < 4 { !counts[k] } else { !0 }
}
