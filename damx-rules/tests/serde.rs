//! The serde forms (feature `serde`): readable JSON that round-trips.
#![cfg(feature = "serde")]

use damx_rules::{Color, DrawReason, GameResult, Move, Outcome, Position, WinReason};

/// Moves, positions, results and outcomes become readable JSON and come back unchanged.
#[test]
fn json_round_trips() {
    let position = Position::from_fen("W:WK49:B11,13,17,32").unwrap();
    let mv = position.parse_move("49x21x8x19").unwrap();
    let json = serde_json::to_string(&mv).unwrap();
    assert_eq!(json, r#"{"from":49,"to":19,"captured":[13,17,32]}"#);
    assert_eq!(serde_json::from_str::<Move>(&json).unwrap(), mv);

    let json = serde_json::to_string(&position).unwrap();
    assert_eq!(json, r#""W:WK49:B11,13,17,32""#);
    assert_eq!(serde_json::from_str::<Position>(&json).unwrap(), position);

    let outcomes = [
        Outcome::Win {
            winner: Color::Black,
            reason: WinReason::NoMoves,
        },
        Outcome::Draw(DrawReason::Endgame16),
    ];
    let json = serde_json::to_string(&outcomes).unwrap();
    assert_eq!(
        json,
        r#"[{"win":{"winner":"Black","reason":"NoMoves"}},{"draw":{"reason":"Endgame16"}}]"#
    );
    assert_eq!(
        serde_json::from_str::<[Outcome; 2]>(&json).unwrap(),
        outcomes
    );
    assert_eq!(
        serde_json::to_string(&GameResult::Draw).unwrap(),
        r#""1-1""#
    );
}

/// Invalid values are refused, not accepted as something else.
#[test]
fn json_rejects_invalid_values() {
    assert!(serde_json::from_str::<Move>(r#"{"from":51,"to":19,"captured":[]}"#).is_err());
    assert!(serde_json::from_str::<Position>(r#""W:W3""#).is_err());
    assert!(serde_json::from_str::<GameResult>(r#""3-0""#).is_err());
}
