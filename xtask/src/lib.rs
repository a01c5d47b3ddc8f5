//! Code shared by the `cargo xtask` tasks and their tests: the DXP conformance fixtures.
//!
//! ```
//! let fixtures = xtask::fixtures::load_all()?;
//! assert!(fixtures.iter().any(|f| f.name == "spec_move" && f.bytes == b"M0012061100"));
//! # Ok::<(), anyhow::Error>(())
//! ```

pub mod fixtures;
