//! The commands on one game: `engine`, `ai`, `analyse` and `render`.

use super::args::{AiArgs, AnalyseArgs, EngineArgs, RenderArgs, RenderTarget};
use super::{ai, analyse, engine};
use crate::render;
use std::process::ExitCode;

pub(crate) fn run_engine(mut args: EngineArgs) -> ExitCode {
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
    start: crate::game::Position,
    level: crate::ai::Level,
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
        level: crate::ai::Level::new(args.level).expect("clap checks the range"),
        bound: match (args.ms, args.budget) {
            (Some(ms), _) => ai::Bound::Millis(ms),
            (None, Some(n)) => ai::Bound::Playouts(n),
            (None, None) => ai::Bound::Level,
        },
        seed: args.seed,
    })
}

pub(crate) fn run_analyse(args: AnalyseArgs) -> ExitCode {
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
    // On the level's own budget, levels 1 and 2 cannot judge (with --budget or --ms the bound
    // is the caller's).
    if let (ai::Bound::Level, Some(why)) = (s.bound, crate::ai::too_weak_to_judge(s.level)) {
        say!(
            "error: --level {}: {why} (Or give the search its own bound with --budget or --ms.)\n\nUsage: {}",
            s.level,
            ai_usage("analyse")
        );
        return ExitCode::from(2);
    }
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

pub(crate) fn run_ai(args: AiArgs) -> ExitCode {
    let s = match ai_setup(args, "ai") {
        Ok(s) => s,
        Err(code) => return code,
    };
    let threads = match crate::config::ai_threads_from_env() {
        Ok(n) => n,
        Err(e) => {
            say!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match ai::run(s.start, &s.moves, s.level, s.bound, s.seed, threads) {
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

pub(crate) fn run_render(mut args: RenderArgs) -> ExitCode {
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
