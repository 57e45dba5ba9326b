//! `_core.Specials`: a set of special tokens to recognise in text (tiktoken's
//! `allowed_special`), or to refuse (`disallowed_special`).

use pyo3::prelude::*;

use super::errors::{invalid_input, to_py_err};
use crate::pipeline::SpecialMatcher;

#[pyclass(module = "subword._core", frozen)]
pub(super) struct Specials {
    pub(super) inner: SpecialMatcher,
}

#[pymethods]
impl Specials {
    #[new]
    fn new(tokens: Vec<(String, u32)>) -> PyResult<Self> {
        match SpecialMatcher::new(&tokens).map_err(to_py_err)? {
            Some(inner) => Ok(Specials { inner }),
            None => Err(invalid_input("no special tokens given")),
        }
    }

    /// The special tokens this set recognises.
    fn tokens(&self) -> Vec<String> {
        self.inner.tokens().to_vec()
    }

    /// Raises InvalidInputError naming the first of these tokens that `text` contains.
    fn refuse_in(&self, py: Python<'_>, text: &str) -> PyResult<()> {
        py.detach(|| self.inner.refuse_in(text)).map_err(to_py_err)
    }
}
