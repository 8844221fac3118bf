//! The Tara board: 45 hills, ringforts as rings (Red round, Blue square), bridges drawn as
//! interlaced strands so kingdoms read as knotwork, kings as crowns, sieges and the last move.

use super::canvas::{polygon, rounded_rect, Rgba, Surface};
use super::frame::Frame;
use super::layout::{cell_centre, cell_origin, CELL};
use super::theme as palette;
use crate::game::board::{surrounded_by, Bits, Hill};
use crate::game::{Move, Player, TaraPosition};

/// Radius of a ring's centre line.
const RING: f32 = 21.0;
/// Width of the coloured ring.
const RING_W: f32 = 9.0;
/// Width of the dark outline under rings and strands.
const OUTLINE_W: f32 = 13.0;

struct Colours {
    main: Rgba,
    light: Rgba,
    dark: Rgba,
}

fn colours(p: Player) -> Colours {
    match p {
        Player::Red => Colours {
            main: palette::RED,
            light: palette::RED_LIGHT,
            dark: palette::RED_DARK,
        },
        Player::Blue => Colours {
            main: palette::BLUE,
            light: palette::BLUE_LIGHT,
            dark: palette::BLUE_DARK,
        },
    }
}

fn centre(h: Hill) -> (f32, f32) {
    cell_centre(h.col(), h.row())
}

/// The ring's outline path: a circle for Red, a rounded square for Blue.
fn ring_path(p: Player, cx: f32, cy: f32) -> Option<std::sync::Arc<tiny_skia::Path>> {
    match p {
        Player::Red => super::canvas::circle(cx, cy, RING),
        Player::Blue => rounded_rect(cx - RING, cy - RING, 2.0 * RING, 2.0 * RING, 11.0),
    }
}

fn tile(c: &mut impl Surface, h: Hill, fill: Rgba) {
    let (x, y) = cell_origin(h.col(), h.row());
    if let Some(p) = rounded_rect(x + 3.0, y + 3.0, CELL - 6.0, CELL - 6.0, 13.0) {
        c.fill_shared(&p, fill);
    }
}

/// A crown centred at (cx, cy); `band` is the owner's colour.
pub(super) fn crown(c: &mut impl Surface, cx: f32, cy: f32, band: Rgba, alpha: u8) {
    let pts = [
        (cx - 13.0, cy + 9.0),
        (cx + 13.0, cy + 9.0),
        (cx + 14.0, cy - 8.0),
        (cx + 6.5, cy - 1.0),
        (cx, cy - 12.0),
        (cx - 6.5, cy - 1.0),
        (cx - 14.0, cy - 8.0),
    ];
    if let Some(p) = polygon(&pts) {
        c.stroke(&p, 4.5, palette::GOLD_DARK.alpha(alpha));
        c.fill_owned(p, palette::GOLD.alpha(alpha));
    }
    c.fill_rect(cx - 12.0, cy + 4.0, 24.0, 5.0, band.alpha(alpha));
    for (x, y) in [
        (cx - 14.0, cy - 8.0),
        (cx, cy - 12.0),
        (cx + 14.0, cy - 8.0),
    ] {
        c.fill_circle(x, y, 2.6, palette::GOLD_DARK.alpha(alpha));
    }
}

/// The line between the centres of two adjacent hills.
struct Axis {
    a: (f32, f32),
    b: (f32, f32),
    /// Unit direction from `a` to `b`.
    d: (f32, f32),
    /// Unit normal.
    n: (f32, f32),
}

fn axis(a: Hill, b: Hill) -> Axis {
    let (ax, ay) = centre(a);
    let (bx, by) = centre(b);
    let (dx, dy) = ((bx - ax) / CELL, (by - ay) / CELL);
    Axis {
        a: (ax, ay),
        b: (bx, by),
        d: (dx, dy),
        n: (-dy, dx),
    }
}

/// The tinted band under a bridge, edged in the dark colour.
fn bridge_band(c: &mut impl Surface, a: Hill, b: Hill, col: &Colours) {
    let Axis {
        a: (ax, ay),
        b: (bx, by),
        n: (nx, ny),
        ..
    } = axis(a, b);
    let half = 13.0;
    let pts = [
        (ax + nx * half, ay + ny * half),
        (bx + nx * half, by + ny * half),
        (bx - nx * half, by - ny * half),
        (ax - nx * half, ay - ny * half),
    ];
    if let Some(p) = polygon(&pts) {
        c.fill_owned(p, col.light);
    }
    for s in [1.0f32, -1.0] {
        c.line(
            ax + nx * half * s,
            ay + ny * half * s,
            bx + nx * half * s,
            by + ny * half * s,
            2.5,
            col.dark,
        );
    }
}

/// The two strands of a bridge, crossing between the rings (the rings are drawn over their
/// ends, so the strands pass under them as in knotwork).
fn bridge_strands(c: &mut impl Surface, a: Hill, b: Hill, col: &Colours) {
    let Axis {
        a: (ax, ay),
        b: (bx, by),
        d: (dx, dy),
        n: (nx, ny),
    } = axis(a, b);
    let (o, inset) = (11.0, RING - 2.0);
    for s in [1.0f32, -1.0] {
        let (x0, y0) = (ax + dx * inset + nx * o * s, ay + dy * inset + ny * o * s);
        let (x1, y1) = (bx - dx * inset - nx * o * s, by - dy * inset - ny * o * s);
        c.line(x0, y0, x1, y1, 11.0, col.dark);
        c.line(x0, y0, x1, y1, 6.5, col.main);
    }
}

/// Small inward-pointing notches around a besieged ringfort, in the besieger's dark colour.
fn siege_marks(c: &mut impl Surface, h: Hill, besieger: &Colours) {
    let (cx, cy) = centre(h);
    let r = CELL / 2.0 - 3.0;
    for n in Hill::in_set(h.neighbours()) {
        let (nx, ny) = centre(n);
        let (dx, dy) = ((nx - cx) / CELL, (ny - cy) / CELL);
        let (px, py) = (-dy, dx);
        let tip = (cx + dx * (r - 9.0), cy + dy * (r - 9.0));
        let base = (cx + dx * r, cy + dy * r);
        let pts = [
            tip,
            (base.0 + px * 8.0, base.1 + py * 8.0),
            (base.0 - px * 8.0, base.1 - py * 8.0),
        ];
        if let Some(p) = polygon(&pts) {
            c.fill_owned(p, besieger.dark);
        }
    }
}

/// A ghost crown struck through: a king captured on this hill by the last move.
fn captured_king(c: &mut impl Surface, h: Hill, owner: Player) {
    let (cx, cy) = centre(h);
    crown(c, cx, cy, colours(owner).main, 110);
    c.line(
        cx - 14.0,
        cy - 14.0,
        cx + 14.0,
        cy + 14.0,
        4.0,
        palette::ALERT,
    );
    c.line(
        cx - 14.0,
        cy + 14.0,
        cx + 14.0,
        cy - 14.0,
        4.0,
        palette::ALERT,
    );
}

pub(super) fn draw(c: &mut impl Surface, t: &TaraPosition, _frame: &Frame) {
    let last = t.last_move();
    // Hills, with the last move's hills highlighted.
    let (from, to) = match last.mv {
        Some(Move::Build { hill }) => (None, Some(hill)),
        Some(Move::King { from, to, .. }) => (Some(from), Some(to)),
        _ => (None, None),
    };
    for h in Hill::all() {
        // The hill's tile, and its edge.
        let (x, y) = cell_origin(h.col(), h.row());
        if let Some(p) = rounded_rect(x + 3.0, y + 3.0, CELL - 6.0, CELL - 6.0, 13.0) {
            c.fill_shared(&p, palette::HILL);
            c.stroke_shared(&p, 1.5, palette::HILL_EDGE);
        }
    }
    if let Some(h) = from {
        tile(c, h, palette::LAST_FROM);
    }
    if let Some(h) = to {
        tile(c, h, palette::LAST_TO);
    }
    for h in Hill::in_set(t.vacant()) {
        let (cx, cy) = centre(h);
        c.fill_circle(cx, cy, 4.5, palette::HOLE);
    }
    // Ringforts: bands under the bridges, tinted rings with a dark outline, the strands,
    // then the coloured rings over the strands' ends.
    for p in Player::BOTH {
        let col = colours(p);
        let forts = t.forts(p);
        let bridges = t.bridges(p);
        for (a, b) in &bridges {
            bridge_band(c, *a, *b, &col);
        }
        for h in Hill::in_set(forts) {
            let (cx, cy) = centre(h);
            if let Some(path) = ring_path(p, cx, cy) {
                c.fill_shared(&path, col.light);
                c.stroke_shared(&path, OUTLINE_W, col.dark);
            }
        }
        for (a, b) in &bridges {
            bridge_strands(c, *a, *b, &col);
        }
        for h in Hill::in_set(forts) {
            let (cx, cy) = centre(h);
            if let Some(path) = ring_path(p, cx, cy) {
                c.stroke_shared(&path, RING_W, col.main);
            }
        }
        // Ringforts of p besieged by the opponent.
        let besieged: Bits = surrounded_by(t.forts(p.opponent())) & forts;
        for h in Hill::in_set(besieged) {
            siege_marks(c, h, &colours(p.opponent()));
        }
    }
    // A ringfort that changed hands this move: a gold halo.
    for h in [last.fort_captured, last.sacrificed].into_iter().flatten() {
        let (cx, cy) = centre(h);
        c.stroke_circle(cx, cy, RING + 9.0, 3.0, palette::GOLD_DARK);
    }
    // Kings.
    for p in Player::BOTH {
        for h in Hill::in_set(t.kings(p)) {
            let (cx, cy) = centre(h);
            crown(c, cx, cy, colours(p).main, 255);
        }
    }
    if let Some(mover) = last.player {
        for h in Hill::in_set(last.kings_captured) {
            captured_king(c, h, mover.opponent());
        }
        if let Some(h) = last.stranded_king_lost {
            captured_king(c, h, mover.opponent());
        }
        if let Some((h, owner)) = last.stranded_at_end {
            captured_king(c, h, owner);
        }
        for h in Hill::in_set(last.kings_removed) {
            let (cx, cy) = centre(h);
            crown(c, cx, cy, colours(mover).main, 90);
        }
    }
}
