//! `damx egdb` end to end with the real binary: build a small set, show it, probe it, verify
//! it, damage it, and the refusals.

use std::path::PathBuf;
mod common;
use common::{damx, damx_line};

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("damx-cli-egdb-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The commands end to end: what they print and where, and their exit codes (what the
/// databases hold and the reports' words: damx-engine's tests).
#[test]
fn build_info_probe_verify_and_a_damaged_file() {
    let dir = scratch("set");
    let dir_text = dir.to_str().unwrap();
    let built = damx_line(&format!("egdb build --pieces 3 --dir {dir_text}"));
    assert_eq!(built.status.code(), Some(0), "{}", text(&built.stderr));
    let out = text(&built.stdout);
    assert!(
        out.contains("KK-K ") && out.contains("16 slices built, 0 kept"),
        "{out}"
    );

    let info = damx_line(&format!("egdb info --egdb {dir_text}"));
    assert!(text(&info.stdout).contains("complete up to 3 pieces"));
    let probe = damx_line(&format!("egdb probe W:WK46:BK5 --egdb {dir_text}"));
    assert!(text(&probe.stdout).contains("then black to move: win"));
    // Too many pieces: unknown, with the reason on standard error.
    let probe = damx_line(&format!("egdb probe startpos --egdb {dir_text}"));
    assert_eq!(probe.status.code(), Some(0));
    assert!(text(&probe.stdout).contains("unknown"));
    assert!(text(&probe.stderr).contains("40 pieces"));
    let verify = damx_line(&format!("egdb verify --egdb {dir_text}"));
    assert_eq!(verify.status.code(), Some(0), "{}", text(&verify.stderr));

    // A corrupt file is named and skipped, verify fails, a build repairs it.
    let file = dir.join("KK-K.egdb");
    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(&file, bytes).unwrap();
    let info = damx_line(&format!("egdb info --egdb {dir_text}"));
    assert_eq!(info.status.code(), Some(0));
    let err = text(&info.stderr);
    assert!(
        err.contains("KK-K.egdb") && err.contains("checksum"),
        "{err}"
    );
    let verify = damx_line(&format!("egdb verify --egdb {dir_text}"));
    assert_eq!(verify.status.code(), Some(1));
    let repaired = damx_line(&format!("egdb build --pieces 3 --egdb {dir_text}"));
    assert!(text(&repaired.stdout).contains("1 slices built, 15 kept"));
    assert!(text(&repaired.stderr).contains("building KK-K again"));

    // The engine uses them, and plays on without them.
    let analyse = damx_line(&format!(
        "analyse W:WK1,K2:BK50 --depth 3 --egdb {dir_text}"
    ));
    assert_eq!(analyse.status.code(), Some(0));
    assert!(
        text(&analyse.stdout).contains("score 0.00"),
        "{}",
        text(&analyse.stdout)
    );
    let missing = damx_line("analyse W:WK1,K2:BK50 --depth 3 --egdb /nonexistent/x");
    assert_eq!(missing.status.code(), Some(0));
    assert!(text(&missing.stderr).contains("/nonexistent/x"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_build_beyond_the_memory_is_refused_with_the_estimate() {
    let dir = scratch("huge");
    let refused = damx(&[
        "egdb",
        "build",
        "--pieces",
        "7",
        "--dir",
        dir.to_str().unwrap(),
    ]);
    if std::path::Path::new("/proc/meminfo").exists() {
        assert_eq!(refused.status.code(), Some(2));
        let err = text(&refused.stderr);
        assert!(err.contains("MiB of memory"), "{err}");
    }
    let too_many = damx_line("egdb build --pieces 8");
    assert_eq!(too_many.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `damx match --adjudicate egdb`: games that reach a quiet position within the databases end
/// there with the reason `egdb`, which the results file keeps and `--resume` reads back;
/// without databases the option is refused.
#[test]
fn a_match_adjudicated_by_the_databases_and_resumed() {
    let dir = scratch("match");
    let dir_text = dir.to_str().unwrap();
    let built = damx_line(&format!("egdb build --pieces 3 --dir {dir_text}"));
    assert_eq!(built.status.code(), Some(0), "{}", text(&built.stderr));
    // Four pieces and a forced capture into three: white wins by the databases.
    let openings = dir.join("openings.txt");
    std::fs::write(&openings, "W:W28,40:B23,5\n").unwrap();
    let results = dir.join("results.txt");
    let run = |extra: &str| {
        damx_line(&format!(
            "match --engine builtin,depth=2 --engine builtin,depth=2 --minutes 0 --games 2 \
             --concurrency 1 --adjudicate egdb --adjudicate-egdb {dir_text} --openings {} \
             --results {} {extra}",
            openings.display(),
            results.display()
        ))
    };
    let played = run("");
    assert_eq!(played.status.code(), Some(0), "{}", text(&played.stderr));
    let out = text(&played.stdout);
    assert_eq!(
        out.matches("2-0 egdb endgame database: loss (6 plies to conversion) for black")
            .count(),
        2,
        "{out}"
    );
    assert!(out.contains("games ended by: egdb 2"), "{out}");
    let file = std::fs::read_to_string(&results).unwrap();
    assert_eq!(file.matches("\"reason\":\"egdb\"").count(), 2, "{file}");

    let resumed = run("--resume");
    assert_eq!(resumed.status.code(), Some(0), "{}", text(&resumed.stderr));
    let out = text(&resumed.stdout);
    assert!(out.contains("RESUMED 1 2-0 egdb"), "{out}");
    assert!(out.contains("RESUMED 2 2-0 egdb"), "{out}");
    assert!(out.contains("games ended by: egdb 2"), "{out}");

    // Without databases: refused, saying why and what to do.
    let empty = scratch("match-empty");
    std::fs::create_dir_all(&empty).unwrap();
    for missing in [empty.to_str().unwrap(), "/nonexistent/damx-egdb"] {
        let refused = damx_line(&format!(
            "match --engine builtin,depth=2 --engine builtin,depth=2 --adjudicate egdb --adjudicate-egdb {missing}"
        ));
        assert_eq!(refused.status.code(), Some(1), "{missing}");
        let err = text(&refused.stderr);
        assert!(err.contains("--adjudicate egdb: "), "{err}");
        assert!(err.contains("damx egdb build --pieces 4"), "{err}");
    }
    let refused =
        damx_line("tournament --engine builtin,depth=2 --engine builtin,depth=2 --adjudicate egdb");
    assert_ne!(refused.status.code(), Some(0));
    assert!(text(&refused.stderr).contains("--adjudicate egdb: "));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&empty);
}
