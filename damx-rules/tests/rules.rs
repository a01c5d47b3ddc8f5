//! The small rule positions of rules.md with their exact move lists, and positions of our own
//! for each rule.

use damx_rules::{Color, Piece, Position, Square};

/// The legal moves as sorted text: `from-to` or `fromxto {captured,...}`.
fn moves(fen: &str) -> Vec<String> {
    let position = Position::from_fen(fen).unwrap();
    let mut list: Vec<String> = position
        .legal_moves()
        .iter()
        .map(|mv| {
            if mv.is_capture() {
                let captured: Vec<String> = mv.captured().iter().map(|s| s.to_string()).collect();
                format!("{mv} {{{}}}", captured.join(","))
            } else {
                mv.to_string()
            }
        })
        .collect();
    list.sort();
    list
}

fn sq(n: u8) -> Square {
    Square::new(n).unwrap()
}

/// rules.md: the man goes round the square 22-17-11(2)-... and back to 22, two paths, one
/// move; it passes square 2 on the way and stays a man.
#[test]
fn man_loop_is_one_move_and_passing_the_far_row_does_not_promote() {
    assert_eq!(moves("W:W22:B7,8,17,18"), ["22x22 {7,8,17,18}"]);
    let position = Position::from_fen("W:W22:B7,8,17,18").unwrap();
    let after = position.play(&position.legal_moves()[0]);
    assert_eq!(after.piece_at(sq(22)), Some((Color::White, Piece::Man)));
    assert!(after.pieces(Color::Black).is_empty());
}

/// rules.md: a flying king with four landing squares and two captured sets: eight moves.
#[test]
fn flying_king_landings_and_captured_sets() {
    let mut expected = Vec::new();
    for to in [19, 24, 30, 35] {
        expected.push(format!("49x{to} {{11,13,32}}"));
        expected.push(format!("49x{to} {{13,17,32}}"));
    }
    expected.sort();
    assert_eq!(moves("W:WK49:B11,13,17,32"), expected);
}

/// rules.md: captured pieces stay on the board until the capture ends, so the king cannot come
/// back over 13 to take 8 as well (the "Turkish strike").
#[test]
fn captured_pieces_stay_until_the_end() {
    assert_eq!(
        moves("W:WK9:B8,13,38,39"),
        ["9x25 {13,38,39}", "9x30 {13,38,39}", "9x34 {13,38,39}"]
    );
}

/// rules.md: two five-piece captures by a man: round the loop, back over the start square,
/// then out over 32 or 33.
#[test]
fn man_five_piece_captures() {
    assert_eq!(
        moves("W:W28:B12,13,22,23,32,33"),
        ["28x37 {12,13,22,23,32}", "28x39 {12,13,22,23,33}"]
    );
}

/// The start position: nine forward moves; after 32-28 Black has nine too.
#[test]
fn start_position_moves() {
    assert_eq!(
        moves("W:W31-50:B1-20"),
        [
            "31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30"
        ]
    );
    assert_eq!(
        moves("B:W28,31,33-50:B1-20"),
        [
            "16-21", "17-21", "17-22", "18-22", "18-23", "19-23", "19-24", "20-24", "20-25"
        ]
    );
}

/// A man captures backwards, and a capture is compulsory even when quiet moves exist.
#[test]
fn men_capture_backwards_and_captures_are_compulsory() {
    assert_eq!(moves("W:W28:B33"), ["28x39 {33}"]);
    assert_eq!(moves("W:W32,38:B27"), ["32x21 {27}"]);
    assert_eq!(moves("B:W22:B17"), ["17x28 {22}"]);
}

/// A king moves along whole diagonals up to the first piece and cannot capture a piece with no
/// empty square behind it.
#[test]
fn king_quiet_moves() {
    assert_eq!(
        moves("W:WK46:B5"),
        [
            "46-10", "46-14", "46-19", "46-23", "46-28", "46-32", "46-37", "46-41"
        ]
    );
}

/// A king turns during a capture and may stop on any empty square behind the last piece.
#[test]
fn king_turns_during_a_capture() {
    assert_eq!(
        moves("W:WK46:B33,37"),
        ["46x39 {33,37}", "46x44 {33,37}", "46x50 {33,37}"]
    );
}

/// A king goes on capturing in a straight line, passing the square right behind the first
/// piece.
#[test]
fn king_continues_straight() {
    assert_eq!(
        moves("W:WK46:B37,23"),
        [
            "46x10 {23,37}",
            "46x14 {23,37}",
            "46x19 {23,37}",
            "46x5 {23,37}"
        ]
    );
}

/// A man promotes when its capture ends on the far row, and not when it only passes it.
#[test]
fn promotion_on_the_last_jump_only() {
    let ends_there = Position::from_fen("W:W12:B7").unwrap();
    assert_eq!(moves("W:W12:B7"), ["12x1 {7}"]);
    let after = ends_there.play(&ends_there.legal_moves()[0]);
    assert_eq!(after.piece_at(sq(1)), Some((Color::White, Piece::King)));

    let passes = Position::from_fen("W:W13:B7,8").unwrap();
    assert_eq!(moves("W:W13:B7,8"), ["13x11 {7,8}"]);
    let after = passes.play(&passes.legal_moves()[0]);
    assert_eq!(after.piece_at(sq(11)), Some((Color::White, Piece::Man)));

    let black = Position::from_fen("B:W44:B39").unwrap();
    assert_eq!(moves("B:W44:B39"), ["39x50 {44}"]);
    let after = black.play(&black.legal_moves()[0]);
    assert_eq!(after.piece_at(sq(50)), Some((Color::Black, Piece::King)));
}

/// A quiet move onto the far row promotes; the new king only moves on the next turn.
#[test]
fn quiet_promotion() {
    let position = Position::from_fen("W:W6:B45").unwrap();
    assert_eq!(moves("W:W6:B45"), ["6-1"]);
    let after = position.play(&position.legal_moves()[0]);
    assert_eq!(after.piece_at(sq(1)), Some((Color::White, Piece::King)));
    assert_eq!(after.side_to_move(), Color::Black);
}

/// The majority rule counts pieces, a king as one: two men beat one king, and captures of
/// equal length leave the choice free.
#[test]
fn majority_rule_with_kings_and_men() {
    assert_eq!(moves("W:W28,K46:B12,22,K37"), ["28x8 {12,22}"]);
    assert_eq!(moves("W:W28,K46:B23,37"), ["28x19 {23}", "46x32 {37}"]);
    // A king capturing two kings beats a man capturing one man.
    assert_eq!(
        moves("W:W39,K46:B34,K37,K23"),
        [
            "46x10 {23,37}",
            "46x14 {23,37}",
            "46x19 {23,37}",
            "46x5 {23,37}"
        ]
    );
}

/// Men that cannot move or capture: the side to move has no legal move and has lost.
#[test]
fn blocked_men_have_no_move() {
    let position = Position::from_fen("W:W41,46:B32,36,37").unwrap();
    assert!(position.legal_moves().is_empty());
    assert!(!position.has_legal_move());
    let no_pieces = Position::from_fen("B:W41:B").unwrap();
    assert!(!no_pieces.has_legal_move());
}

/// from == to: a man's loop, and a king whose loop may end on its start square or further on;
/// the two directions round the loop give one move each.
#[test]
fn captures_ending_on_the_start_square() {
    assert_eq!(moves("W:W28:B12,13,22,23"), ["28x28 {12,13,22,23}"]);
    let mut expected: Vec<String> = [28, 32, 33, 37, 39, 41, 44, 46, 50]
        .iter()
        .map(|to| format!("28x{to} {{12,13,22,23}}"))
        .collect();
    expected.sort();
    assert_eq!(moves("W:WK28:B12,13,22,23"), expected);
}
