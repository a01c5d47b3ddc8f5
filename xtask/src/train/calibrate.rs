//! `calibrate`: how sure the evaluation is of the results, by material.

use anyhow::ensure;
use damx_engine::pattern::Pieces;
use rayon::prelude::*;

use super::fit::{best_scale, cross_entropy};
use super::positions::{read_positions, white_score};
use super::thread_pool;
use crate::args::Options;
use crate::players;

/// `calibrate`: the evaluation's confidence against the results, by material (see [`ABOUT`]).
pub(super) fn calibrate(args: &[String]) -> anyhow::Result<()> {
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
    let mut rows: Vec<(MaterialClass, f32, f32)> = pool.install(|| {
        samples
            .par_iter()
            .filter_map(|labelled| {
                let white = white_score(&labelled.pieces, &params)?;
                let class = MaterialClass::of(&labelled.pieces, white >= 0.0);
                Some((class, white, f32::from(labelled.result) / 2.0))
            })
            .collect()
    });
    let pairs_of = |rows: &[(MaterialClass, f32, f32)]| -> Vec<(f32, f32)> {
        rows.iter().map(|&(_, x, y)| (x, y)).collect()
    };
    let (k, loss) = best_scale(&pairs_of(&rows));
    println!(
        "calibrate: {} positions, k = {k:.6}, loss {loss:.6}",
        rows.len()
    );
    println!(
        "{:<34} {:>5} {:>9} {:>8} {:>7} {:>9} {:>9}",
        "kings", "men", "positions", "|score|", "k ratio", "loss", "own k"
    );
    rows.sort_unstable_by_key(|row| row.0);
    for group in rows.chunk_by(|a, b| a.0 == b.0) {
        let class = group[0].0;
        let pairs = pairs_of(group);
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
pub(super) struct MaterialClass {
    pub(super) kings: Kings,
    /// The favoured side's men minus the other's, within -3..=3.
    pub(super) men: i32,
}

/// Which side has kings, from the side the evaluation favours.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Kings {
    Neither,
    Favoured,
    Other,
    BothEqual,
    BothFavouredMore,
    BothOtherMore,
}

impl Kings {
    pub(super) fn describe(self) -> &'static str {
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
    pub(super) fn of(pieces: &Pieces, white_favoured: bool) -> MaterialClass {
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
