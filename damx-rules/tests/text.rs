//! Notation and PDN: exact written forms, tolerant reading, round trips over random games, and
//! no panic on any input.

mod common;

use common::{Rng, random_game, random_start};
use damx_rules::pdn::{
    GameAtError, PdnErrorKind, game_at, parse_fen_list, parse_games, write_games,
};
use damx_rules::{Game, GameResult, PdnGame, Position};
use proptest::prelude::*;

fn play_texts(start: Position, texts: &[&str]) -> Vec<damx_rules::Move> {
    let mut position = start;
    texts
        .iter()
        .map(|text| {
            let mv = position
                .parse_move(text)
                .unwrap_or_else(|e| panic!("{e} in {position}"));
            position = position.play(&mv);
            mv
        })
        .collect()
}

/// A game from the start writes exactly the agreed form.
#[test]
fn writes_a_game_from_the_start() {
    let moves = play_texts(
        Position::initial(),
        &["32-28", "19-23", "28x19", "14x23", "33-28"],
    );
    let mut game = PdnGame::new(Position::initial(), moves, GameResult::Unfinished);
    game.set_tag("Event", "Test \"match\"");
    game.set_tag("White", "damx");
    game.set_tag("Round", "3");
    assert_eq!(
        game.to_string(),
        "[Event \"Test \\\"match\\\"\"]\n\
         [Date \"????.??.??\"]\n\
         [White \"damx\"]\n\
         [Black \"?\"]\n\
         [Result \"*\"]\n\
         [GameType \"20\"]\n\
         [Round \"3\"]\n\
         \n\
         1. 32-28 19-23 2. 28x19 14x23 3. 33-28 *\n\
         \n"
    );
    let read = parse_games(&game.to_string()).unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].moves, game.moves);
    assert_eq!(read[0].tag("Event"), Some("Test \"match\""));
    assert_eq!(read[0].tag("Round"), Some("3"));
}

/// A set-up start with Black to move gets a FEN tag and `1. ...`; the result is written in
/// the tag and at the end.
#[test]
fn writes_a_setup_game_with_black_to_move() {
    let start = Position::from_fen("B:W28,37,41:B19,23").unwrap();
    let moves = play_texts(start, &["23x32", "37x28"]);
    let game = PdnGame::new(start, moves, GameResult::Draw);
    let text = game.to_string();
    assert!(text.contains("[FEN \"B:W28,37,41:B19,23\"]\n"), "{text}");
    assert!(text.contains("[Result \"1-1\"]\n"), "{text}");
    assert!(text.ends_with("\n1. ... 23x32 2. 37x28 1-1\n\n"), "{text}");
    let read = parse_games(&text).unwrap();
    assert_eq!(
        read,
        vec![PdnGame {
            tags: read[0].tags.clone(),
            ..game
        }]
    );
}

/// An ambiguous capture is written with its full landing path and read back.
#[test]
fn writes_the_landing_path_only_when_needed() {
    let start = Position::from_fen("W:WK49:B11,13,17,32").unwrap();
    let mv = start.parse_move("49x21x8x19").unwrap();
    assert_eq!(start.move_text(&mv), "49x21x8x19");
    let game = PdnGame::new(start, vec![mv], GameResult::Unfinished);
    assert!(game.to_string().contains("1. 49x21x8x19 *"));
    assert_eq!(parse_games(&game.to_string()).unwrap()[0].moves, vec![mv]);
}

/// Long games wrap at 80 characters.
#[test]
fn movetext_lines_stay_short() {
    let mut rng = Rng::new(7);
    let moves = random_game(Position::initial(), &mut rng, 120);
    let game = PdnGame::new(Position::initial(), moves, GameResult::Unfinished);
    let text = game.to_string();
    assert!(text.lines().all(|l| l.len() <= 80), "{text}");
    assert_eq!(parse_games(&text).unwrap()[0].moves, game.moves);
}

/// Reading tolerates comments, variations, NAGs, escapes, move-number styles, results in
/// chess style, missing tags and several games.
#[test]
fn reads_messy_pdn() {
    let text = "\
% produced by hand
[Event \"one\"]
[White \"a\"] [Black \"b\"]

1. 32-28 {a comment (with parens)} 19-23 ; to the end of the line
2.28x19 $1 (2. 37-32? 23x32 (2... 14x23)) 14x23!
3... 33-28 2-0
[Event \"two\"]
[FEN \"B:W28,37,41:B19,23.\"]
1. ... 23x32 2. 37x28 1/2-1/2

32-28 19-23
[Event \"four\"]
[Result \"0-2\"]
1. 31-27
";
    let games = parse_games(text).unwrap();
    assert_eq!(games.len(), 4);
    assert_eq!(games[0].tag("Black"), Some("b"));
    assert_eq!(games[0].moves.len(), 5);
    assert_eq!(games[0].result, GameResult::WhiteWins);
    assert_eq!(games[1].start.to_fen(), "B:W28,37,41:B19,23");
    assert_eq!(games[1].moves.len(), 2);
    assert_eq!(games[1].result, GameResult::Draw);
    assert!(games[2].tags.is_empty());
    assert_eq!(games[2].moves.len(), 2);
    assert_eq!(games[2].result, GameResult::Unfinished);
    assert_eq!(games[3].result, GameResult::BlackWins);
    assert_eq!(games[3].moves.len(), 1);
    assert!(parse_games("").unwrap().is_empty());
}

/// Reading errors say which game, where and what.
#[test]
fn pdn_errors() {
    let e = parse_games("1. 32-28 2-0\n1. 32-27 28-22 *").unwrap_err();
    assert_eq!((e.game, e.line, e.column), (2, 2, 10));
    assert!(matches!(e.kind, PdnErrorKind::Move { number: 1, .. }));
    assert!(
        e.to_string()
            .starts_with("game 2, line 2, column 10: move 1: move \"28-22\""),
        "{e}"
    );
    let e = parse_games("[FEN \"W:W3\"]").unwrap_err();
    assert!(matches!(e.kind, PdnErrorKind::Fen(_)));
    let e = parse_games("[Event \"open").unwrap_err();
    assert_eq!(e.kind, PdnErrorKind::UnterminatedTag);
    let e = parse_games("[Event]").unwrap_err();
    assert!(matches!(e.kind, PdnErrorKind::BadTag { .. }));
    // A comment or variation that is never closed would swallow the rest of the text: it
    // is refused where it opens.
    let e = parse_games("1. 32-28 {never closed 19-23 *").unwrap_err();
    assert_eq!(
        (e.line, e.column, e.kind),
        (1, 10, PdnErrorKind::UnterminatedComment)
    );
    let e = parse_games("1. 32-28\n(((( 19-23 *").unwrap_err();
    assert_eq!(
        (e.line, e.column, e.kind),
        (2, 1, PdnErrorKind::UnterminatedVariation)
    );
    let e = parse_games("1. 32-28 (19-23 {open) 19-23 *").unwrap_err();
    assert_eq!(e.kind, PdnErrorKind::UnterminatedVariation);
    // From a start with Black to move, Black's first move is move 1 and White's reply move 2.
    let e = parse_games("[FEN \"B:W31:B1\"] 1... 1-7 2. 31-37 *").unwrap_err();
    assert!(
        matches!(e.kind, PdnErrorKind::Move { number: 2, .. }),
        "{e}"
    );
    // A word of a million characters is no move; the error shows its start and length.
    let long = format!("1. {} *", "7".repeat(1_000_000));
    let e = parse_games(&long).unwrap_err();
    assert!(e.to_string().len() < 300, "{} bytes", e.to_string().len());
    assert!(e.to_string().contains("(1000000 bytes)"), "{e}");
}

/// File bytes read as text: UTF-8 without its byte-order mark, else Latin-1, every byte a
/// character; more than the bound is refused.
#[test]
fn files_read_as_utf8_or_latin1() {
    use damx_rules::pdn::{MAX_TEXT_BYTES, read_text, text_from_bytes};
    use std::io::Read as _;
    assert_eq!(
        text_from_bytes(b"\xef\xbb\xbf[Event \"\xc3\xa9\"]".to_vec()),
        "[Event \"\u{e9}\"]"
    );
    assert_eq!(
        text_from_bytes(b"[White \"Ren\xe9\"]".to_vec()),
        "[White \"Ren\u{e9}\"]"
    );
    let games = parse_games(&text_from_bytes(
        b"[White \"Ren\xe9\"]\n1. 32-28 *".to_vec(),
    ))
    .unwrap();
    assert_eq!(games[0].tag("White"), Some("Ren\u{e9}"));
    assert_eq!(read_text(&b"1. 32-28 *"[..]).unwrap(), "1. 32-28 *");
    let endless = std::io::repeat(b' ').take(MAX_TEXT_BYTES + 10);
    let error = read_text(endless).unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
}

/// A game of tags alone (no moves, no result) ends where one of its tags comes again, instead
/// of lending its tags, its start among them, to the next game.
#[test]
fn a_game_of_tags_alone_ends_at_a_repeated_tag() {
    let text = "[Event \"a\"]\n[FEN \"W:W31:B1\"]\n\n[Event \"b\"]\n1. 32-28 *\n";
    let games = parse_games(text).unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].tag("Event"), Some("a"));
    assert!(games[0].moves.is_empty());
    assert_eq!(games[1].tag("Event"), Some("b"));
    assert_eq!(games[1].start, Position::initial());
    assert_eq!(games[1].moves.len(), 1);
    assert_eq!(at_text(text, 2), Ok(fen_of_start(&["32-28"])));
}

fn fen_of_start(moves: &[&str]) -> String {
    let mut position = Position::initial();
    for text in moves {
        position = position.play(&position.parse_move(text).unwrap());
    }
    position.to_fen()
}

/// A file saved as UTF-8 with a byte-order mark reads as without it.
#[test]
fn a_byte_order_mark_is_no_text() {
    let games = parse_games("\u{feff}[Event \"x\"]\n1. 32-28 *").unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].tag("Event"), Some("x"));
    assert_eq!(games[0].moves.len(), 1);
}

/// FEN lists: one position a line, comments and tags allowed, errors with their line.
#[test]
fn fen_lists() {
    let text = "# openings\nW:W31-50:B1-20\n\n; black to move\nB:W28,31,33-50:B1-20 ; after 32-28\n[FEN \"W:WK1:BK50\"]\n";
    let positions = parse_fen_list(text).unwrap();
    assert_eq!(positions.len(), 3);
    assert_eq!(positions[0], Position::initial());
    let e = parse_fen_list("W:W31-50:B1-20\n  W:W51").unwrap_err();
    assert_eq!((e.game, e.line, e.column), (2, 2, 3));
}

/// A finished game records its outcome as the result.
#[test]
fn game_outcome_becomes_the_result() {
    let mut game = Game::new(Position::from_fen("W:W28:B23").unwrap());
    game.play(game.position().legal_moves()[0]);
    let record = PdnGame::from_game(&game);
    assert_eq!(record.result, GameResult::WhiteWins);
    assert_eq!(record.to_game().unwrap().ply(), 1);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Every legal move's written text reads back as the same move, and random games survive
    /// PDN writing and reading, several games in one text.
    #[test]
    fn random_games_round_trip(seed in any::<u64>(), kind in 0u8..3) {
        let mut rng = Rng::new(seed);
        let mut games = Vec::new();
        for _ in 0..3 {
            let start = random_start(&mut rng, kind);
            let moves = random_game(start, &mut rng, 80);
            let mut position = start;
            for mv in &moves {
                for legal in position.legal_moves() {
                    let text = position.move_text(&legal);
                    prop_assert_eq!(position.parse_move(&text), Ok(legal), "{} in {}", text, position);
                    let path = position.capture_path(&legal).unwrap();
                    prop_assert_eq!(path.last().copied(), Some(legal.to()));
                }
                position = position.play(mv);
            }
            let result = [GameResult::WhiteWins, GameResult::Draw, GameResult::Unfinished][rng.below(3)];
            games.push(PdnGame::new(start, moves, result));
        }
        let text = write_games(&games);
        let read = parse_games(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(read.len(), games.len());
        for (read, written) in read.iter().zip(&games) {
            prop_assert_eq!(read.start, written.start);
            prop_assert_eq!(&read.moves, &written.moves);
            prop_assert_eq!(read.result, written.result);
        }
    }

    /// No text makes the FEN, move or PDN readers panic.
    #[test]
    fn readers_never_panic(text in ".{0,200}") {
        let _ = Position::from_fen(&text);
        let _ = Position::initial().parse_move(&text);
        let _ = parse_games(&text);
        let _ = parse_fen_list(&text);
    }

    /// Nor does text built from the characters these formats use.
    #[test]
    fn readers_never_panic_on_near_misses(text in "[0-9WBKwbkx:,.\\-\\[\\]{}();$%*\" \n]{0,120}") {
        let _ = Position::from_fen(&text);
        let _ = Position::initial().parse_move(&text);
        let _ = Position::from_fen("W:WK28,K46:B12,13,22,23,37").unwrap().parse_move(&text);
        let _ = parse_games(&text);
        let _ = parse_fen_list(&text);
    }
}

/// A tag value from a peer cannot break out of its string or carry a control character: a
/// quote and a backslash are escaped, a line break becomes a blank, ESC and BEL become `?`.
#[test]
fn hostile_tag_values_stay_one_string() {
    let mut game = PdnGame::new(Position::initial(), Vec::new(), GameResult::Unfinished);
    game.set_tag("White", "\x1b[31mred\x07\r\n[Result \"2-0\"] \\");
    let text = game.to_string();
    assert!(
        text.contains("[White \"?[31mred?  [Result \\\"2-0\\\"] \\\\\"]\n"),
        "{text}"
    );
    assert!(!text.chars().any(|c| c.is_control() && c != '\n'));
    let read = parse_games(&text).unwrap();
    assert_eq!(read[0].tag("White"), Some("?[31mred?  [Result \"2-0\"] \\"));
    assert_eq!(read[0].result, GameResult::Unfinished);
}

/// A game of a file at a ply: the last position by default, an earlier one with `ply`, and
/// what is missing named.
#[test]
fn a_game_of_a_file_at_a_ply() {
    let text =
        "[Event \"one\"]\n\n1. 32-28 19-23 2. 28x19 14x23 *\n\n[Event \"two\"]\n\n1. 33-28 *\n";
    let fen_of = |moves: &[&str]| {
        let mut position = Position::initial();
        for text in moves {
            position = position.play(&position.parse_move(text).unwrap());
        }
        position.to_fen()
    };
    let at = |game, ply| game_at(text, game, ply).map(|game| game.position().to_fen());
    assert_eq!(
        at(1, None),
        Ok(fen_of(&["32-28", "19-23", "28x19", "14x23"]))
    );
    assert_eq!(at(1, Some(2)), Ok(fen_of(&["32-28", "19-23"])));
    assert_eq!(at(2, None), Ok(fen_of(&["33-28"])));
    assert_eq!(game_at(text, 1, Some(2)).unwrap().ply(), 2);
    let error = game_at(text, 3, None).unwrap_err();
    assert_eq!(error, GameAtError::NoGame { game: 3, games: 2 });
    assert_eq!(error.to_string(), "no game 3: the text holds 2 games");
    let error = game_at(text, 2, Some(3)).unwrap_err();
    assert_eq!(error.to_string(), "no ply 3: game 2 has 1 plies");
    let error = game_at("1. 32-28 19-23 2. 32-27 *", 1, None).unwrap_err();
    assert!(matches!(error, GameAtError::Pdn(_)), "{error}");
    assert!(error.to_string().starts_with("game 1, line 1"), "{error}");
    // A bad later game does not stand in the way of an earlier one; game 0 counts them all.
    let text = "1. 32-28 *\n1. 32-27 28-22 *\n";
    assert_eq!(at_text(text, 1), Ok(fen_of(&["32-28"])));
    assert!(matches!(game_at(text, 2, None), Err(GameAtError::Pdn(_))));
    let error = game_at("1. 32-28 *\n1. 33-28 *", 0, None).unwrap_err();
    assert_eq!(error, GameAtError::NoGame { game: 0, games: 2 });
}

fn at_text(text: &str, game: usize) -> Result<String, GameAtError> {
    game_at(text, game, None).map(|game| game.position().to_fen())
}
