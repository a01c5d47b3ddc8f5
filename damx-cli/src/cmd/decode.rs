//! `damx decode`: DXP messages to JSON lines.
//!
//! Each item is one message without its NUL: a command-line argument, a line of standard
//! input or of a file, or (with `--frames`) a frame of a raw NUL-framed stream such as a
//! capture of a TCP conversation. Valid messages become JSON lines in damx-wire's serde shape;
//! each invalid item is named on standard error with its text and damx-wire's error (which
//! message, which byte, what was wrong), and the command goes on with the next one.

use std::io::Write;

use damx_wire::{Escaped, FrameReader, Located};

use crate::error::Error;
use crate::input::{Origin, Source};
use crate::log::problem;

use super::Tally;

/// Decodes every item of `source` (lines, or with `frames` NUL-terminated frames), writing a
/// JSON line for each valid one.
pub(crate) fn run(frames: bool, source: &Source, out: &mut dyn Write) -> Result<(), Error> {
    let mut tally = Tally::default();
    if frames {
        decode_frames(source, out, &mut tally)?;
    } else {
        source.for_each_item(|origin, item| {
            match item {
                Ok(bytes) => decode_one(origin, bytes, out, &mut tally)?,
                Err(length) => tally
                    .invalid(|| problem!("{origin}: {length} bytes, too long for a DXP message")),
            }
            Ok(())
        })?;
    }
    tally.finish("decoded")
}

/// Decodes one message and writes its JSON line, or reports why it is not a message.
fn decode_one(
    origin: Origin,
    bytes: &[u8],
    out: &mut dyn Write,
    tally: &mut Tally,
) -> Result<(), Error> {
    match damx_wire::decode(bytes) {
        Ok(message) => {
            tally.valid();
            super::print(out, &message, true)
        }
        Err(error) => {
            tally.invalid(|| problem!("{origin}: {:#}: {error}", Escaped(bytes)));
            Ok(())
        }
    }
}

/// Reads the source as a NUL-framed stream and decodes every frame.
fn decode_frames(source: &Source, out: &mut dyn Write, tally: &mut Tally) -> Result<(), Error> {
    let Some(reader) = source.open()? else {
        return Ok(());
    };
    for frame in FrameReader::new(reader) {
        let Located {
            number,
            offset,
            item,
        } = frame.map_err(|e| source.read_error(e))?;
        let origin = Origin::Frame { number, offset };
        match item {
            Ok(frame) => decode_one(origin, frame.as_bytes(), out, tally)?,
            Err(error) => {
                let raw = error.raw();
                tally.invalid(|| problem!("{origin}: {:#}: {error}", Escaped(raw.as_bytes())));
            }
        }
    }
    Ok(())
}
