//! Perft speed on one thread: `cargo bench -p damx-rules --bench perft`.
//!
//! Each run checks its node count against rules.md, so a fast wrong generator fails here.

use std::time::Instant;

use damx_rules::{Position, perft};

fn run(name: &str, fen: &str, depth: u32, expected: u64) {
    let position = Position::from_fen(fen).expect("benchmark FEN");
    let started = Instant::now();
    let nodes = perft(&position, depth);
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(nodes, expected, "{name} perft({depth})");
    println!(
        "{name:<14} perft({depth:>2}) = {nodes:>13}  {seconds:>7.3} s  {:>7.1} M nodes/s",
        nodes as f64 / seconds / 1e6
    );
}

fn main() {
    // `cargo test --benches` runs benchmarks with `--bench` missing: keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    if quick {
        run("start", "W:W31-50:B1-20", 6, 167_140);
        return;
    }
    run("start", "W:W31-50:B1-20", 10, 258_895_763);
    run(
        "woldouby",
        "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38",
        14,
        58_360_286,
    );
    run("twenty kings", "W:WK31-50:BK1-20", 9, 8_558_321);
}
