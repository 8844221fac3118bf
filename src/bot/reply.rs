//! What goes in and out of the bot core: who sent a command and where ([`Ctx`]), and the
//! messages that come back ([`Reply`]).

use super::board::{Board, BoardSpec};
use crate::store::{ChannelId, MessageId, ServerId, UserId};
use crate::store::{GameId, LadderId, LeagueId, TournamentId};

/// A user as the platform names them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct User {
    /// Stable id (a Discord snowflake, a console name).
    pub id: UserId,
    /// Display name.
    pub name: String,
}

impl User {
    /// A user from what the platform says: their id's text and their name.
    pub fn new(id: impl Into<String>, name: impl Into<String>) -> User {
        User {
            id: UserId::new(id),
            name: name.into(),
        }
    }

    /// A user the bot already knows by id (a seat, a ladder's player), with their name.
    pub fn of(id: UserId, name: impl Into<String>) -> User {
        User {
            id,
            name: name.into(),
        }
    }
}

/// The server of a command sent in a direct message with the bot (`Ctx::server`).
pub const DM_SERVER: &str = "dm";

/// Who sent a command, and where.
#[derive(Clone, Debug)]
pub struct Ctx {
    pub server: ServerId,
    /// The channel or thread the command was sent in.
    pub channel: ChannelId,
    pub user: User,
    /// Whether the user may moderate games on this server (abort any game): Manage Messages,
    /// Manage Server or Administrator.
    pub moderator: bool,
    /// Whether the user may change the server's settings: Manage Server or Administrator.
    pub manager: bool,
    /// The user's roles on the server (Discord role ids; names in the console).
    pub roles: Vec<String>,
}

/// A piece of reply text.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Part {
    /// Text with Markdown (`**bold**`, `` `code` ``).
    Text(String),
    /// A mention of a user (pings only if the user is in [`Reply::mentions`]).
    User { id: UserId, name: String },
    /// A reference to a channel or thread.
    Channel(ChannelId),
    /// Text a user wrote (a reason, a move as typed): shown exactly as written, never read as
    /// Markdown or as a mention.
    Verbatim(String),
}

/// Text made safe to show inside a Markdown message: every character Discord's Markdown
/// reads (emphasis, code, quotes, headings, lists, masked links, spoilers, mentions) is
/// escaped, `@everyone`/`@here` are broken with a zero-width space, and line breaks become
/// spaces. The one place user-written text is escaped.
pub fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' | '*' | '_' | '~' | '`' | '|' | '>' | '#' | '-' | '[' | ']' | '(' | ')' | '<'
            | ':' => {
                out.push('\\');
                out.push(c);
            }
            '@' => out.push_str("@\u{200B}"),
            '\n' | '\r' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// The zero-width joiner that [`escape_code`] puts between two backticks.
const CODE_JOINER: char = '\u{200D}';

/// Text made safe to show inside a code block: Discord ends a block at the first run of three
/// backticks in it, whatever fence opened it (a longer fence does not help), so a zero-width
/// joiner (U+200D) goes between every two backticks in a row. No two backticks touch, and the
/// text reads the same. The one place text inside a code block is escaped; [`code_block`]
/// uses it.
pub fn escape_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut last = None;
    for c in text.chars() {
        if c == '`' && last == Some('`') {
            out.push(CODE_JOINER);
        }
        out.push(c);
        last = Some(c);
    }
    out
}

/// `text` (a record, a table, a TRF file: it may hold names and other user text) as a code
/// block that nothing in it can close ([`escape_code`]): the fence, a line break, the text, a
/// line break unless the text ends with one, the fence.
pub fn code_block(text: &str) -> String {
    let body = escape_code(text);
    let end = if body.ends_with('\n') { "" } else { "\n" };
    format!("```\n{body}{end}```")
}

/// How a button looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ButtonStyle {
    Primary,
    Secondary,
    Success,
    Danger,
}

/// A button under a message; pressing it runs `Command::from_button(id)`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Button {
    pub id: String,
    pub label: String,
    pub style: ButtonStyle,
}

/// A button that opens an address instead of running a command (Discord's link button): the
/// last button under a message.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LinkButton {
    pub label: String,
    /// An absolute `http(s)://` address.
    pub url: String,
}

/// The label of the link to a message's page on the web companion.
pub const OPEN_ON_THE_WEB: &str = "Open on the web";

/// A page of the web companion (`tara-bot web`), by its path: the routes of `src/web/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WebPage {
    /// A game's page (`/g/123`), at the position after `ply` moves when given
    /// (`/g/123?ply=17`).
    Game { id: GameId, ply: Option<u32> },
    /// A tournament's page, a league division's included (`/t/7`).
    Tournament(TournamentId),
    /// A league's page (`/l/3`).
    League(LeagueId),
    /// A ladder's page (`/ladder/2`).
    Ladder(LadderId),
    /// The server's front page (`/s/<server id>`).
    Server,
}

impl WebPage {
    /// A game's page as it stands.
    pub fn game(id: GameId) -> WebPage {
        WebPage::Game { id, ply: None }
    }

    /// The page's path on the site, from its `/`, for a page of `server`'s.
    pub fn path(&self, server: &ServerId) -> String {
        match self {
            WebPage::Game { id, ply: None } => format!("/g/{}", id.0),
            WebPage::Game { id, ply: Some(p) } => format!("/g/{}?ply={p}", id.0),
            WebPage::Tournament(id) => format!("/t/{}", id.0),
            WebPage::League(id) => format!("/l/{}", id.0),
            WebPage::Ladder(id) => format!("/ladder/{}", id.0),
            WebPage::Server => format!("/s/{}", server.as_str()),
        }
    }
}

/// What a message is about on the web companion: a page of `server`'s. The bot core turns it
/// into the message's [`Reply::link`] when the bot knows the site's address (`web_url`) and
/// the server has put its games on the web (`/settings web:true`); otherwise it is dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OnTheWeb {
    pub server: ServerId,
    pub page: WebPage,
}

impl OnTheWeb {
    pub fn new(server: &ServerId, page: WebPage) -> OnTheWeb {
        OnTheWeb {
            server: server.clone(),
            page,
        }
    }
}

/// A message of the bot's whose buttons are spent (a challenge answered with a typed command,
/// or expired): the adapter finds it among the recent messages of `channel` by the id of one of
/// its buttons, puts `text` in place of its text and takes its buttons away, pinging nobody.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Retire {
    /// The channel (or thread) the message is in.
    pub channel: ChannelId,
    /// The id of one of its buttons (`accept:3`).
    pub button: String,
    /// Its new text.
    pub text: Vec<Part>,
}

impl Retire {
    /// The message's new text, with mentions and channels written by the adapter's functions.
    pub fn text_with(&self, user: impl Mention, channel: impl ChannelRef) -> String {
        write_parts(&self.text, Medium::Markdown, user, channel)
    }
}

/// An image attached to a reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    pub filename: String,
    pub bytes: Vec<u8>,
}

/// A long text a reply can also be sent as: a game record as a `.txt` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Document {
    /// The file's name (`game-12.txt`).
    pub filename: String,
    /// The file's content: the text whole, without Markdown.
    pub text: String,
    /// The message that goes with the file, in place of the reply's text.
    pub note: String,
    /// Always sent as a file, however short (`/export`); otherwise only a text too long for
    /// one message goes as the file (`/record`).
    pub always: bool,
}

/// One message from the bot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    pub parts: Vec<Part>,
    pub image: Option<Attachment>,
    /// The board it shows, as stored to draw it (`image` and `board_text` are drawn from it).
    pub board: Option<BoardSpec>,
    /// Exactly the users this message may ping.
    pub mentions: Vec<UserId>,
    /// Only the user who sent the command sees it.
    pub ephemeral: bool,
    pub buttons: Vec<Button>,
    /// A button that opens an address, after [`Reply::buttons`]: "Open on the web", made by the
    /// bot core from [`Reply::web`]. Adapters show it (Discord: a link button; the console: the
    /// address); the outbox stores it.
    pub link: Option<LinkButton>,
    /// The page of the web companion this message is about, for the bot core to make into
    /// [`Reply::link`] before the message is stored or handed out (then it is `None`).
    pub web: Option<OnTheWeb>,
    /// The board drawn as text, when the reply shows a board (terminals).
    pub board_text: Option<String>,
    /// Post in this channel instead of answering the command (scheduled messages).
    pub channel: Option<ChannelId>,
    /// Send privately to this user instead (reminders by direct message); with `channel`
    /// too, the channel is where it goes when the user takes no direct messages.
    pub dm: Option<UserId>,
    /// When the command came from a pressed button: the new text of the message that carried
    /// the button (a challenge, once answered, stops asking to be accepted). Adapters put it in
    /// place of that message's text when they take its buttons away; `None` leaves the text.
    pub pressed_message: Option<Vec<Part>>,
    /// When the command came from a pressed button: this reply takes the place of the pressed
    /// button's message, text and buttons (a page of `/history` replacing the page before).
    /// Private, read-only replies only; adapters that cannot edit show it as a new message.
    pub replaces_pressed: bool,
    /// The message's entry in the outbox: a message the bot owes, stored with the change that
    /// caused it. The adapter reports its delivery with [`crate::bot::Bot::delivered`] (or
    /// [`crate::bot::Bot::delivery_failed`]); the id is also its idempotency key.
    pub outbox: Option<MessageId>,
    /// The reply's text as a file (a game record). An adapter whose messages cannot hold the
    /// text in one piece (Discord) sends the file with [`Document::note`] instead of the text;
    /// one that can (the console) shows the text. Read-only answers only: the outbox does not
    /// store it.
    pub document: Option<Document>,
    /// A channel to archive once this message is posted: the thread of a challenge that was
    /// declined, cancelled or expired and holds no game. Adapters archive it only if it is a
    /// thread they opened themselves; `None` archives nothing.
    pub archive_channel: Option<ChannelId>,
    /// An earlier message whose buttons this one makes useless ([`Retire`]); done after this
    /// message is posted. Unlike [`Reply::pressed_message`], it is kept in the outbox.
    pub retire: Option<Retire>,
    /// The message goes in a thread the bot opens for it (a tournament game's): `channel` is
    /// then the thread's stable key, a pseudo-channel. An adapter that has threads opens it
    /// once in [`ThreadRequest::parent`], reports it with [`crate::bot::Bot::thread_opened`],
    /// and posts there (and in the thread [`crate::bot::Bot::thread_of`] names, when it is
    /// already open); the console shows the key as a channel of its own.
    pub thread: Option<ThreadRequest>,
    /// The message is an edit: its text replaces the text of the owed message with this
    /// outbox id (an analysis's progress message), once that one is posted. Adapters look the
    /// posted message up with [`crate::bot::Bot::edit_target`]; only the latest edit of a
    /// message is delivered (a newer one supersedes those still owed).
    pub edits: Option<MessageId>,
    /// The message will be edited later: an adapter that posts it as a command's response
    /// (whose id it does not get back) looks its id up, to report it with
    /// [`crate::bot::Bot::delivered_as`].
    pub editable: bool,
}

/// A thread to open for a message ([`Reply::thread`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ThreadRequest {
    /// Its stable key (`t3-r2-b1`: tournament 3, round 2, board 1): the pseudo-channel the
    /// bot core addresses until the thread exists.
    pub key: String,
    /// The channel to open it in.
    pub parent: ChannelId,
    /// Its name ("R2 · Aoife vs Brian").
    pub name: String,
}

/// How parts are written out: as Markdown (Discord), as stored (tests, logs), or for a
/// terminal, which shows Markdown's marks rather than reading them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Medium {
    Markdown,
    Plain,
    Terminal,
}

/// The bot's own Markdown text as a terminal shows it: bold marks (`**`) dropped, and what
/// [`escape_markdown`] does to names and other user text undone (`mary\_jane` reads
/// `mary_jane`, `@`'s zero-width space goes). Code (between runs of backticks, as a record or
/// a TRF file is shown) is left as it is, but for what [`escape_code`] put in it (the joiners
/// between backticks).
fn unmarked(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '`' {
            // A code span or block: copied whole, to the closing run of as many backticks.
            let run = chars[i..].iter().take_while(|&&c| c == '`').count();
            let close = (i + run..chars.len()).find(|&j| {
                chars[j..].iter().take_while(|&&c| c == '`').count() == run
                    && (j == 0 || chars[j - 1] != '`')
            });
            let end = close.map_or(chars.len(), |j| j + run);
            for j in i..end {
                let joiner = chars[j] == CODE_JOINER
                    && j > i
                    && chars[j - 1] == '`'
                    && chars.get(j + 1) == Some(&'`');
                if !joiner {
                    out.push(chars[j]);
                }
            }
            i = end;
        } else if c == '\\' && i + 1 < chars.len() && "\\*_~`|>#-[]()<:".contains(chars[i + 1]) {
            out.push(chars[i + 1]);
            i += 2;
        } else if c == '*' && chars.get(i + 1) == Some(&'*') {
            i += 2;
        } else if c == '@' && chars.get(i + 1) == Some(&'\u{200B}') {
            out.push('@');
            i += 2;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// How an adapter writes a mention: from the user's id and name (`<@id>`, `@name`).
pub trait Mention: Fn(&str, &str) -> String {}
impl<F: Fn(&str, &str) -> String> Mention for F {}

/// How an adapter writes a reference to a channel, from its id (`<#id>`, `#id`).
pub trait ChannelRef: Fn(&str) -> String {}
impl<F: Fn(&str) -> String> ChannelRef for F {}

/// Parts written out as text, mentions and channels by the adapter's functions: the one helper
/// every `…text_with` and `markdown_with` calls. As Markdown, user-written parts are escaped
/// ([`escape_markdown`]).
fn write_parts(
    parts: &[Part],
    medium: Medium,
    user: impl Mention,
    channel: impl ChannelRef,
) -> String {
    let markdown = medium == Medium::Markdown;
    let mut s = String::new();
    for p in parts {
        match p {
            Part::Text(t) if medium == Medium::Terminal => s.push_str(&unmarked(t)),
            Part::Text(t) => s.push_str(t),
            Part::User { id, name } => s.push_str(&user(id.as_str(), name)),
            Part::Channel(c) => s.push_str(&channel(c.as_str())),
            Part::Verbatim(t) if markdown => s.push_str(&escape_markdown(t)),
            Part::Verbatim(t) => s.push_str(t),
        }
    }
    s
}

impl Reply {
    /// Shows `board` on a reply that is not stored: the text board, and when `image` the
    /// picture. (An owed reply stores its text board and `BoardSpec` in its transaction and gets
    /// its picture from [`Reply::draw_picture`] after the commit.)
    pub(crate) fn draw(&mut self, board: &Board, image: bool) {
        self.board_text = Some(board.text());
        if image {
            self.draw_picture(board);
        }
    }

    /// Puts the picture of `board` on this reply.
    pub(crate) fn draw_picture(&mut self, board: &Board) {
        self.image = Some(Attachment {
            filename: board.filename.clone(),
            bytes: board.png(),
        });
    }

    /// Puts `head`'s text before this reply's, and its mentions with this reply's (each once).
    pub(crate) fn prepend(&mut self, head: Reply) {
        let mut parts = head.parts;
        parts.append(&mut self.parts);
        self.parts = parts;
        for m in head.mentions {
            if !self.mentions.contains(&m) {
                self.mentions.push(m);
            }
        }
    }
}

impl Reply {
    /// The text, with mentions and channels written by the adapter's functions, and
    /// user-written text as written (terminals).
    pub fn text_with(&self, user: impl Mention, channel: impl ChannelRef) -> String {
        write_parts(&self.parts, Medium::Plain, user, channel)
    }

    /// The text as a terminal shows it (the console): [`Reply::text_with`] without the
    /// Markdown of the bot's own text (bold marks, escapes), user-written text as written.
    pub fn terminal_text_with(&self, user: impl Mention, channel: impl ChannelRef) -> String {
        write_parts(&self.parts, Medium::Terminal, user, channel)
    }

    /// The new text of the pressed button's message as a terminal shows it.
    pub fn pressed_terminal_text_with(
        &self,
        user: impl Mention,
        channel: impl ChannelRef,
    ) -> Option<String> {
        self.pressed(Medium::Terminal, user, channel)
    }

    /// The text as Markdown (Discord): [`Reply::text_with`] with user-written text escaped.
    pub fn markdown_with(&self, user: impl Mention, channel: impl ChannelRef) -> String {
        write_parts(&self.parts, Medium::Markdown, user, channel)
    }

    /// The new text of the pressed button's message ([`Reply::pressed_message`]), written
    /// with the adapter's functions.
    pub fn pressed_text_with(
        &self,
        user: impl Mention,
        channel: impl ChannelRef,
    ) -> Option<String> {
        self.pressed(Medium::Markdown, user, channel)
    }

    /// The new text of the pressed button's message, if any, written for `medium`.
    fn pressed(
        &self,
        medium: Medium,
        user: impl Mention,
        channel: impl ChannelRef,
    ) -> Option<String> {
        let parts = self.pressed_message.as_ref()?;
        Some(write_parts(parts, medium, user, channel))
    }

    /// The text with `@name` mentions and `#channel` references (console, logs, tests).
    pub fn plain_text(&self) -> String {
        self.text_with(|_, name| format!("@{name}"), |c| format!("#{c}"))
    }

    /// An error or notice only the sender sees.
    pub fn private(text: impl Into<String>) -> Reply {
        Reply {
            parts: vec![Part::Text(text.into())],
            ephemeral: true,
            ..Reply::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_text_is_escaped_only_where_it_is_read_as_markdown() {
        assert_eq!(
            escape_markdown("[a](http://x) *b* `c` <@1> @here\nd"),
            "\\[a\\]\\(http\\://x\\) \\*b\\* \\`c\\` \\<@\u{200B}1\\> @\u{200B}here d"
        );
        let r = Reply {
            parts: vec![
                Part::Text("**Reason:** ".into()),
                Part::Verbatim("_hi_".into()),
            ],
            ..Reply::default()
        };
        assert_eq!(
            r.markdown_with(|_, n| n.into(), |c| c.into()),
            "**Reason:** \\_hi\\_"
        );
        assert_eq!(r.plain_text(), "**Reason:** _hi_");
    }

    /// Text in a code block: Discord closes a block at the first ``` in it, whatever the fence,
    /// so no two backticks may touch; a terminal shows the text as written again.
    #[test]
    fn no_text_closes_a_code_block_and_a_terminal_shows_it_as_written() {
        let name = "[Nitro](https://evil.example) @everyone ``` **x** ``";
        assert_eq!(
            escape_code(name),
            "[Nitro](https://evil.example) @everyone `\u{200D}`\u{200D}` **x** `\u{200D}`"
        );
        assert_eq!(escape_code("a`b ` c"), "a`b ` c");
        let block = code_block(&format!("# {name}\nmoves: D4"));
        assert_eq!(block.matches("```").count(), 2, "{block}");
        assert!(block.starts_with("```\n# [Nitro]") && block.ends_with("moves: D4\n```"));
        // A text that ends with a line break gets no second one; one ending in a backtick
        // cannot lengthen the closing fence.
        assert_eq!(code_block("a\n"), "```\na\n```");
        assert_eq!(code_block("a`"), "```\na`\n```");
        let r = Reply {
            parts: vec![Part::Text(format!("**Record**:\n{block} and `x`"))],
            ..Reply::default()
        };
        assert_eq!(
            r.terminal_text_with(|_, n| n.into(), |c| c.into()),
            format!("Record:\n```\n# {name}\nmoves: D4\n``` and `x`")
        );
    }

    /// A terminal shows the bot's text without its Markdown (bold marks, the escapes put
    /// before names), and user-written text exactly as written, asterisks included.
    #[test]
    fn a_terminal_shows_names_and_user_text_as_written() {
        let name = "mary_jane **x** a\\b";
        let r = Reply {
            parts: vec![
                Part::Text(format!("**Resign** against {}? ", escape_markdown(name))),
                Part::Verbatim("**bold** \\_".into()),
            ],
            ..Reply::default()
        };
        assert_eq!(
            r.terminal_text_with(|_, n| n.into(), |c| c.into()),
            format!("Resign against {name}? **bold** \\_")
        );
        // Code is shown as it is: a record's names are not escaped in it, so nothing is undone.
        let r = Reply {
            parts: vec![Part::Text(
                "**Record** of @\u{200B}bob:\n```\n# a\\_b **c**\n```\nand `x\\_y` \\_z".into(),
            )],
            ..Reply::default()
        };
        assert_eq!(
            r.terminal_text_with(|_, n| n.into(), |c| c.into()),
            "Record of @bob:\n```\n# a\\_b **c**\n```\nand `x\\_y` _z"
        );
    }
}
