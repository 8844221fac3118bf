//! What a button under one of the bot's messages does when pressed: one [`Press`] per kind of
//! button, written as the button's id (`accept:12`, `draw-yes:5`,
//! `history:<user>:<variant or all>:<page>`) and read back from it here, and nowhere else.
//! `Command::from_button` maps a press to the command it stands for.

use crate::store::UserId;
use std::fmt;

use crate::game::Variant;
use crate::store::{ChallengeId, GameId};

/// The highest page `/history` pages to (beyond it, narrow the list by variant).
pub(crate) const HISTORY_PAGES: u32 = 1000;

/// A button's payload: what pressing it asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Press {
    /// Accept challenge number `n` (`accept:n`).
    Accept(ChallengeId),
    /// Decline challenge number `n` (`decline:n`).
    Decline(ChallengeId),
    /// Withdraw one's challenge number `n` (`cancel:n`).
    Cancel(ChallengeId),
    /// Resign the game, confirmed (`resign:n`).
    Resign(GameId),
    /// Allow the takeback asked for in the game (`takeback-yes:n`).
    TakebackYes(GameId),
    /// Refuse it (`takeback-no:n`).
    TakebackNo(GameId),
    /// Take a vacation of that many days, confirmed (`vacation:days`).
    Vacation(u32),
    /// Accept the draw offered in the game (`draw-yes:n`).
    DrawYes(GameId),
    /// Decline it (`draw-no:n`).
    DrawNo(GameId),
    /// Ask for a rematch of the finished game (`rematch:n`).
    Rematch(GameId),
    /// A page of a player's finished games, of one variant or all (`None`), from 1
    /// (`history:<user>:<variant or all>:<page>`).
    History {
        user: UserId,
        variant: Option<Variant>,
        page: u32,
    },
}

impl fmt::Display for Press {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Press::Accept(n) => write!(f, "accept:{n}"),
            Press::Decline(n) => write!(f, "decline:{n}"),
            Press::Cancel(n) => write!(f, "cancel:{n}"),
            Press::Resign(g) => write!(f, "resign:{}", g.0),
            Press::TakebackYes(g) => write!(f, "takeback-yes:{}", g.0),
            Press::TakebackNo(g) => write!(f, "takeback-no:{}", g.0),
            Press::Vacation(days) => write!(f, "vacation:{days}"),
            Press::DrawYes(g) => write!(f, "draw-yes:{}", g.0),
            Press::DrawNo(g) => write!(f, "draw-no:{}", g.0),
            Press::Rematch(g) => write!(f, "rematch:{}", g.0),
            Press::History {
                user,
                variant,
                page,
            } => write!(
                f,
                "history:{user}:{}:{page}",
                variant.map(Variant::id).unwrap_or("all")
            ),
        }
    }
}

impl Press {
    /// The button's id, as Discord carries it.
    pub fn id(&self) -> String {
        self.to_string()
    }

    /// Reads a button's id: `kind:number`, or a `/history` page. `None` for anything else.
    pub fn parse(id: &str) -> Option<Press> {
        let (kind, rest) = id.split_once(':')?;
        if kind == "history" {
            return read_history(rest);
        }
        let n: i64 = rest.parse().ok()?;
        let game = GameId(n);
        let challenge = ChallengeId(n);
        Some(match kind {
            "accept" => Press::Accept(challenge),
            "decline" => Press::Decline(challenge),
            "cancel" => Press::Cancel(challenge),
            "resign" => Press::Resign(game),
            "takeback-yes" => Press::TakebackYes(game),
            "takeback-no" => Press::TakebackNo(game),
            "vacation" => Press::Vacation(u32::try_from(n).ok()?),
            "draw-yes" => Press::DrawYes(game),
            "draw-no" => Press::DrawNo(game),
            "rematch" => Press::Rematch(game),
            _ => return None,
        })
    }
}

/// Reads the part of a `/history` button's id after `history:`: the user's id (which may hold
/// colons), the variant (`all`) and the page (from 1 to [`HISTORY_PAGES`]).
fn read_history(rest: &str) -> Option<Press> {
    let mut it = rest.rsplitn(3, ':');
    let page: u32 = it.next()?.parse().ok()?;
    let variant = match it.next()? {
        "all" => None,
        v => Some(v.parse::<Variant>().ok()?),
    };
    let user = it.next()?;
    (!user.is_empty() && (1..=HISTORY_PAGES).contains(&page)).then(|| Press::History {
        user: UserId::from(user),
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
                    user: "123456789012345678".into(),
                    variant: Some(Variant::ArdRi),
                    page: 3,
                },
                "history:123456789012345678:ard-ri:3",
            ),
            (
                Press::History {
                    user: "a:b".into(),
                    variant: None,
                    page: 1,
                },
                "history:a:b:all:1",
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
            user: "9".repeat(20).into(),
            variant: Some(Variant::SacredHill2),
            page: HISTORY_PAGES,
        };
        assert!(longest.id().len() <= 100);
    }
}
