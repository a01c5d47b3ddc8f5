//! `damx egdb` end to end with the real binary: build a small set, show it, probe it, verify
//! it, damage it, and the refusals.

use std::path::PathBuf;
use std::process::{Command, Output};

fn damx(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_damx"))
        .args(args)
        // No databases from the user's cache directory.
        .env("DAMX_EGDB", "/nonexistent/damx-egdb")
        .output()
        .expect("damx runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("damx-cli-egdb-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn build_info_probe_verify_and_a_damaged_file() {
    let dir = scratch("set");
    let dir_text = dir.to_str().unwrap();
    let built = damx(&["egdb", "build", "--pieces", "3", "--dir", dir_text]);
    assert_eq!(built.status.code(), Some(0), "{}", text(&built.stderr));
    let out = text(&built.stdout);
    assert!(out.contains("KK-K "), "{out}");
    assert!(out.contains("16 slices built, 0 kept"), "{out}");

    // A second build keeps everything.
    let again = damx(&["egdb", "build", "--pieces", "3", "--egdb", dir_text]);
    assert!(text(&again.stdout).contains("0 slices built, 16 kept"));

    let info = damx(&["egdb", "info", "--egdb", dir_text]);
    let out = text(&info.stdout);
    assert!(out.contains("complete up to 3 pieces"), "{out}");
    assert!(out.contains("probe "), "{out}");

    // The value of a position and of each move.
    let probe = damx(&["egdb", "probe", "W:WK46:BK5", "--egdb", dir_text]);
    let out = text(&probe.stdout);
    assert!(out.contains("white to move: loss"), "{out}");
    assert!(out.contains("then black to move: win"), "{out}");
    // Too many pieces: unknown, with the reason.
    let probe = damx(&["egdb", "probe", "startpos", "--egdb", dir_text]);
    assert_eq!(probe.status.code(), Some(0));
    assert!(text(&probe.stdout).contains("unknown"));
    assert!(text(&probe.stderr).contains("40 pieces"));

    let verify = damx(&["egdb", "verify", "--egdb", dir_text]);
    assert_eq!(verify.status.code(), Some(0), "{}", text(&verify.stderr));
    assert!(text(&verify.stdout).contains("0 wrong, 0 files unusable"));

    // A corrupt file is named and skipped, verify fails, a build repairs it.
    let file = dir.join("KK-K.egdb");
    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(&file, bytes).unwrap();
    let info = damx(&["egdb", "info", "--egdb", dir_text]);
    assert_eq!(info.status.code(), Some(0));
    let err = text(&info.stderr);
    assert!(
        err.contains("KK-K.egdb") && err.contains("checksum"),
        "{err}"
    );
    let verify = damx(&["egdb", "verify", "--egdb", dir_text]);
    assert_eq!(verify.status.code(), Some(1));
    let probe = damx(&["egdb", "probe", "W:WK1,K2:BK50", "--egdb", dir_text]);
    assert!(text(&probe.stdout).contains("unknown"));
    let repaired = damx(&["egdb", "build", "--pieces", "3", "--egdb", dir_text]);
    assert!(text(&repaired.stdout).contains("1 slices built, 15 kept"));
    assert!(text(&repaired.stderr).contains("building KK-K again"));

    // The engine uses them, and plays on without them.
    let analyse = damx(&[
        "analyse",
        "W:WK1,K2:BK50",
        "--depth",
        "3",
        "--egdb",
        dir_text,
    ]);
    assert_eq!(analyse.status.code(), Some(0));
    assert!(
        text(&analyse.stdout).contains("score 0.00"),
        "{}",
        text(&analyse.stdout)
    );
    let missing = damx(&[
        "analyse",
        "W:WK1,K2:BK50",
        "--depth",
        "3",
        "--egdb",
        "/nonexistent/x",
    ]);
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
    let too_many = damx(&["egdb", "build", "--pieces", "8"]);
    assert_eq!(too_many.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}
