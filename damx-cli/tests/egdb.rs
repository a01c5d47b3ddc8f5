//! `damx egdb` end to end with the real binary: build a small set, show it, probe it, verify
//! it, damage it, and the refusals; `damx match --adjudicate egdb`.

mod common;
use common::Expect::{Has, Is, Ours};
use common::{TempDir, run};

/// The commands end to end: what they print and where, and their exit codes (what the
/// databases hold and the reports' words: damx-engine's tests).
#[test]
fn build_info_probe_verify_and_a_damaged_file() {
    let dir = TempDir::new("egdb-set");
    let set = dir.path("set");
    let egdb = |line: &str| format!("{line} --egdb {set}");
    let built = ["KK-K ", "16 slices built, 0 kept"];
    run(&egdb("egdb build --pieces 3"), 0, Has(&built), Is(""));
    let complete = ["complete up to 3 pieces"];
    run(&egdb("egdb info"), 0, Has(&complete), Is(""));
    let probe = egdb("egdb probe W:WK46:BK5");
    run(&probe, 0, Has(&["then black to move: win"]), Is(""));
    // Too many pieces: unknown, with the reason on standard error.
    let probe = egdb("egdb probe startpos");
    run(&probe, 0, Has(&["unknown"]), Has(&["40 pieces"]));
    run(&egdb("egdb verify"), 0, Has(&[]), Is(""));

    // A corrupt file is named and skipped, verify fails, a build repairs it.
    let file = dir.0.join("set").join("KK-K.egdb");
    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(&file, bytes).unwrap();
    let skipped = Ours(&["KK-K.egdb", "checksum"]);
    run(&egdb("egdb info"), 0, Has(&[]), skipped);
    run(&egdb("egdb verify"), 1, Has(&[]), Has(&[]));
    let repaired = ["1 slices built, 15 kept"];
    let again = Has(&["building KK-K again"]);
    run(&egdb("egdb build --pieces 3"), 0, Has(&repaired), again);

    // The engine uses them, and plays on without them.
    let analyse = egdb("analyse W:WK1,K2:BK50 --depth 3");
    run(&analyse, 0, Has(&["score 0.00"]), Has(&[]));
    let missing = "analyse W:WK1,K2:BK50 --depth 3 --egdb /nonexistent/x";
    run(missing, 0, Has(&[]), Has(&["/nonexistent/x"]));
}

/// A build that needs more memory than the machine has is refused with the estimate (2), and
/// so is one of more pieces than the databases hold.
#[test]
fn a_build_beyond_the_memory_is_refused_with_the_estimate() {
    let dir = TempDir::new("egdb-huge");
    if std::path::Path::new("/proc/meminfo").exists() {
        let huge = format!("egdb build --pieces 7 --dir {}", dir.path("huge"));
        run(&huge, 2, Is(""), Has(&["MiB of memory"]));
    }
    run("egdb build --pieces 8", 2, Is(""), Has(&[]));
    // A file where the directory should be.
    let file = dir.file("a-file", "");
    let says = ["cannot create directory", "a file of that name is there"];
    run(
        &format!("egdb build --pieces 2 --dir {file}"),
        3,
        Is(""),
        Has(&says),
    );
}

/// `damx match --adjudicate egdb`: games that reach a quiet position within the databases end
/// there with the reason `egdb`, which the results file keeps and `--resume` reads back
/// (the verdict and the words: damx-session's tests); without databases the option is
/// refused, saying why and what to do.
#[test]
fn a_match_adjudicated_by_the_databases_and_resumed() {
    let dir = TempDir::new("egdb-match");
    let set = dir.path("set");
    run(
        &format!("egdb build --pieces 3 --dir {set}"),
        0,
        Has(&[]),
        Is(""),
    );
    // Four pieces and a forced capture into three: white wins by the databases.
    let openings = dir.file("openings.txt", "W:W28,40:B23,5\n");
    let results = dir.path("results.txt");
    let players = "match --engine builtin,depth=2 --engine builtin,depth=2 --adjudicate egdb";
    let series = format!(
        "{players} --minutes 0 --games 2 --concurrency 1 --adjudicate-egdb {set} \
         --openings {openings} --results {results}"
    );
    let ended = "games ended by: egdb 2";
    let output = run(&series, 0, Has(&[ended]), Has(&[]));
    let verdict = "2-0 egdb endgame database: loss (6 plies to conversion) for black";
    assert_eq!(common::stdout(&output).matches(verdict).count(), 2);
    let file = std::fs::read_to_string(&results).unwrap();
    assert_eq!(file.matches("\"reason\":\"egdb\"").count(), 2, "{file}");
    let resumed = ["RESUMED 1 2-0 egdb", "RESUMED 2 2-0 egdb", ended];
    run(&format!("{series} --resume"), 0, Has(&resumed), Has(&[]));

    let empty = dir.path("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let refused = Ours(&["--adjudicate egdb: ", "damx egdb build --pieces 4"]);
    for missing in [empty.as_str(), "/nonexistent/damx-egdb"] {
        let line = format!("{players} --adjudicate-egdb {missing}");
        run(&line, 1, Is(""), refused);
    }
    let tournament =
        "tournament --engine builtin,depth=2 --engine builtin,depth=2 --adjudicate egdb";
    run(tournament, 1, Is(""), refused);
}
