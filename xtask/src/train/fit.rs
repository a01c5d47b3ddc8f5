//! `fit` and `scale`: the logistic regression of the results on the pattern evaluation,
//! and the weights of a file scaled.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::positions::{Labelled, NO_RESULT, position_of, read_positions, white_score};
use super::{thread_pool, write_atomically};
use crate::args::Options;
use anyhow::{Context, bail, ensure};
use damx_engine::EvalParams;
use damx_engine::eval::{FEATURE_COUNT, Features, MAN, feature_names};
use damx_engine::gauntlet::Rng;
use damx_engine::pattern::{
    Base, GLOBAL_COUNT, PatternWeights, Pieces, REGION_SIZE, REGIONS, Terms, global_names,
};
use damx_rules::{Bitboard, Square};
use rayon::prelude::*;

/// Regions of the `wide` model: two rows by four neighbouring squares of each row (nine
/// bands of two rows, two columns each).
pub(super) const WIDE: usize = 18;

/// Squares of the `kings` model's table: a king on each square, from its owner's side.
pub(super) const KING_SQUARES: usize = 50;

/// The `to move` global feature (+1 White, -1 Black).
pub(super) const TO_MOVE: usize = GLOBAL_COUNT - 1;

/// The shape of the model being fitted: the engine's 28 regions, optionally with a second
/// table set for the side not to move (`tempo`), the wide regions (`wide`), a table of the
/// kings' squares (`kings`), and on the hand base corrections of the hand features' weights
/// (`hand`; the man's weight stays 100).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Model {
    pub(super) tempo: bool,
    pub(super) wide: bool,
    pub(super) kings: bool,
    pub(super) hand: bool,
}

impl Model {
    /// The model the engine reads: the 28 regions alone.
    const ENGINE: Model = Model {
        tempo: false,
        wide: false,
        kings: false,
        hand: false,
    };

    pub(super) fn parse(text: &str) -> anyhow::Result<Model> {
        let mut model = Model::ENGINE;
        for part in text.split('+') {
            match part {
                "regions" => {}
                "tempo" => model.tempo = true,
                "wide" => model.wide = true,
                "kings" => model.kings = true,
                "hand" => model.hand = true,
                other => {
                    bail!(
                        "--model is regions, tempo, wide, kings, hand or a sum of them, not `{other}`"
                    )
                }
            }
        }
        Ok(model)
    }

    /// Regions of one table set.
    pub(super) fn regions(self) -> usize {
        REGIONS + if self.wide { WIDE } else { 0 }
    }

    /// Weights of one table set.
    pub(super) fn set_len(self) -> usize {
        self.regions() * REGION_SIZE
    }

    /// Table sets: two with `tempo`, else one.
    pub(super) fn sets(self) -> usize {
        if self.tempo { 2 } else { 1 }
    }

    /// All the weights being fitted, as reals: `[opening, ending]` pairs, the global
    /// features first, then the table sets, then the kings' squares, then the hand
    /// corrections.
    pub(super) fn parameters(self) -> usize {
        self.hand_first() + if self.hand { FEATURE_COUNT } else { 0 }
    }

    /// The index of the first king square's weight.
    pub(super) fn kings_first(self) -> usize {
        GLOBAL_COUNT + self.set_len() * self.sets()
    }

    /// The index of the first hand correction.
    pub(super) fn hand_first(self) -> usize {
        self.kings_first() + if self.kings { KING_SQUARES } else { 0 }
    }

    /// Whether the engine can play the model: the 28 regions in one or two table sets, with
    /// hand corrections or not.
    pub(super) fn playable(self) -> bool {
        !self.wide && !self.kings
    }
}

/// The base-3 contents of the wide regions, from the side whose men are `own`, on the board
/// as it stands or turned half a turn.
pub(super) fn wide_indices(own: u64, opp: u64, turned: bool) -> [u16; WIDE] {
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

/// The squares (0 to 49) of White's kings as they stand and of Black's on the board turned
/// half a turn, so that both read one table from their owner's side.
pub(super) fn king_squares(pieces: &Pieces) -> Box<[(u8, i8)]> {
    (0..KING_SQUARES)
        .filter_map(|index| {
            let bit = Square::from_index(index).map_or(0, |s| Bitboard::from_square(s).bits());
            if pieces.white_kings & bit != 0 {
                Some((index as u8, 1))
            } else if pieces.black_kings & bit != 0 {
                Some(((KING_SQUARES - 1 - index) as u8, -1))
            } else {
                None
            }
        })
        .collect()
}

/// One prepared sample.
pub(super) struct Sample {
    pub(super) terms: Terms,
    /// White's and Black's wide regions, when the model has them.
    pub(super) wide: Option<Box<[[u16; WIDE]; 2]>>,
    /// The kings' squares from their owners' sides, with +1 for White's and -1 for Black's,
    /// when the model has the kings' table.
    pub(super) kings: Option<Box<[(u8, i8)]>>,
    /// The hand features' counts (White's minus Black's, the man's left out), when the
    /// model corrects their weights.
    pub(super) hand: Option<Box<[(u16, i16)]>>,
    /// White's score by the base: the hand evaluation, or zero.
    pub(super) base: f32,
    /// White's result: 0, 0.5 or 1 (none off the games' lines).
    pub(super) result: Option<f32>,
    /// What the fit predicts: the result, or on training positions with `--lambda` below 1
    /// a blend of the result and the search score's prediction.
    pub(super) target: f32,
}

/// The model: White's score of a sample and, through `visit`, each weight's coefficient in
/// it (per `[opening, ending]` pair: the count, before the phase blend).
#[inline]
pub(super) fn visit(model: Model, sample: &Sample, mut each: impl FnMut(usize, f32)) {
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
    if let Some(kings) = sample.kings.as_deref() {
        let first = model.kings_first();
        for &(square, sign) in kings {
            each(first + square as usize, f32::from(sign));
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
pub(super) fn blend(terms: &Terms) -> (f32, f32) {
    (
        f32::from(terms.phase) / 40.0,
        1.0 / f32::from(terms.divisor.max(1)),
    )
}

pub(super) fn score(model: Model, weights: &[[f32; 2]], sample: &Sample) -> f32 {
    let (phase, scale) = blend(&sample.terms);
    let mut sum = 0.0;
    visit(model, sample, |i, count| {
        sum += count * (phase * weights[i][0] + (1.0 - phase) * weights[i][1]);
    });
    sample.base + sum * scale
}

pub(super) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The cross-entropy of result `y` (0, 0.5 or 1) against the prediction `sigmoid(x)`.
pub(super) fn cross_entropy(x: f32, y: f32) -> f64 {
    let p = f64::from(sigmoid(x).clamp(1e-6, 1.0 - 1e-6));
    let y = f64::from(y);
    -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
}

/// The mean cross-entropy of `samples`' targets under `weights` at scale `k`.
pub(super) fn data_loss(model: Model, weights: &[[f32; 2]], samples: &[Sample], k: f32) -> f64 {
    let sum: f64 = samples
        .par_iter()
        .map(|s| cross_entropy(k * score(model, weights, s), s.target))
        .sum();
    sum / samples.len().max(1) as f64
}

/// The penalties on the region (and correction) weights: `l2` times the sum of their squares,
/// plus `anchor` times the sum of their squared distances from the `start` weights.
pub(super) fn penalty(weights: &[[f32; 2]], start: &[[f32; 2]], l2: f64, anchor: f64) -> f64 {
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
pub(super) fn fit_scale(samples: &[Sample]) -> f32 {
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
pub(super) fn best_scale(pairs: &[(f32, f32)]) -> (f32, f64) {
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
pub(super) fn hand_white(pieces: &Pieces) -> f32 {
    white_score(pieces, &EvalParams::tuned()).unwrap_or(0.0)
}

/// The hand features' counts of `pieces` without the man's (whose weight, 100, is the unit).
pub(super) fn hand_counts(pieces: &Pieces) -> Box<[(u16, i16)]> {
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
pub(super) fn hand_loss(samples: &[Labelled]) -> (f32, f64) {
    let pairs: Vec<(f32, f32)> = samples
        .par_iter()
        .map(|l| (hand_white(&l.pieces), f32::from(l.result) / 2.0))
        .collect();
    best_scale(&pairs)
}

/// `fit`: logistic regression over all the positions files.
pub(super) fn fit(args: &[String]) -> anyhow::Result<()> {
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
                    kings: model.kings.then(|| king_squares(&l.pieces)),
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
        // The start's regions begin every table set (each its own when the start has two);
        // the wide regions begin at zero.
        ensure!(
            start_weights.sets() <= model.sets(),
            "{start_name} has two table sets: fit it with --model tempo"
        );
        let start_set_len = start_weights.tables().len() / start_weights.sets();
        for set in 0..model.sets() {
            let first = GLOBAL_COUNT + set * model.set_len();
            let start_set = start_weights
                .tables()
                .chunks_exact(start_set_len)
                .nth(set.min(start_weights.sets() - 1))
                .unwrap_or_default();
            for (w, s) in weights[first..].iter_mut().zip(start_set) {
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
            let tables: Vec<[i16; 2]> = best[GLOBAL_COUNT..model.kings_first()]
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
                "fit: epoch {best_epoch} kept (validation loss {best_loss:.6}); the engine cannot play the wide regions or the kings' table, so no weights file is written"
            ));
        }
        let log_path = PathBuf::from(format!("{}.log", out.display()));
        std::fs::write(&log_path, log)
            .with_context(|| format!("cannot write {}", log_path.display()))?;
        Ok(())
    })
}

/// `scale`: the weights of one file with every region weight multiplied by `--factor`.
pub(super) fn scale(args: &[String]) -> anyhow::Result<()> {
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

/// The built-in weights (`builtin`) or those of the file `name`.
pub(super) fn weights_named(name: &str) -> anyhow::Result<PatternWeights> {
    match name {
        "builtin" => Ok((*PatternWeights::builtin()).clone()),
        path => PatternWeights::load(Path::new(path)).with_context(|| format!("in {path}")),
    }
}

/// `weights` with every region weight times `factor`, rounded and kept within the weights'
/// range; the globals and the base unchanged.
pub(super) fn scaled_weights(
    weights: &PatternWeights,
    factor: f64,
) -> anyhow::Result<PatternWeights> {
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
