//! The PyO3 layer: converts between Python objects and the core's types, maps errors to
//! Python exceptions, releases the GIL around long work. No algorithm lives here.

mod progress;

use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::count::{Counter, Utf8Errors};
use crate::encode::SpecialMatcher;
use crate::error::{Error, ErrorKind};
use crate::model::{MergeRule, Model, ModelConfig, Unknown};
use crate::normalize::{Form, Normalizer};
use crate::pretokenize::PreTokenizer;
use crate::symbols::{EndOfWord, SymbolRules, Unit};
use crate::train::{train as train_core, TieBreak, TrainConfig};

pub(crate) fn to_py_err(err: Error) -> PyErr {
    match err.kind {
        ErrorKind::NotFound => PyFileNotFoundError::new_err(err.message),
        ErrorKind::Io => PyOSError::new_err(err.message),
        ErrorKind::InvalidInput => PyValueError::new_err(err.message),
    }
}

fn normalizer(normalization: Option<&str>, lowercase: bool) -> PyResult<Normalizer> {
    let form = normalization
        .map(Form::parse)
        .transpose()
        .map_err(to_py_err)?;
    Ok(Normalizer { form, lowercase })
}

fn pre_tokenizer(pattern: Option<&str>) -> PyResult<PreTokenizer> {
    match pattern {
        None => Ok(PreTokenizer::Whitespace),
        Some(p) => PreTokenizer::regex(p).map_err(to_py_err),
    }
}

fn symbol_rules(unit: &str, end_of_word: &str, end_of_word_symbol: &str) -> PyResult<SymbolRules> {
    let unit = match unit {
        "chars" => Unit::Chars,
        "bytes" => Unit::Bytes,
        other => return Err(PyValueError::new_err(format!("unknown unit {other:?}"))),
    };
    Ok(SymbolRules {
        unit,
        end_of_word: EndOfWord::parse(end_of_word).map_err(to_py_err)?,
        end_of_word_symbol: end_of_word_symbol.to_string(),
    })
}

/// The normalizer alone, for pre-tokenizers that run in Python.
#[pyclass(module = "subword._core", frozen, name = "Normalizer")]
struct PyNormalizer {
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

/// A streaming word table: normalizes and pre-tokenizes what it is given, and counts.
#[pyclass(module = "subword._core")]
struct WordCounter {
    inner: Counter,
}

#[pymethods]
impl WordCounter {
    #[new]
    #[pyo3(signature = (normalization=None, lowercase=false, pattern=None))]
    fn new(normalization: Option<&str>, lowercase: bool, pattern: Option<&str>) -> PyResult<Self> {
        Ok(WordCounter {
            inner: Counter::new(
                normalizer(normalization, lowercase)?,
                pre_tokenizer(pattern)?,
            ),
        })
    }

    fn add_texts(&mut self, py: Python<'_>, texts: Vec<String>) -> PyResult<()> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let counter = &mut self.inner;
        py.detach(|| counter.add_texts(&refs)).map_err(to_py_err)
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
                return Err(PyValueError::new_err(format!(
                    "errors={other:?}: use \"strict\" or \"replace\""
                )))
            }
        };
        let size = std::fs::metadata(path).map(|m| m.len()).ok();
        let counter = &mut self.inner;
        py.detach(|| {
            let bar = progress::bar(show_progress, size, "counting", "bytes");
            let result = counter.add_file(path, errors, &mut |done| bar.set_position(done));
            bar.finish_and_clear();
            result
        })
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

type Merges = Vec<(String, String)>;

/// Learns merges from a counter's table; returns (alphabet, merges).
#[pyfunction]
#[pyo3(signature = (counter, *, unit, end_of_word, end_of_word_symbol, num_merges, vocab_size,
                    min_frequency, tie_break, reserved, show_progress))]
#[allow(clippy::too_many_arguments)]
fn train(
    py: Python<'_>,
    counter: &WordCounter,
    unit: &str,
    end_of_word: &str,
    end_of_word_symbol: &str,
    num_merges: Option<usize>,
    vocab_size: Option<usize>,
    min_frequency: u64,
    tie_break: &str,
    reserved: usize,
    show_progress: bool,
) -> PyResult<(Vec<String>, Merges)> {
    let config = TrainConfig {
        rules: symbol_rules(unit, end_of_word, end_of_word_symbol)?,
        num_merges,
        vocab_size,
        min_frequency,
        tie_break: TieBreak::parse(tie_break).map_err(to_py_err)?,
        reserved,
    };
    let table = &counter.inner.table;
    let trained = py
        .detach(|| {
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
        })
        .map_err(to_py_err)?;
    Ok((trained.alphabet, trained.merges))
}

/// A set of special tokens to recognise in text (tiktoken's `allowed_special`).
#[pyclass(module = "subword._core", frozen)]
struct Specials {
    inner: SpecialMatcher,
    tokens: Vec<String>,
}

#[pymethods]
impl Specials {
    #[new]
    fn new(tokens: Vec<(String, u32)>) -> PyResult<Self> {
        match SpecialMatcher::new(&tokens).map_err(to_py_err)? {
            Some(inner) => Ok(Specials {
                inner,
                tokens: tokens.into_iter().map(|(t, _)| t).collect(),
            }),
            None => Err(PyValueError::new_err("no special tokens given")),
        }
    }

    /// The special tokens this set recognises.
    fn tokens(&self) -> Vec<String> {
        self.tokens.clone()
    }
}

/// A built tokenizer model: encode and decode.
#[pyclass(module = "subword._core", frozen, name = "Model")]
struct PyModel {
    inner: Model,
}

#[pymethods]
impl PyModel {
    #[new]
    #[pyo3(signature = (vocab, merges, specials, *, unit, end_of_word, end_of_word_symbol,
                        normalization, lowercase, pattern, merge_rule, ignore_merges, unk_id))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        vocab: Vec<(String, u32)>,
        merges: Vec<(String, String)>,
        specials: Vec<(String, u32)>,
        unit: &str,
        end_of_word: &str,
        end_of_word_symbol: &str,
        normalization: Option<&str>,
        lowercase: bool,
        pattern: Option<&str>,
        merge_rule: &str,
        ignore_merges: bool,
        unk_id: Option<u32>,
    ) -> PyResult<Self> {
        let config = ModelConfig {
            normalizer: normalizer(normalization, lowercase)?,
            pre_tokenizer: pre_tokenizer(pattern)?,
            rules: symbol_rules(unit, end_of_word, end_of_word_symbol)?,
            merge_rule: match merge_rule {
                "merges" => MergeRule::Merges,
                "ranks" => MergeRule::Ranks,
                other => {
                    return Err(PyValueError::new_err(format!(
                        "unknown merge_rule {other:?}"
                    )))
                }
            },
            ignore_merges,
            unknown: unk_id.map_or(Unknown::Error, Unknown::Unk),
        };
        let model = py
            .detach(|| Model::new(config, vocab, &merges, specials))
            .map_err(to_py_err)?;
        Ok(PyModel { inner: model })
    }

    #[pyo3(signature = (text, specials=None))]
    fn encode(
        &self,
        py: Python<'_>,
        text: &str,
        specials: Option<&Specials>,
    ) -> PyResult<Vec<u32>> {
        let matcher = specials.map(|s| &s.inner);
        py.detach(|| self.inner.encode(text, matcher))
            .map_err(to_py_err)
    }

    #[pyo3(signature = (texts, specials=None, num_threads=None))]
    fn encode_batch(
        &self,
        py: Python<'_>,
        texts: Vec<String>,
        specials: Option<&Specials>,
        num_threads: Option<usize>,
    ) -> PyResult<Vec<Vec<u32>>> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let matcher = specials.map(|s| &s.inner);
        let run = || self.inner.encode_batch(&refs, matcher);
        let result = match num_threads {
            None => py.detach(run),
            Some(n) => {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .map_err(|e| PyValueError::new_err(format!("cannot start {n} threads: {e}")))?;
                py.detach(|| pool.install(run))
            }
        };
        result.map_err(to_py_err)
    }

    /// Encodes pieces that were pre-tokenized by the caller (no normalization, no
    /// pre-tokenization, no special tokens): one list of ids per piece.
    fn encode_pieces(&self, py: Python<'_>, pieces: Vec<String>) -> PyResult<Vec<Vec<u32>>> {
        py.detach(|| {
            pieces
                .iter()
                .map(|p| {
                    let mut out = Vec::new();
                    self.inner.encode_piece(p, &mut out).map(|_| out)
                })
                .collect::<crate::error::Result<Vec<_>>>()
        })
        .map_err(to_py_err)
    }

    fn decode_bytes<'py>(&self, py: Python<'py>, ids: Vec<u32>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = self.inner.decode_bytes(&ids).map_err(to_py_err)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// id → token string, for the ids the model uses (unused ids are absent).
    fn id_to_token(&self) -> Vec<(u32, String)> {
        (0..self.inner.tokens.len() as u32)
            .filter_map(|id| self.inner.token(id).map(|t| (id, t.to_string())))
            .collect()
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<PyNormalizer>()?;
    m.add_class::<WordCounter>()?;
    m.add_class::<Specials>()?;
    m.add_class::<PyModel>()?;
    m.add_function(wrap_pyfunction!(train, m)?)?;
    add_subword_nmt(m)?;
    Ok(())
}

// --- subword-nmt codes files: learning with counts, segmenting (`crate::segment`) ---------

fn add_subword_nmt(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySegmenter>()?;
    m.add_function(wrap_pyfunction!(learn_codes, m)?)?;
    m.add_function(wrap_pyfunction!(count_nmt_words, m)?)?;
    Ok(())
}

/// Counts the words of `text` into `counter` as subword-nmt reads them.
#[pyfunction]
fn count_nmt_words(py: Python<'_>, mut counter: PyRefMut<'_, WordCounter>, text: &str) {
    let table = &mut counter.inner.table;
    py.detach(|| crate::segment::count_words(text, table));
}

/// subword-nmt's learn-bpe on a counter's table: characters with `</w>` attached to the
/// last one, ties to the greatest pair. Returns (left, right, count) per merge; there may
/// be more than `num_merges` when a merge makes a string that already existed.
#[pyfunction]
#[pyo3(signature = (counter, *, num_merges, min_frequency, show_progress))]
fn learn_codes(
    py: Python<'_>,
    counter: &WordCounter,
    num_merges: usize,
    min_frequency: u64,
    show_progress: bool,
) -> PyResult<Vec<(String, String, u64)>> {
    let config = TrainConfig {
        rules: symbol_rules("chars", "attached", crate::segment::END_OF_WORD)?,
        num_merges: Some(num_merges),
        vocab_size: None,
        min_frequency,
        tie_break: TieBreak::SubwordNmt,
        reserved: 0,
    };
    let table = &counter.inner.table;
    let trained = py
        .detach(|| {
            let bar = progress::bar(show_progress, Some(num_merges as u64), "merging", "merges");
            let result = train_core(table, &config, &mut |done: usize, _: Option<usize>| {
                bar.set_position(done as u64)
            });
            bar.finish_and_clear();
            result
        })
        .map_err(to_py_err)?;
    Ok(trained
        .merges
        .into_iter()
        .zip(trained.counts)
        .map(|((a, b), count)| (a, b, count))
        .collect())
}

/// Segments text with a codes file's merges as `subword-nmt apply-bpe` does.
#[pyclass(module = "subword._core", name = "Segmenter")]
struct PySegmenter {
    inner: crate::segment::Segmenter,
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
        let version = crate::segment::CodesVersion::parse(version).map_err(to_py_err)?;
        let inner = py
            .detach(|| {
                crate::segment::Segmenter::new(
                    &merges, version, separator, vocabulary, glossaries, seed,
                )
            })
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

    fn add_isolations(&mut self, words: Vec<(String, Option<crate::segment::Isolation>)>) {
        self.inner.add_isolations(words)
    }
}
