//! Errors of the core. Each carries a message written for the person who gave the input:
//! what is wrong, where (file, line, byte), and what to do. A malformed file is a
//! `Format` error that also carries where it is, for callers that want the parts.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A file that does not exist.
    NotFound,
    /// Any other failure to read or write a file.
    Io,
    /// Input that is malformed or does not fit the configuration.
    InvalidInput,
    /// Data that is not well formed (a compressed stream, a text file that is not UTF-8):
    /// invalid input whose place is known, see [`Location`].
    Format,
}

/// Where in a file or stream a `Format` error is; each part when known. The message
/// already names them: these are for callers that want the parts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    pub path: Option<String>,
    /// 1-based line.
    pub line: Option<u64>,
    /// Byte offset from the start of the file or stream.
    pub offset: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    /// `Format` errors: where (boxed, so that a `Result` stays small on the hot paths).
    pub location: Option<Box<Location>>,
}

impl Error {
    pub fn invalid(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::InvalidInput,
            message: message.into(),
            location: None,
        }
    }

    /// Malformed data at `location`; `message` names the place as the person reads it.
    pub fn format(message: impl Into<String>, location: Location) -> Self {
        Error {
            kind: ErrorKind::Format,
            message: message.into(),
            location: Some(Box::new(location)),
        }
    }

    pub fn io(path: &str, err: &std::io::Error) -> Self {
        let kind = if err.kind() == std::io::ErrorKind::NotFound {
            ErrorKind::NotFound
        } else {
            ErrorKind::Io
        };
        let what = if kind == ErrorKind::NotFound {
            "no such file"
        } else {
            "cannot read"
        };
        Error {
            kind,
            message: format!("{path}: {what} ({err})"),
            location: None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;
