//! `damx encode`: JSON lines to DXP messages.
//!
//! Each item is one JSON object in damx-wire's serde shape (what `damx decode` writes). Valid
//! ones become their exact wire bytes: one message a line, or with `--frames` each followed by
//! its NUL, ready to be sent over TCP. Each invalid item is named on standard error, and the
//! command goes on with the next one.

use std::io::Write;

use damx_wire::{Escaped, Message};

use crate::error::Error;
use crate::input::{Origin, Source};
use crate::log::problem;

use super::Tally;

/// Encodes every item of `source`, writing the wire bytes of each valid one (each followed by
/// a NUL with `frames`, else by a line break).
pub(crate) fn run(frames: bool, source: &Source, out: &mut dyn Write) -> Result<(), Error> {
    let mut tally = Tally::default();
    source.for_each_item(|origin, item| {
        let bytes = match item {
            Ok(bytes) => bytes,
            Err(length) => {
                tally.invalid(|| problem!("{origin}: {length} bytes, too long for a message"));
                return Ok(());
            }
        };
        match encode_one(bytes, frames) {
            Ok(wire) => {
                tally.valid();
                out.write_all(&wire).map_err(Error::stdout)
            }
            Err(why) => {
                tally.invalid(|| report(origin, bytes, &why));
                Ok(())
            }
        }
    })?;
    tally.finish("encoded")
}

/// The wire bytes of one JSON object, with the line break or NUL that ends them.
fn encode_one(json: &[u8], frames: bool) -> Result<Vec<u8>, String> {
    let message: Message = serde_json::from_slice(json).map_err(|e| json_problem(&e))?;
    if frames {
        return Ok(message.to_frame());
    }
    let mut wire = message.to_bytes();
    if wire.iter().any(|&b| b == b'\n' || b == b'\r') {
        return Err(
            "the chat text holds a line break, which a line of output cannot carry \
             (use --frames)"
                .to_owned(),
        );
    }
    wire.push(b'\n');
    Ok(wire)
}

/// serde_json's message with its position moved to the end in our words: `missing field `to`
/// (column 40)`. A position of line 1 is the only line there is, so only the column is given.
fn json_problem(error: &serde_json::Error) -> String {
    let text = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    match text.strip_suffix(&suffix) {
        Some(message) if error.line() == 1 => format!("{message} (column {})", error.column()),
        Some(message) => format!(
            "{message} (line {} column {} of the item)",
            error.line(),
            error.column()
        ),
        None => text,
    }
}

fn report(origin: Origin, bytes: &[u8], why: &str) {
    problem!("{origin}: {:#}: {why}", Escaped(bytes));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A JSON object becomes its exact wire text and a line break, or a NUL with `--frames`.
    #[test]
    fn json_becomes_wire_bytes() {
        let json = br#"{"type":"move","seconds":12,"from":6,"to":11,"captured":[]}"#;
        assert_eq!(encode_one(json, false).unwrap(), b"M0012061100\n");
        assert_eq!(encode_one(json, true).unwrap(), b"M0012061100\0");
    }

    /// A chat with a line break cannot be one line, but can be one frame.
    #[test]
    fn a_line_break_needs_frames() {
        let json = br#"{"type":"chat","text":"two\nlines"}"#;
        let error = encode_one(json, false).unwrap_err();
        assert!(error.contains("--frames"), "{error}");
        assert_eq!(encode_one(json, true).unwrap(), b"Ctwo\nlines\0");
    }

    /// serde's errors keep their message and point at the column where they have one.
    #[test]
    fn json_errors_name_the_column() {
        let error = encode_one(br#"{"type":"mov"}"#, false).unwrap_err();
        assert!(error.starts_with("unknown variant `mov`"), "{error}");
        assert!(error.ends_with("(column 13)"), "{error}");
        let error = encode_one(b"{\"type\":\n\"move\",}", false).unwrap_err();
        assert!(error.ends_with("(line 2 column 8 of the item)"), "{error}");
        // A field checked after the object was read has no position.
        let error = encode_one(br#"{"type":"move","seconds":12}"#, false).unwrap_err();
        assert_eq!(error, "missing field `from`");
    }
}
