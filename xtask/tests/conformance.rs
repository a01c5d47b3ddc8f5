//! Conformance snapshots: every sample message of dxp.md §5 (one fixture each in
//! xtask/conformance/) decodes, re-encodes to the same bytes, and reads as its committed
//! snapshot in tests/snapshots/.
//!
//! Runs in plain `cargo test`, and under `cargo xtask conformance`, which prints a table. CI
//! never writes snapshots: it runs with `CI=true` (and the xtask sets `INSTA_UPDATE=no`), so
//! a missing or changed snapshot fails. To accept a deliberate change, run
//! `INSTA_UPDATE=always cargo test -p xtask --test conformance` and review the diff.

use std::collections::BTreeSet;

use xtask::fixtures;

/// One test per sample, named as its fixture, so that a failure names the sample.
macro_rules! samples {
    ($($name:ident),+ $(,)?) => {
        /// The samples that have a test.
        const SAMPLES: &[&str] = &[$(stringify!($name)),+];
        $(
            #[doc = concat!("The sample `", stringify!($name), ".dxp` conforms.")]
            #[test]
            fn $name() {
                check(stringify!($name));
            }
        )+
    };
}

samples!(
    spec_gamereq,
    spec_gameacc,
    spec_move,
    spec_move_capture,
    spec_gameend,
    spec_chat,
    spec_backreq,
    spec_backacc,
    seen_gamereq_position,
    seen_move_capture_two,
    seen_move_capture_three,
);

/// Decodes the sample, proves that re-encoding gives its bytes, and compares the decoded
/// message with its snapshot.
fn check(name: &str) {
    let fixture = fixtures::load(name).unwrap_or_else(|e| panic!("{e:#}"));
    let message =
        damx_wire::decode(&fixture.bytes).unwrap_or_else(|e| panic!("{name} does not decode: {e}"));
    assert_eq!(
        message.to_bytes(),
        fixture.bytes,
        "{name}: re-encoding gives other bytes"
    );
    insta::assert_snapshot!(name, fixtures::render(&fixture.bytes, &message));
}

/// Every fixture file has a test above, and every committed snapshot belongs to one.
#[test]
fn every_fixture_has_a_test_and_every_snapshot_a_fixture() {
    let tested: BTreeSet<String> = SAMPLES.iter().map(|s| (*s).to_owned()).collect();
    let files: BTreeSet<String> = fixtures::names().unwrap().into_iter().collect();
    assert_eq!(files, tested, "fixture files and tested samples differ");

    let snapshots = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    for entry in std::fs::read_dir(snapshots).unwrap() {
        let file = entry.unwrap().file_name().into_string().unwrap();
        if let Some(sample) = file
            .strip_prefix("conformance__")
            .and_then(|f| f.strip_suffix(".snap"))
        {
            assert!(tested.contains(sample), "snapshot {file} has no fixture");
        }
    }
}

/// The fixtures are the eleven vectors of dxp.md §5, byte for byte: this list guards them
/// against an accidental edit (a lost blank in a name, an added newline).
#[test]
fn the_fixtures_are_the_spec_vectors() {
    let expected: &[(&str, &[u8])] = &[
        (
            "spec_gamereq",
            b"R01Tornado voor Windows 4.0        W060065A",
        ),
        ("spec_gameacc", b"ATornado voor Windows 4.0        0"),
        ("spec_move", b"M0012061100"),
        ("spec_move_capture", b"M001205250422122320"),
        ("spec_gameend", b"E00"),
        ("spec_chat", b"CWhat do you think about move 35?"),
        ("spec_backreq", b"B005Z"),
        ("spec_backacc", b"K1"),
        (
            "seen_gamereq_position",
            b"R01Tornado voor Windows 4.0        W060065BW\
              zzzzzzzzzzzzzzzzzzzzeeeeeeeeeewwwwwwwwwwwwwwwwwwww",
        ),
        ("seen_move_capture_two", b"M00003313021828"),
        ("seen_move_capture_three", b"M0000380703122333"),
    ];
    for (name, bytes) in expected {
        assert_eq!(fixtures::load(name).unwrap().bytes, *bytes, "{name}");
    }
    assert_eq!(fixtures::names().unwrap().len(), expected.len());
}
