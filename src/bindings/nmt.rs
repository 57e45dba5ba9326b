//! Python access to `crate::nmt` (subword-nmt's commands): word counting as subword-nmt
//! reads words, learn-bpe's merges with their counts, and the segmenter.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::{parallel, progress, to_py_err, WordCounter};
use crate::nmt::apply::{CodesVersion, Isolation, Segmenter};
use crate::nmt::learn::{learn, Rule};
use crate::nmt::stream::TextBlocks;
use crate::nmt::words::count_words_parallel;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySegmenter>()?;
    m.add_class::<PyTextBlocks>()?;
    m.add_function(wrap_pyfunction!(learn_codes, m)?)?;
    m.add_function(wrap_pyfunction!(count_nmt_block, m)?)?;
    Ok(())
}

/// An input read in blocks (`crate::nmt::stream`): whole lines of checked UTF-8 text.
#[pyclass(module = "subword._core", name = "TextBlocks")]
struct PyTextBlocks {
    inner: TextBlocks,
}

#[pymethods]
impl PyTextBlocks {
    /// `name`: the input as messages name it.
    #[new]
    fn new(name: &str) -> Self {
        PyTextBlocks {
            inner: TextBlocks::new(name),
        }
    }

    /// The text of the lines that `block` completes (all the rest when `block` is empty,
    /// the end of input); None when there is none yet.
    fn text(&mut self, block: &[u8]) -> PyResult<Option<String>> {
        self.inner
            .push(block, |text| Ok(text.to_string()))
            .map_err(to_py_err)
    }
}

/// Counts the words of the lines that `block` completes (an empty block: the end of input)
/// into `counter`, as subword-nmt reads words; counted on all cores.
#[pyfunction]
fn count_nmt_block(
    py: Python<'_>,
    mut counter: PyRefMut<'_, WordCounter>,
    mut reader: PyRefMut<'_, PyTextBlocks>,
    block: &[u8],
) -> PyResult<()> {
    let table = &mut counter.inner.table;
    let reader = &mut reader.inner;
    parallel(py, || {
        reader.push(block, |text| {
            count_words_parallel(text, table);
            Ok(())
        })
    })?
    .map_err(to_py_err)?;
    Ok(())
}

/// learn-bpe on a counter's table (`crate::nmt::learn`): subword-nmt's learner, or with
/// `textbook` true pair counts. Returns (left, right, count) per merge.
#[pyfunction]
#[pyo3(signature = (counter, *, num_merges, min_frequency, textbook, show_progress))]
fn learn_codes(
    py: Python<'_>,
    counter: &WordCounter,
    num_merges: usize,
    min_frequency: u64,
    textbook: bool,
    show_progress: bool,
) -> PyResult<Vec<(String, String, i64)>> {
    let table = &counter.inner.table;
    let rule = if textbook {
        Rule::Textbook
    } else {
        Rule::SubwordNmt
    };
    let result = parallel(py, || {
        let bar = progress::bar(show_progress, Some(num_merges as u64), "merging", "merges");
        let result = learn(table, num_merges, min_frequency, rule, &mut |done| {
            bar.set_position(done as u64)
        });
        bar.finish_and_clear();
        result
    })?;
    result.map_err(to_py_err)
}

/// Segments text with a codes file's merges as `subword-nmt apply-bpe` does.
#[pyclass(module = "subword._core", name = "Segmenter")]
struct PySegmenter {
    inner: Segmenter,
}

#[pymethods]
impl PySegmenter {
    #[new]
    #[pyo3(signature = (merges, *, version, separator, vocabulary, glossaries, seed))]
    fn new(
        py: Python<'_>,
        merges: Vec<(String, String)>,
        version: &str,
        separator: &str,
        vocabulary: Option<Vec<String>>,
        glossaries: bool,
        seed: u64,
    ) -> PyResult<Self> {
        let version = CodesVersion::parse(version).map_err(to_py_err)?;
        let inner = py
            .detach(|| Segmenter::new(&merges, version, separator, vocabulary, glossaries, seed))
            .map_err(to_py_err)?;
        Ok(PySegmenter { inner })
    }

    fn merges_one_at_a_time(&self) -> bool {
        self.inner.merges_one_at_a_time()
    }

    #[pyo3(signature = (text, dropout=0.0))]
    fn process_text(&mut self, py: Python<'_>, text: &str, dropout: f64) -> PyResult<String> {
        let inner = &mut self.inner;
        py.detach(|| inner.process_text(text, dropout))
            .map_err(to_py_err)
    }

    /// The segmented text (UTF-8) of the lines that `block` completes (an empty block: the
    /// end of input); what apply-bpe writes for them. Without glossaries only.
    #[pyo3(signature = (reader, block, dropout=0.0))]
    fn segment_block<'py>(
        &mut self,
        py: Python<'py>,
        mut reader: PyRefMut<'_, PyTextBlocks>,
        block: &[u8],
        dropout: f64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let inner = &mut self.inner;
        let reader = &mut reader.inner;
        let out = py
            .detach(|| reader.push(block, |text| inner.process_text(text, dropout)))
            .map_err(to_py_err)?;
        Ok(PyBytes::new(py, out.as_deref().unwrap_or("").as_bytes()))
    }

    #[pyo3(signature = (line, dropout=0.0))]
    fn process_line(&mut self, line: &str, dropout: f64) -> PyResult<String> {
        self.inner.process_line(line, dropout).map_err(to_py_err)
    }

    #[pyo3(signature = (words, dropout=0.0))]
    fn segment_tokens(&mut self, words: Vec<String>, dropout: f64) -> PyResult<Vec<String>> {
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        self.inner.segment_tokens(&refs, dropout).map_err(to_py_err)
    }

    fn unanalysed_words(&self, text: &str, as_lines: bool) -> Vec<String> {
        self.inner.unanalysed_words(text, as_lines)
    }

    fn add_isolations(&mut self, words: Vec<(String, Option<Isolation>)>) {
        self.inner.add_isolations(words)
    }
}
