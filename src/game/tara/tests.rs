//! Rule tests for the Tara games: every worked example of docs/rules.md and one test per rule and
//! per illegal-move reason, on hand-built positions.

use super::*;
use crate::game::error::IllegalMove;
use crate::game::moves::{Move, MoveList};
use crate::game::notation::{parse_hill, parse_move};
use crate::game::side::Side;
use crate::game::variant::{GameOptions, Scoring, Variant};
use crate::game::variant_position::Position;

fn h(s: &str) -> Hill {
    parse_hill(s).unwrap()
}

fn set(hills: &str) -> Bits {
    hills.split_whitespace().fold(0, |b, s| b | h(s).bit())
}

/// A diagram from (cell character, hills) pairs; everything else vacant.
fn diagram(cells: &[(char, &str)]) -> String {
    let mut grid = [['.'; 7]; 7];
    for (ch, hills) in cells {
        for s in hills.split_whitespace() {
            let hill = h(s);
            grid[6 - hill.row() as usize][hill.col() as usize] = *ch;
        }
    }
    grid.iter()
        .map(|r| r.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

struct Spec<'a> {
    variant: Variant,
    cells: &'a [(char, &'a str)],
    to_move: Player,
    ply: u32,
    battle: [bool; 2],
    captured: [u8; 2],
}

fn pos(s: Spec) -> TaraPosition {
    let d = diagram(s.cells);
    TaraPosition::setup(&Setup {
        options: GameOptions::new(s.variant),
        diagram: &d,
        to_move: s.to_move,
        ply: s.ply,
        battle: s.battle.into(),
        captured: s.captured.into(),
    })
    .unwrap()
}

fn legal(p: &TaraPosition) -> Vec<String> {
    let mut l = MoveList::new();
    p.legal_moves_into(&mut l);
    let mut v: Vec<String> = l.iter().map(|m| m.to_string()).collect();
    v.sort();
    v
}

fn mv(p: &TaraPosition, text: &str) -> Move {
    parse_move(p.variant(), text).unwrap()
}

fn play(p: &mut TaraPosition, text: &str) {
    let m = mv(p, text);
    if let Err(e) = p.check(m) {
        panic!("{text} should be legal: {e}; legal: {:?}", legal(p));
    }
    p.play_unchecked(m);
}

fn reason(p: &TaraPosition, text: &str) -> IllegalMove {
    p.check(mv(p, text)).expect_err(text)
}

fn start(variant: Variant) -> TaraPosition {
    TaraPosition::new(GameOptions::new(variant))
}

fn counts(kingdoms: u32, territory: u32, kings: u32) -> Counts {
    Counts {
        kingdoms,
        knots: kingdoms,
        territory,
        kings_captured: kings,
    }
}

// ---------------------------------------------------------------- A.2 scoring

#[test]
fn seed_score_red_6_blue_7_kingdoms_red_took_a_king() {
    let o = score(
        Scoring::Kingdoms,
        &BySide::from([counts(6, 20, 1), counts(7, 20, 0)]),
    );
    assert_eq!(o.winner, Some(Side::Red));
    assert_eq!(o.points.into_array(), [Points::whole(4), Points::whole(0)]);
}

#[test]
fn seed_score_blue_4_red_6_kingdoms_red_took_a_king() {
    let o = score(
        Scoring::Kingdoms,
        &BySide::from([counts(6, 20, 1), counts(4, 20, 0)]),
    );
    assert_eq!(o.winner, Some(Side::Blue));
    assert_eq!(o.points.into_array(), [Points::whole(1), Points::whole(4)]);
}

#[test]
fn seed_score_blue_3_red_6_kingdoms_red_took_a_king() {
    let o = score(
        Scoring::Kingdoms,
        &BySide::from([counts(6, 20, 1), counts(3, 20, 0)]),
    );
    assert_eq!(o.points.into_array(), [Points::whole(1), Points::whole(5)]);
}

#[test]
fn seed_score_knots_4_4_territory_23_22() {
    let c = [counts(4, 23, 0), counts(4, 22, 0)];
    let o = score(Scoring::Knots, &c.into());
    assert_eq!(o.winner, Some(Side::Red));
    assert_eq!(o.points.into_array(), [Points::whole(3), Points::whole(0)]);
    assert_eq!(o.reason, EndReason::Score);
}

#[test]
fn equal_kingdoms_and_territory_score_one_each_plus_captures_and_no_winner() {
    let o = score(
        Scoring::Kingdoms,
        &BySide::from([counts(5, 21, 1), counts(5, 21, 0)]),
    );
    assert_eq!(o.winner, None);
    assert_eq!(o.points.into_array(), [Points::whole(2), Points::whole(1)]);
}

#[test]
fn knots_scoring_uses_knots_not_kingdoms() {
    let c = [
        Counts {
            kingdoms: 3,
            knots: 5,
            territory: 20,
            kings_captured: 0,
        },
        Counts {
            kingdoms: 4,
            knots: 4,
            territory: 20,
            kings_captured: 0,
        },
    ];
    assert_eq!(score(Scoring::Kingdoms, &c.into()).winner, Some(Side::Red));
    let o = score(Scoring::Knots, &c.into());
    assert_eq!(o.winner, Some(Side::Blue));
    assert_eq!(o.points.into_array(), [Points(0), Points::whole(3)]);
}

// ---------------------------------------------------------------- A.3 knots

fn rect(col: u8, row: u8, w: u8, hgt: u8) -> Bits {
    let mut b = 0;
    for c in col..col + w {
        for r in row..row + hgt {
            b |= Hill::new(c, r).unwrap().bit();
        }
    }
    b
}

fn gcd(a: u8, b: u8) -> u8 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[test]
fn knots_reference_values() {
    assert_eq!(knots(set("D4")), 1, "lone ringfort");
    assert_eq!(knots(set("B2 C2 D2 D3 D4 E4")), 1, "tree");
    assert_eq!(knots(set("D3 D4 D5 C4 E4")), 1, "plus-shaped tree");
    assert_eq!(knots(rect(1, 1, 2, 2)), 2, "2x2");
    assert_eq!(knots(rect(1, 1, 2, 3)), 1, "2x3");
    assert_eq!(knots(rect(1, 1, 3, 3)), 3, "3x3");
    assert_eq!(knots(rect(1, 1, 2, 4)), 2, "2x4");
    assert_eq!(knots(rect(1, 1, 4, 4)), 4, "4x4");
    let ring = rect(2, 2, 3, 3) & !set("D4");
    assert_eq!(knots(ring), 2, "3x3 ring");
    assert_eq!(knots(rect(1, 1, 2, 2) | set("D2")), 2, "2x2 with one more");
    assert_eq!(knots(set("A2 C2 E2")), 3, "three lone ringforts");
    assert_eq!(knots(0), 0);
}

#[test]
fn traced_knots_agree_with_union_find() {
    // Sets of every density, the whole board and the empty one included.
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for i in 0..20_000 {
        let b = match i % 4 {
            0 => next() & next(),
            1 => next(),
            2 => next() | next(),
            _ => next() | next() | next(),
        } & HILLS;
        assert_eq!(knots(b), knots_union_find(b), "{b:#x}");
        assert_eq!(traced_knots(b), knots_union_find(b), "{b:#x}");
    }
    assert_eq!(knots(HILLS), knots_union_find(HILLS));
    assert_eq!(traced_knots(HILLS), knots_union_find(HILLS));
}

#[test]
fn knots_of_full_rectangles_are_the_gcd_of_the_sides() {
    for w in 1..=7u8 {
        for hh in 1..=5u8 {
            assert_eq!(knots(rect(0, 1, w, hh)), u32::from(gcd(w, hh)), "{w}x{hh}");
        }
    }
    for w in 1..=5u8 {
        for hh in 1..=7u8 {
            assert_eq!(knots(rect(1, 0, w, hh)), u32::from(gcd(w, hh)), "{w}x{hh}");
        }
    }
}

#[test]
fn kingdoms_are_connected_groups() {
    assert_eq!(kingdoms(0), 0);
    assert_eq!(kingdoms(set("D4")), 1);
    assert_eq!(kingdoms(set("D4 E5")), 2, "diagonal is not adjacent");
    assert_eq!(kingdoms(set("D4 E4 E5 A2 B2 G6")), 3);
    assert_eq!(kingdom_sets(set("D4 E4 A2")).len(), 2);
}

#[test]
fn bridges_are_the_adjacent_same_colour_pairs() {
    let p = pos(Spec {
        variant: Variant::SacredHill1,
        cells: &[('r', "D4 E4 E5"), ('b', "D5 C4")],
        to_move: Player::Red,
        ply: 10,
        battle: [true, true],
        captured: [0, 0],
    });
    assert_eq!(
        p.bridges(Player::Red),
        vec![(h("D4"), h("E4")), (h("E4"), h("E5"))]
    );
    assert_eq!(p.bridges(Player::Blue), vec![]);
}

// ---------------------------------------------------------------- B.1 Placement

#[test]
fn placement_offers_every_hill_then_forbids_touching_own_ringforts() {
    let mut p = start(Variant::Hkot1);
    assert_eq!(legal(&p).len(), 45);
    assert_eq!(p.phase(), Phase::Placement);
    play(&mut p, "D4");
    play(&mut p, "D5"); // Blue may touch Red's ringfort.
    assert_eq!(
        reason(&p, "E4"),
        IllegalMove::TouchesOwnRingfort {
            hill: h("E4"),
            fort: h("D4"),
            phase: Phase::Placement
        }
    );
    assert_eq!(
        reason(&p, "E4").to_string(),
        "E4 is next to your ringfort on D4: in Placement your ringforts may not touch"
    );
    assert!(legal(&p).contains(&"E5".to_string()), "diagonal is allowed");
    assert_eq!(p.kings(Player::Red), set("D4"));
}

#[test]
fn placement_onto_an_occupied_hill_is_not_vacant() {
    let mut p = start(Variant::Hkot1);
    play(&mut p, "D4");
    assert_eq!(
        reason(&p, "D4"),
        IllegalMove::NotVacant {
            hill: h("D4"),
            owner: Player::Red
        }
    );
}

#[test]
fn placement_needs_a_hill_not_a_king_move() {
    let p = start(Variant::Hkot1);
    assert!(matches!(
        reason(&p, "D4-E6"),
        IllegalMove::PlacementNeedsHill { .. }
    ));
}

#[test]
fn placement_lasts_six_turns_even_after_a_capture() {
    let mut p = start(Variant::Hkot1);
    play(&mut p, "C1");
    play(&mut p, "B1"); // Blue stands next to Red's C1.
    play(&mut p, "F6");
    play(&mut p, "F2");
    play(&mut p, "B2"); // C1 and B2 besiege B1: Blue's king falls.
    assert_eq!(p.last_move().kings_captured, set("B1"));
    assert_eq!(p.kings_captured(Player::Red), 1);
    assert_eq!(p.kings(Player::Blue), set("F2"));
    assert_eq!(
        p.phase(),
        Phase::Placement,
        "Blue still places its third king"
    );
    play(&mut p, "D5");
    assert_eq!(p.phase(), Phase::Manoeuvres);
    assert!(matches!(
        reason(&p, "E3"),
        IllegalMove::KingMoveExpected { .. }
    ));
}

// ---------------------------------------------------------------- B.1 Manoeuvres

fn manoeuvres() -> TaraPosition {
    pos(Spec {
        variant: Variant::Hkot1,
        cells: &[('R', "B2 D4 F6"), ('B', "B6 F2 D7"), ('b', "C6")],
        to_move: Player::Red,
        ply: 10,
        battle: [false, false],
        captured: [0, 0],
    })
}

#[test]
fn manoeuvres_kings_move_by_knight_to_vacant_hills_not_touching_own_ringforts() {
    let p = manoeuvres();
    assert_eq!(p.phase(), Phase::Manoeuvres);
    let l = legal(&p);
    for m in ["D4-B5", "D4-E2", "D4-F3"] {
        assert!(l.contains(&m.to_string()), "{m}");
    }
    for m in ["D4-B3", "D4-C2", "D4-E6", "D4-F5", "D4-C6"] {
        assert!(!l.contains(&m.to_string()), "{m}");
    }
}

#[test]
fn manoeuvres_touching_own_ringfort_is_illegal() {
    assert_eq!(
        reason(&manoeuvres(), "D4-E6"),
        IllegalMove::TouchesOwnRingfort {
            hill: h("E6"),
            fort: h("F6"),
            phase: Phase::Manoeuvres
        }
    );
}

#[test]
fn manoeuvres_king_moves_only_to_vacant_hills() {
    assert_eq!(
        reason(&manoeuvres(), "D4-C6"),
        IllegalMove::VacantOnly {
            to: h("C6"),
            phase: Phase::Manoeuvres
        }
    );
}

#[test]
fn a_king_move_must_be_a_knights_move() {
    assert_eq!(
        reason(&manoeuvres(), "D4-D6"),
        IllegalMove::NotKnightMove {
            from: h("D4"),
            to: h("D6")
        }
    );
}

#[test]
fn a_king_move_needs_a_king_of_the_mover() {
    let p = manoeuvres();
    assert_eq!(
        reason(&p, "C3-E4"),
        IllegalMove::NoKing {
            player: Player::Red,
            hill: h("C3")
        }
    );
    assert_eq!(
        reason(&p, "F2-E4"),
        IllegalMove::NoKing {
            player: Player::Red,
            hill: h("F2")
        }
    );
}

#[test]
fn after_placement_a_hill_alone_is_not_a_move() {
    assert!(matches!(
        reason(&manoeuvres(), "E3"),
        IllegalMove::KingMoveExpected { .. }
    ));
}

#[test]
fn no_passing_while_a_king_can_move() {
    let e = reason(&manoeuvres(), "pass");
    assert!(matches!(e, IllegalMove::PassNotAllowed { .. }), "{e}");
}

#[test]
fn a_step_is_not_a_tara_move() {
    let p = manoeuvres();
    let m = parse_move(Variant::ArdRi, "d2-d3").unwrap();
    assert!(matches!(p.check(m), Err(IllegalMove::WrongGame { .. })));
}

// ---------------------------------------------------------------- B.1 BATTLE, B.5 passes

/// Red's kings A2, G6, B7 have every knight target taken; Blue's king D4 is free.
const LOCKED_RED: &[(char, &str)] = &[
    ('R', "A2 G6 B7"),
    ('b', "C3 C1 B4 F4 E5 E7 D6 C5 A5"),
    ('B', "D4"),
];

#[test]
fn battle_starts_for_both_when_the_mover_has_no_manoeuvre() {
    let p = pos(Spec {
        variant: Variant::Hkot1,
        cells: LOCKED_RED,
        to_move: Player::Red,
        ply: 20,
        battle: [false, false],
        captured: [0, 0],
    });
    assert_eq!(p.phase(), Phase::Battle);
    assert_eq!(p.phase_of(Player::Blue), Phase::Battle);
}

#[test]
fn forced_pass_skips_the_turn_and_keeps_the_kings() {
    let mut p = pos(Spec {
        variant: Variant::Hkot1,
        cells: LOCKED_RED,
        to_move: Player::Red,
        ply: 20,
        battle: [false, false],
        captured: [0, 0],
    });
    assert_eq!(legal(&p), ["pass"]);
    assert_eq!(reason(&p, "A2-C1"), IllegalMove::MustPass);
    play(&mut p, "pass");
    assert_eq!(p.kings(Player::Red), set("A2 G6 B7"));
    assert!(!p.has_passed(Player::Red));
    assert!(!p.is_last_turn());
    assert_eq!(p.to_move(), Player::Blue);
    assert!(p.outcome().is_none());
}

fn all_locked() -> TaraPosition {
    let mut cells = LOCKED_RED.to_vec();
    cells.push(('r', "B3 B5 C2 C6 E2 E6 F3 F5"));
    cells.push(('b', "B6"));
    pos(Spec {
        variant: Variant::Hkot1,
        cells: &cells,
        to_move: Player::Red,
        ply: 30,
        battle: [true, true],
        captured: [0, 0],
    })
}

#[test]
fn voluntary_pass_removes_the_kings_and_gives_one_more_turn() {
    let mut p = all_locked();
    assert!(p.all_kings_immobile());
    assert_eq!(legal(&p), ["pass"]);
    play(&mut p, "pass");
    assert!(p.last_move().passed_out);
    let said = crate::game::describe::tara_last_move(&p).unwrap();
    assert!(said.ends_with("Blue has one more turn."), "{said}");
    assert_eq!(p.kings(Player::Red), 0);
    assert!(p.has_passed(Player::Red));
    assert!(p.is_last_turn());
    // Blue's last turn: B5 is besieged by Blue, so D4 may capture it.
    assert_eq!(legal(&p), ["D4-B5", "pass"]);
    play(&mut p, "D4-B5");
    assert_eq!(p.last_move().fort_captured, Some(h("B5")));
    let o = *p.outcome().expect("the game ends after the last turn");
    assert_eq!(o.reason, EndReason::Score);
    let c = [p.counts(Player::Red), p.counts(Player::Blue)];
    assert_eq!(o, score(Scoring::Kingdoms, &c.into()));
}

#[test]
fn both_players_passing_ends_the_game() {
    let mut p = all_locked();
    play(&mut p, "pass");
    play(&mut p, "pass");
    assert_eq!(p.kings(Player::Blue), 0);
    assert_eq!(p.outcome().unwrap().reason, EndReason::Score);
    // The game is over: nobody has one more turn (B.5).
    let said = crate::game::describe::tara_last_move(&p).unwrap();
    assert_eq!(said, "Blue passed and took their kings off the board.");
}

// ---------------------------------------------------------------- B.2 Battle moves

fn battle_mobile() -> TaraPosition {
    pos(Spec {
        variant: Variant::Hkot1,
        cells: &[('R', "D4 B6"), ('r', "F3 E5"), ('B', "G3 A3")],
        to_move: Player::Red,
        ply: 30,
        battle: [true, true],
        captured: [0, 0],
    })
}

#[test]
fn battle_builds_may_touch_own_ringforts_and_link_them() {
    let mut p = battle_mobile();
    assert!(legal(&p).contains(&"D4-E6".to_string()));
    play(&mut p, "D4-E6");
    assert!(p.bridges(Player::Red).contains(&(h("E5"), h("E6"))));
    assert_eq!(p.counts(Player::Red).kingdoms, 4);
}

#[test]
fn battle_moves_may_not_end_next_to_a_friendly_king() {
    assert_eq!(
        reason(&battle_mobile(), "D4-C6"),
        IllegalMove::NextToFriendlyKing {
            to: h("C6"),
            king: h("B6")
        }
    );
}

#[test]
fn no_backtrack_while_a_king_is_mobile() {
    let e = reason(&battle_mobile(), "D4-F3");
    assert!(matches!(e, IllegalMove::KingsStillMobile { .. }), "{e}");
}

/// Red's kings A2 and G6 are immobile: A2 can backtrack to C1 or capture the besieged C3.
fn battle_immobile(variant: Variant) -> TaraPosition {
    pos(Spec {
        variant,
        cells: &[
            ('R', "A2 G6"),
            ('r', "C1 B3 D3 C2 C4 E4 G4 F3 F5"),
            ('b', "C3 B4 E5 E7"),
            ('B', "F4"),
        ],
        to_move: Player::Red,
        ply: 30,
        battle: [true, true],
        captured: [0, 0],
    })
}

#[test]
fn immobile_kings_backtrack_and_capture_besieged_ringforts() {
    let mut p = battle_immobile(Variant::Hkot1);
    assert_eq!(legal(&p), ["A2-C1", "A2-C3"]);
    play(&mut p, "A2-C3");
    assert_eq!(p.last_move().fort_captured, Some(h("C3")));
    assert_eq!(p.owner(h("C3")), Some(Player::Red));
    assert_eq!(p.counts(Player::Red).territory, 12);
    assert_eq!(p.counts(Player::Blue).territory, 4);
}

#[test]
fn a_backtrack_onto_own_ringfort_builds_nothing() {
    let mut p = battle_immobile(Variant::Hkot1);
    play(&mut p, "A2-C1");
    assert_eq!(p.last_move().built, None);
    assert_eq!(p.kings(Player::Red), set("C1 G6"));
    assert_eq!(p.forts(Player::Red).count_ones(), 11);
}

#[test]
fn no_king_moves_onto_a_hill_with_a_king() {
    assert_eq!(
        reason(&battle_immobile(Variant::Hkot1), "G6-F4"),
        IllegalMove::KingOnTarget {
            hill: h("F4"),
            owner: Player::Blue
        }
    );
}

#[test]
fn only_besieged_enemy_ringforts_can_be_captured() {
    assert_eq!(
        reason(&battle_immobile(Variant::Hkot1), "A2-B4"),
        IllegalMove::EnemyNotBesieged { hill: h("B4") }
    );
}

#[test]
fn no_voluntary_pass_while_an_enemy_king_can_move() {
    let e = reason(&battle_immobile(Variant::Hkot1), "pass");
    assert!(
        matches!(e, IllegalMove::PassNotAllowed { why, .. } if why.contains("enemy king")),
        "{e}"
    );
}

#[test]
fn sacrifices_do_not_exist_in_level_1() {
    assert_eq!(
        reason(&battle_immobile(Variant::Hkot1), "A2-C1*"),
        IllegalMove::SacrificeNotInVariant
    );
}

// ---------------------------------------------------------------- B.4 capturing kings

#[test]
fn fig_11_building_on_a_besieged_hill_captures_the_enemy_king() {
    let mut p = pos(Spec {
        variant: Variant::Hkot1,
        cells: &[('B', "D7 F7"), ('b', "E6"), ('r', "F6"), ('R', "D5")],
        to_move: Player::Red,
        ply: 12,
        battle: [false, false],
        captured: [0, 0],
    });
    assert_eq!(p.phase(), Phase::Manoeuvres);
    play(&mut p, "D5-E7");
    assert_eq!(p.last_move().kings_captured, set("F7"));
    assert_eq!(p.kings(Player::Blue), set("D7"));
    assert_eq!(p.kings_captured(Player::Red), 1);
    assert!(p.outcome().is_none());
}

#[test]
fn fig_11_with_c7_and_d6_red_is_a_double_capture_in_one_move() {
    let mut p = pos(Spec {
        variant: Variant::Hkot1,
        cells: &[('B', "D7 F7"), ('b', "E6"), ('r', "F6 C7 D6"), ('R', "D5")],
        to_move: Player::Red,
        ply: 30,
        battle: [true, true],
        captured: [0, 0],
    });
    play(&mut p, "D5-E7");
    assert_eq!(p.last_move().kings_captured, set("D7 F7"));
    let o = p.outcome().unwrap();
    assert_eq!(o.reason, EndReason::DoubleCapture);
    assert_eq!(o.winner, Some(Side::Red));
    assert_eq!(o.points.into_array(), [Points::whole(2), Points(0)]);
}

#[test]
fn a_triple_capture_scores_three_and_the_loser_keeps_a_point_for_a_king() {
    let mut p = pos(Spec {
        variant: Variant::Hkot1,
        cells: &[('B', "D7 F7"), ('b', "E6"), ('r', "F6 C7 D6"), ('R', "D5")],
        to_move: Player::Red,
        ply: 30,
        battle: [true, true],
        captured: [1, 1],
    });
    play(&mut p, "D5-E7");
    let o = p.outcome().unwrap();
    assert_eq!(o.points.into_array(), [Points::whole(3), Points::whole(1)]);
}

/// Blue's kings C1 and D3 are immobile; Red's king D2 can reach B1, already besieged by Blue.
fn safe_on_besieged_hill() -> TaraPosition {
    pos(Spec {
        variant: Variant::Hkot1,
        cells: &[
            ('B', "C1 D3"),
            ('b', "B2"),
            ('R', "D2"),
            ('r', "A2 B3 E2 B4 C5 E1 E5 F2 F4"),
        ],
        to_move: Player::Red,
        ply: 30,
        battle: [true, true],
        captured: [0, 0],
    })
}

#[test]
fn a_king_moving_onto_a_besieged_hill_next_to_an_enemy_king_is_safe() {
    let mut p = safe_on_besieged_hill();
    play(&mut p, "D2-B1");
    assert_eq!(p.kings(Player::Red), set("B1"));
    assert_eq!(p.kings_captured(Player::Blue), 0);
    assert_eq!(p.besieged_forts(Player::Red), set("B1"));
}

#[test]
fn another_enemy_king_backtracking_next_to_it_captures_it() {
    let mut p = safe_on_besieged_hill();
    play(&mut p, "D2-B1");
    assert!(legal(&p).contains(&"D3-B2".to_string()), "{:?}", legal(&p));
    play(&mut p, "D3-B2");
    assert_eq!(p.last_move().kings_captured, set("B1"));
    assert_eq!(p.kings_captured(Player::Blue), 1);
    assert_eq!(p.kings(Player::Red), 0);
}

// ---------------------------------------------------------------- B.5 endings

/// A full board: columns A–C Red, D–G Blue; Red's king on A2, Blue's on G6.
fn full_board(vacant: &str) -> TaraPosition {
    let mut red = String::new();
    let mut blue = String::new();
    for hill in Hill::all() {
        let s = hill.to_string();
        if vacant.split_whitespace().any(|v| v == s) || s == "A2" || s == "G6" {
            continue;
        }
        if hill.col() < 3 {
            red.push_str(&s);
            red.push(' ');
        } else {
            blue.push_str(&s);
            blue.push(' ');
        }
    }
    pos(Spec {
        variant: Variant::Hkot1,
        cells: &[('r', &red), ('b', &blue), ('R', "A2"), ('B', "G6")],
        to_move: Player::Red,
        ply: 40,
        battle: [true, true],
        captured: [0, 0],
    })
}

#[test]
fn the_third_repetition_ends_the_game_by_score() {
    let mut p = full_board("");
    let shuffle = ["A2-C1", "G6-F4", "C1-A2", "F4-G6"];
    for (i, m) in shuffle.iter().chain(&shuffle).enumerate() {
        assert!(p.outcome().is_none(), "ended early at move {i}");
        play(&mut p, m);
    }
    let o = p.outcome().expect("third occurrence of the start position");
    assert_eq!(o.reason, EndReason::Score);
    assert_eq!(p.ply(), 48);
    assert!(p.last_move().third_repetition);
    let said = crate::game::describe::tara_last_move(&p).unwrap();
    assert!(said.contains("three times"), "{said}");
}

#[test]
fn building_on_the_last_vacant_hill_gives_one_more_turn() {
    let mut p = full_board("B4");
    play(&mut p, "A2-B4");
    assert!(p.last_move().last_hill);
    assert!(p.is_last_turn());
    assert_eq!(p.vacant(), 0);
    assert!(p.outcome().is_none());
    play(&mut p, "G6-F4");
    assert_eq!(p.outcome().unwrap().reason, EndReason::Score);
}

#[test]
fn the_last_turn_may_be_a_pass() {
    let mut p = full_board("B4");
    play(&mut p, "A2-B4");
    assert!(legal(&p).contains(&"pass".to_string()));
    play(&mut p, "pass");
    assert!(p.outcome().is_some());
}

// ---------------------------------------------------------------- B.6 hkot-2 sacrifices

/// Blue (one king lost) has immobile kings A3 and G6; B1 is Blue's, besieged by Red; Red's
/// king on C1 stands on a ringfort besieged by Blue once B1 counts.
fn sacrifice_setup(variant: Variant, captured: [u8; 2]) -> TaraPosition {
    pos(Spec {
        variant,
        cells: &[
            ('b', "B1 D1 C2"),
            ('R', "C1"),
            ('r', "B2 C4 B5 F4 E5 E7"),
            ('B', "A3 G6"),
        ],
        to_move: Player::Blue,
        ply: 40,
        battle: [true, true],
        captured,
    })
}

#[test]
fn sacrifice_is_offered_for_a_besieged_own_ringfort_after_losing_one_king() {
    let p = sacrifice_setup(Variant::Hkot2, [1, 0]);
    assert_eq!(legal(&p), ["A3-B1", "A3-B1*", "A3-C2"]);
}

#[test]
fn sacrifice_checks_captures_before_the_ringfort_changes_colour() {
    let mut p = sacrifice_setup(Variant::Hkot2, [1, 0]);
    play(&mut p, "A3-B1*");
    assert_eq!(
        p.last_move().kings_captured,
        set("C1"),
        "C1 fell while B1 was Blue"
    );
    assert_eq!(p.last_move().sacrificed, Some(h("B1")));
    assert_eq!(p.owner(h("B1")), Some(Player::Red));
    assert_eq!(p.stranded_kings(Player::Blue), set("B1"));
    assert_eq!(p.kings_captured(Player::Blue), 1);
}

#[test]
fn a_king_on_enemy_territory_must_move_and_no_other() {
    let mut p = sacrifice_setup(Variant::Hkot2, [1, 0]);
    play(&mut p, "A3-B1*");
    // Red has no king left and Blue's B1 can move: Red's turn is a forced pass.
    assert_eq!(legal(&p), ["pass"]);
    play(&mut p, "pass");
    let e = reason(&p, "G6-E5");
    assert!(
        matches!(e, IllegalMove::StrandedKingMustMove { king, .. } if king == h("B1")),
        "{e}"
    );
    assert!(matches!(
        reason(&p, "pass"),
        IllegalMove::PassNotAllowed { .. }
    ));
    // It can reach vacant C3 and D2, so it may not backtrack to A3.
    assert_eq!(legal(&p), ["B1-C3", "B1-D2"]);
    let e = reason(&p, "B1-A3");
    assert!(
        matches!(e, IllegalMove::StrandedKingMustBuild { .. }),
        "{e}"
    );
}

#[test]
fn sacrifice_needs_exactly_one_lost_king() {
    let p = sacrifice_setup(Variant::Hkot2, [0, 0]);
    assert_eq!(reason(&p, "A3-B1*"), IllegalMove::SacrificeNeedsOneLostKing);
}

#[test]
fn sacrifice_needs_a_besieged_ringfort() {
    let p = sacrifice_setup(Variant::Hkot2, [1, 0]);
    assert_eq!(
        reason(&p, "A3-C2*"),
        IllegalMove::SacrificeNotBesieged { hill: h("C2") }
    );
}

#[test]
fn sacrifice_needs_an_own_ringfort() {
    let p = sacrifice_setup(Variant::Hkot2, [1, 0]);
    assert_eq!(
        reason(&p, "A3-C4*"),
        IllegalMove::SacrificeNeedsOwnRingfort { hill: h("C4") }
    );
}

/// docs/rules.md §5 (the rulebook's fig. 1b): Blue's king on B3 stands on enemy territory.
fn fig_1b(c1_besieged: bool) -> TaraPosition {
    let red = if c1_besieged {
        "A5 D2 D1 C2 B1"
    } else {
        "A5 D2 D1 C2"
    };
    pos(Spec {
        variant: Variant::Hkot2,
        cells: &[
            ('T', "B3"),
            ('b', "C5 D4 C1"),
            ('r', red),
            ('R', "E6 F3 G5"),
            ('B', "G2"),
        ],
        to_move: Player::Blue,
        ply: 40,
        battle: [true, true],
        captured: [1, 0],
    })
}

#[test]
fn fig_1b_stranded_king_has_exactly_c5_d4_c1() {
    let p = fig_1b(false);
    assert_eq!(p.stranded_kings(Player::Blue), set("B3"));
    assert_eq!(legal(&p), ["B3-C1", "B3-C5", "B3-D4"]);
}

#[test]
fn fig_1b_with_c1_besieged_c1_may_be_sacrificed_too() {
    let p = fig_1b(true);
    assert_eq!(legal(&p), ["B3-C1", "B3-C1*", "B3-C5", "B3-D4"]);
}

#[test]
fn a_stranded_king_with_no_move_is_captured_by_default_at_once() {
    // Blue's king on B1 stands on Red's ringfort; its only way out is A3, which Red fills.
    let mut p = pos(Spec {
        variant: Variant::Hkot2,
        cells: &[('T', "B1"), ('r', "C3 D2"), ('R', "C4"), ('B', "G6")],
        to_move: Player::Red,
        ply: 40,
        battle: [true, true],
        captured: [1, 0],
    });
    play(&mut p, "C4-A3");
    assert_eq!(p.last_move().stranded_king_lost, Some(h("B1")));
    let o = p.outcome().expect("captured by default ends the game");
    assert_eq!(o.reason, EndReason::DoubleCapture);
    assert_eq!(o.winner, Some(Side::Red));
    assert_eq!(p.kings_captured(Player::Red), 2);
    assert_eq!(o.points.into_array(), [Points::whole(2), Points(0)]);
}

#[test]
fn a_king_left_on_enemy_territory_at_the_end_is_captured_by_default() {
    // Red builds the last hill; Blue's last turn sacrifices B1, so its king ends on Red's land.
    let mut red = String::new();
    for hill in Hill::all() {
        let s = hill.to_string();
        if !["A3", "B1", "G6", "D4", "F5"].contains(&s.as_str()) {
            red.push_str(&s);
            red.push(' ');
        }
    }
    let mut p = pos(Spec {
        variant: Variant::Hkot2,
        cells: &[('r', &red), ('R', "D4"), ('B', "A3 G6"), ('b', "B1")],
        to_move: Player::Red,
        ply: 40,
        battle: [true, true],
        captured: [1, 0],
    });
    play(&mut p, "D4-F5");
    assert!(p.is_last_turn());
    assert!(legal(&p).contains(&"A3-B1*".to_string()), "{:?}", legal(&p));
    play(&mut p, "A3-B1*");
    let o = p.outcome().unwrap();
    assert_eq!(o.reason, EndReason::DoubleCapture);
    assert_eq!(o.winner, Some(Side::Red));
    assert_eq!(o.points.into_array(), [Points::whole(2), Points(0)]);
    assert_eq!(p.last_move().stranded_at_end, Some((h("B1"), Player::Blue)));
    let said = crate::game::describe::tara_last_move(&p).unwrap();
    assert!(said.contains("captured by default"), "{said}");
}

// ---------------------------------------------------------------- docs/rules.md §6–7: Sacred Hill

#[test]
fn sacred_hill_first_ringfort_anywhere_then_a_knights_move_away() {
    let mut p = start(Variant::SacredHill1);
    assert_eq!(legal(&p).len(), 45);
    play(&mut p, "D4");
    play(&mut p, "C2");
    assert_eq!(legal(&p), ["B3", "B5", "C6", "E2", "E6", "F3", "F5"]);
    assert_eq!(p.phase(), Phase::Manoeuvres);
}

#[test]
fn sacred_hill_too_close_to_own_ringfort() {
    let mut p = start(Variant::SacredHill1);
    play(&mut p, "D4");
    play(&mut p, "C2");
    for (m, near) in [("D6", "D4"), ("E5", "D4"), ("D5", "D4"), ("F4", "D4")] {
        assert_eq!(
            reason(&p, m),
            IllegalMove::TooClose {
                hill: h(m),
                fort: h(near)
            },
            "{m}"
        );
    }
}

#[test]
fn sacred_hill_not_a_knights_move_from_own_ringforts() {
    let mut p = start(Variant::SacredHill1);
    play(&mut p, "D4");
    play(&mut p, "C2");
    let e = reason(&p, "A4");
    assert!(
        matches!(e, IllegalMove::NotKnightFromOwn { hill, .. } if hill == h("A4")),
        "{e}"
    );
}

#[test]
fn sacred_hill_own_and_unbesieged_enemy_ringforts_are_not_targets() {
    let mut p = start(Variant::SacredHill1);
    play(&mut p, "D4");
    play(&mut p, "C2");
    assert_eq!(reason(&p, "D4"), IllegalMove::OwnRingfort { hill: h("D4") });
    assert_eq!(
        reason(&p, "C2"),
        IllegalMove::NotBesieged {
            hill: h("C2"),
            owner: Player::Blue
        }
    );
}

#[test]
fn sacred_hill_has_no_kings_and_no_passing() {
    let mut p = start(Variant::SacredHill1);
    play(&mut p, "D4");
    assert!(matches!(
        reason(&p, "D4-E6"),
        IllegalMove::NoKingsInSacredHill { .. }
    ));
    assert!(matches!(
        reason(&p, "pass"),
        IllegalMove::PassNotAllowed { .. }
    ));
}

fn besieged_b1(variant: Variant, red_battle: bool) -> TaraPosition {
    pos(Spec {
        variant,
        cells: &[('r', "C1 B2 E4"), ('b', "B1 F6")],
        to_move: Player::Red,
        ply: 8,
        battle: [red_battle, false],
        captured: [0, 0],
    })
}

#[test]
fn sacred_hill_level_1_besieged_ringforts_must_be_captured() {
    for battle in [false, true] {
        let mut p = besieged_b1(Variant::SacredHill1, battle);
        assert_eq!(legal(&p), ["B1"], "battle {battle}");
        let e = reason(&p, "E6");
        assert!(matches!(e, IllegalMove::MustCapture { .. }), "{e}");
        play(&mut p, "B1");
        assert_eq!(p.last_move().fort_captured, Some(h("B1")));
        assert_eq!(p.counts(Player::Red).kingdoms, 2);
    }
}

#[test]
fn sacred_hill_level_2_manoeuvres_still_captures_as_level_1() {
    let p = besieged_b1(Variant::SacredHill2, false);
    assert_eq!(p.phase(), Phase::Manoeuvres);
    assert_eq!(legal(&p), ["B1"]);
}

#[test]
fn sacred_hill_battle_starts_for_one_player_only() {
    // Red's only ringfort A2 has its knight's moves B4, C3, C1 taken.
    let mut p = pos(Spec {
        variant: Variant::SacredHill1,
        cells: &[('r', "A2"), ('b', "B4 C3 C1")],
        to_move: Player::Red,
        ply: 4,
        battle: [false, false],
        captured: [0, 0],
    });
    assert_eq!(p.phase(), Phase::Battle);
    assert_eq!(p.phase_of(Player::Blue), Phase::Manoeuvres);
    assert_eq!(legal(&p), ["A3", "B2"]);
    play(&mut p, "B2");
    // Blue (now to move) still has spacing builds; had its Battle begun, the sentence says whose.
    let said = crate::game::describe::tara_last_move(&p).unwrap();
    assert!(!said.contains("BATTLE"), "{said}");
    assert_eq!(p.phase(), Phase::Manoeuvres);
    assert!(p.in_battle(Player::Red));
}

#[test]
fn sacred_hill_level_1_battle_builds_next_to_own_ringforts() {
    let p = pos(Spec {
        variant: Variant::SacredHill1,
        cells: &[('r', "D4"), ('b', "D5")],
        to_move: Player::Red,
        ply: 20,
        battle: [true, true],
        captured: [0, 0],
    });
    assert_eq!(legal(&p), ["C4", "D3", "E4"]);
    let e = reason(&p, "G6");
    assert!(matches!(e, IllegalMove::MustBuildAdjacent { .. }), "{e}");
}

#[test]
fn sacred_hill_level_1_battle_builds_anywhere_when_nothing_touches() {
    let p = pos(Spec {
        variant: Variant::SacredHill1,
        cells: &[('r', "B1"), ('b', "A2 C1 B2 B3 D1 C2 A3")],
        to_move: Player::Red,
        ply: 20,
        battle: [true, true],
        captured: [0, 0],
    });
    assert_eq!(legal(&p).len(), 45 - 8);
}

#[test]
fn sacred_hill_level_2_fig_4_a_besieged_ringfort_waits_among_equal_priorities() {
    let p = pos(Spec {
        variant: Variant::SacredHill2,
        cells: &[('b', "C1 B2 D3 E4"), ('r', "B1 G6")],
        to_move: Player::Blue,
        ply: 20,
        battle: [false, true],
        captured: [0, 0],
    });
    assert_eq!(legal(&p), ["B1", "C2", "D4", "E3"]);
    assert_eq!(
        reason(&p, "D2"),
        IllegalMove::LowerPriority {
            hill: h("D2"),
            op: 1,
            best: 2,
            options: "B1, C2, D4 or E3".into()
        }
    );
}

#[test]
fn sacred_hill_level_2_fig_5_a_priority_4_ringfort_must_be_captured() {
    let p = pos(Spec {
        variant: Variant::SacredHill2,
        cells: &[('b', "E5 G5 F4 F6 B2"), ('r', "F5 A4")],
        to_move: Player::Blue,
        ply: 20,
        battle: [false, true],
        captured: [0, 0],
    });
    assert_eq!(legal(&p), ["F5"]);
    assert!(matches!(
        reason(&p, "D4"),
        IllegalMove::LowerPriority { best: 4, .. }
    ));
}

#[test]
fn sacred_hill_level_2_unbesieged_enemy_ringfort_is_not_a_candidate() {
    let p = pos(Spec {
        variant: Variant::SacredHill2,
        cells: &[('b', "E5"), ('r', "F5")],
        to_move: Player::Blue,
        ply: 20,
        battle: [false, true],
        captured: [0, 0],
    });
    assert_eq!(
        reason(&p, "F5"),
        IllegalMove::NotBesieged {
            hill: h("F5"),
            owner: Player::Red
        }
    );
}

/// A full Sacred Hill board where Red's B1 is besieged by Blue (C1, B2) and nothing else is.
fn sacred_full() -> TaraPosition {
    let mut red = String::from("B1 ");
    let mut blue = String::new();
    for hill in Hill::all() {
        let s = hill.to_string();
        if s == "B1" {
            continue;
        }
        if hill.col() < 3 {
            blue.push_str(&s);
            blue.push(' ');
        } else {
            red.push_str(&s);
            red.push(' ');
        }
    }
    pos(Spec {
        variant: Variant::SacredHill1,
        cells: &[('r', &red), ('b', &blue)],
        to_move: Player::Red,
        ply: 50,
        battle: [true, true],
        captured: [0, 0],
    })
}

#[test]
fn sacred_hill_forced_pass_then_capture_then_the_end() {
    let mut p = sacred_full();
    assert!(p.outcome().is_none(), "B1 is still besieged");
    assert_eq!(legal(&p), ["pass"]);
    assert_eq!(reason(&p, "D4"), IllegalMove::MustPass);
    play(&mut p, "pass");
    assert_eq!(legal(&p), ["B1"]);
    play(&mut p, "B1");
    let o = p.outcome().expect("full board, nothing besieged");
    assert_eq!(o.reason, EndReason::Score);
    // Blue: one kingdom of 19 (columns A–C); Red: one kingdom of 26 (D–G). Territory wins.
    assert_eq!(p.counts(Player::Blue).territory, 19);
    assert_eq!(p.counts(Player::Red).kingdoms, 1);
    assert_eq!(p.counts(Player::Blue).kingdoms, 1);
    assert_eq!(o.winner, Some(Side::Red));
    assert_eq!(o.points.into_array(), [Points::whole(9), Points(0)]);
    assert_eq!(p.check(Move::Pass), Err(IllegalMove::GameOver));
}

#[test]
fn setup_rejects_bad_diagrams() {
    let bad = TaraPosition::setup(&Setup {
        options: GameOptions::new(Variant::SacredHill1),
        diagram: "R......\n.......\n.......\n.......\n.......\n.......\n.......",
        to_move: Player::Red,
        ply: 0,
        battle: BySide::both(false),
        captured: BySide::both(0),
    });
    assert!(bad.is_err());
    let short = TaraPosition::setup(&Setup {
        options: GameOptions::new(Variant::Hkot1),
        diagram: "...",
        to_move: Player::Red,
        ply: 0,
        battle: BySide::both(false),
        captured: BySide::both(0),
    });
    assert!(short.is_err());
}

#[test]
fn position_wrapper_reports_phase_and_side() {
    let mut p = Position::new(GameOptions::new(Variant::Hkot1));
    assert_eq!(p.to_move(), Some(Side::Red));
    assert_eq!(p.phase(), Some(Phase::Placement));
    p.play_text("d4").unwrap();
    assert_eq!(p.to_move(), Some(Side::Blue));
    let e = p.play_text("Z9").unwrap_err();
    assert!(e.to_string().contains("not a hill"), "{e}");
}

/// The playouts' decisive move in High Kings is exactly the first legal move whose own captures
/// make the mover's second captured king, in every position of random games of both levels.
#[test]
fn the_decisive_move_is_the_first_that_completes_a_double_capture() {
    use crate::game::playout::Rng;
    use crate::game::position::GamePosition;
    let mut rng = Rng::new(48);
    let (mut found, mut positions) = (0, 0);
    for variant in [Variant::Hkot1, Variant::Hkot2] {
        for _ in 0..400 {
            let mut p = start(variant);
            let mut list = MoveList::new();
            while p.outcome.is_none() {
                list.clear();
                p.legal_moves_into(&mut list);
                let mover = p.to_move;
                let by_play = list.iter().copied().find(|&m| {
                    let mut after = p.clone();
                    after.play_unchecked(m);
                    u32::from(p.captured[mover]) + after.last.kings_captured.count_ones() >= 2
                });
                assert_eq!(p.decisive_move(&list), by_play, "{variant:?} ply {}", p.ply);
                found += usize::from(by_play.is_some());
                positions += 1;
                p.play_unchecked(list[rng.below(list.len())]);
            }
        }
    }
    assert!(
        found >= 50,
        "double captures on offer in {found} of {positions} positions"
    );
}

#[test]
fn the_transposition_key_is_the_position_not_the_order_of_its_moves() {
    let line = |variant: Variant, moves: &str| {
        let mut p = start(variant);
        for m in moves.split_whitespace() {
            play(&mut p, m);
        }
        p.transposition_key()
    };
    let key = line(Variant::SacredHill1, "D4 C2 F5 E1");
    assert_eq!(key, line(Variant::SacredHill1, "F5 E1 D4 C2"));
    assert_eq!(key, line(Variant::SacredHill1, "D4 E1 F5 C2"));
    assert_ne!(key, line(Variant::SacredHill1, "D4 C2 F5 A3"));
    assert_ne!(key, line(Variant::SacredHill1, "D4 C2 F5"));

    // Over the positions of random games of a variant, one key is one state: nothing that
    // decides the moves or the end is left out of it.
    use crate::game::playout::Rng;
    use std::collections::HashMap;
    let mut rng = Rng::new(7);
    let mut positions = 0;
    for variant in [
        Variant::Hkot1,
        Variant::Hkot2,
        Variant::SacredHill1,
        Variant::SacredHill2,
    ] {
        let mut seen = HashMap::new();
        for _ in 0..100 {
            let mut p = start(variant);
            let mut list = MoveList::new();
            loop {
                let state = (
                    p.forts,
                    p.kings,
                    p.captured,
                    p.to_move,
                    p.battle,
                    p.passed,
                    p.last_turn,
                    p.outcome.is_some(),
                    p.ply.min(6),
                );
                let old = seen.insert(p.transposition_key(), state);
                assert!(old.is_none_or(|o| o == state), "{variant:?} ply {}", p.ply);
                if p.outcome.is_some() {
                    break;
                }
                list.clear();
                p.legal_moves_into(&mut list);
                p.play_unchecked(list[rng.below(list.len())]);
            }
        }
        positions += seen.len();
    }
    assert!(positions > 10_000, "{positions} positions");
}
