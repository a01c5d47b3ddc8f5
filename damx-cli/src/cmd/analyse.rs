//! `damx analyse`: search one position with the built-in engine, printing a line per completed
//! depth (score, nodes, speed, time, principal variation) and then the best move.
//!
//! The search runs on its own thread and reports each iteration over a channel; this thread
//! prints what arrives and, between reports, keeps a progress line on a terminal. If standard
//! output fails, the search is stopped through its stop signal rather than left running.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use crossbeam_channel::Sender;
use damx_engine::{AnalysisLine, Engine, Progress as Iteration, StopSignal};
use damx_rules::pdn::{self, GameAtError};
use damx_rules::{Game, Position};

use crate::args::AnalyseArgs;
use crate::error::Error;
use crate::input::read_text;
use crate::log::{info, note};
use crate::progress::Progress;

/// What `analyse` looks at: a position given on the command line, or a PDN file.
#[derive(Debug, Clone)]
pub(crate) enum Subject {
    /// A FEN or `startpos`.
    Position(Position),
    /// A PDN file (`-` for standard input).
    Pdn(PathBuf),
}

/// Searches and prints.
pub(crate) fn run(args: &AnalyseArgs, out: &mut dyn Write) -> Result<(), Error> {
    let game = load_game(args)?;
    let root = *game.position();
    let (options, limits) = (args.engine.options(), args.limits());
    info!(
        "analysing {} with {} thread(s) and {} MiB of hash",
        root.to_fen(),
        options.threads,
        options.hash_mb
    );
    if !args.json {
        writeln!(out, "{}\n{}\n", root.diagram(), root.to_fen())
            .and_then(|()| out.flush())
            .map_err(Error::stdout)?;
    }
    // As text, the column titles come with the first completed depth.
    let mut titled = args.json;
    let mut print = |line: &AnalysisLine, out: &mut dyn Write| {
        if !titled && matches!(line, AnalysisLine::Iteration { .. }) {
            titled = true;
            writeln!(out, "{}", AnalysisLine::TITLES).map_err(Error::stdout)?;
        }
        super::print(out, line, args.json)
    };

    let asked = options.hash_mb;
    let mut engine = Engine::new(options);
    if engine.options().hash_mb < asked {
        note!(
            "the system refused {asked} MiB for the table: searching with {} MiB",
            engine.options().hash_mb
        );
    }
    let stop = StopSignal::new();
    let mut progress = Progress::new();
    let mut write_error = None;
    let start = Instant::now();
    let mut last_depth = 0;
    let search = |send: &Sender<Iteration>| {
        engine.search(&game, &limits, &stop, &mut |it| drop(send.send(it.clone())))
    };
    let result = super::in_background(search, |iteration| match iteration {
        Some(iteration) => {
            progress.clear();
            last_depth = iteration.depth;
            let line = AnalysisLine::iteration(&root, &iteration);
            if let Err(e) = print(&line, out).and_then(|()| out.flush().map_err(Error::stdout)) {
                write_error = Some(e);
                stop.stop();
            }
        }
        None => progress.update(|| {
            let seconds = start.elapsed().as_secs_f64();
            format!("searching depth {}, {seconds:.1} s", last_depth + 1)
        }),
    });
    progress.clear();
    if let Some(e) = write_error {
        return Err(e);
    }
    print(&AnalysisLine::result(&root, &result), out)
}

/// The game whose last position is analysed: a one-position game for a FEN, else the chosen
/// game of the PDN file, cut after `--ply` plies.
fn load_game(args: &AnalyseArgs) -> Result<Game, Error> {
    let path = match &args.subject {
        Subject::Position(position) => {
            if args.ply.is_some() || args.game != 1 {
                return Err(Error::Usage(
                    "--game and --ply choose a position in a PDN file, not in a FEN".to_owned(),
                ));
            }
            return Ok(Game::new(*position));
        }
        Subject::Pdn(path) => path,
    };
    if path.as_os_str() != "-"
        && !path.exists()
        && path.extension().is_none()
        && path.parent() == Some(Path::new(""))
    {
        // A word that is no file: most likely a FEN or `startpos` mistyped.
        let why = io::Error::new(io::ErrorKind::NotFound, "not a FEN, `startpos` or a file");
        return Err(Error::file("read", path, why));
    }
    let text = read_text(path)?;
    pdn::game_at(&text, args.game as usize, args.ply).map_err(|error| {
        // A text that does not read is bad input; a game or ply it lacks, a bad option.
        let message = format!("{}: {error}", path.display());
        match error {
            GameAtError::Pdn(_) | GameAtError::Replay { .. } => Error::Invalid(message),
            GameAtError::NoGame { .. } | GameAtError::NoPly { .. } => Error::Usage(message),
        }
    })
}
