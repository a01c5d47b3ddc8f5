//! `cargo xtask depth`: time to depth. Searches each position of a file to a fixed depth with
//! the engine settings of a player and prints the nodes and time each took, so that two search
//! variants can be compared on the same positions (the node counts are exact with one thread).

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use damx_engine::{BENCH_POSITIONS, Engine, EngineOptions, Limits, StopSignal};
use damx_rules::{Game, Position};

use crate::players::{self, Kind, Spec};

pub(crate) const ABOUT: &str = "\
search each position of FILE (one FEN a line; `#` starts a comment; default: the positions of
`damx bench`) to a fixed depth with the engine settings of PLAYER (as for `strength`, with
depth=N), a new search with an empty table for each, and print the nodes and time of each and
their totals: compare two search variants on the same positions (time to depth).";

pub(crate) const ARGS: &str = "--player SPEC [--positions FILE]";

/// One position searched.
#[derive(Debug)]
struct Searched {
    fen: String,
    nodes: u64,
    time: Duration,
    summary: String,
}

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let mut player = None;
    let mut file = None;
    for (name, value) in players::options(args, &["player", "positions"])? {
        match name {
            "player" => player = Some(value.to_string()),
            _ => file = Some(value.to_string()),
        }
    }
    let player = player.context("`--player SPEC` is required (with depth=N)")?;
    let fens = match &file {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
            read_positions(&text).with_context(|| format!("in {path}"))?
        }
        None => BENCH_POSITIONS.iter().map(|fen| fen.to_string()).collect(),
    };
    let (options, limits) = engine_settings(&player)?;
    println!(
        "depth: {player}, {} positions, load {}",
        fens.len(),
        players::load_average()
    );
    let (mut nodes, mut time) = (0, Duration::ZERO);
    for fen in &fens {
        let searched = search_one(&options, &limits, fen)?;
        nodes += searched.nodes;
        time += searched.time;
        println!(
            "  {:>12} nodes {:>8.3} s  {:<24} {}",
            searched.nodes,
            searched.time.as_secs_f64(),
            searched.summary,
            searched.fen
        );
    }
    println!(
        "total {nodes} nodes in {:.2} s, {:.2} M nodes/s",
        time.as_secs_f64(),
        nodes as f64 / time.as_secs_f64().max(1e-9) / 1e6
    );
    Ok(())
}

/// The positions of a file: one FEN a line, blank lines and `#` comments skipped; a line that
/// is not a position is an error that names it.
fn read_positions(text: &str) -> anyhow::Result<Vec<String>> {
    let mut fens = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        line.parse::<Position>()
            .with_context(|| format!("line {}: `{line}` is not a position", number + 1))?;
        fens.push(line.to_string());
    }
    if fens.is_empty() {
        bail!("no positions");
    }
    Ok(fens)
}

/// The engine settings and the depth of `player`, which must be the engine with `depth=N` and
/// no other limit.
fn engine_settings(player: &str) -> anyhow::Result<(EngineOptions, Limits)> {
    let spec = Spec::parse(player)?;
    let Kind::Engine(options, limits) = spec.kind else {
        bail!("the player must be the engine, not `{player}`");
    };
    if limits.depth.is_none()
        || limits.move_time.is_some()
        || limits.nodes.is_some()
        || spec.game_time.is_some()
    {
        bail!("time to depth needs depth=N (and no time, game time or nodes): `{player}`");
    }
    Ok((*options, limits))
}

/// Searches `fen` to the depth of `limits` with a fresh engine.
fn search_one(options: &EngineOptions, limits: &Limits, fen: &str) -> anyhow::Result<Searched> {
    let position: Position = fen
        .parse()
        .with_context(|| format!("`{fen}` is not a position"))?;
    let mut engine = Engine::new(options.clone());
    let start = Instant::now();
    let result = engine.search(
        &Game::new(position),
        limits,
        &StopSignal::new(),
        &mut |_| {},
    );
    let time = start.elapsed();
    let best = result
        .best_move
        .map_or_else(|| "none".to_string(), |mv| mv.to_string());
    Ok(Searched {
        fen: fen.to_string(),
        nodes: result.nodes,
        time,
        summary: format!("depth {} {} {}", result.depth, best, result.score),
    })
}

/// Searches every position with `player`'s engine to its depth, each with a fresh engine.
#[cfg(test)]
fn search_all(player: &str, fens: &[String]) -> anyhow::Result<Vec<Searched>> {
    let (options, limits) = engine_settings(player)?;
    fens.iter()
        .map(|fen| search_one(&options, &limits, fen))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Comments and blank lines are skipped; a line that is not a position is refused by number.
    #[test]
    fn positions_file() {
        let text = "# two positions\n\nW:W31,32:B19,20  # a comment\nB:W31,32:B19,20\n";
        assert_eq!(
            read_positions(text).unwrap(),
            ["W:W31,32:B19,20", "B:W31,32:B19,20"]
        );
        let error = format!(
            "{:#}",
            read_positions("W:W31:B19\nnot a fen\n").unwrap_err()
        );
        assert!(error.contains("line 2"), "{error}");
        assert!(read_positions("# nothing\n").is_err());
    }

    /// The same settings search the same tree (one thread: exact node counts), and a switch
    /// that changes the search changes the count; a player without depth=N is refused.
    #[test]
    fn same_settings_same_nodes() {
        let fens: Vec<String> = BENCH_POSITIONS[..2].iter().map(|f| f.to_string()).collect();
        let nodes = |player: &str| -> Vec<u64> {
            search_all(player, &fens)
                .unwrap()
                .iter()
                .map(|s| s.nodes)
                .collect()
        };
        let first = nodes("depth=7");
        assert!(first.iter().all(|&n| n > 0));
        assert_eq!(first, nodes("depth=7"));
        assert_ne!(first, nodes("depth=7,lmr=off"));
        assert!(search_all("time=100", &fens).is_err());
        assert!(search_all("depth=3,game=1000", &fens).is_err());
        assert!(search_all("depth=3,nodes=1000", &fens).is_err());
        assert!(search_all("material", &fens).is_err());
    }
}
