//! What a button under one of the bot's messages does when pressed: one [`Press`] per kind of
//! button, written as the button's id (`accept:12`, `draw-yes:5`,
//! `history:<user>:<variant or all>:<page>`) and read back from it here, and nowhere else. Each
//! kind is declared once (`presses!`): its variant, its id's kind, and its writer and reader;
//! `Command::from_button` maps a press to the command it stands for (a `match` the compiler
//! checks covers every kind).

use crate::store::UserId;
use std::fmt;

use crate::game::Variant;
use crate::store::{ChallengeId, GameId};

/// The highest page `/history` pages to (beyond it, narrow the list by variant).
pub(crate) const HISTORY_PAGES: u32 = 1000;

/// Declares every kind of button once: its variant of [`Press`], the kind its id begins with,
/// and how the rest of the id is written and read. A `kind:number` button needs only its number's
/// type ([`Number`]); the others name their writer and reader.
macro_rules! presses {
    (
        numbered {
            $( $(#[$nm:meta])* $nv:ident($nt:ty) = $nkind:literal, )*
        }
        $(
            $(#[$om:meta])*
            $ov:ident { $($of:ident: $oty:ty),* $(,)? } = $okind:literal, $write:ident, $read:ident;
        )*
    ) => {
        /// A button's payload: what pressing it asks for.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub enum Press {
            $( $(#[$nm])* $nv($nt), )*
            $( $(#[$om])* $ov { $($of: $oty),* }, )*
        }

        impl fmt::Display for Press {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $( Press::$nv(n) => write!(f, "{}:{}", $nkind, Number::number(n)), )*
                    $( Press::$ov { $($of),* } => {
                        write!(f, "{}:", $okind)?;
                        $write(f, $($of),*)
                    } )*
                }
            }
        }

        impl Press {
            /// Reads a button's id: its kind, then what follows the first colon. `None` for
            /// anything else.
            pub fn parse(id: &str) -> Option<Press> {
                let (kind, rest) = id.split_once(':')?;
                match kind {
                    $( $nkind => Some(Press::$nv(Number::from_number(rest.parse().ok()?)?)), )*
                    $( $okind => $read(rest), )*
                    _ => None,
                }
            }
        }
    };
}

/// What a `kind:number` button carries after its colon: a number as Rust reads an `i64`.
trait Number: Sized {
    fn number(&self) -> i64;
    /// `None` for a number out of the type's range.
    fn from_number(n: i64) -> Option<Self>;
}

impl Number for GameId {
    fn number(&self) -> i64 {
        self.0
    }
    fn from_number(n: i64) -> Option<Self> {
        Some(GameId(n))
    }
}

impl Number for ChallengeId {
    fn number(&self) -> i64 {
        self.0
    }
    fn from_number(n: i64) -> Option<Self> {
        Some(ChallengeId(n))
    }
}

impl Number for u32 {
    fn number(&self) -> i64 {
        i64::from(*self)
    }
    fn from_number(n: i64) -> Option<Self> {
        u32::try_from(n).ok()
    }
}

presses! {
    numbered {
        /// Accept challenge number `n` (`accept:n`).
        Accept(ChallengeId) = "accept",
        /// Decline challenge number `n` (`decline:n`).
        Decline(ChallengeId) = "decline",
        /// Withdraw one's challenge number `n` (`cancel:n`).
        Cancel(ChallengeId) = "cancel",
        /// Resign the game, confirmed (`resign:n`).
        Resign(GameId) = "resign",
        /// Allow the takeback asked for in the game (`takeback-yes:n`).
        TakebackYes(GameId) = "takeback-yes",
        /// Refuse it (`takeback-no:n`).
        TakebackNo(GameId) = "takeback-no",
        /// Take a vacation of that many days, confirmed (`vacation:days`).
        Vacation(u32) = "vacation",
        /// Accept the draw offered in the game (`draw-yes:n`).
        DrawYes(GameId) = "draw-yes",
        /// Decline it (`draw-no:n`).
        DrawNo(GameId) = "draw-no",
        /// Ask for a rematch of the finished game (`rematch:n`).
        Rematch(GameId) = "rematch",
    }
    /// A page of a player's finished games, of one variant or all (`None`), from 1
    /// (`history:<user>:<variant or all>:<page>`).
    History {
        user: UserId,
        variant: Option<Variant>,
        page: u32,
    } = "history", write_history, read_history;
    /// A game's board at a ply, from the stepping buttons under a board
    /// (`step:<game>:<ply>:<s|p>:<drawn>`). `shared`: they are under a public message, so the
    /// board comes as a private copy for whoever pressed; otherwise it replaces the pressed
    /// message. `drawn`: when the buttons were shown (Unix seconds); they work for
    /// [`STEP_SECONDS`] from then.
    Step {
        game: GameId,
        ply: u32,
        shared: bool,
        drawn: u32,
    } = "step", write_step, read_step;
    /// The "jump to move…" button of the stepping buttons (`step-jump:<game>:<s|p>:<drawn>`): it
    /// asks for the move in a dialog ([`Press::dialog`]), whose answer is read by
    /// `Command::from_dialog`.
    StepJump {
        game: GameId,
        shared: bool,
        drawn: u32,
    } = "step-jump", write_step_jump, read_step_jump;
    /// The board before move `ply` of the game with `best`, the AI's better move there, drawn
    /// (`better:<game>:<ply>:<best>`), under an analysis's swings: privately, with the stepping
    /// buttons.
    Better {
        game: GameId,
        ply: u32,
        best: String,
    } = "better", write_better, read_better;
    /// A page of the full rules, from 1 (`rules:<variant or all>:<page>`): the variant whose
    /// summary led there, if any.
    Rules { variant: Option<Variant>, page: u32 } = "rules", write_rules, read_rules;
}

/// The `drawn` of a board's buttons that do not expire: those an analysis's better move
/// shows ([`Press::Better`]).
pub const NEVER_EXPIRES: u32 = u32::MAX;

/// How long stepping buttons ([`Press::Step`]) work after they are shown: 15 minutes.
pub const STEP_SECONDS: u32 = 15 * 60;

/// A dialog a button opens to ask for one short value (Discord's modal with one text input;
/// the console takes the value after the button's id).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dialog {
    /// The dialog's id, given back with the value: the button's id.
    pub id: String,
    pub title: String,
    /// The question (at most 45 characters).
    pub label: String,
    pub placeholder: String,
}

/// `s` for a shared (public) message's stepping buttons, `p` for a private one's.
fn shared_mark(shared: bool) -> &'static str {
    if shared {
        "s"
    } else {
        "p"
    }
}

/// `s` or `p` read back ([`shared_mark`]).
fn read_shared(mark: &str) -> Option<bool> {
    match mark {
        "s" => Some(true),
        "p" => Some(false),
        _ => None,
    }
}

/// A variant's id, or `all`.
fn variant_mark(variant: &Option<Variant>) -> &'static str {
    variant.map(Variant::id).unwrap_or("all")
}

/// A variant's id, or `all` (`None`), read back; `None` for anything else.
fn read_variant(mark: &str) -> Option<Option<Variant>> {
    match mark {
        "all" => Some(None),
        v => Some(Some(v.parse::<Variant>().ok()?)),
    }
}

fn write_history(
    f: &mut fmt::Formatter<'_>,
    user: &UserId,
    variant: &Option<Variant>,
    page: &u32,
) -> fmt::Result {
    write!(f, "{user}:{}:{page}", variant_mark(variant))
}

fn write_step(
    f: &mut fmt::Formatter<'_>,
    game: &GameId,
    ply: &u32,
    shared: &bool,
    drawn: &u32,
) -> fmt::Result {
    write!(f, "{}:{ply}:{}:{drawn}", game.0, shared_mark(*shared))
}

fn write_step_jump(
    f: &mut fmt::Formatter<'_>,
    game: &GameId,
    shared: &bool,
    drawn: &u32,
) -> fmt::Result {
    write!(f, "{}:{}:{drawn}", game.0, shared_mark(*shared))
}

fn write_better(
    f: &mut fmt::Formatter<'_>,
    game: &GameId,
    ply: &u32,
    best: &String,
) -> fmt::Result {
    write!(f, "{}:{ply}:{best}", game.0)
}

fn write_rules(f: &mut fmt::Formatter<'_>, variant: &Option<Variant>, page: &u32) -> fmt::Result {
    write!(f, "{}:{page}", variant_mark(variant))
}

/// Reads the part of a rules page's button id after `rules:`: `<variant or all>:<page>`, the
/// page from 1 to 1000.
fn read_rules(rest: &str) -> Option<Press> {
    let (variant, page) = rest.split_once(':')?;
    let variant = read_variant(variant)?;
    let page: u32 = page.parse().ok()?;
    (1..=1000)
        .contains(&page)
        .then_some(Press::Rules { variant, page })
}

impl Press {
    /// The button's id, as Discord carries it.
    pub fn id(&self) -> String {
        self.to_string()
    }
}

impl Press {
    /// The dialog the button opens instead of running a command (the jump of the stepping
    /// buttons), if it is such a button.
    pub fn dialog(&self) -> Option<Dialog> {
        match self {
            Press::StepJump { game, .. } => Some(Dialog {
                id: self.id(),
                title: format!("Jump to a move of game {}", game.0),
                label: "Move number (0 is the start)".into(),
                placeholder: "12".into(),
            }),
            _ => None,
        }
    }
}

/// Reads the part of a stepping button's id after `step:`: `<game>:<ply>:<s|p>:<drawn>`.
fn read_step(rest: &str) -> Option<Press> {
    let parts: Vec<&str> = rest.split(':').collect();
    let [game, ply, mark, drawn] = parts.as_slice() else {
        return None;
    };
    Some(Press::Step {
        game: GameId(game.parse().ok()?),
        ply: ply.parse().ok()?,
        shared: read_shared(mark)?,
        drawn: drawn.parse().ok()?,
    })
}

/// Reads the part of a "jump to move…" button's id after `step-jump:`: `<game>:<s|p>:<drawn>`.
fn read_step_jump(rest: &str) -> Option<Press> {
    let parts: Vec<&str> = rest.split(':').collect();
    let [game, mark, drawn] = parts.as_slice() else {
        return None;
    };
    Some(Press::StepJump {
        game: GameId(game.parse().ok()?),
        shared: read_shared(mark)?,
        drawn: drawn.parse().ok()?,
    })
}

/// Reads the part of a better move's button id after `better:`: `<game>:<ply>:<move>`, the
/// move as written (no colon, at most 16 characters).
fn read_better(rest: &str) -> Option<Press> {
    let mut it = rest.splitn(3, ':');
    let game = GameId(it.next()?.parse().ok()?);
    let ply: u32 = it.next()?.parse().ok()?;
    let best = it.next()?;
    let fine = ply >= 1
        && !best.is_empty()
        && best.len() <= 16
        && best
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-*".contains(c));
    fine.then(|| Press::Better {
        game,
        ply,
        best: best.to_string(),
    })
}

/// Reads the part of a `/history` button's id after `history:`: the user's id (which may hold
/// colons), the variant (`all`) and the page (from 1 to [`HISTORY_PAGES`]).
fn read_history(rest: &str) -> Option<Press> {
    let mut it = rest.rsplitn(3, ':');
    let page: u32 = it.next()?.parse().ok()?;
    let variant = read_variant(it.next()?)?;
    let user = it.next()?;
    (!user.is_empty() && (1..=HISTORY_PAGES).contains(&page)).then(|| Press::History {
        user: UserId::new(user),
        variant,
        page,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_press() -> Vec<(Press, &'static str)> {
        vec![
            (Press::Accept(ChallengeId(12)), "accept:12"),
            (Press::Decline(ChallengeId(3)), "decline:3"),
            (Press::Cancel(ChallengeId(4)), "cancel:4"),
            (Press::Resign(GameId(7)), "resign:7"),
            (Press::TakebackYes(GameId(8)), "takeback-yes:8"),
            (Press::TakebackNo(GameId(4)), "takeback-no:4"),
            (Press::Vacation(3), "vacation:3"),
            (Press::DrawYes(GameId(5)), "draw-yes:5"),
            (Press::DrawNo(GameId(6)), "draw-no:6"),
            (Press::Rematch(GameId(9)), "rematch:9"),
            (
                Press::History {
                    user: UserId::new("123456789012345678"),
                    variant: Some(Variant::ArdRi),
                    page: 3,
                },
                "history:123456789012345678:ard-ri:3",
            ),
            (
                Press::History {
                    user: UserId::new("a:b"),
                    variant: None,
                    page: 1,
                },
                "history:a:b:all:1",
            ),
            (
                Press::Step {
                    game: GameId(12),
                    ply: 40,
                    shared: true,
                    drawn: 1_796_000_000,
                },
                "step:12:40:s:1796000000",
            ),
            (
                Press::StepJump {
                    game: GameId(12),
                    shared: false,
                    drawn: 1_796_000_000,
                },
                "step-jump:12:p:1796000000",
            ),
            (
                Press::Better {
                    game: GameId(5),
                    ply: 31,
                    best: "a1-a4".into(),
                },
                "better:5:31:a1-a4",
            ),
            (
                Press::Rules {
                    variant: Some(Variant::ArdRi),
                    page: 4,
                },
                "rules:ard-ri:4",
            ),
            (
                Press::Rules {
                    variant: None,
                    page: 1,
                },
                "rules:all:1",
            ),
        ]
    }

    #[test]
    fn every_press_is_written_as_before_and_read_back() {
        for (press, id) in every_press() {
            assert_eq!(press.id(), id);
            assert_eq!(press.to_string(), id);
            assert_eq!(Press::parse(id), Some(press), "{id}");
        }
    }

    #[test]
    fn ids_that_are_no_press_are_refused() {
        for id in [
            "vacation:-1",
            "vacation:99999999999",
            "nothing:1",
            "accept:x",
            "accept",
            "history:x:all:0",
            "history:x:all:1001",
            "history:x:chess:1",
            "history::all:1",
            "history:all:1",
            "step:12:40:x:1",
            "step:12:40:s",
            "step:12:-1:s:1",
            "step-jump:12:s",
            "step-jump:12:40:s:1",
            "better:5:0:D4",
            "better:5:3:",
            "better:5:3:D4 E5",
            "better:5:3:a:b",
            "rules:all:0",
            "rules:chess:1",
            "rules:all",
        ] {
            assert_eq!(Press::parse(id), None, "{id}");
        }
        // A number as Rust reads it, as before: a sign is allowed.
        assert_eq!(
            Press::parse("accept:-5"),
            Some(Press::Accept(ChallengeId(-5)))
        );
    }

    #[test]
    fn the_longest_history_button_fits_discord() {
        let longest = Press::History {
            user: UserId::new("9".repeat(20)),
            variant: Some(Variant::SacredHill2),
            page: HISTORY_PAGES,
        };
        assert!(longest.id().len() <= 100);
        let step = Press::StepJump {
            game: GameId(i64::MAX),
            shared: true,
            drawn: u32::MAX,
        };
        assert!(step.id().len() <= 100);
    }

    #[test]
    fn only_the_jump_opens_a_dialog_that_fits_discord() {
        let jump = Press::StepJump {
            game: GameId(i64::MAX),
            shared: true,
            drawn: 1,
        };
        let d = jump.dialog().unwrap();
        assert_eq!(d.id, jump.id());
        assert!(d.title.chars().count() <= 45 && d.label.chars().count() <= 45);
        assert_eq!(Press::Rematch(GameId(1)).dialog(), None);
    }
}
