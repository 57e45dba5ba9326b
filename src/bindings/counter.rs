//! `_core.WordCounter`: a streaming word table that normalizes and pre-tokenizes what it
//! is given, and counts.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::errors::{invalid_input, to_py_err};
use super::options::counter_stages;
use super::parallel;
use super::progress;
use crate::count::{Counter, Utf8Errors};

#[pyclass(module = "subword._core")]
pub(crate) struct WordCounter {
    pub(crate) inner: Counter,
}

#[pymethods]
impl WordCounter {
    /// `options`: `normalization`, `lowercase`, `pre_tokenizer` (None: all defaults).
    #[new]
    #[pyo3(signature = (options=None))]
    fn new(options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let (normalizer, pre_tokenizer) = counter_stages(options)?;
        Ok(WordCounter {
            inner: Counter::new(normalizer, pre_tokenizer),
        })
    }

    fn add_texts(&mut self, py: Python<'_>, texts: Vec<String>) -> PyResult<()> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let counter = &mut self.inner;
        parallel(py, || counter.add_texts(&refs))?.map_err(to_py_err)
    }

    #[pyo3(signature = (path, errors="strict", show_progress=false))]
    fn add_file(
        &mut self,
        py: Python<'_>,
        path: &str,
        errors: &str,
        show_progress: bool,
    ) -> PyResult<()> {
        let errors = match errors {
            "strict" => Utf8Errors::Strict,
            "replace" => Utf8Errors::Replace,
            other => {
                return Err(invalid_input(format!(
                    "errors={other:?}: use \"strict\" or \"replace\""
                )))
            }
        };
        let size = std::fs::metadata(path).map(|m| m.len()).ok();
        let counter = &mut self.inner;
        parallel(py, || {
            let bar = progress::bar(show_progress, size, "counting", "bytes");
            let result = counter.add_file(path, errors, &mut |done| bar.set_position(done));
            bar.finish_and_clear();
            result
        })?
        .map_err(to_py_err)
    }

    /// Counts each item as one word (for pieces pre-tokenized by the caller).
    fn add_words(&mut self, words: Vec<String>) {
        for w in &words {
            self.inner.table.add(w, 1);
        }
    }

    fn add_word(&mut self, word: &str, count: u64) {
        self.inner.table.add(word, count);
    }

    /// Adds (word, count) pairs, e.g. read back from a count file.
    fn add_counts(&mut self, items: Vec<(String, u64)>) {
        for (w, c) in &items {
            self.inner.table.add(w, *c);
        }
    }

    /// Adds `other`'s words after this table's (first-appearance order kept).
    fn absorb(&mut self, py: Python<'_>, other: &WordCounter) {
        let table = other.inner.table.clone();
        let mine = &mut self.inner.table;
        py.detach(|| mine.absorb(table));
    }

    /// The sum of all counts.
    fn total(&self) -> u64 {
        self.inner
            .table
            .iter()
            .fold(0u64, |t, (_, c)| t.saturating_add(c))
    }

    fn __len__(&self) -> usize {
        self.inner.table.len()
    }

    fn words(&self) -> Vec<(String, u64)> {
        self.inner
            .table
            .iter()
            .map(|(w, c)| (w.to_string(), c))
            .collect()
    }
}
