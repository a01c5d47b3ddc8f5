//! Perft on several threads: [`damx_rules::perft`] split into independent subtrees that a
//! rayon pool counts at once.
//!
//! The tree is expanded breadth-first from the root until there are enough subtrees to keep
//! every thread busy to the end (at least [`TASKS_PER_THREAD`] a thread) or the subtrees
//! would become too shallow to be worth a task; each subtree is then counted by the rules'
//! single-threaded perft, and the counts are summed per root move. Nothing is shared between
//! tasks but the finished counts, so the result is exactly the single-threaded one.
//!
//! ```
//! use damx_engine::perft::{divide_parallel, perft_parallel};
//! use damx_rules::Position;
//!
//! let start = Position::initial();
//! assert_eq!(perft_parallel(&start, 5, 2), 27_117);
//! let divide = divide_parallel(&start, 5, 2, &|_, _| {});
//! assert_eq!(divide.len(), 9);
//! assert_eq!(divide.iter().map(|(_, nodes)| nodes).sum::<u64>(), 27_117);
//! ```

use std::sync::atomic::{AtomicUsize, Ordering};

use damx_rules::{Move, Position, perft};
use rayon::prelude::*;

/// Subtrees a thread gets at least, so that threads finishing early find more work.
pub const TASKS_PER_THREAD: usize = 32;

/// Subtrees are not split below this many plies: shallower ones cost more to hand out than to
/// count.
const MIN_TASK_DEPTH: u32 = 4;

/// The number of leaf nodes `depth` plies below `position`, counted on `threads` threads
/// (1 for depth 0). The same number as [`damx_rules::perft`].
pub fn perft_parallel(position: &Position, depth: u32, threads: usize) -> u64 {
    if depth == 0 {
        return 1;
    }
    divide_parallel(position, depth, threads, &|_, _| {})
        .iter()
        .map(|(_, nodes)| nodes)
        .sum()
}

/// Perft per legal move, counted on `threads` threads: each root move with the leaf count
/// below it at `depth - 1`, in the order of [`Position::legal_moves`] (the same as
/// [`damx_rules::divide`]). Empty for depth 0.
///
/// `progress(done, total)` is called from the counting threads each time one of the `total`
/// subtrees has been counted. If the threads cannot be started, it counts on the calling
/// thread.
pub fn divide_parallel(
    position: &Position,
    depth: u32,
    threads: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let threads = threads.max(1);
    let roots = position.legal_moves();
    let tasks = split(position, depth, threads * TASKS_PER_THREAD);
    let total = tasks.len();
    let done = AtomicUsize::new(0);
    let count = |task: &Task| {
        let nodes = perft(&task.position, task.depth);
        progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
        (task.root, nodes)
    };
    let pool = (threads > 1)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("damx-perft-{}", i + 1))
                .build()
                .ok()
        })
        .flatten();
    let counted: Vec<(usize, u64)> = match pool {
        Some(pool) => pool.install(|| tasks.par_iter().map(count).collect()),
        None => tasks.iter().map(count).collect(),
    };
    let mut rows: Vec<(Move, u64)> = roots.iter().map(|mv| (*mv, 0)).collect();
    for (root, nodes) in counted {
        if let Some(row) = rows.get_mut(root) {
            row.1 += nodes;
        }
    }
    rows
}

/// A subtree to count: `depth` plies below `position`, which lies below root move `root`.
struct Task {
    root: usize,
    position: Position,
    depth: u32,
}

/// The subtrees below `position`'s root moves (`depth >= 1`), expanded level by level while
/// there are fewer than `wanted` of them and they stay at least [`MIN_TASK_DEPTH`] deep. A
/// position without moves stays a task of its own (it counts 0, or 1 at depth 0).
fn split(position: &Position, depth: u32, wanted: usize) -> Vec<Task> {
    let mut tasks: Vec<Task> = position
        .legal_moves()
        .iter()
        .enumerate()
        .map(|(root, mv)| Task {
            root,
            position: position.play(mv),
            depth: depth - 1,
        })
        .collect();
    // (No root move: no task, and nothing to expand.)
    while !tasks.is_empty()
        && tasks.len() < wanted
        && tasks.iter().all(|task| task.depth > MIN_TASK_DEPTH)
    {
        tasks = tasks
            .into_iter()
            .flat_map(|task| {
                let moves = task.position.legal_moves();
                if moves.is_empty() {
                    // No moves: no leaves below, whatever the depth.
                    return vec![Task { depth: 1, ..task }];
                }
                moves
                    .iter()
                    .map(|mv| Task {
                        root: task.root,
                        position: task.position.play(mv),
                        depth: task.depth - 1,
                    })
                    .collect()
            })
            .collect();
    }
    tasks
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published counts (docs/spec/rules.md) from the start, on one, two and three
    /// threads, deep enough that the tree is split below the root.
    #[test]
    fn parallel_counts_match_the_published_ones() {
        let start = Position::initial();
        for threads in [1, 2, 3] {
            for (depth, expected) in [
                (0, 1),
                (1, 9),
                (2, 81),
                (3, 658),
                (6, 167_140),
                (7, 1_049_442),
            ] {
                assert_eq!(
                    perft_parallel(&start, depth, threads),
                    expected,
                    "depth {depth}, {threads} threads"
                );
            }
        }
    }

    /// Each row of the parallel divide is the rules' divide row, in the same order, and the
    /// progress reports count every subtree once.
    #[test]
    fn divide_matches_the_rules_divide() {
        let position: Position = "W:W25,27,28,30,32,33,34,35,37,38:B12,13,14,16,18,19,21,23,24,26"
            .parse()
            .unwrap();
        let reports = AtomicUsize::new(0);
        let last = AtomicUsize::new(0);
        let rows = divide_parallel(&position, 7, 2, &|done, total| {
            reports.fetch_add(1, Ordering::Relaxed);
            last.fetch_max(done, Ordering::Relaxed);
            assert!(done <= total);
        });
        assert_eq!(rows, damx_rules::divide(&position, 7));
        assert!(
            reports.load(Ordering::Relaxed) > rows.len(),
            "split below the root"
        );
        assert_eq!(
            last.load(Ordering::Relaxed),
            reports.load(Ordering::Relaxed)
        );
    }

    /// A position whose side to move has no move counts no leaf at any depth but 0, on any
    /// number of threads, and its divide is empty.
    #[test]
    fn no_move_at_the_root() {
        for fen in ["W:W:B1", "W:W50:B44,45,39"] {
            let position: Position = fen.parse().unwrap();
            for threads in [1, 2] {
                assert_eq!(perft_parallel(&position, 0, threads), 1, "{fen}");
                for depth in [1, 2, 9] {
                    assert_eq!(
                        perft_parallel(&position, depth, threads),
                        0,
                        "{fen} {depth}"
                    );
                    assert!(divide_parallel(&position, depth, threads, &|_, _| {}).is_empty());
                }
            }
        }
    }

    /// Positions where a side has no moves inside the split tree still count right: a lone
    /// white man that can be blocked, counted deep enough to split.
    #[test]
    fn dead_ends_inside_the_split_count_nothing() {
        let position: Position = "W:W46:B36,41".parse().unwrap();
        for depth in 1..=9 {
            assert_eq!(
                perft_parallel(&position, depth, 2),
                perft(&position, depth),
                "depth {depth}"
            );
        }
    }
}
