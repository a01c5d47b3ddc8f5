//! Perft against the published counts of rules.md. The default run goes as deep as stays fast
//! (start position through depth 9); `cargo xtask perft --deep` runs the rest.

use damx_rules::{Position, divide, perft};

const START: &[u64] = &[
    9, 81, 658, 4_265, 27_117, 167_140, 1_049_442, 6_483_961, 41_022_423,
];

const WOLDOUBY_FEN: &str = "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38";
const WOLDOUBY: &[u64] = &[
    6, 12, 30, 73, 215, 590, 1_944, 6_269, 22_369, 88_050, 377_436, 1_910_989, 9_872_645,
];

const TWENTY_KINGS_FEN: &str = "W:WK31-50:BK1-20";
const TWENTY_KINGS: &[u64] = &[17, 79, 352, 1_399, 7_062, 37_589, 217_575, 1_333_217];

fn check(fen: &str, expected: &[u64]) {
    let position = Position::from_fen(fen).unwrap();
    for (i, &nodes) in expected.iter().enumerate() {
        let depth = i as u32 + 1;
        assert_eq!(perft(&position, depth), nodes, "{fen} depth {depth}");
    }
}

/// Start position, depths 1..=9; depth 8 is the first where duplicate capture paths matter.
#[test]
fn start_position_through_depth_9() {
    check("W:W31-50:B1-20", START);
}

/// Woldouby (rich in captures of several pieces), depths 1..=13.
#[test]
fn woldouby_through_depth_13() {
    check(WOLDOUBY_FEN, WOLDOUBY);
}

/// Twenty kings a side (flying kings, long king captures), depths 1..=8.
#[test]
fn twenty_kings_through_depth_8() {
    check(TWENTY_KINGS_FEN, TWENTY_KINGS);
}

/// Divide splits the depth-5 count of the start position over its nine moves.
#[test]
fn divide_matches_perft() {
    let start = Position::initial();
    let split = divide(&start, 5);
    assert_eq!(split.len(), 9);
    assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), START[4]);
}
