//! The core's errors as Python exceptions, mapped here and nowhere else:
//!
//! | `ErrorKind`    | Python                                                        |
//! |----------------|---------------------------------------------------------------|
//! | `InvalidInput` | `subword.errors.InvalidInputError` (a `ValueError`)           |
//! | `Format`       | `subword.errors.FormatError`, with `path`, `line`, `offset`   |
//! | `NotFound`     | `FileNotFoundError`                                           |
//! | `Io`           | `OSError`                                                     |
//!
//! The Python classes are imported once. Should `subword.errors` be missing (the core used
//! on its own), invalid input falls back to `ValueError`.

use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

use crate::error::{Error, ErrorKind, Location};

static INVALID_INPUT: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static FORMAT: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// The Python exception for a core error.
pub(crate) fn to_py_err(err: Error) -> PyErr {
    match err.kind {
        ErrorKind::NotFound => PyFileNotFoundError::new_err(err.message),
        ErrorKind::Io => PyOSError::new_err(err.message),
        ErrorKind::InvalidInput => invalid_input(err.message),
        ErrorKind::Format => Python::attach(|py| {
            format_error(py, &err.message, err.location.as_deref())
                .unwrap_or_else(|_| PyValueError::new_err(err.message))
        }),
    }
}

/// `subword.errors.InvalidInputError(message)`: for input the core refuses, and for
/// Python values that do not convert (options of the wrong type, ...).
pub(crate) fn invalid_input(message: impl Into<String>) -> PyErr {
    let message = message.into();
    Python::attach(
        |py| match INVALID_INPUT.import(py, "subword.errors", "InvalidInputError") {
            Ok(class) => PyErr::from_type(class.clone(), message),
            Err(_) => PyValueError::new_err(message),
        },
    )
}

/// A `FormatError` whose text is `message` as the core wrote it (it already names the
/// place), with the place's parts as attributes.
fn format_error(py: Python<'_>, message: &str, location: Option<&Location>) -> PyResult<PyErr> {
    let class = FORMAT.import(py, "subword.errors", "FormatError")?;
    let error = class.call1((message,))?;
    if let Some(at) = location {
        error.setattr("path", at.path.as_deref())?;
        error.setattr("line", at.line)?;
        error.setattr("offset", at.offset)?;
    }
    Ok(PyErr::from_value(error))
}
