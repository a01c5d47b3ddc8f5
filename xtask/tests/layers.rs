//! Keeps the crate layering of ARCHITECTURE.md checkable: each library crate may depend only on
//! the damx crates below it. The test reads the manifests, so a new dependency edge that breaks
//! the direction fails here before it can spread.

use std::collections::BTreeSet;
use std::path::Path;

/// Which damx crates each crate may depend on (normal, dev and build dependencies alike).
const ALLOWED: &[(&str, &[&str])] = &[
    ("damx-wire", &[]),
    ("damx-rules", &[]),
    ("damx-engine", &["damx-rules"]),
    ("damx-session", &["damx-wire", "damx-rules", "damx-engine"]),
    (
        "damx-cli",
        &["damx-wire", "damx-rules", "damx-engine", "damx-session"],
    ),
];

/// The damx crates named in any dependency table of a manifest.
fn damx_dependencies(manifest: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut in_dependency_table = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            let table = line.trim_matches(|c| c == '[' || c == ']');
            in_dependency_table = table.ends_with("dependencies")
                || table.contains("dependencies.")
                || table.starts_with("target.");
            // A `[dependencies.damx-x]` table names the dependency in its header.
            if let Some(name) = table.rsplit('.').next().filter(|n| n.starts_with("damx-")) {
                found.insert(name.to_string());
            }
            continue;
        }
        if in_dependency_table {
            let key = line.split(['=', '.', ' ']).next().unwrap_or("");
            if key.starts_with("damx-") {
                found.insert(key.to_string());
            }
        }
    }
    found
}

#[test]
fn library_crates_depend_only_downwards() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (krate, allowed) in ALLOWED {
        let path = root.join(krate).join("Cargo.toml");
        let manifest = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        for dependency in damx_dependencies(&manifest) {
            assert!(
                allowed.contains(&dependency.as_str()),
                "{krate} depends on {dependency}, which breaks the layering in ARCHITECTURE.md"
            );
        }
    }
}

#[test]
fn wire_and_rules_are_independent_and_engine_knows_no_dxp() {
    // The same rule as above, stated for the edges that matter most, so that a careless edit of
    // ALLOWED cannot quietly open them.
    for (krate, forbidden) in [
        ("damx-wire", "damx-rules"),
        ("damx-rules", "damx-wire"),
        ("damx-engine", "damx-wire"),
        ("damx-engine", "damx-session"),
    ] {
        let allowed = ALLOWED.iter().find(|(k, _)| *k == krate).map(|(_, a)| *a);
        assert!(
            !allowed.unwrap_or(&[]).contains(&forbidden),
            "{krate} must never depend on {forbidden}"
        );
    }
}

#[test]
fn the_parser_sees_every_way_to_write_a_dependency() {
    let manifest = r#"
[package]
name = "damx-engine"

[dependencies]
damx-rules.workspace = true
damx-wire = { path = "../damx-wire" }
rayon = "1"

[dev-dependencies.damx-session]
path = "../damx-session"

[target.'cfg(unix)'.build-dependencies]
damx-cli = "0.1"
"#;
    let found: Vec<_> = damx_dependencies(manifest).into_iter().collect();
    assert_eq!(
        found,
        ["damx-cli", "damx-rules", "damx-session", "damx-wire"]
    );
}
