//! `games`: self-play games played to their end (or to the databases' judgement), one shard
//! of a run into one resumable text file.

use std::collections::HashSet;
use std::fs::OpenOptions;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};
use damx_engine::gauntlet::Rng;
use damx_engine::openings;
use damx_engine::{Engine, EngineOptions, Limits, StopSignal};
use damx_rules::{Game, GameResult};
use damx_session::referee::{AdjudicationMethod, Judge};
use rayon::prelude::*;

use super::{mix, thread_pool};
use crate::args::Options;
use crate::players;

/// A game longer than this is a bug in the rules' draw counting, not a game.
pub(super) const MAX_GAME_PLIES: usize = 5000;

/// Plays one self-play game to its end; returns its line (without the number).
pub(super) fn play_one(
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
pub(super) fn play_out(
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
pub(super) fn games(args: &[String]) -> anyhow::Result<()> {
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
pub(super) fn resume(path: &Path, header: &str) -> anyhow::Result<HashSet<usize>> {
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
