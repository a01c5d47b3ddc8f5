//! The DXP conformance fixtures: every test vector of dxp.md §5, one file each.
//!
//! A fixture is `xtask/conformance/<name>.dxp` holding the exact bytes of one message, without
//! the NUL that ends its frame and without a trailing newline (`.gitattributes` there marks
//! the files `-text`, so git never converts them). `spec_*` are the spec's examples, `seen_*`
//! what real programs send. A file that ends in CR or LF is refused rather than read as part
//! of the message, so an editor that adds a newline cannot slip a wrong byte in.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use damx_wire::Message;

/// One sample message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fixture {
    /// The file name without `.dxp`.
    pub name: String,
    /// The message's bytes, without the NUL.
    pub bytes: Vec<u8>,
}

/// The folder holding the fixtures.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance")
}

/// The fixture `name`.
///
/// # Errors
/// The file cannot be read, is empty, or ends in a newline.
pub fn load(name: &str) -> anyhow::Result<Fixture> {
    let path = dir().join(format!("{name}.dxp"));
    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    if bytes.is_empty() {
        bail!("{} is empty", path.display());
    }
    if bytes.ends_with(b"\n") || bytes.ends_with(b"\r") {
        bail!(
            "{} ends with a newline; a fixture holds the message bytes only",
            path.display()
        );
    }
    Ok(Fixture {
        name: name.to_owned(),
        bytes,
    })
}

/// The names of all fixtures, sorted.
///
/// # Errors
/// The folder cannot be read.
pub fn names() -> anyhow::Result<Vec<String>> {
    let dir = dir();
    let mut names = Vec::new();
    for entry in
        std::fs::read_dir(&dir).with_context(|| format!("cannot read {}", dir.display()))?
    {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "dxp")
            && let Some(stem) = path.file_stem().and_then(|s| s.to_str())
        {
            names.push(stem.to_owned());
        }
    }
    names.sort();
    Ok(names)
}

/// All fixtures, sorted by name.
///
/// # Errors
/// As for [`names`] and [`load`].
pub fn load_all() -> anyhow::Result<Vec<Fixture>> {
    names()?.iter().map(|name| load(name)).collect()
}

/// The decoded message as a person reads it in a snapshot: the bytes, their length, the
/// kind, and the message as pretty JSON (the transcript shape of damx-wire).
pub fn render(bytes: &[u8], message: &Message) -> String {
    let mut text = String::new();
    // The bytes are 7-bit ASCII once decoded, so the lossy conversion loses nothing.
    let _ = writeln!(text, "bytes: {:?}", String::from_utf8_lossy(bytes));
    let _ = writeln!(text, "length: {}", bytes.len());
    let _ = writeln!(text, "kind: {}", message.kind());
    let json =
        serde_json::to_string_pretty(message).unwrap_or_else(|e| format!("cannot serialise: {e}"));
    text.push_str(&json);
    text
}
