//! The command line's arguments (clap): the commands, their options and how a bad command
//! line is reported.

use crate::game::{notation, ArdRiPosition, GameOptions, Position, Scoring, Side, Variant};
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "tara-bot",
    version,
    about = "Referee for High Kings of Tara, Tara: Sacred Hill and Ard Rí"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Print the position after a list of moves as JSON (legal moves, counts, result).
    Engine(EngineArgs),
    /// Print the AI's move for a position as JSON (move, eval, playouts, ms).
    Ai(AiArgs),
    /// Weigh a game move by move as JSON: the first seat's expected score after every move,
    /// each move with the AI's choice, and the three largest swings.
    Analyse(AnalyseArgs),
    /// Run the Discord bot (needs DISCORD_TOKEN; see the README and docs/operating.md).
    Run(RunArgs),
    /// Play in the terminal: the whole bot on the same database, commands as in Discord.
    Local(LocalArgs),
    /// Draw a position (PNG) or a whole game (animated GIF, with --replay).
    Render(RenderArgs),
    /// Write every finished game as JSON lines, oldest first (see docs/cli.md).
    Export {
        /// The database: an SQLite file or a postgres:// URL (default: TARA_BOT_DATABASE_URL,
        /// TARA_BOT_DB, the config file, or ./tara-bot.db).
        #[arg(long)]
        db: Option<std::path::PathBuf>,
        /// Only this server's games (a Discord server id; `local` for the console's).
        #[arg(long)]
        server: Option<String>,
    },
    /// Print tournament pairings (see docs/cli.md): the next Swiss round of a TRF-16 file by the
    /// FIDE Dutch system, or the Berger tables of a round robin.
    Pair(PairArgs),
    /// A stored tournament: its FIDE TRF-16 file, or its standings (see docs/cli.md).
    Tournament {
        #[command(subcommand)]
        command: TournamentCommand,
    },
    /// The stored ladders: their players in rank order and their games (see docs/cli.md).
    Ladder {
        #[command(subcommand)]
        command: LadderCommand,
    },
    /// The stored leagues: their players and each season's divisions (see docs/cli.md).
    League {
        #[command(subcommand)]
        command: LeagueCommand,
    },
    /// Serve the web companion: a page for every game of the servers that put theirs on the
    /// web with `/settings web:true` (see docs/web.md). Only reads the database.
    Web {
        /// The address and port to listen on.
        #[arg(long, default_value = "127.0.0.1:8080")]
        listen: std::net::SocketAddr,
        /// The database: an SQLite file or a postgres:// URL (default: TARA_BOT_DATABASE_URL,
        /// TARA_BOT_DB, the config file, or ./tara-bot.db).
        #[arg(long)]
        db: Option<std::path::PathBuf>,
        /// The site's public address (e.g. https://tara.example), for the links a pasted page
        /// unfolds with (default: the configuration's web_url / TARA_BOT_WEB_URL, else
        /// http:// and the host each request names).
        #[arg(long)]
        url: Option<String>,
        /// Requests each address may make in 10 seconds (0: no limit).
        #[arg(long, default_value_t = 200)]
        rate_limit: u32,
    },
    /// Back up or check the database.
    Db {
        #[command(subcommand)]
        command: DbCommand,
    },
    /// Measure performance.
    Bench {
        #[arg(value_enum)]
        what: BenchTarget,
        /// Seconds to spend per configuration.
        #[arg(long, default_value_t = 2.0)]
        seconds: f64,
        /// `bench ai`: games per pairing.
        #[arg(long, default_value_t = 20)]
        games: u32,
        /// `bench ai`: level 5's thinking time per move, in milliseconds.
        #[arg(long, default_value_t = 1000)]
        ms: u64,
        /// `bench ai`: only this variant.
        #[arg(long, value_parser = parse_variant)]
        variant: Option<Variant>,
        /// `bench ai`: only these pairings, comma-separated, each `<player>-<opponent>` of
        /// l1..l5, greedy and random (e.g. `l2-l1,l5-greedy`).
        #[arg(long, value_delimiter = ',', value_parser = crate::cli::bench_ai::parse_pairing)]
        pairings: Vec<crate::cli::bench_ai::Pairing>,
        /// `bench ai`: games played at once (each on its own thread).
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        /// For `pair`: the field sizes, comma-separated.
        #[arg(long, value_delimiter = ',', default_values_t = [100u32, 500, 2000])]
        players: Vec<u32>,
        /// `bench service`: also measure on this PostgreSQL database (a postgres:// URL), in a
        /// schema of its own that is dropped afterwards; `bench processes`: the database.
        #[arg(long)]
        db: Option<String>,
    },
}

#[derive(Subcommand)]
pub(crate) enum TournamentCommand {
    /// Write the tournament as a FIDE TRF-16 file (with XXR, the number of rounds) to stdout.
    Export {
        /// The database: an SQLite file or a postgres:// URL (default: TARA_BOT_DATABASE_URL,
        /// TARA_BOT_DB, the config file, or ./tara-bot.db).
        #[arg(long)]
        db: Option<std::path::PathBuf>,
        /// The tournament's number (as `/tournament list` shows it).
        id: i64,
    },
    /// Print the standings, best first, one line per player.
    Standings {
        /// The database: an SQLite file or a postgres:// URL (default: TARA_BOT_DATABASE_URL,
        /// TARA_BOT_DB, the config file, or ./tara-bot.db).
        #[arg(long)]
        db: Option<std::path::PathBuf>,
        /// The tournament's number (as `/tournament list` shows it).
        id: i64,
        /// One JSON object per line (else tab-separated fields).
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
pub(crate) enum LadderCommand {
    /// Write every ladder (or one) to stdout: its players top first and its games.
    Export {
        /// The database: an SQLite file or a postgres:// URL (default: TARA_BOT_DATABASE_URL,
        /// TARA_BOT_DB, the config file, or ./tara-bot.db).
        #[arg(long)]
        db: Option<std::path::PathBuf>,
        /// Only this ladder (its number, as `/ladder show` gives it).
        id: Option<i64>,
        /// One JSON object per ladder and line (else a tab-separated line per player).
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
pub(crate) enum LeagueCommand {
    /// Write every league (or one) to stdout: its players and each season's divisions.
    Export {
        /// The database: an SQLite file or a postgres:// URL (default: TARA_BOT_DATABASE_URL,
        /// TARA_BOT_DB, the config file, or ./tara-bot.db).
        #[arg(long)]
        db: Option<std::path::PathBuf>,
        /// Only this league (its number).
        id: Option<i64>,
        /// One JSON object per league and line (else a tab-separated line per player and
        /// division).
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
pub(crate) enum DbCommand {
    /// Copy the database to FILE, safe while the bot runs: SQLite's online backup API, or
    /// pg_dump (custom format) for a PostgreSQL database.
    Backup {
        /// Where to write the copy (refused if it exists, unless --force).
        file: std::path::PathBuf,
        /// Replace FILE if it exists.
        #[arg(long)]
        force: bool,
        /// The database: a file or a postgres:// URL (default: TARA_BOT_DATABASE_URL,
        /// TARA_BOT_DB, the config file, or ./tara-bot.db).
        #[arg(long)]
        db: Option<std::path::PathBuf>,
    },
    /// Check the database: SQLite's integrity check, whose file it is and its schema version.
    /// Exit status 0 when tara-bot can use it, 1 otherwise.
    Check {
        /// The database: a file or a postgres:// URL (default: TARA_BOT_DATABASE_URL,
        /// TARA_BOT_DB, the config file, or ./tara-bot.db).
        #[arg(long)]
        db: Option<std::path::PathBuf>,
    },
    /// Copy every table of one database into another (SQLite file or postgres:// URL, either
    /// way), verified by row counts and a checksum per table. Stop the bot first.
    Copy {
        /// The database to copy (a file or a postgres:// URL).
        #[arg(long)]
        from: std::path::PathBuf,
        /// The database to copy into (a file or a postgres:// URL); it must be empty.
        #[arg(long)]
        to: std::path::PathBuf,
        /// Replace everything in a target that is not empty.
        #[arg(long)]
        force: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum BenchTarget {
    /// Random complete games per variant.
    Engine,
    /// Board PNGs and replays per variant.
    Render,
    /// Moves through the bot core and SQLite on a database of 10,000 games.
    Service,
    /// The AI's strength: matches between levels and against random and greedy players.
    Ai,
    /// The FIDE Dutch pairing of round 5 for 100, 500 and 2,000 players (or --players).
    Pair,
    /// Round robins of 16, 32 and 64 players started through the bot core, a result, standings.
    Tournament,
    /// A league of 200 players in divisions of 10: season 1 started, then season 2 by the tick.
    League,
    /// One and two processes on one PostgreSQL database (--db): moves/s and the AI's moves/s.
    Processes,
    /// A 200-player league through a fake Discord with Discord's limits on: the start, the
    /// time until every player is told where their games are, REST requests per move.
    Discord,
    /// The web companion on a store of 100,000 games: a game page's and a 64-player
    /// tournament page's latency, and 1,000 live pages held open (memory, a move's arrival).
    Web,
    /// One process of `bench processes` playing moves (started by it).
    #[value(hide = true)]
    ProcessMoves,
    /// One process of `bench processes` searching the AI's moves (started by it).
    #[value(hide = true)]
    ProcessAi,
}

/// The game and its moves, shared by `engine` and `render`.
#[derive(clap::Args)]
pub(crate) struct GameArgs {
    /// hkot-1, hkot-2, sacred-hill-1, sacred-hill-2 or ard-ri.
    #[arg(long, value_parser = parse_variant, required_unless_present = "record")]
    pub(crate) variant: Option<Variant>,
    /// Read the game from a record file (as `/record` and `/export` give it: `variant:`,
    /// `scoring:`, `first:` and `moves:` lines, `#` comments) instead of --variant, --scoring,
    /// --first and --moves.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["variant", "scoring", "first", "moves", "position"])]
    pub(crate) record: Option<std::path::PathBuf>,
    /// kingdoms or knots (knots only for hkot-1 and sacred-hill-1).
    #[arg(long, value_parser = parse_scoring)]
    pub(crate) scoring: Option<Scoring>,
    /// Who moves first: red or blue (Tara; default red). Ard Rí: always the attackers.
    #[arg(long, value_parser = parse_first)]
    pub(crate) first: Option<Side>,
    /// The moves, separated by spaces, e.g. "D4 B2 F6".
    #[arg(long, default_value = "")]
    pub(crate) moves: String,
    /// Ard Rí only: start from this position instead of the start, in the engine's position
    /// notation, e.g. "2aaa2/3a3/a1ddd1a/aadkdaa/a1ddd1a/3a3/2aaa2 a 0 0".
    #[arg(long, value_name = "NOTATION")]
    pub(crate) position: Option<String>,
}

impl GameArgs {
    /// The arguments with a `--record` file read into --variant, --scoring, --first and
    /// --moves; a file that cannot be read, or a record that does not read, is an error (exit
    /// status 1) that says why (which move, and why it is refused).
    pub(crate) fn read_record(mut self) -> Result<GameArgs, ExitCode> {
        let Some(path) = self.record.take() else {
            return Ok(self);
        };
        let text = std::fs::read_to_string(&path).map_err(|e| {
            say!("error: cannot read {}: {e}", path.display());
            ExitCode::from(1)
        })?;
        let record = crate::game::GameRecord::parse(&text).map_err(|e| {
            say!("error: {}: {e}", path.display());
            ExitCode::from(1)
        })?;
        self.variant = Some(record.options.variant);
        self.scoring = Some(record.options.scoring);
        self.first = Some(record.options.first);
        let moves: Vec<String> = record.moves.iter().map(|m| m.to_string()).collect();
        self.moves = moves.join(" ");
        Ok(self)
    }

    /// The options, or a usage message (exit status 2) for a bad combination.
    pub(crate) fn options(&self, usage: &str) -> Result<GameOptions, ExitCode> {
        let variant = self.variant.ok_or_else(|| {
            say!("error: give --variant or --record\n\nUsage: {usage}");
            ExitCode::from(2)
        })?;
        GameOptions::with(variant, self.scoring, self.first).map_err(|e| {
            say!("error: {e}\n\nUsage: {usage}");
            ExitCode::from(2)
        })
    }

    /// The position the moves start from: `--position`, or the start of the game; a usage
    /// message (exit status 2) for bad options or a position that cannot be read.
    pub(crate) fn start(&self, usage: &str) -> Result<Position, ExitCode> {
        let options = self.options(usage)?;
        let Some(text) = &self.position else {
            return Ok(Position::new(options));
        };
        let fail = |message: String| {
            say!("error: {message}\n\nUsage: {usage}");
            ExitCode::from(2)
        };
        if options.variant != Variant::ArdRi {
            return Err(fail(format!(
                "--position is for Ard Rí only: {} has no position notation; give the moves from the start with --moves",
                options.variant
            )));
        }
        ArdRiPosition::from_notation(text)
            .map(Position::from)
            .map_err(|e| fail(format!("--position: {e}")))
    }
}

#[derive(clap::Args)]
pub(crate) struct EngineArgs {
    #[command(flatten)]
    pub(crate) game: GameArgs,
    /// One JSON line for the position after 0, 1, …, n moves.
    #[arg(long)]
    pub(crate) trace: bool,
    /// Print {"perft": N}: the number of legal move sequences of length D.
    #[arg(long, value_name = "D")]
    pub(crate) perft: Option<u32>,
}

#[derive(clap::Args)]
pub(crate) struct AnalyseArgs {
    #[command(flatten)]
    pub(crate) ai: AiArgs,
    /// Also draw the evaluation chart (PNG) into FILE.
    #[arg(long, value_name = "FILE")]
    pub(crate) chart: Option<std::path::PathBuf>,
}

#[derive(clap::Args)]
pub(crate) struct AiArgs {
    #[command(flatten)]
    pub(crate) game: GameArgs,
    /// The AI's strength, 1 (weak) to 5 (strongest, bounded by time).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=5))]
    pub(crate) level: u8,
    /// Think for this many milliseconds instead of the level's own budget, at every level
    /// (levels 1 to 4 then search as long as level 5 would for N ms, not their 40 to 5,000
    /// playouts); the move may vary from run to run.
    #[arg(long, value_name = "N", conflicts_with = "budget", value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub(crate) ms: Option<u64>,
    /// Make exactly N playouts instead of the level's own budget, at every level: the same
    /// position, seed and budget give the same move.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub(crate) budget: Option<u64>,
    /// The random generator's seed.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
}

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("system").required(true).args(["round_robin", "dutch"])))]
pub(crate) struct PairArgs {
    /// Pair the next round of the TRF-16 tournament in FILE by the FIDE Dutch system: the
    /// number of pairs, then one pair per line as two starting ranks, White first, a bye as
    /// "N 0" (as bbpPairings prints them).
    #[arg(long, value_name = "FILE")]
    pub(crate) dutch: Option<std::path::PathBuf>,
    /// Print FIDE's Berger table for N players, one round per line ("Round 1: 1-6 2-5 3-4").
    #[arg(long, value_name = "N")]
    pub(crate) round_robin: Option<u32>,
    /// A double round robin: the last two rounds of the first cycle swapped, then the table
    /// again with colours reversed.
    #[arg(long, requires = "round_robin")]
    pub(crate) double: bool,
}

#[derive(clap::Args)]
pub(crate) struct RunArgs {
    /// The database: an SQLite file or a postgres:// URL (default: TARA_BOT_DATABASE_URL,
    /// TARA_BOT_DB, the config file, or ./tara-bot.db).
    #[arg(long)]
    pub(crate) db: Option<std::path::PathBuf>,
    /// Run only Discord's shards A to B, both included (default: every shard Discord
    /// recommends). Needs --shard-total.
    #[arg(long, value_name = "A-B", value_parser = parse_shard_range, requires = "shard_total")]
    pub(crate) shards: Option<(u32, u32)>,
    /// How many shards the whole bot runs (with --shards).
    #[arg(long, value_name = "N", requires = "shards")]
    pub(crate) shard_total: Option<u32>,
}

impl RunArgs {
    /// The shards this process runs, first and last (included), and the total; `None` for all
    /// that Discord recommends. A range beyond the total is refused.
    pub(crate) fn shard_range(&self) -> Result<Option<crate::discord::ShardRange>, String> {
        match (self.shards, self.shard_total) {
            (Some((first, last)), Some(total)) => {
                crate::discord::ShardRange::new(first, last, total).map(Some)
            }
            _ => Ok(None),
        }
    }
}

/// Reads `A-B` (or a single shard `A`), with A <= B.
pub(crate) fn parse_shard_range(s: &str) -> Result<(u32, u32), String> {
    let (a, b) = s.split_once('-').unwrap_or((s, s));
    let n = |t: &str| {
        t.trim()
            .parse::<u32>()
            .map_err(|_| format!("'{s}' is not a shard range: write it as A-B, e.g. 0-3"))
    };
    let (a, b) = (n(a)?, n(b)?);
    if a > b {
        return Err(format!("'{s}': the first shard comes after the last"));
    }
    Ok((a, b))
}

#[derive(clap::Args)]
pub(crate) struct LocalArgs {
    /// The database: an SQLite file or a postgres:// URL (default: TARA_BOT_DATABASE_URL,
    /// TARA_BOT_DB, the config file, or ./tara-bot.db).
    #[arg(long)]
    pub(crate) db: Option<std::path::PathBuf>,
    /// Folder for board images (default: TARA_BOT_IMAGES, the config file, or ./tara-images).
    #[arg(long)]
    pub(crate) images: Option<std::path::PathBuf>,
    /// Do not write board images (boards are still drawn as text).
    #[arg(long)]
    pub(crate) no_images: bool,
    /// Who you are at the start (switch with /as NAME).
    #[arg(long = "as", default_value = "alice")]
    pub(crate) user: String,
}

#[derive(clap::Args)]
pub(crate) struct RenderArgs {
    #[command(flatten)]
    pub(crate) game: GameArgs,
    /// Draw the position after this many moves (default: all).
    #[arg(long)]
    pub(crate) ply: Option<usize>,
    /// The players' names, first seat first, separated by a comma ("Aoife,Brian").
    #[arg(long, value_name = "FIRST,SECOND", value_parser = parse_names)]
    pub(crate) names: Option<[String; 2]>,
    /// An animated GIF of the whole game instead of one position.
    #[arg(long)]
    pub(crate) replay: bool,
    /// Where to write the image: a .png file (one position), a .gif file (with --replay), or -
    /// for standard output.
    #[arg(short, long, value_name = "FILE")]
    pub(crate) output: std::path::PathBuf,
}

/// What `render -o` names: a file of one format, or standard output.
pub(crate) enum RenderTarget {
    File(std::path::PathBuf),
    Stdout,
}

impl RenderArgs {
    /// Where to write, or a usage message when `-o`'s extension does not match what is drawn
    /// (`.png` for one position, `.gif` for `--replay`).
    pub(crate) fn target(&self) -> Result<RenderTarget, String> {
        if self.output.as_os_str() == "-" {
            return Ok(RenderTarget::Stdout);
        }
        let ext = self
            .output
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        let shown = self.output.display();
        match (ext.as_deref(), self.replay) {
            (Some("png"), false) | (Some("gif"), true) => Ok(RenderTarget::File(self.output.clone())),
            (Some("png"), true) => Err(format!(
                "-o {shown}: --replay draws an animated GIF, so name a .gif file (e.g. -o game.gif), or leave out --replay to draw one position as a PNG"
            )),
            (Some("gif"), false) => Err(format!(
                "-o {shown}: a .gif file holds a replay; add --replay to draw the whole game, or name a .png file to draw one position"
            )),
            _ => Err(format!(
                "-o {shown}: the file name must end in .png (one position) or .gif (a replay, with --replay), or be - for standard output"
            )),
        }
    }
}

pub(crate) fn parse_variant(s: &str) -> Result<Variant, String> {
    s.parse()
        .map_err(|e: crate::game::UnknownVariant| e.to_string())
}
pub(crate) fn parse_scoring(s: &str) -> Result<Scoring, String> {
    s.parse()
}
pub(crate) fn parse_first(s: &str) -> Result<Side, String> {
    notation::parse_side(s)
}

/// `--names`: exactly two non-empty names separated by a comma.
pub(crate) fn parse_names(s: &str) -> Result<[String; 2], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    let problem = match parts.as_slice() {
        [a, b] if !a.is_empty() && !b.is_empty() => {
            return Ok([a.to_string(), b.to_string()]);
        }
        ["", ""] => "both names are empty".to_string(),
        ["", _] => "the first name is empty".to_string(),
        [_, _] => "the second name is empty".to_string(),
        [""] => "no names are given".to_string(),
        [_] => "only one name is given".to_string(),
        more => format!("{} names are given", more.len()),
    };
    Err(format!(
        "--names takes two names separated by a comma, e.g. --names \"Aoife,Brian\"; {problem}"
    ))
}

/// Parses the command line; on an error prints it with the usage of the command concerned
/// (exit status 2).
pub(crate) fn parse_cli() -> Result<Cli, ExitCode> {
    match Cli::try_parse() {
        Ok(cli) => Ok(cli),
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion)
                || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            {
                let _ = e.print();
                return Err(if e.exit_code() == 0 {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::from(2)
                });
            }
            let rendered = e.render().to_string();
            {
                use std::io::Write as _;
                let _ = write!(std::io::stderr().lock(), "{rendered}");
            }
            if !rendered.contains("Usage:") {
                let mut cmd = Cli::command();
                cmd.build();
                let sub = std::env::args().nth(1).unwrap_or_default();
                let usage = match cmd.find_subcommand_mut(&sub) {
                    Some(s) => s.render_usage(),
                    None => cmd.render_usage(),
                };
                say!("\n{usage}");
            }
            Err(ExitCode::from(2))
        }
    }
}
