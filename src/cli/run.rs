//! The command line's entry: the command read, then run.

use super::args::{parse_cli, BenchTarget, Command, PairArgs};
use super::output::is_broken_pipe;
use super::run_bot::{run_discord, run_local, run_web};
use super::run_game::{run_ai, run_analyse, run_engine, run_render};
use super::run_store::{run_db, run_export, run_ladder, run_league, run_tournament};
use super::{bench, bench_pair, pair};
use crate::game::Variant;
use std::process::ExitCode;

/// Runs the `tara-bot` command line and gives its exit status.
pub fn main() -> ExitCode {
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
        Command::Web {
            listen,
            db,
            url,
            rate_limit,
        } => run_web(listen, db, url, rate_limit),
        Command::Export { db, server } => run_export(db, server),
        Command::Tournament { command } => run_tournament(command),
        Command::Ladder { command } => run_ladder(command),
        Command::League { command } => run_league(command),
        Command::Pair(args) => run_pair(args),
        Command::Bench {
            what,
            seconds,
            games,
            ms,
            variant,
            pairings,
            jobs,
            players,
            db,
        } => run_bench(
            what,
            seconds,
            games,
            ms,
            AiBench {
                variant,
                pairings,
                jobs,
            },
            players,
            db,
        ),
    }
}

/// `pair`: a Dutch round of a TRF-16 file, or the Berger tables of a round robin.
fn run_pair(args: PairArgs) -> ExitCode {
    match match (&args.dutch, args.round_robin) {
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
        (None, Some(n)) => pair::round_robin_lines(n, args.double).map_err(|e| (e.to_string(), 1)),
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
    }
}

/// What `bench ai` measures besides the games and time: a variant, pairings, games at once.
struct AiBench {
    variant: Option<Variant>,
    pairings: Vec<super::bench_ai::Pairing>,
    jobs: usize,
}

/// `bench`: the measurements of `what`, one line each.
fn run_bench(
    what: BenchTarget,
    seconds: f64,
    games: u32,
    ms: u64,
    ai: AiBench,
    players: Vec<u32>,
    db: Option<String>,
) -> ExitCode {
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
            if ai.jobs == 0 {
                say!("error: --jobs must be at least 1 (the games `bench ai` plays at once)");
                return ExitCode::from(2);
            }
            let pairings = if ai.pairings.is_empty() {
                super::bench_ai::pairings()
            } else {
                ai.pairings
            };
            let threads = match crate::config::ai_threads_from_env() {
                Ok(n) => n,
                Err(e) => {
                    say!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let clock = super::bench_ai::Clock { ms, threads };
            for line in super::bench_ai::ai(games, clock, ai.variant, &pairings, ai.jobs) {
                out!("{line}");
            }
        }
        BenchTarget::Pair => {
            for n in players {
                out!("{}", bench_pair::pair_one(n, seconds));
            }
        }
        BenchTarget::Tournament => return print_lines(bench::tournament(&[16, 32, 64])),
        BenchTarget::League => return print_lines(bench::league(200)),
        BenchTarget::Discord => return print_lines(super::bench_discord::league(200)),
        BenchTarget::Web => return print_lines(super::bench_web::web(seconds)),
        BenchTarget::Processes => {
            let Some(url) = db else {
                say!("error: bench processes needs --db postgres://… (a database it may create a schema in)");
                return ExitCode::from(2);
            };
            return print_lines(super::bench_processes::processes(&url, seconds));
        }
        BenchTarget::ProcessMoves | BenchTarget::ProcessAi => {
            let Some(url) = db else {
                say!("error: --db is required");
                return ExitCode::from(2);
            };
            let url = std::path::Path::new(&url);
            let line = match what {
                BenchTarget::ProcessMoves => super::bench_processes::process_moves(url, seconds),
                _ => super::bench_processes::process_ai(url, seconds),
            };
            return print_lines(line.map(|l| vec![l]));
        }
        BenchTarget::Service => {
            return print_lines(bench::service(seconds, 10_000, db.as_deref()).and_then(
                |mut lines| {
                    lines.extend(bench::archive(seconds, 100_000)?);
                    Ok(lines)
                },
            ))
        }
    }
    ExitCode::SUCCESS
}

/// The lines of a measurement that can fail, or its error (exit status 1).
fn print_lines(lines: anyhow::Result<Vec<serde_json::Value>>) -> ExitCode {
    match lines {
        Ok(lines) => {
            for l in lines {
                out!("{l}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            say!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}
