//! Perft: counting the leaf nodes of the legal-move tree, the standard test of a move
//! generator.
//!
//! Moves are the distinct (from, to, captured set) triples, so duplicate capture paths count
//! once. The last level is counted without playing its moves (bulk counting), and move lists are
//! kept per depth so nothing is allocated per node.

use crate::moves::{Move, MoveList};
use crate::position::Position;

/// The number of leaf nodes `depth` plies below `position` (1 for depth 0).
pub fn perft(position: &Position, depth: u32) -> u64 {
    let mut lists = Vec::new();
    perft_with(position, depth, &mut lists)
}

/// Perft per legal move: each move with the leaf count below it at `depth - 1`. Empty for
/// depth 0. The counts add up to `perft(position, depth)`.
pub fn divide(position: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mut lists = Vec::new();
    position
        .legal_moves()
        .iter()
        .map(|mv| (*mv, perft_with(&position.play(mv), depth - 1, &mut lists)))
        .collect()
}

fn perft_with(position: &Position, depth: u32, lists: &mut Vec<MoveList>) -> u64 {
    match depth {
        0 => 1,
        _ => {
            // One list per remaining depth plus a scratch list for bulk counting.
            while lists.len() < depth as usize {
                lists.push(MoveList::new());
            }
            walk(position, depth, lists)
        }
    }
}

/// `depth >= 1`; `lists` holds at least `depth` lists.
fn walk(position: &Position, depth: u32, lists: &mut [MoveList]) -> u64 {
    let Some((list, deeper)) = lists.split_first_mut() else {
        return 0;
    };
    if depth == 1 {
        return position.count_moves_with(list);
    }
    position.legal_moves_into(list);
    let mut nodes = 0;
    if depth == 2 {
        let Some(scratch) = deeper.first_mut() else {
            return 0;
        };
        for mv in list.iter() {
            nodes += position.play(mv).count_moves_with(scratch);
        }
    } else {
        for mv in list.iter() {
            nodes += walk(&position.play(mv), depth - 1, deeper);
        }
    }
    nodes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The start position's published counts through depth 6 (deeper ones in tests/perft.rs).
    #[test]
    fn start_position_shallow() {
        let start = Position::initial();
        let expected = [1, 9, 81, 658, 4_265, 27_117, 167_140];
        for (depth, &nodes) in expected.iter().enumerate() {
            assert_eq!(perft(&start, depth as u32), nodes, "depth {depth}");
        }
    }

    /// Divide's counts add up to perft and name each legal move once.
    #[test]
    fn divide_adds_up() {
        let start = Position::initial();
        let split = divide(&start, 4);
        assert_eq!(split.len(), 9);
        assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), perft(&start, 4));
        assert!(divide(&start, 0).is_empty());
    }
}
