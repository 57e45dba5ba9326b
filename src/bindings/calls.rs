//! The everyday calls on a `_core.Model` beyond encode and decode: `encode_with_offsets`,
//! `count`, `count_batch`, `token_part`. Functions taking the model, so that
//! `model.rs` stays as it is.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::errors::{invalid_input, to_py_err};
use super::model::{detached_if_long, PyModel};
use super::pool::helpers_for;
use super::specials::Specials;
use super::texts::Texts;
use crate::pipeline::offsets::Span;

/// Ids of `text` (as `Model.encode`) and each token's (start, end) character span in it.
#[pyfunction]
#[pyo3(signature = (model, text, specials=None, forbidden=None))]
fn encode_with_offsets(
    py: Python<'_>,
    model: PyRef<'_, PyModel>,
    text: &str,
    specials: Option<&Specials>,
    forbidden: Option<&Specials>,
) -> PyResult<(Vec<u32>, Vec<Span>)> {
    let tokenizer = &model.inner;
    let matcher = specials.map(|s| &s.inner);
    detached_if_long(py, text, || {
        if let Some(forbidden) = forbidden {
            forbidden.inner.refuse_in(text)?;
        }
        tokenizer.encode_with_offsets(text, matcher)
    })
    .map_err(to_py_err)
}

/// How many ids `Model.encode` gives for `text` (no list is built).
#[pyfunction]
#[pyo3(signature = (model, text, specials=None, forbidden=None))]
fn count(
    py: Python<'_>,
    model: PyRef<'_, PyModel>,
    text: &str,
    specials: Option<&Specials>,
    forbidden: Option<&Specials>,
) -> PyResult<usize> {
    let tokenizer = &model.inner;
    let (matcher, forbidden) = (specials.map(|s| &s.inner), forbidden.map(|s| &s.inner));
    detached_if_long(py, text, || tokenizer.count(text, matcher, forbidden)).map_err(to_py_err)
}

/// `count` of each text, on all cores (or on `num_threads` threads).
#[pyfunction]
#[pyo3(signature = (model, texts, specials=None, forbidden=None, num_threads=None))]
fn count_batch<'py>(
    py: Python<'py>,
    model: PyRef<'_, PyModel>,
    texts: &Bound<'py, PyAny>,
    specials: Option<&Specials>,
    forbidden: Option<&Specials>,
    num_threads: Option<usize>,
) -> PyResult<Vec<usize>> {
    let tokenizer = &model.inner;
    let texts = Texts::new(texts)?;
    let refs = texts.strs();
    let (matcher, forbidden) = (specials.map(|s| &s.inner), forbidden.map(|s| &s.inner));
    let helpers = helpers_for(num_threads)?;
    py.detach(|| tokenizer.count_batch(refs, matcher, forbidden, helpers.as_deref()))
        .map_err(to_py_err)
}

/// One id's bytes and whether it starts a word (greedy models), for streaming decode.
#[pyfunction]
fn token_part<'py>(
    py: Python<'py>,
    model: PyRef<'_, PyModel>,
    id: i64,
) -> PyResult<(Bound<'py, PyBytes>, bool)> {
    let id = u32::try_from(id).map_err(|_| {
        invalid_input(format!(
            "id {id} is not in the vocabulary (ids go up to {})",
            model.inner.tokens.len().saturating_sub(1)
        ))
    })?;
    let (bytes, starts_word) = model.inner.token_part(id).map_err(to_py_err)?;
    Ok((PyBytes::new(py, bytes), starts_word))
}

/// Readies NumPy's C API (when `numpy` is already imported) and the check of `arrays`: the
/// first array made in a process costs about 0.2 ms for them, which then lands on loading
/// rather than on the first call. Without NumPy this does nothing.
#[pyfunction]
fn prepare_numpy(py: Python<'_>) {
    if numpy_imported(py) {
        // An error here only means the first array call will report it.
        let _ = super::arrays::u32_array(py, &[]);
    }
}

/// Whether `numpy` is imported in this process: the numpy crate imports it on first use,
/// which a caller that never asked for NumPy must not pay for (or fail on).
pub(super) fn numpy_imported(py: Python<'_>) -> bool {
    py.import("sys")
        .and_then(|sys| sys.getattr("modules"))
        .and_then(|modules| modules.contains("numpy"))
        .unwrap_or(false)
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(encode_with_offsets, m)?)?;
    m.add_function(wrap_pyfunction!(count, m)?)?;
    m.add_function(wrap_pyfunction!(count_batch, m)?)?;
    m.add_function(wrap_pyfunction!(token_part, m)?)?;
    m.add_function(wrap_pyfunction!(prepare_numpy, m)?)?;
    Ok(())
}
