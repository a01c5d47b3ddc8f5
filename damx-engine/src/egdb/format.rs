//! The file of one slice: a header, a block index and blocks of run-length coded values, with a
//! checksum over everything.
//!
//! ```text
//! offset  size  field
//!  0       8    magic "DAMXEGDB"
//!  8       4    format version (little-endian, like every number here)
//! 12       4    flags: bit 0 = the values carry distances
//! 16       4    material: white men, white kings, black men, black kings (a byte each)
//! 20       8    positions (indices) in the slice
//! 28       4    values per block
//! 32       4    blocks
//! 36       8 * (blocks + 1)   offset of each block from the start of the data, then the end
//! ...           the data: the blocks, each a mode byte then its values
//! end - 8  8    FNV-1a (64-bit) of every byte before it
//! ```
//!
//! A block is stored raw (mode 0: one byte a value) or as runs (mode 1: a value byte, then the
//! run length minus one as a LEB128 number), whichever is shorter. A value byte is 0 for a draw,
//! 1..=127 for a win, 128..=255 for a loss; with distances a win is `plies` to conversion
//! (capped at 127) and a loss `128 + plies` (capped at 255). Positions that are never probed
//! (the side to move must capture, holes of the index) take the value before them, which
//! lengthens runs. A probe decodes at most one block.

use std::fmt;

/// The first bytes of every file.
pub(crate) const MAGIC: &[u8; 8] = b"DAMXEGDB";
/// The format version this code reads and writes.
pub const FORMAT_VERSION: u32 = 2;
/// Values per block: small enough that a probe decodes little (a probe costs half what it does
/// with blocks of 1024), large enough that the index costs about a tenth of the file.
pub(crate) const BLOCK_VALUES: u32 = 256;
/// The header before the block index.
const HEADER_BYTES: usize = 36;
/// Header flag: the values carry distances.
pub(crate) const FLAG_DISTANCES: u32 = 1;

const MODE_RAW: u8 = 0;
const MODE_RUNS: u8 = 1;

use super::material::Material;

/// The longest a file of `material` can be: every block raw (a mode byte and its values).
pub(crate) fn max_file_len(material: Material) -> u64 {
    let blocks = material.positions().div_ceil(BLOCK_VALUES as u64);
    HEADER_BYTES as u64 + 8 * (blocks + 1) + blocks * (1 + BLOCK_VALUES as u64) + 8
}

/// 64-bit FNV-1a.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= byte as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// Encodes the values of a slice as a complete file.
pub(crate) fn encode(material: Material, distances: bool, values: &[u8]) -> Vec<u8> {
    let blocks = values.len().div_ceil(BLOCK_VALUES as usize);
    let mut data = Vec::new();
    let mut offsets = Vec::with_capacity(blocks + 1);
    for block in values.chunks(BLOCK_VALUES as usize) {
        offsets.push(data.len() as u64);
        let mut runs = vec![MODE_RUNS];
        let mut i = 0;
        while i < block.len() && runs.len() <= block.len() {
            let value = block[i];
            let mut run = 1;
            while i + run < block.len() && block[i + run] == value {
                run += 1;
            }
            runs.push(value);
            let mut rest = run as u64 - 1;
            loop {
                let byte = (rest & 0x7f) as u8;
                rest >>= 7;
                if rest == 0 {
                    runs.push(byte);
                    break;
                }
                runs.push(byte | 0x80);
            }
            i += run;
        }
        if runs.len() <= block.len() {
            data.extend_from_slice(&runs);
        } else {
            data.push(MODE_RAW);
            data.extend_from_slice(block);
        }
    }
    offsets.push(data.len() as u64);
    let mut file = Vec::with_capacity(HEADER_BYTES + 8 * offsets.len() + data.len() + 8);
    file.extend_from_slice(MAGIC);
    file.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    let flags = if distances { FLAG_DISTANCES } else { 0 };
    file.extend_from_slice(&flags.to_le_bytes());
    file.extend_from_slice(&[
        material.white_men,
        material.white_kings,
        material.black_men,
        material.black_kings,
    ]);
    file.extend_from_slice(&(values.len() as u64).to_le_bytes());
    file.extend_from_slice(&BLOCK_VALUES.to_le_bytes());
    file.extend_from_slice(&(blocks as u32).to_le_bytes());
    for offset in offsets {
        file.extend_from_slice(&offset.to_le_bytes());
    }
    file.extend_from_slice(&data);
    let checksum = fnv1a(&file);
    file.extend_from_slice(&checksum.to_le_bytes());
    file
}

/// Why the bytes of a file are not a slice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FormatError {
    /// Shorter than its header and index say.
    Truncated,
    /// Not a damx database file.
    BadMagic,
    /// Written by another version of the format.
    Version(u32),
    /// The checksum does not match the contents.
    Checksum,
    /// The header names another material than the file name.
    WrongMaterial {
        /// What the header says.
        found: String,
    },
    /// The header is inconsistent (block count, sizes, offsets).
    Inconsistent(&'static str),
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::Truncated => write!(f, "file is truncated"),
            FormatError::BadMagic => write!(f, "not a damx endgame database file"),
            FormatError::Version(version) => write!(
                f,
                "format version {version}, this damx reads version {FORMAT_VERSION}"
            ),
            FormatError::Checksum => write!(f, "checksum mismatch: the file is corrupt"),
            FormatError::WrongMaterial { found } => {
                write!(
                    f,
                    "the header holds slice {found}, not the one its name says"
                )
            }
            FormatError::Inconsistent(what) => write!(f, "inconsistent header: {what}"),
        }
    }
}

impl std::error::Error for FormatError {}

/// A slice's file in memory, checked and ready to probe.
#[derive(Debug)]
pub(crate) struct SliceFile {
    pub(crate) material: Material,
    pub(crate) distances: bool,
    pub(crate) positions: u64,
    blocks: u32,
    /// The whole file; the data starts at `data_start`.
    bytes: Box<[u8]>,
    data_start: usize,
}

fn le_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"))
}

fn le_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"))
}

impl SliceFile {
    /// Checks a file's bytes (magic, version, checksum, header, index) for `expected`.
    pub(crate) fn parse(bytes: Vec<u8>, expected: Material) -> Result<SliceFile, FormatError> {
        if bytes.len() < 8 || &bytes[..8] != MAGIC {
            return Err(if bytes.len() < 8 && MAGIC.starts_with(&bytes) {
                FormatError::Truncated
            } else {
                FormatError::BadMagic
            });
        }
        if bytes.len() < HEADER_BYTES + 16 {
            return Err(FormatError::Truncated);
        }
        let version = le_u32(&bytes, 8);
        if version != FORMAT_VERSION {
            return Err(FormatError::Version(version));
        }
        let blocks = le_u32(&bytes, 32);
        let index_end = HEADER_BYTES + 8 * (blocks as usize + 1);
        if bytes.len() < index_end + 8 {
            return Err(FormatError::Truncated);
        }
        let data_end = le_u64(&bytes, index_end - 8);
        let expected_len = (index_end as u64)
            .checked_add(data_end)
            .and_then(|n| n.checked_add(8));
        match expected_len {
            Some(len) if len == bytes.len() as u64 => {}
            Some(len) if len > bytes.len() as u64 => return Err(FormatError::Truncated),
            _ => return Err(FormatError::Inconsistent("length does not match the index")),
        }
        let body = bytes.len() - 8;
        if fnv1a(&bytes[..body]) != le_u64(&bytes, body) {
            return Err(FormatError::Checksum);
        }
        let material = Material {
            white_men: bytes[16],
            white_kings: bytes[17],
            black_men: bytes[18],
            black_kings: bytes[19],
        };
        if material != expected {
            // Header bytes of another file may be any number: add no counts above a slice's.
            let counts = bytes[16..20].iter().all(|&count| count <= 7);
            return Err(FormatError::WrongMaterial {
                found: if counts && material.is_slice() {
                    material.to_string()
                } else {
                    format!("{:?}", &bytes[16..20])
                },
            });
        }
        let flags = le_u32(&bytes, 12);
        if flags & !FLAG_DISTANCES != 0 {
            return Err(FormatError::Inconsistent("unknown flags"));
        }
        let positions = le_u64(&bytes, 20);
        if positions != material.positions() {
            return Err(FormatError::Inconsistent("position count"));
        }
        if le_u32(&bytes, 28) != BLOCK_VALUES {
            return Err(FormatError::Inconsistent("block size"));
        }
        if blocks as u64 != positions.div_ceil(BLOCK_VALUES as u64) {
            return Err(FormatError::Inconsistent("block count"));
        }
        let mut previous = 0;
        for block in 0..=blocks as usize {
            let offset = le_u64(&bytes, HEADER_BYTES + 8 * block);
            if offset < previous || (block == 0 && offset != 0) {
                return Err(FormatError::Inconsistent("block offsets"));
            }
            previous = offset;
        }
        Ok(SliceFile {
            material,
            distances: flags & FLAG_DISTANCES != 0,
            positions,
            blocks,
            bytes: bytes.into_boxed_slice(),
            data_start: index_end,
        })
    }

    /// The size of the file.
    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }

    /// The bytes of block `block` (mode byte first).
    fn block(&self, block: u32) -> &[u8] {
        let at = HEADER_BYTES + 8 * block as usize;
        let start = le_u64(&self.bytes, at) as usize;
        let end = le_u64(&self.bytes, at + 8) as usize;
        &self.bytes[self.data_start + start..self.data_start + end]
    }

    /// The value byte at `index`; `None` if the block does not decode (it passed the
    /// checksum, so only a file written wrongly could do that).
    pub(crate) fn value(&self, index: u64) -> Option<u8> {
        if index >= self.positions {
            return None;
        }
        let block = (index / BLOCK_VALUES as u64) as u32;
        let offset = (index % BLOCK_VALUES as u64) as usize;
        let bytes = self.block(block);
        match bytes.split_first()? {
            (&MODE_RAW, values) => values.get(offset).copied(),
            (&MODE_RUNS, mut runs) => {
                let mut at = 0usize;
                loop {
                    let (&value, rest) = runs.split_first()?;
                    let (run, rest) = leb128(rest)?;
                    at += run as usize + 1;
                    if offset < at {
                        return Some(value);
                    }
                    runs = rest;
                }
            }
            _ => None,
        }
    }

    /// Decodes every value (for building and verifying); `None` if a block does not decode.
    pub(crate) fn decode_all(&self) -> Option<Vec<u8>> {
        let mut values = Vec::with_capacity(self.positions as usize);
        for block in 0..self.blocks {
            let want = (self.positions - block as u64 * BLOCK_VALUES as u64)
                .min(BLOCK_VALUES as u64) as usize;
            let start = values.len();
            match self.block(block).split_first()? {
                (&MODE_RAW, raw) => values.extend_from_slice(raw),
                (&MODE_RUNS, mut runs) => {
                    while !runs.is_empty() {
                        let (&value, rest) = runs.split_first()?;
                        let (run, rest) = leb128(rest)?;
                        if run as usize >= want {
                            return None;
                        }
                        values.extend(std::iter::repeat_n(value, run as usize + 1));
                        runs = rest;
                    }
                }
                _ => return None,
            }
            if values.len() - start != want {
                return None;
            }
        }
        Some(values)
    }
}

/// A LEB128 number of at most 32 bits, and the bytes after it.
fn leb128(bytes: &[u8]) -> Option<(u32, &[u8])> {
    let mut value = 0u32;
    for (i, &byte) in bytes.iter().enumerate().take(5) {
        value |= ((byte & 0x7f) as u32) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, &bytes[i + 1..]));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn material() -> Material {
        "K-K".parse().unwrap()
    }

    fn sample() -> Vec<u8> {
        let n = material().positions() as usize;
        (0..n)
            .map(|i| match i % 3000 {
                0..=1500 => 0,
                1501..=2000 => (i % 7) as u8 * 37,
                _ => 129,
            })
            .collect()
    }

    #[test]
    fn files_round_trip_and_compress() {
        let values = sample();
        let file = encode(material(), true, &values);
        assert!(
            file.len() < values.len(),
            "{} >= {}",
            file.len(),
            values.len()
        );
        let slice = SliceFile::parse(file, material()).unwrap();
        assert!(slice.distances);
        assert_eq!(slice.decode_all().unwrap(), values);
        for (i, &value) in values.iter().enumerate() {
            assert_eq!(slice.value(i as u64), Some(value));
        }
        assert_eq!(slice.value(values.len() as u64), None);
    }

    #[test]
    fn damaged_files_are_refused() {
        let file = encode(material(), false, &sample());
        let parse = |bytes: Vec<u8>| SliceFile::parse(bytes, material()).map(|_| ());
        assert_eq!(
            parse(file[..file.len() - 1].to_vec()),
            Err(FormatError::Truncated)
        );
        assert_eq!(parse(file[..5].to_vec()), Err(FormatError::Truncated));
        assert_eq!(parse(Vec::new()), Err(FormatError::Truncated));
        assert_eq!(
            parse(b"PK\x03\x04 not ours".to_vec()),
            Err(FormatError::BadMagic)
        );
        for at in [9, 40, file.len() / 2, file.len() - 3] {
            let mut corrupt = file.clone();
            corrupt[at] ^= 0x10;
            assert!(parse(corrupt).is_err(), "flip at {at}");
        }
        let mut appended = file.clone();
        appended.push(0);
        assert!(parse(appended).is_err());
        let other = SliceFile::parse(file, "K-M".parse().unwrap());
        assert!(matches!(other, Err(FormatError::WrongMaterial { .. })));
    }
}
