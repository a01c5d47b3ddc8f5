//! [`run_hub`]: the damx engine behind a Hub client, over any reader and writer (standard input
//! and output in `damx hub`).
//!
//! Three threads: a reader that cuts the input into lines (at most [`MAX_LINE`] bytes; a
//! longer line is dropped and reported), a searcher that owns the [`Engine`] (made at the
//! first search, so `init` is answered at once) and the loop here, which hands lines to
//! [`HubState`], writes its answers and the searcher's `info` lines, and keeps answering
//! `ping` and `stop` while the searcher thinks. End of input stops the search and returns.

use std::io::{self, BufReader, Read, Write};
use std::path::PathBuf;
use std::thread;
use std::time::{Instant, SystemTime};

use crossbeam_channel::{Receiver, Sender, after, bounded, never, select, unbounded};
use damx_engine::egdb::{EgdbLocation, SharedEgdb};
use damx_engine::pattern::PatternWeights;
use damx_engine::{Engine, EngineOptions, EvalParams, Limits, StopSignal};
use damx_rules::{Game, Move};
use damx_wire::LineReader;

use super::engine::{Action, GoMode, HubOptions, HubState, MAX_SKILL, SearchJob, info_line};
use super::protocol::Line;

/// The longest line read; longer ones are dropped with an error.
pub const MAX_LINE: usize = 64 * 1024;

/// What the reader thread saw.
enum Input {
    Line(String),
    TooLong,
    End,
}

/// What the searcher reports.
enum Report {
    Line(Line),
    Done { best: Move, pv: Vec<Move> },
}

/// How a Hub conversation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HubExit {
    /// The client sent `quit`.
    Quit,
    /// The input ended.
    EndOfInput,
}

/// Serves one Hub client reading `input` and writing `output` until `quit` or the end of the
/// input. `name` and `version` go into the `id` line.
///
/// # Errors
/// The error of a failed write (the client is gone); the search is stopped first.
pub fn run_hub<R, W>(
    input: R,
    output: &mut W,
    options: HubOptions,
    name: &str,
    version: &str,
) -> io::Result<HubExit>
where
    R: Read + Send + 'static,
    W: Write + ?Sized,
{
    // Bounded: a client that writes without reading our answers waits on its pipe (while we
    // wait on ours) instead of filling our memory.
    let (lines_tx, lines) = bounded::<Input>(LINES_QUEUED);
    // The reader may block on input forever; it is not joined.
    thread::Builder::new()
        .name("damx-hub-reader".into())
        .spawn(move || read_lines(input, &lines_tx))?;
    let (jobs_tx, jobs) = unbounded::<Job>();
    let (reports_tx, reports) = unbounded::<Report>();
    let searcher = thread::Builder::new()
        .name("damx-hub-search".into())
        .spawn(move || search_loop(&jobs, &reports_tx))?;

    let mut state = HubState::new(options, name, version);
    let mut stop = StopSignal::new();
    let mut deadline: Option<Instant> = None;
    let outcome = (|| -> io::Result<HubExit> {
        loop {
            let timer = deadline.map_or_else(never, |at| {
                after(at.saturating_duration_since(Instant::now()))
            });
            let actions = select! {
                recv(lines) -> input => match input {
                    Ok(Input::Line(text)) => state.handle_line(&text),
                    Ok(Input::TooLong) => state.line_too_long(MAX_LINE),
                    Ok(Input::End) | Err(_) => return Ok(HubExit::EndOfInput),
                },
                recv(reports) -> report => match report {
                    Ok(Report::Line(line)) => vec![Action::Send(line)],
                    Ok(Report::Done { best, pv }) => {
                        deadline = None;
                        state.search_done(best, &pv)
                    }
                    Err(_) => return Err(io::Error::other("the search thread ended")),
                },
                recv(timer) -> _ => {
                    deadline = None;
                    stop.stop();
                    Vec::new()
                },
            };
            for action in actions {
                match action {
                    Action::Send(line) => writeln!(output, "{line}")?,
                    Action::Search(job) => {
                        stop = StopSignal::new();
                        let _ = jobs_tx.send(Job::Search(job, stop.clone()));
                    }
                    Action::Stop => stop.stop(),
                    Action::PonderHit(budget) => deadline = Some(Instant::now() + budget),
                    Action::NewGame => {
                        let _ = jobs_tx.send(Job::NewGame);
                    }
                    Action::Ready => {
                        for problem in path_problems(state.options()) {
                            writeln!(output, "{}", Line::new("error").arg("message", problem))?;
                        }
                        writeln!(output, "ready")?;
                    }
                    Action::Quit => return Ok(HubExit::Quit),
                }
            }
            output.flush()?;
        }
    })();
    stop.stop();
    drop(jobs_tx);
    let _ = searcher.join();
    outcome
}

/// What is wrong with the paths among the parameters (they are kept all the same).
fn path_problems(options: &HubOptions) -> Vec<String> {
    let mut problems = Vec::new();
    if let Some(dir) = &options.egdb
        && !dir.is_dir()
    {
        problems.push(format!(
            "egdb: {} is not a directory (kept, not used)",
            dir.display()
        ));
    }
    if let Some(file) = &options.weights
        && !file.is_file()
    {
        problems.push(format!(
            "weights: {} is not a file (the built-in weights are used)",
            file.display()
        ));
    }
    problems
}

/// How many of the client's lines wait to be handled before the reader waits.
const LINES_QUEUED: usize = 256;

/// Cuts the input into lines of at most [`MAX_LINE`] bytes (invalid UTF-8 replaced); a read
/// error is the end of the input.
fn read_lines<R: Read>(input: R, lines: &Sender<Input>) {
    let mut reader = LineReader::new(BufReader::new(input), MAX_LINE);
    while let Ok(Some(line)) = reader.next_line() {
        let input = match line.item {
            Ok(bytes) => Input::Line(String::from_utf8_lossy(bytes).into_owned()),
            Err(_) => Input::TooLong,
        };
        if lines.send(input).is_err() {
            return;
        }
    }
    let _ = lines.send(Input::End);
}

/// Work for the searcher.
enum Job {
    Search(Box<SearchJob>, StopSignal),
    NewGame,
}

/// The engine as it was built, to rebuild it when the parameters change.
struct Built {
    engine: Engine,
    options: EngineOptions,
    weights: Option<PathBuf>,
    egdb: Option<PathBuf>,
}

fn search_loop(jobs: &Receiver<Job>, reports: &Sender<Report>) {
    let mut built: Option<Built> = None;
    let mut seed = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0x5eed, |d| d.as_nanos() as u64);
    for job in jobs {
        let (job, stop) = match job {
            Job::NewGame => {
                if let Some(built) = &mut built {
                    built.engine.new_game();
                }
                continue;
            }
            Job::Search(job, stop) => (job, stop),
        };
        let stale = built.as_ref().is_none_or(|b| {
            b.options.threads != job.options.engine.threads
                || b.options.hash_mb != job.options.engine.hash_mb
                || b.options.contempt != job.options.engine.contempt
                || b.weights != job.options.weights
                || b.egdb != job.options.egdb
        });
        if stale {
            let mut options = job.options.engine.clone();
            if let Some(path) = &job.options.weights {
                match PatternWeights::load(path) {
                    Ok(weights) => {
                        options.eval = EvalParams::with_patterns(std::sync::Arc::new(weights))
                    }
                    Err(e) => {
                        let _ = reports.send(Report::Line(Line::new("error").arg(
                            "message",
                            format!(
                                "weights: cannot use {}: {e}; the built-in weights are used",
                                path.display()
                            ),
                        )));
                    }
                }
            }
            if let Some(dir) = job.options.egdb.as_deref().filter(|dir| dir.is_dir()) {
                options.egdb = open_egdb(dir, reports);
            }
            built = Some(Built {
                engine: Engine::new(options.clone()),
                options: job.options.engine.clone(),
                weights: job.options.weights.clone(),
                egdb: job.options.egdb.clone(),
            });
        }
        let Some(built) = &mut built else { continue };
        seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let (best, pv) = search(&mut built.engine, &job, &stop, reports, seed);
        if reports.send(Report::Done { best, pv }).is_err() {
            return;
        }
    }
}

/// The endgame databases of `dir` for the engine, loaded once per process
/// ([`SharedEgdb::load`]); what cannot be used (damaged files, an empty or unreadable
/// directory) is reported as `error` lines, and the engine plays on with what loaded (or
/// without).
fn open_egdb(dir: &std::path::Path, reports: &Sender<Report>) -> Option<SharedEgdb> {
    let loaded = SharedEgdb::load(&EgdbLocation::Dir(dir.to_path_buf()));
    for note in loaded.notes.iter().filter(|note| note.is_problem()) {
        let _ = reports.send(Report::Line(
            Line::new("error").arg("message", note.to_string()),
        ));
    }
    loaded.egdb
}

/// The nodes a search may use at skill `level` below the full strength.
pub fn skill_nodes(level: u32) -> u64 {
    // From 500 nodes at level 1, doubling every two levels: about 500k at level 19.
    500u64 << (level.saturating_sub(1) / 2).min(20)
}

/// How far below the best score (centi-men) a move may be and still be picked at `level`.
pub fn skill_margin(level: u32) -> i32 {
    (MAX_SKILL.saturating_sub(level) as i32) * 12
}

/// One search: the engine's best move and PV, or at a reduced skill, a move picked among
/// those the short searches found near the best.
fn search(
    engine: &mut Engine,
    job: &SearchJob,
    stop: &StopSignal,
    reports: &Sender<Report>,
    seed: u64,
) -> (Move, Vec<Move>) {
    let skill = job.options.skill.min(MAX_SKILL);
    let weakened = skill < MAX_SKILL && job.mode != GoMode::Analyze;
    let mut limits = job.limits.clone();
    if weakened {
        let cap = skill_nodes(skill);
        limits.nodes = Some(limits.nodes.map_or(cap, |n| n.min(cap)));
    }
    let mut observer = |progress: &damx_engine::Progress| {
        let _ = reports.send(Report::Line(info_line(progress)));
    };
    let result = engine.search(&job.game, &limits, stop, &mut observer);
    let legal = job.game.position().legal_moves();
    let best = result
        .best_move
        .or_else(|| legal.first().copied())
        .expect("a search is only started on a position with a legal move");
    if !weakened || legal.len() < 2 || stop.is_stopped() {
        return (best, result.pv);
    }
    // Score every move with a short search of its own, then pick at random among those within
    // the margin of the best.
    let per_move = (skill_nodes(skill) / legal.len() as u64).max(50);
    let mut scored = Vec::with_capacity(legal.len());
    for &mv in &legal {
        let mut game: Game = job.game.clone();
        game.play(mv);
        let score = if game.position().has_legal_move() {
            -engine
                .search(&game, &Limits::nodes(per_move), stop, &mut |_| {})
                .score
                .value()
        } else {
            damx_engine::Score::WIN.value()
        };
        scored.push((mv, score));
    }
    let top = scored.iter().map(|&(_, s)| s).max().unwrap_or(0);
    let near: Vec<Move> = scored
        .iter()
        .filter(|&&(_, s)| s >= top - skill_margin(skill))
        .map(|&(mv, _)| mv)
        .collect();
    let pick = near[(splitmix(seed) % near.len() as u64) as usize];
    let pv = if pick == best { result.pv } else { vec![pick] };
    (pick, pv)
}

fn splitmix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hub::protocol::parse_move;
    use damx_rules::Position;
    use std::time::Duration;

    /// Standard input fed line by line from a channel.
    struct ChannelReader {
        chunks: Receiver<Vec<u8>>,
        left: Vec<u8>,
    }

    impl Read for ChannelReader {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.left.is_empty() {
                match self.chunks.recv() {
                    Ok(chunk) => self.left = chunk,
                    Err(_) => return Ok(0),
                }
            }
            let n = buf.len().min(self.left.len());
            buf[..n].copy_from_slice(&self.left[..n]);
            self.left.drain(..n);
            Ok(n)
        }
    }

    /// Standard output sent line by line to a channel.
    struct ChannelWriter {
        partial: Vec<u8>,
        lines: Sender<String>,
    }

    impl Write for ChannelWriter {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            for &b in buf {
                if b == b'\n' {
                    let line = String::from_utf8_lossy(&self.partial).into_owned();
                    let _ = self.lines.send(line);
                    self.partial.clear();
                } else {
                    self.partial.push(b);
                }
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// An engine on a thread: lines in, lines out, and how it ended.
    struct Running {
        input: Option<Sender<Vec<u8>>>,
        output: Receiver<String>,
        ended: thread::JoinHandle<io::Result<HubExit>>,
    }

    impl Running {
        fn start(options: HubOptions) -> Running {
            let (input, chunks) = unbounded();
            let (lines, output) = unbounded();
            let ended = thread::spawn(move || {
                let reader = ChannelReader {
                    chunks,
                    left: Vec::new(),
                };
                let mut writer = ChannelWriter {
                    partial: Vec::new(),
                    lines,
                };
                run_hub(reader, &mut writer, options, "damx", "test")
            });
            Running {
                input: Some(input),
                output,
                ended,
            }
        }

        fn small() -> Running {
            Running::start(HubOptions {
                engine: EngineOptions {
                    hash_mb: 4,
                    ..EngineOptions::default()
                },
                ..HubOptions::default()
            })
        }

        fn send(&self, text: &str) {
            self.send_bytes(text.as_bytes());
        }

        fn send_bytes(&self, bytes: &[u8]) {
            let input = self.input.as_ref().unwrap();
            input.send(bytes.to_vec()).unwrap();
        }

        /// The lines up to and including the first that starts with `prefix`.
        fn until(&self, prefix: &str) -> Vec<String> {
            let mut seen = Vec::new();
            loop {
                let line = self
                    .output
                    .recv_timeout(Duration::from_secs(30))
                    .unwrap_or_else(|_| panic!("no {prefix:?} after {seen:?}"));
                let found = line.starts_with(prefix);
                seen.push(line);
                if found {
                    return seen;
                }
            }
        }

        fn close(mut self) -> HubExit {
            self.input = None;
            self.ended.join().unwrap().unwrap()
        }
    }

    fn done_move(line: &str, position: &Position) -> Move {
        let line = Line::parse(line).unwrap();
        assert_eq!(line.args[0].0, "move", "move= comes first");
        parse_move(position, line.get("move").unwrap()).unwrap()
    }

    /// A whole conversation: handshake, a search at a fixed depth with its info lines, quit.
    #[test]
    fn conversation() {
        let hub = Running::small();
        hub.send("hub\n");
        let handshake = hub.until("wait");
        assert!(handshake[0].starts_with("id "), "{handshake:?}");
        hub.send("set-param name=egdb value=\"/no such dir\"\ninit\n");
        let ready = hub.until("ready");
        assert_eq!(ready.len(), 2, "{ready:?}");
        assert!(
            ready[0].starts_with("error message=\"egdb: /no such dir"),
            "{ready:?}"
        );
        hub.send("pos start\nlevel depth=3\ngo think\n");
        let lines = hub.until("done");
        let infos = lines.iter().filter(|l| l.starts_with("info ")).count();
        assert_eq!(infos, 3, "{lines:?}");
        done_move(lines.last().unwrap(), &Position::initial());
        hub.send("quit\n");
        assert_eq!(hub.close(), HubExit::Quit);
    }

    /// `go analyze` without limits runs until `stop`, answering `ping` meanwhile; then
    /// exactly one `done`.
    #[test]
    fn stop_and_ping_during_an_infinite_search() {
        let hub = Running::small();
        hub.send("pos start\nlevel infinite\ngo analyze\n");
        hub.until("info");
        hub.send("ping\n");
        hub.until("pong");
        hub.send("stop\n");
        let lines = hub.until("done");
        done_move(lines.last().unwrap(), &Position::initial());
        hub.send("ping\n");
        let lines = hub.until("pong");
        assert!(!lines.iter().any(|l| l.starts_with("done")), "{lines:?}");
        assert_eq!(hub.close(), HubExit::EndOfInput);
    }

    /// A line over the limit is reported and the next one is served; input that ends
    /// during a search ends the conversation at once.
    #[test]
    fn long_lines_and_the_end_of_input() {
        let hub = Running::small();
        hub.send(&"x".repeat(MAX_LINE + 10));
        hub.send("\nping\n");
        let lines = hub.until("pong");
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].starts_with("error message=") && lines[0].contains("longer"));
        hub.send("pos start\nlevel infinite\ngo analyze\n");
        hub.until("info");
        assert_eq!(hub.close(), HubExit::EndOfInput);
    }

    /// One `error` line each for garbage, unknown commands, an illegal move, a position of the
    /// wrong length, bytes that are not UTF-8 and a line of a megabyte; the engine answers
    /// `ping` after each and still plays.
    #[test]
    fn bad_input_gets_an_error_line() {
        const START: &str = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww";
        let hub = Running::small();
        hub.send("hub\n");
        hub.until("wait");
        hub.send("init\n");
        hub.until("ready");
        let megabyte = format!("pos pos={}\n", "e".repeat(1 << 20));
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (b"\x01\x02garbage ==== \"\n".to_vec(), "cannot read"),
            (b"fly to=the moon\n".to_vec(), "unknown command fly"),
            (
                format!("pos pos={START} moves=\"32-28 28-23\"\n").into_bytes(),
                "move 2",
            ),
            (
                format!("pos pos={}\n", &START[..40]).into_bytes(),
                "51 characters",
            ),
            (b"go \xff\xfe\n".to_vec(), "think, ponder or analyze"),
            (megabyte.into_bytes(), "longer than"),
            (b"set-param name=hash value=lots\n".to_vec(), "hash"),
            (b"level time=soon\n".to_vec(), "level"),
        ];
        for (text, expected) in cases {
            hub.send_bytes(&text);
            hub.send("ping\n");
            let lines = hub.until("pong");
            assert_eq!(lines.len(), 2, "{lines:?}");
            assert!(
                lines[0].starts_with("error message=") && lines[0].contains(expected),
                "{expected}: {lines:?}"
            );
        }
        hub.send(&format!("pos pos={START}\nlevel depth=2\ngo think\n"));
        let lines = hub.until("done");
        assert!(lines.last().unwrap().starts_with("done move="), "{lines:?}");
        hub.send("quit\n");
        assert_eq!(hub.close(), HubExit::Quit);
    }

    /// A databases directory without slice files is told as an error line when the engine
    /// is set up for the search, and the search goes on without databases.
    #[test]
    fn an_empty_databases_directory_is_told_and_the_search_goes_on() {
        let dir = std::env::temp_dir().join(format!("damx-hub-empty-egdb-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let hub = Running::small();
        hub.send(&format!(
            "set-param name=egdb value=\"{}\"\npos start\nlevel depth=2\ngo think\n",
            dir.display()
        ));
        let lines = hub.until("done");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("error message=") && l.contains("no slice files")),
            "{lines:?}"
        );
        done_move(lines.last().unwrap(), &Position::initial());
        hub.close();
        let _ = std::fs::remove_dir(&dir);
    }

    /// Ponder without time, then ponder-hit with a move time: done comes within it.
    #[test]
    fn ponder_hit_starts_the_clock() {
        let hub = Running::small();
        hub.send("pos start\nlevel move-time=0.3\ngo ponder\n");
        hub.until("info");
        let hit = Instant::now();
        hub.send("ponder-hit\n");
        hub.until("done");
        assert!(hit.elapsed() < Duration::from_secs(10));
        hub.close();
    }

    /// At skill 1 the moves vary from search to search among the near-best ones; at full
    /// strength a fixed depth always gives the same move.
    #[test]
    fn skill_varies_the_moves() {
        let mut engine = Engine::new(EngineOptions {
            hash_mb: 4,
            ..EngineOptions::default()
        });
        let (reports, _) = unbounded();
        let job = |skill| SearchJob {
            game: Game::default(),
            limits: Limits::depth(4),
            after_ponder_hit: None,
            mode: GoMode::Think,
            options: HubOptions {
                skill,
                ..HubOptions::default()
            },
        };
        let stop = StopSignal::new();
        let weak: std::collections::HashSet<Move> = (0..20)
            .map(|seed| search(&mut engine, &job(1), &stop, &reports, seed).0)
            .collect();
        assert!(weak.len() >= 3, "{weak:?}");
        let full: std::collections::HashSet<Move> = (0..5)
            .map(|seed| {
                engine.new_game();
                search(&mut engine, &job(MAX_SKILL), &stop, &reports, seed).0
            })
            .collect();
        assert_eq!(full.len(), 1, "{full:?}");
        let analyse = SearchJob {
            mode: GoMode::Analyze,
            ..job(1)
        };
        let analysed: std::collections::HashSet<Move> = (0..5)
            .map(|seed| {
                engine.new_game();
                search(&mut engine, &analyse, &stop, &reports, seed).0
            })
            .collect();
        assert_eq!(analysed, full, "the skill level does not apply to analysis");
    }

    /// At a low skill the move is legal; the node caps grow with the level.
    #[test]
    fn skill() {
        let hub = Running::small();
        hub.send("set-param name=skill value=1\npos start\nlevel move-time=5\ngo think\n");
        let lines = hub.until("done");
        done_move(lines.last().unwrap(), &Position::initial());
        hub.close();
        assert!(skill_nodes(1) < skill_nodes(10) && skill_nodes(10) < skill_nodes(19));
        assert!(skill_margin(1) > skill_margin(19));
        assert_eq!(skill_margin(MAX_SKILL), 0);
    }
}
