//! One fixed 255-colour palette for every image, learnt once from sample boards of all five
//! games, and the mapping of drawn pixels to it. Indexed PNGs are a third of the size of RGB
//! ones, and replays need no per-game palette.

use super::canvas::Canvas;
use super::{draw, Frame};
use crate::game::playout::{random_game, Rng};
use crate::game::{GameOptions, Position, Scoring, Variant};
use std::sync::LazyLock;

/// The palette index never produced by the mapping (transparent in GIF frames).
pub const UNUSED: u8 = 255;

pub struct Palette {
    /// 256 RGB triples; entry 255 is unused.
    pub colours: Vec<u8>,
    /// 5-bit-per-channel RGB to the nearest palette entry.
    table: Vec<u8>,
}

/// The palette of all images.
pub static PALETTE: LazyLock<Palette> = LazyLock::new(Palette::learn);

impl Palette {
    fn learn() -> Palette {
        let mut rgba = Vec::new();
        let names = ["Aoife".to_string(), "Brian Boru".to_string()];
        for (i, variant) in Variant::ALL.into_iter().enumerate() {
            let mut options = GameOptions::new(variant);
            if variant.allows_knots() {
                options.scoring = Scoring::Knots;
            }
            let (_, moves) = random_game(options, &mut Rng::new(7 + i as u64));
            let mut pos = Position::new(options);
            let middle = moves.len() / 2;
            for (k, m) in moves.iter().enumerate() {
                pos.play_unchecked(*m);
                if k + 1 == middle || k + 1 == moves.len() {
                    let c = draw(&pos, &Frame::new(names.clone(), Some(*m)));
                    for p in c.pixmap.data().chunks_exact(4) {
                        rgba.extend_from_slice(&[p[0], p[1], p[2], 255]);
                    }
                }
            }
        }
        let nq = color_quant::NeuQuant::new(10, 255, &rgba);
        let mut colours = nq.color_map_rgb();
        colours.resize(256 * 3, 0);
        let mut table = vec![0u8; 32 * 32 * 32];
        for (i, slot) in table.iter_mut().enumerate() {
            let r = ((i >> 10) & 31) as i32 * 8 + 4;
            let g = ((i >> 5) & 31) as i32 * 8 + 4;
            let b = (i & 31) as i32 * 8 + 4;
            let mut best = (i32::MAX, 0u8);
            for k in 0..usize::from(UNUSED) {
                let dr = r - i32::from(colours[3 * k]);
                let dg = g - i32::from(colours[3 * k + 1]);
                let db = b - i32::from(colours[3 * k + 2]);
                let d = 3 * dr * dr + 4 * dg * dg + 2 * db * db;
                if d < best.0 {
                    best = (d, k as u8);
                }
            }
            *slot = best.1;
        }
        Palette { colours, table }
    }

    /// The canvas's pixels as palette indices.
    pub fn index(&self, c: &Canvas) -> Vec<u8> {
        c.pixmap
            .data()
            .chunks_exact(4)
            .map(|p| {
                let i = (usize::from(p[0] >> 3) << 10)
                    | (usize::from(p[1] >> 3) << 5)
                    | usize::from(p[2] >> 3);
                self.table[i]
            })
            .collect()
    }

    /// An indexed (8-bit palette) PNG of a canvas.
    pub fn png(&self, c: &Canvas) -> Vec<u8> {
        let data = self.index(c);
        let mut out = Vec::with_capacity(64 * 1024);
        {
            let mut enc = png::Encoder::new(&mut out, c.width(), c.height());
            enc.set_color(png::ColorType::Indexed);
            enc.set_depth(png::BitDepth::Eight);
            enc.set_palette(self.colours[..usize::from(UNUSED) * 3].to_vec());
            enc.set_compression(png::Compression::Fast);
            let mut writer = enc.write_header().expect("PNG header to memory");
            writer.write_image_data(&data).expect("PNG data to memory");
        }
        out
    }
}
