//! `_core.train`: learns merges from a counter's table; returns (alphabet, merges).

use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::counter::WordCounter;
use super::errors::to_py_err;
use super::options::train_config;
use super::parallel;
use super::progress;
use crate::train::train as train_core;

type Merges = Vec<(String, String)>;

/// `options`: `kind`, `end_of_word`, `end_of_word_symbol`, `num_merges`, `vocab_size`,
/// `min_frequency`, `tie_break`, `reserved`, `show_progress`.
#[pyfunction]
#[pyo3(signature = (counter, options=None))]
pub(super) fn train(
    py: Python<'_>,
    counter: &WordCounter,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<(Vec<String>, Merges)> {
    let (config, show_progress) = train_config(options)?;
    let table = &counter.inner.table;
    let trained = parallel(py, || {
        let bar = progress::bar(show_progress, None, "merging", "merges");
        let mut report = |done: usize, total: Option<usize>| {
            if let Some(t) = total {
                if bar.length() != Some(t as u64) {
                    bar.set_length(t as u64);
                }
            }
            bar.set_position(done as u64);
        };
        let result = train_core(table, &config, &mut report);
        bar.finish_and_clear();
        result
    })?
    .map_err(to_py_err)?;
    Ok((trained.alphabet, trained.merges))
}
