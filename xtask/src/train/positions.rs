//! `positions`: the positions file format, and the quiet positions of games files labelled
//! with their results (and optionally search scores), deduplicated.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};
use damx_engine::gauntlet::Rng;
use damx_engine::pattern::Pieces;
use damx_engine::{Engine, EngineOptions, EvalParams, Limits, StopSignal};
use damx_rules::{Bitboard, Color, Position};
use rayon::prelude::*;

use super::{mix, thread_pool, write_atomically};
use crate::args::Options;
use crate::players;

/// The positions file: magic, version, record count, then records.
pub(super) const POSITIONS_MAGIC: [u8; 8] = *b"DAMXPOS\0";
/// Version 1: a record is the pieces and the result; version 2 adds a search score.
pub(super) const POSITIONS_VERSION: u16 = 2;
pub(super) const POSITIONS_HEADER: usize = 8 + 2 + 8;
/// Four 7-byte bitboards and a byte of side to move (bit 0, set for Black) and White's
/// points times two (bits 1-2; [`NO_RESULT`] for a position off the games' lines, which has a
/// score instead); in version 2 then White's search score (`i16`, little-endian,
/// [`NO_SCORE`] when the position was not searched).
pub(super) const RECORD_V1: usize = 29;
pub(super) const RECORD_V2: usize = 31;
/// The result field of a position no game reached (see `positions --deviations`).
pub(super) const NO_RESULT: u8 = 3;
/// The score field of a position that was not searched.
pub(super) const NO_SCORE: i16 = i16::MIN;
/// Search scores are stored clamped to this (centi-men; a won position gets the bound).
pub(super) const SCORE_BOUND: i32 = 3000;

/// One labelled position.
#[derive(Clone, Copy)]
pub(super) struct Labelled {
    pub(super) pieces: Pieces,
    /// White's points times two: 0, 1 or 2; [`NO_RESULT`] for a position off the games'
    /// lines (it has a score).
    pub(super) result: u8,
    /// White's score by a search of the position (centi-men, within [`SCORE_BOUND`]), when
    /// it was searched.
    pub(super) score: Option<i16>,
}

pub(super) fn encode(record: &Labelled, out: &mut Vec<u8>) {
    let p = &record.pieces;
    for bits in [p.white_men, p.white_kings, p.black_men, p.black_kings] {
        out.extend_from_slice(&bits.to_le_bytes()[..7]);
    }
    let side = u8::from(p.side_to_move == Color::Black);
    out.push(side | (record.result << 1));
    out.extend_from_slice(&record.score.unwrap_or(NO_SCORE).to_le_bytes());
}

pub(super) fn decode(bytes: &[u8]) -> anyhow::Result<Labelled> {
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

pub(super) fn read_positions(path: &Path) -> anyhow::Result<Vec<Labelled>> {
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
pub(super) fn replay(
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
pub(super) fn is_quiet(position: &Position) -> bool {
    position.has_legal_move() && !position.has_capture()
}

/// `positions`: quiet positions of games files, labelled and deduplicated.
pub(super) fn positions(args: &[String]) -> anyhow::Result<()> {
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
pub(super) fn deviation(position: &Position) -> Option<Position> {
    let moves = position.legal_moves();
    let mut rng = Rng::new(position.hash());
    let next = position.play(&moves[rng.below(moves.len())]);
    is_quiet(&next).then_some(next)
}

/// The scores file beside a positions file being labelled: magic, the fingerprint of the
/// positions and settings, then one `i16` score per position in order, appended a chunk at a
/// time so that an interrupted labelling resumes where it stopped.
pub(super) const SCORES_MAGIC: [u8; 8] = *b"DAMXSCR\0";
pub(super) const SCORES_HEADER: usize = 16;
/// Positions searched between two appends to the scores file.
pub(super) const SCORES_CHUNK: usize = 16384;

/// White's score of each record by a search of `nodes` nodes with the evaluation `weights`
/// (a fresh table for every position, so the scores do not depend on the order or the
/// threads), kept in `OUT.scores` as they come and resumed from there.
pub(super) fn search_scores(
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
pub(super) fn position_of(pieces: &Pieces) -> Option<Position> {
    Position::from_pieces(
        Bitboard::from_bits(pieces.white_men),
        Bitboard::from_bits(pieces.white_kings),
        Bitboard::from_bits(pieces.black_men),
        Bitboard::from_bits(pieces.black_kings),
        pieces.side_to_move,
    )
    .ok()
}

/// White's static score of `pieces` by the evaluation `params` (centi-men), unless no game can
/// reach the board.
pub(super) fn white_score(pieces: &Pieces, params: &EvalParams) -> Option<f32> {
    let score = damx_engine::evaluate_with(&position_of(pieces)?, params).value() as f32;
    Some(match pieces.side_to_move {
        Color::White => score,
        Color::Black => -score,
    })
}

/// [`white_search_score`] of every position of `pieces`, in parallel on the current pool, each
/// thread with an engine of its own evaluating with `eval`.
pub(super) fn white_search_scores(pieces: &[Pieces], nodes: u64, eval: &EvalParams) -> Vec<i16> {
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
pub(super) fn white_search_score(engine: &mut Engine, pieces: &Pieces, nodes: u64) -> i16 {
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
