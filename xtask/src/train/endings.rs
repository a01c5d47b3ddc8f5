//! `endings`: start positions for testing, the first quiet position of a piece count in
//! each game.

use std::collections::HashSet;
use std::path::PathBuf;

use anyhow::{Context, ensure};
use damx_engine::pattern::Pieces;
use damx_rules::Position;

use super::positions::{is_quiet, replay, white_search_scores};
use super::{thread_pool, write_atomically};
use crate::args::{self, Options};
use crate::players;

/// `endings`: start positions for testing the endgame: from each game, the first quiet
/// position with at most `--pieces` pieces, as FEN lines.
pub(super) fn endings(args: &[String]) -> anyhow::Result<()> {
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
pub(super) fn parse_band(text: &str) -> anyhow::Result<(i32, i32)> {
    args::centi_men_range("band", text, ",")
}
