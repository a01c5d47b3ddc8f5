//! Reading the engine's data files (endgame database slices, pattern weights): regular files
//! only, and no more bytes than such a file can hold, so that a FIFO, a device or a huge file
//! put in their place is refused with an error instead of hanging or filling the memory.

use std::io::{self, Read};
use std::path::Path;

/// The bytes of the regular file at `path`, refused (`InvalidInput`) if it is anything else
/// (looked at before it is opened: opening a FIFO waits for a writer) or (`InvalidData`) if it
/// holds more than `limit` bytes (at most one byte past the bound is read).
pub(crate) fn read_data_file(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    if !std::fs::metadata(path)?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than such a file can be ({limit} bytes at most)"),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A regular file within the bound is read; a longer one, a directory or a missing path
    /// is refused with the reason.
    #[test]
    fn only_regular_files_within_the_bound_are_read() {
        let dir = std::env::temp_dir().join(format!("damx-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("data");
        std::fs::write(&file, [7u8; 100]).unwrap();
        assert_eq!(read_data_file(&file, 100).unwrap().len(), 100);
        let error = read_data_file(&file, 99).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        assert!(error.to_string().contains("99 bytes at most"), "{error}");
        let error = read_data_file(&dir, 1000).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
        let error = read_data_file(&dir.join("missing"), 1000).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A FIFO is refused at once instead of waiting for a writer that never comes.
    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_waiting() {
        let dir = std::env::temp_dir().join(format!("damx-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("K-K.egdb");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|status| status.success()) {
            let error = read_data_file(&fifo, 1000).unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
