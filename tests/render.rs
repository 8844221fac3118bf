//! Board images: structural checks (size, PNG decodes, replay frame counts, sizes) and golden
//! images compared pixel for pixel.
//!
//! On a golden mismatch the actual image is written next to the expected one as
//! `<name>.actual.png`. `UPDATE_GOLDEN=1 cargo test --release --test integration render::` rewrites them.

use std::path::PathBuf;
use tara_bot::cli::engine::split_moves;
use tara_bot::game::notation::{parse_hill, parse_square};
use tara_bot::game::playout::{random_game, Rng};
use tara_bot::game::{GameOptions, Move, Position, Scoring, Variant};
use tara_bot::render::{
    board_png, board_png_scaled, replay_gif, Cell, Frame, HEIGHT, PART_DELAY, WIDTH,
};

/// Decodes a PNG to RGB8 pixels.
fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut dec = png::Decoder::new(std::io::Cursor::new(png_bytes));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec.read_info().expect("PNG header");
    let mut buf = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut buf).expect("PNG data");
    buf.truncate(info.buffer_size());
    let rgb = match info.color_type {
        png::ColorType::Rgb => buf,
        png::ColorType::Rgba => buf
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect(),
        other => panic!("unexpected colour type {other:?}"),
    };
    (info.width, info.height, rgb)
}

struct Case {
    name: String,
    options: GameOptions,
    names: [String; 2],
    moves: Vec<Move>,
    ply: usize,
    /// Analysis marks and arrows (columns 7 and 8, optional).
    marks: Vec<Cell>,
    arrows: Vec<(Cell, Cell)>,
}

/// A hill or square as a cell of the grid.
fn cell(variant: Variant, text: &str) -> Cell {
    let (col, row) = if variant.is_tara() {
        let h = parse_hill(text).unwrap();
        (h.col(), h.row())
    } else {
        let s = parse_square(text).unwrap();
        (s.col(), s.row())
    };
    Cell { col, row }
}

fn cases() -> Vec<Case> {
    include_str!("golden/cases.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            let variant: Variant = f[1].parse().unwrap();
            let scoring = (f[2] != "-").then(|| f[2].parse::<Scoring>().unwrap());
            let options = GameOptions::with(variant, scoring, None).unwrap();
            let mut pos = Position::new(options);
            let moves: Vec<Move> = split_moves(f[5])
                .map(|t| {
                    pos.play_text(t)
                        .unwrap_or_else(|e| panic!("{}: {t}: {e}", f[0]))
                })
                .collect();
            let mut names = f[3].split(',').map(str::to_string);
            let marks = f
                .get(6)
                .map(|m| m.split_whitespace().map(|t| cell(variant, t)).collect())
                .unwrap_or_default();
            let arrows = f
                .get(7)
                .map(|a| {
                    a.split_whitespace()
                        .map(|t| {
                            let (x, y) = t.split_once('-').unwrap();
                            (cell(variant, x), cell(variant, y))
                        })
                        .collect()
                })
                .unwrap_or_default();
            Case {
                marks,
                arrows,
                name: f[0].to_string(),
                options,
                names: [names.next().unwrap(), names.next().unwrap()],
                ply: if f[4] == "end" {
                    moves.len()
                } else {
                    f[4].parse().unwrap()
                },
                moves,
            }
        })
        .collect()
}

fn render_case(c: &Case) -> Vec<u8> {
    let mut pos = Position::new(c.options);
    for m in &c.moves[..c.ply] {
        pos.play(*m).unwrap();
    }
    let last = c.ply.checked_sub(1).map(|i| c.moves[i]);
    let mut frame =
        Frame::new(c.names.clone(), last).with_annotations(c.marks.clone(), c.arrows.clone());
    // A case named "…-replay" is a frame of a replay.
    if c.name.ends_with("-replay") {
        frame = frame.in_replay();
    }
    board_png(&pos, &frame)
}

#[test]
fn golden_images_match() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    let all = cases();
    assert!(all.len() >= 12);
    for c in &all {
        let actual = render_case(c);
        let path = dir.join(format!("{}.png", c.name));
        if update {
            std::fs::write(&path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read(&path)
            .unwrap_or_else(|_| panic!("missing {}; run with UPDATE_GOLDEN=1", path.display()));
        let (w1, h1, a) = decode(&actual);
        let (w2, h2, e) = decode(&expected);
        // Exact: every pixel the same colour.
        let bad = if (w1, h1) == (w2, h2) {
            a.chunks_exact(3)
                .zip(e.chunks_exact(3))
                .filter(|(pa, pe)| pa != pe)
                .count()
        } else {
            usize::MAX
        };
        if bad > 0 {
            let out = dir.join(format!("{}.actual.png", c.name));
            std::fs::write(&out, &actual).unwrap();
            failures.push(format!(
                "{}: {bad} pixels differ; see {}",
                c.name,
                out.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn board_images_have_the_default_size_and_decode() {
    for c in cases() {
        let png_bytes = render_case(&c);
        let (w, h, rgb) = decode(&png_bytes);
        assert_eq!((w, h), (WIDTH, HEIGHT), "{}", c.name);
        assert_eq!(rgb.len(), (w * h * 3) as usize);
        assert!(
            png_bytes.len() < 150 * 1024,
            "{}: {} bytes",
            c.name,
            png_bytes.len()
        );
    }
}

#[test]
fn a_result_decided_outside_the_rules_is_shown_on_the_board() {
    use tara_bot::game::{forfeit, EndReason, Side};
    let mut pos = Position::new(GameOptions::new(Variant::ArdRi));
    pos.play_text("d2-c2").unwrap();
    let names = ["A".to_string(), "B".to_string()];
    let running = board_png(&pos, &Frame::new(names.clone(), None));
    let o = forfeit(&pos, Side::Defenders, EndReason::Resigned);
    let over = board_png(&pos, &Frame::new(names, None).with_result(o));
    assert_ne!(decode(&running).2, decode(&over).2);
}

#[test]
fn images_of_different_positions_differ() {
    let all = cases();
    let a = render_case(&all[0]);
    let b = render_case(&all[1]);
    assert_ne!(decode(&a).2, decode(&b).2);
}

/// Counts the positions a GIF shows (a position is one image, or two of which the first is
/// shown for `PART_DELAY` only), and checks each image lies inside the canvas and each
/// position is shown long enough to read.
fn gif_frames(bytes: &[u8]) -> (u16, u16, usize) {
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::Indexed);
    let mut dec = opts.read_info(bytes).expect("GIF header");
    let (w, h) = (dec.width(), dec.height());
    let mut n = 0;
    while let Some(f) = dec.read_next_frame().expect("GIF frame") {
        assert!(f.left + f.width <= w && f.top + f.height <= h);
        if f.delay > PART_DELAY {
            assert!(f.delay >= 50, "a position shown for {} cs", f.delay);
            n += 1;
        } else {
            assert_eq!(f.delay, PART_DELAY);
        }
    }
    (w, h, n)
}

/// The images of a GIF composed onto its canvas: one image of palette indices per position.
fn gif_positions(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::Indexed);
    let mut dec = opts.read_info(bytes).expect("GIF header");
    let w = usize::from(dec.width());
    let mut canvas = vec![0u8; w * usize::from(dec.height())];
    let mut out = Vec::new();
    while let Some(f) = dec.read_next_frame().expect("GIF frame") {
        let (l, t, fw) = (
            usize::from(f.left),
            usize::from(f.top),
            usize::from(f.width),
        );
        for (r, line) in f.buffer.chunks_exact(fw).enumerate() {
            for (c, &v) in line.iter().enumerate() {
                if Some(v) != f.transparent {
                    canvas[(t + r) * w + l + c] = v;
                }
            }
        }
        if f.delay > PART_DELAY {
            out.push(canvas.clone());
        }
    }
    out
}

/// Checks that each position a replay of `moves` shows is the board image of that position.
fn replay_shows_each_board(options: GameOptions, moves: &[Move]) {
    replay_with_names_shows_each_board(options, moves, ["Aoife", "Brian"]);
}

/// As [`replay_shows_each_board`], with the players' names.
fn replay_with_names_shows_each_board(options: GameOptions, moves: &[Move], names: [&str; 2]) {
    let names = names.map(str::to_string);
    let shown = gif_positions(&replay_gif(options, moves, &names));
    assert_eq!(shown.len(), moves.len() + 1);
    let mut pos = Position::new(options);
    for (ply, image) in shown.iter().enumerate() {
        let last = ply.checked_sub(1).map(|k| moves[k]);
        if let Some(m) = last {
            pos.play(m).unwrap();
        }
        let png_bytes = board_png(&pos, &Frame::new(names.clone(), last).in_replay());
        let mut dec = png::Decoder::new(std::io::Cursor::new(png_bytes));
        dec.set_transformations(png::Transformations::IDENTITY);
        let mut reader = dec.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        reader.next_frame(&mut buf).unwrap();
        assert!(buf == *image, "{}, ply {ply}", options.variant);
    }
}

#[test]
fn every_position_of_a_replay_is_the_board_image_of_that_position() {
    for (i, variant) in Variant::ALL.into_iter().enumerate() {
        let options = GameOptions::new(variant);
        let (_, moves) = random_game(options, &mut Rng::new(70 + i as u64));
        replay_shows_each_board(options, &moves[..moves.len().min(30)]);
    }
    // A game whose last status detail is too long for one line (drawn on two).
    let options = GameOptions::new(Variant::Hkot2);
    let mut pos = Position::new(options);
    let moves: Vec<Move> = HKOT2_SACRIFICE
        .split_whitespace()
        .map(|t| pos.play_text(t).unwrap())
        .collect();
    assert!(pos.outcome().is_some());
    replay_shows_each_board(options, &moves);
    // Names in other scripts (shaped, right to left, in other faces) are drawn on the
    // replay's frames as on the board pictures.
    replay_with_names_shows_each_board(options, &moves[..12], ["محمد الأول 🐉", "张伟 अर्जुन"]);
}

/// The game of the `hkot2-end` golden image: it ends with a sacrifice and a king captured by
/// default, a status detail too long for one line.
const HKOT2_SACRIFICE: &str = "C4 D2 B2 E7 G4 B6 B2-D1 B6-D5 C4-A3 D5-C3 G4-E5 D2-B1 A3-B5 C3-A4 E5-F7 E7-G6 D1-E3 G6-F4 B5-C7 F4-G2 C7-A6 G2-E1 F7-D6 E1-D3 A6-C5 D3-F2 D6-B7 F2-E4 E3-F1 E4-G5 C5-D7 G5-E6 F1-G3 E6-D4 G3-F5 D4-F3 B7-A5 B1-C3 A5-B3 C3-E2 B3-C1 A4-B6 C1-A2 B6-A4 A2-B4 F3-D4 B4-C2 D4-C6 D7-C5 E2-F4 C5-A6 F4-G2 F5-E3 C6-E7 C2-A3 E7-G6 A6-B4 G2-E1 A3-C2 E1-D3 C2-E3* pass E3-F1*";

#[test]
fn replays_have_one_frame_per_position() {
    for (i, variant) in Variant::ALL.into_iter().enumerate() {
        let options = GameOptions::new(variant);
        let (_, moves) = random_game(options, &mut Rng::new(40 + i as u64));
        let moves = &moves[..moves.len().min(60)];
        let names = ["A".to_string(), "B".to_string()];
        let bytes = replay_gif(options, moves, &names);
        let (w, h, frames) = gif_frames(&bytes);
        assert_eq!((u32::from(w), u32::from(h)), (WIDTH, HEIGHT));
        assert_eq!(frames, moves.len() + 1, "{variant}");
        assert!(
            bytes.len() < 8 * 1024 * 1024,
            "{variant}: {} bytes",
            bytes.len()
        );
    }
}

#[test]
fn replay_frames_code_only_what_changed_in_a_few_kilobytes() {
    // Frames drawn for animation keep the panels' edges and badges still, so a frame costs
    // about what the move changed: measured 2.7 KB (Ard Rí) to 4.9 KB (High Kings) a frame
    // on whole random games, the first frame included.
    for (i, variant) in Variant::ALL.into_iter().enumerate() {
        let options = GameOptions::new(variant);
        let (_, moves) = random_game(options, &mut Rng::new(90 + i as u64));
        let bytes = replay_gif(options, &moves, &["Aoife".into(), "Brian".into()]);
        let per_frame = bytes.len() / (moves.len() + 1);
        let limit = if variant.is_tara() && variant.has_kings() {
            6500
        } else {
            4500
        };
        assert!(per_frame <= limit, "{variant}: {per_frame} bytes a frame");
    }
}

#[test]
fn a_replay_of_a_whole_long_game_stays_under_8_mb() {
    // Ard Rí games are the longest; take a full one.
    let options = GameOptions::new(Variant::ArdRi);
    let (pos, moves) = random_game(options, &mut Rng::new(9));
    assert!(pos.outcome().is_some());
    let bytes = replay_gif(options, &moves, &["A".into(), "B".into()]);
    assert_eq!(gif_frames(&bytes).2, moves.len() + 1);
    assert!(
        bytes.len() < 8 * 1024 * 1024,
        "{} moves: {} bytes",
        moves.len(),
        bytes.len()
    );
}

fn render_cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_tara-bot"))
        .arg("render")
        .args(args)
        .output()
        .expect("run tara-bot")
}

#[test]
fn render_command_writes_a_png_a_ply_and_a_replay() {
    let dir = std::env::temp_dir().join(format!("tara-render-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png_path = dir.join("board.png");
    let moves = "D4 B2 F6 F2 B6 D6";
    let p = png_path.to_str().unwrap();
    let out = render_cli(&[
        "--variant",
        "hkot-1",
        "--moves",
        moves,
        "--ply",
        "3",
        "-o",
        p,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (w, h, _) = decode(&std::fs::read(&png_path).unwrap());
    assert_eq!((w, h), (WIDTH, HEIGHT));
    let gif_path = dir.join("game.gif");
    let g = gif_path.to_str().unwrap();
    let out = render_cli(&["--variant", "hkot-1", "--moves", moves, "--replay", "-o", g]);
    assert!(out.status.success());
    assert_eq!(gif_frames(&std::fs::read(&gif_path).unwrap()).2, 7);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn render_command_reports_bad_moves_like_the_engine() {
    let out = render_cli(&[
        "--variant",
        "hkot-1",
        "--moves",
        "D4 B2 D5",
        "-o",
        "/nonexistent/x.png",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "move 3 (D5): D5 is next to your ringfort on D4: in Placement your ringforts may not touch"
    );
    let out = render_cli(&["--variant", "hkot-2", "--scoring", "knots", "-o", "x.png"]);
    assert_eq!(out.status.code(), Some(2));
    let out = render_cli(&[
        "--variant",
        "hkot-1",
        "--moves",
        "D4",
        "--ply",
        "5",
        "-o",
        "x.png",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// The first 400 plies of a random Ard Rí game that lasts at least that long.
fn ard_ri_400() -> (GameOptions, Vec<Move>) {
    let options = GameOptions::new(Variant::ArdRi);
    for seed in 0..2000 {
        let (_, moves) = random_game(options, &mut Rng::new(seed));
        if moves.len() >= 400 {
            return (options, moves[..400].to_vec());
        }
    }
    panic!("no random Ard Rí game of 400 plies in 2000 seeds");
}

#[test]
fn a_400_ply_ard_ri_replay_fits_discords_upload_limit() {
    use tara_bot::render::{replay_gif_within, UPLOAD_LIMIT};
    let (options, moves) = ard_ri_400();
    let names = ["Conn".to_string(), "Niall".to_string()];
    let started = std::time::Instant::now();
    let whole = replay_gif(options, &moves, &names);
    let took = started.elapsed();
    println!(
        "400-ply Ard Rí replay: {} bytes ({:.2} MiB), 401 frames, {:?}",
        whole.len(),
        whole.len() as f64 / 1_048_576.0,
        took
    );
    // The whole game fits: nothing is thinned.
    assert!(whole.len() <= UPLOAD_LIMIT, "{} bytes", whole.len());
    let r = replay_gif_within(options, &moves, &names, UPLOAD_LIMIT).unwrap();
    assert_eq!((r.step, &r.bytes), (1, &whole));
    assert_eq!(r.skipped(moves.len()), 0);
    assert_eq!(gif_frames(&r.bytes).2, 401);
    // Under a tighter limit it is thinned, keeping the start and the end.
    let tight = whole.len() / 4;
    let t = replay_gif_within(options, &moves, &names, tight).unwrap();
    println!(
        "thinned to {} bytes: every {}th position, {} frames",
        t.bytes.len(),
        t.step,
        t.shown.len()
    );
    assert!(t.bytes.len() <= tight && t.step > 1);
    assert_eq!(gif_frames(&t.bytes).2, t.shown.len());
    assert_eq!((t.shown[0], *t.shown.last().unwrap()), (0, 400));
}

#[test]
fn marks_and_arrows_change_the_image_and_nothing_else_does() {
    let c = &cases()[2];
    let mut pos = Position::new(c.options);
    for m in &c.moves[..c.ply] {
        pos.play(*m).unwrap();
    }
    let plain = Frame::new(c.names.clone(), None);
    let empty = plain.clone().with_annotations(vec![], vec![]);
    assert_eq!(board_png(&pos, &plain), board_png(&pos, &empty));
    let d4 = Cell { col: 3, row: 3 };
    let marked = plain.clone().with_annotations(vec![d4], vec![]);
    let arrowed = plain.with_annotations(vec![], vec![(d4, Cell { col: 3, row: 5 })]);
    let (a, b, p) = (
        decode(&board_png(&pos, &marked)).2,
        decode(&board_png(&pos, &arrowed)).2,
        decode(&board_png(&pos, &empty)).2,
    );
    assert!(a != p && b != p && a != b);
}

#[test]
fn a_board_at_twice_the_scale_is_the_same_picture_with_four_times_the_pixels() {
    use crate::web::{mean_difference, pixels};
    for (k, variant) in Variant::ALL.into_iter().enumerate() {
        let options = GameOptions::new(variant);
        let (_, moves) = random_game(options, &mut Rng::new(70 + k as u64));
        let mut pos = Position::new(options);
        for m in &moves[..moves.len() / 2] {
            pos.play_unchecked(*m);
        }
        let inner = Cell { col: 3, row: 3 };
        let frame = Frame::new(["Aoife".into(), "Brian".into()], moves.first().copied())
            .with_annotations(vec![inner], vec![(inner, Cell { col: 5, row: 2 })]);
        // Scale 1 is the bot's picture itself.
        let plain = board_png(&pos, &frame);
        assert_eq!(board_png_scaled(&pos, &frame, 1), plain);
        // At 2 the same shapes and text at the same places, drawn finer: each 2x2 block
        // averages to the plain picture's pixel but for the shades of anti-aliased edges.
        let (sharp, w, h) = pixels(&board_png_scaled(&pos, &frame, 2));
        assert_eq!((w, h), (2 * WIDTH, 2 * HEIGHT));
        let (plain, _, _) = pixels(&plain);
        let near = mean_difference(&plain, &sharp, WIDTH as usize);
        assert!(near < 1.0, "{variant}: mean difference {near}");
    }
}
