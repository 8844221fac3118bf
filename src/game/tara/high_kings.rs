//! High Kings of Tara (`hkot-1`, `hkot-2`): kings moving by knight's moves (docs/rules.md §4–5).

use super::{examples, TaraPosition};
use crate::game::board::{
    dilate, squares, surrounded_by, Bits, Hill, HILL_KNIGHT, HILL_NEIGHBOURS,
};
use crate::game::by_side::BySide;
use crate::game::error::IllegalMove;
use crate::game::moves::{Move, MoveList};
use crate::game::phase::Phase;
use crate::game::side::Player;
use crate::game::variant::Variant;

/// Number of Placement turns (plies 0–5).
const PLACEMENT_PLIES: u32 = 6;

#[inline]
fn hill(i: u8) -> Hill {
    Hill::from_hill_index(i)
}

/// The hills next to at least one king of `kings`, and those next to at least two.
#[inline]
fn king_neighbourhoods(kings: Bits) -> (Bits, Bits) {
    let (mut one, mut two) = (0, 0);
    for k in squares(kings) {
        let n = HILL_NEIGHBOURS[k as usize];
        two |= one & n;
        one |= n;
    }
    (one, two)
}

/// The hills next to a king other than the one on `k`, from the [`king_neighbourhoods`] of
/// the kings (`k` among them): the hills next to two of them, and those next to one that are
/// not next to `k`. The same as `dilate(kings & !(1 << k)) & HILLS`.
#[inline]
fn next_to_others((one, two): (Bits, Bits), k: u8) -> Bits {
    two | (one & !HILL_NEIGHBOURS[k as usize])
}

impl TaraPosition {
    /// Vacant hills not next to a ringfort of `p`: where `p` may build in Placement, and
    /// where `p`'s kings may move in Manoeuvres.
    #[inline]
    fn spaced_vacant(&self, p: Player) -> Bits {
        self.vacant() & !dilate(self.forts[p])
    }

    /// Whether any king of `p` can move in Manoeuvres.
    fn any_manoeuvre(&self, p: Player) -> bool {
        let free = self.spaced_vacant(p);
        squares(self.kings[p]).any(|k| HILL_KNIGHT[k as usize] & free != 0)
    }

    /// Whether every king of `p` is immobile under Battle rules: no vacant hill a knight's
    /// move away that is not next to another king of `p`.
    fn kings_immobile(&self, p: Player) -> bool {
        let vacant = self.vacant();
        let near = king_neighbourhoods(self.kings[p]);
        squares(self.kings[p])
            .all(|k| HILL_KNIGHT[k as usize] & vacant & !next_to_others(near, k) == 0)
    }

    /// Whether every king on the board, of both colours, is immobile under Battle rules (B.5).
    pub fn all_kings_immobile(&self) -> bool {
        Player::BOTH.into_iter().all(|p| self.kings_immobile(p))
    }

    /// Whether one of `p`'s kings on `movers` has a move under Battle rules: to a vacant hill,
    /// or, as an immobile king, a backtrack or a ringfort capture (see [`Self::high_kings_moves`]).
    fn battle_move_exists(&self, p: Player, movers: Bits) -> bool {
        let q = p.opponent();
        let all_kings = self.kings[p] | self.kings[q];
        let capturable = surrounded_by(self.forts[p]) & self.forts[q];
        let landing = self.vacant() | ((self.forts[p] | capturable) & !all_kings);
        let near = king_neighbourhoods(self.kings[p]);
        squares(movers).any(|k| HILL_KNIGHT[k as usize] & landing & !next_to_others(near, k) != 0)
    }

    pub(super) fn high_kings_moves(&self, out: &mut MoveList) {
        let p = self.to_move;
        if self.ply < PLACEMENT_PLIES {
            out.push_builds(self.spaced_vacant(p));
            return;
        }
        let kings = self.kings[p];
        if !self.battle[p] {
            let free = self.spaced_vacant(p);
            for k in squares(kings) {
                out.push_king_moves(hill(k), HILL_KNIGHT[k as usize] & free);
            }
            return;
        }
        // Battle: a king on enemy territory must move, and no other king may (B.6).
        let q = p.opponent();
        let vacant = self.vacant();
        let stranded = kings & self.forts[q];
        let movers = if stranded != 0 { stranded } else { kings };
        // A king may not move next to another friendly king.
        let near = king_neighbourhoods(kings);
        let mut any = false;
        for k in squares(movers) {
            let targets = HILL_KNIGHT[k as usize] & vacant & !next_to_others(near, k);
            any |= targets != 0;
            out.push_king_moves(hill(k), targets);
        }
        if any {
            return;
        }
        // Every mover is immobile: backtracks, sacrifices (`hkot-2`) and ringfort captures.
        let all_kings = kings | self.kings[q];
        let own = self.forts[p];
        let capturable = surrounded_by(own) & self.forts[q];
        let sacrificable = if self.variant() == Variant::Hkot2 && self.captured[q] == 1 {
            surrounded_by(self.forts[q]) & own
        } else {
            0
        };
        for k in squares(movers) {
            let from = hill(k);
            let targets = HILL_KNIGHT[k as usize]
                & !all_kings
                & !next_to_others(near, k)
                & (own | capturable);
            if targets & sacrificable == 0 {
                out.push_king_moves(from, targets);
                continue;
            }
            for t in squares(targets) {
                out.push(Move::King {
                    from,
                    to: hill(t),
                    sacrifice: false,
                });
                if sacrificable & (1 << t) != 0 {
                    out.push(Move::King {
                        from,
                        to: hill(t),
                        sacrifice: true,
                    });
                }
            }
        }
        // With no king on enemy territory, `p`'s kings are all immobile here.
        if stranded == 0 && self.kings_immobile(q) {
            out.push(Move::Pass);
        }
    }

    /// The first move of `legal` (the legal moves here) whose own captures (B.4) give the
    /// player to move their second captured king: a double capture, which wins at once.
    /// A move captures the enemy kings next to where it goes that stand on their own ringforts
    /// and are then besieged, the destination being the mover's ringfort by then (built,
    /// backtracked onto, captured, or about to be sacrificed). So each such king is taken by a
    /// move to any of its neighbours when all of them are the mover's already, or to the one
    /// that is not.
    pub(super) fn double_capture_move(&self, legal: &[Move]) -> Option<Move> {
        let p = self.to_move;
        let q = p.opponent();
        let exposed = self.kings[q] & self.forts[q];
        if exposed == 0 || self.captured[p] >= 2 {
            return None;
        }
        let mine = self.forts[p];
        // The hills a move to which takes at least one exposed king, and at least two.
        let (mut once, mut twice) = (0, 0);
        for k in Hill::in_set(exposed) {
            let around = k.neighbours();
            let missing = around & !mine;
            let takes = match missing.count_ones() {
                0 => around,
                1 => missing,
                _ => 0,
            };
            twice |= once & takes;
            once |= takes;
        }
        let targets = if self.captured[p] == 1 { once } else { twice };
        if targets == 0 {
            return None;
        }
        legal.iter().copied().find(|&m| match m {
            Move::Build { hill } | Move::King { to: hill, .. } => targets & hill.bit() != 0,
            Move::Pass | Move::Step { .. } => false,
        })
    }

    /// Captures the enemy kings next to `t` that stand on their own besieged ringforts (B.4).
    fn capture_kings(&mut self, p: Player, t: Hill) {
        let (pi, qi) = (p, p.opponent());
        let exposed = t.neighbours() & self.kings[qi] & self.forts[qi];
        if exposed == 0 {
            return;
        }
        let victims = exposed & surrounded_by(self.forts[pi]);
        if victims != 0 {
            self.kings[qi] &= !victims;
            self.captured[pi] += victims.count_ones() as u8;
            self.last.kings_captured |= victims;
        }
    }

    pub(super) fn play_high_kings(&mut self, m: Move) {
        let p = self.to_move;
        let (pi, qi) = (p, p.opponent());
        let final_turn = self.last_turn;
        let mut built = false;
        match m {
            Move::Build { hill } => {
                self.forts[pi] |= hill.bit();
                self.kings[pi] |= hill.bit();
                built = true;
                self.last.built = Some(hill);
                self.capture_kings(p, hill);
            }
            Move::King {
                from,
                to,
                sacrifice,
            } => {
                let tb = to.bit();
                self.kings[pi] = (self.kings[pi] & !from.bit()) | tb;
                if self.vacant() & tb != 0 {
                    self.forts[pi] |= tb;
                    built = true;
                    self.last.built = Some(to);
                    self.capture_kings(p, to);
                } else if self.forts[pi] & tb != 0 {
                    // Backtrack; a sacrifice checks for captures before handing the ringfort over.
                    self.capture_kings(p, to);
                    if sacrifice {
                        self.forts[pi] &= !tb;
                        self.forts[qi] |= tb;
                        self.last.sacrificed = Some(to);
                    }
                } else {
                    self.forts[qi] &= !tb;
                    self.forts[pi] |= tb;
                    self.last.fort_captured = Some(to);
                    self.capture_kings(p, to);
                }
            }
            Move::Pass => {
                if self.all_kings_immobile() {
                    self.last.kings_removed = self.kings[pi];
                    self.last.passed_out = true;
                    self.kings[pi] = 0;
                    self.passed[pi] = true;
                }
            }
            Move::Step { .. } => debug_assert!(false, "Ard Rí move in a Tara game"),
        }
        self.ply += 1;
        self.to_move = p.opponent();
        if self.captured[pi] >= 2 {
            self.finish_by_double_capture(p);
            return;
        }
        if final_turn || (self.last.passed_out && self.passed[qi]) {
            self.finish_high_kings();
            return;
        }
        if self.last.passed_out {
            self.last_turn = true;
        } else if built && self.vacant() == 0 {
            self.last_turn = true;
            self.last.last_hill = true;
        }
        self.begin_turn_high_kings();
        if self.outcome.is_some() {
            return;
        }
        // Repetition (B.5): earlier positions had fewer ringforts once something is built.
        if built {
            self.history.clear();
        }
        let key = self.key();
        let seen = self.history.iter().filter(|k| **k == key).count();
        if self.history.len() == self.history.capacity() {
            // A clone's history has no room to spare: grow by 32 at once, not 1, 4, 8, 16.
            self.history.reserve(32);
        }
        self.history.push(key);
        if seen >= 2 {
            self.last.third_repetition = true;
            self.finish_high_kings();
        }
    }

    /// Start-of-turn rules: the BATTLE switch (B.1) and the capture by default of a king
    /// stranded on enemy territory with no move (B.6).
    pub(super) fn begin_turn_high_kings(&mut self) {
        let p = self.to_move;
        let (pi, qi) = (p, p.opponent());
        if self.ply >= PLACEMENT_PLIES && !self.battle[pi] && !self.any_manoeuvre(p) {
            self.battle = BySide::both(true);
            self.last.battle_started = true;
        }
        let stranded = self.stranded_kings(p);
        if stranded != 0 && !self.battle_move_exists(p, stranded) {
            self.kings[pi] &= !stranded;
            self.captured[qi] += stranded.count_ones() as u8;
            self.last.stranded_king_lost = Hill::in_set(stranded).next();
            if self.captured[qi] >= 2 {
                self.finish_by_double_capture(p.opponent());
            }
        }
    }

    /// Ends a High Kings game that did not end by double capture. A king still standing on
    /// enemy territory is captured by default first (B.6, the seed's option B); the player
    /// to move is judged first.
    fn finish_high_kings(&mut self) {
        for p in [self.to_move, self.to_move.opponent()] {
            let stranded = self.stranded_kings(p);
            if stranded != 0 {
                let q = p.opponent();
                self.last.stranded_at_end = Hill::in_set(stranded).next().map(|h| (h, p));
                self.kings[p] &= !stranded;
                self.captured[q] += stranded.count_ones() as u8;
                if self.captured[q] >= 2 {
                    self.finish_by_double_capture(q);
                    return;
                }
            }
        }
        self.finish_by_score();
    }

    /// The reason a High Kings move that is not in `legal` is illegal.
    pub(super) fn high_kings_illegal(&self, m: Move, legal: &MoveList) -> Option<IllegalMove> {
        let p = self.to_move;
        let (pi, qi) = (p, p.opponent());
        let phase = self.phase();
        let example = || examples(legal);
        if phase == Phase::Placement {
            let Move::Build { hill } = m else {
                return Some(IllegalMove::PlacementNeedsHill { example: example() });
            };
            return self.occupied_or_touching(p, hill, phase);
        }
        let (from, to, sacrifice) = match m {
            Move::Build { .. } => {
                return Some(IllegalMove::KingMoveExpected { example: example() })
            }
            Move::Pass => {
                let why = if self.stranded_kings(p) != 0 {
                    "your king on enemy territory must move"
                } else if legal.iter().any(|m| self.is_build(*m)) {
                    "one of your kings can still move to a vacant hill"
                } else {
                    "an enemy king can still move to a vacant hill, so not every king is immobile"
                };
                return Some(IllegalMove::PassNotAllowed {
                    why,
                    examples: example(),
                });
            }
            Move::King {
                from,
                to,
                sacrifice,
            } => (from, to, sacrifice),
            Move::Step { .. } => return None,
        };
        if self.kings[pi] & from.bit() == 0 {
            return Some(IllegalMove::NoKing {
                player: p,
                hill: from,
            });
        }
        if from.knight() & to.bit() == 0 {
            return Some(IllegalMove::NotKnightMove { from, to });
        }
        let stranded = self.stranded_kings(p);
        if stranded != 0 && stranded & from.bit() == 0 {
            return Some(IllegalMove::StrandedKingMustMove {
                king: Hill::in_set(stranded).next()?,
                example: example(),
            });
        }
        if sacrifice {
            if self.variant() != Variant::Hkot2 {
                return Some(IllegalMove::SacrificeNotInVariant);
            }
            if self.forts[pi] & to.bit() == 0 {
                return Some(IllegalMove::SacrificeNeedsOwnRingfort { hill: to });
            }
            if self.captured[qi] != 1 {
                return Some(IllegalMove::SacrificeNeedsOneLostKing);
            }
            if surrounded_by(self.forts[qi]) & to.bit() == 0 {
                return Some(IllegalMove::SacrificeNotBesieged { hill: to });
            }
        }
        if phase == Phase::Manoeuvres {
            if self.vacant() & to.bit() == 0 {
                return Some(IllegalMove::VacantOnly { to, phase });
            }
            return self.occupied_or_touching(p, to, phase);
        }
        // Battle.
        if let Some(k) = Hill::in_set(self.kings[pi] & !from.bit() & to.neighbours()).next() {
            return Some(IllegalMove::NextToFriendlyKing { to, king: k });
        }
        if self.vacant() & to.bit() != 0 {
            return None;
        }
        if legal.iter().any(|m| self.is_build(*m)) {
            return Some(if stranded != 0 {
                IllegalMove::StrandedKingMustBuild {
                    king: from,
                    example: example(),
                }
            } else {
                IllegalMove::KingsStillMobile { example: example() }
            });
        }
        if let Some(owner) = self.king_at(to) {
            return Some(IllegalMove::KingOnTarget { hill: to, owner });
        }
        if self.forts[qi] & to.bit() != 0 && surrounded_by(self.forts[pi]) & to.bit() == 0 {
            return Some(IllegalMove::EnemyNotBesieged { hill: to });
        }
        None
    }

    /// Whether `m` moves a king onto a vacant hill.
    fn is_build(&self, m: Move) -> bool {
        matches!(m, Move::King { to, .. } if self.vacant() & to.bit() != 0)
    }

    /// `NotVacant` or `TouchesOwnRingfort` for a hill in Placement or Manoeuvres.
    fn occupied_or_touching(&self, p: Player, h: Hill, phase: Phase) -> Option<IllegalMove> {
        if let Some(owner) = self.owner(h) {
            return Some(IllegalMove::NotVacant { hill: h, owner });
        }
        let touching = h.neighbours() & self.forts[p];
        Hill::in_set(touching)
            .next()
            .map(|fort| IllegalMove::TouchesOwnRingfort {
                hill: h,
                fort,
                phase,
            })
    }
}
