//! Wording shared by the bot's replies: seats, prompts, scores, rule summaries and help.

use super::buttons::Press;
use super::reply::escape_markdown;
use super::reply::{Button, ButtonStyle, OnTheWeb, Part, Reply, Retire, WebPage};
use crate::game::BySide;
use crate::game::{describe, Outcome, ParseMoveError, Player, Points, Position, Variant};
use crate::game::{Counts, GamePosition};
use crate::store::{ChannelId, ServerId, UserId};
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
    pub fn user(mut self, id: &UserId, name: &str) -> Builder {
        self.reply.parts.push(Part::User {
            id: id.clone(),
            name: name.to_string(),
        });
        self
    }
    /// A mention that pings (the bot's AI is never pinged: it is only named).
    pub fn ping(mut self, id: &UserId, name: &str) -> Builder {
        if id != AI_USER_ID && !self.reply.mentions.iter().any(|m| id == m) {
            self.reply.mentions.push(id.clone());
        }
        self.user(id, name)
    }
    /// Text a user wrote (a reason, a move as typed): escaped wherever it is read as Markdown.
    pub fn verbatim(mut self, t: impl Into<String>) -> Builder {
        self.reply.parts.push(Part::Verbatim(t.into()));
        self
    }
    pub fn channel(mut self, id: &ChannelId) -> Builder {
        self.reply.parts.push(Part::Channel(id.clone()));
        self
    }
    /// A button under the message: pressing it does what `press` asks.
    pub fn button(mut self, press: Press, label: &str, style: ButtonStyle) -> Builder {
        self.reply.buttons.push(Button {
            id: press.id(),
            label: label.to_string(),
            style,
        });
        self
    }
    /// A pair of buttons answering a question: `yes` (green), then `no` (red), each with its
    /// label.
    pub fn yes_no(self, yes: (Press, &str), no: (Press, &str)) -> Builder {
        self.button(yes.0, yes.1, ButtonStyle::Success)
            .button(no.0, no.1, ButtonStyle::Danger)
    }
    /// The new text of the message whose button was pressed (see [`Reply::pressed_message`]).
    pub fn pressed_message(mut self, text: Reply) -> Builder {
        self.reply.pressed_message = Some(text.parts);
        self
    }
    /// The message is about `page` of `server`'s on the web companion: it gets the "Open on
    /// the web" button when the server is on the web ([`Reply::web`]).
    pub fn on_the_web(mut self, server: &ServerId, page: WebPage) -> Builder {
        self.reply.web = Some(OnTheWeb::new(server, page));
        self
    }
    pub fn private(mut self) -> Builder {
        self.reply.ephemeral = true;
        self
    }
    pub fn build(self) -> Reply {
        self.reply
    }
    /// This, then what `more` holds: its text, its pings (each user pinged once) and its
    /// buttons.
    pub fn then(mut self, more: Builder) -> Builder {
        let more = more.reply;
        self.reply.parts.extend(more.parts);
        for m in more.mentions {
            if !self.reply.mentions.contains(&m) {
                self.reply.mentions.push(m);
            }
        }
        self.reply.buttons.extend(more.buttons);
        self
    }
}

/// The message of a draw offer in `game` by `offerer` (id, name), whose buttons are spent: it
/// says the offer was made, then `how` it ended (": declined by Brian.", " and lapsed when
/// Brian moved.").
pub fn draw_offer_closed(game: &GameRow, offerer: (&UserId, &str), how: Builder) -> Retire {
    let mut text = Builder::new()
        .user(offerer.0, offerer.1)
        .text(format!(" offered a draw in game {}", game.id.0))
        .build()
        .parts;
    text.extend(how.build().parts);
    Retire {
        channel: game.channel_id.clone(),
        button: Press::DrawYes(game.id).id(),
        text,
    }
}

/// Pings the players of a game who are people, in seat order with `sep` between them: the
/// bot's AI is neither pinged nor named.
pub fn ping_players(mut b: Builder, game: &GameRow, names: &BySide<String>, sep: &str) -> Builder {
    let people = game
        .sides()
        .into_iter()
        .filter(|&side| game.ai_levels[side].is_none());
    for (i, seat) in people.enumerate() {
        if i > 0 {
            b = b.text(sep);
        }
        b = b.ping(&game.seats[seat], &names[seat]);
    }
    b
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

/// Appends the points with the players named (as mentions that do not ping):
/// "@Aoife (Red) 4 – 1 @Brian (Blue)".
pub fn points_line(b: Builder, game: &GameRow, names: &BySide<String>, o: &Outcome) -> Builder {
    b.user(game.seats.first(), names.first())
        .text(format!(
            " ({}) {} – {} ",
            game.sides()[0].name(),
            o.points.first(),
            o.points.second()
        ))
        .user(game.seats.second(), names.second())
        .text(format!(" ({})", game.sides()[1].name()))
}

/// Kingdoms, knots, territory and kings captured of both Tara players, one line.
pub fn counts_line(pos: &Position) -> Option<String> {
    let counts = pos.side_counts()?;
    let (r, b): (Counts, Counts) = (counts[Player::Red], counts[Player::Blue]);
    let mut s = format!("Kingdoms {}–{}", r.kingdoms, b.kingdoms);
    if pos.options().scoring == crate::game::Scoring::Knots {
        s.push_str(&format!(" · knots {}–{}", r.knots, b.knots));
    }
    s.push_str(&format!(" · territory {}–{}", r.territory, b.territory));
    if pos.variant().has_kings() {
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
    describe::rules(variant)
}

/// Why typed text is no move (or no hill or square), the text as typed (quoted in the
/// message) escaped: it is text a user wrote.
pub(crate) fn said(e: &ParseMoveError) -> String {
    let message = e.to_string();
    match e {
        ParseMoveError::TooLong { text }
        | ParseMoveError::NotAHill { text }
        | ParseMoveError::NotASquare { text }
        | ParseMoveError::Unreadable { text, .. } => message.replacen(
            &format!("'{text}'"),
            &format!("'{}'", escape_markdown(text)),
            1,
        ),
        ParseMoveError::Empty { .. } | ParseMoveError::MissingCorner { .. } => message,
    }
}

/// "Legal moves: C3, D5 or E4 (and 12 more)."
pub(crate) fn legal_hint(pos: &Position) -> String {
    let legal = pos.legal_notation();
    const SHOW: usize = 8;
    let shown: Vec<&str> = legal.iter().take(SHOW).map(String::as_str).collect();
    let more = legal.len().saturating_sub(SHOW);
    let list = if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else if shown.len() > 1 {
        format!(
            "{} or {}",
            shown[..shown.len() - 1].join(", "),
            shown[shown.len() - 1]
        )
    } else {
        shown.join("")
    };
    format!("Legal moves: {list}.")
}

/// The title of a tournament, league or ladder in messages: its name in bold (escaped), then
/// its number after `kind` ("**Autumn** (ladder #2)", "**Open** (#7)").
pub(crate) fn event_title(name: &str, kind: &str, id: impl std::fmt::Display) -> String {
    format!("**{}** ({kind}{id})", escape_markdown(name))
}
