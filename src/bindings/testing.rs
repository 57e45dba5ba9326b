//! `_core._testing`: hooks for the tests and benchmarks only (the hand-written
//! pre-tokenizers against fancy-regex, how lists of ids are filled). Not part of the
//! library's interface.

use pyo3::prelude::*;

use super::errors::to_py_err;
use crate::pretokenize::{check_fast_against_regex, FastPattern, PreTokenizer, CLIP};

/// The pieces of `text` under the regex `pre_tokenizer`; `use_fast=False` forces
/// fancy-regex even for the fixed patterns.
#[pyfunction]
#[pyo3(signature = (pre_tokenizer, text, use_fast=true))]
fn pretokenize(
    py: Python<'_>,
    pre_tokenizer: &str,
    text: &str,
    use_fast: bool,
) -> PyResult<Vec<String>> {
    let pre = if use_fast {
        PreTokenizer::regex(pre_tokenizer)
    } else {
        PreTokenizer::regex_only(pre_tokenizer)
    }
    .map_err(to_py_err)?;
    py.detach(|| pre.pieces(text)).map_err(to_py_err)
}

/// Where the fast splitter for `pre_tokenizer` and fancy-regex first disagree over
/// `texts`: (text index, piece index), or None.
#[pyfunction]
fn pretokenize_first_difference(
    py: Python<'_>,
    pre_tokenizer: &str,
    texts: Vec<String>,
) -> PyResult<Option<(usize, usize)>> {
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    py.detach(|| check_fast_against_regex(pre_tokenizer, &refs))
        .map_err(to_py_err)
}

/// Whether lists of ids are filled by writing their slots (`lists`), not item by item
/// through the C API.
#[pyfunction]
fn lists_written_directly(py: Python<'_>) -> bool {
    super::lists::direct(py)
}

/// The submodule, also registered as `subword._core._testing` so that it can be imported.
pub(super) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = parent.py();
    let m = PyModule::new(py, "_testing")?;
    m.add_function(wrap_pyfunction!(pretokenize, &m)?)?;
    m.add_function(wrap_pyfunction!(pretokenize_first_difference, &m)?)?;
    m.add_function(wrap_pyfunction!(lists_written_directly, &m)?)?;
    let fast_patterns = pyo3::types::PyDict::new(py);
    for fast in FastPattern::ALL {
        fast_patterns.set_item(fast.name(), fast.regex())?;
    }
    fast_patterns.set_item("clip", CLIP)?;
    m.add("FAST_PATTERNS", fast_patterns)?;
    parent.add_submodule(&m)?;
    py.import("sys")?
        .getattr("modules")?
        .set_item("subword._core._testing", &m)?;
    Ok(())
}
