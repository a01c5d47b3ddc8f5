//! The training pipeline's tests.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use damx_engine::eval::{FEATURE_COUNT, Features, MAN, feature_names};
use damx_engine::pattern::{PatternWeights, Pieces, REGION_SIZE, REGIONS, Terms, global_names};
use damx_engine::{Engine, EngineOptions, EvalParams};
use damx_rules::{Bitboard, Color, Game, GameResult, Position, Square};
use damx_session::referee::{AdjudicationMethod, Judge};

use super::calibrate::{Kings, MaterialClass};
use super::endings::{endings, parse_band};
use super::fit::{
    KING_SQUARES, Model, Sample, TO_MOVE, WIDE, fit, hand_counts, king_squares, scaled_weights,
    score, wide_indices,
};
use super::games::{play_one, play_out};
use super::mix;
use super::positions::{
    Labelled, NO_RESULT, RECORD_V1, RECORD_V2, SCORE_BOUND, decode, deviation, encode, is_quiet,
    positions, replay, white_search_score,
};
use damx_engine::egdb::Egdb;

/// `calibrate` groups a position by the material of the side the evaluation favours:
/// which side has kings, and how many men that side is ahead.
#[test]
fn material_classes_are_seen_from_the_favoured_side() {
    // White: four men and a king; Black: two men and two kings.
    let position: Position = "W:W31,32,33,34,K46:B7,8,K5,K10".parse().unwrap();
    let pieces = Pieces::of(&position);
    let white = MaterialClass::of(&pieces, true);
    assert!(white.kings == Kings::BothOtherMore && white.men == 2);
    let black = MaterialClass::of(&pieces, false);
    assert!(black.kings == Kings::BothFavouredMore && black.men == -2);
    // Men only, White ten men up: the difference is clamped to three.
    let position: Position = "W:W31,32,33,34,35,36,37,38,39,40,41:B5".parse().unwrap();
    let class = MaterialClass::of(&Pieces::of(&position), true);
    assert!(class.kings == Kings::Neither && class.men == 3);
}

/// A record survives the compact encoding.
#[test]
fn record_round_trip() {
    let position: Position = "B:W28,32,K46:B7,12,K5".parse().unwrap();
    for score in [None, Some(-137), Some(SCORE_BOUND as i16)] {
        let record = Labelled {
            pieces: Pieces::of(&position),
            result: 2,
            score,
        };
        let mut bytes = Vec::new();
        encode(&record, &mut bytes);
        assert_eq!(bytes.len(), RECORD_V2);
        let back = decode(&bytes).unwrap();
        assert_eq!(back.pieces, record.pieces);
        assert_eq!(back.result, 2);
        assert_eq!(back.score, score);
        // A version 1 record is the same without the score.
        let v1 = decode(&bytes[..RECORD_V1]).unwrap();
        assert_eq!((v1.pieces, v1.result, v1.score), (record.pieces, 2, None));
        let mut bad = bytes.clone();
        bad[28] = 7 << 1;
        assert!(decode(&bad).is_err());
    }
    let mut beyond = Vec::new();
    let record = Labelled {
        pieces: Pieces::of(&position),
        result: 1,
        score: Some(SCORE_BOUND as i16 + 1),
    };
    encode(&record, &mut beyond);
    assert!(
        decode(&beyond).is_err(),
        "a score beyond the bound is refused"
    );
    // A position off the games' lines has no result, so it must have a score.
    for (score, valid) in [(Some(42), true), (None, false)] {
        let record = Labelled {
            pieces: Pieces::of(&position),
            result: NO_RESULT,
            score,
        };
        let mut bytes = Vec::new();
        encode(&record, &mut bytes);
        assert_eq!(decode(&bytes).is_ok(), valid, "{score:?}");
    }
}

/// A deviation is one legal move away from its position, quiet, and the same every time.
#[test]
fn deviations_are_one_quiet_move_away() {
    let mut found = 0;
    for fen in [
        "W:W31,32,33,34,35,36,37,38,39,40:B11,12,13,14,15,16,17,18,19,20",
        "B:W28,32,K46:B7,12,K5",
        "W:W50:B1",
    ] {
        let position: Position = fen.parse().unwrap();
        let Some(next) = deviation(&position) else {
            continue;
        };
        found += 1;
        assert!(is_quiet(&next), "{fen}");
        assert!(
            position
                .legal_moves()
                .iter()
                .any(|mv| position.play(mv) == next),
            "{fen}"
        );
        assert_eq!(deviation(&position), Some(next));
    }
    assert!(found >= 2);
}

/// A searched position's score is White's: a position where White wins a man scores
/// well for White whichever side is to move, and the search is repeatable.
#[test]
fn search_scores_are_whites() {
    let mut engine = small_engine();
    // White is two men up with Black to move, then the same with White to move.
    for fen in ["B:W31,32,33,34:B3,4", "W:W31,32,33,34:B3,4"] {
        let position: Position = fen.parse().unwrap();
        let pieces = Pieces::of(&position);
        let score = white_search_score(&mut engine, &pieces, 2000);
        assert!(score > 100, "{fen}: {score}");
        assert_eq!(score, white_search_score(&mut engine, &pieces, 2000));
    }
}

/// The wide regions read each side's men from its own side of the board: the starting
/// position, where Black's men are White's turned half a turn, gives both sides the same
/// contents, and a lone man counts once in every region that holds it.
#[test]
fn wide_regions_are_colour_symmetric() {
    let start = Position::initial();
    let (white, black) = (
        start.men(Color::White).bits(),
        start.men(Color::Black).bits(),
    );
    assert_eq!(
        wide_indices(white, black, false),
        wide_indices(black, white, true)
    );
    assert_ne!(wide_indices(white, black, false), [0; WIDE]);
    // Square 28 (row 5, the middle square of five) lies in both columns of bands 4 and
    // 5: the upper row of band 4 (digits 3^4 to 3^7) and the lower row of band 5
    // (3^0 to 3^3), at place 2 of the first column and place 1 of the second.
    let man = Bitboard::from_square(Square::new(28).unwrap()).bits();
    let indices = wide_indices(man, 0, false);
    let set: Vec<(usize, u16)> = indices
        .iter()
        .enumerate()
        .filter(|(_, i)| **i != 0)
        .map(|(r, i)| (r, *i))
        .collect();
    assert_eq!(
        set,
        vec![(8, 3u16.pow(6)), (9, 3u16.pow(5)), (10, 9), (11, 3)]
    );
    assert_eq!(global_names()[TO_MOVE], "to move");
}

/// With `--model hand` a hand feature's correction moves the score like the hand
/// evaluation's own weight would: by its count, blended by the phase and divided in
/// drawish endings. The man's weight is the unit and is not corrected.
#[test]
fn hand_corrections_act_like_hand_weights() {
    let model = Model::parse("regions+hand").unwrap();
    assert!(model.playable() && model.hand);
    assert_eq!(model.parameters(), model.hand_first() + FEATURE_COUNT);
    let king = feature_names().iter().position(|n| *n == "king").unwrap();
    for fen in [
        "W:W28,32,K46:B7,12,K5,K1",
        "B:WK46,K10:BK5",
        "W:W31,32,33,34,35:B16,17,18,19,20",
    ] {
        let position: Position = fen.parse().unwrap();
        let pieces = Pieces::of(&position);
        let counts = hand_counts(&pieces);
        assert!(
            counts.iter().all(|&(feature, _)| feature as usize != MAN),
            "{fen}"
        );
        let sample = Sample {
            terms: Terms::of(&pieces),
            wide: None,
            kings: None,
            hand: Some(counts),
            base: 10.0,
            result: Some(0.5),
            target: 0.5,
        };
        let mut weights = vec![[0f32; 2]; model.parameters()];
        weights[model.hand_first() + king] = [40.0, 20.0];
        let features = Features::of(&position);
        let kings = features
            .counts
            .iter()
            .find(|(feature, _)| *feature as usize == king)
            .map_or(0.0, |(_, count)| f32::from(*count));
        let phase = features.phase as f32 / 40.0;
        let expected =
            10.0 + kings * (40.0 * phase + 20.0 * (1.0 - phase)) / features.divisor as f32;
        assert!(
            (score(model, &weights, &sample) - expected).abs() < 1e-3,
            "{fen}"
        );
    }
    assert!(Model::parse("regions+hand+wide").is_ok_and(|m| !m.playable()));
}

/// The kings' table reads a king from its owner's side: a white king on 46 and a black king
/// on 5 are on the same square of the table, with opposite signs, and men count nothing.
#[test]
fn king_squares_are_read_from_the_owners_side() {
    let position: Position = "W:WK46,31:BK5,20".parse().unwrap();
    let mut squares = king_squares(&Pieces::of(&position)).into_vec();
    squares.sort_unstable();
    assert_eq!(squares, [(45, -1), (45, 1)]);
    let model = Model::parse("regions+kings").unwrap();
    assert!(!model.playable());
    assert_eq!(model.hand_first(), model.kings_first() + KING_SQUARES);
}

/// An engine with a small table, for the tests' games and searches.
fn small_engine() -> Engine {
    Engine::new(EngineOptions {
        hash_mb: 1,
        ..EngineOptions::default()
    })
}

/// A fresh directory `damx-NAME-PID` under the temporary one, holding `games.txt`: one
/// game played to its end (at most 200 plies, 4 random) from each of `seeds`.
fn games_file(name: &str, seeds: &[u64]) -> (PathBuf, PathBuf) {
    let mut engine = small_engine();
    let dir = std::env::temp_dir().join(format!("damx-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let games = dir.join("games.txt");
    let mut text = "# games\n".to_owned();
    for (k, &seed) in seeds.iter().enumerate() {
        let (line, _) = play_one(&mut engine, seed, 200, 4, None).unwrap();
        text.push_str(&format!("{k}\t{line}\n"));
    }
    std::fs::write(&games, &text).unwrap();
    (dir, games)
}

/// A fit's inputs in a fresh directory: the positions of twelve short games and the
/// built-in weights as a start file. Returns the directory, the positions and the start.
fn fit_inputs(name: &str) -> (PathBuf, PathBuf, PathBuf) {
    let (dir, games) = games_file(name, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    let pos = dir.join("games.pos");
    positions(&[
        "--out".to_owned(),
        pos.display().to_string(),
        games.display().to_string(),
    ])
    .unwrap();
    let start = dir.join("start.dxw");
    std::fs::write(&start, PatternWeights::builtin().to_bytes()).unwrap();
    (dir, pos, start)
}

/// The arguments of a small, quick fit on the hand base from `start`, with `extra` ones:
/// batches of 64 at rate 1, a fifth held out, one thread. The positions file comes twice:
/// the held-out positions (the end of the second copy) are among the training ones, so
/// that a fit that learns them is kept over its start.
fn small_fit_args(out: &Path, start: &Path, pos: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "--out",
        out.to_str().unwrap(),
        "--batch",
        "64",
        "--lr",
        "1",
        "--validation",
        "0.2",
        "--base",
        "hand",
        "--start",
        start.to_str().unwrap(),
        "--threads",
        "1",
    ]
    .map(String::from)
    .to_vec();
    args.extend(extra.iter().map(|a| a.to_string()));
    args.push(pos.display().to_string());
    args.push(pos.display().to_string());
    args
}

/// `fit --fixed regions` keeps the start's region weights and fits the hand corrections
/// alone; without a hand model on the hand base it has nothing to fit and is refused.
#[test]
fn fixed_regions_keep_their_start_weights() {
    let (dir, pos, start) = fit_inputs("fixed");
    let out = dir.join("fixed.dxw");
    let fit_args = |extra: &[&str]| -> Vec<String> {
        let mut both = vec!["--epochs", "2"];
        both.extend_from_slice(extra);
        small_fit_args(&out, &start, &pos, &both)
    };
    // The built-in weights have two table sets, so the model is `tempo`.
    fit(&fit_args(&["--model", "tempo+hand", "--fixed", "regions"])).unwrap();
    let fitted = PatternWeights::load(&out).unwrap();
    assert_eq!(fitted.tables(), PatternWeights::builtin().tables());
    let hand_text = std::fs::read_to_string(format!("{}.hand", out.display())).unwrap();
    let hand = EvalParams::from_text(&hand_text).unwrap();
    let tuned = EvalParams::tuned();
    // A later epoch than the start was kept (the fit is seeded), and it moved the hand
    // weights while the regions stayed.
    let log = std::fs::read_to_string(format!("{}.log", out.display())).unwrap();
    assert!(!log.contains("epoch 0 kept"), "{log}");
    assert!(hand.opening != tuned.opening || hand.ending != tuned.ending);
    assert!(fit(&fit_args(&["--fixed", "regions"])).is_err());
    assert!(fit(&fit_args(&["--model", "tempo+hand", "--fixed", "hand"])).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `fit --anchor` pulls the region weights towards the start: the same fit moves them
/// less far from it with the anchor than without.
#[test]
fn an_anchor_keeps_the_regions_near_their_start() {
    let (dir, pos, start) = fit_inputs("anchor");
    let distance = |anchor: &str| -> f64 {
        let out = dir.join(format!("anchor-{anchor}.dxw"));
        let args = small_fit_args(
            &out,
            &start,
            &pos,
            &[
                "--epochs", "3", "--l2", "0", "--anchor", anchor, "--model", "tempo",
            ],
        );
        fit(&args).unwrap();
        let fitted = PatternWeights::load(&out).unwrap();
        fitted
            .tables()
            .iter()
            .zip(PatternWeights::builtin().tables())
            .map(|(a, b)| {
                (f64::from(a[0]) - f64::from(b[0])).powi(2)
                    + (f64::from(a[1]) - f64::from(b[1])).powi(2)
            })
            .sum()
    };
    let free = distance("0");
    let anchored = distance("0.05");
    assert!(free > 0.0, "the free fit moved nothing");
    assert!(anchored < free, "anchored {anchored} against free {free}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `scale` multiplies the region weights alone: by 1 the built-in weights come back
/// byte for byte; by a half every region weight is halved (rounded half away from zero),
/// and the globals and the base are those of the input.
#[test]
fn scaling_touches_the_region_weights_alone() {
    let builtin = PatternWeights::builtin();
    let same = scaled_weights(&builtin, 1.0).unwrap();
    assert_eq!(same.to_bytes(), builtin.to_bytes());
    let half = scaled_weights(&builtin, 0.5).unwrap();
    assert_eq!(half.base(), builtin.base());
    assert_eq!(half.globals(), builtin.globals());
    let halved = |w: i16| (f64::from(w) / 2.0).round() as i16;
    assert!(builtin.tables().iter().any(|&[o, _]| o.abs() > 1));
    for (scaled, original) in half.tables().iter().zip(builtin.tables()) {
        assert_eq!(*scaled, [halved(original[0]), halved(original[1])]);
    }
}

/// Shards of one run play disjoint games.
#[test]
fn shard_seeds_are_disjoint() {
    let seeds = |shard: u64, shards: u64| -> HashSet<u64> {
        (0..100u64).map(|k| mix(1, shard + shards * k)).collect()
    };
    let (a, b) = (seeds(0, 2), seeds(1, 2));
    assert_eq!(a.len(), 100);
    assert!(a.is_disjoint(&b));
}

/// `endings` writes, for each game, its first quiet position within the piece range (a
/// game that never has one gives none), and the file reads back as openings.
#[test]
fn endings_are_the_first_quiet_position_in_range() {
    let (dir, games) = games_file("endings", &[7, 8]);
    let mut engine = small_engine();
    let out = dir.join("endings.fen");
    let args = [
        "--out",
        out.to_str().unwrap(),
        "--pieces",
        "12",
        "--min-pieces",
        "8",
    ];
    let mut args: Vec<String> = args.map(String::from).to_vec();
    args.push(games.display().to_string());
    endings(&args).unwrap();

    let mut expected = Vec::new();
    let mut taken = HashSet::new();
    replay(std::slice::from_ref(&games), |game, _, position, _| {
        let pieces = position.occupied().count();
        if (8..=12).contains(&pieces) && is_quiet(position) && taken.insert(game) {
            expected.push(position.to_fen());
        }
    })
    .unwrap();
    let written = std::fs::read_to_string(&out).unwrap();
    let fens: Vec<&str> = written.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(fens, expected);
    assert!(!fens.is_empty());
    let openings = damx_session::tournament::Opening::read(&written).unwrap();
    assert_eq!(openings.len(), fens.len());

    // With --band, the same positions less those whose searched score, for either side,
    // lies outside the band. The band is drawn between the two positions' scores, so that
    // it keeps the one and drops the other whatever the evaluation's weights.
    let size = |fen: &String| {
        let position: Position = fen.parse().unwrap();
        i32::from(white_search_score(&mut engine, &Pieces::of(&position), 500)).abs()
    };
    let sizes: Vec<i32> = expected.iter().map(size).collect();
    let (low, high) = (*sizes.iter().min().unwrap(), *sizes.iter().max().unwrap());
    assert!(
        low < high,
        "the two games' positions score alike: {sizes:?}"
    );
    let band = format!("{low},{}", high - 1);
    let banded = dir.join("banded.fen");
    let mut band_args: Vec<String> = [
        "--out",
        banded.to_str().unwrap(),
        "--pieces",
        "12",
        "--min-pieces",
        "8",
        "--band",
        band.as_str(),
        "--nodes",
        "500",
        "--threads",
        "1",
    ]
    .map(String::from)
    .to_vec();
    band_args.push(games.display().to_string());
    endings(&band_args).unwrap();
    let kept: Vec<&str> = expected
        .iter()
        .zip(&sizes)
        .filter(|&(_, &size)| size < high)
        .map(|(fen, _)| fen.as_str())
        .collect();
    let written = std::fs::read_to_string(&banded).unwrap();
    let fens: Vec<&str> = written.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(!kept.is_empty() && kept.len() < expected.len());
    assert_eq!(fens, kept);
    assert!(parse_band("50,10").is_err() && parse_band("-5,10").is_err());
    assert_eq!(parse_band("40, 100").unwrap(), (40, 100));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A game is played to its end by the rules and its line replays.
#[test]
fn a_game_is_played_to_the_end() {
    let mut engine = small_engine();
    let (line, plies) = play_one(&mut engine, 7, 200, 4, None).unwrap();
    let fields: Vec<&str> = line.split('\t').collect();
    assert_eq!(fields.len(), 4);
    let mut game = Game::new(Position::from_fen(fields[2]).unwrap());
    for word in fields[3].split_whitespace() {
        let mv = game.position().parse_move(word).unwrap();
        game.play(mv);
    }
    assert_eq!(fields[3].split_whitespace().count(), plies);
    let outcome = game.outcome().expect("the game is over");
    assert_eq!(GameResult::from_outcome(Some(outcome)).as_str(), fields[0]);
}

/// With databases a game ends where the referee's judge by them gives a result; a game
/// that starts outside them is played into them.
#[test]
fn a_game_ends_in_the_databases() {
    let dir = std::env::temp_dir().join(format!("damx-train-egdb-{}", std::process::id()));
    let options = damx_engine::egdb::BuildOptions {
        dir: dir.clone(),
        pieces: 3,
        memory_limit: None,
    };
    damx_engine::egdb::build(&options, &|_| {}).unwrap();
    let egdb = damx_engine::egdb::SharedEgdb::new(Egdb::open(&dir).unwrap());
    let judge = Judge::new(AdjudicationMethod::Egdb {
        egdb: egdb.clone(),
        depth: 0,
        threshold: 0,
    });
    let mut engine = small_engine();

    // Two kings against one, White to move: a draw in the databases, so no move is played.
    let held = Position::from_fen("W:WK1,K2:BK50").unwrap();
    assert_eq!(egdb.probe(&held), Some(damx_engine::egdb::Wdl::Draw));
    let (result, moves) = play_out(&mut engine, Game::new(held), 200, Some(&judge), 1).unwrap();
    assert!(moves.is_empty());
    assert_eq!(result, GameResult::Draw);

    // Four men, no capture pending: played until the databases hold a quiet position,
    // whose value is the result.
    let outside = Position::from_fen("W:W46,47:B36,37").unwrap();
    assert!(egdb.value(&outside).is_none());
    let (result, moves) = play_out(&mut engine, Game::new(outside), 200, Some(&judge), 1).unwrap();
    let mut game = Game::new(outside);
    for word in &moves {
        let mv = game.position().parse_move(word).unwrap();
        game.play(mv);
    }
    let end = *game.position();
    assert!(!moves.is_empty() && end.occupied().count() <= 3);
    let value = egdb.probe(&end).expect("the last position is held");
    let side = end.side_to_move();
    let expected = match value {
        damx_engine::egdb::Wdl::Draw => GameResult::Draw,
        damx_engine::egdb::Wdl::Win if side == Color::White => GameResult::WhiteWins,
        damx_engine::egdb::Wdl::Loss if side == Color::Black => GameResult::WhiteWins,
        _ => GameResult::BlackWins,
    };
    assert_eq!(result, expected);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `fit --model tempo` writes weights of two table sets, both begun at a one-set start; the
/// engine reads them, a fit from them refines both sets, and a fit of one set from them is
/// refused rather than dropping the second.
#[test]
fn tempo_fits_write_two_table_sets() {
    let (dir, pos, _) = fit_inputs("tempo");
    let builtin = PatternWeights::builtin();
    let one_set = PatternWeights::from_parts(
        *builtin.globals(),
        builtin.tables()[..REGIONS * REGION_SIZE].to_vec(),
    )
    .unwrap()
    .on_base(builtin.base());
    let start = dir.join("one-set.dxw");
    std::fs::write(&start, one_set.to_bytes()).unwrap();
    let out = dir.join("tempo.dxw");
    fit(&small_fit_args(
        &out,
        &start,
        &pos,
        &["--epochs", "2", "--model", "tempo"],
    ))
    .unwrap();
    let fitted = PatternWeights::load(&out).unwrap();
    assert_eq!(fitted.sets(), 2);
    let again = dir.join("again.dxw");
    fit(&small_fit_args(
        &again,
        &out,
        &pos,
        &["--epochs", "1", "--model", "tempo"],
    ))
    .unwrap();
    assert_eq!(PatternWeights::load(&again).unwrap().sets(), 2);
    let refused = fit(&small_fit_args(&again, &out, &pos, &["--epochs", "1"]));
    assert!(refused.is_err_and(|error| error.to_string().contains("--model tempo")));
    let _ = std::fs::remove_dir_all(&dir);
}
