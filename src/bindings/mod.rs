//! The PyO3 layer: converts between Python objects and the core's types, maps errors to
//! Python exceptions, releases the GIL around long work. No algorithm lives here.

mod compress;
mod nmt;
mod progress;

use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::count::{Counter, Utf8Errors};
use crate::encode::SpecialMatcher;
use crate::error::{Error, ErrorKind};
use crate::model::{Algorithm, MergeRule, Model, ModelConfig, Unknown};
use crate::normalize::{Form, Normalizer};
use crate::pretokenize::{check_fast_against_regex, FastPattern, PreTokenizer};
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
}

#[pymethods]
impl Specials {
    #[new]
    fn new(tokens: Vec<(String, u32)>) -> PyResult<Self> {
        match SpecialMatcher::new(&tokens).map_err(to_py_err)? {
            Some(inner) => Ok(Specials { inner }),
            None => Err(PyValueError::new_err("no special tokens given")),
        }
    }

    /// The special tokens this set recognises.
    fn tokens(&self) -> Vec<String> {
        self.inner.tokens().to_vec()
    }

    /// Raises ValueError naming the first of these tokens that `text` contains.
    fn refuse_in(&self, py: Python<'_>, text: &str) -> PyResult<()> {
        py.detach(|| self.inner.refuse_in(text)).map_err(to_py_err)
    }
}

/// A built tokenizer model: encode and decode.
#[pyclass(module = "subword._core", frozen, name = "Model")]
struct PyModel {
    inner: Model,
    /// The Python int of every id, made once: a list of ids is then built by reference,
    /// not by allocating an int per token (which was most of the cost of list output).
    ints: Vec<Py<PyAny>>,
}

#[pymethods]
impl PyModel {
    #[new]
    #[pyo3(signature = (vocab, merges, specials, *, unit, end_of_word, end_of_word_symbol,
                        normalization, lowercase, pattern, merge_rule, ignore_merges, unk_id,
                        greedy_prefix=None, specials_in_pattern=false))]
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
        greedy_prefix: Option<String>,
        specials_in_pattern: bool,
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
            algorithm: greedy_prefix.map_or(Algorithm::Bpe, |prefix| Algorithm::Greedy { prefix }),
            specials_in_pattern,
        };
        let model = py
            .detach(|| Model::new(config, vocab, &merges, specials))
            .map_err(to_py_err)?;
        let ints = (0..model.tokens.len() as u32)
            .map(|id| Ok(id.into_pyobject(py)?.into_any().unbind()))
            .collect::<PyResult<_>>()?;
        Ok(PyModel { inner: model, ints })
    }

    /// Ids of `text`: `specials` are encoded as themselves, and finding one of `forbidden`
    /// is an error (tiktoken's allowed and disallowed special tokens).
    #[pyo3(signature = (text, specials=None, forbidden=None, dropout=None, seed=0))]
    fn encode<'py>(
        &self,
        py: Python<'py>,
        text: &str,
        specials: Option<&Specials>,
        forbidden: Option<&Specials>,
        dropout: Option<f64>,
        seed: u64,
    ) -> PyResult<Bound<'py, PyList>> {
        let matcher = specials.map(|s| &s.inner);
        let ids = detached_if_long(py, text, || {
            if let Some(forbidden) = forbidden {
                forbidden.inner.refuse_in(text)?;
            }
            match dropout {
                None => self.inner.encode(text, matcher),
                Some(p) => self.inner.encode_dropout(text, matcher, p, seed),
            }
        })
        .map_err(to_py_err)?;
        self.id_list(py, &ids)
    }

    /// `encode` as a NumPy uint32 array that owns the ids (no copy).
    #[pyo3(signature = (text, specials=None, forbidden=None))]
    fn encode_to_numpy<'py>(
        &self,
        py: Python<'py>,
        text: &str,
        specials: Option<&Specials>,
        forbidden: Option<&Specials>,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let matcher = specials.map(|s| &s.inner);
        let ids = detached_if_long(py, text, || {
            if let Some(forbidden) = forbidden {
                forbidden.inner.refuse_in(text)?;
            }
            self.inner.encode(text, matcher)
        })
        .map_err(to_py_err)?;
        Ok(ids.into_pyarray(py))
    }

    #[pyo3(signature = (texts, specials=None, forbidden=None, num_threads=None))]
    fn encode_batch<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<String>,
        specials: Option<&Specials>,
        forbidden: Option<&Specials>,
        num_threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let (matcher, forbidden) = (specials.map(|s| &s.inner), forbidden.map(|s| &s.inner));
        let batch = on_threads(py, num_threads, || {
            self.inner.encode_batch(&refs, matcher, forbidden)
        })?;
        PyList::new(
            py,
            batch
                .iter()
                .map(|ids| self.id_list(py, ids))
                .collect::<PyResult<Vec<_>>>()?,
        )
    }

    /// A batch as one flat uint32 array of ids and a uint64 array of offsets (one more
    /// than the texts): the ids of text i are `ids[offsets[i]:offsets[i + 1]]`.
    #[pyo3(signature = (texts, specials=None, forbidden=None, num_threads=None))]
    #[allow(clippy::type_complexity)]
    fn encode_batch_to_numpy<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<String>,
        specials: Option<&Specials>,
        forbidden: Option<&Specials>,
        num_threads: Option<usize>,
    ) -> PyResult<(Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<u64>>)> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let (matcher, forbidden) = (specials.map(|s| &s.inner), forbidden.map(|s| &s.inner));
        let (flat, offsets) = on_threads(py, num_threads, || {
            self.inner.encode_batch_flat(&refs, matcher, forbidden)
        })?;
        Ok((flat.into_pyarray(py), offsets.into_pyarray(py)))
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

impl PyModel {
    /// `ids` as a Python list of ints, sharing the ints made when the model was built.
    fn id_list<'py>(&self, py: Python<'py>, ids: &[u32]) -> PyResult<Bound<'py, PyList>> {
        let items = ids.iter().map(|&id| match self.ints.get(id as usize) {
            Some(int) => Ok(int.bind(py).clone()),
            None => Ok(id.into_pyobject(py)?.into_any()),
        });
        PyList::new(py, items.collect::<PyResult<Vec<_>>>()?)
    }
}

/// Texts shorter than this are encoded holding the GIL: releasing and taking it back costs
/// about as much as encoding a short line, and other threads gain nothing in that time.
const DETACH_MIN_BYTES: usize = 2048;

/// Runs `work` on `text` without the GIL when the text is long enough to be worth it.
fn detached_if_long<T: Send>(py: Python<'_>, text: &str, work: impl FnOnce() -> T + Send) -> T {
    if text.len() < DETACH_MIN_BYTES {
        work()
    } else {
        py.detach(work)
    }
}

/// Runs `work` without the GIL, on the global rayon pool or on `num_threads` threads.
fn on_threads<T: Send>(
    py: Python<'_>,
    num_threads: Option<usize>,
    work: impl FnOnce() -> crate::error::Result<T> + Send + Sync,
) -> PyResult<T> {
    let result = match num_threads {
        None => py.detach(work),
        Some(n) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| PyValueError::new_err(format!("cannot start {n} threads: {e}")))?;
            py.detach(|| pool.install(work))
        }
    };
    result.map_err(to_py_err)
}

/// Where the merge that builds each token of a ranked byte vocabulary, (token, rank)
/// pairs, cuts it (the left part's length; 0 for no merge).
#[pyfunction]
fn recover_merge_cuts(py: Python<'_>, tokens: Vec<(Vec<u8>, u32)>) -> Vec<usize> {
    let refs: Vec<(&[u8], u32)> = tokens.iter().map(|(t, r)| (t.as_slice(), *r)).collect();
    py.detach(|| crate::model::recover_merge_cuts(&refs))
}

/// The pieces of `text` under `pattern`; `use_fast=False` forces fancy-regex even for the
/// fixed patterns (for differential tests and benchmarks).
#[pyfunction]
#[pyo3(signature = (pattern, text, use_fast=true))]
fn pretokenize(py: Python<'_>, pattern: &str, text: &str, use_fast: bool) -> PyResult<Vec<String>> {
    let pre = if use_fast {
        PreTokenizer::regex(pattern)
    } else {
        PreTokenizer::regex_only(pattern)
    }
    .map_err(to_py_err)?;
    py.detach(|| pre.pieces(text)).map_err(to_py_err)
}

/// Where the fast splitter for `pattern` and fancy-regex first disagree over `texts`:
/// (text index, piece index), or None.
#[pyfunction]
fn pretokenize_first_difference(
    py: Python<'_>,
    pattern: &str,
    texts: Vec<String>,
) -> PyResult<Option<(usize, usize)>> {
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    py.detach(|| check_fast_against_regex(pattern, &refs))
        .map_err(to_py_err)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<PyNormalizer>()?;
    m.add_class::<WordCounter>()?;
    m.add_class::<Specials>()?;
    m.add_class::<PyModel>()?;
    m.add_function(wrap_pyfunction!(train, m)?)?;
    m.add_function(wrap_pyfunction!(pretokenize, m)?)?;
    m.add_function(wrap_pyfunction!(recover_merge_cuts, m)?)?;
    m.add_function(wrap_pyfunction!(pretokenize_first_difference, m)?)?;
    let fast_patterns = pyo3::types::PyDict::new(m.py());
    for fast in FastPattern::ALL {
        fast_patterns.set_item(fast.name(), fast.regex())?;
    }
    m.add("FAST_PATTERNS", fast_patterns)?;
    compress::register(m)?;
    nmt::register(m)?;
    Ok(())
}
