//! `_core.Normalizer`: the normalizer alone, for pre-tokenizers that run in Python.

use pyo3::prelude::*;

use super::options::normalizer;
use crate::normalize::Normalizer;

#[pyclass(module = "subword._core", frozen, name = "Normalizer")]
pub(super) struct PyNormalizer {
    inner: Normalizer,
}

#[pymethods]
impl PyNormalizer {
    #[new]
    #[pyo3(signature = (normalization=None, lowercase=false))]
    fn new(normalization: Option<&str>, lowercase: bool) -> PyResult<Self> {
        Ok(PyNormalizer {
            inner: normalizer(normalization, lowercase)?,
        })
    }

    fn normalize(&self, text: &str) -> String {
        self.inner.normalize(text).into_owned()
    }

    fn normalize_batch(&self, texts: Vec<String>) -> Vec<String> {
        if self.inner.is_identity() {
            return texts;
        }
        texts
            .iter()
            .map(|t| self.inner.normalize(t).into_owned())
            .collect()
    }
}
