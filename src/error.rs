//! Errors of the core. Each carries a message written for the person who gave the input:
//! what is wrong, where (file, line, byte), and what to do.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A file that does not exist.
    NotFound,
    /// Any other failure to read or write a file.
    Io,
    /// Input that is malformed or does not fit the configuration.
    InvalidInput,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
}

impl Error {
    pub fn invalid(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::InvalidInput,
            message: message.into(),
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
