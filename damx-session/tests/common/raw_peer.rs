//! The other end of a DXP connection on a raw socket, driven by hand: bytes out exactly as
//! given (merged, split or broken frames alike), frames in one at a time, each read with a
//! deadline. Shared by damx-session's socket tests and the `damx` binary's tests.

#![allow(dead_code, unreachable_pub)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// The other end, driven by hand.
#[derive(Debug)]
pub struct RawPeer {
    /// The socket, for a test that writes from another thread.
    pub stream: TcpStream,
    buf: Vec<u8>,
}

impl RawPeer {
    /// The peer on `stream`, whose reads fail after 10 s without a byte.
    pub fn new(stream: TcpStream) -> RawPeer {
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        RawPeer {
            stream,
            buf: Vec::new(),
        }
    }

    /// Writes `bytes` as they are (a frame's NUL included).
    pub fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap();
    }

    /// The next frame as text; `None` at the end of the stream.
    pub fn frame(&mut self) -> Option<String> {
        loop {
            if let Some(nul) = self.buf.iter().position(|&b| b == 0) {
                let frame: Vec<u8> = self.buf.drain(..=nul).collect();
                return Some(String::from_utf8_lossy(&frame[..nul]).into_owned());
            }
            let mut chunk = [0u8; 512];
            match self.stream.read(&mut chunk) {
                Ok(0) => return None,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(error) if error.kind() == std::io::ErrorKind::ConnectionReset => return None,
                Err(error) => panic!("no frame in time: {error}"),
            }
        }
    }

    /// The next frame, which must start with `prefix`.
    pub fn expect(&mut self, prefix: &str) -> String {
        let frame = self
            .frame()
            .unwrap_or_else(|| panic!("end of stream, not {prefix}"));
        assert!(frame.starts_with(prefix), "{frame:?} is not {prefix}...");
        frame
    }

    /// Everything until the end of the stream.
    pub fn rest(&mut self) -> Vec<String> {
        std::iter::from_fn(|| self.frame()).collect()
    }
}
