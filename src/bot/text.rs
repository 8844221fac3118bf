//! Wording shared by the bot's replies: seats, prompts, scores, rule summaries and help.

use super::reply::{Button, ButtonStyle, Part, Reply, Retire};
use crate::game::Counts;
use crate::game::{describe, Outcome, Player, Points, Position, Side, Variant};
use crate::store::{GameRow, AI_USER_ID};

/// Builds a reply piece by piece.
#[derive(Default)]
pub struct Builder {
    reply: Reply,
}

impl Builder {
    pub fn new() -> Builder {
        Builder::default()
    }
    pub fn text(mut self, t: impl Into<String>) -> Builder {
        self.reply.parts.push(Part::Text(t.into()));
        self
    }
    /// A mention that does not ping.
    pub fn user(mut self, id: &str, name: &str) -> Builder {
        self.reply.parts.push(Part::User {
            id: id.to_string(),
            name: name.to_string(),
        });
        self
    }
    /// A mention that pings (the bot's AI is never pinged: it is only named).
    pub fn ping(mut self, id: &str, name: &str) -> Builder {
        if id != AI_USER_ID && !self.reply.mentions.iter().any(|m| m == id) {
            self.reply.mentions.push(id.to_string());
        }
        self.user(id, name)
    }
    /// Text a user wrote (a reason, a move as typed): escaped wherever it is read as Markdown.
    pub fn verbatim(mut self, t: impl Into<String>) -> Builder {
        self.reply.parts.push(Part::Verbatim(t.into()));
        self
    }
    pub fn channel(mut self, id: &str) -> Builder {
        self.reply.parts.push(Part::Channel(id.to_string()));
        self
    }
    pub fn button(mut self, id: String, label: &str, style: ButtonStyle) -> Builder {
        self.reply.buttons.push(Button {
            id,
            label: label.to_string(),
            style,
        });
        self
    }
    /// The new text of the message whose button was pressed (see [`Reply::pressed_message`]).
    pub fn pressed_message(mut self, text: Reply) -> Builder {
        self.reply.pressed_message = Some(text.parts);
        self
    }
    pub fn private(mut self) -> Builder {
        self.reply.ephemeral = true;
        self
    }
    pub fn build(self) -> Reply {
        self.reply
    }
}

/// The message of a draw offer in `game` by `offerer` (id, name), whose buttons are spent: it
/// says the offer was made, then `how` it ended (": declined by Brian.", " and lapsed when
/// Brian moved.").
pub fn draw_offer_closed(game: &GameRow, offerer: (&str, &str), how: Builder) -> Retire {
    let mut text = Builder::new()
        .user(offerer.0, offerer.1)
        .text(format!(" offered a draw in game {}", game.id))
        .build()
        .parts;
    text.extend(how.build().parts);
    Retire {
        channel: game.channel_id.clone(),
        button: format!("draw-yes:{}", game.id),
        text,
    }
}

/// Pings the players of a game who are people, in seat order with `sep` between them: the
/// bot's AI is neither pinged nor named.
pub fn ping_players(mut b: Builder, game: &GameRow, names: &[String; 2], sep: &str) -> Builder {
    let people = (0..2).filter(|&seat| game.ai_levels[seat].is_none());
    for (i, seat) in people.enumerate() {
        if i > 0 {
            b = b.text(sep);
        }
        b = b.ping(&game.seats[seat], &names[seat]);
    }
    b
}

/// "Red" / "Blue" / "Attackers" / "Defenders" for a seat of a game.
pub fn side_of(game: &GameRow, seat: usize) -> Side {
    game.options.variant.sides()[seat]
}

/// Which game of a two-game match the `n`-th (from 1) is, after "match": "game 2 of 2", or
/// for the games that decide a match tied after two (RULES F.4) "game 3, a decider".
pub fn match_game(n: i64) -> String {
    if n <= 2 {
        format!("game {n} of 2")
    } else {
        format!("game {n}, a decider")
    }
}

/// The seat (0 or 1) of a side.
pub fn seat_of_side(side: Side) -> usize {
    side.index()
}

/// Appends the points with the players named (as mentions that do not ping):
/// "@Aoife (Red) 4 – 1 @Brian (Blue)".
pub fn points_line(b: Builder, game: &GameRow, names: &[String; 2], o: &Outcome) -> Builder {
    b.user(&game.seats[0], &names[0])
        .text(format!(
            " ({}) {} – {} ",
            side_of(game, 0).name(),
            o.points.first(),
            o.points.second()
        ))
        .user(&game.seats[1], &names[1])
        .text(format!(" ({})", side_of(game, 1).name()))
}

/// Kingdoms, knots, territory and kings captured of both Tara players, one line.
pub fn counts_line(pos: &Position) -> Option<String> {
    let Position::Tara(t) = pos else {
        return None;
    };
    let (r, b): (Counts, Counts) = (t.counts(Player::Red), t.counts(Player::Blue));
    let mut s = format!("Kingdoms {}–{}", r.kingdoms, b.kingdoms);
    if t.options().scoring == crate::game::Scoring::Knots {
        s.push_str(&format!(" · knots {}–{}", r.knots, b.knots));
    }
    s.push_str(&format!(" · territory {}–{}", r.territory, b.territory));
    if t.variant().has_kings() {
        s.push_str(&format!(
            " · kings captured {}–{}",
            r.kings_captured, b.kings_captured
        ));
    }
    s.push_str(" (Red–Blue)");
    Some(s)
}

/// The result of a finished game in a sentence.
pub fn result_sentence(pos: &Position, o: &Outcome) -> String {
    describe::result(pos, o)
}

/// Half points as text ("3", "1.5").
pub fn pts(p: Points) -> String {
    p.to_string()
}

/// A short summary of a variant's rules, in our own words.
pub fn rules(variant: Variant) -> &'static str {
    match variant {
        Variant::Hkot1 => "**High Kings of Tara (hkot-1)**\n\
            Each player has three kings. **Placement** (first six turns): put a ringfort with a new king on any \
            vacant hill not next to one of your ringforts. **Manoeuvres**: move a king by a knight's move to a \
            vacant hill not next to your ringforts and build a ringfort there. When a player's kings are all \
            stuck, **BATTLE!** starts for both: ringforts may now touch and link by bridges, but friendly kings \
            never stand side by side. A player whose kings are all stuck may backtrack onto an own ringfort or \
            capture an enemy ringfort that is besieged (every neighbour yours). A king standing on a besieged \
            hill is captured when an enemy king moves next to it; two captures win at once. Passing is allowed \
            when every king on the board is stuck (your kings leave the board; your opponent gets one more turn). \
            **Scoring**: fewest kingdoms (or knots) wins 2 + the difference; if equal, most territory wins 2 + \
            the difference; +1 per captured king. Moves: `D4` (placement), `G2-E3` (king move), `pass`.",
        Variant::Hkot2 => "**High Kings of Tara, Level 2 (hkot-2)**\n\
            As hkot-1, plus **sacrifices**: after losing exactly one king, when all your kings are stuck, a king \
            may backtrack onto your own besieged ringfort and hand it to your opponent (`C5-B3*`). That king \
            then stands on enemy territory, safe from capture, but must move on your next turn; if it cannot, \
            it is captured and you lose by double capture. Always scored by kingdoms.",
        Variant::SacredHill1 => "**Tara: Sacred Hill (sacred-hill-1)**\n\
            No kings: each turn you build one ringfort. **Manoeuvres**: your first ringfort goes anywhere; later \
            ones must be a knight's move from one of yours and no closer than a knight's move to any of yours. \
            When you cannot, your own **Battle** starts: build next to your ringforts while you can, else \
            anywhere. An enemy ringfort you besiege (every neighbour yours) must be captured on your turn. The \
            game ends when the board is full and nothing is besieged. **Scoring**: fewest kingdoms (or knots) \
            wins 2 + the difference; if equal, most territory. Moves: `D4`.",
        Variant::SacredHill2 => "**Tara: Sacred Hill, Level 2 (sacred-hill-2)**\n\
            As sacred-hill-1, but in Battle every vacant hill has an **order of priority** (how many of your \
            ringforts touch it) and every enemy ringfort you besiege has the priority of its number of \
            neighbours. You must play one with the highest priority, so a besieged ringfort may wait while an \
            equal or better hill is open. Always scored by kingdoms.",
        Variant::ArdRi => "**Ard Rí (ard-ri)**\n\
            7x7 tafl. 16 attackers surround 8 defenders and their king on the throne (d4); the attackers move \
            first. Every piece, the king too, moves **one square** along a rank or file; only the king may stop \
            on the throne or a corner. Trap an enemy between two of yours (or against an empty corner or \
            throne) to capture it. The armed king captures too. The **defenders win** when the king reaches a \
            corner; the **attackers win** by surrounding the king on all four sides (a king on the edge is safe). \
            No legal move loses; a third repetition is not allowed; 100 moves without a capture is a draw. \
            Moves: `d2-d3`.",
    }
}
