//! High Kings of Tara (`hkot-1`, `hkot-2`): kings moving by knight's moves (docs/rules.md §4–5).

use super::{examples, TaraPosition};
use crate::game::board::{dilate, squares, surrounded_by, Bits, Hill, HILL_KNIGHT};
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
    Hill::from_index(i).expect("index of a hill")
}

impl TaraPosition {
    /// Vacant hills a king on `k` of player `p` may reach in Manoeuvres.
    #[inline]
    fn manoeuvre_targets(&self, p: Player, k: u8) -> Bits {
        HILL_KNIGHT[k as usize] & self.vacant() & !dilate(self.forts[p])
    }

    /// Vacant hills a king on `k` of player `p` may reach in Battle (not next to another
    /// friendly king). A king is mobile in Battle when this is not empty.
    #[inline]
    fn battle_targets(&self, p: Player, k: u8) -> Bits {
        let others = self.kings[p] & !(1 << k);
        HILL_KNIGHT[k as usize] & self.vacant() & !dilate(others)
    }

    /// Whether any king of `p` can move in Manoeuvres.
    fn any_manoeuvre(&self, p: Player) -> bool {
        squares(self.kings[p]).any(|k| self.manoeuvre_targets(p, k) != 0)
    }

    /// Whether every king on the board, of both colours, is immobile under Battle rules (B.5).
    pub fn all_kings_immobile(&self) -> bool {
        Player::BOTH
            .into_iter()
            .all(|p| squares(self.kings[p]).all(|k| self.battle_targets(p, k) == 0))
    }

    /// Backtracks, sacrifices and ringfort captures of the king on `k` (Battle, immobile).
    fn immobile_king_moves(&self, p: Player, k: u8, out: &mut MoveList) {
        let (pi, qi) = (p, p.opponent());
        let all_kings = self.kings[Player::Red] | self.kings[Player::Blue];
        let allowed = HILL_KNIGHT[k as usize] & !all_kings & !dilate(self.kings[pi] & !(1 << k));
        let sacrificable = if self.variant() == Variant::Hkot2 && self.captured[qi] == 1 {
            surrounded_by(self.forts[qi]) & self.forts[pi]
        } else {
            0
        };
        let capturable = surrounded_by(self.forts[pi]) & self.forts[qi];
        let from = hill(k);
        for t in squares(allowed & (self.forts[pi] | capturable)) {
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

    /// Pushes the moves of the kings in `movers` to vacant hills under Battle rules; returns
    /// whether there was any.
    fn battle_builds(&self, p: Player, movers: Bits, out: &mut MoveList) -> bool {
        let mut any = false;
        for k in squares(movers) {
            let targets = self.battle_targets(p, k);
            any |= targets != 0;
            for t in squares(targets) {
                out.push(Move::King {
                    from: hill(k),
                    to: hill(t),
                    sacrifice: false,
                });
            }
        }
        any
    }

    pub(super) fn high_kings_moves(&self, out: &mut MoveList) {
        let p = self.to_move;
        let pi = p;
        if self.ply < PLACEMENT_PLIES {
            for h in squares(self.vacant() & !dilate(self.forts[pi])) {
                out.push(Move::Build { hill: hill(h) });
            }
            return;
        }
        if !self.battle[pi] {
            for k in squares(self.kings[pi]) {
                for t in squares(self.manoeuvre_targets(p, k)) {
                    out.push(Move::King {
                        from: hill(k),
                        to: hill(t),
                        sacrifice: false,
                    });
                }
            }
            return;
        }
        // Battle: a king on enemy territory must move, and no other king may (B.6).
        let stranded = self.stranded_kings(p);
        let movers = if stranded != 0 {
            stranded
        } else {
            self.kings[pi]
        };
        if self.battle_builds(p, movers, out) {
            return;
        }
        for k in squares(movers) {
            self.immobile_king_moves(p, k, out);
        }
        if stranded == 0 && self.all_kings_immobile() {
            out.push(Move::Pass);
        }
    }

    /// Captures the enemy kings next to `t` that stand on their own besieged ringforts (B.4).
    fn capture_kings(&mut self, p: Player, t: Hill) {
        let (pi, qi) = (p, p.opponent());
        let victims =
            t.neighbours() & self.kings[qi] & self.forts[qi] & surrounded_by(self.forts[pi]);
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
        if stranded != 0 {
            let mut moves = MoveList::new();
            if !self.battle_builds(p, stranded, &mut moves) {
                for k in squares(stranded) {
                    self.immobile_king_moves(p, k, &mut moves);
                }
            }
            if moves.is_empty() {
                self.kings[pi] &= !stranded;
                self.captured[qi] += stranded.count_ones() as u8;
                self.last.stranded_king_lost = Hill::in_set(stranded).next();
                if self.captured[qi] >= 2 {
                    self.finish_by_double_capture(p.opponent());
                }
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
