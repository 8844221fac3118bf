//! The table of commands: every command is declared here once, with its name, description,
//! typed options, whether its answer is private, and its handler. Discord registration and
//! option parsing, the console's parsing and usage lines, and `/help` are all made from it.
//!
//! Adding a command is one entry here plus one handler (a function of its capability taking
//! the bot and the typed options in order, or, for an entry marked `as SomeOptions`, one
//! struct of them).

use super::buttons::{Press, NEVER_EXPIRES};
use super::draws::DrawAnswer;
use super::ladders::LadderOptions;
use super::leagues::LeagueOptions;
use super::options::{ChallengeOptions, OptionSpec, Param, Values};
use super::play::TakebackAnswer;
use super::reply::{Ctx, Reply, User};
use super::session::{server_rate_limit, Bot, Fail, Out, Outcome, DEFAULT_RATE_LIMIT};
use super::settings::SettingsOptions;
use super::time::TimeControl;
use super::tournaments::{CreateOptions, TournamentSystem};
use crate::game::{Scoring, Variant};
use crate::store::{ChallengeId, LadderId, LeagueId, TournamentId};
use crate::store::{FirstChoice, GameId, Pace};

/// One command as adapters offer it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// Only the user who sent it sees the answer.
    pub private: bool,
    /// It may be used in a direct message with the bot (`/help`, `/rules`); every other
    /// command works only in a server's channels.
    pub in_dms: bool,
    pub options: Vec<OptionSpec>,
}

impl CommandSpec {
    /// `/challenge opponent variant [scoring] …` (options that are not hidden).
    pub fn usage(&self) -> String {
        let mut s = format!("/{}", self.name);
        for o in self.options.iter().filter(|o| !o.hidden) {
            s.push(' ');
            s.push_str(&o.usage());
        }
        s
    }

    /// The option called `name`.
    pub fn option(&self, name: &str) -> Option<&OptionSpec> {
        self.options.iter().find(|o| o.name == name)
    }

    /// A subcommand's group and own name: `("tournament", "create")` for
    /// `/tournament create`; `None` for a command of its own.
    pub fn subcommand(&self) -> Option<(&'static str, &'static str)> {
        self.name.split_once(' ')
    }
}

/// Commands made of subcommands (Discord's `SUB_COMMAND` options), with the description of
/// the group. Each subcommand is an entry of the table named `"group sub"`.
pub const GROUPS: &[(&str, &str)] = &[
    (
        "tournament",
        "Tournaments: create, join, start, follow and export them",
    ),
    (
        "conditional",
        "Conditional moves: replies played at once if your opponent plays as you expect",
    ),
    (
        "ladder",
        "Ladders: challenge the players above you and climb",
    ),
    (
        "league",
        "Leagues: seasons of divisions with promotion and relegation",
    ),
];

/// The description of a group of subcommands, if `name` is one.
pub fn group(name: &str) -> Option<&'static str> {
    GROUPS.iter().find(|(g, _)| *g == name).map(|(_, d)| *d)
}

/// Whether a table entry is marked `@dm` (allowed in direct messages); any other mark does not
/// compile.
macro_rules! in_dms {
    () => {
        false
    };
    (dm) => {
        true
    };
}

/// Declares the commands: the [`Command`] enum, [`table`], [`Command::parse`] and the
/// dispatch to the handlers. An entry reads
///
/// ```ignore
/// Variant = "name", "Description", private: false, module::handler {
///     field: Type = "option-name", "Option description" .min(1);
/// } @edge {
///     field: Type = "option-name", "Read by the adapter, not passed to the handler";
/// }
/// ```
///
/// where `@edge { … }` (options read by an adapter, such as Discord's `thread`) is optional,
/// and `private: … @dm, module::handler` marks a command that also works in a direct
/// message with the bot (without it, a command is refused there). `module::handler as Options {`
/// hands the options (all but the `@edge` ones) to the handler as one struct, `Options {
/// field, … }`, instead of one argument each.
macro_rules! commands {
    ( $(
        $(#[$meta:meta])*
        $variant:ident = $name:literal, $desc:literal, private: $private:literal $( @ $dm:ident )?, $handler:path $( as $opts:ident )? {
            $( $field:ident : $ty:ty = $oname:literal, $odesc:literal $( . $m:ident ( $($arg:expr),* ) )* ; )*
        } $( @edge {
            $( $efield:ident : $ety:ty = $eoname:literal, $eodesc:literal $( . $em:ident ( $($earg:expr),* ) )* ; )*
        } )?
    )* ) => {
        /// Everything a user can ask of the bot, with typed options.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub enum Command { $(
            $(#[$meta])*
            $variant { $( $field: $ty, )* $( $( $efield: $ety, )* )? },
        )* }

        /// Every command, in the order they are offered.
        pub fn table() -> Vec<CommandSpec> {
            vec![ $( CommandSpec {
                name: $name,
                description: $desc,
                private: $private,
                in_dms: in_dms!($( $dm )?),
                options: vec![
                    $( OptionSpec::of::<$ty>($oname, $odesc) $( . $m ( $($arg),* ) )*, )*
                    $( $( OptionSpec::of::<$ety>($eoname, $eodesc) $( . $em ( $($earg),* ) )*, )* )?
                ],
            }, )* ]
        }

        impl Command {
            /// The command's name (`challenge`).
            pub fn name(&self) -> &'static str {
                match self { $( Command::$variant { .. } => $name, )* }
            }

            /// Whether only the sender sees the answer.
            pub fn is_private(&self) -> bool {
                match self { $( Command::$variant { .. } => $private, )* }
            }

            /// Whether it may be used in a direct message with the bot (else only in a
            /// server's channels).
            pub fn allowed_in_dms(&self) -> bool {
                match self { $( Command::$variant { .. } => in_dms!($( $dm )?), )* }
            }

            /// Reads a command from raw option values (each checked against its option).
            pub fn parse(name: &str, values: &Values) -> Result<Command, String> {
                match name { $(
                    $name => {
                        let specs = table()
                            .into_iter()
                            .find(|c| c.name == $name)
                            .map(|c| c.options)
                            .unwrap_or_default();
                        check_values(&specs, values)?;
                        Ok(Command::$variant {
                            $( $field: <$ty as Param>::read(values.get($oname), $oname)?, )*
                            $( $( $efield: <$ety as Param>::read(values.get($eoname), $eoname)?, )* )?
                        })
                    }
                )*
                    other => Err(format!("Unknown command /{other}; `/help` lists the commands.")),
                }
            }
        }

        impl Bot {
            fn run(&self, ctx: &Ctx, cmd: Command) -> Outcome<Vec<Out>> {
                match cmd { $(
                    Command::$variant { $( $field, )* .. } => {
                        call!(self, ctx, $handler, [$( $opts )?], $( $field ),*)
                    }
                )* }
            }
        }
    };
}

/// A handler's call from a command's options: one argument each, or one struct of them.
macro_rules! call {
    ($bot:expr, $ctx:expr, $handler:path, [], $( $field:ident ),*) => {
        $handler($bot, $ctx, $( $field ),*)
    };
    ($bot:expr, $ctx:expr, $handler:path, [$opts:ident], $( $field:ident ),*) => {
        $handler($bot, $ctx, $opts { $( $field ),* })
    };
}

/// Checks raw values against the options they name.
fn check_values(specs: &[OptionSpec], values: &Values) -> Result<(), String> {
    for name in values.names() {
        let spec = specs
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| format!("`{name}` is not an option of this command."))?;
        if let Some(v) = values.get(name) {
            spec.check(v)?;
        }
    }
    Ok(())
}

commands! {
    /// Challenge `opponent` to a game (or a two-game match) in this channel; without an
    /// opponent, an open challenge anyone else may accept.
    Challenge = "challenge", "Challenge someone to a game (no opponent: anyone may accept)", private: false, super::lobby::challenge as ChallengeOptions {
        opponent: Option<User> = "opponent", "Who to play (leave out for an open challenge anyone may accept)";
        variant: Variant = "variant", "Which game";
        scoring: Option<Scoring> = "scoring", "Kingdoms (default) or knots (hkot-1 and sacred-hill-1)";
        first: Option<FirstChoice> = "first", "Who moves first (default: drawn by lot)";
        days: Option<TimeControl> = "days", "Days per move (default: the server's setting)";
        is_match: bool = "match", "A two-game match, each player starting one (default: a single game)";
        rated: Option<bool> = "rated", "Rated: counts for the server's ratings (default: yes)";
    } @edge {
        thread: Option<bool> = "thread", "Play in a new thread of this channel (default: yes)";
    }
    /// A game against the bot's AI in this channel (never rated).
    PlayAi = "play-ai", "Play a game against the bot's AI (never rated)", private: false, super::ai_games::play_ai {
        variant: Variant = "variant", "Which game";
        level: Option<u32> = "level", "1 learning the rules, 2 beginner, 3 casual (default), 4 club player, 5 strongest" .min(1) .max(5);
        first: Option<FirstChoice> = "first", "Who moves first: me, opponent (the AI) or random (default)";
        scoring: Option<Scoring> = "scoring", "Kingdoms (default) or knots (hkot-1 and sacred-hill-1)";
    } @edge {
        thread: Option<bool> = "thread", "Play in a new thread of this channel (default: yes)";
    }
    /// Accept a challenge (the newest one addressed to you here when no number is given).
    Accept = "accept", "Accept a challenge", private: false, super::lobby::accept {
        challenge: Option<ChallengeId> = "challenge", "Challenge number (default: the newest one to you here)" .min(1);
    }
    Decline = "decline", "Decline a challenge", private: false, super::lobby::decline {
        challenge: Option<ChallengeId> = "challenge", "Challenge number (default: the newest one to you here)" .min(1);
    }
    /// Withdraw your challenge.
    Cancel = "cancel", "Withdraw your challenge", private: false, super::lobby::cancel {
        challenge: Option<ChallengeId> = "challenge", "Challenge number (default: your newest one here)" .min(1);
    }
    /// Play a move in this channel's game.
    Move = "move", "Play a move in this channel's game", private: false, super::play::play_move {
        text: String = "move", "e.g. D4, G2-E3, C5-B3*, d2-d3" .autocomplete() .max_length(32) .rest();
        game: Option<GameId> = "game", "Which game, as in #123, when this thread holds several of yours" .min(1) .autocomplete();
    }
    Pass = "pass", "Pass (only when the rules allow it)", private: false, super::play::pass {
        game: Option<GameId> = "game", "Which game, as in #123, when this thread holds several of yours" .min(1) .autocomplete();
    }
    /// Resign; without `confirmed` the bot asks first (a button confirms).
    Resign = "resign", "Resign this channel's game (asks first)", private: false, super::play::resign {
        confirmed: bool = "confirm", "Resign without asking again" .hidden();
        game: Option<GameId> = "game", "Which game, as in #123, when this thread holds several of yours" .min(1) .autocomplete();
    }
    /// The board now, or after `ply` moves.
    Board = "board", "Show the board now, or after a given move", private: false, super::info::board {
        ply: Option<u32> = "ply", "Show the position after this many moves" .min(0);
        marks: Option<String> = "marks", "Hills or squares to highlight, e.g. D4 E5" .max_length(100);
        arrows: Option<String> = "arrows", "Arrows to draw, e.g. G2-E3 C4-C6" .max_length(100);
        game: Option<GameId> = "game", "Which game, as in #123, when this thread holds several of yours" .min(1) .autocomplete();
    }
    /// A game by its number, from any channel of this server.
    Game = "game", "Show any game of this server by its number (#123)", private: false, super::info::game {
        id: GameId = "id", "The game's number, as in #123" .min(1);
        ply: Option<u32> = "ply", "Show the position after this many moves" .min(0);
        marks: Option<String> = "marks", "Hills or squares to highlight, e.g. D4 E5" .max_length(100);
        arrows: Option<String> = "arrows", "Arrows to draw, e.g. G2-E3 C4-C6" .max_length(100);
        drawn: Option<u32> = "drawn", "When the stepping buttons pressed were shown (Unix seconds)" .hidden();
        shared: bool = "shared", "Whether those buttons are under a public message" .hidden();
    }
    /// The game record as importable text.
    Record = "record", "The game record (importable)", private: false, super::info::record {
        game: Option<GameId> = "game", "Which game, as in #123, when this thread holds several of yours" .min(1) .autocomplete();
    }
    /// Whose turn, since when, and the score so far.
    Status = "status", "Whose turn, since when, and the score", private: true, super::info::status {
        game: Option<GameId> = "game", "Which game, as in #123, when this thread holds several of yours" .min(1) .autocomplete();
    }
    /// Your active games everywhere.
    Games = "games", "Your games in progress", private: true, super::info::games {}
    /// A summary of a variant's rules.
    Rules = "rules", "The rules: a short summary, or the full rules page by page", private: true @dm, super::info::rules {
        variant: Option<Variant> = "variant", "Which game";
        page: Option<u32> = "page", "A page of the full rules (the buttons turn them)" .min(0) .max(1000);
    }
    Help = "help", "What tara-bot can do", private: true @dm, Bot::help {}
    /// Abort this channel's game (before any move, or by a moderator).
    Abort = "abort", "Call off this channel's game before the first move (moderators: any time, ending a match)", private: false, super::play::abort {
        reason: Option<String> = "reason", "Moderators: why (shown to the players and in the audit log)" .max_length(200);
        game: Option<GameId> = "game", "Which game, as in #123, when this thread holds several of yours" .min(1) .autocomplete();
    }
    /// Moderators: the server's latest moderator actions; Manage Server: where each is posted.
    Audit = "audit", "Moderators: the latest moderator actions; Manage Server: where each new one is posted", private: true, super::moderation::audit {
        log: Option<super::moderation::AuditLog> = "log", "Manage Server: post each new entry in this channel, or stop";
    }
    /// Pause all your clocks for some days, or end your vacation early; with no game with a
    /// clock in progress the bot asks first (a button confirms).
    Vacation = "vacation", "Pause all your clocks for some days (14 in any 365), or end your vacation early", private: false, super::clocks::vacation {
        days: Option<u32> = "days", "How many days" .min(1) .max(14);
        end: bool = "end", "End your vacation now; the whole days not begun come back";
        confirmed: bool = "confirm", "Take it even with no game with a clock in progress" .hidden();
    }
    /// Show or change settings: your reminders; Manage Server: the server's default days per
    /// move, first-reminder delay, and limits (challenge expiry, open challenges, command rate,
    /// games against the AI).
    Settings = "settings", "Your reminders and daily digest; Manage Server: the server's clock defaults and limits", private: true, super::settings::settings as SettingsOptions {
        reminders: Option<super::clocks::Reminders> = "reminders", "Where reminders reach you";
        digest: Option<String> = "digest", "A daily direct message of your games on move, at HH:MM (or off)" .max_length(10);
        tz: Option<String> = "tz", "Your time zone for the digest, e.g. Europe/Dublin (default UTC)" .max_length(64);
        default_days: Option<TimeControl> = "default-days", "Manage Server: the server's default days per move";
        reminder_hours: Option<u32> = "reminder-hours", "Manage Server: hours before the first reminder" .min(1) .max(168);
        challenge_days: Option<u32> = "challenge-days", "Manage Server: days an unanswered challenge stays open (default 7)" .min(1) .max(90);
        max_challenges: Option<u32> = "max-challenges", "Manage Server: open challenges per player (default 10)" .min(1) .max(100);
        rate_limit: Option<u32> = "rate-limit", "Manage Server: commands per player per 10 seconds (default 10)" .min(1) .max(100);
        max_ai_games: Option<u32> = "max-ai-games", "Manage Server: games against the AI in progress per player (default 3)" .min(1) .max(20);
        tournament_role: Option<String> = "tournament-role", "Manage Server: a role whose members may create tournaments (@role; \"moderators\": only moderators)" .max_length(100);
        rules_url: Option<String> = "rules-url", "Manage Server: a link to the server's own rules, given with /rules (- removes it)" .max_length(200);
        web: Option<bool> = "web", "Manage Server: show this server's games on the web companion (true), or hide them all (false)";
    }
    /// The server's best players of a game (rated games in the last 90 days).
    Leaderboard = "leaderboard", "The server's best rated players of a game", private: false, super::ratings::leaderboard {
        variant: Option<Variant> = "variant", "Which game (default: the most played)";
    }
    /// A player's ratings, results and games in progress on this server.
    Profile = "profile", "A player's ratings, results and games in progress", private: false, super::ratings::profile {
        user: Option<User> = "user", "Whose profile (default: yours)";
    }
    /// Ask to take back your last move, or answer your opponent's request.
    Takeback = "takeback", "Ask to take back your last move, or answer such a request", private: false, super::play::takeback {
        answer: Option<TakebackAnswer> = "answer", "Answer your opponent's request";
        game: Option<GameId> = "game", "Which game, as in #123, when this thread holds several of yours" .min(1) .autocomplete();
    }
    // The archive and discussion (`archive.rs`, `discussion.rs`).
    /// Any game of this server as an animated GIF.
    Replay = "replay", "Any game of this server (#123) as an animated replay", private: false, super::archive::replay {
        id: GameId = "id", "The game's number, as in #123" .min(1);
    }
    /// Any game of this server's record as a file.
    Export = "export", "Any game of this server (#123) as a record file (importable)", private: true, super::archive::export {
        id: GameId = "id", "The game's number, as in #123" .min(1);
    }
    /// Your private note on a game: written with `text` (`-` deletes it), shown without.
    Note = "note", "Your private note on a game: write it, or read it (only you ever see it)", private: true, super::notes::note {
        text: Option<String> = "text", "The note (replaces the one before; - deletes it)" .max_length(1500);
        game: Option<GameId> = "game", "Which game, as in #123 (default: this channel's)" .min(1);
    }
    // Conditional moves (`conditionals.rs`): the subcommands of `/conditional`, all private.
    /// Stores a line: the opponent's expected move, the reply, and so on.
    ConditionalAdd = "conditional add", "On your opponent's turn: moves to play if they play as you expect (private)", private: true, super::conditionals::add {
        line: String = "line", "Their move, your reply, and so on: E3 D5 F2 C4 = if E3 then D5, then if F2 then C4" .max_length(400);
        game: Option<GameId> = "game", "Which game, as in #123, when this thread holds several of yours" .min(1) .autocomplete();
    }
    /// The caller's lines as a tree, with the board of the main line.
    ConditionalList = "conditional list", "Your conditional moves in this channel's game, with the board of the main line", private: true, super::conditionals::list {
        game: Option<GameId> = "game", "Which game, as in #123, when this thread holds several of yours" .min(1) .autocomplete();
    }
    /// Removes the caller's lines.
    ConditionalClear = "conditional clear", "Remove your conditional moves in this channel's game", private: true, super::conditionals::clear {
        game: Option<GameId> = "game", "Which game, as in #123, when this thread holds several of yours" .min(1) .autocomplete();
    }
    /// A finished game of this server weighed move by move by the AI, in the background.
    Analyse = "analyse", "Analyse a finished game (#123): the largest swings, a chart, the worst moment", private: false, super::analysis::analyse {
        id: GameId = "id", "The game's number, as in #123 (finished games only)" .min(1);
        level: Option<u32> = "level", "The AI's level, 3 (default) to 5 (deepest); 1 and 2 search too little to judge" .min(1) .max(5);
    }
    /// Finished games of a player on this server, page by page (buttons turn the pages).
    History = "history", "Finished games of a player on this server, newest first", private: true, super::archive::history {
        user: Option<User> = "user", "Whose games (default: yours)";
        variant: Option<Variant> = "variant", "Only games of this variant";
        page: Option<u32> = "page", "Which page (the buttons turn them)" .min(1) .max(1000) .hidden();
    }
    /// A board for discussion from a pasted record or move list; no game is created.
    Position = "position", "Post a board from a pasted record or move list (no game is created)", private: false, super::discussion::position {
        record: String = "record", "A record (as /record or /export give it) or a move list" .max_length(6000) .rest();
        variant: Option<Variant> = "variant", "The game of a bare move list";
        ply: Option<u32> = "ply", "Show the position after this many moves" .min(0);
        marks: Option<String> = "marks", "Hills or squares to highlight, e.g. D4 E5" .max_length(100);
        arrows: Option<String> = "arrows", "Arrows to draw, e.g. G2-E3 C4-C6" .max_length(100);
    }
    /// Offer a draw, or answer your opponent's offer (docs/rules.md §9).
    Draw = "draw", "Offer a draw, or answer your opponent's offer", private: false, super::draws::draw {
        answer: Option<DrawAnswer> = "answer", "Answer your opponent's offer";
        game: Option<GameId> = "game", "Which game, as in #123, when this thread holds several of yours" .min(1) .autocomplete();
    }
    /// Challenge your opponent of a finished game again, the first move swapped.
    Rematch = "rematch", "Challenge your opponent of this channel's last game again, the first move swapped", private: false, super::lobby::rematch {
        game: Option<GameId> = "game", "The finished game to play again (default: this channel's latest)" .min(1);
    }
    /// The server's games in progress, with links, players, whose turn it is and deadlines.
    Live = "live", "The server's games in progress, for spectators", private: false, super::live::live {}
    // Tournaments (`tournaments/`): the subcommands of `/tournament`.
    /// Create a tournament whose round messages go to this channel (moderators).
    TournamentCreate = "tournament create", "Moderators (or the tournament role): create a tournament in this channel", private: false, super::tournaments::commands::tournament_create as CreateOptions {
        name: String = "name", "Its name" .max_length(60);
        variant: Variant = "variant", "Which game";
        system: TournamentSystem = "system", "How it is paired";
        scoring: Option<Scoring> = "scoring", "Kingdoms (default) or knots (hkot-1 and sacred-hill-1)";
        rounds: Option<u32> = "rounds", "Swiss: how many rounds (default: ⌈log2 players⌉ + 1, at most players − 1)" .min(1) .max(50);
        days: Option<TimeControl> = "days", "Days per move (default: the server's setting)";
        is_match: bool = "match", "Each pairing a two-game match (knockout ties always are)";
        rated: Option<bool> = "rated", "Rated: its games count for the server's ratings (default: yes)";
        max_players: Option<u32> = "max-players", "At most this many players (default and most: 64 in a round robin, 128 otherwise)" .min(2) .max(128);
        pace: Option<Pace> = "pace", "Round robin: every game at once (default) or round by round";
        double: bool = "double", "Round robin: play the table twice, first moves reversed";
    }
    /// Sign up for a tournament.
    TournamentJoin = "tournament join", "Sign up for a tournament", private: false, super::tournaments::commands::tournament_join {
        id: Option<TournamentId> = "id", "The tournament's number (default: this channel's newest open one)" .min(1);
    }
    /// Take back a sign-up before the start.
    TournamentLeave = "tournament leave", "Take back your sign-up before the start", private: false, super::tournaments::commands::tournament_leave {
        id: Option<TournamentId> = "id", "The tournament's number (default: this channel's newest open one)" .min(1);
    }
    /// Close the sign-ups and pair the first round (the organiser).
    TournamentStart = "tournament start", "Organiser: close the sign-ups and start", private: false, super::tournaments::commands::tournament_start {
        id: Option<TournamentId> = "id", "The tournament's number (default: this channel's newest open one)" .min(1);
    }
    /// Call a tournament off (the organiser).
    TournamentCancel = "tournament cancel", "Organiser: call a tournament off", private: false, super::tournaments::commands::tournament_cancel {
        id: Option<TournamentId> = "id", "The tournament's number (default: this channel's newest one)" .min(1);
    }
    /// Withdraw a player (the organiser), or yourself.
    TournamentWithdraw = "tournament withdraw", "Withdraw a player (organiser) or yourself: not paired again", private: false, super::tournaments::commands::tournament_withdraw {
        player: Option<User> = "player", "Who (default: you)";
        id: Option<TournamentId> = "id", "The tournament's number (default: this channel's newest one)" .min(1);
    }
    /// A tournament's options, players and progress.
    TournamentInfo = "tournament info", "A tournament's options, players and progress", private: true, super::tournaments::views::tournament_info {
        id: Option<TournamentId> = "id", "The tournament's number (default: this channel's newest one)" .min(1);
    }
    /// A round's pairings.
    TournamentPairings = "tournament pairings", "A round's pairings, with links and results", private: true, super::tournaments::views::tournament_pairings {
        round: Option<u32> = "round", "Which round (default: the current one)" .min(1) .max(200);
        id: Option<TournamentId> = "id", "The tournament's number (default: this channel's newest one)" .min(1);
    }
    /// The standings with their tiebreaks.
    TournamentStandings = "tournament standings", "The standings, with tiebreaks and games in progress", private: false, super::tournaments::views::tournament_standings {
        id: Option<TournamentId> = "id", "The tournament's number (default: this channel's newest one)" .min(1);
    }
    /// The server's tournaments.
    TournamentList = "tournament list", "The server's tournaments", private: true, super::tournaments::views::tournament_list {}
    // Ladders (`ladders.rs`): the subcommands of `/ladder`.
    /// Create a ladder whose games open in threads of this channel (moderators).
    LadderCreate = "ladder create", "Moderators (or the tournament role): create a ladder in this channel", private: false, super::ladders::create as LadderOptions {
        name: String = "name", "Its name" .max_length(60);
        variant: Variant = "variant", "Which game";
        scoring: Option<Scoring> = "scoring", "Kingdoms (default) or knots (hkot-1 and sacred-hill-1)";
        days: Option<TimeControl> = "days", "Days per move (default: the server's setting)";
        rated: Option<bool> = "rated", "Rated: its games count for the server's ratings (default: yes)";
    }
    /// Join a ladder at the bottom.
    LadderJoin = "ladder join", "Join a ladder: you start at the bottom", private: false, super::ladders::join {
        id: Option<LadderId> = "id", "The ladder's number (default: this channel's, or the server's only one)" .min(1);
    }
    /// Challenge a player above you: the game starts at once.
    LadderChallenge = "ladder challenge", "Challenge a player above you on the ladder: the game starts at once in a thread", private: false, super::ladders::challenge {
        player: User = "player", "Whom to challenge (above you, within your reach)";
        id: Option<LadderId> = "id", "The ladder's number (default: this channel's, or the server's only one)" .min(1);
    }
    /// The ladder, whom you may challenge and your ladder games.
    LadderShow = "ladder show", "The ladder, whom you may challenge and your ladder games in progress", private: true, super::ladders::show {
        id: Option<LadderId> = "id", "The ladder's number (default: this channel's, or the server's only one)" .min(1);
    }
    /// Leave a ladder.
    LadderLeave = "ladder leave", "Leave a ladder (everyone below you moves up one)", private: false, super::ladders::leave {
        id: Option<LadderId> = "id", "The ladder's number (default: this channel's, or the server's only one)" .min(1);
    }
    /// Close a ladder (the organiser).
    LadderClose = "ladder close", "Organiser: close a ladder (no more joins or challenges)", private: false, super::ladders::close {
        id: Option<LadderId> = "id", "The ladder's number (default: this channel's, or the server's only one)" .min(1);
    }
    // Leagues (`leagues.rs`): the subcommands of `/league`.
    /// Create a league whose seasons are played in this channel (moderators).
    LeagueCreate = "league create", "Moderators (or the tournament role): create a league in this channel", private: false, super::leagues::create as LeagueOptions {
        name: String = "name", "Its name" .max_length(60);
        variant: Variant = "variant", "Which game";
        scoring: Option<Scoring> = "scoring", "Kingdoms (default) or knots (hkot-1 and sacred-hill-1)";
        division_size: Option<u32> = "division-size", "Players per division (default 10)" .min(3) .max(20);
        promote: Option<u32> = "promote", "Players promoted from each division (default 2)" .min(0) .max(19);
        relegate: Option<u32> = "relegate", "Players relegated from each division (default 3)" .min(0) .max(19);
        days: Option<TimeControl> = "days", "Days per move (default: the server's setting)";
        is_match: Option<bool> = "match", "Each pairing a two-game match, each player starting one (default: yes)";
        rated: Option<bool> = "rated", "Rated: its games count for the server's ratings (default: yes)";
        gap_days: Option<u32> = "gap-days", "Days from a season's last game to the next season (default 7)" .min(0) .max(90);
    }
    /// Join a league: you play from its next season.
    LeagueJoin = "league join", "Join a league: you play from its next season", private: false, super::leagues::join {
        id: Option<LeagueId> = "id", "The league's number (default: this channel's, or the server's only one)" .min(1);
    }
    /// Leave a league at the end of the season.
    LeagueLeave = "league leave", "Leave a league at the end of this season (games in progress are played out)", private: false, super::leagues::leave {
        id: Option<LeagueId> = "id", "The league's number (default: this channel's, or the server's only one)" .min(1);
    }
    /// Start season 1 (the organiser).
    LeagueStart = "league start", "Organiser: start season 1 (later seasons start by themselves)", private: false, super::leagues::start {
        id: Option<LeagueId> = "id", "The league's number (default: this channel's, or the server's only one)" .min(1);
    }
    /// The days between seasons (the organiser sets them).
    LeagueSettings = "league settings", "The days between seasons (the organiser changes them)", private: false, super::leagues::settings {
        gap_days: Option<u32> = "gap-days", "Days from a season's last game to the next season" .min(0) .max(90);
        id: Option<LeagueId> = "id", "The league's number (default: this channel's, or the server's only one)" .min(1);
    }
    /// A division's standings this season, with promotion and relegation places.
    LeagueStandings = "league standings", "A division's standings this season, with promotion and relegation places", private: false, super::leagues::standings {
        division: Option<String> = "division", "Which division, e.g. 1 or 2a (default: yours)" .max_length(8);
        id: Option<LeagueId> = "id", "The league's number (default: this channel's, or the server's only one)" .min(1);
    }
    /// Close a league between seasons (the organiser).
    LeagueClose = "league close", "Organiser: close a league between seasons (no season starts any more)", private: false, super::leagues::close {
        id: Option<LeagueId> = "id", "The league's number (default: this channel's, or the server's only one)" .min(1);
    }
    /// Past champions and each player's path between divisions.
    LeagueHistory = "league history", "Past champions and each player's path between divisions", private: true, super::leagues::history {
        id: Option<LeagueId> = "id", "The league's number (default: this channel's, or the server's only one)" .min(1);
    }
    /// A tournament as a FIDE TRF-16 file.
    TournamentExport = "tournament export", "A tournament as a FIDE TRF-16 file (for pairing checkers)", private: true, super::tournaments::views::tournament_export {
        id: Option<TournamentId> = "id", "The tournament's number (default: this channel's newest one)" .min(1);
    }
}

impl Command {
    /// The command a button press stands for (the button's id read by [`Press::parse`]).
    pub fn from_button(id: &str) -> Option<Command> {
        Some(match Press::parse(id)? {
            Press::Accept(n) => Command::Accept { challenge: Some(n) },
            Press::Decline(n) => Command::Decline { challenge: Some(n) },
            Press::Cancel(n) => Command::Cancel { challenge: Some(n) },
            Press::Resign(game) => Command::Resign {
                confirmed: true,
                game: Some(game),
            },
            Press::TakebackYes(game) => Command::Takeback {
                answer: Some(TakebackAnswer::Allow),
                game: Some(game),
            },
            Press::TakebackNo(game) => Command::Takeback {
                answer: Some(TakebackAnswer::Refuse),
                game: Some(game),
            },
            Press::Vacation(days) => Command::Vacation {
                days: Some(days),
                end: false,
                confirmed: true,
            },
            Press::DrawYes(game) => Command::Draw {
                answer: Some(DrawAnswer::Accept),
                game: Some(game),
            },
            Press::DrawNo(game) => Command::Draw {
                answer: Some(DrawAnswer::Decline),
                game: Some(game),
            },
            Press::Rematch(game) => Command::Rematch { game: Some(game) },
            Press::History {
                user,
                variant,
                page,
            } => Command::History {
                user: Some(User::of(user.clone(), user.into_string())),
                variant,
                page: Some(page),
            },
            Press::Step {
                game,
                ply,
                shared,
                drawn,
            } => Command::stepped(game, ply, shared, drawn),
            Press::Rules { variant, page } => Command::Rules {
                variant,
                page: Some(page),
            },
            // It opens a dialog ([`Bot::dialog_of`]), whose answer is the command; pressed
            // without one (its buttons expired) it shows the start, which refuses with the note.
            Press::StepJump {
                game,
                shared,
                drawn,
            } => Command::stepped(game, 0, shared, drawn),
            Press::Better { game, ply, best } => {
                // A move from one place to another is drawn as an arrow, a build marked.
                let drawn = best.trim_end_matches('*').to_string();
                let (marks, arrows) = match drawn.as_str() {
                    "pass" => (None, None),
                    m if m.contains('-') => (None, Some(drawn)),
                    _ => (Some(drawn), None),
                };
                Command::Game {
                    id: game,
                    ply: Some(ply - 1),
                    marks,
                    arrows,
                    drawn: Some(NEVER_EXPIRES),
                    shared: true,
                }
            }
        })
    }

    /// Whether only the sender sees the answer: a private command's, and a stepping or
    /// better-move button's (its board is a private copy), so that an adapter that must
    /// defer the answer defers it privately.
    pub fn answers_privately(&self) -> bool {
        self.is_private() || matches!(self, Command::Game { drawn: Some(_), .. })
    }

    /// `/game` at `ply` as a stepping button asks for it ([`Press::Step`]).
    fn stepped(game: GameId, ply: u32, shared: bool, drawn: u32) -> Command {
        Command::Game {
            id: game,
            ply: Some(ply),
            marks: None,
            arrows: None,
            drawn: Some(drawn),
            shared,
        }
    }

    /// The command a dialog's answer stands for ([`Press::dialog`]; `id` is the dialog's),
    /// or why the value does not read; `None` when `id` is no dialog's.
    pub fn from_dialog(id: &str, value: &str) -> Option<Result<Command, String>> {
        let Press::StepJump {
            game,
            shared,
            drawn,
        } = Press::parse(id)?
        else {
            return None;
        };
        let typed = value.trim().trim_start_matches('#');
        Some(match typed.parse::<u32>() {
            Ok(ply) => Ok(Command::stepped(game, ply, shared, drawn)),
            Err(_) => Err(format!(
                "`{}` is not a move number: give a whole number, 0 for the start.",
                typed
                    .chars()
                    .filter(|c| *c != '`' && !c.is_control())
                    .take(20)
                    .collect::<String>()
            )),
        })
    }
}

/// The table entry of a command.
pub fn spec(name: &str) -> Option<CommandSpec> {
    table().into_iter().find(|c| c.name == name)
}

/// The command list, from the table.
pub fn help_text() -> String {
    let mut s = String::from(
        "**tara-bot** referees High Kings of Tara, Tara: Sacred Hill and Ard Rí \
         (the rules as the bot applies them: `docs/rules.md`).\n",
    );
    for c in table() {
        s.push_str(&format!("`{}`: {}", c.usage(), c.description));
        let choices: Vec<String> = c
            .options
            .iter()
            .filter(|o| !o.hidden && !o.choices.is_empty() && o.name != "variant")
            .map(|o| {
                let values: Vec<&str> = o.choices.iter().map(|c| c.value.as_str()).collect();
                format!("{}: {}", o.name, values.join("/"))
            })
            .collect();
        if !choices.is_empty() {
            s.push_str(&format!(" ({})", choices.join("; ")));
        }
        s.push('\n');
    }
    s.push_str("Variants: ");
    let ids: Vec<&str> = Variant::ALL.iter().map(|v| v.id()).collect();
    s.push_str(&ids.join(", "));
    s.push('.');
    s
}

pub use super::reply::DM_SERVER;

impl Bot {
    /// Handles a command; returns the replies in order. The answer to a private command is
    /// shown only to its sender, whatever the handler built.
    ///
    /// With the rate limit on ([`Bot::with_rate_limit`]), a user who sends commands faster than
    /// the server allows is refused privately before anything runs, so that one user's flood
    /// costs the others nothing but the check.
    pub fn handle(&self, ctx: &Ctx, cmd: Command) -> Vec<Reply> {
        if let Some(refusal) = self.admit(ctx) {
            return vec![refusal];
        }
        self.handle_admitted(ctx, cmd)
    }

    /// Counts a command against its sender's rate limit before it runs: `None` when it may run
    /// (then [`Bot::handle_admitted`] runs it), or the private refusal. For an adapter that
    /// must do something costly before the command runs (open a thread for a challenge).
    pub fn admit(&self, ctx: &Ctx) -> Option<Reply> {
        self.check_rate(ctx)
    }

    /// [`Bot::handle`] for a command already counted by [`Bot::admit`].
    pub fn handle_admitted(&self, ctx: &Ctx, cmd: Command) -> Vec<Reply> {
        if self.is_ai_user(&ctx.user.id) {
            return vec![Reply::private(
                "The bot's AI takes no commands: it plays only the games started with `/play-ai` (or a \
                 `/challenge` to the bot), and never joins tournaments.",
            )];
        }
        if ctx.server == DM_SERVER && !cmd.allowed_in_dms() {
            return vec![Reply::private(format!(
                "`/{}` works only in a server's channels, where both players can see the game: \
                 send it in a channel of the server you play on. In a direct message I answer \
                 only `/help` and `/rules`.",
                cmd.name()
            ))];
        }
        let private = cmd.is_private();
        let mut replies: Vec<Reply> = match self.run(ctx, cmd) {
            Ok(outs) => outs.into_iter().map(|o| self.finish(o)).collect(),
            Err(Fail::User(msg)) => vec![Reply::private(msg)],
            Err(Fail::Store(e)) => {
                tracing::error!(error = %e, "command failed");
                vec![Reply::private(
                    "Something went wrong on our side and nothing was changed; please try again.",
                )]
            }
        };
        // A read command's answers get their links to the web here (owed ones got theirs
        // when they were stored).
        self.link_all_to_web(&mut replies);
        replies
            .into_iter()
            .map(|mut r| {
                if private && r.channel.is_none() && r.dm.is_none() {
                    r.ephemeral = true;
                }
                r
            })
            .collect()
    }

    /// Takes one of the user's command tokens; the private refusal when none is left.
    fn check_rate(&self, ctx: &Ctx) -> Option<Reply> {
        let limit = match self.cached_rate_limit(&ctx.server) {
            Some(limit) => limit,
            None => {
                let limit = self
                    .read(|tx| server_rate_limit(tx, &ctx.server))
                    .unwrap_or(DEFAULT_RATE_LIMIT);
                self.remember_rate_limit(&ctx.server, limit);
                limit
            }
        };
        self.take_token(&ctx.user.id, limit, self.now())
            .err()
            .map(|wait_ms| {
                let secs = (wait_ms + 999) / 1000;
                Reply::private(format!(
                    "You are sending commands too fast: this server allows {limit} every 10 \
                     seconds. Nothing was done; try again in {secs} second{}.",
                    if secs == 1 { "" } else { "s" }
                ))
            })
    }

    /// `/help`: the command list.
    pub(crate) fn help(&self, _ctx: &Ctx) -> Outcome<Vec<Out>> {
        Ok(vec![Out::text(Reply::private(help_text()))])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::options::Value;

    #[test]
    fn every_command_reads_from_its_own_table_entry() {
        let t = table();
        let names: Vec<&str> = t.iter().map(|c| c.name).collect();
        for (i, n) in names.iter().enumerate() {
            assert!(!names[..i].contains(n), "/{n} declared twice");
        }
        assert_eq!(
            spec("challenge").unwrap().usage(),
            "/challenge [opponent] variant [scoring] [first] [days] [match] [rated] [thread]"
        );
        assert_eq!(spec("resign").unwrap().usage(), "/resign [game]");
        let v = Values::new()
            .with("opponent", Value::User(User::new("bob", "Bob")))
            .with("variant", Value::Text("hkot-1".into()))
            .with("days", Value::Text("3".into()));
        assert_eq!(
            Command::parse("challenge", &v),
            Ok(Command::Challenge {
                opponent: Some(User::new("bob", "Bob")),
                variant: Variant::Hkot1,
                scoring: None,
                first: None,
                days: Some(TimeControl::DaysPerMove(3)),
                is_match: false,
                rated: None,
                thread: None,
            })
        );
        // Without an opponent: an open challenge.
        assert_eq!(
            Command::parse(
                "challenge",
                &Values::new().with("variant", Value::Text("ard-ri".into()))
            ),
            Ok(Command::Challenge {
                opponent: None,
                variant: Variant::ArdRi,
                scoring: None,
                first: None,
                days: None,
                is_match: false,
                rated: None,
                thread: None,
            })
        );
        assert_eq!(
            Command::from_button("draw-yes:7"),
            Some(Command::Draw {
                answer: Some(DrawAnswer::Accept),
                game: Some(GameId(7))
            })
        );
        assert_eq!(
            Command::from_button("rematch:7"),
            Some(Command::Rematch {
                game: Some(GameId(7))
            })
        );
        assert_eq!(
            Command::parse("vacation", &Values::new().with("days", Value::Integer(30))),
            Err("`days` must be from 1 to 14.".into())
        );
        assert!(Command::parse("frobnicate", &Values::new()).is_err());
        assert!(
            Command::Status { game: None }.is_private()
                && !Command::Pass { game: None }.is_private()
        );
        assert_eq!(Command::Pass { game: None }.name(), "pass");
        let help = help_text();
        for c in &t {
            assert!(
                help.contains(&format!("`/{}", c.name)),
                "/help misses /{}",
                c.name
            );
        }
        assert!(help.contains("first: random/me/opponent"));
        // Subcommands: one entry each, named "group sub", listed by /help.
        let create = spec("tournament create").unwrap();
        assert_eq!(create.subcommand(), Some(("tournament", "create")));
        assert!(group("tournament").is_some() && group("create").is_none());
        assert!(create
            .usage()
            .starts_with("/tournament create name variant system"));
        assert!(
            help.contains("system: swiss/round-robin/knockout"),
            "{help}"
        );
        assert_eq!(spec("live").unwrap().subcommand(), None);
    }

    #[test]
    fn a_stepping_press_is_answered_privately_though_game_is_public() {
        let game = |drawn| Command::Game {
            id: GameId(3),
            ply: Some(1),
            marks: None,
            arrows: None,
            drawn,
            shared: true,
        };
        assert!(!game(None).is_private() && !game(None).answers_privately());
        assert!(game(Some(5)).answers_privately());
        assert!(Command::from_button("step:3:1:s:5")
            .unwrap()
            .answers_privately());
    }

    #[test]
    fn buttons_stand_for_commands() {
        assert_eq!(
            Command::from_button("takeback-no:4"),
            Some(Command::Takeback {
                answer: Some(TakebackAnswer::Refuse),
                game: Some(GameId(4))
            })
        );
        assert_eq!(
            Command::from_button("vacation:3"),
            Some(Command::Vacation {
                days: Some(3),
                end: false,
                confirmed: true
            })
        );
        assert_eq!(Command::from_button("vacation:-1"), None);
        assert_eq!(Command::from_button("nothing:1"), None);
        assert_eq!(Command::from_button("accept:x"), None);
        assert_eq!(
            Command::from_button("history:42:hkot-2:3"),
            Some(Command::History {
                user: Some(User::new("42", "42")),
                variant: Some(Variant::Hkot2),
                page: Some(3)
            })
        );
        assert_eq!(Command::from_button("history:42:hkot-2:0"), None);
    }
}
