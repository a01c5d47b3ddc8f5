//! What a front end shows of a search, a bench and a perft, decided once: a line per
//! completed depth and the result of an analysis ([`AnalysisLine`]), the bench's table and
//! signature ([`BenchReport`]), and a perft count with its split over the root moves
//! ([`PerftReport`]). Each has a `Display` (the text `damx` prints) and, with the feature
//! `serde`, a `Serialize` (its JSON: scores as `{"centi_men": 25}`, `{"win_in": 7}` or
//! `{"loss_in": 4}`, moves in notation).
//!
//! ```
//! use damx_engine::PerftReport;
//! use damx_rules::Position;
//!
//! let report = PerftReport::count(&Position::initial(), 3, 1, true, &|_, _| {});
//! assert_eq!(report.nodes, 658);
//! assert!(report.to_string().contains("nodes    658"));
//! ```

use std::fmt;
use std::time::{Duration, Instant};

use damx_rules::{Color, Move, Position};

use crate::bench::BenchReport;
use crate::engine::{Progress, SearchResult};
use crate::perft::divide_parallel;
use crate::score::Score;

#[cfg(feature = "serde")]
impl serde::Serialize for Score {
    /// A one-key object: `{"centi_men": 25}`, `{"win_in": 7}` or `{"loss_in": 4}` (plies).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(1))?;
        match self.plies_to_end() {
            Some(plies) if self.is_win() => map.serialize_entry("win_in", &plies)?,
            Some(plies) => map.serialize_entry("loss_in", &-plies)?,
            None => map.serialize_entry("centi_men", &self.value())?,
        }
        map.end()
    }
}

/// A line of an analysis: one per completed depth, then the result.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(tag = "type", rename_all = "snake_case")
)]
pub enum AnalysisLine {
    /// A depth completed.
    Iteration {
        /// The depth.
        depth: u32,
        /// Its score, from the side to move.
        score: Score,
        /// Nodes so far.
        nodes: u64,
        /// Nodes a second so far.
        nodes_per_second: u64,
        /// Seconds so far.
        seconds: f64,
        /// The principal variation in notation.
        pv: Vec<String>,
    },
    /// The search is over.
    Result {
        /// The position searched.
        fen: String,
        /// The best move in notation; `None` when the side to move has no move.
        best_move: Option<String>,
        /// Its score.
        score: Score,
        /// The last completed depth.
        depth: u32,
        /// Nodes searched.
        nodes: u64,
        /// Seconds taken.
        seconds: f64,
        /// The principal variation in notation.
        pv: Vec<String>,
        /// The side to move.
        #[cfg_attr(feature = "serde", serde(skip))]
        side: Color,
    },
}

impl AnalysisLine {
    /// The column titles above the text of the iterations.
    pub const TITLES: &str = "depth        score         nodes     nodes/s      time  pv";

    /// The line of a completed depth of a search of `root`.
    pub fn iteration(root: &Position, progress: &Progress) -> AnalysisLine {
        AnalysisLine::Iteration {
            depth: progress.depth,
            score: progress.score,
            nodes: progress.nodes,
            nodes_per_second: progress.nodes_per_second,
            seconds: progress.elapsed.as_secs_f64(),
            pv: root.line_texts(&progress.pv),
        }
    }

    /// The result of a search of `root`.
    pub fn result(root: &Position, result: &SearchResult) -> AnalysisLine {
        AnalysisLine::Result {
            fen: root.to_fen(),
            best_move: result.best_move.map(|mv| root.move_text(&mv)),
            score: result.score,
            depth: result.depth,
            nodes: result.nodes,
            seconds: result.elapsed.as_secs_f64(),
            pv: root.line_texts(&result.pv),
            side: root.side_to_move(),
        }
    }
}

impl fmt::Display for AnalysisLine {
    /// An iteration as a row under [`AnalysisLine::TITLES`]; the result as a sentence.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnalysisLine::Iteration {
                depth,
                score,
                nodes,
                nodes_per_second,
                seconds,
                pv,
            } => write!(
                f,
                "{depth:>5}  {:>11}  {nodes:>12}  {nodes_per_second:>10}  {seconds:>7.2}s  {}",
                score.to_string(),
                pv.join(" ")
            ),
            AnalysisLine::Result {
                best_move: Some(best),
                score,
                depth,
                nodes,
                seconds,
                ..
            } => write!(
                f,
                "best move {best}, score {score} at depth {depth} ({nodes} nodes in {seconds:.2} s)"
            ),
            AnalysisLine::Result {
                best_move: None,
                side,
                ..
            } => write!(f, "no legal move: {side} to move has lost"),
        }
    }
}

/// A bench move in notation, in the position it was found in.
fn bench_move_text(fen: &str, best_move: Option<Move>) -> Option<String> {
    let position: Position = fen.parse().ok()?;
    best_move.map(|mv| position.move_text(&mv))
}

impl fmt::Display for BenchReport {
    /// A row per position (nodes, score, move, FEN), then the totals.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:>12}  {:>11}  {:<8}  position",
            "nodes", "score", "move"
        )?;
        for line in &self.lines {
            let best = bench_move_text(&line.fen, line.best_move);
            writeln!(
                f,
                "{:>12}  {:>11}  {:<8}  {}",
                line.nodes,
                line.score.to_string(),
                best.as_deref().unwrap_or("-"),
                line.fen
            )?;
        }
        writeln!(f)?;
        writeln!(f, "depth    {}", self.depth)?;
        writeln!(f, "nodes    {}", self.nodes)?;
        writeln!(f, "time     {:.3} s", self.elapsed.as_secs_f64())?;
        write!(f, "speed    {} nodes/s", self.nodes_per_second)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for BenchReport {
    /// The totals with the options, and one object per position.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(serde::Serialize)]
        struct Report<'a> {
            depth: u32,
            threads: usize,
            hash_mb: usize,
            nodes: u64,
            seconds: f64,
            nodes_per_second: u64,
            positions: Vec<Line<'a>>,
        }
        #[derive(serde::Serialize)]
        struct Line<'a> {
            fen: &'a str,
            best_move: Option<String>,
            score: Score,
            nodes: u64,
            seconds: f64,
        }
        let positions = self.lines.iter().map(|line| Line {
            fen: &line.fen,
            best_move: bench_move_text(&line.fen, line.best_move),
            score: line.score,
            nodes: line.nodes,
            seconds: line.elapsed.as_secs_f64(),
        });
        Report {
            depth: self.depth,
            threads: self.options.threads,
            hash_mb: self.options.hash_mb,
            nodes: self.nodes,
            seconds: self.elapsed.as_secs_f64(),
            nodes_per_second: self.nodes_per_second,
            positions: positions.collect(),
        }
        .serialize(serializer)
    }
}

/// A perft count: the leaf nodes of the legal-move tree, the time, the speed, and the split
/// over the root moves when asked for.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PerftReport {
    /// The root.
    pub fen: String,
    /// Plies below the root.
    pub depth: u32,
    /// Counting threads.
    pub threads: usize,
    /// Leaf nodes.
    pub nodes: u64,
    /// Seconds taken.
    pub seconds: f64,
    /// Nodes a second, 0 when no measurable time passed.
    pub nodes_per_second: u64,
    /// The count below each root move, when asked for.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub divide: Option<Vec<MoveCount>>,
}

/// The leaf count below one root move.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MoveCount {
    /// The move in notation.
    #[cfg_attr(feature = "serde", serde(rename = "move"))]
    pub text: String,
    /// Leaf nodes below it.
    pub nodes: u64,
}

impl PerftReport {
    /// Counts `depth` plies below `position` on `threads` threads (the tree split into
    /// subtrees counted at once, [`divide_parallel`]), keeping the split over the root moves
    /// when `divide` is set; `progress` hears of each subtree counted, `(done, total)`.
    pub fn count(
        position: &Position,
        depth: u32,
        threads: usize,
        divide: bool,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> PerftReport {
        let start = Instant::now();
        let rows: Vec<MoveCount> = if depth == 0 {
            Vec::new()
        } else {
            divide_parallel(position, depth, threads, progress)
                .iter()
                .map(|(mv, nodes)| MoveCount {
                    text: position.move_text(mv),
                    nodes: *nodes,
                })
                .collect()
        };
        let nodes = if depth == 0 {
            1
        } else {
            rows.iter().map(|row| row.nodes).sum()
        };
        let elapsed = start.elapsed();
        PerftReport {
            fen: position.to_fen(),
            depth,
            threads,
            nodes,
            seconds: elapsed.as_secs_f64(),
            nodes_per_second: per_second(nodes, elapsed),
            divide: divide.then_some(rows),
        }
    }
}

/// Nodes a second, 0 when no measurable time passed.
fn per_second(nodes: u64, elapsed: Duration) -> u64 {
    let seconds = elapsed.as_secs_f64();
    if seconds > 0.0 {
        (nodes as f64 / seconds) as u64
    } else {
        0
    }
}

impl fmt::Display for PerftReport {
    /// The division (a row per root move, then a blank line) when there is one, then the
    /// totals.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(rows) = &self.divide {
            let width = rows.iter().map(|row| row.text.len()).max().unwrap_or(0);
            for row in rows {
                writeln!(f, "{:<width$}  {}", row.text, row.nodes)?;
            }
            writeln!(f)?;
        }
        writeln!(f, "depth    {}", self.depth)?;
        writeln!(f, "threads  {}", self.threads)?;
        writeln!(f, "nodes    {}", self.nodes)?;
        writeln!(f, "time     {:.3} s", self.seconds)?;
        write!(f, "speed    {} nodes/s", self.nodes_per_second)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The split at the root adds up to the published counts (rules.md), and each row is
    /// the rules crate's count below that move.
    #[test]
    fn the_root_split_adds_up_to_the_published_counts() {
        let start = Position::initial();
        for (depth, expected) in [(0, 1), (1, 9), (2, 81), (3, 658), (4, 4_265)] {
            for threads in [1, 2] {
                let report = PerftReport::count(&start, depth, threads, false, &|_, _| {});
                assert_eq!(report.nodes, expected, "depth {depth}");
                assert_eq!(report.divide, None);
            }
        }
        let report = PerftReport::count(&start, 3, 2, true, &|_, _| {});
        let rows = report.divide.unwrap();
        let divided = damx_rules::divide(&start, 3);
        assert_eq!(rows.len(), divided.len());
        for (row, (mv, nodes)) in rows.iter().zip(divided) {
            assert_eq!(row.text, start.move_text(&mv));
            assert_eq!(row.nodes, nodes);
        }
    }

    /// The text: the division, a blank line, then depth, threads, nodes, time and speed.
    #[test]
    fn a_perft_report_reads_as_a_table() {
        // Woldouby (rules.md): 6 moves, 30 nodes at depth 3.
        let woldouby: Position = "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38"
            .parse()
            .unwrap();
        let text = PerftReport::count(&woldouby, 3, 1, true, &|_, _| {}).to_string();
        let (rows, summary) = text
            .split_once("\n\n")
            .expect("a blank line after the rows");
        let counts: Vec<u64> = rows
            .lines()
            .map(|row| row.split_whitespace().last().unwrap().parse().unwrap())
            .collect();
        assert_eq!(counts.len(), 6, "{text}");
        assert_eq!(counts.iter().sum::<u64>(), 30);
        let lines: Vec<&str> = summary.lines().collect();
        assert_eq!(lines[..3], ["depth    3", "threads  1", "nodes    30"]);
        assert!(lines[3].starts_with("time     ") && lines[3].ends_with(" s"));
        assert!(lines[4].starts_with("speed    ") && lines[4].ends_with(" nodes/s"));
    }

    /// Speed is nodes over seconds, and no time is no speed rather than a division by zero.
    #[test]
    fn speed_is_nodes_per_second() {
        assert_eq!(per_second(1_000, Duration::from_millis(500)), 2_000);
        assert_eq!(per_second(1_000, Duration::ZERO), 0);
    }

    /// An iteration is a row under the titles; the result names the best move, or says the
    /// side to move has lost.
    #[test]
    fn analysis_lines_read_as_rows_and_a_sentence() {
        let root = Position::initial();
        let mv = root.legal_moves()[0];
        let progress = Progress {
            depth: 3,
            score: Score(25),
            nodes: 1234,
            nodes_per_second: 5000,
            elapsed: Duration::from_millis(250),
            pv: vec![mv],
            hash_permille: 0,
        };
        let row = AnalysisLine::iteration(&root, &progress).to_string();
        let titles = format!(
            "{:>5}  {:>11}  {:>12}  {:>10}  {:>8}  pv",
            "depth", "score", "nodes", "nodes/s", "time"
        );
        assert_eq!(AnalysisLine::TITLES, titles);
        assert!(row.starts_with("    3        +0.25          1234        5000     0.25s  "));
        let result = SearchResult {
            best_move: Some(mv),
            score: Score(25),
            depth: 3,
            nodes: 1234,
            elapsed: Duration::from_millis(250),
            pv: vec![mv],
        };
        let text = AnalysisLine::result(&root, &result).to_string();
        let expected = format!(
            "best move {}, score +0.25 at depth 3 (1234 nodes in 0.25 s)",
            root.move_text(&mv)
        );
        assert_eq!(text, expected);
        let lost: Position = "W:W50:B1".parse().unwrap();
        let none = SearchResult {
            best_move: None,
            pv: Vec::new(),
            ..result
        };
        let text = AnalysisLine::result(&lost, &none).to_string();
        assert_eq!(text, "no legal move: white to move has lost");
    }

    /// The JSON forms: scores as one-key objects, a tagged line per iteration and result, the
    /// perft division with its moves.
    #[cfg(feature = "serde")]
    #[test]
    fn reports_serialize_as_json() {
        let json = |score| serde_json::to_string(&score).unwrap();
        assert_eq!(json(Score(25)), r#"{"centi_men":25}"#);
        assert_eq!(json(Score::win_in(7)), r#"{"win_in":7}"#);
        assert_eq!(json(Score::loss_in(4)), r#"{"loss_in":4}"#);
        // A loss on the spot (no legal move) is a loss, as the text says, not a win in 0.
        assert_eq!(json(Score::loss_in(0)), r#"{"loss_in":0}"#);
        assert_eq!(json(Score::win_in(0)), r#"{"win_in":0}"#);
        let root = Position::initial();
        let result = SearchResult {
            best_move: None,
            score: Score(0),
            depth: 0,
            nodes: 0,
            elapsed: Duration::ZERO,
            pv: Vec::new(),
        };
        let line = serde_json::to_string(&AnalysisLine::result(&root, &result)).unwrap();
        assert!(
            line.starts_with(r#"{"type":"result","fen":"W:W31"#),
            "{line}"
        );
        assert!(!line.contains("side"), "{line}");
        let report = PerftReport::count(&root, 1, 1, true, &|_, _| {});
        let value = serde_json::to_value(&report).unwrap();
        assert_eq!(value["nodes"], 9);
        assert_eq!(value["divide"].as_array().unwrap().len(), 9);
        assert!(value["divide"][0]["move"].is_string());
        let report = PerftReport::count(&root, 1, 1, false, &|_, _| {});
        assert!(
            serde_json::to_value(&report)
                .unwrap()
                .get("divide")
                .is_none()
        );
        let kings: Position = "W:WK31-50:BK1-20".parse().unwrap();
        let report = serde_json::to_value(PerftReport::count(&kings, 2, 2, true, &|_, _| {}));
        let report = report.unwrap();
        assert_eq!(
            (report["depth"].as_u64(), report["nodes"].as_u64()),
            (Some(2), Some(79))
        );
        assert_eq!(report["threads"], 2);
        assert!(report["fen"].as_str().unwrap().starts_with("W:WK31,K32"));
        assert!(report["seconds"].is_f64() && report["nodes_per_second"].is_u64());
        let divide = report["divide"].as_array().unwrap();
        assert_eq!(divide.len(), 17);
        let sum: u64 = divide
            .iter()
            .map(|row| row["nodes"].as_u64().unwrap())
            .sum();
        assert_eq!(sum, 79);
    }

    /// `damx bench --json`: the totals with the options and one entry per position, adding up.
    #[cfg(feature = "serde")]
    #[test]
    fn the_bench_serializes_its_totals_and_positions() {
        let options = crate::BenchOptions {
            depth: 2,
            ..crate::BenchOptions::default()
        };
        let report = serde_json::to_value(crate::bench(&options)).unwrap();
        assert_eq!(
            (report["depth"].as_u64(), report["threads"].as_u64()),
            (Some(2), Some(1))
        );
        let positions = report["positions"].as_array().unwrap();
        assert_eq!(positions.len(), crate::BENCH_POSITIONS.len());
        let sum: u64 = positions.iter().map(|p| p["nodes"].as_u64().unwrap()).sum();
        assert_eq!(report["nodes"], sum);
        assert!(positions[0]["score"].is_object() && positions[0]["best_move"].is_string());
    }

    /// The text of the bench: a row per position with its FEN, then depth, nodes, time, speed.
    #[test]
    fn the_bench_reads_as_a_table() {
        let options = crate::BenchOptions {
            depth: 1,
            ..crate::BenchOptions::default()
        };
        let report = crate::bench(&options);
        let text = report.to_string();
        for fen in crate::BENCH_POSITIONS {
            assert!(text.contains(fen), "{fen} missing:\n{text}");
        }
        assert!(
            text.contains(&format!("\nnodes    {}\n", report.nodes)),
            "{text}"
        );
        assert!(
            text.contains("\ndepth    1\n") && text.contains("\nspeed    "),
            "{text}"
        );
    }

    /// `damx analyse --json`: an `iteration` line per depth, then a `result` line whose best
    /// move, legal in the position, starts its principal variation.
    #[cfg(feature = "serde")]
    #[test]
    fn an_analysis_serializes_a_line_per_depth_and_the_result() {
        let root: Position = "W:W27,28,32,37,38:B12,13,14,17,19".parse().unwrap();
        let mut engine = crate::Engine::new(crate::EngineOptions {
            hash_mb: 4,
            ..crate::EngineOptions::default()
        });
        let game = damx_rules::Game::new(root);
        let limits = crate::Limits::depth(5);
        let mut lines = Vec::new();
        let stop = crate::StopSignal::new();
        let result = engine.search(&game, &limits, &stop, &mut |progress| {
            lines.push(serde_json::to_value(AnalysisLine::iteration(&root, progress)).unwrap());
        });
        for (depth, line) in (1..=5).zip(&lines) {
            assert_eq!(
                (&line["type"], &line["depth"]),
                (&"iteration".into(), &depth.into())
            );
            assert!(line["score"].is_object());
            assert!(line["pv"].as_array().is_some_and(|pv| !pv.is_empty()));
        }
        assert_eq!(lines.len(), 5);
        let line = serde_json::to_value(AnalysisLine::result(&root, &result)).unwrap();
        assert_eq!(
            (&line["type"], &line["depth"]),
            (&"result".into(), &5.into())
        );
        let best = line["best_move"].as_str().unwrap();
        assert_eq!(line["pv"][0], best);
        assert!(
            root.legal_moves()
                .iter()
                .any(|mv| root.move_text(mv) == best)
        );
    }
}
