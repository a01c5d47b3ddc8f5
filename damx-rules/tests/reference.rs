//! The bitboard generator against a slow, obviously correct one.
//!
//! The reference below works on a plain array of fifty squares with (row, column) geometry and
//! follows rules.md literally: it tries every landing square of every jump (no shortcuts for
//! kings going on in a straight line), keeps captured pieces on the board until the capture
//! ends, treats the start square as empty, applies the majority rule and removes duplicates with
//! a set. Positions come from random games from the start, and from random king-heavy set-ups
//! followed by random games, so kings, long captures and promotions all occur.

use std::collections::BTreeSet;

mod common;

use common::{Rng, random_setup};
use damx_rules::{Bitboard, Color, Move, Piece, Position, Square};
use proptest::prelude::*;

type Board = [Option<(Color, Piece)>; 50];

/// A move as the reference sees it: (from, to, captured squares), all as numbers.
type RefMove = (u8, u8, BTreeSet<u8>);

const DIRECTIONS: [(i8, i8); 4] = [(-1, -1), (-1, 1), (1, -1), (1, 1)];

/// The square index at (row, column), if it is a playable square.
fn index_at(row: i8, column: i8) -> Option<usize> {
    if !(0..10).contains(&row) || !(0..10).contains(&column) || (row + column) % 2 == 0 {
        return None;
    }
    Some(row as usize * 5 + column as usize / 2)
}

fn coordinates(index: usize) -> (i8, i8) {
    let row = (index / 5) as i8;
    let column = (index % 5) as i8 * 2 + if row % 2 == 0 { 1 } else { 0 };
    (row, column)
}

struct Search<'a> {
    board: &'a Board,
    start: usize,
    color: Color,
    piece: Piece,
    found: Vec<(usize, Vec<usize>)>,
}

impl Search<'_> {
    fn is_empty(&self, index: usize) -> bool {
        index == self.start || self.board[index].is_none()
    }

    fn is_enemy(&self, index: usize, captured: &[usize]) -> bool {
        index != self.start
            && !captured.contains(&index)
            && matches!(self.board[index], Some((c, _)) if c != self.color)
    }

    fn explore(&mut self, at: usize, captured: &mut Vec<usize>) {
        let (row, column) = coordinates(at);
        let mut extended = false;
        for (dr, dc) in DIRECTIONS {
            // Walk to the first occupied square (a man only looks at its neighbour).
            let mut distance = 1;
            let victim = loop {
                match index_at(row + dr * distance, column + dc * distance) {
                    None => break None,
                    Some(i) if self.is_empty(i) && self.piece == Piece::King => distance += 1,
                    Some(i) => break Some(i),
                }
            };
            let Some(victim) = victim else { continue };
            if !self.is_enemy(victim, captured) {
                continue;
            }
            let mut beyond = distance + 1;
            while let Some(landing) = index_at(row + dr * beyond, column + dc * beyond) {
                if !self.is_empty(landing) {
                    break;
                }
                extended = true;
                captured.push(victim);
                self.explore(landing, captured);
                captured.pop();
                if self.piece == Piece::Man {
                    break;
                }
                beyond += 1;
            }
        }
        if !extended && !captured.is_empty() {
            self.found.push((at, captured.clone()));
        }
    }
}

fn reference_moves(board: &Board, side: Color) -> BTreeSet<RefMove> {
    let number = |i: usize| i as u8 + 1;
    let mut captures: Vec<RefMove> = Vec::new();
    for start in 0..50 {
        let Some((color, piece)) = board[start] else {
            continue;
        };
        if color != side {
            continue;
        }
        let mut search = Search {
            board,
            start,
            color,
            piece,
            found: Vec::new(),
        };
        search.explore(start, &mut Vec::new());
        for (to, captured) in search.found {
            captures.push((
                number(start),
                number(to),
                captured.into_iter().map(number).collect(),
            ));
        }
    }
    if let Some(longest) = captures.iter().map(|(_, _, c)| c.len()).max() {
        return captures
            .into_iter()
            .filter(|(_, _, c)| c.len() == longest)
            .collect();
    }
    let mut quiet = BTreeSet::new();
    let forward = if side == Color::White { -1 } else { 1 };
    for start in 0..50 {
        let Some((color, piece)) = board[start] else {
            continue;
        };
        if color != side {
            continue;
        }
        let (row, column) = coordinates(start);
        for (dr, dc) in DIRECTIONS {
            if piece == Piece::Man && dr != forward {
                continue;
            }
            let mut distance = 1;
            while let Some(to) = index_at(row + dr * distance, column + dc * distance) {
                if board[to].is_some() {
                    break;
                }
                quiet.insert((number(start), number(to), BTreeSet::new()));
                if piece == Piece::Man {
                    break;
                }
                distance += 1;
            }
        }
    }
    quiet
}

fn reference_play(board: &Board, side: Color, (from, to, captured): &RefMove) -> Board {
    let mut next = *board;
    let (color, mut piece) = next[*from as usize - 1].take().expect("a piece on from");
    for &c in captured {
        next[c as usize - 1] = None;
    }
    let far_row = if side == Color::White { 0 } else { 9 };
    if (*to as usize - 1) / 5 == far_row {
        piece = Piece::King;
    }
    next[*to as usize - 1] = Some((color, piece));
    next
}

fn as_reference(mv: &Move) -> RefMove {
    (
        mv.from().number(),
        mv.to().number(),
        mv.captured().iter().map(Square::number).collect(),
    )
}

/// Plays a random game of up to `plies` plies from `position`, checking at every position that
/// both generators agree, that playing a move gives the reference's position, and that the
/// incremental key equals the key of the same position built from scratch.
fn check_game(mut position: Position, rng: &mut Rng, plies: usize) -> Result<(), TestCaseError> {
    for _ in 0..plies {
        let setup = position.setup();
        let expected = reference_moves(&setup.squares, position.side_to_move());
        let list = position.legal_moves();
        let actual: BTreeSet<RefMove> = list.iter().map(as_reference).collect();
        prop_assert_eq!(actual.len(), list.len(), "duplicates in {}", position);
        prop_assert_eq!(&actual, &expected, "moves of {}", position);
        prop_assert_eq!(
            position.legal_move_count(),
            list.len(),
            "count of {}",
            position
        );
        prop_assert_eq!(position.has_legal_move(), !list.is_empty(), "{}", position);
        prop_assert_eq!(
            position.has_capture(),
            list.first().is_some_and(Move::is_capture),
            "{}",
            position
        );
        if list.is_empty() {
            break;
        }
        let mv = list[rng.below(list.len())];
        let next = position.play(&mv);
        let expected_board =
            reference_play(&setup.squares, position.side_to_move(), &as_reference(&mv));
        prop_assert_eq!(
            next.setup().squares,
            expected_board,
            "{} after {:?}",
            position,
            mv
        );
        prop_assert_eq!(next.side_to_move(), !position.side_to_move());
        let rebuilt = Position::from_setup(&next.setup()).unwrap();
        prop_assert_eq!(next.hash(), rebuilt.hash(), "key of {}", next);
        prop_assert_eq!(Position::from_fen(&next.to_fen()).unwrap(), next);
        position = next;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Random games from the start position (men, first kings, long captures).
    #[test]
    fn agrees_on_games_from_the_start(seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        check_game(Position::initial(), &mut rng, 200)?;
    }

    /// Random games from random king-heavy set-ups (flying kings, long king captures).
    #[test]
    fn agrees_on_king_heavy_setups(seed in any::<u64>(), king_percent in 20u64..=100) {
        let mut rng = Rng::new(seed);
        let setup = random_setup(&mut rng, 14, king_percent);
        let position = Position::from_setup(&setup).unwrap();
        check_game(position, &mut rng, 60)?;
    }

    /// Random dense set-ups (up to 20 pieces a side), where long captures and loops abound.
    #[test]
    fn agrees_on_dense_setups(seed in any::<u64>()) {
        let mut rng = Rng::new(seed);
        let setup = random_setup(&mut rng, 20, 10);
        let position = Position::from_setup(&setup).unwrap();
        check_game(position, &mut rng, 40)?;
    }
}

/// A long sweep of the same comparisons: `cargo test -p damx-rules --test reference -- --ignored`.
#[test]
#[ignore = "slow: many thousand random games"]
fn agrees_on_many_random_games() {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    for game in 0..20_000 {
        let position = match game % 3 {
            0 => Position::initial(),
            1 => Position::from_setup(&random_setup(&mut rng, 14, 60)).unwrap(),
            _ => Position::from_setup(&random_setup(&mut rng, 20, 10)).unwrap(),
        };
        check_game(position, &mut rng, 120).unwrap();
    }
}

/// Constructed positions with more legal captures than a move list holds inline (found by
/// searching for the most captures): every one of them is listed, the same as the reference.
#[test]
fn agrees_on_positions_with_hundreds_of_captures() {
    for (fen, expected) in [
        (
            "W:WK1,K2,K6,K15,K25,K35,K45,K50:BK4,K9,K10,13,16,18,K20,21,22,K27,K30,31,32,K38,K40,K43,44,K49",
            385,
        ),
        (
            "W:WK1,K2,K4,K6,K15,16,K25,K35,K45,49,K50:BK3,9,K13,14,K18,20,K21,K22,27,30,31,K32,K38,40,K43,K44",
            345,
        ),
        (
            "W:WK1,K2,K3,K4,K5,K6,K15,K16,K25,K26,K35,K36,K45,K46,K47,K48,K49,K50:B",
            128,
        ),
    ] {
        let position = Position::from_fen(fen).unwrap();
        let list = position.legal_moves();
        assert_eq!(list.len(), expected, "{fen}");
        assert_eq!(position.legal_move_count(), expected, "{fen}");
        let actual: BTreeSet<RefMove> = list.iter().map(as_reference).collect();
        assert_eq!(actual.len(), expected, "duplicates in {fen}");
        assert_eq!(
            actual,
            reference_moves(&position.setup().squares, Color::White),
            "{fen}"
        );
    }
}

/// The benchmark positions (benches/positions.txt) have the move counts the movegen benchmark
/// checks, and the same moves as the reference.
#[test]
fn agrees_on_the_benchmark_positions() {
    let positions =
        damx_rules::pdn::parse_fen_list(include_str!("../benches/positions.txt")).unwrap();
    assert_eq!(positions.len(), 200);
    let mut counts = [0, 0];
    for (i, position) in positions.iter().enumerate() {
        let list = position.legal_moves();
        let actual: BTreeSet<RefMove> = list.iter().map(as_reference).collect();
        let expected = reference_moves(&position.setup().squares, position.side_to_move());
        assert_eq!(actual, expected, "{position}");
        counts[i / 100] += list.len();
    }
    assert_eq!(counts, [852, 571]);
}

/// The generator's bitboards and the reference's squares describe the same captured sets.
#[test]
fn reference_agrees_on_a_rules_md_position() {
    let position = Position::from_fen("W:WK9:B8,13,38,39").unwrap();
    let expected = reference_moves(&position.setup().squares, Color::White);
    let captured: Bitboard = [13, 38, 39]
        .iter()
        .map(|&n| Square::new(n).unwrap())
        .collect();
    assert_eq!(expected.len(), 3);
    assert!(expected.iter().all(|(_, _, c)| {
        c.iter().copied().collect::<Vec<_>>()
            == captured.iter().map(Square::number).collect::<Vec<_>>()
    }));
}
