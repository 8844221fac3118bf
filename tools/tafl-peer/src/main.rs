//! Random Ard Rí games with hnefatafl-rs, the peer of `tara-bot bench engine` (see README.md).

use hnefatafl::aliases::{SmallBasicGameLogic, SmallBasicGameState};
use hnefatafl::board::geometry::SpecialTilePlacementRules;
use hnefatafl::collections::piecedict::PieceDict;
use hnefatafl::collections::piecemap::PieceMap;
use hnefatafl::game::logic::GameLogic;
use hnefatafl::game::state::GameState;
use hnefatafl::game::GameStatus;
use hnefatafl::preset::rules;
use hnefatafl::rules::{KingStrength, Ruleset};
use std::time::{Duration, Instant};

/// Ard Rí's start position, row 7 first: attackers `t`, defenders `T`, the king `K`.
const ARD_RI: &str = "2ttt2/3t3/t1TTT1t/ttTKTtt/t1TTT1t/3t3/2ttt2";

fn main() {
    let seconds: f64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("seconds"))
        .unwrap_or(2.0);
    let mut ruleset: Ruleset = rules::BRANDUBH;
    ruleset.speed = PieceDict::new(Some(1));
    ruleset.king_strength = KingStrength::Strong;
    ruleset.draw_after_captureless_plays = Some(100);
    let start: SmallBasicGameState =
        GameState::new(ARD_RI, ruleset.starting_side).expect("the start position");
    let logic: SmallBasicGameLogic =
        GameLogic::new(ruleset, 7, SpecialTilePlacementRules::throne_and_corners())
            .expect("the rules");

    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut below = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let budget = Duration::from_secs_f64(seconds);
    let t0 = Instant::now();
    let (mut games, mut plies) = (0u64, 0u64);
    let (mut timed_ns, mut timed) = (0u128, 0u64);
    let mut plays = Vec::new();
    let mut history = Vec::new();
    while t0.elapsed() < budget {
        let mut state = start;
        history.clear();
        loop {
            let time_it = (plies + games) % 64 == 0;
            let t = Instant::now();
            plays.clear();
            for tile in state.board.pieces.occupied_by_side(state.side_to_play) {
                plays.extend(logic.iter_plays(tile, &state).expect("a piece"));
            }
            if time_it {
                timed_ns += t.elapsed().as_nanos();
                timed += 1;
            }
            if plays.is_empty() {
                break;
            }
            let play = plays[below(plays.len())];
            let result = logic.do_valid_play(play, state, Some(&history));
            state = result.new_state;
            plies += 1;
            if result.record.effects.captures.is_empty() {
                history.push((&state).into());
            } else {
                history.clear();
            }
            if state.status != GameStatus::Ongoing {
                break;
            }
        }
        games += 1;
    }
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "{{\"bench\":\"engine\",\"peer\":\"hnefatafl-rs\",\"variant\":\"ard-ri\",\"games_per_s\":{:.0},\"plies_per_s\":{:.0},\"plies_per_game\":{:.1},\"movegen_ns\":{:.1}}}",
        games as f64 / secs,
        plies as f64 / secs,
        plies as f64 / games as f64,
        timed_ns as f64 / timed.max(1) as f64
    );
}
