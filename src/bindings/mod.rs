//! The PyO3 layer: converts between Python objects and the core's types, maps errors to
//! Python exceptions, releases the GIL around long work. No algorithm lives here.

mod compress;

use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;

use crate::error::{Error, ErrorKind};

pub(crate) fn to_py_err(err: Error) -> PyErr {
    match err.kind {
        ErrorKind::NotFound => PyFileNotFoundError::new_err(err.message),
        ErrorKind::Io => PyOSError::new_err(err.message),
        ErrorKind::InvalidInput => PyValueError::new_err(err.message),
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    compress::register(m)?;
    Ok(())
}
