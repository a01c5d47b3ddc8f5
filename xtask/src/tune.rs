//! `cargo xtask tune`: fits the evaluation weights to the results of self-play games by
//! logistic regression, and writes them to `damx-engine/src/weights.rs`.
//!
//! Each round plays GAMES games of the engine against itself at a fixed depth from the built-in
//! ballots, with a few random moves early on for variety; games are decided by the rules, or
//! adjudicated once both sides' searches agree that one side is far ahead. Every quiet
//! position (no capture for the side to move) becomes a sample labelled with the game's
//! result. The fit minimises the cross-entropy between the result and
//! `sigmoid(k * evaluation)`: first `k` with the weights held (golden-section search), then the
//! weights by full-batch gradient descent (Adam), the man's weights held at 100 to fix the
//! scale. The next round plays with the new weights. Everything is seeded, and every game is
//! searched by one thread to a fixed depth, so the same command gives the same weights.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Context;
use damx_engine::eval::{FEATURE_COUNT, Features, feature_names};
use damx_engine::gauntlet::Rng;
use damx_engine::openings;
use damx_engine::{Engine, EngineOptions, EvalParams, Limits, StopSignal};
use damx_rules::{Color, Game, Outcome, Position};

use crate::args;
use crate::players;

pub(crate) const ABOUT: &str = "\
tune the evaluation weights: ROUNDS rounds (default 2) of GAMES self-play games (default 6000)
at DEPTH (default 6) from the ballots with random early moves (SEED, default 1), each followed
by a logistic-regression fit of the weights to the game results (ITERATIONS steps, default
3000; PULL, default 1e-7, is an L2 pull towards the starting weights), starting from the
hand-set weights (or --start tuned / a weights file); writes
damx-engine/src/weights.rs and the samples to DATA-DIR (default target/tune). `--fit-only
FILE...` fits to existing sample files without playing; `--out FILE` writes the weights as
text to FILE instead (for the gauntlet's weights=FILE). `--first-round N` numbers the rounds
from N (round N's games are seeded as in a longer run), to continue a run from its weights.";

pub(crate) const ARGS: &str = "[--games N] [--depth N] [--rounds N] [--first-round N] [--seed N] [--iterations N] \
                               [--pull X] [--start hand|tuned|FILE] [--data-dir DIR] \
                               [--fit-only FILE[,FILE]] [--out FILE]";

/// Both sides' searches must agree on at least this (centi-men) to adjudicate a win.
const ADJUDICATE: i32 = 600;
/// Plies after which an undecided game counts as a draw.
const MAX_PLIES: usize = 300;
/// Games before this many plies of the game record no samples (they are all alike).
const FIRST_SAMPLE_PLY: usize = 6;

/// One labelled position.
struct Sample {
    features: Features,
    /// White's result: 1, 0.5 or 0.
    result: f64,
}

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let mut games = 6000usize;
    let mut depth = 6u32;
    let mut rounds = 2usize;
    let mut seed = 1u64;
    let mut iterations = 3000usize;
    let mut start = "hand".to_string();
    let mut data_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/tune");
    let mut fit_only: Option<Vec<PathBuf>> = None;
    let mut pull = 1e-7f64;
    let mut text_out: Option<PathBuf> = None;
    let mut first_round = 1usize;
    for (name, value) in args::named(
        args,
        &[
            "games",
            "depth",
            "rounds",
            "seed",
            "iterations",
            "start",
            "data-dir",
            "fit-only",
            "pull",
            "out",
            "first-round",
        ],
    )? {
        let number = || -> anyhow::Result<u64> {
            value
                .parse()
                .with_context(|| format!("--{name} wants a number, got `{value}`"))
        };
        match name {
            "games" => games = number()? as usize,
            "depth" => depth = number()? as u32,
            "rounds" => rounds = number()? as usize,
            "first-round" => first_round = (number()? as usize).max(1),
            "seed" => seed = number()?,
            "iterations" => iterations = number()? as usize,
            "start" => start = value.to_string(),
            "data-dir" => data_dir = PathBuf::from(value),
            "out" => text_out = Some(PathBuf::from(value)),
            "pull" => {
                pull = value
                    .parse()
                    .with_context(|| format!("--pull wants a number, got `{value}`"))?
            }
            _ => fit_only = Some(value.split(',').map(PathBuf::from).collect()),
        }
    }
    let mut params = match start.as_str() {
        "hand" => EvalParams::hand_set(),
        "tuned" => EvalParams::tuned(),
        path => EvalParams::from_text(
            &std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?,
        )
        .with_context(|| format!("in {path}"))?,
    };
    println!("tune: start {start}, load {}", players::load_average());

    let command: String;
    let mut samples: Vec<Sample> = Vec::new();
    if let Some(files) = fit_only {
        for file in &files {
            samples.extend(read_samples(file)?);
        }
        command = format!("cargo xtask tune {}", args.join(" "));
        params = fit(&samples, &params, iterations, pull);
    } else {
        std::fs::create_dir_all(&data_dir)
            .with_context(|| format!("cannot create {}", data_dir.display()))?;
        for round in first_round..first_round + rounds {
            let path = data_dir.join(format!("round{round}.txt"));
            let round_seed = seed.wrapping_mul(1_000_003).wrapping_add(round as u64);
            let lines = generate(&params, games, depth, round_seed)?;
            std::fs::write(&path, lines.concat())
                .with_context(|| format!("cannot write {}", path.display()))?;
            // Each round fits to its own games, starting from the weights it played with.
            samples = read_samples(&path)?;
            params = fit(&samples, &params, iterations, pull);
            std::fs::write(
                data_dir.join(format!("round{round}-weights.txt")),
                params.to_text(),
            )?;
        }
        let first = if first_round > 1 {
            format!(" --first-round {first_round}")
        } else {
            String::new()
        };
        command = format!(
            "cargo xtask tune --games {games} --depth {depth} --rounds {rounds}{first} --seed {seed} \
             --iterations {iterations} --pull {pull} --start {start}"
        );
    }
    if let Some(path) = text_out {
        std::fs::write(&path, params.to_text())
            .with_context(|| format!("cannot write {}", path.display()))?;
        println!("wrote {}", path.display());
        return Ok(());
    }
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../damx-engine/src/weights.rs");
    std::fs::write(&out, weights_source(&params, &command, samples.len()))
        .with_context(|| format!("cannot write {}", out.display()))?;
    println!(
        "wrote {} ({} samples in the last fit)",
        out.display(),
        samples.len()
    );
    Ok(())
}

/// Plays `games` self-play games and returns their sample lines (`result FEN`), in game order.
fn generate(
    params: &EvalParams,
    games: usize,
    depth: u32,
    seed: u64,
) -> anyhow::Result<Vec<String>> {
    let ballots = openings::ballots();
    anyhow::ensure!(!ballots.is_empty(), "no ballots built in");
    let next = AtomicUsize::new(0);
    let lines = Mutex::new(vec![String::new(); games]);
    let results = Mutex::new([0usize; 3]);
    let start = Instant::now();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("generate: {games} games at depth {depth}, seed {seed}, {cores} at once");
    std::thread::scope(|scope| {
        for _ in 0..cores {
            scope.spawn(|| {
                let mut engine = Engine::new(EngineOptions {
                    hash_mb: 16,
                    eval: params.clone(),
                    ..EngineOptions::default()
                });
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= games {
                        break;
                    }
                    let mut rng = Rng::new(seed ^ (index as u64).wrapping_mul(0x9e37_79b9));
                    let ballot = &ballots[rng.below(ballots.len())];
                    let (text, result) = self_play(&mut engine, ballot.game(), depth, &mut rng);
                    lines.lock().unwrap_or_else(|e| e.into_inner())[index] = text;
                    let mut results = results.lock().unwrap_or_else(|e| e.into_inner());
                    results[(result * 2.0) as usize] += 1;
                    let done: usize = results.iter().sum();
                    if done.is_multiple_of(500) {
                        println!(
                            "  {done:>6} games, White +{} ={} -{}, {:.0?}",
                            results[2],
                            results[1],
                            results[0],
                            start.elapsed()
                        );
                        let _ = std::io::stdout().flush();
                    }
                }
            });
        }
    });
    let lines = lines.into_inner().unwrap_or_else(|e| e.into_inner());
    let samples: usize = lines.iter().map(|text| text.lines().count()).sum();
    println!(
        "generate: {samples} samples in {:.0?}, load {}",
        start.elapsed(),
        players::load_average()
    );
    Ok(lines)
}

/// One self-play game from `game`; returns its sample lines and White's result.
fn self_play(engine: &mut Engine, mut game: Game, depth: u32, rng: &mut Rng) -> (String, f64) {
    engine.new_game();
    let stop = StopSignal::new();
    let limits = Limits::depth(depth);
    // Up to four early plies are random, one in two.
    let mut random_plies = 4;
    let mut positions: Vec<Position> = Vec::new();
    // White's view of the last search score, for adjudication.
    let mut last_white: Option<i32> = None;
    let mut adjudicated = None;
    while game.outcome().is_none() && game.ply() < MAX_PLIES {
        let position = *game.position();
        if game.ply() >= FIRST_SAMPLE_PLY && !position.has_capture() {
            positions.push(position);
        }
        if random_plies > 0 {
            random_plies -= 1;
            if rng.below(2) == 0 {
                let moves = position.legal_moves();
                game.play(moves[rng.below(moves.len())]);
                last_white = None;
                continue;
            }
        }
        let result = engine.search(&game, &limits, &stop, &mut |_| {});
        let Some(mv) = result.best_move else { break };
        let white = match position.side_to_move() {
            Color::White => result.score.value(),
            Color::Black => -result.score.value(),
        };
        if let Some(previous) = last_white
            && previous.signum() == white.signum()
            && previous.abs() >= ADJUDICATE
            && white.abs() >= ADJUDICATE
        {
            adjudicated = Some(if white > 0 { 1.0 } else { 0.0 });
            break;
        }
        last_white = Some(white);
        game.play(mv);
    }
    let result = adjudicated.unwrap_or(match game.outcome() {
        Some(Outcome::Win { winner, .. }) => {
            if winner == Color::White {
                1.0
            } else {
                0.0
            }
        }
        _ => 0.5,
    });
    let mut text = String::new();
    for position in positions {
        let _ = writeln!(text, "{result:.1} {}", position.to_fen());
    }
    (text, result)
}

fn read_samples(path: &PathBuf) -> anyhow::Result<Vec<Sample>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut samples = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let (result, fen) = line
            .split_once(' ')
            .with_context(|| format!("{}:{}: expected `result FEN`", path.display(), number + 1))?;
        let result: f64 = result
            .parse()
            .with_context(|| format!("{}:{}: bad result", path.display(), number + 1))?;
        let position: Position = fen
            .parse()
            .with_context(|| format!("{}:{}: bad FEN", path.display(), number + 1))?;
        samples.push(Sample {
            features: Features::of(&position),
            result,
        });
    }
    Ok(samples)
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The mean cross-entropy of the samples under `weights` (opening then ending) and `k`.
fn loss(samples: &[Sample], weights: &[f64], k: f64) -> f64 {
    let (opening, ending) = weights.split_at(FEATURE_COUNT);
    let total: f64 = samples
        .iter()
        .map(|sample| {
            let p =
                sigmoid(k * sample.features.white_score(opening, ending)).clamp(1e-12, 1.0 - 1e-12);
            -(sample.result * p.ln() + (1.0 - sample.result) * (1.0 - p).ln())
        })
        .sum();
    total / samples.len().max(1) as f64
}

/// The gradient of the mean cross-entropy with respect to the weights, over two threads.
fn gradient(samples: &[Sample], weights: &[f64], k: f64) -> Vec<f64> {
    let (opening, ending) = weights.split_at(FEATURE_COUNT);
    let chunk = samples.len().div_ceil(2).max(1);
    let parts: Vec<Vec<f64>> = std::thread::scope(|scope| {
        let handles: Vec<_> = samples
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    let mut grad = vec![0.0; 2 * FEATURE_COUNT];
                    for sample in part {
                        let features = &sample.features;
                        let p = sigmoid(k * features.white_score(opening, ending));
                        let error = (p - sample.result) * k / f64::from(features.divisor);
                        let phase = f64::from(features.phase) / 40.0;
                        for &(i, count) in &features.counts {
                            let g = error * f64::from(count);
                            grad[i as usize] += g * phase;
                            grad[FEATURE_COUNT + i as usize] += g * (1.0 - phase);
                        }
                    }
                    grad
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let n = samples.len().max(1) as f64;
    let mut total = vec![0.0; 2 * FEATURE_COUNT];
    for part in parts {
        for (t, g) in total.iter_mut().zip(part) {
            *t += g / n;
        }
    }
    total
}

/// Fits `k`, then the weights; returns the rounded weights. Every tenth sample is held out
/// to watch for over-fitting.
fn fit(samples: &[Sample], start: &EvalParams, iterations: usize, pull: f64) -> EvalParams {
    let (train, test): (Vec<&Sample>, Vec<&Sample>) = {
        let mut train = Vec::new();
        let mut test = Vec::new();
        for (i, sample) in samples.iter().enumerate() {
            if i % 10 == 0 {
                test.push(sample);
            } else {
                train.push(sample);
            }
        }
        (train, test)
    };
    let train: Vec<Sample> = train.into_iter().map(clone_sample).collect();
    let test: Vec<Sample> = test.into_iter().map(clone_sample).collect();

    let initial: Vec<f64> = start
        .opening
        .iter()
        .chain(&start.ending)
        .map(|&w| f64::from(w))
        .collect();
    // k by golden-section search on [0.0005, 0.05] per centi-man.
    let (mut low, mut high) = (0.0005f64, 0.05f64);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..40 {
        let a = high - ratio * (high - low);
        let b = low + ratio * (high - low);
        if loss(&train, &initial, a) < loss(&train, &initial, b) {
            high = b;
        } else {
            low = a;
        }
    }
    let k = (low + high) / 2.0;
    let names = feature_names();
    let fixed = |i: usize| names[i % FEATURE_COUNT] == "man";
    println!(
        "fit: {} train / {} test samples, k = {k:.5}, loss {:.5} / {:.5}",
        train.len(),
        test.len(),
        loss(&train, &initial, k),
        loss(&test, &initial, k)
    );

    // Adam, with a light pull towards the starting weights for rarely seen features.
    let (rate, beta1, beta2, epsilon) = (2.0, 0.9, 0.999, 1e-12);
    let mut weights = initial.clone();
    let mut m = vec![0.0; weights.len()];
    let mut v = vec![0.0; weights.len()];
    let start_time = Instant::now();
    for step in 1..=iterations {
        let grad = gradient(&train, &weights, k);
        for i in 0..weights.len() {
            if fixed(i) {
                continue;
            }
            let g = grad[i] + pull * (weights[i] - initial[i]);
            m[i] = beta1 * m[i] + (1.0 - beta1) * g;
            v[i] = beta2 * v[i] + (1.0 - beta2) * g * g;
            let m_hat = m[i] / (1.0 - beta1.powi(step as i32));
            let v_hat = v[i] / (1.0 - beta2.powi(step as i32));
            weights[i] -= rate * m_hat / (v_hat.sqrt() + epsilon);
        }
        if step % 500 == 0 || step == iterations {
            println!(
                "  step {step:>5}: loss {:.5} / {:.5}  [{:.0?}]",
                loss(&train, &weights, k),
                loss(&test, &weights, k),
                start_time.elapsed()
            );
            let _ = std::io::stdout().flush();
        }
    }
    let round = |w: &f64| {
        w.round().clamp(
            -f64::from(damx_engine::eval::MAX_WEIGHT),
            f64::from(damx_engine::eval::MAX_WEIGHT),
        ) as i32
    };
    let mut params = start.clone();
    for i in 0..FEATURE_COUNT {
        params.opening[i] = round(&weights[i]);
        params.ending[i] = round(&weights[FEATURE_COUNT + i]);
    }
    let rounded: Vec<f64> = params
        .opening
        .iter()
        .chain(&params.ending)
        .map(|&w| f64::from(w))
        .collect();
    println!(
        "fit: rounded weights, loss {:.5} / {:.5}",
        loss(&train, &rounded, k),
        loss(&test, &rounded, k)
    );
    params
}

fn clone_sample(sample: &Sample) -> Sample {
    Sample {
        features: sample.features.clone(),
        result: sample.result,
    }
}

/// The weights as the Rust source the engine includes.
fn weights_source(params: &EvalParams, command: &str, samples: usize) -> String {
    let names = feature_names();
    let mut text = format!(
        "//! The tuned evaluation weights (centi-men per feature; see `eval.rs` for the features).\n\
         //!\n\
         //! Generated by `{command}`\n\
         //! (last fit: {samples} positions). Do not edit by hand: re-run the command.\n\
         //! The tables' length is the number of features: eval.rs takes them as\n\
         //! `[i32; FEATURE_COUNT]`, so a table of another length does not compile.\n"
    );
    for (label, doc, weights) in [
        (
            "OPENING",
            "Weights with all 40 men on the board.",
            &params.opening,
        ),
        ("ENDING", "Weights with no men left.", &params.ending),
    ] {
        let _ = writeln!(
            text,
            "\n/// {doc}\npub(crate) const {label}: [i32; {FEATURE_COUNT}] = ["
        );
        for (name, weight) in names.iter().zip(weights.iter()) {
            let _ = writeln!(text, "    {weight}, // {name}");
        }
        text.push_str("];\n");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The source written for the built-in weights is the file the engine includes (up to the
    /// spacing `cargo fmt` gives it): the generator and the file cannot drift apart.
    #[test]
    fn the_built_in_weights_regenerate_their_file() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../damx-engine/src/weights.rs");
        let file = std::fs::read_to_string(path).unwrap();
        let header = |prefix: &str, suffix: &str| {
            file.lines()
                .find_map(|line| line.strip_prefix(prefix)?.split(suffix).next())
                .unwrap()
                .to_owned()
        };
        let command = header("//! Generated by `", "`");
        let samples: usize = header("//! (last fit: ", " ").parse().unwrap();
        let source = weights_source(&EvalParams::tuned(), &command, samples);
        let words = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(words(&source), words(&file));
    }
}
