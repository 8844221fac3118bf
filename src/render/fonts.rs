//! Text in every script. The bundled faces (`assets/fonts/`) are tried in order for each
//! character: DejaVu Sans (Latin, Greek, Cyrillic and symbols), Noto Sans Arabic, Hebrew and
//! Devanagari for their scripts, a subset of Noto Sans CJK SC (kana, Hangul, and the Han
//! characters of GB 2312 and JIS X 0208) and Noto Emoji (monochrome); then, when installed,
//! the system's Noto Sans CJK (Debian's `fonts-noto-cjk`) for the Han characters the subset
//! lacks.
//!
//! Text whose characters DejaVu Sans has, outside the scripts that join, reorder or stack, is
//! laid out as before, with the font's advances and kerning ([`Layout`], the fast path: every
//! Latin name). Any other text is cut into the runs unicode-bidi orders (right to left where it
//! runs so), each run into pieces of one face, and each piece shaped with rustybuzz (joined,
//! with its ligatures and its marks placed).

use ab_glyph::{Font, FontRef, GlyphId, PxScale, ScaleFont};
use std::sync::{LazyLock, OnceLock};

/// The bundled regular font (DejaVu Sans), as TrueType bytes.
pub(crate) const REGULAR_TTF: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
/// The bundled bold font (DejaVu Sans Bold), as TrueType bytes.
pub(crate) const BOLD_TTF: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-Bold.ttf");

/// Which bundled font to write with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weight {
    Regular,
    Bold,
}

/// A face: its outlines (ab_glyph, which draws them) and its shaping tables (rustybuzz, read
/// the first time text in the face is shaped).
pub(crate) struct Face {
    pub(crate) font: FontRef<'static>,
    bytes: &'static [u8],
    index: u32,
    shaper: OnceLock<Option<rustybuzz::Face<'static>>>,
    /// Font units per em.
    upem: f32,
    /// ab_glyph's height (ascent less descent), in font units: its pixel scales are of it.
    height: f32,
}

impl Face {
    fn new(bytes: &'static [u8], index: u32) -> Option<Face> {
        let font = FontRef::try_from_slice_and_index(bytes, index).ok()?;
        Some(Face {
            upem: font.units_per_em()?,
            height: font.height_unscaled(),
            font,
            bytes,
            index,
            shaper: OnceLock::new(),
        })
    }

    fn shaper(&self) -> Option<&rustybuzz::Face<'static>> {
        self.shaper
            .get_or_init(|| rustybuzz::Face::from_slice(self.bytes, self.index))
            .as_ref()
    }

    fn has(&self, ch: char) -> bool {
        self.font.glyph_id(ch).0 != 0
    }
}

/// Where a face is found: in [`BUNDLED`] or, from [`SYSTEM_FIRST`] on, among the system's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct FaceId(pub(crate) u8);

const DEJAVU: FaceId = FaceId(0);
const DEJAVU_BOLD: FaceId = FaceId(1);
const ARABIC: FaceId = FaceId(2);
const ARABIC_BOLD: FaceId = FaceId(3);
const HEBREW: FaceId = FaceId(4);
const HEBREW_BOLD: FaceId = FaceId(5);
const DEVANAGARI: FaceId = FaceId(6);
const DEVANAGARI_BOLD: FaceId = FaceId(7);
const CJK: FaceId = FaceId(8);
const EMOJI: FaceId = FaceId(9);
/// The first of the system's faces.
const SYSTEM_FIRST: u8 = 10;

/// The bundled fonts, in the order of the [`FaceId`]s above.
const BUNDLED_FILES: [&[u8]; 10] = [
    REGULAR_TTF,
    BOLD_TTF,
    include_bytes!("../../assets/fonts/NotoSansArabic-Regular.ttf"),
    include_bytes!("../../assets/fonts/NotoSansArabic-Bold.ttf"),
    include_bytes!("../../assets/fonts/NotoSansHebrew-Regular.ttf"),
    include_bytes!("../../assets/fonts/NotoSansHebrew-Bold.ttf"),
    include_bytes!("../../assets/fonts/NotoSansDevanagari-Regular.ttf"),
    include_bytes!("../../assets/fonts/NotoSansDevanagari-Bold.ttf"),
    include_bytes!("../../assets/fonts/NotoSansCJKsc-Regular-Subset.otf"),
    include_bytes!("../../assets/fonts/NotoEmoji-Regular.ttf"),
];

/// The bundled faces, each read the first time it is needed (Latin text needs only DejaVu).
static BUNDLED: [OnceLock<Face>; 10] = [const { OnceLock::new() }; 10];

/// The system's fonts the bundled set falls back to, where installed: Noto Sans CJK
/// (Debian's and Ubuntu's `fonts-noto-cjk`; face 2 of the collection is Simplified Chinese, as
/// the bundled subset), regular then bold. Read the first time a character needs them.
const SYSTEM_FILES: [(&str, u32); 2] = [
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2),
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", 2),
];

static SYSTEM: LazyLock<Vec<Face>> = LazyLock::new(|| {
    SYSTEM_FILES
        .iter()
        .filter_map(|(path, index)| {
            let bytes: &'static [u8] = Box::leak(std::fs::read(path).ok()?.into_boxed_slice());
            Face::new(bytes, *index)
        })
        .collect()
});

/// The face of an id.
pub(crate) fn face(id: FaceId) -> &'static Face {
    match id.0.checked_sub(SYSTEM_FIRST) {
        None => BUNDLED[id.0 as usize]
            .get_or_init(|| Face::new(BUNDLED_FILES[id.0 as usize], 0).expect("bundled font")),
        Some(i) => &SYSTEM[i as usize],
    }
}

/// DejaVu Sans of a weight: the face of the fast path.
pub(crate) fn dejavu(weight: Weight) -> FaceId {
    match weight {
        Weight::Regular => DEJAVU,
        Weight::Bold => DEJAVU_BOLD,
    }
}

/// Characters of the scripts that join (Arabic, Syriac, N'Ko, Mongolian), run right to left
/// (Hebrew, Thaana) or stack and reorder (the Indic scripts, Thai to Khmer): they are shaped,
/// and drawn with the Noto face of their script where one is bundled.
fn complex(ch: char) -> bool {
    matches!(
        u32::from(ch),
        0x0590..=0x08FF
            | 0x0900..=0x0DFF
            | 0x0E00..=0x0FFF
            | 0x1000..=0x109F
            | 0x1780..=0x18AF
            | 0x1CD0..=0x1CFF
            | 0x200C..=0x200F
            | 0xA8E0..=0xA8FF
            | 0xFB1D..=0xFDFF
            | 0xFE70..=0xFEFF
    )
}

/// Whether `ch` is laid out on the fast path: DejaVu Sans has it and it is of no script that
/// needs shaping.
pub(crate) fn simple(weight: Weight, ch: char) -> bool {
    // Latin, Greek and Cyrillic (below Hebrew) answered from a table made once, as every
    // character of every text is asked about.
    static BELOW_HEBREW: [OnceLock<Vec<bool>>; 2] = [OnceLock::new(), OnceLock::new()];
    let c = u32::from(ch) as usize;
    if c < 0x0590 {
        let table = BELOW_HEBREW[usize::from(weight == Weight::Bold)].get_or_init(|| {
            let f = face(dejavu(weight));
            (0..0x0590u32)
                .map(|c| char::from_u32(c).is_some_and(|ch| f.has(ch)))
                .collect()
        });
        return table[c];
    }
    !complex(ch) && face(dejavu(weight)).has(ch)
}

/// The bundled faces tried for a character of `weight`, in order: the Noto face of its script
/// first for the scripts they cover, then DejaVu Sans, the CJK subset and the emoji.
fn bundled_order(weight: Weight, ch: char) -> [FaceId; 4] {
    let bold = weight == Weight::Bold;
    let script = match u32::from(ch) {
        0x0590..=0x05FF | 0xFB1D..=0xFB4F => Some(if bold { HEBREW_BOLD } else { HEBREW }),
        0x0600..=0x08FF | 0xFB50..=0xFDFF | 0xFE70..=0xFEFF => {
            Some(if bold { ARABIC_BOLD } else { ARABIC })
        }
        0x0900..=0x097F | 0xA8E0..=0xA8FF | 0x1CD0..=0x1CFF => {
            Some(if bold { DEVANAGARI_BOLD } else { DEVANAGARI })
        }
        _ => None,
    };
    [script.unwrap_or(dejavu(weight)), dejavu(weight), CJK, EMOJI]
}

/// The face a character is drawn with: the first that has it, bundled before the system's
/// (the system's bold before its regular for bold text); `None` when no face has it.
pub(crate) fn face_for(weight: Weight, ch: char) -> Option<FaceId> {
    if let Some(id) = bundled_order(weight, ch)
        .into_iter()
        .find(|&id| face(id).has(ch))
    {
        return Some(id);
    }
    let system = SYSTEM.len() as u8;
    let order: Vec<u8> = match weight {
        Weight::Bold => (0..system).rev().collect(),
        Weight::Regular => (0..system).collect(),
    };
    order
        .into_iter()
        .map(|i| FaceId(SYSTEM_FIRST + i))
        .find(|&id| face(id).has(ch))
}

/// Whether some face can draw `ch`.
pub(crate) fn has_glyph(weight: Weight, ch: char) -> bool {
    simple(weight, ch) || face_for(weight, ch).is_some()
}

/// The pixel scale of a face for text of `size` pixels, so that its em is DejaVu Sans's at
/// that size (each face then draws its letters as large as the others'); DejaVu's own is
/// `size` itself.
pub(crate) fn scale(id: FaceId, size: f32) -> PxScale {
    if id == DEJAVU || id == DEJAVU_BOLD {
        return PxScale::from(size);
    }
    let (d, f) = (face(DEJAVU), face(id));
    PxScale::from(size * d.upem / d.height * f.height / f.upem)
}

/// A glyph laid out: its face, its id in the face, and where its origin is from the start
/// of the text on the baseline (x to the right, y down), in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Placed {
    pub(crate) face: FaceId,
    pub(crate) id: GlyphId,
    pub(crate) x: f32,
    pub(crate) y: f32,
}

/// Text laid out: its glyphs left to right as drawn, and its width.
pub(crate) struct Layout {
    pub(crate) glyphs: Vec<Placed>,
    pub(crate) width: f32,
}

/// Lays out `text` in `weight` at `size` pixels: on the fast path with DejaVu Sans's advances
/// and kerning when every character is [`simple`], else shaped.
pub(crate) fn layout(weight: Weight, size: f32, text: &str) -> Layout {
    if text.chars().all(|ch| simple(weight, ch)) {
        return plain(weight, size, text);
    }
    shaped(weight, size, text)
}

/// The fast path: one glyph a character, advances and kerning summed in order.
fn plain(weight: Weight, size: f32, text: &str) -> Layout {
    let id = dejavu(weight);
    let f = face(id).font.as_scaled(PxScale::from(size));
    let mut pen = 0.0;
    let mut prev = None;
    let mut glyphs = Vec::with_capacity(text.len());
    for ch in text.chars() {
        let g = f.glyph_id(ch);
        if let Some(p) = prev {
            pen += f.kern(p, g);
        }
        glyphs.push(Placed {
            face: id,
            id: g,
            x: pen,
            y: 0.0,
        });
        pen += f.h_advance(g);
        prev = Some(g);
    }
    Layout { glyphs, width: pen }
}

/// Marks and joiners: they stay in the face of the letter before them where it has them.
fn clings(ch: char) -> bool {
    matches!(
        u32::from(ch),
        0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x200C..=0x200D | 0x20D0..=0x20FF
            | 0xFE20..=0xFE2F
    )
}

/// The shaped path: bidi runs in visual order, each cut into pieces of one face (in visual
/// order too: right to left within a right-to-left run), each piece shaped.
fn shaped(weight: Weight, size: f32, text: &str) -> Layout {
    // The pictures' own words are English: text with a left-to-right letter in it (a title
    // around a name) reads left to right as a whole; text with none (a name in Arabic or
    // Hebrew alone) takes the direction of its first strong letter.
    let ltr = text
        .chars()
        .any(|c| unicode_bidi::bidi_class(c) == unicode_bidi::BidiClass::L);
    let base = ltr.then(unicode_bidi::Level::ltr);
    let bidi = unicode_bidi::BidiInfo::new(text, base);
    let mut glyphs = Vec::new();
    let mut pen = 0.0;
    for para in &bidi.paragraphs {
        let (levels, runs) = bidi.visual_runs(para, para.range.clone());
        for run in runs {
            let rtl = levels[run.start].is_rtl();
            let mut pieces = pieces(weight, &text[run.clone()]);
            if rtl {
                pieces.reverse();
            }
            for (id, piece) in pieces {
                pen = shape_piece(id, size, piece, rtl, pen, &mut glyphs);
            }
        }
    }
    Layout { glyphs, width: pen }
}

/// A run cut where the face changes, in logical order. A character no face has goes with
/// the text around it (and draws as that face's missing glyph).
fn pieces(weight: Weight, run: &str) -> Vec<(FaceId, &str)> {
    let mut out: Vec<(FaceId, &str)> = Vec::new();
    let mut start = 0;
    let mut current: Option<FaceId> = None;
    for (i, ch) in run.char_indices() {
        let joiner = matches!(ch, '\u{200C}' | '\u{200D}');
        let keep = current.filter(|&c| clings(ch) && (joiner || face(c).has(ch)));
        let id = keep
            .or_else(|| face_for(weight, ch))
            .or(current)
            .unwrap_or(dejavu(weight));
        if current.is_some_and(|c| c != id) {
            out.push((current.unwrap_or(id), &run[start..i]));
            start = i;
        }
        current = Some(id);
    }
    if let Some(c) = current {
        out.push((c, &run[start..]));
    }
    out
}

/// Shapes `piece` in face `id` from `pen`, appending its glyphs; the pen after it.
fn shape_piece(
    id: FaceId,
    size: f32,
    piece: &str,
    rtl: bool,
    mut pen: f32,
    glyphs: &mut Vec<Placed>,
) -> f32 {
    let f = face(id);
    let mut buffer = rustybuzz::UnicodeBuffer::new();
    buffer.push_str(piece);
    buffer.set_direction(if rtl {
        rustybuzz::Direction::RightToLeft
    } else {
        rustybuzz::Direction::LeftToRight
    });
    buffer.guess_segment_properties();
    let Some(shaper) = f.shaper() else {
        // Every face parses for shaping where it parses for drawing; should one not, its
        // piece is drawn unshaped, a glyph a character with its advance.
        for ch in piece.chars() {
            let g = f.font.glyph_id(ch);
            glyphs.push(Placed {
                face: id,
                id: g,
                x: pen,
                y: 0.0,
            });
            pen += f.font.as_scaled(scale(id, size)).h_advance(g);
        }
        return pen;
    };
    let out = rustybuzz::shape(shaper, &[], buffer);
    // Font units to pixels, at the em of DejaVu Sans at this size.
    let k = scale(id, size).y / f.height;
    for (info, pos) in out.glyph_infos().iter().zip(out.glyph_positions()) {
        glyphs.push(Placed {
            face: id,
            id: GlyphId(info.glyph_id as u16),
            x: pen + pos.x_offset as f32 * k,
            y: -(pos.y_offset as f32) * k,
        });
        pen += pos.x_advance as f32 * k;
    }
    pen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_names_take_the_fast_path_and_others_are_shaped() {
        for name in ["Aoife", "Brian Ó Briain", "Ελένη", "Дмитрий", "Zoë-Łucja"] {
            assert!(name.chars().all(|c| simple(Weight::Bold, c)), "{name}");
        }
        for name in ["محمد", "דוד", "अर्जुन", "张伟", "🐉"] {
            assert!(!name.chars().all(|c| simple(Weight::Bold, c)), "{name}");
        }
    }

    #[test]
    fn every_script_has_a_bundled_face() {
        for (ch, want) in [
            ('A', DEJAVU_BOLD),
            ('λ', DEJAVU_BOLD),
            ('ж', DEJAVU_BOLD),
            ('م', ARABIC_BOLD),
            ('ד', HEBREW_BOLD),
            ('अ', DEVANAGARI_BOLD),
            ('张', CJK),
            ('さ', CJK),
            ('민', CJK),
            ('🐉', EMOJI),
        ] {
            assert_eq!(face_for(Weight::Bold, ch), Some(want), "{ch}");
        }
    }

    #[test]
    fn han_characters_beyond_the_subset_come_from_the_system_when_installed() {
        // 龥 (U+9FA5) is in neither GB 2312 nor JIS X 0208: not in the bundled subset.
        assert!(!face(CJK).has('龥'));
        let installed = std::path::Path::new(SYSTEM_FILES[0].0).exists();
        let found = face_for(Weight::Regular, '龥');
        if installed {
            assert_eq!(found, Some(FaceId(SYSTEM_FIRST)));
            let l = layout(Weight::Regular, 20.0, "龥");
            assert_eq!(l.glyphs[0].face, FaceId(SYSTEM_FIRST));
            assert_ne!(l.glyphs[0].id, GlyphId(0));
        } else {
            assert_eq!(found, None);
        }
    }

    #[test]
    fn arabic_is_joined_and_right_to_left() {
        // Four letters of "محمد" shaped: the joined forms differ from the lone letters'.
        let joined = layout(Weight::Regular, 20.0, "محمد");
        let lone: Vec<GlyphId> = "محمد"
            .chars()
            .map(|c| face(ARABIC).font.glyph_id(c))
            .collect();
        let ids: Vec<GlyphId> = joined.glyphs.iter().map(|g| g.id).collect();
        assert_eq!(ids.len(), 4);
        assert_ne!(ids, lone, "joined forms");
        // Right to left: the last letter (dal, in its final form) is drawn first, at the left.
        let dal = face(ARABIC).font.glyph_id('د');
        assert_ne!(ids[0], dal, "final form, not the lone one");
        assert!(joined.glyphs.windows(2).all(|w| w[0].x <= w[1].x));
        // In a left-to-right name the Arabic word keeps its order within, after the Latin.
        let mixed = layout(Weight::Regular, 20.0, "Ali محمد");
        assert_eq!(mixed.glyphs[0].face, DEJAVU);
        assert_eq!(mixed.glyphs.last().unwrap().face, ARABIC);
        assert_eq!(
            mixed.glyphs[4..].iter().map(|g| g.id).collect::<Vec<_>>(),
            ids
        );
        // A right-to-left name before English words stays at the left of them; alone, a
        // name with a number reads right to left, the number at its left.
        let title = layout(Weight::Regular, 20.0, "محمد: Ard Rí");
        assert_eq!(title.glyphs[0].face, ARABIC);
        let numbered = layout(Weight::Regular, 20.0, "محمد 2");
        assert_eq!(numbered.glyphs[0].face, DEJAVU);
        assert_eq!(numbered.glyphs.last().unwrap().face, ARABIC);
    }

    #[test]
    fn devanagari_reorders_its_vowel_sign() {
        // "कि": the vowel sign i is written before the consonant it follows in the text.
        let l = layout(Weight::Regular, 20.0, "कि");
        let ka = face(DEVANAGARI).font.glyph_id('क');
        assert_eq!(l.glyphs.len(), 2);
        assert_eq!(l.glyphs[1].id, ka);
        assert!(l.glyphs[0].x < l.glyphs[1].x);
    }

    #[test]
    fn fallback_faces_are_drawn_at_the_em_of_dejavu() {
        let em = |id: FaceId| scale(id, 30.0).y * face(id).upem / face(id).height;
        let d = em(DEJAVU);
        for id in [ARABIC, HEBREW, DEVANAGARI, CJK, EMOJI] {
            assert!((em(id) - d).abs() < 1e-3, "{id:?}");
        }
        // A Han character is about an em wide.
        let w = layout(Weight::Regular, 30.0, "张").width;
        assert!((w - d).abs() < d * 0.1, "{w} vs {d}");
    }
}
