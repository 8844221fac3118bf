//! Players named in other scripts, through the bot core: the board the bot posts after a move
//! draws their names in their own letters (shaped, right to left where they run so), the same
//! picture the renderer draws for those names, and not as code points.

mod common;

use common::{active, stored, Harness};
use tara_bot::bot::Command;
use tara_bot::game::{Move, Position};
use tara_bot::render::{board_png, Frame};

#[test]
fn the_board_after_a_move_draws_names_in_their_own_scripts() {
    let h = Harness::new(true);
    let (first, second) = ("محمد الأول 🐉", "张伟 अर्जुन");
    h.send(
        first,
        "c1",
        common::challenge_cmd(second, "hkot-1", None, Some("me"), false, None),
    );
    h.send(second, "c1", Command::Accept { challenge: None });
    let replies = h.mv(first, "c1", "D4");
    let posted = replies
        .iter()
        .find_map(|r| r.image.as_ref())
        .expect("the board is posted");
    let g = active(&h.db(), "c1").unwrap();
    let (_, moves, pos) = stored(&h.db(), g.id);
    let mut replayed = Position::new(pos.options());
    let last: Option<Move> = moves.iter().map(|m| replayed.play_text(m).unwrap()).last();
    let names = [first.to_string(), second.to_string()];
    assert_eq!(posted.bytes, board_png(&pos, &Frame::new(names, last)));
    // Not the picture of names written as code points.
    let hex = ["‹645›".to_string(), "‹5F20›".to_string()];
    assert_ne!(posted.bytes, board_png(&pos, &Frame::new(hex, last)));
}
