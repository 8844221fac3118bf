//! The `tara-bot` command line.

use anyhow::Result;
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use std::process::ExitCode;
use tara_bot::bot::Clock;
use tara_bot::cli::{ai, analyse, bench, bench_pair, engine, pair};
use tara_bot::game::{notation, ArdRiPosition, GameOptions, Position, Scoring, Side, Variant};
use tara_bot::render;

/// Prints a line to standard output. A reader that has gone away (`tara-bot engine … | head -1`)
/// ends the command quietly, with status 0, instead of a panic; any other write error is
/// reported.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            say!("error: writing the output: {e}");
            std::process::exit(1);
        }
    }};
}

/// Prints a line to standard error. Where it cannot be written (`2>/dev/full`, a closed pipe)
/// the line is lost, but the command still ends with the status it owes, never a panic.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

#[derive(Parser)]
#[command(
    name = "tara-bot",
    version,
    about = "Referee for High Kings of Tara, Tara: Sacred Hill and Ard Rí"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the position after a list of moves as JSON (legal moves, counts, result).
    Engine(EngineArgs),
    /// Print the AI's move for a position as JSON (move, eval, playouts, ms).
    Ai(AiArgs),
    /// Weigh a game move by move as JSON: the first seat's expected score after every move,
    /// each move with the AI's choice, and the three largest swings.
    Analyse(AnalyseArgs),
    /// Run the Discord bot (needs DISCORD_TOKEN; see the README).
    Run(RunArgs),
    /// Play in the terminal: the whole bot on the same database, commands as in Discord.
    Local(LocalArgs),
    /// Draw a position (PNG) or a whole game (animated GIF, with --replay).
    Render(RenderArgs),
    /// Write every finished game as JSON lines, oldest first (see the README).
    Export {
        /// The SQLite database (default: TARA_BOT_DB, the config file, or ./tara-bot.db).
        #[arg(long)]
        db: Option<std::path::PathBuf>,
        /// Only this server's games (a Discord server id; `local` for the console's).
        #[arg(long)]
        server: Option<String>,
    },
    /// Print tournament pairings (see the README): the next Swiss round of a TRF-16 file by the
    /// FIDE Dutch system, or the Berger tables of a round robin.
    Pair(PairArgs),
    /// A stored tournament: its FIDE TRF-16 file, or its standings (see the README).
    Tournament {
        #[command(subcommand)]
        command: TournamentCommand,
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
        /// For `pair`: the field sizes, comma-separated.
        #[arg(long, value_delimiter = ',', default_values_t = [100u32, 500, 2000])]
        players: Vec<u32>,
    },
}

#[derive(Subcommand)]
enum TournamentCommand {
    /// Write the tournament as a FIDE TRF-16 file (with XXR, the number of rounds) to stdout.
    Export {
        /// The SQLite database (default: TARA_BOT_DB, the config file, or ./tara-bot.db).
        #[arg(long)]
        db: Option<std::path::PathBuf>,
        /// The tournament's number (as `/tournament list` shows it).
        id: i64,
    },
    /// Print the standings, best first, one line per player.
    Standings {
        /// The SQLite database (default: TARA_BOT_DB, the config file, or ./tara-bot.db).
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
enum DbCommand {
    /// Copy the database to FILE with SQLite's online backup API; safe while the bot runs.
    Backup {
        /// Where to write the copy (refused if it exists, unless --force).
        file: std::path::PathBuf,
        /// Replace FILE if it exists.
        #[arg(long)]
        force: bool,
        /// The SQLite database (default: TARA_BOT_DB, the config file, or ./tara-bot.db).
        #[arg(long)]
        db: Option<std::path::PathBuf>,
    },
    /// Check the database: SQLite's integrity check, whose file it is and its schema version.
    /// Exit status 0 when tara-bot can use it, 1 otherwise.
    Check {
        /// The SQLite database (default: TARA_BOT_DB, the config file, or ./tara-bot.db).
        #[arg(long)]
        db: Option<std::path::PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum BenchTarget {
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
}

/// The game and its moves, shared by `engine` and `render`.
#[derive(clap::Args)]
struct GameArgs {
    /// hkot-1, hkot-2, sacred-hill-1, sacred-hill-2 or ard-ri.
    #[arg(long, value_parser = parse_variant, required_unless_present = "record")]
    variant: Option<Variant>,
    /// Read the game from a record file (as `/record` and `/export` give it: `variant:`,
    /// `scoring:`, `first:` and `moves:` lines, `#` comments) instead of --variant, --scoring,
    /// --first and --moves.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["variant", "scoring", "first", "moves", "position"])]
    record: Option<std::path::PathBuf>,
    /// kingdoms or knots (knots only for hkot-1 and sacred-hill-1).
    #[arg(long, value_parser = parse_scoring)]
    scoring: Option<Scoring>,
    /// Who moves first: red or blue (Tara; default red). Ard Rí: always the attackers.
    #[arg(long, value_parser = parse_first)]
    first: Option<Side>,
    /// The moves, separated by spaces, e.g. "D4 B2 F6".
    #[arg(long, default_value = "")]
    moves: String,
    /// Ard Rí only: start from this position instead of the start, in the engine's position
    /// notation, e.g. "2aaa2/3a3/a1ddd1a/aadkdaa/a1ddd1a/3a3/2aaa2 a 0 0".
    #[arg(long, value_name = "NOTATION")]
    position: Option<String>,
}

impl GameArgs {
    /// The arguments with a `--record` file read into --variant, --scoring, --first and
    /// --moves; a file that cannot be read, or a record that does not read, is an error (exit
    /// status 1) that says why (which move, and why it is refused).
    fn read_record(mut self) -> Result<GameArgs, ExitCode> {
        let Some(path) = self.record.take() else {
            return Ok(self);
        };
        let text = std::fs::read_to_string(&path).map_err(|e| {
            say!("error: cannot read {}: {e}", path.display());
            ExitCode::from(1)
        })?;
        let record = tara_bot::game::GameRecord::parse(&text).map_err(|e| {
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
    fn options(&self, usage: &str) -> Result<GameOptions, ExitCode> {
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
    fn start(&self, usage: &str) -> Result<Position, ExitCode> {
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
            .map(Position::ArdRi)
            .map_err(|e| fail(format!("--position: {e}")))
    }
}

#[derive(clap::Args)]
struct EngineArgs {
    #[command(flatten)]
    game: GameArgs,
    /// One JSON line for the position after 0, 1, …, n moves.
    #[arg(long)]
    trace: bool,
    /// Print {"perft": N}: the number of legal move sequences of length D.
    #[arg(long, value_name = "D")]
    perft: Option<u32>,
}

#[derive(clap::Args)]
struct AnalyseArgs {
    #[command(flatten)]
    ai: AiArgs,
    /// Also draw the evaluation chart (PNG) into FILE.
    #[arg(long, value_name = "FILE")]
    chart: Option<std::path::PathBuf>,
}

#[derive(clap::Args)]
struct AiArgs {
    #[command(flatten)]
    game: GameArgs,
    /// The AI's strength, 1 (weak) to 5 (strongest, bounded by time).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=5))]
    level: u8,
    /// Think for this many milliseconds (the move may vary from run to run).
    #[arg(long, value_name = "N", conflicts_with = "budget", value_parser = clap::value_parser!(u64).range(1..=600_000))]
    ms: Option<u64>,
    /// Make exactly N playouts: the same position, seed and budget give the same move.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    budget: Option<u64>,
    /// The random generator's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("system").required(true).args(["round_robin", "dutch"])))]
struct PairArgs {
    /// Pair the next round of the TRF-16 tournament in FILE by the FIDE Dutch system: the
    /// number of pairs, then one pair per line as two starting ranks, White first, a bye as
    /// "N 0" (as bbpPairings prints them).
    #[arg(long, value_name = "FILE")]
    dutch: Option<std::path::PathBuf>,
    /// Print FIDE's Berger table for N players, one round per line ("Round 1: 1-6 2-5 3-4").
    #[arg(long, value_name = "N")]
    round_robin: Option<u32>,
    /// A double round robin: the last two rounds of the first cycle swapped, then the table
    /// again with colours reversed.
    #[arg(long, requires = "round_robin")]
    double: bool,
}

#[derive(clap::Args)]
struct RunArgs {
    /// The SQLite database (default: TARA_BOT_DB, the config file, or ./tara-bot.db).
    #[arg(long)]
    db: Option<std::path::PathBuf>,
}

#[derive(clap::Args)]
struct LocalArgs {
    /// The SQLite database (default: TARA_BOT_DB, the config file, or ./tara-bot.db).
    #[arg(long)]
    db: Option<std::path::PathBuf>,
    /// Folder for board images (default: TARA_BOT_IMAGES, the config file, or ./tara-images).
    #[arg(long)]
    images: Option<std::path::PathBuf>,
    /// Do not write board images (boards are still drawn as text).
    #[arg(long)]
    no_images: bool,
    /// Who you are at the start (switch with /as NAME).
    #[arg(long = "as", default_value = "alice")]
    user: String,
}

#[derive(clap::Args)]
struct RenderArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Draw the position after this many moves (default: all).
    #[arg(long)]
    ply: Option<usize>,
    /// The players' names, first seat first, separated by a comma ("Aoife,Brian").
    #[arg(long, value_name = "FIRST,SECOND", value_parser = parse_names)]
    names: Option<[String; 2]>,
    /// An animated GIF of the whole game instead of one position.
    #[arg(long)]
    replay: bool,
    /// Where to write the image: a .png file (one position), a .gif file (with --replay), or -
    /// for standard output.
    #[arg(short, long, value_name = "FILE")]
    output: std::path::PathBuf,
}

/// What `render -o` names: a file of one format, or standard output.
enum RenderTarget {
    File(std::path::PathBuf),
    Stdout,
}

impl RenderArgs {
    /// Where to write, or a usage message when `-o`'s extension does not match what is drawn
    /// (`.png` for one position, `.gif` for `--replay`).
    fn target(&self) -> Result<RenderTarget, String> {
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

fn parse_variant(s: &str) -> Result<Variant, String> {
    s.parse()
        .map_err(|e: tara_bot::game::UnknownVariant| e.to_string())
}
fn parse_scoring(s: &str) -> Result<Scoring, String> {
    s.parse()
}
fn parse_first(s: &str) -> Result<Side, String> {
    notation::parse_side(s)
}

/// `--names`: exactly two non-empty names separated by a comma.
fn parse_names(s: &str) -> Result<[String; 2], String> {
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

/// The database file: `--db`, else the configuration's; a configuration problem is reported
/// (exit status 2).
fn database(db: Option<std::path::PathBuf>) -> Result<std::path::PathBuf, ExitCode> {
    if let Some(db) = db {
        return Ok(db);
    }
    match tara_bot::config::Config::load() {
        Ok(c) => Ok(c.database),
        Err(e) => {
            say!("error: {e}");
            Err(ExitCode::from(2))
        }
    }
}

/// A database command's error as a sentence: one about a named file already names it; any
/// other is about the database.
fn about_file(doing: &str, db: &std::path::Path, e: &tara_bot::store::StoreError) -> String {
    match e {
        tara_bot::store::StoreError::File { .. } => e.to_string(),
        _ => format!("{doing} the database {}: {e}", db.display()),
    }
}

/// Whether an error comes from writing to a reader that has gone away.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Parses the command line; on an error prints it with the usage of the command concerned
/// (exit status 2).
fn parse_cli() -> Result<Cli, ExitCode> {
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

fn main() -> ExitCode {
    let cli = match parse_cli() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    match cli.command {
        Command::Engine(args) => run_engine(args),
        Command::Ai(args) => run_ai(args),
        Command::Analyse(args) => run_analyse(args),
        Command::Run(args) => run_discord(args),
        Command::Local(args) => match run_local(args) {
            Ok(()) => ExitCode::SUCCESS,
            // The reader of the output went away (`tara-bot local … | head`): end quietly.
            Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
            Err(e) => {
                say!("error: {e:#}");
                ExitCode::from(1)
            }
        },
        Command::Render(args) => run_render(args),
        Command::Db { command } => run_db(command),
        Command::Export { db, server } => run_export(db, server),
        Command::Tournament { command } => run_tournament(command),
        Command::Pair(args) => match match (&args.dutch, args.round_robin) {
            (Some(file), _) => std::fs::read_to_string(file)
                .map_err(|e| (format!("reading {}: {e}", file.display()), 1))
                .and_then(|text| {
                    pair::dutch_lines(&text).map_err(|e| {
                        let status = match e {
                            pair::DutchFileError::Unfinished { .. } => 2,
                            _ => 1,
                        };
                        (e.to_string(), status)
                    })
                }),
            (None, Some(n)) => {
                pair::round_robin_lines(n, args.double).map_err(|e| (e.to_string(), 1))
            }
            (None, None) => Err(("give --dutch FILE or --round-robin N".to_string(), 1)),
        } {
            Ok(lines) => {
                for l in lines {
                    out!("{l}");
                }
                ExitCode::SUCCESS
            }
            Err((e, status)) => {
                say!("error: {e}");
                ExitCode::from(status)
            }
        },
        Command::Bench {
            what,
            seconds,
            games,
            ms,
            variant,
            players,
        } => {
            if !(seconds > 0.0 && seconds.is_finite()) {
                say!("error: --seconds must be a positive number");
                return ExitCode::from(2);
            }
            if games == 0 {
                say!("error: --games must be at least 1 (the games per pairing of `bench ai`)");
                return ExitCode::from(2);
            }
            if ms == 0 {
                say!("error: --ms must be at least 1 (level 5's milliseconds per move in `bench ai`)");
                return ExitCode::from(2);
            }
            match what {
                BenchTarget::Engine => {
                    for (i, options) in bench::engine_configs().into_iter().enumerate() {
                        out!("{}", bench::engine_one(options, seconds, 0x7a7a + i as u64));
                    }
                }
                BenchTarget::Render => {
                    for variant in Variant::ALL {
                        out!("{}", bench::render_one(variant, seconds));
                    }
                    for line in bench::render_ratings(seconds) {
                        out!("{line}");
                    }
                }
                BenchTarget::Ai => {
                    for line in tara_bot::cli::bench_ai::ai(games, ms, variant) {
                        out!("{line}");
                    }
                }
                BenchTarget::Pair => {
                    for n in players {
                        out!("{}", bench_pair::pair_one(n, seconds));
                    }
                }
                BenchTarget::Tournament => match bench::tournament(&[16, 32, 64]) {
                    Ok(lines) => {
                        for l in lines {
                            out!("{l}");
                        }
                    }
                    Err(e) => {
                        say!("error: {e:#}");
                        return ExitCode::from(1);
                    }
                },
                BenchTarget::Service => {
                    match bench::service(seconds, 10_000).and_then(|mut lines| {
                        lines.extend(bench::archive(seconds, 100_000)?);
                        Ok(lines)
                    }) {
                        Ok(lines) => {
                            for l in lines {
                                out!("{l}");
                            }
                        }
                        Err(e) => {
                            say!("error: {e:#}");
                            return ExitCode::from(1);
                        }
                    }
                }
            }
            ExitCode::SUCCESS
        }
    }
}

fn run_tournament(command: TournamentCommand) -> ExitCode {
    let (db, id) = match &command {
        TournamentCommand::Export { db, id } | TournamentCommand::Standings { db, id, .. } => {
            (db.clone(), *id)
        }
    };
    let db = match database(db) {
        Ok(db) => db,
        Err(code) => return code,
    };
    let mut store = match tara_bot::store::Store::open_to_read(&db) {
        Ok(s) => s,
        Err(e) => {
            say!("error: {}", about_file("opening", &db, &e));
            return ExitCode::from(1);
        }
    };
    let lines = match command {
        TournamentCommand::Export { .. } => {
            tara_bot::cli::tournament::export(&mut store, id).map(|t| vec![t])
        }
        TournamentCommand::Standings { json, .. } => {
            tara_bot::cli::tournament::standings(&mut store, id, json)
        }
    };
    match lines {
        Ok(lines) => {
            for l in lines {
                out!("{}", l.trim_end_matches('\n'));
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            say!("error: {e}");
            ExitCode::from(1)
        }
    }
}

fn run_export(db: Option<std::path::PathBuf>, server: Option<String>) -> ExitCode {
    let db = match database(db) {
        Ok(db) => db,
        Err(code) => return code,
    };
    let mut store = match tara_bot::store::Store::open_to_read(&db) {
        Ok(s) => s,
        Err(e) => {
            say!("error: {}", about_file("opening", &db, &e));
            return ExitCode::from(1);
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result =
        tara_bot::cli::export::export(&mut store, server.as_deref(), &mut out).and_then(|n| {
            use std::io::Write as _;
            out.flush()?;
            Ok(n)
        });
    match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            say!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run_engine(mut args: EngineArgs) -> ExitCode {
    args.game = match args.game.read_record() {
        Ok(g) => g,
        Err(code) => return code,
    };
    let usage = "tara-bot engine --variant <id> [--scoring kingdoms|knots] [--first red|blue] [--position \"<notation>\"] [--moves \"<m1> <m2> ...\"] [--trace] [--perft D]\n       tara-bot engine --record FILE [--trace]";
    let start = match args.game.start(usage) {
        Ok(p) => p,
        Err(code) => return code,
    };
    match engine::run(start, &args.game.moves, args.trace, args.perft) {
        Ok(lines) => {
            for l in lines {
                out!("{l}");
            }
            ExitCode::SUCCESS
        }
        Err(engine::RunError::Move(lines, failure)) => {
            for l in lines {
                out!("{l}");
            }
            say!("{failure}");
            ExitCode::from(1)
        }
        Err(e @ engine::RunError::PerftTooDeep { .. }) => {
            say!("error: {e}\n\nUsage: {usage}");
            ExitCode::from(2)
        }
    }
}

/// What `ai` and `analyse` share: the game read (from `--record` too), where it starts, the
/// level and the bound.
struct AiSetup {
    moves: String,
    start: tara_bot::game::Position,
    level: tara_bot::ai::Level,
    bound: ai::Bound,
    seed: u64,
}

/// The usage lines of `ai` and `analyse` (which adds `[--chart FILE.png]`).
fn ai_usage(command: &str) -> String {
    let chart = if command == "analyse" {
        " [--chart FILE.png]"
    } else {
        ""
    };
    format!(
        "tara-bot {command} --variant <id> [--scoring kingdoms|knots] [--first red|blue] [--moves \"<m1> <m2> ...\" | --position \"<notation>\"] [--level 1..5] [--ms N | --budget N] [--seed S]{chart}\n       tara-bot {command} --record FILE [--level 1..5] [--ms N | --budget N] [--seed S]{chart}"
    )
}

fn ai_setup(mut args: AiArgs, command: &str) -> Result<AiSetup, ExitCode> {
    args.game = args.game.read_record()?;
    let usage = ai_usage(command);
    let start = args.game.start(&usage)?;
    Ok(AiSetup {
        moves: args.game.moves,
        start,
        level: tara_bot::ai::Level::new(args.level).expect("clap checks the range"),
        bound: match (args.ms, args.budget) {
            (Some(ms), _) => ai::Bound::Millis(ms),
            (None, Some(n)) => ai::Bound::Playouts(n),
            (None, None) => ai::Bound::Level,
        },
        seed: args.seed,
    })
}

fn run_analyse(args: AnalyseArgs) -> ExitCode {
    // The chart is a PNG file (standard output holds the JSON line).
    if let Some(path) = &args.chart {
        let png = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("png"));
        if !png {
            say!(
                "error: --chart {}: the chart is a PNG image, so name a .png file (e.g. --chart chart.png)\n\nUsage: {}",
                path.display(),
                ai_usage("analyse")
            );
            return ExitCode::from(2);
        }
    }
    let s = match ai_setup(args.ai, "analyse") {
        Ok(s) => s,
        Err(code) => return code,
    };
    match analyse::run(s.start, &s.moves, s.level, s.bound, s.seed) {
        Ok((line, png)) => {
            if let Some(path) = args.chart {
                if let Err(e) = std::fs::write(&path, png) {
                    say!("error: cannot write {}: {e}", path.display());
                    return ExitCode::from(1);
                }
            }
            out!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            say!("{e}");
            ExitCode::from(1)
        }
    }
}

fn run_ai(args: AiArgs) -> ExitCode {
    let s = match ai_setup(args, "ai") {
        Ok(s) => s,
        Err(code) => return code,
    };
    match ai::run(s.start, &s.moves, s.level, s.bound, s.seed) {
        Ok(line) => {
            out!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            say!("{e}");
            ExitCode::from(1)
        }
    }
}

fn run_render(mut args: RenderArgs) -> ExitCode {
    let usage = "tara-bot render --variant <id> [--scoring ..] [--first ..] [--position \"<notation>\"] --moves \"<...>\" [--ply N | --replay] [--names \"A,B\"] -o FILE.png|FILE.gif|-\n       tara-bot render --record FILE [--ply N | --replay] [--names \"A,B\"] -o FILE.png|FILE.gif|-";
    args.game = match args.game.read_record() {
        Ok(g) => g,
        Err(code) => return code,
    };
    let start = match args.game.start(usage) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let target = match args.target() {
        Ok(t) => t,
        Err(message) => {
            say!("error: {message}\n\nUsage: {usage}");
            return ExitCode::from(2);
        }
    };
    if args.replay && args.game.position.is_some() {
        say!("error: --replay draws a whole game from its start, so it cannot be combined with --position\n\nUsage: {usage}");
        return ExitCode::from(2);
    }
    if args.replay && args.ply.is_some() {
        say!("error: --ply draws the position after one move, and --replay the whole game: give one of them\n\nUsage: {usage}");
        return ExitCode::from(2);
    }
    let options = start.options();
    let mut moves = Vec::new();
    let replayed = engine::replay_from(start.clone(), &args.game.moves, |_| {});
    let pos = match replayed {
        Ok(pos) => pos,
        Err(failure) => {
            say!("{failure}");
            return ExitCode::from(1);
        }
    };
    for text in engine::split_moves(&args.game.moves) {
        moves.push(pos.parse_move(text).expect("checked by the replay"));
    }
    let names = args.names.clone().unwrap_or_default();
    let bytes = if args.replay {
        render::replay_gif(options, &moves, &names)
    } else {
        let ply = args.ply.unwrap_or(moves.len());
        if ply > moves.len() {
            say!(
                "error: --ply {ply} is past the end of the game ({} moves)",
                moves.len()
            );
            return ExitCode::from(2);
        }
        let mut pos = start;
        for m in &moves[..ply] {
            pos.play_unchecked(*m);
        }
        let last = ply.checked_sub(1).map(|i| moves[i]);
        render::board_png(&pos, &render::Frame::new(names, last))
    };
    match target {
        RenderTarget::File(path) => {
            if let Err(e) = std::fs::write(&path, bytes) {
                say!("error: cannot write {}: {e}", path.display());
                return ExitCode::from(1);
            }
        }
        RenderTarget::Stdout => {
            use std::io::Write as _;
            let mut stdout = std::io::stdout().lock();
            if let Err(e) = stdout.write_all(&bytes).and_then(|()| stdout.flush()) {
                if e.kind() != std::io::ErrorKind::BrokenPipe {
                    say!("error: writing the image to standard output: {e}");
                    return ExitCode::from(1);
                }
            }
        }
    }
    ExitCode::SUCCESS
}

fn run_db(command: DbCommand) -> ExitCode {
    match command {
        DbCommand::Backup { file, force, db } => {
            let db = match database(db) {
                Ok(db) => db,
                Err(code) => return code,
            };
            if file.exists() {
                let same = match (std::fs::canonicalize(&file), std::fs::canonicalize(&db)) {
                    (Ok(a), Ok(b)) => a == b,
                    _ => false,
                };
                if same {
                    say!(
                        "error: {} is the database itself; name another file for the backup",
                        file.display()
                    );
                    return ExitCode::from(2);
                }
                if !force {
                    say!(
                        "error: {} already exists; name another file, or add --force to replace it",
                        file.display()
                    );
                    return ExitCode::from(1);
                }
            }
            match tara_bot::store::backup(&db, &file) {
                Ok(s) => {
                    let count =
                        |n: i64, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
                    out!(
                        "backed up {} to {}: {}, {}, schema {}, {} bytes",
                        db.display(),
                        file.display(),
                        count(s.games, "game"),
                        count(s.moves, "move"),
                        s.schema_version,
                        s.bytes
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    say!("error: {}", about_file("backing up", &db, &e));
                    ExitCode::from(1)
                }
            }
        }
        DbCommand::Check { db } => {
            let db = match database(db) {
                Ok(db) => db,
                Err(code) => return code,
            };
            match tara_bot::store::check(&db) {
                Ok(report) => {
                    out!("database: {}", db.display());
                    out!("{report}");
                    if report.is_fine() {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::from(1)
                    }
                }
                Err(e) => {
                    say!("error: {}", about_file("checking", &db, &e));
                    ExitCode::from(1)
                }
            }
        }
    }
}

fn init_logging() {
    init_logging_at("warn", Vec::new());
}

/// Libraries that log requests, payloads and tokens below info: kept at info unless named.
const QUIET_TARGETS: &[&str] = &[
    "serenity",
    "h2",
    "hyper",
    "hyper_util",
    "reqwest",
    "rustls",
    "tungstenite",
    "tokio_tungstenite",
    "tower",
];

/// The log filter: `RUST_LOG` (else `default`); when that turns on debug or trace for every
/// target, the libraries that would log requests and payloads (with interaction tokens) stay
/// at info, unless it names them itself.
fn log_directives(user: Option<&str>, default: &str) -> String {
    let mut d = user
        .filter(|u| !u.trim().is_empty())
        .unwrap_or(default)
        .to_string();
    let verbose = d.split(',').any(|x| {
        matches!(
            x.trim().to_ascii_lowercase().as_str(),
            "debug" | "trace" | "4" | "5"
        )
    });
    if verbose {
        for t in QUIET_TARGETS {
            let named = d.split(',').any(|x| {
                x.trim()
                    .strip_prefix(t)
                    .is_some_and(|r| r.is_empty() || r.starts_with(['=', '[', ':']))
            });
            if !named {
                d.push_str(&format!(",{t}=info"));
            }
        }
    }
    d
}

/// Log lines go to standard error, each line with `secrets` (the bot token) and interaction
/// tokens taken out.
struct RedactedStderr {
    secrets: std::sync::Arc<Vec<String>>,
}

/// One log line, written out (redacted) when the logger is done with it.
struct RedactedLine {
    secrets: std::sync::Arc<Vec<String>>,
    line: Vec<u8>,
}

impl std::io::Write for RedactedLine {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.line.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for RedactedLine {
    fn drop(&mut self) {
        let text = String::from_utf8_lossy(&self.line);
        let secrets: Vec<&str> = self.secrets.iter().map(String::as_str).collect();
        let clean = tara_bot::discord::redact(&text, &secrets);
        let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), clean.as_bytes());
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for RedactedStderr {
    type Writer = RedactedLine;
    fn make_writer(&'a self) -> RedactedLine {
        RedactedLine {
            secrets: self.secrets.clone(),
            line: Vec::new(),
        }
    }
}

/// Log lines go to standard error only (standard output is the console's or a command's own
/// output), coloured only when standard error is a terminal. Tokens never reach the log:
/// serenity's spans (which record whole requests, their URLs carrying interaction tokens) are
/// left out at every level, the libraries below it log at info at most unless `RUST_LOG` names
/// them, and every line is scrubbed of `secrets` and interaction tokens.
fn init_logging_at(default: &str, secrets: Vec<String>) {
    use std::io::IsTerminal;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::Layer;
    let user = std::env::var("RUST_LOG").ok();
    let directives = log_directives(user.as_deref(), default);
    let filter = tracing_subscriber::EnvFilter::try_new(&directives)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let no_serenity_spans = tracing_subscriber::filter::filter_fn(|m| {
        !(m.is_span() && m.target().starts_with("serenity"))
    });
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(RedactedStderr {
            secrets: std::sync::Arc::new(secrets),
        })
        .with_ansi(std::io::stderr().is_terminal())
        .with_filter(no_serenity_spans)
        .with_filter(filter);
    let _ = tracing_subscriber::registry().with(layer).try_init();
}

fn run_local(args: LocalArgs) -> Result<()> {
    use std::io::IsTerminal;
    use tara_bot::bot::{Bot, OffsetClock, SystemClock};
    init_logging();
    let config = tara_bot::config::Config::load()?;
    let db = args.db.unwrap_or(config.database);
    let store = tara_bot::store::Store::open(&db)
        .map_err(|e| anyhow::anyhow!(about_file("opening", &db, &e)))?;
    tracing::info!(
        database = %db.display(),
        schema = store.schema_version().unwrap_or_default(),
        "database opened and checked"
    );
    let seed = SystemClock.now_ms() as u64;
    // Real time, which `/time +2d` can move forward to try the clocks.
    let clock = std::sync::Arc::new(OffsetClock::default());
    let bot = Bot::new(store, clock, seed).with_images(!args.no_images);
    let images = (!args.no_images).then(|| args.images.unwrap_or(config.images));
    let mut console =
        tara_bot::console::Console::new(&bot, &args.user, images).with_ai_ms(config.ai.ms);
    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    let mut out = std::io::stdout().lock();
    if interactive {
        console.run_terminal(&mut out)?;
    } else {
        console.run(stdin.lock(), &mut out, false)?;
    }
    Ok(())
}

fn run_discord(args: RunArgs) -> ExitCode {
    use tara_bot::bot::{Bot, SystemClock};
    let config = match tara_bot::config::Config::load() {
        Ok(c) => c,
        Err(e) => {
            say!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let token = match tara_bot::discord::token(config.discord_token_file.as_deref()) {
        Ok(t) => t,
        Err(message) => {
            say!("{message}");
            return ExitCode::from(2);
        }
    };
    init_logging_at("tara_bot=info,warn", vec![token.clone()]);
    let db = args.db.unwrap_or(config.database);
    let store = match tara_bot::store::Store::open(&db) {
        Ok(s) => s,
        Err(e) => {
            say!("error: {}", about_file("opening", &db, &e));
            return ExitCode::from(1);
        }
    };
    tracing::info!(database = %db.display(), "database opened and checked");
    render::warm_up();
    let bot = std::sync::Arc::new(
        Bot::new(
            store,
            std::sync::Arc::new(SystemClock),
            SystemClock.now_ms() as u64,
        )
        .with_rate_limit(config.rate_limit),
    );
    let settings = tara_bot::discord::Settings {
        token,
        guild: config.discord_guild_id,
        proxy_url: config.discord_proxy_url,
        ai: config.ai,
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            say!("error: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(tara_bot::discord::run(bot, settings)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            say!("error: {}", tara_bot::discord::error_chain(&*e));
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::log_directives;

    #[test]
    fn debug_for_everything_keeps_the_http_and_gateway_libraries_at_info() {
        let d = log_directives(Some("debug"), "warn");
        assert!(
            d.starts_with("debug,") && d.contains(",serenity=info") && d.contains(",hyper=info")
        );
        // Named by the user: left as asked.
        let d = log_directives(Some("trace,serenity=debug"), "warn");
        assert!(
            !d.contains("serenity=info") && d.contains("reqwest=info"),
            "{d}"
        );
        // Nothing verbose: nothing added; no RUST_LOG: the default.
        assert_eq!(
            log_directives(Some("warn,tara_bot=debug"), "x"),
            "warn,tara_bot=debug"
        );
        assert_eq!(
            log_directives(None, "tara_bot=info,warn"),
            "tara_bot=info,warn"
        );
        assert_eq!(log_directives(Some(" "), "warn"), "warn");
    }
}
