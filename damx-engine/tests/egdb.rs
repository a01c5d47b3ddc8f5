//! The endgame databases end to end: a build of the 2–4-piece slices into a temporary
//! directory, verified position by position, classical results of the game, resumed builds and
//! damaged files.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use damx_engine::egdb::{self, BuildOptions, Egdb, Material, ProblemKind, Unknown, Wdl};
use damx_rules::Position;

/// The pieces the shared build covers (`DAMX_EGDB_TEST_PIECES` lowers it for quick runs).
fn pieces() -> u32 {
    std::env::var("DAMX_EGDB_TEST_PIECES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4)
}

/// An empty directory `name` for this test process, under the build's scratch directory
/// (`target/tmp`, so that `cargo clean` removes it).
///
/// The directories of a process outlive it (the shared build is in use until the last test
/// ends, and nothing runs after that), so each process holds a lock on its own while it runs
/// and removes those of earlier runs that no process holds any more.
fn scratch(name: &str) -> PathBuf {
    static OWN: OnceLock<(PathBuf, File)> = OnceLock::new();
    let (own, _lock) = OWN.get_or_init(|| {
        let runs = Path::new(env!("CARGO_TARGET_TMPDIR")).join("egdb-tests");
        for run in std::fs::read_dir(&runs).into_iter().flatten().flatten() {
            let lock = File::open(run.path().join("lock"));
            if lock.is_ok_and(|lock| lock.try_lock().is_ok()) {
                let _ = std::fs::remove_dir_all(run.path());
            }
        }
        let own = runs.join(std::process::id().to_string());
        std::fs::create_dir_all(&own).unwrap();
        // Locked before it takes its name, so that no other run sees it unlocked.
        let lock = File::create(own.join("lock.new")).unwrap();
        lock.lock().unwrap();
        std::fs::rename(own.join("lock.new"), own.join("lock")).unwrap();
        (own, lock)
    });
    let dir = own.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The 2–N-piece set, built once for all tests of this file.
fn built() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        // A set built before (by `damx egdb build`) can stand in for the build, by hand.
        if let Some(dir) = std::env::var_os("DAMX_EGDB_TEST_DIR") {
            return PathBuf::from(dir);
        }
        let dir = scratch("shared");
        let start = Instant::now();
        let report = egdb::build(
            &BuildOptions {
                dir: dir.clone(),
                pieces: pieces(),
                memory_limit: None,
            },
            &|_| {},
        )
        .expect("the build succeeds");
        eprintln!(
            "built {} slices of 2-{} pieces in {:.1} s, {} bytes",
            report.built.len(),
            pieces(),
            start.elapsed().as_secs_f64(),
            report.bytes
        );
        assert_eq!(report.built.len(), Material::all(2, pieces()).len());
        dir
    })
}

fn egdb() -> &'static Egdb {
    static EGDB: OnceLock<Egdb> = OnceLock::new();
    EGDB.get_or_init(|| {
        let egdb = Egdb::open(built()).unwrap();
        assert!(egdb.problems().is_empty(), "{:?}", egdb.problems());
        egdb
    })
}

fn probe(fen: &str) -> Option<Wdl> {
    let position: Position = fen.parse().unwrap();
    egdb().probe(&position)
}

/// Every position of the 2-3-piece slices and every 13th of the 4-piece ones (the whole set:
/// `damx egdb verify`, or `DAMX_EGDB_VERIFY_ALL=1`).
#[test]
fn every_stored_value_follows_from_its_successors() {
    let every = if std::env::var_os("DAMX_EGDB_VERIFY_ALL").is_some() {
        1
    } else {
        13
    };
    let report = egdb::verify(built(), None, every, &|_| {}).unwrap();
    assert!(report.is_ok(), "{:?}", report.examples);
    assert_eq!(report.slices, Material::all(2, pieces()).len());
    assert!(report.checked > 1_000);
}

#[test]
fn king_against_king_and_two_kings_against_one_are_draws() {
    // A lone king cannot be caught by one or two kings in general.
    assert_eq!(probe("W:WK1:BK50"), Some(Wdl::Draw));
    assert_eq!(probe("B:WK1:BK50"), Some(Wdl::Draw));
    assert_eq!(probe("W:WK1,K2:BK50"), Some(Wdl::Draw));
    assert_eq!(probe("B:WK1,K2:BK50"), Some(Wdl::Draw));
    // But a king shut in a corner of the long diagonal, with the other king on it, must step
    // onto it and be taken, whoever moves.
    assert_eq!(probe("W:WK46:BK5"), Some(Wdl::Loss));
    assert_eq!(probe("B:WK46:BK5"), Some(Wdl::Loss));
    // Most of the two-kings-against-one slice is drawn.
    let egdb = egdb();
    let material: Material = "KK-K".parse().unwrap();
    let mut counts = [0u64; 3];
    for index in 0..material.positions() {
        if let Some(position) = material.position(index)
            && let Some(wdl) = egdb.probe(&position)
        {
            counts[wdl as usize] += 1;
        }
    }
    assert!(
        counts[Wdl::Draw as usize] > 10 * counts[Wdl::Win as usize],
        "{counts:?}"
    );
}

/// Counts the values of the quiet positions of `KKK-K` or `KKKK-K` with White (the strong side)
/// to move, by where the lone king stands: `[on the long diagonal][loss, draw, win]`.
fn lone_king_counts(egdb: &Egdb, material: Material) -> [[u64; 3]; 2] {
    let diagonal = [5u8, 10, 14, 19, 23, 28, 32, 37, 41, 46];
    let mut counts = [[0u64; 3]; 2];
    for index in 0..material.boards() {
        let Some(position) = material.position(index) else {
            continue;
        };
        let lone = position
            .kings(damx_rules::Color::Black)
            .first()
            .unwrap()
            .number();
        if let Some(wdl) = egdb.probe(&position) {
            counts[usize::from(diagonal.contains(&lone))][wdl as usize] += 1;
        }
    }
    counts
}

#[test]
fn three_kings_against_one_are_a_draw_in_general() {
    if pieces() < 4 {
        return;
    }
    // Unlike 8x8 draughts, owning the long diagonal does not win: with flying kings on 10x10
    // only positions with a trick win (the 16-move rule exists for these).
    assert_eq!(probe("W:WK1,K2,K3:BK46"), Some(Wdl::Draw));
    assert_eq!(probe("W:WK16,K45,K46:BK3"), Some(Wdl::Draw));
    assert_eq!(probe("W:WK1,K2,K3:BK36"), Some(Wdl::Draw));
    // A trick: the lone king on the edge is shut in.
    let value = egdb()
        .probe_value(&"W:WK1,K2,K3:BK35".parse().unwrap())
        .unwrap();
    assert_eq!((value.wdl, value.plies), (Wdl::Win, Some(4)));
    let counts = lone_king_counts(egdb(), "KKK-K".parse().unwrap());
    let [on, off] = [counts[1], counts[0]];
    assert_eq!(on[Wdl::Loss as usize] + off[Wdl::Loss as usize], 0);
    assert!(
        on[Wdl::Draw as usize] > 3 * on[Wdl::Win as usize],
        "{counts:?}"
    );
    assert!(
        off[Wdl::Draw as usize] > 2 * off[Wdl::Win as usize],
        "{counts:?}"
    );
}

/// Four kings against one: a win, wherever the lone king stands (the long diagonal included).
/// Needs the five-piece kings-only slices: `DAMX_EGDB_TEST_DIR=DIR cargo test -- --ignored`
/// on a directory where `damx egdb build --pieces 5` has built at least them (they come first).
#[test]
#[ignore = "needs the five-piece slices (by hand, with DAMX_EGDB_TEST_DIR)"]
fn four_kings_beat_one() {
    let egdb = egdb();
    let material: Material = "KKKK-K".parse().unwrap();
    assert!(egdb.has(material), "build 5 pieces first");
    assert_eq!(probe("W:WK1,K2,K3,K4:BK46"), Some(Wdl::Win));
    assert_eq!(probe("W:WK1,K2,K3,K4:BK36"), Some(Wdl::Win));
    let counts = lone_king_counts(egdb, material);
    eprintln!("KKKK-K, White to move, [lone king off / on the long diagonal][L, D, W]: {counts:?}");
    for class in counts {
        assert!(
            class[Wdl::Win as usize] > 100 * class[Wdl::Draw as usize],
            "{counts:?}"
        );
    }
}

#[test]
fn man_endings() {
    // King and man against king: a draw in general.
    assert_eq!(probe("W:WK1,36:BK50"), Some(Wdl::Draw));
    // Two men racing to crown: both crown, king against king.
    assert_eq!(probe("W:W6:B45"), Some(Wdl::Draw));
    // A man taken at once: the capture is pending, so probe does not answer, value does.
    let position: Position = "W:W28:B23".parse().unwrap();
    assert_eq!(egdb().probe(&position), None);
    assert_eq!(egdb().value(&position).map(|v| v.wdl), Some(Wdl::Win));
    if pieces() >= 4 {
        // A man with no move (both steps blocked, no capture) loses on the spot.
        let stuck: Position = "B:W6,7,12:B1".parse().unwrap();
        assert!(stuck.legal_moves().is_empty());
        let value = egdb().probe_value(&stuck).unwrap();
        assert_eq!((value.wdl, value.plies), (Wdl::Loss, Some(0)));
    }
}

#[test]
fn probes_outside_the_database_answer_none() {
    // Too many pieces.
    assert_eq!(egdb().probe(&Position::initial()), None);
    // A capture is pending: the search resolves it, the probe does not answer.
    assert_eq!(probe("W:WK46:BK41"), None);
    // But the value resolves captures.
    let position: Position = "W:WK46:BK41".parse().unwrap();
    assert_eq!(egdb().value(&position).map(|v| v.wdl), Some(Wdl::Win));
}

/// A build, and the text of each of its events.
fn build_saying(options: &BuildOptions) -> (egdb::BuildReport, Vec<String>) {
    let events = Mutex::new(Vec::new());
    let report = egdb::build(options, &|event| {
        events.lock().unwrap().push(event.to_string())
    });
    (report.unwrap(), events.into_inner().unwrap())
}

#[test]
fn a_finished_slice_is_not_built_again_and_a_damaged_one_is() {
    let dir = scratch("resume");
    let options = BuildOptions {
        dir: dir.clone(),
        pieces: 3,
        memory_limit: None,
    };
    let (first, events) = build_saying(&options);
    assert_eq!(first.built.len(), Material::all(2, 3).len());
    assert!(first.to_string().contains("16 slices built, 0 kept"));
    assert!(events.iter().any(|e| e.starts_with("KK-K     built in ")));
    let (again, events) = build_saying(&options);
    assert!(again.built.is_empty());
    assert_eq!(again.kept.len(), first.built.len());
    assert!(again.to_string().contains("0 slices built, 16 kept"));
    assert!(events.contains(&"KK-K     kept".to_owned()), "{events:?}");

    // Damage three files: truncated, corrupt, emptied. And leave a half-written one.
    let name = |m: &str| dir.join(format!("{m}.egdb"));
    let bytes = std::fs::read(name("KK-K")).unwrap();
    std::fs::write(name("KK-K"), &bytes[..bytes.len() / 2]).unwrap();
    let mut bytes = std::fs::read(name("KM-K")).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    std::fs::write(name("KM-K"), &bytes).unwrap();
    std::fs::write(name("K-KK"), b"").unwrap();
    std::fs::write(dir.join("K-M.egdb.tmp"), b"half").unwrap();
    std::fs::write(dir.join("XYZ.egdb"), b"stray").unwrap();

    let egdb = Egdb::open(&dir).unwrap();
    let reported: Vec<String> = egdb.problems().iter().map(|p| p.to_string()).collect();
    assert_eq!(egdb.problems().len(), 4, "{reported:?}");
    for (file, kind) in [
        ("KK-K.egdb", "truncated"),
        ("KM-K.egdb", "checksum"),
        ("K-KK.egdb", "truncated"),
        ("XYZ.egdb", "slice name"),
    ] {
        assert!(
            reported
                .iter()
                .any(|r| r.contains(file) && r.contains(kind)),
            "{file}: {reported:?}"
        );
    }
    assert!(matches!(
        egdb.problems()[0].kind,
        ProblemKind::Format(_) | ProblemKind::Name
    ));
    // Skipped slices answer nothing; the others still answer.
    assert_eq!(egdb.probe(&"W:WK1,K2:BK50".parse().unwrap()), None);
    assert_eq!(egdb.probe(&"W:WK1:BK50".parse().unwrap()), Some(Wdl::Draw));
    assert_eq!(egdb.missing(3).len(), 3);
    // The slices that lead into the damaged ones cannot be checked, and are not called wrong.
    let verified = egdb::verify(&dir, None, 1, &|_| {}).unwrap();
    assert_eq!(verified.wrong, 0, "{verified}: {:?}", verified.examples);
    assert!(verified.unverifiable > 0, "{verified}");
    assert_eq!(verified.problems.len(), 4, "{verified}");
    assert!(!verified.is_ok());

    // A fourth: a block that does not decode, under a checksum that matches (a file written
    // wrong, not damaged since). A build must not keep it: the slices built on it read it all.
    let mut bytes = std::fs::read(name("M-K")).unwrap();
    let blocks = u32::from_le_bytes(bytes[32..36].try_into().unwrap()) as usize;
    bytes[36 + 8 * (blocks + 1)] = 7; // the first block's mode byte
    let body = bytes.len() - 8;
    let checksum = bytes[..body]
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |hash, &byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
        });
    bytes[body..].copy_from_slice(&checksum.to_le_bytes());
    std::fs::write(name("M-K"), &bytes).unwrap();

    std::fs::remove_file(dir.join("XYZ.egdb")).unwrap();
    let (repaired, events) = build_saying(&options);
    assert!(
        repaired.to_string().contains("4 slices built, 12 kept"),
        "{repaired}"
    );
    assert!(events.iter().any(|e| e.ends_with("building KK-K again")));
    assert!(
        events
            .iter()
            .any(|e| e.contains("M-K.egdb") && e.contains("does not decode")),
        "{events:?}"
    );
    let mut rebuilt: Vec<String> = repaired.built.iter().map(|m| m.to_string()).collect();
    rebuilt.sort();
    assert_eq!(rebuilt, ["K-KK", "KK-K", "KM-K", "M-K"]);
    let egdb = Egdb::open(&dir).unwrap();
    assert!(egdb.problems().is_empty());
    assert!(egdb.missing(3).is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a front end shows: the summary, a probe with its moves, an unknown position and why,
/// and a verification.
#[test]
fn the_reports_say_what_the_databases_hold() {
    let (egdb, summary) = Egdb::open_summary(built()).unwrap();
    let complete = egdb.stats().complete_pieces;
    let text = summary.to_string();
    assert!(
        text.contains(&format!("complete up to {complete} pieces")),
        "{text}"
    );
    assert!(text.contains("\nprobe "), "{text}");
    assert_eq!(summary.pieces[0].slices, Material::all(2, 2).len());
    let text = egdb.report(&"W:WK46:BK5".parse().unwrap()).to_string();
    assert!(text.contains("white to move: loss"), "{text}");
    assert!(text.contains("then black to move: win"), "{text}");
    let report = egdb.report(&Position::initial());
    assert!(report.value.is_none() && report.moves.is_empty());
    assert!(report.to_string().ends_with("white to move: unknown"));
    let max = egdb.max_pieces();
    assert_eq!(
        report.unknown,
        Some(Unknown::TooManyPieces { pieces: 40, max })
    );
    let why = report.unknown.unwrap().to_string();
    assert_eq!(
        why,
        format!("the position has 40 pieces, the databases at most {max}")
    );

    let lines = Mutex::new(Vec::new());
    let observer = |event: egdb::VerifyEvent| lines.lock().unwrap().push(event.to_string());
    let verified = egdb::verify(built(), Some(2), 1, &observer).unwrap();
    assert!(
        verified
            .to_string()
            .ends_with(" 0 wrong, 0 not verifiable, 0 files unusable"),
        "{verified}"
    );
    let lines = lines.into_inner().unwrap();
    assert_eq!(lines.len(), 2 * Material::all(2, 2).len());
    assert!(lines.contains(&"verifying K-K".to_owned()), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with("positions checked, all correct"))
    );
}

#[test]
fn a_missing_directory_is_an_error() {
    let error = Egdb::open("/nonexistent/damx/egdb").unwrap_err();
    assert!(
        error.to_string().contains("/nonexistent/damx/egdb"),
        "{error}"
    );
}

/// The engine with the databases converts a won database position into a won game, within
/// the 16-move rule, against itself defending with the same databases.
#[test]
fn the_engine_wins_a_won_ending_with_the_databases() {
    use damx_engine::{Engine, EngineOptions, Limits, StopSignal};
    use damx_rules::{Game, Outcome};

    if pieces() < 4 {
        return;
    }
    let egdb = Egdb::open(built()).unwrap();
    let material: Material = "KKM-K".parse().unwrap();
    // A quiet position, White to move, won with a long way to the next conversion.
    let start = (0..material.boards())
        .step_by(97)
        .filter_map(|index| material.position(index))
        .find(|position| {
            egdb.probe_value(position)
                .is_some_and(|v| v.wdl == Wdl::Win && v.plies.is_some_and(|p| p >= 11))
        })
        .expect("a long win exists");
    let shared = egdb::SharedEgdb::new(egdb);
    let mut engine = Engine::new(EngineOptions {
        hash_mb: 4,
        egdb: Some(shared.clone()),
        ..EngineOptions::default()
    });
    let mut game = Game::new(start);
    while game.outcome().is_none() && game.ply() < 200 {
        let before = *game.position();
        let result = engine.search(&game, &Limits::depth(4), &StopSignal::new(), &mut |_| {});
        let mv = result.best_move.expect("a move");
        // The move keeps the database value.
        let after = before.play(&mv);
        if let (Some(was), Some(now)) = (shared.value(&before), shared.value(&after)) {
            assert_eq!(now.wdl, was.wdl.flip(), "{before}: {mv}");
        }
        game.play(mv);
    }
    assert!(
        matches!(
            game.outcome(),
            Some(Outcome::Win {
                winner: damx_rules::Color::White,
                ..
            })
        ),
        "from {start}: {:?} after {} plies",
        game.outcome(),
        game.ply()
    );
}
