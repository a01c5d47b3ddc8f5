//! `cargo xtask train`: the training pipeline of the pattern evaluation, in three stages that
//! each read the previous one's files, so that the expensive first stage can be spread over
//! many machines.
//!
//! - `games`: self-play at a fixed node count from the built-in ballots with a few random
//!   plies, every game played to its end by the rules or, with `--egdb`, until the referee's
//!   judge by the endgame databases gives its result (a quiet position they hold, a win only
//!   where the draw rules' counts cannot stop it); one text line per game. Shard `I/N` plays the games whose global number is `I + N * k`, so shards of one
//!   run have disjoint seeds and openings and write one file each; a file is resumed where
//!   it stopped (its header must match the settings).
//! - `positions`: every quiet position of those games (no capture for the side to move: the
//!   positions the search evaluates), labelled with the game's result, deduplicated over all
//!   input files (the first occurrence is kept), in a compact binary file; optionally each
//!   searched to a node count too, its score kept beside the result, or (`--deviations`)
//!   instead positions one random move off the games' lines, labelled by that score alone.
//! - `fit`: logistic regression of the result on the pattern evaluation over all input files
//!   pooled, with a held-out validation set, an L2 penalty on the region weights that is part
//!   of the minimised loss, and the losses printed per epoch; writes a weights file (the
//!   epoch with the lowest validation loss).
//!
//! Everything is seeded; with one search thread per game and a node limit the same command
//! gives the same files.

use std::collections::HashSet;
use std::fs::OpenOptions;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};
use damx_engine::eval::{FEATURE_COUNT, Features, MAN, feature_names};
use damx_engine::gauntlet::Rng;
use damx_engine::openings;
use damx_engine::pattern::{
    Base, GLOBAL_COUNT, PatternWeights, Pieces, REGION_SIZE, REGIONS, Terms, global_names,
};
use damx_engine::{Engine, EngineOptions, EvalParams, Limits, StopSignal};
use damx_rules::{Bitboard, Color, Game, GameResult, Position, Square};
use damx_session::referee::{AdjudicationMethod, Judge};
use rayon::prelude::*;

use crate::players;

pub(crate) const ABOUT: &str = "\
the pattern evaluation's training pipeline (see README,
\"The pattern evaluation and its training\"):
  games: self-play games played to their end, at NODES (default 3000) nodes a move with
    WEIGHTS (default tuned; hand, pattern or a .dxw file), from the ballots plus up to
    RANDOM-PLIES (default 4) random plies; GAMES games (default 1000) for shard I/N (default
    0/1) into DIR/games-SEED-I-of-N.txt (DIR default train/); resumable; THREADS games at once
    (default: every core); with EGDB (a database directory or `default`) the players search
    with the endgame databases and a game ends where they judge it as `damx match
    --adjudicate egdb` does (a quiet position they hold; a win only where the draw rules'
    counts cannot stop it)
  positions: the quiet positions of GAMES-FILEs labelled with each game's result, deduplicated,
    into OUT (a compact binary file); plies before MIN-PLY (default 6) are skipped; with
    LABEL-NODES each position is also searched to that many nodes with WEIGHTS (default tuned)
    on THREADS threads (default: every core), and White's score is kept beside the result
    (resumable: the scores go to OUT.scores as they come); with DEVIATIONS N, OUT holds
    instead positions off the games' lines: from every Nth position, where a random legal
    move leads when that is quiet, labelled by their search score alone (LABEL-NODES needed)
  endings: from each game of GAMES-FILEs, the first quiet position of MIN-PIECES (default 6)
    to PIECES (default 7) pieces, as FEN lines into OUT (openings for `strength --openings`);
    with DECIDED (an endgame database directory or `default`) only those it calls won; with
    BAND (LOW,HIGH) only those that a search of NODES (default 100000) nodes with WEIGHTS
    (default pattern) on THREADS threads scores LOW to HIGH centi-men for one side
  fit: logistic regression of the results of POSITIONS-FILEs (pooled) on the pattern
    evaluation: EPOCHS epochs (default 30) of Adam over batches of BATCH (default 16384) at
    rate LR (default 2) times DECAY (default 0.75) to the power of the epochs before, the
    batches drawn afresh every epoch (SHUFFLE epoch, the default) or once (once), L2
    penalty L2 (default 1e-7) on the region weights, VALIDATION
    (default 0.1) of the positions held out (the last games of the last files); starts from START (builtin, zero or a .dxw file; default builtin, zero on the hand base);
    on BASE (zero, the default: the weights are the whole evaluation; or hand: the regions
    correct the hand evaluation, the globals stay zero);
    with LAMBDA (default 1) below 1 the training positions' targets blend the result
    (LAMBDA) with the prediction of their search scores (1 - LAMBDA), the validation ones stay
    the results, and positions off the games' lines train with their search scores alone
    (never held out); writes OUT (.dxw) with the weights of the best validation epoch, and OUT.log;
    MODEL (regions, the engine's, by default) may add to the regions a second table set for
    the side not to move (tempo) or 18 regions of two rows by four squares (wide), or both
    (tempo+wide): those fit only to compare their losses with the engine's model on the same
    positions, and write OUT.log alone; on the hand base, regions+hand also corrects the hand
    features' weights (all but the man's) and writes them to OUT.hand; --fixed regions keeps
    the region weights at START's and fits the rest alone (the globals, or the hand
    corrections); ANCHOR (default 0) adds a penalty of ANCHOR times the squared distance of
    every region and correction weight from its start value, so that a fit from fitted
    weights on fewer or other games refines them instead of forgetting them
  scale: WEIGHTS (a .dxw file, or builtin) with every region weight times FACTOR, rounded,
    into OUT (.dxw); the globals and the base stay: a test of whether the fitted scale is the
    one the search plays best with
  calibrate: how sure the evaluation with WEIGHTS (default pattern: the engine's) is of the
    results of POSITIONS-FILEs, by material: the positions grouped by which side has kings
    and by how many men the side the evaluation favours is ahead, and for each group the
    scale k that fits its results best as a multiple of the one that fits all positions
    (below 1: the evaluation is too sure there, as in drawish endings; above 1: not sure
    enough), with the loss at both";

pub(crate) const ARGS: &str = "games [--games N] [--nodes N] [--seed N] [--shard I/N] [--dir DIR] [--weights W] \
                               [--random-plies N] [--threads N] [--egdb DIR] | positions --out FILE [--min-ply N] [--label-nodes N] [--weights W] [--threads N] [--deviations N] GAMES-FILE... | \
                               fit --out FILE.dxw [--epochs N] [--batch N] [--lr X] [--decay X] [--shuffle epoch|once] [--l2 X] [--validation X] \
                               [--seed N] [--start S] [--base zero|hand] [--threads N] [--model M] [--lambda X] [--fixed regions] [--anchor X] POSITIONS-FILE... | \
                               endings --out FILE [--pieces N] [--min-pieces N] [--decided DIR] [--band LOW,HIGH [--nodes N] [--weights W] [--threads N]] GAMES-FILE... | \
                               scale --out FILE.dxw --factor X WEIGHTS | \
                               calibrate [--weights W] [--threads N] POSITIONS-FILE...";

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let Some(stage) = args.first() else {
        bail!("say which stage: games, positions, fit, endings, scale or calibrate");
    };
    let rest = &args[1..];
    match stage.as_str() {
        "games" => games(rest),
        "positions" => positions(rest),
        "fit" => fit(rest),
        "endings" => endings(rest),
        "scale" => scale(rest),
        "calibrate" => calibrate(rest),
        other => {
            bail!("unknown stage `{other}` (games, positions, fit, endings, scale, calibrate)")
        }
    }
}

/// Options as `--name value`, with the remaining words as files.
struct Options<'a> {
    values: Vec<(&'a str, &'a str)>,
    files: Vec<PathBuf>,
}

impl<'a> Options<'a> {
    fn parse(args: &'a [String], known: &[&str]) -> anyhow::Result<Options<'a>> {
        let mut values = Vec::new();
        let mut files = Vec::new();
        let mut rest = args.iter();
        while let Some(arg) = rest.next() {
            if let Some(name) = arg.strip_prefix("--") {
                ensure!(
                    known.contains(&name),
                    "unknown option `--{name}` (known: --{})",
                    known.join(", --")
                );
                let value = rest
                    .next()
                    .with_context(|| format!("`--{name}` needs a value"))?;
                values.push((name, value.as_str()));
            } else {
                files.push(PathBuf::from(arg));
            }
        }
        Ok(Options { values, files })
    }

    fn get(&self, name: &str) -> Option<&'a str> {
        self.values
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    }

    fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> anyhow::Result<T> {
        match self.get(name) {
            None => Ok(default),
            Some(text) => text
                .parse()
                .ok()
                .with_context(|| format!("--{name} wants a number, got `{text}`")),
        }
    }
}

fn thread_pool(threads: usize) -> anyhow::Result<rayon::ThreadPool> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if threads > 0 {
        builder = builder.num_threads(threads);
    }
    builder.build().context("cannot start the thread pool")
}

/// A seed from a run's seed and a number (splitmix64 of both).
fn mix(seed: u64, number: u64) -> u64 {
    Rng::new(seed ^ number.wrapping_mul(0x9e37_79b9_7f4a_7c15)).next_u64()
}

/// A game longer than this is a bug in the rules' draw counting, not a game.
const MAX_GAME_PLIES: usize = 5000;

/// Plays one self-play game to its end; returns its line (without the number).
fn play_one(
    engine: &mut Engine,
    seed: u64,
    nodes: u64,
    random_plies: usize,
    judge: Option<&Judge>,
) -> anyhow::Result<(String, usize)> {
    let ballots = openings::ballots();
    let mut rng = Rng::new(seed);
    let ballot = &ballots[rng.below(ballots.len())];
    let mut game = ballot.game();
    let extra = rng.below(random_plies + 1);
    for _ in 0..extra {
        if game.outcome().is_some() {
            break;
        }
        let moves = game.position().legal_moves();
        game.play(moves[rng.below(moves.len())]);
    }
    let start = *game.position();
    let (result, moves) = play_out(engine, game, nodes, judge, seed)?;
    let plies = moves.len();
    Ok((
        format!(
            "{}\t{plies}\t{}\t{}",
            result.as_str(),
            start.to_fen(),
            moves.join(" ")
        ),
        plies,
    ))
}

/// Plays `game` on at `nodes` nodes a move until the rules end it or, with `judge` (a
/// referee's judge by the endgame databases), until the judge gives the result; returns the
/// result and the moves played.
fn play_out(
    engine: &mut Engine,
    mut game: Game,
    nodes: u64,
    judge: Option<&Judge>,
    seed: u64,
) -> anyhow::Result<(GameResult, Vec<String>)> {
    let mut moves = Vec::new();
    engine.new_game();
    let stop = StopSignal::new();
    let limits = Limits::nodes(nodes);
    let result = loop {
        if let Some(outcome) = game.outcome() {
            break GameResult::from_outcome(Some(outcome));
        }
        if let Some((result, _)) = judge.and_then(|judge| judge.database(&game)) {
            break result;
        }
        let position = *game.position();
        ensure!(
            moves.len() < MAX_GAME_PLIES,
            "game seeded {seed} passed {MAX_GAME_PLIES} plies"
        );
        let result = engine.search(&game, &limits, &stop, &mut |_| {});
        let mv = result
            .best_move
            .unwrap_or_else(|| position.legal_moves()[0]);
        moves.push(position.move_text(&mv));
        game.play(mv);
    };
    Ok((result, moves))
}

/// `games`: self-play to the end, one shard.
fn games(args: &[String]) -> anyhow::Result<()> {
    let options = Options::parse(
        args,
        &[
            "games",
            "nodes",
            "seed",
            "shard",
            "dir",
            "weights",
            "random-plies",
            "threads",
            "egdb",
        ],
    )?;
    ensure!(options.files.is_empty(), "games takes no files");
    let games: usize = options.number("games", 1000)?;
    let nodes: u64 = options.number("nodes", 3000)?;
    let seed: u64 = options.number("seed", 1)?;
    let random_plies: usize = options.number("random-plies", 4)?;
    let threads: usize = options.number("threads", 0)?;
    let weights_name = options.get("weights").unwrap_or("tuned");
    let eval = players::weights(weights_name)?;
    let egdb = options.get("egdb").map(players::databases).transpose()?;
    // The referee's judgement by the databases: it leaves a win to the game where the draw
    // rules' counts could still make it a draw.
    let judge = egdb.clone().map(|egdb| {
        Judge::new(AdjudicationMethod::Egdb {
            egdb,
            depth: 0,
            threshold: 0,
        })
    });
    let (shard, shards) = match options.get("shard") {
        None => (0u64, 1u64),
        Some(text) => {
            let parsed = text
                .split_once('/')
                .and_then(|(i, n)| Some((i.parse::<u64>().ok()?, n.parse::<u64>().ok()?)));
            match parsed {
                Some((i, n)) if n > 0 && i < n => (i, n),
                _ => bail!("--shard wants I/N with 0 <= I < N, got `{text}`"),
            }
        }
    };
    let dir = PathBuf::from(options.get("dir").unwrap_or("train"));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join(format!("games-{seed}-{shard}-of-{shards}.txt"));
    // Older files, played without databases, keep their header.
    let databases = options
        .get("egdb")
        .map_or(String::new(), |name| format!(" egdb={name}"));
    let header = format!(
        "# damx train games v1 seed={seed} shard={shard}/{shards} nodes={nodes} weights={weights_name} random-plies={random_plies}{databases}"
    );
    let done = resume(&path, &header)?;
    let todo: Vec<usize> = (0..games).filter(|k| !done.contains(k)).collect();
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    let writer = Mutex::new(BufWriter::new(file));
    if done.is_empty() {
        let mut writer = writer.lock().unwrap_or_else(|e| e.into_inner());
        writeln!(writer, "{header}")?;
        writer.flush()?;
    }
    let pool = thread_pool(threads)?;
    eprintln!(
        "games: shard {shard}/{shards}, {} of {games} to play ({} done) at {nodes} nodes a move on {} threads, into {}",
        todo.len(),
        done.len(),
        pool.current_num_threads(),
        path.display()
    );
    let start = Instant::now();
    let finished = AtomicUsize::new(0);
    let plies_played = AtomicUsize::new(0);
    let last_report = Mutex::new(Instant::now());
    let total = todo.len();
    pool.install(|| {
        todo.par_iter().try_for_each_init(
            || {
                Engine::new(EngineOptions {
                    hash_mb: 8,
                    eval: eval.clone(),
                    egdb: egdb.clone(),
                    ..EngineOptions::default()
                })
            },
            |engine, &k| -> anyhow::Result<()> {
                let global = shard + shards * k as u64;
                let (line, plies) = play_one(engine, mix(seed, global), nodes, random_plies, judge.as_ref())?;
                {
                    let mut writer = writer.lock().unwrap_or_else(|e| e.into_inner());
                    writeln!(writer, "{k}\t{line}")?;
                    writer.flush()?;
                }
                let count = finished.fetch_add(1, Ordering::Relaxed) + 1;
                let plies = plies_played.fetch_add(plies, Ordering::Relaxed) + plies;
                let mut last = last_report.lock().unwrap_or_else(|e| e.into_inner());
                if last.elapsed() >= Duration::from_secs(10) || count == total {
                    *last = Instant::now();
                    let elapsed = start.elapsed().as_secs_f64();
                    let left = (total - count) as f64 * elapsed / count as f64;
                    eprintln!(
                        "games: {count}/{total}, {:.2} s a game, {:.1} ms a ply, about {:.0} s left",
                        elapsed / count as f64,
                        1000.0 * elapsed / plies.max(1) as f64,
                        left
                    );
                }
                Ok(())
            },
        )
    })?;
    eprintln!(
        "games: {} games, {} plies in {:.1} s (load {})",
        finished.load(Ordering::Relaxed),
        plies_played.load(Ordering::Relaxed),
        start.elapsed().as_secs_f64(),
        players::load_average()
    );
    Ok(())
}

/// Checks an existing games file against `header` and returns the numbers of its complete
/// games, cutting off a half-written last line.
fn resume(path: &Path, header: &str) -> anyhow::Result<HashSet<usize>> {
    let mut done = HashSet::new();
    let Ok(mut file) = OpenOptions::new().read(true).write(true).open(path) else {
        return Ok(done);
    };
    let mut text = String::new();
    file.read_to_string(&mut text)
        .with_context(|| format!("cannot read {}", path.display()))?;
    if text.is_empty() {
        return Ok(done);
    }
    let first = text.lines().next().unwrap_or("");
    ensure!(
        first == header,
        "{} was written with other settings:\n  {first}\nnot\n  {header}\n(use another --dir or --seed)",
        path.display()
    );
    let complete = text.rfind('\n').map_or(0, |end| end + 1);
    if complete < text.len() {
        file.set_len(complete as u64)?;
        file.seek(SeekFrom::End(0))?;
    }
    for line in text[..complete].lines().skip(1) {
        if let Some(number) = line.split('\t').next().and_then(|n| n.parse().ok()) {
            done.insert(number);
        }
    }
    Ok(done)
}

/// The positions file: magic, version, record count, then records.
const POSITIONS_MAGIC: [u8; 8] = *b"DAMXPOS\0";
/// Version 1: a record is the pieces and the result; version 2 adds a search score.
const POSITIONS_VERSION: u16 = 2;
const POSITIONS_HEADER: usize = 8 + 2 + 8;
/// Four 7-byte bitboards and a byte of side to move (bit 0, set for Black) and White's
/// points times two (bits 1-2; [`NO_RESULT`] for a position off the games' lines, which has a
/// score instead); in version 2 then White's search score (`i16`, little-endian,
/// [`NO_SCORE`] when the position was not searched).
const RECORD_V1: usize = 29;
const RECORD_V2: usize = 31;
/// The result field of a position no game reached (see `positions --deviations`).
const NO_RESULT: u8 = 3;
/// The score field of a position that was not searched.
const NO_SCORE: i16 = i16::MIN;
/// Search scores are stored clamped to this (centi-men; a won position gets the bound).
const SCORE_BOUND: i32 = 3000;

/// One labelled position.
#[derive(Clone, Copy)]
struct Labelled {
    pieces: Pieces,
    /// White's points times two: 0, 1 or 2; [`NO_RESULT`] for a position off the games'
    /// lines (it has a score).
    result: u8,
    /// White's score by a search of the position (centi-men, within [`SCORE_BOUND`]), when
    /// it was searched.
    score: Option<i16>,
}

fn encode(record: &Labelled, out: &mut Vec<u8>) {
    let p = &record.pieces;
    for bits in [p.white_men, p.white_kings, p.black_men, p.black_kings] {
        out.extend_from_slice(&bits.to_le_bytes()[..7]);
    }
    let side = u8::from(p.side_to_move == Color::Black);
    out.push(side | (record.result << 1));
    out.extend_from_slice(&record.score.unwrap_or(NO_SCORE).to_le_bytes());
}

fn decode(bytes: &[u8]) -> anyhow::Result<Labelled> {
    let bits = |k: usize| {
        let mut word = [0u8; 8];
        word[..7].copy_from_slice(&bytes[7 * k..7 * k + 7]);
        u64::from_le_bytes(word)
    };
    let flags = bytes[28];
    let result = flags >> 1;
    let score = match bytes.get(29..31) {
        Some(&[low, high]) => match i16::from_le_bytes([low, high]) {
            NO_SCORE => None,
            score => {
                ensure!(
                    i32::from(score).abs() <= SCORE_BOUND,
                    "a record with the score {score}, beyond {SCORE_BOUND}"
                );
                Some(score)
            }
        },
        _ => None,
    };
    ensure!(
        result <= 2 || (result == NO_RESULT && score.is_some()),
        "bad result {result} in a record"
    );
    let pieces = Pieces {
        white_men: bits(0),
        white_kings: bits(1),
        black_men: bits(2),
        black_kings: bits(3),
        side_to_move: if flags & 1 == 1 {
            Color::Black
        } else {
            Color::White
        },
    };
    let all = [
        pieces.white_men,
        pieces.white_kings,
        pieces.black_men,
        pieces.black_kings,
    ];
    let union = all.iter().fold(0u64, |a, b| a | b);
    ensure!(
        union & !damx_rules::Bitboard::ALL.bits() == 0
            && all.iter().map(|b| b.count_ones()).sum::<u32>() == union.count_ones(),
        "a record with pieces off the board or on one square twice"
    );
    Ok(Labelled {
        pieces,
        result,
        score,
    })
}

fn read_positions(path: &Path) -> anyhow::Result<Vec<Labelled>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    ensure!(
        bytes.len() >= POSITIONS_HEADER && bytes[..8] == POSITIONS_MAGIC,
        "{} is not a positions file",
        path.display()
    );
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    let record = match version {
        1 => RECORD_V1,
        POSITIONS_VERSION => RECORD_V2,
        _ => bail!(
            "{}: positions format version {version}, this build reads 1 and {POSITIONS_VERSION}",
            path.display()
        ),
    };
    let mut count = [0u8; 8];
    count.copy_from_slice(&bytes[10..18]);
    let count = u64::from_le_bytes(count) as usize;
    let expected = count
        .checked_mul(record)
        .and_then(|n| n.checked_add(POSITIONS_HEADER));
    ensure!(
        expected == Some(bytes.len()),
        "{}: {} bytes, but {count} positions need {}",
        path.display(),
        bytes.len(),
        expected.map_or("more".to_string(), |n| n.to_string())
    );
    bytes[POSITIONS_HEADER..]
        .chunks_exact(record)
        .map(decode)
        .collect::<anyhow::Result<Vec<_>>>()
        .with_context(|| format!("in {}", path.display()))
}

/// Replays every game of games files, calling `each(game, result, position, ply)` for every
/// position a game passes through, its last included (`game` counts from 0 over all files,
/// `result` is White's points: 2, 1 or 0); returns the numbers of games and plies.
fn replay(
    files: &[PathBuf],
    mut each: impl FnMut(usize, u8, &Position, usize),
) -> anyhow::Result<(usize, usize)> {
    let (mut games, mut plies) = (0usize, 0usize);
    for path in files {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        // A games file being written (or cut off) may end in half a line: leave it out.
        let complete = text.rfind('\n').map_or(0, |end| end + 1);
        if complete < text.len() {
            eprintln!("{}: leaving out a half-written last line", path.display());
        }
        for (number, line) in text[..complete].lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let at = || format!("{}:{}", path.display(), number + 1);
            let fields: Vec<&str> = line.split('\t').collect();
            ensure!(fields.len() == 5, "{}: expected 5 fields", at());
            let result = match fields[1] {
                "2-0" => 2,
                "1-1" => 1,
                "0-2" => 0,
                other => bail!("{}: bad result `{other}`", at()),
            };
            let mut position =
                Position::from_fen(fields[3]).map_err(|e| anyhow::anyhow!("{}: {e}", at()))?;
            let words: Vec<&str> = fields[4].split_whitespace().collect();
            for (ply, word) in words.iter().map(Some).chain([None]).enumerate() {
                each(games, result, &position, ply);
                let Some(word) = word else { break };
                let mv = position
                    .parse_move(word)
                    .map_err(|e| anyhow::anyhow!("{}: ply {}: {e}", at(), ply + 1))?;
                position = position.play(&mv);
                plies += 1;
            }
            games += 1;
        }
    }
    Ok((games, plies))
}

/// A position the search evaluates: the side to move can move and has no capture.
fn is_quiet(position: &Position) -> bool {
    position.has_legal_move() && !position.has_capture()
}

/// `positions`: quiet positions of games files, labelled and deduplicated.
fn positions(args: &[String]) -> anyhow::Result<()> {
    let options = Options::parse(
        args,
        &[
            "out",
            "min-ply",
            "label-nodes",
            "weights",
            "threads",
            "deviations",
        ],
    )?;
    let out = PathBuf::from(options.get("out").context("positions needs --out FILE")?);
    let min_ply: usize = options.number("min-ply", 6)?;
    let label_nodes: u64 = options.number("label-nodes", 0)?;
    let threads: usize = options.number("threads", 0)?;
    let deviations: usize = options.number("deviations", 0)?;
    ensure!(
        deviations == 0 || label_nodes > 0,
        "--deviations writes positions no game reached: they need --label-nodes for a label"
    );
    ensure!(!options.files.is_empty(), "positions needs games files");
    let start = Instant::now();
    let mut seen = HashSet::new();
    let mut records = Vec::new();
    let mut quiet = 0usize;
    let mut deviated = Vec::new();
    let (games, plies) = replay(&options.files, |_, result, position, ply| {
        if ply >= min_ply && is_quiet(position) {
            quiet += 1;
            if seen.insert(position.hash()) {
                records.push(Labelled {
                    pieces: Pieces::of(position),
                    result,
                    score: None,
                });
                if deviations > 0 && quiet.is_multiple_of(deviations) {
                    deviated.extend(deviation(position));
                }
            }
        }
    })?;
    eprintln!(
        "positions: {games} games, {plies} plies, {quiet} quiet positions, {} after deduplication in {:.1} s ({:.2} us a ply)",
        records.len(),
        start.elapsed().as_secs_f64(),
        1e6 * start.elapsed().as_secs_f64() / plies.max(1) as f64
    );
    if deviations > 0 {
        // The game positions were only the reference: the file holds the deviations not
        // already among them, each once.
        records = deviated
            .into_iter()
            .filter(|position| seen.insert(position.hash()))
            .map(|position| Labelled {
                pieces: Pieces::of(&position),
                result: NO_RESULT,
                score: None,
            })
            .collect();
        eprintln!(
            "positions: {} positions one random move off the games' lines (from every {deviations}th game position); the file holds these instead of the games' own",
            records.len()
        );
    }
    if label_nodes > 0 {
        let weights = options.get("weights").unwrap_or("tuned");
        let scores = search_scores(&records, label_nodes, weights, threads, &out)?;
        for (record, score) in records.iter_mut().zip(scores) {
            record.score = Some(score);
        }
    }
    let mut bytes = Vec::with_capacity(POSITIONS_HEADER + RECORD_V2 * records.len());
    bytes.extend_from_slice(&POSITIONS_MAGIC);
    bytes.extend_from_slice(&POSITIONS_VERSION.to_le_bytes());
    bytes.extend_from_slice(&(records.len() as u64).to_le_bytes());
    for record in &records {
        encode(record, &mut bytes);
    }
    write_atomically(&out, &bytes)?;
    eprintln!(
        "positions: {} positions into {} ({} bytes) in {:.1} s",
        records.len(),
        out.display(),
        bytes.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

/// A position off a game's line: where a random legal move from `position` leads (the move
/// drawn from the position's own key, so the same games give the same deviations), when it
/// is quiet and not over.
fn deviation(position: &Position) -> Option<Position> {
    let moves = position.legal_moves();
    let mut rng = Rng::new(position.hash());
    let next = position.play(&moves[rng.below(moves.len())]);
    is_quiet(&next).then_some(next)
}

/// The scores file beside a positions file being labelled: magic, the fingerprint of the
/// positions and settings, then one `i16` score per position in order, appended a chunk at a
/// time so that an interrupted labelling resumes where it stopped.
const SCORES_MAGIC: [u8; 8] = *b"DAMXSCR\0";
const SCORES_HEADER: usize = 16;
/// Positions searched between two appends to the scores file.
const SCORES_CHUNK: usize = 16384;

/// White's score of each record by a search of `nodes` nodes with the evaluation `weights`
/// (a fresh table for every position, so the scores do not depend on the order or the
/// threads), kept in `OUT.scores` as they come and resumed from there.
fn search_scores(
    records: &[Labelled],
    nodes: u64,
    weights: &str,
    threads: usize,
    out: &Path,
) -> anyhow::Result<Vec<i16>> {
    let eval = players::weights(weights)?;
    let mut fingerprint = mix(nodes, records.len() as u64);
    for byte in weights.bytes() {
        fingerprint = mix(fingerprint, u64::from(byte));
    }
    for record in records {
        let p = &record.pieces;
        fingerprint = mix(fingerprint, p.white_men ^ p.black_kings.rotate_left(7));
        fingerprint = mix(fingerprint, p.black_men ^ p.white_kings.rotate_left(13));
    }
    let path = PathBuf::from(format!("{}.scores", out.display()));
    let mut scores = Vec::with_capacity(records.len());
    if let Ok(bytes) = std::fs::read(&path)
        && bytes.len() >= SCORES_HEADER
        && bytes[..8] == SCORES_MAGIC
        && bytes[8..16] == fingerprint.to_le_bytes()
    {
        scores.extend(
            bytes[SCORES_HEADER..]
                .chunks_exact(2)
                .map(|pair| i16::from_le_bytes([pair[0], pair[1]]))
                .take(records.len()),
        );
    }
    let mut file =
        std::fs::File::create(&path).with_context(|| format!("cannot write {}", path.display()))?;
    let mut head = SCORES_MAGIC.to_vec();
    head.extend_from_slice(&fingerprint.to_le_bytes());
    for score in &scores {
        head.extend_from_slice(&score.to_le_bytes());
    }
    file.write_all(&head)?;
    let pool = thread_pool(threads)?;
    eprintln!(
        "positions: searching {} of {} positions at {nodes} nodes on {} threads ({} resumed from {})",
        records.len() - scores.len(),
        records.len(),
        pool.current_num_threads(),
        scores.len(),
        path.display()
    );
    let clock = Instant::now();
    let resumed = scores.len();
    let mut last_report = Instant::now();
    while scores.len() < records.len() {
        let chunk = &records[scores.len()..(scores.len() + SCORES_CHUNK).min(records.len())];
        let pieces: Vec<Pieces> = chunk.iter().map(|record| record.pieces).collect();
        let searched = pool.install(|| white_search_scores(&pieces, nodes, &eval));
        let bytes: Vec<u8> = searched.iter().flat_map(|s| s.to_le_bytes()).collect();
        file.write_all(&bytes)
            .with_context(|| format!("cannot write {}", path.display()))?;
        scores.extend(searched);
        if last_report.elapsed() >= Duration::from_secs(10) || scores.len() == records.len() {
            last_report = Instant::now();
            let done = scores.len() - resumed;
            let elapsed = clock.elapsed().as_secs_f64();
            eprintln!(
                "positions: searched {}/{}, about {:.0} s left",
                scores.len(),
                records.len(),
                (records.len() - scores.len()) as f64 * elapsed / done.max(1) as f64
            );
        }
    }
    Ok(scores)
}

/// The position of `pieces`, unless no game can reach it.
fn position_of(pieces: &Pieces) -> Option<Position> {
    Position::from_pieces(
        Bitboard::from_bits(pieces.white_men),
        Bitboard::from_bits(pieces.white_kings),
        Bitboard::from_bits(pieces.black_men),
        Bitboard::from_bits(pieces.black_kings),
        pieces.side_to_move,
    )
    .ok()
}

/// [`white_search_score`] of every position of `pieces`, in parallel on the current pool, each
/// thread with an engine of its own evaluating with `eval`.
fn white_search_scores(pieces: &[Pieces], nodes: u64, eval: &EvalParams) -> Vec<i16> {
    pieces
        .par_iter()
        .map_init(
            || {
                Engine::new(EngineOptions {
                    hash_mb: 1,
                    eval: eval.clone(),
                    ..EngineOptions::default()
                })
            },
            |engine, pieces| white_search_score(engine, pieces, nodes),
        )
        .collect()
}

/// White's score of `pieces` by a search of `nodes` nodes from a fresh table, within
/// [`SCORE_BOUND`].
fn white_search_score(engine: &mut Engine, pieces: &Pieces, nodes: u64) -> i16 {
    let Some(position) = position_of(pieces) else {
        return 0;
    };
    engine.new_game();
    let result = engine.search(
        &damx_rules::Game::new(position),
        &Limits::nodes(nodes),
        &StopSignal::new(),
        &mut |_| {},
    );
    let score = result.score.value().clamp(-SCORE_BOUND, SCORE_BOUND);
    let white = match pieces.side_to_move {
        Color::White => score,
        Color::Black => -score,
    };
    white as i16
}

/// `endings`: start positions for testing the endgame: from each game, the first quiet
/// position with at most `--pieces` pieces, as FEN lines.
fn endings(args: &[String]) -> anyhow::Result<()> {
    let options = Options::parse(
        args,
        &[
            "out",
            "pieces",
            "min-pieces",
            "decided",
            "band",
            "nodes",
            "weights",
            "threads",
        ],
    )?;
    let out = PathBuf::from(options.get("out").context("endings needs --out FILE")?);
    let most: u32 = options.number("pieces", 7)?;
    let least: u32 = options.number("min-pieces", 6)?;
    ensure!(least <= most, "--min-pieces must not exceed --pieces");
    let band = options.get("band").map(parse_band).transpose()?;
    let nodes: u64 = options.number("nodes", 100_000)?;
    let threads: usize = options.number("threads", 0)?;
    let weights = options.get("weights").unwrap_or("pattern");
    ensure!(
        band.is_some()
            || ["nodes", "weights", "threads"]
                .iter()
                .all(|k| options.get(k).is_none()),
        "--nodes, --weights and --threads choose the search of --band: give --band too"
    );

    ensure!(!options.files.is_empty(), "endings needs games files");
    let egdb = options.get("decided").map(players::databases).transpose()?;
    // With --decided, only the positions the databases call a win for one side.
    let decided = |position: &Position| {
        egdb.as_ref().is_none_or(|egdb| {
            egdb.probe(position)
                .is_some_and(|value| value != damx_engine::egdb::Wdl::Draw)
        })
    };
    let mut seen = HashSet::new();
    let mut taken = HashSet::new();
    let mut found = Vec::new();
    let mut text = format!(
        "# quiet positions of {least} to {most} pieces{}{}, the first of each game, from {}\n",
        if egdb.is_some() {
            " won for one side"
        } else {
            ""
        },
        match band {
            Some((low, high)) => format!(
                " that a search of {nodes} nodes ({weights} weights) scores {low} to {high} centi-men for one side"
            ),
            None => String::new(),
        },
        options
            .files
            .iter()
            .map(|path| path.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let (games, _) = replay(&options.files, |game, _, position, _| {
        let pieces = position.occupied().count();
        if (least..=most).contains(&pieces)
            && is_quiet(position)
            && !taken.contains(&game)
            && decided(position)
            && seen.insert(position.hash())
        {
            taken.insert(game);
            found.push(*position);
        }
    })?;
    let candidates = found.len();
    if let Some((low, high)) = band {
        // Keep the positions whose searched score, for either side, lies in the band.
        let eval = players::weights(weights)?;
        let pieces: Vec<Pieces> = found.iter().map(Pieces::of).collect();
        let scores = thread_pool(threads)?.install(|| white_search_scores(&pieces, nodes, &eval));
        found = found
            .into_iter()
            .zip(scores)
            .filter(|&(_, score)| (low..=high).contains(&i32::from(score).abs()))
            .map(|(position, _)| position)
            .collect();
    }
    for position in &found {
        text.push_str(&position.to_fen());
        text.push('\n');
    }
    write_atomically(&out, text.as_bytes())?;
    eprintln!(
        "endings: {} positions ({candidates} before the band) from {games} games into {}",
        found.len(),
        out.display()
    );
    Ok(())
}

/// `--band LOW,HIGH`: a range of absolute scores in centi-men.
fn parse_band(text: &str) -> anyhow::Result<(i32, i32)> {
    let parsed = text
        .split_once(',')
        .and_then(|(low, high)| Some((low.trim().parse().ok()?, high.trim().parse().ok()?)));
    match parsed {
        Some((low, high)) if 0 <= low && low <= high => Ok((low, high)),
        _ => bail!("--band is LOW,HIGH in centi-men (0 <= LOW <= HIGH), not `{text}`"),
    }
}

fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let partial = path.with_extension("partial");
    std::fs::write(&partial, bytes)
        .with_context(|| format!("cannot write {}", partial.display()))?;
    std::fs::rename(&partial, path).with_context(|| format!("cannot write {}", path.display()))
}

/// Regions of the `wide` model: two rows by four neighbouring squares of each row (nine
/// bands of two rows, two columns each).
const WIDE: usize = 18;

/// The `to move` global feature (+1 White, -1 Black).
const TO_MOVE: usize = GLOBAL_COUNT - 1;

/// The shape of the model being fitted: the engine's 28 regions, optionally with a second
/// table set for the side not to move (`tempo`), the wide regions (`wide`), and on the hand
/// base corrections of the hand features' weights (`hand`; the man's weight stays 100).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Model {
    tempo: bool,
    wide: bool,
    hand: bool,
}

impl Model {
    /// The model the engine reads: the 28 regions alone.
    const ENGINE: Model = Model {
        tempo: false,
        wide: false,
        hand: false,
    };

    fn parse(text: &str) -> anyhow::Result<Model> {
        let mut model = Model::ENGINE;
        for part in text.split('+') {
            match part {
                "regions" => {}
                "tempo" => model.tempo = true,
                "wide" => model.wide = true,
                "hand" => model.hand = true,
                other => {
                    bail!("--model is regions, tempo, wide, hand or a sum of them, not `{other}`")
                }
            }
        }
        Ok(model)
    }

    /// Regions of one table set.
    fn regions(self) -> usize {
        REGIONS + if self.wide { WIDE } else { 0 }
    }

    /// Weights of one table set.
    fn set_len(self) -> usize {
        self.regions() * REGION_SIZE
    }

    /// Table sets: two with `tempo`, else one.
    fn sets(self) -> usize {
        if self.tempo { 2 } else { 1 }
    }

    /// All the weights being fitted, as reals: `[opening, ending]` pairs, the global
    /// features first, then the table sets, then the hand corrections.
    fn parameters(self) -> usize {
        self.hand_first() + if self.hand { FEATURE_COUNT } else { 0 }
    }

    /// The index of the first hand correction.
    fn hand_first(self) -> usize {
        GLOBAL_COUNT + self.set_len() * self.sets()
    }

    /// Whether the engine can play the model: the 28 regions, with hand corrections or not.
    fn playable(self) -> bool {
        !self.tempo && !self.wide
    }
}

/// The base-3 contents of the wide regions, from the side whose men are `own`, on the board
/// as it stands or turned half a turn.
fn wide_indices(own: u64, opp: u64, turned: bool) -> [u16; WIDE] {
    let digit = |row: usize, column: usize| -> u16 {
        let (row, column) = if turned {
            (9 - row, 4 - column)
        } else {
            (row, column)
        };
        let bit = Square::from_index(5 * row + column)
            .map_or(0, |square| Bitboard::from_square(square).bits());
        if own & bit != 0 {
            1
        } else if opp & bit != 0 {
            2
        } else {
            0
        }
    };
    let mut indices = [0u16; WIDE];
    for band in 0..9 {
        for start in 0..2 {
            let mut index = 0u16;
            for row in [band + 1, band] {
                for column in (start..start + 4).rev() {
                    index = 3 * index + digit(row, column);
                }
            }
            indices[band * 2 + start] = index;
        }
    }
    indices
}

/// One prepared sample.
struct Sample {
    terms: Terms,
    /// White's and Black's wide regions, when the model has them.
    wide: Option<Box<[[u16; WIDE]; 2]>>,
    /// The hand features' counts (White's minus Black's, the man's left out), when the
    /// model corrects their weights.
    hand: Option<Box<[(u16, i16)]>>,
    /// White's score by the base: the hand evaluation, or zero.
    base: f32,
    /// White's result: 0, 0.5 or 1 (none off the games' lines).
    result: Option<f32>,
    /// What the fit predicts: the result, or on training positions with `--lambda` below 1
    /// a blend of the result and the search score's prediction.
    target: f32,
}

/// The model: White's score of a sample and, through `visit`, each weight's coefficient in
/// it (per `[opening, ending]` pair: the count, before the phase blend).
#[inline]
fn visit(model: Model, sample: &Sample, mut each: impl FnMut(usize, f32)) {
    let terms = &sample.terms;
    for (g, &count) in terms.globals.iter().enumerate() {
        if count != 0 {
            each(g, f32::from(count));
        }
    }
    // With `tempo`, the side to move reads the first table set and the other side the second.
    let (white_set, black_set) = match (model.tempo, terms.globals[TO_MOVE] > 0) {
        (false, _) => (0, 0),
        (true, true) => (0, 1),
        (true, false) => (1, 0),
    };
    let white = GLOBAL_COUNT + white_set * model.set_len();
    let black = GLOBAL_COUNT + black_set * model.set_len();
    for region in 0..REGIONS {
        let offset = region * REGION_SIZE;
        each(white + offset + terms.white[region] as usize, 1.0);
        each(black + offset + terms.black[region] as usize, -1.0);
    }
    if let Some([white_wide, black_wide]) = sample.wide.as_deref() {
        for region in 0..WIDE {
            let offset = (REGIONS + region) * REGION_SIZE;
            each(white + offset + white_wide[region] as usize, 1.0);
            each(black + offset + black_wide[region] as usize, -1.0);
        }
    }
    if let Some(counts) = sample.hand.as_deref() {
        let first = model.hand_first();
        for &(feature, count) in counts {
            each(first + feature as usize, f32::from(count));
        }
    }
}

/// The phase blend of a sample: the opening weights' share, and the score divisor.
#[inline]
fn blend(terms: &Terms) -> (f32, f32) {
    (
        f32::from(terms.phase) / 40.0,
        1.0 / f32::from(terms.divisor.max(1)),
    )
}

fn score(model: Model, weights: &[[f32; 2]], sample: &Sample) -> f32 {
    let (phase, scale) = blend(&sample.terms);
    let mut sum = 0.0;
    visit(model, sample, |i, count| {
        sum += count * (phase * weights[i][0] + (1.0 - phase) * weights[i][1]);
    });
    sample.base + sum * scale
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The cross-entropy of result `y` (0, 0.5 or 1) against the prediction `sigmoid(x)`.
fn cross_entropy(x: f32, y: f32) -> f64 {
    let p = f64::from(sigmoid(x).clamp(1e-6, 1.0 - 1e-6));
    let y = f64::from(y);
    -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
}

/// The mean cross-entropy of `samples`' targets under `weights` at scale `k`.
fn data_loss(model: Model, weights: &[[f32; 2]], samples: &[Sample], k: f32) -> f64 {
    let sum: f64 = samples
        .par_iter()
        .map(|s| cross_entropy(k * score(model, weights, s), s.target))
        .sum();
    sum / samples.len().max(1) as f64
}

/// The penalties on the region (and correction) weights: `l2` times the sum of their squares,
/// plus `anchor` times the sum of their squared distances from the `start` weights.
fn penalty(weights: &[[f32; 2]], start: &[[f32; 2]], l2: f64, anchor: f64) -> f64 {
    let square = |x: f32| f64::from(x).powi(2);
    weights[GLOBAL_COUNT..]
        .iter()
        .zip(&start[GLOBAL_COUNT..])
        .map(|([o, e], [so, se])| {
            l2 * (square(*o) + square(*e)) + anchor * (square(o - so) + square(e - se))
        })
        .sum::<f64>()
}

/// The scale `k` of `sigmoid(k * score)`: fitted on material alone (a man 100, a king 300),
/// so that the fitted weights stay in centi-men.
fn fit_scale(samples: &[Sample]) -> f32 {
    let material: Vec<(f32, f32)> = samples
        .iter()
        .filter_map(|s| {
            let men = f32::from(s.terms.globals[0]);
            let kings = f32::from(s.terms.globals[1]);
            Some((
                (100.0 * men + 300.0 * kings) / f32::from(s.terms.divisor.max(1)),
                s.result?,
            ))
        })
        .collect();
    best_scale(&material).0
}

/// The `k` that minimises the mean cross-entropy of `sigmoid(k * score)` against the results
/// of `(score, result)` pairs, by golden-section search, and that loss.
fn best_scale(pairs: &[(f32, f32)]) -> (f32, f64) {
    let loss = |k: f32| -> f64 {
        let sum: f64 = pairs.iter().map(|&(x, y)| cross_entropy(k * x, y)).sum();
        sum / pairs.len().max(1) as f64
    };
    let (mut low, mut high) = (1e-4f32, 0.1f32);
    for _ in 0..60 {
        let a = low + (high - low) * 0.382;
        let b = low + (high - low) * 0.618;
        if loss(a) < loss(b) {
            high = b;
        } else {
            low = a;
        }
    }
    let k = (low + high) / 2.0;
    (k, loss(k))
}

/// White's score of `pieces` by the hand evaluation (zero for a board no game can reach).
fn hand_white(pieces: &Pieces) -> f32 {
    let Some(position) = position_of(pieces) else {
        return 0.0;
    };
    let score = damx_engine::evaluate_with(&position, &EvalParams::tuned()).value() as f32;
    match pieces.side_to_move {
        Color::White => score,
        Color::Black => -score,
    }
}

/// The hand features' counts of `pieces` without the man's (whose weight, 100, is the unit).
fn hand_counts(pieces: &Pieces) -> Box<[(u16, i16)]> {
    let Some(position) = position_of(pieces) else {
        return Box::new([]);
    };
    Features::of(&position)
        .counts
        .into_iter()
        .filter(|&(feature, _)| feature as usize != MAN)
        .collect()
}

/// The hand evaluation's cross-entropy on `samples` at its own best scale: the mark a fit
/// must beat on the same held-out positions to be worth an SPRT.
fn hand_loss(samples: &[Labelled]) -> (f32, f64) {
    let pairs: Vec<(f32, f32)> = samples
        .par_iter()
        .map(|l| (hand_white(&l.pieces), f32::from(l.result) / 2.0))
        .collect();
    best_scale(&pairs)
}

/// `fit`: logistic regression over all the positions files.
fn fit(args: &[String]) -> anyhow::Result<()> {
    let options = Options::parse(
        args,
        &[
            "out",
            "epochs",
            "batch",
            "lr",
            "decay",
            "shuffle",
            "l2",
            "validation",
            "seed",
            "start",
            "base",
            "threads",
            "model",
            "lambda",
            "fixed",
            "anchor",
        ],
    )?;
    let model = Model::parse(options.get("model").unwrap_or("regions"))?;
    let fixed_regions = match options.get("fixed") {
        None => false,
        Some("regions") => true,
        Some(other) => bail!("--fixed names what keeps its start weights: regions, not `{other}`"),
    };
    let parameters = model.parameters();
    let out = PathBuf::from(options.get("out").context("fit needs --out FILE.dxw")?);
    let epochs: usize = options.number("epochs", 30)?;
    let batch: usize = options.number::<usize>("batch", 16384)?.max(1);
    let rate: f32 = options.number("lr", 2.0)?;
    let decay: f32 = options.number("decay", 0.75)?;
    ensure!(decay > 0.0 && decay <= 1.0, "--decay is a factor in (0, 1]");
    let reshuffle = match options.get("shuffle").unwrap_or("epoch") {
        "epoch" => true,
        "once" => false,
        other => bail!("--shuffle is epoch or once, not `{other}`"),
    };
    let l2: f64 = options.number("l2", 1e-7)?;
    let anchor: f64 = options.number("anchor", 0.0)?;
    ensure!(anchor >= 0.0, "--anchor is a penalty factor, 0 or more");
    let held: f64 = options.number("validation", 0.1)?;
    let lambda: f32 = options.number("lambda", 1.0)?;
    ensure!(
        (0.0..=1.0).contains(&lambda),
        "--lambda is the results' share of the target, in [0, 1]"
    );
    let seed: u64 = options.number("seed", 1)?;
    let threads: usize = options.number("threads", 0)?;
    ensure!(
        (0.0..1.0).contains(&held),
        "--validation is a fraction below 1"
    );
    ensure!(!options.files.is_empty(), "fit needs positions files");
    let base = match options.get("base").unwrap_or("zero") {
        "zero" => Base::Zero,
        "hand" => Base::Hand,
        other => bail!("--base is zero or hand, not `{other}`"),
    };
    ensure!(
        !model.hand || base == Base::Hand,
        "--model hand corrects the hand features' weights: it needs --base hand"
    );
    ensure!(
        !fixed_regions || model.hand || base == Base::Zero,
        "--fixed regions on the hand base leaves nothing to fit without --model regions+hand"
    );
    let start_name = options.get("start").unwrap_or(match base {
        Base::Zero => "builtin",
        Base::Hand => "zero",
    });
    let start_weights = match start_name {
        "zero" => {
            let mut globals = [[0i16; 2]; GLOBAL_COUNT];
            globals[0] = [100, 100];
            globals[1] = [300, 300];
            PatternWeights::from_parts(globals, vec![[0, 0]; REGIONS * REGION_SIZE])
                .context("weights shape")?
        }
        name => weights_named(name)?,
    };
    let pool = thread_pool(threads)?;
    let command = format!("cargo xtask train fit {}", args.join(" "));
    pool.install(|| -> anyhow::Result<()> {
        let clock = Instant::now();
        let mut labelled = Vec::new();
        for path in &options.files {
            labelled.extend(read_positions(path)?);
        }
        // Positions off the games' lines (`positions --deviations`) have no result: they
        // train, by their search score, and are never held out.
        let (mut labelled, deviations): (Vec<Labelled>, Vec<Labelled>) =
            labelled.into_iter().partition(|l| l.result != NO_RESULT);
        ensure!(labelled.len() >= 10, "too few game positions ({})", labelled.len());
        // The positions of a game lie together in the files: holding out the last ones keeps
        // whole games out of training (positions of one game share their label, so a split
        // by position would measure memory of games, not judgement).
        let validation_count = ((labelled.len() as f64) * held) as usize;
        let mut training = labelled.split_off(labelled.len() - validation_count);
        std::mem::swap(&mut training, &mut labelled);
        let held_out = labelled;
        let deviation_count = deviations.len();
        training.extend(deviations);
        let mut rng = Rng::new(seed);
        rng.shuffle(&mut training);
        // The search scores' own scale: the `k` at which `sigmoid(k * score)` predicts the
        // training results best. A target blends the result with that prediction; a position
        // without a result has that prediction alone.
        let score_k = if lambda < 1.0 || deviation_count > 0 {
            let mut pairs = Vec::with_capacity(training.len());
            for l in training.iter().filter(|l| l.result != NO_RESULT) {
                let score = l.score.context(
                    "--lambda below 1 and positions off the games' lines need searched game positions (`positions --label-nodes N`)",
                )?;
                pairs.push((f32::from(score), f32::from(l.result) / 2.0));
            }
            best_scale(&pairs).0
        } else {
            0.0
        };
        let target = |l: &Labelled, training: bool| -> f32 {
            let result = f32::from(l.result) / 2.0;
            match l.score {
                Some(score) if l.result == NO_RESULT => sigmoid(score_k * f32::from(score)),
                Some(score) if training && lambda < 1.0 => {
                    lambda * result + (1.0 - lambda) * sigmoid(score_k * f32::from(score))
                }
                _ => result,
            }
        };
        let prepare = |records: &[Labelled], training: bool| -> Vec<Sample> {
            records
                .par_iter()
                .map(|l| Sample {
                    terms: Terms::of(&l.pieces),
                    wide: model.wide.then(|| {
                        let p = &l.pieces;
                        Box::new([
                            wide_indices(p.white_men, p.black_men, false),
                            wide_indices(p.black_men, p.white_men, true),
                        ])
                    }),
                    hand: model.hand.then(|| hand_counts(&l.pieces)),
                    base: match base {
                        Base::Zero => 0.0,
                        Base::Hand => hand_white(&l.pieces),
                    },
                    result: (l.result != NO_RESULT).then(|| f32::from(l.result) / 2.0),
                    target: target(l, training),
                })
                .collect()
        };
        let (training, validation) = (prepare(&training, true), prepare(&held_out, false));
        let (training, validation) = (&training[..], &validation[..]);
        let samples = training.len() + validation.len();
        let k = match base {
            Base::Zero => fit_scale(training),
            Base::Hand => {
                let pairs: Vec<(f32, f32)> = training
                    .iter()
                    .filter_map(|s| Some((s.base, s.result?)))
                    .collect();
                best_scale(&pairs).0
            }
        };
        let mut log = String::new();
        let mut say = |line: String| {
            eprintln!("{line}");
            log.push_str(&line);
            log.push('\n');
        };
        say(format!("# {command}"));
        if deviation_count > 0 {
            say(format!(
                "fit: {deviation_count} positions off the games' lines train with their search scores as targets"
            ));
        }
        if lambda < 1.0 {
            say(format!(
                "fit: training targets {lambda} x result + {} x sigmoid({score_k:.6} x search score); validation targets the results",
                1.0 - lambda
            ));
        }
        say(format!(
            "fit: {} positions from {} files ({} training, {} validation), prepared in {:.1} s; k = {k:.6}",
            samples,
            options.files.len(),
            training.len(),
            validation.len(),
            clock.elapsed().as_secs_f64()
        ));
        let (hand_k, hand) = hand_loss(&held_out);
        say(format!(
            "the hand evaluation on the validation positions: loss {hand:.6} (k = {hand_k:.6})"
        ));
        let mut weights = vec![[0f32; 2]; parameters];
        if base == Base::Zero {
            for (w, s) in weights.iter_mut().zip(start_weights.globals()) {
                *w = [f32::from(s[0]), f32::from(s[1])];
            }
        }
        // The start's regions begin every table set; the wide regions begin at zero.
        for set in 0..model.sets() {
            let first = GLOBAL_COUNT + set * model.set_len();
            for (w, s) in weights[first..].iter_mut().zip(start_weights.tables()) {
                *w = [f32::from(s[0]), f32::from(s[1])];
            }
        }
        let start = weights.clone();
        let report = |epoch: usize, weights: &[[f32; 2]], seconds: f64| {
            let train = data_loss(model, weights, training, k);
            let pen = penalty(weights, &start, l2, anchor);
            let valid = data_loss(model, weights, validation, k);
            (
                format!(
                    "epoch {epoch:>3}: training loss {:.6} + L2 {:.6} = {:.6}, validation loss {valid:.6} ({seconds:.1} s)",
                    train,
                    pen,
                    train + pen
                ),
                valid,
            )
        };
        let (line, mut best_loss) = report(0, &weights, 0.0);
        say(line);
        let mut best = weights.clone();
        let mut best_epoch = 0;
        let (mut m, mut v) = (vec![[0f32; 2]; parameters], vec![[0f32; 2]; parameters]);
        let (beta1, beta2, epsilon) = (0.9f32, 0.999f32, 1e-8f32);
        let mut step = 0i32;
        let chunk = (batch / rayon::current_num_threads().max(1)).max(256);
        // The order of the training positions in the batches: the file order shuffled above,
        // then (with --shuffle epoch) shuffled again before every further epoch, so that the
        // batches differ from one epoch to the next.
        let mut order: Vec<u32> = (0..training.len() as u32).collect();
        for epoch in 1..=epochs {
            let epoch_clock = Instant::now();
            if reshuffle && epoch > 1 {
                rng.shuffle(&mut order);
            }
            // A constant rate leaves Adam circling the minimum; a decaying one settles in it.
            let rate = rate * decay.powi(epoch as i32 - 1);
            for part in order.chunks(batch) {
                // The mean gradient of the cross-entropy over the batch, summed in parallel.
                let gradient = part
                    .par_chunks(chunk)
                    .map(|indices| {
                        let mut g = vec![[0f32; 2]; parameters];
                        for s in indices.iter().map(|&i| &training[i as usize]) {
                            let p = sigmoid(k * score(model, &weights, s));
                            let (phase, scale) = blend(&s.terms);
                            let error = (p - s.target) * k * scale;
                            visit(model, s, |i, count| {
                                g[i][0] += error * count * phase;
                                g[i][1] += error * count * (1.0 - phase);
                            });
                        }
                        g
                    })
                    .reduce_with(|mut a, b| {
                        for (x, y) in a.iter_mut().zip(&b) {
                            x[0] += y[0];
                            x[1] += y[1];
                        }
                        a
                    })
                    .unwrap_or_else(|| vec![[0f32; 2]; parameters]);
                step += 1;
                let n = part.len() as f32;
                let correction1 = 1.0 - beta1.powi(step);
                let correction2 = 1.0 - beta2.powi(step);
                // On the hand base the hand features stand for the globals: they stay zero.
                // With --fixed regions the region weights keep their start values.
                let first = match base {
                    Base::Zero => 0,
                    Base::Hand => GLOBAL_COUNT,
                };
                let fitted = (first..parameters)
                    .filter(|&i| !(fixed_regions && (GLOBAL_COUNT..model.hand_first()).contains(&i)));
                for i in fitted {
                    for phase in 0..2 {
                        let mut g = gradient[i][phase] / n;
                        if i >= GLOBAL_COUNT {
                            g += (2.0 * l2) as f32 * weights[i][phase]
                                + (2.0 * anchor) as f32 * (weights[i][phase] - start[i][phase]);
                        }
                        if g == 0.0 && m[i][phase] == 0.0 {
                            continue;
                        }
                        m[i][phase] = beta1 * m[i][phase] + (1.0 - beta1) * g;
                        v[i][phase] = beta2 * v[i][phase] + (1.0 - beta2) * g * g;
                        let update = rate * (m[i][phase] / correction1)
                            / ((v[i][phase] / correction2).sqrt() + epsilon);
                        weights[i][phase] -= update;
                    }
                }
            }
            let (line, loss) = report(epoch, &weights, epoch_clock.elapsed().as_secs_f64());
            say(line);
            if loss < best_loss {
                best_loss = loss;
                best = weights.clone();
                best_epoch = epoch;
            }
        }
        if model.playable() {
            let quantise = |w: f32| w.round().clamp(-30000.0, 30000.0) as i16;
            let mut globals = [[0i16; 2]; GLOBAL_COUNT];
            for (g, w) in globals.iter_mut().zip(&best) {
                *g = [quantise(w[0]), quantise(w[1])];
            }
            let tables: Vec<[i16; 2]> = best[GLOBAL_COUNT..model.hand_first()]
                .iter()
                .map(|w| [quantise(w[0]), quantise(w[1])])
                .collect();
            let fitted = PatternWeights::from_parts(globals, tables)
                .context("weights shape")?
                .on_base(base);
            let bytes = fitted.to_bytes();
            write_atomically(&out, &bytes)?;
            let used = fitted.tables().iter().filter(|w| **w != [0, 0]).count();
            say(format!(
                "fit: epoch {best_epoch} kept (validation loss {best_loss:.6}); {used} region weights set; wrote {} ({} bytes) in {:.1} s",
                out.display(),
                bytes.len(),
                clock.elapsed().as_secs_f64()
            ));
            for (name, [o, e]) in global_names().iter().zip(fitted.globals()) {
                say(format!("  {name:<22} {o:>6} {e:>6}"));
            }
            if model.hand {
                // The hand weights the regions were fitted with: the built-in ones corrected.
                let mut hand = EvalParams::tuned();
                let corrections = &best[model.hand_first()..];
                for (i, [o, e]) in corrections.iter().enumerate() {
                    hand.opening[i] += o.round() as i32;
                    hand.ending[i] += e.round() as i32;
                }
                let hand_path = PathBuf::from(format!("{}.hand", out.display()));
                write_atomically(&hand_path, hand.to_text().as_bytes())?;
                say(format!("fit: the corrected hand weights in {}", hand_path.display()));
                for (i, name) in feature_names().iter().enumerate() {
                    let [o, e] = corrections[i];
                    if o.abs() >= 3.0 || e.abs() >= 3.0 {
                        say(format!(
                            "  {name:<22} {:>6} {:>6}  ({o:+.0} {e:+.0})",
                            hand.opening[i], hand.ending[i]
                        ));
                    }
                }
            }
        } else {
            say(format!(
                "fit: epoch {best_epoch} kept (validation loss {best_loss:.6}); the engine cannot play the tempo or wide regions, so no weights file is written"
            ));
        }
        let log_path = PathBuf::from(format!("{}.log", out.display()));
        std::fs::write(&log_path, log)
            .with_context(|| format!("cannot write {}", log_path.display()))?;
        Ok(())
    })
}

/// `scale`: the weights of one file with every region weight multiplied by `--factor`.
fn scale(args: &[String]) -> anyhow::Result<()> {
    let options = Options::parse(args, &["out", "factor"])?;
    let out = PathBuf::from(options.get("out").context("scale needs --out FILE.dxw")?);
    let factor: f64 = options.number("factor", f64::NAN)?;
    ensure!(
        factor.is_finite() && factor >= 0.0,
        "scale needs --factor X, a number 0 or more"
    );
    let [input] = options.files.as_slice() else {
        bail!("scale wants one weights file (or builtin)");
    };
    let scaled = scaled_weights(&weights_named(&input.to_string_lossy())?, factor)?;
    write_atomically(&out, &scaled.to_bytes())?;
    println!(
        "scale: {} times {factor} into {}",
        input.display(),
        out.display()
    );
    Ok(())
}

/// `calibrate`: the evaluation's confidence against the results, by material (see [`ABOUT`]).
fn calibrate(args: &[String]) -> anyhow::Result<()> {
    let options = Options::parse(args, &["weights", "threads"])?;
    ensure!(
        !options.files.is_empty(),
        "calibrate wants one or more positions files"
    );
    let params = players::weights(options.get("weights").unwrap_or("pattern"))?;
    let pool = thread_pool(options.number("threads", 0)?)?;
    let mut samples = Vec::new();
    for file in &options.files {
        samples.extend(read_positions(file)?.into_iter().filter(|l| l.result <= 2));
    }
    let rows: Vec<(MaterialClass, f32, f32)> = pool.install(|| {
        samples
            .par_iter()
            .filter_map(|labelled| {
                let position = position_of(&labelled.pieces)?;
                let score = damx_engine::evaluate_with(&position, &params).value() as f32;
                let white = match labelled.pieces.side_to_move {
                    Color::White => score,
                    Color::Black => -score,
                };
                let class = MaterialClass::of(&labelled.pieces, white >= 0.0);
                Some((class, white, f32::from(labelled.result) / 2.0))
            })
            .collect()
    });
    let all: Vec<(f32, f32)> = rows.iter().map(|&(_, x, y)| (x, y)).collect();
    let (k, loss) = best_scale(&all);
    println!(
        "calibrate: {} positions, k = {k:.6}, loss {loss:.6}",
        all.len()
    );
    println!(
        "{:<34} {:>5} {:>9} {:>8} {:>7} {:>9} {:>9}",
        "kings", "men", "positions", "|score|", "k ratio", "loss", "own k"
    );
    let mut classes: Vec<MaterialClass> = rows.iter().map(|row| row.0).collect();
    classes.sort_unstable();
    classes.dedup();
    for class in classes {
        let pairs: Vec<(f32, f32)> = rows
            .iter()
            .filter(|row| row.0 == class)
            .map(|&(_, x, y)| (x, y))
            .collect();
        if pairs.len() < 1000 {
            continue;
        }
        let n = pairs.len() as f64;
        let at_global = pairs
            .iter()
            .map(|&(x, y)| cross_entropy(k * x, y))
            .sum::<f64>()
            / n;
        let (own, at_own) = best_scale(&pairs);
        let mean = pairs.iter().map(|&(x, _)| f64::from(x.abs())).sum::<f64>() / n;
        println!(
            "{:<34} {:>+5} {:>9} {:>8.1} {:>7.2} {:>9.6} {:>9.6}",
            class.kings.describe(),
            class.men,
            pairs.len(),
            mean,
            own / k,
            at_global,
            at_own
        );
    }
    Ok(())
}

/// A position's material as [`calibrate`] groups it, from the side the evaluation favours.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct MaterialClass {
    kings: Kings,
    /// The favoured side's men minus the other's, within -3..=3.
    men: i32,
}

/// Which side has kings, from the side the evaluation favours.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kings {
    Neither,
    Favoured,
    Other,
    BothEqual,
    BothFavouredMore,
    BothOtherMore,
}

impl Kings {
    fn describe(self) -> &'static str {
        match self {
            Kings::Neither => "none",
            Kings::Favoured => "the favoured side only",
            Kings::Other => "the other side only",
            Kings::BothEqual => "both, as many",
            Kings::BothFavouredMore => "both, more for the favoured side",
            Kings::BothOtherMore => "both, more for the other side",
        }
    }
}

impl MaterialClass {
    fn of(pieces: &Pieces, white_favoured: bool) -> MaterialClass {
        let count = |bits: u64| bits.count_ones() as i32;
        let (white, black) = (
            (count(pieces.white_men), count(pieces.white_kings)),
            (count(pieces.black_men), count(pieces.black_kings)),
        );
        let ((men, kings), (other_men, other_kings)) = if white_favoured {
            (white, black)
        } else {
            (black, white)
        };
        let kings = match (kings, other_kings) {
            (0, 0) => Kings::Neither,
            (_, 0) => Kings::Favoured,
            (0, _) => Kings::Other,
            (a, b) if a == b => Kings::BothEqual,
            (a, b) if a > b => Kings::BothFavouredMore,
            _ => Kings::BothOtherMore,
        };
        MaterialClass {
            kings,
            men: (men - other_men).clamp(-3, 3),
        }
    }
}

/// The built-in weights (`builtin`) or those of the file `name`.
fn weights_named(name: &str) -> anyhow::Result<PatternWeights> {
    match name {
        "builtin" => Ok((*PatternWeights::builtin()).clone()),
        path => PatternWeights::load(Path::new(path)).with_context(|| format!("in {path}")),
    }
}

/// `weights` with every region weight times `factor`, rounded and kept within the weights'
/// range; the globals and the base unchanged.
fn scaled_weights(weights: &PatternWeights, factor: f64) -> anyhow::Result<PatternWeights> {
    let times = |w: i16| (f64::from(w) * factor).round().clamp(-30000.0, 30000.0) as i16;
    let tables = weights
        .tables()
        .iter()
        .map(|&[opening, ending]| [times(opening), times(ending)])
        .collect();
    Ok(PatternWeights::from_parts(*weights.globals(), tables)
        .context("weights shape")?
        .on_base(weights.base()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use damx_engine::egdb::Egdb;

    /// `calibrate` groups a position by the material of the side the evaluation favours:
    /// which side has kings, and how many men that side is ahead.
    #[test]
    fn material_classes_are_seen_from_the_favoured_side() {
        // White: four men and a king; Black: two men and two kings.
        let position: Position = "W:W31,32,33,34,K46:B7,8,K5,K10".parse().unwrap();
        let pieces = Pieces::of(&position);
        let white = MaterialClass::of(&pieces, true);
        assert!(white.kings == Kings::BothOtherMore && white.men == 2);
        let black = MaterialClass::of(&pieces, false);
        assert!(black.kings == Kings::BothFavouredMore && black.men == -2);
        // Men only, White ten men up: the difference is clamped to three.
        let position: Position = "W:W31,32,33,34,35,36,37,38,39,40,41:B5".parse().unwrap();
        let class = MaterialClass::of(&Pieces::of(&position), true);
        assert!(class.kings == Kings::Neither && class.men == 3);
    }

    /// A record survives the compact encoding.
    #[test]
    fn record_round_trip() {
        let position: Position = "B:W28,32,K46:B7,12,K5".parse().unwrap();
        for score in [None, Some(-137), Some(SCORE_BOUND as i16)] {
            let record = Labelled {
                pieces: Pieces::of(&position),
                result: 2,
                score,
            };
            let mut bytes = Vec::new();
            encode(&record, &mut bytes);
            assert_eq!(bytes.len(), RECORD_V2);
            let back = decode(&bytes).unwrap();
            assert_eq!(back.pieces, record.pieces);
            assert_eq!(back.result, 2);
            assert_eq!(back.score, score);
            // A version 1 record is the same without the score.
            let v1 = decode(&bytes[..RECORD_V1]).unwrap();
            assert_eq!((v1.pieces, v1.result, v1.score), (record.pieces, 2, None));
            let mut bad = bytes.clone();
            bad[28] = 7 << 1;
            assert!(decode(&bad).is_err());
        }
        let mut beyond = Vec::new();
        let record = Labelled {
            pieces: Pieces::of(&position),
            result: 1,
            score: Some(SCORE_BOUND as i16 + 1),
        };
        encode(&record, &mut beyond);
        assert!(
            decode(&beyond).is_err(),
            "a score beyond the bound is refused"
        );
        // A position off the games' lines has no result, so it must have a score.
        for (score, valid) in [(Some(42), true), (None, false)] {
            let record = Labelled {
                pieces: Pieces::of(&position),
                result: NO_RESULT,
                score,
            };
            let mut bytes = Vec::new();
            encode(&record, &mut bytes);
            assert_eq!(decode(&bytes).is_ok(), valid, "{score:?}");
        }
    }

    /// A deviation is one legal move away from its position, quiet, and the same every time.
    #[test]
    fn deviations_are_one_quiet_move_away() {
        let mut found = 0;
        for fen in [
            "W:W31,32,33,34,35,36,37,38,39,40:B11,12,13,14,15,16,17,18,19,20",
            "B:W28,32,K46:B7,12,K5",
            "W:W50:B1",
        ] {
            let position: Position = fen.parse().unwrap();
            let Some(next) = deviation(&position) else {
                continue;
            };
            found += 1;
            assert!(is_quiet(&next), "{fen}");
            assert!(
                position
                    .legal_moves()
                    .iter()
                    .any(|mv| position.play(mv) == next),
                "{fen}"
            );
            assert_eq!(deviation(&position), Some(next));
        }
        assert!(found >= 2);
    }

    /// A searched position's score is White's: a position where White wins a man scores
    /// well for White whichever side is to move, and the search is repeatable.
    #[test]
    fn search_scores_are_whites() {
        let mut engine = small_engine();
        // White is two men up with Black to move, then the same with White to move.
        for fen in ["B:W31,32,33,34:B3,4", "W:W31,32,33,34:B3,4"] {
            let position: Position = fen.parse().unwrap();
            let pieces = Pieces::of(&position);
            let score = white_search_score(&mut engine, &pieces, 2000);
            assert!(score > 100, "{fen}: {score}");
            assert_eq!(score, white_search_score(&mut engine, &pieces, 2000));
        }
    }

    /// The wide regions read each side's men from its own side of the board: the starting
    /// position, where Black's men are White's turned half a turn, gives both sides the same
    /// contents, and a lone man counts once in every region that holds it.
    #[test]
    fn wide_regions_are_colour_symmetric() {
        let start = Position::initial();
        let (white, black) = (
            start.men(Color::White).bits(),
            start.men(Color::Black).bits(),
        );
        assert_eq!(
            wide_indices(white, black, false),
            wide_indices(black, white, true)
        );
        assert_ne!(wide_indices(white, black, false), [0; WIDE]);
        // Square 28 (row 5, the middle square of five) lies in both columns of bands 4 and
        // 5: the upper row of band 4 (digits 3^4 to 3^7) and the lower row of band 5
        // (3^0 to 3^3), at place 2 of the first column and place 1 of the second.
        let man = Bitboard::from_square(Square::new(28).unwrap()).bits();
        let indices = wide_indices(man, 0, false);
        let set: Vec<(usize, u16)> = indices
            .iter()
            .enumerate()
            .filter(|(_, i)| **i != 0)
            .map(|(r, i)| (r, *i))
            .collect();
        assert_eq!(
            set,
            vec![(8, 3u16.pow(6)), (9, 3u16.pow(5)), (10, 9), (11, 3)]
        );
        assert_eq!(global_names()[TO_MOVE], "to move");
    }

    /// With `--model hand` a hand feature's correction moves the score like the hand
    /// evaluation's own weight would: by its count, blended by the phase and divided in
    /// drawish endings. The man's weight is the unit and is not corrected.
    #[test]
    fn hand_corrections_act_like_hand_weights() {
        let model = Model::parse("regions+hand").unwrap();
        assert!(model.playable() && model.hand);
        assert_eq!(model.parameters(), model.hand_first() + FEATURE_COUNT);
        let king = feature_names().iter().position(|n| *n == "king").unwrap();
        for fen in [
            "W:W28,32,K46:B7,12,K5,K1",
            "B:WK46,K10:BK5",
            "W:W31,32,33,34,35:B16,17,18,19,20",
        ] {
            let position: Position = fen.parse().unwrap();
            let pieces = Pieces::of(&position);
            let counts = hand_counts(&pieces);
            assert!(
                counts.iter().all(|&(feature, _)| feature as usize != MAN),
                "{fen}"
            );
            let sample = Sample {
                terms: Terms::of(&pieces),
                wide: None,
                hand: Some(counts),
                base: 10.0,
                result: Some(0.5),
                target: 0.5,
            };
            let mut weights = vec![[0f32; 2]; model.parameters()];
            weights[model.hand_first() + king] = [40.0, 20.0];
            let features = Features::of(&position);
            let kings = features
                .counts
                .iter()
                .find(|(feature, _)| *feature as usize == king)
                .map_or(0.0, |(_, count)| f32::from(*count));
            let phase = features.phase as f32 / 40.0;
            let expected =
                10.0 + kings * (40.0 * phase + 20.0 * (1.0 - phase)) / features.divisor as f32;
            assert!(
                (score(model, &weights, &sample) - expected).abs() < 1e-3,
                "{fen}"
            );
        }
        assert!(Model::parse("regions+hand+wide").is_ok_and(|m| !m.playable()));
    }

    /// An engine with a small table, for the tests' games and searches.
    fn small_engine() -> Engine {
        Engine::new(EngineOptions {
            hash_mb: 1,
            ..EngineOptions::default()
        })
    }

    /// A fresh directory `damx-NAME-PID` under the temporary one, holding `games.txt`: one
    /// game played to its end (at most 200 plies, 4 random) from each of `seeds`.
    fn games_file(name: &str, seeds: &[u64]) -> (PathBuf, PathBuf) {
        let mut engine = small_engine();
        let dir = std::env::temp_dir().join(format!("damx-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let games = dir.join("games.txt");
        let mut text = "# games\n".to_owned();
        for (k, &seed) in seeds.iter().enumerate() {
            let (line, _) = play_one(&mut engine, seed, 200, 4, None).unwrap();
            text.push_str(&format!("{k}\t{line}\n"));
        }
        std::fs::write(&games, &text).unwrap();
        (dir, games)
    }

    /// A fit's inputs in a fresh directory: the positions of twelve short games and the
    /// built-in weights as a start file. Returns the directory, the positions and the start.
    fn fit_inputs(name: &str) -> (PathBuf, PathBuf, PathBuf) {
        let (dir, games) = games_file(name, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
        let pos = dir.join("games.pos");
        positions(&[
            "--out".to_owned(),
            pos.display().to_string(),
            games.display().to_string(),
        ])
        .unwrap();
        let start = dir.join("start.dxw");
        std::fs::write(&start, PatternWeights::builtin().to_bytes()).unwrap();
        (dir, pos, start)
    }

    /// The arguments of a small, quick fit on the hand base from `start`, with `extra` ones:
    /// batches of 64 at rate 1, a fifth held out, one thread. The positions file comes twice:
    /// the held-out positions (the end of the second copy) are among the training ones, so
    /// that a fit that learns them is kept over its start.
    fn small_fit_args(out: &Path, start: &Path, pos: &Path, extra: &[&str]) -> Vec<String> {
        let mut args: Vec<String> = [
            "--out",
            out.to_str().unwrap(),
            "--batch",
            "64",
            "--lr",
            "1",
            "--validation",
            "0.2",
            "--base",
            "hand",
            "--start",
            start.to_str().unwrap(),
            "--threads",
            "1",
        ]
        .map(String::from)
        .to_vec();
        args.extend(extra.iter().map(|a| a.to_string()));
        args.push(pos.display().to_string());
        args.push(pos.display().to_string());
        args
    }

    /// `fit --fixed regions` keeps the start's region weights and fits the hand corrections
    /// alone; without a hand model on the hand base it has nothing to fit and is refused.
    #[test]
    fn fixed_regions_keep_their_start_weights() {
        let (dir, pos, start) = fit_inputs("fixed");
        let out = dir.join("fixed.dxw");
        let fit_args = |extra: &[&str]| -> Vec<String> {
            let mut both = vec!["--epochs", "2"];
            both.extend_from_slice(extra);
            small_fit_args(&out, &start, &pos, &both)
        };
        fit(&fit_args(&[
            "--model",
            "regions+hand",
            "--fixed",
            "regions",
        ]))
        .unwrap();
        let fitted = PatternWeights::load(&out).unwrap();
        assert_eq!(fitted.tables(), PatternWeights::builtin().tables());
        let hand_text = std::fs::read_to_string(format!("{}.hand", out.display())).unwrap();
        let hand = EvalParams::from_text(&hand_text).unwrap();
        let tuned = EvalParams::tuned();
        // A later epoch than the start was kept (the fit is seeded), and it moved the hand
        // weights while the regions stayed.
        let log = std::fs::read_to_string(format!("{}.log", out.display())).unwrap();
        assert!(!log.contains("epoch 0 kept"), "{log}");
        assert!(hand.opening != tuned.opening || hand.ending != tuned.ending);
        assert!(fit(&fit_args(&["--fixed", "regions"])).is_err());
        assert!(fit(&fit_args(&["--model", "regions+hand", "--fixed", "hand"])).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `fit --anchor` pulls the region weights towards the start: the same fit moves them
    /// less far from it with the anchor than without.
    #[test]
    fn an_anchor_keeps_the_regions_near_their_start() {
        let (dir, pos, start) = fit_inputs("anchor");
        let distance = |anchor: &str| -> f64 {
            let out = dir.join(format!("anchor-{anchor}.dxw"));
            let args = small_fit_args(
                &out,
                &start,
                &pos,
                &["--epochs", "3", "--l2", "0", "--anchor", anchor],
            );
            fit(&args).unwrap();
            let fitted = PatternWeights::load(&out).unwrap();
            fitted
                .tables()
                .iter()
                .zip(PatternWeights::builtin().tables())
                .map(|(a, b)| {
                    (f64::from(a[0]) - f64::from(b[0])).powi(2)
                        + (f64::from(a[1]) - f64::from(b[1])).powi(2)
                })
                .sum()
        };
        let free = distance("0");
        let anchored = distance("0.05");
        assert!(free > 0.0, "the free fit moved nothing");
        assert!(anchored < free, "anchored {anchored} against free {free}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `scale` multiplies the region weights alone: by 1 the built-in weights come back
    /// byte for byte; by a half every region weight is halved (rounded half away from zero),
    /// and the globals and the base are those of the input.
    #[test]
    fn scaling_touches_the_region_weights_alone() {
        let builtin = PatternWeights::builtin();
        let same = scaled_weights(&builtin, 1.0).unwrap();
        assert_eq!(same.to_bytes(), builtin.to_bytes());
        let half = scaled_weights(&builtin, 0.5).unwrap();
        assert_eq!(half.base(), builtin.base());
        assert_eq!(half.globals(), builtin.globals());
        let halved = |w: i16| (f64::from(w) / 2.0).round() as i16;
        assert!(builtin.tables().iter().any(|&[o, _]| o.abs() > 1));
        for (scaled, original) in half.tables().iter().zip(builtin.tables()) {
            assert_eq!(*scaled, [halved(original[0]), halved(original[1])]);
        }
    }

    /// Shards of one run play disjoint games.
    #[test]
    fn shard_seeds_are_disjoint() {
        let seeds = |shard: u64, shards: u64| -> HashSet<u64> {
            (0..100u64).map(|k| mix(1, shard + shards * k)).collect()
        };
        let (a, b) = (seeds(0, 2), seeds(1, 2));
        assert_eq!(a.len(), 100);
        assert!(a.is_disjoint(&b));
    }

    /// `endings` writes, for each game, its first quiet position within the piece range (a
    /// game that never has one gives none), and the file reads back as openings.
    #[test]
    fn endings_are_the_first_quiet_position_in_range() {
        let (dir, games) = games_file("endings", &[7, 8]);
        let mut engine = small_engine();
        let out = dir.join("endings.fen");
        let args = [
            "--out",
            out.to_str().unwrap(),
            "--pieces",
            "12",
            "--min-pieces",
            "8",
        ];
        let mut args: Vec<String> = args.map(String::from).to_vec();
        args.push(games.display().to_string());
        endings(&args).unwrap();

        let mut expected = Vec::new();
        let mut taken = HashSet::new();
        replay(std::slice::from_ref(&games), |game, _, position, _| {
            let pieces = position.occupied().count();
            if (8..=12).contains(&pieces) && is_quiet(position) && taken.insert(game) {
                expected.push(position.to_fen());
            }
        })
        .unwrap();
        let written = std::fs::read_to_string(&out).unwrap();
        let fens: Vec<&str> = written.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(fens, expected);
        assert!(!fens.is_empty());
        let openings = damx_session::tournament::Opening::read(&written).unwrap();
        assert_eq!(openings.len(), fens.len());

        // With --band, the same positions less those whose searched score, for either side,
        // lies outside the band. The band is drawn between the two positions' scores, so that
        // it keeps the one and drops the other whatever the evaluation's weights.
        let size = |fen: &String| {
            let position: Position = fen.parse().unwrap();
            i32::from(white_search_score(&mut engine, &Pieces::of(&position), 500)).abs()
        };
        let sizes: Vec<i32> = expected.iter().map(size).collect();
        let (low, high) = (*sizes.iter().min().unwrap(), *sizes.iter().max().unwrap());
        assert!(
            low < high,
            "the two games' positions score alike: {sizes:?}"
        );
        let band = format!("{low},{}", high - 1);
        let banded = dir.join("banded.fen");
        let mut band_args: Vec<String> = [
            "--out",
            banded.to_str().unwrap(),
            "--pieces",
            "12",
            "--min-pieces",
            "8",
            "--band",
            band.as_str(),
            "--nodes",
            "500",
            "--threads",
            "1",
        ]
        .map(String::from)
        .to_vec();
        band_args.push(games.display().to_string());
        endings(&band_args).unwrap();
        let kept: Vec<&str> = expected
            .iter()
            .zip(&sizes)
            .filter(|&(_, &size)| size < high)
            .map(|(fen, _)| fen.as_str())
            .collect();
        let written = std::fs::read_to_string(&banded).unwrap();
        let fens: Vec<&str> = written.lines().filter(|l| !l.starts_with('#')).collect();
        assert!(!kept.is_empty() && kept.len() < expected.len());
        assert_eq!(fens, kept);
        assert!(parse_band("50,10").is_err() && parse_band("-5,10").is_err());
        assert_eq!(parse_band("40, 100").unwrap(), (40, 100));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A game is played to its end by the rules and its line replays.
    #[test]
    fn a_game_is_played_to_the_end() {
        let mut engine = small_engine();
        let (line, plies) = play_one(&mut engine, 7, 200, 4, None).unwrap();
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 4);
        let mut game = Game::new(Position::from_fen(fields[2]).unwrap());
        for word in fields[3].split_whitespace() {
            let mv = game.position().parse_move(word).unwrap();
            game.play(mv);
        }
        assert_eq!(fields[3].split_whitespace().count(), plies);
        let outcome = game.outcome().expect("the game is over");
        assert_eq!(GameResult::from_outcome(Some(outcome)).as_str(), fields[0]);
    }

    /// With databases a game ends where the referee's judge by them gives a result; a game
    /// that starts outside them is played into them.
    #[test]
    fn a_game_ends_in_the_databases() {
        let dir = std::env::temp_dir().join(format!("damx-train-egdb-{}", std::process::id()));
        let options = damx_engine::egdb::BuildOptions {
            dir: dir.clone(),
            pieces: 3,
            memory_limit: None,
        };
        damx_engine::egdb::build(&options, &|_| {}).unwrap();
        let egdb = Egdb::open(&dir).unwrap();
        let judge = Judge::new(AdjudicationMethod::Egdb {
            egdb: damx_engine::egdb::SharedEgdb::new(Egdb::open(&dir).unwrap()),
            depth: 0,
            threshold: 0,
        });
        let mut engine = small_engine();

        // Two kings against one, White to move: a draw in the databases, so no move is played.
        let held = Position::from_fen("W:WK1,K2:BK50").unwrap();
        assert_eq!(egdb.probe(&held), Some(damx_engine::egdb::Wdl::Draw));
        let (result, moves) = play_out(&mut engine, Game::new(held), 200, Some(&judge), 1).unwrap();
        assert!(moves.is_empty());
        assert_eq!(result, GameResult::Draw);

        // Four men, no capture pending: played until the databases hold a quiet position,
        // whose value is the result.
        let outside = Position::from_fen("W:W46,47:B36,37").unwrap();
        assert!(egdb.value(&outside).is_none());
        let (result, moves) =
            play_out(&mut engine, Game::new(outside), 200, Some(&judge), 1).unwrap();
        let mut game = Game::new(outside);
        for word in &moves {
            let mv = game.position().parse_move(word).unwrap();
            game.play(mv);
        }
        let end = *game.position();
        assert!(!moves.is_empty() && end.occupied().count() <= 3);
        let value = egdb.probe(&end).expect("the last position is held");
        let side = end.side_to_move();
        let expected = match value {
            damx_engine::egdb::Wdl::Draw => GameResult::Draw,
            damx_engine::egdb::Wdl::Win if side == Color::White => GameResult::WhiteWins,
            damx_engine::egdb::Wdl::Loss if side == Color::Black => GameResult::WhiteWins,
            _ => GameResult::BlackWins,
        };
        assert_eq!(result, expected);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
