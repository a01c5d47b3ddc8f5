//! `cargo xtask depth`: time to depth. The engine's bench ([`bench_positions`]) on the
//! positions of a file with the engine settings of a player, so that two search variants can be
//! compared on the same positions (the node counts are exact with one thread).

use anyhow::{Context, bail};
use damx_engine::{BENCH_POSITIONS, EngineOptions, bench_positions};
use damx_rules::Position;

use crate::args;
use crate::players::{self, Kind, Spec};

pub(crate) const ABOUT: &str = "\
search each position of FILE (one FEN a line; `#` starts a comment; default: the positions of
`damx bench`) to a fixed depth with the engine settings of PLAYER (as for `strength`, with
depth=N), a new search with an empty table for each, and print the nodes, score and move of each
and the totals, as `damx bench` does: compare two search variants on the same positions (time
to depth).";

pub(crate) const ARGS: &str = "--player SPEC [--positions FILE]";

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let mut player = None;
    let mut file = None;
    for (name, value) in args::named(args, &["player", "positions"])? {
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
    let (options, depth) = engine_settings(&player)?;
    println!(
        "depth: {player}, {} positions, load {}",
        fens.len(),
        players::load_average()
    );
    println!("{}", bench_positions(&options, depth, &fens));
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
fn engine_settings(player: &str) -> anyhow::Result<(EngineOptions, u32)> {
    let spec = Spec::parse(player)?;
    let Kind::Engine(options, limits) = spec.kind else {
        bail!("the player must be the engine, not `{player}`");
    };
    match limits.depth {
        Some(depth)
            if limits.move_time.is_none() && limits.nodes.is_none() && spec.game_time.is_none() =>
        {
            Ok((*options, depth))
        }
        _ => bail!("time to depth needs depth=N (and no time, game time or nodes): `{player}`"),
    }
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
            let (options, depth) = engine_settings(player).unwrap();
            let report = bench_positions(&options, depth, &fens);
            report.lines.iter().map(|line| line.nodes).collect()
        };
        let first = nodes("depth=7");
        assert!(first.iter().all(|&n| n > 0));
        assert_eq!(first, nodes("depth=7"));
        assert_ne!(first, nodes("depth=7,lmr=off"));
        assert!(engine_settings("time=100").is_err());
        assert!(engine_settings("depth=3,game=1000").is_err());
        assert!(engine_settings("depth=3,nodes=1000").is_err());
        assert!(engine_settings("material").is_err());
    }
}
