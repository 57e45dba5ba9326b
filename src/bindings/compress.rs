//! Python access to `crate::compress`: bytes in, bytes out, the GIL released while working.
//! With an `on_step` callback, compression runs block by block on this thread and calls it
//! with `(block, left, right, symbol, count, data)` after every replacement.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::errors::to_py_err;
use super::parallel;
use crate::compress;
use crate::error::Error;

/// Why a traced compression stopped: bad arguments, or the callback raised.
enum TraceError {
    Core(Error),
    Callback(PyErr),
}

impl From<Error> for TraceError {
    fn from(err: Error) -> Self {
        TraceError::Core(err)
    }
}

#[pyfunction]
#[pyo3(name = "compress", signature = (data, block_size = compress::DEFAULT_BLOCK_SIZE, on_step = None))]
fn py_compress<'py>(
    py: Python<'py>,
    data: &[u8],
    block_size: usize,
    on_step: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let packed = match on_step {
        None => parallel(py, || compress::compress(data, block_size))?.map_err(to_py_err)?,
        Some(callback) => compress::compress_with(data, block_size, |step| {
            let args = (
                step.block,
                step.pair.0,
                step.pair.1,
                step.symbol,
                step.count,
                PyBytes::new(py, step.data),
            );
            callback.call1(args).map(drop).map_err(TraceError::Callback)
        })
        .map_err(|err| match err {
            TraceError::Core(err) => to_py_err(err),
            TraceError::Callback(err) => err,
        })?,
    };
    Ok(PyBytes::new(py, &packed))
}

#[pyfunction]
#[pyo3(name = "decompress")]
fn py_decompress<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let restored = py
        .detach(|| compress::decompress(data))
        .map_err(to_py_err)?;
    Ok(PyBytes::new(py, &restored))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(py_compress, m)?)?;
    m.add_function(wrap_pyfunction!(py_decompress, m)?)?;
    m.add("COMPRESS_DEFAULT_BLOCK_SIZE", compress::DEFAULT_BLOCK_SIZE)?;
    m.add("COMPRESS_MAX_BLOCK_SIZE", compress::MAX_BLOCK_SIZE)?;
    Ok(())
}
