//! The everyday calls on a `_core.Model` beyond encode and decode: `encode_with_offsets`
//! (more to come). Functions taking the model, so that `model.rs` stays as it is.

use pyo3::prelude::*;

use super::errors::to_py_err;
use super::model::PyModel;
use super::specials::Specials;
use crate::pipeline::offsets::Span;

/// Texts shorter than this are handled holding the GIL (as `model.rs` does for encode).
const DETACH_MIN_BYTES: usize = 2048;

fn detached_if_long<T: Send>(py: Python<'_>, text: &str, work: impl FnOnce() -> T + Send) -> T {
    if text.len() < DETACH_MIN_BYTES {
        work()
    } else {
        py.detach(work)
    }
}

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

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(encode_with_offsets, m)?)?;
    Ok(())
}
