//! `_core.Model`: a built tokenizer (`crate::pipeline::Tokenizer`), encode and decode; and
//! `recover_merge_cuts`, for building merge lists from ranked vocabularies.

use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use super::arrays::owned_u32_array;
use super::errors::{invalid_input, to_py_err};
use super::ids::ids_in;
use super::lists::{self, new_list};
use super::options::model_config;
use super::pool::helpers_for;
use super::specials::Specials;
use super::texts::{encode_arriving, Texts};
use crate::formats::{sentencepiece, tiktoken};
use crate::pages::{give_back_result, give_back_run};
use crate::pipeline::{Runs, SpecialMatcher, Tokenizer};
use crate::threads::{team_size, Helpers};
use std::sync::mpsc::TryRecvError;

/// A built tokenizer model: encode and decode.
#[pyclass(module = "subword._core", frozen, name = "Model")]
pub(super) struct PyModel {
    pub(super) inner: Tokenizer,
    /// The Python int of every id, made once: a list of ids is then built by reference,
    /// not by allocating an int per token (which was most of the cost of list output).
    ints: Vec<Py<PyAny>>,
}

#[pymethods]
impl PyModel {
    /// `vocab` and `specials`: (token, id); `merges` in rank order; `options` a dict of
    /// the configuration (`bindings/options.rs` lists the keys).
    #[new]
    #[pyo3(signature = (vocab, merges, specials, options=None))]
    fn new(
        py: Python<'_>,
        vocab: Vec<(String, u32)>,
        merges: Vec<(String, String)>,
        specials: Vec<(String, u32)>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let config = model_config(options)?;
        let model = py
            .detach(|| Tokenizer::new(config, vocab, &merges, specials))
            .map_err(to_py_err)?;
        Self::wrap(py, model)
    }

    /// A tiktoken model from the bytes of its `.tiktoken` file (`path` names it in errors),
    /// read and built without a Python object per token.
    #[staticmethod]
    #[pyo3(signature = (data, path, specials, options=None))]
    fn from_tiktoken(
        py: Python<'_>,
        data: &[u8],
        path: &str,
        specials: Vec<(String, u32)>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let config = model_config(options)?;
        let model = py
            .detach(|| {
                let ranks = tiktoken::read_ranks(data, path, &specials)?;
                Tokenizer::from_byte_ranks(config, ranks, specials)
            })
            .map_err(to_py_err)?;
        Self::wrap(py, model)
    }

    /// A SentencePiece BPE model from the bytes of its `.model` file (`path` names it in
    /// errors).
    #[staticmethod]
    fn from_sentencepiece(py: Python<'_>, data: &[u8], path: &str) -> PyResult<Self> {
        let model = py
            .detach(|| {
                let model = sentencepiece::read_model(data, path)?;
                Tokenizer::from_sentencepiece(&model).map_err(|e| in_file(path, e))
            })
            .map_err(to_py_err)?;
        Self::wrap(py, model)
    }

    /// Whether this is a SentencePiece model (its decoding rules differ).
    pub(super) fn is_sentencepiece(&self) -> bool {
        self.inner.algorithm.sentencepiece().is_some()
    }

    /// What decoding does with the `▁` in front of the first word: "keep", "first_piece"
    /// or "while_empty" (SentencePiece's rules).
    fn leading_space(&self) -> &'static str {
        self.inner.leading_space().name()
    }

    /// Ids of `text`: `specials` are encoded as themselves, and finding one of `forbidden`
    /// is an error (tiktoken's allowed and disallowed special tokens).
    #[pyo3(signature = (text, specials=None, forbidden=None, dropout=None, seed=0))]
    pub(super) fn encode<'py>(
        &self,
        py: Python<'py>,
        text: &str,
        specials: Option<&Specials>,
        forbidden: Option<&Specials>,
        dropout: Option<f64>,
        seed: u64,
    ) -> PyResult<Bound<'py, PyList>> {
        let matcher = specials.map(|s| &s.inner);
        if dropout.is_none() {
            if let Some(list) = self.encode_short(py, text, specials, forbidden) {
                return Ok(list);
            }
        }
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
        let list = self.id_list(py, &ids);
        give_back_result(ids);
        list
    }

    /// `encode` as a NumPy uint32 array over the ids (no copy); a short text's ids are
    /// copied into a plain array instead, which costs less than the owner object.
    #[pyo3(signature = (text, specials=None, forbidden=None))]
    pub(super) fn encode_to_numpy<'py>(
        &self,
        py: Python<'py>,
        text: &str,
        specials: Option<&Specials>,
        forbidden: Option<&Specials>,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        if let Some(array) = self.encode_short_to_numpy(py, text, specials, forbidden) {
            return Ok(array);
        }
        let matcher = specials.map(|s| &s.inner);
        let ids = detached_if_long(py, text, || {
            if let Some(forbidden) = forbidden {
                forbidden.inner.refuse_in(text)?;
            }
            self.inner.encode(text, matcher)
        })
        .map_err(to_py_err)?;
        owned_u32_array(py, ids)
    }

    #[pyo3(signature = (texts, specials=None, forbidden=None, num_threads=None))]
    fn encode_batch<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        specials: Option<&Specials>,
        forbidden: Option<&Specials>,
        num_threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        let texts = Texts::new(texts)?;
        let refs = texts.strs();
        let (matcher, forbidden) = (specials.map(|s| &s.inner), forbidden.map(|s| &s.inner));
        let helpers = helpers_for(num_threads)?;
        let sharing = helpers
            .as_deref()
            .filter(|&p| Runs::worth_sharing(refs, Some(p)));
        if let Some(pool) = sharing {
            return self.lists_while_encoding(py, refs, matcher, forbidden, pool);
        }
        let (ids, offsets) = py
            .detach(|| {
                self.inner
                    .encode_batch_flat(refs, matcher, forbidden, helpers.as_deref())
            })
            .map_err(to_py_err)?;
        let list = new_list(py, refs.len())?;
        self.set_lists(py, &list, 0, &ids, &offsets[1..])?;
        give_back_result(ids);
        // SAFETY: a list made by PyList_New, every slot filled by `set_lists`.
        Ok(unsafe { list.cast_into_unchecked() })
    }

    /// A batch as one flat uint32 array of ids and a uint64 array of offsets (one more
    /// than the texts): the ids of text i are `ids[offsets[i]:offsets[i + 1]]`.
    #[pyo3(signature = (texts, specials=None, forbidden=None, num_threads=None))]
    #[allow(clippy::type_complexity)]
    fn encode_batch_to_numpy<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        specials: Option<&Specials>,
        forbidden: Option<&Specials>,
        num_threads: Option<usize>,
    ) -> PyResult<(Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<u64>>)> {
        let (matcher, forbidden) = (specials.map(|s| &s.inner), forbidden.map(|s| &s.inner));
        let helpers = helpers_for(num_threads)?;
        let arriving = helpers
            .as_deref()
            .and_then(|pool| encode_arriving(texts, &self.inner, matcher, forbidden, pool));
        if let Some(encoded) = arriving {
            let (flat, offsets) = encoded?;
            return Ok((owned_u32_array(py, flat)?, offsets.into_pyarray(py)));
        }
        let texts = Texts::new(texts)?;
        let refs = texts.strs();
        let (flat, offsets) = py
            .detach(|| {
                self.inner
                    .encode_batch_flat(refs, matcher, forbidden, helpers.as_deref())
            })
            .map_err(to_py_err)?;
        Ok((owned_u32_array(py, flat)?, offsets.into_pyarray(py)))
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

    /// `ids`: a list (or any iterable) of ints. Each is checked here, so that a negative,
    /// huge or non-integer id is an error naming it and its position, not an overflow.
    fn decode_bytes<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.decoded(ids)?))
    }

    /// `decode_bytes`, and the offsets where the bytes are decoded apart (SentencePiece's
    /// runs of byte pieces that a control piece ends: `Tokenizer::decode_runs`).
    fn decode_runs<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyBytes>, Vec<usize>)> {
        let (bytes, runs) = self
            .inner
            .decode_runs(&ids_in(ids, self.inner.tokens.len())?)
            .map_err(to_py_err)?;
        Ok((PyBytes::new(py, &bytes), runs))
    }

    /// The number of distinct tokens, special tokens included.
    fn vocab_size(&self) -> usize {
        self.inner.vocab_size()
    }

    /// The id of an ordinary token (not a special one), or `None`; also for a non-str.
    fn token_to_id(&self, token: &Bound<'_, PyAny>) -> Option<u32> {
        let name = token.cast::<PyString>().ok()?.to_str().ok()?;
        self.inner.vocab.get(name).copied()
    }

    /// The token of one id, or `None` for an id the model does not use.
    fn token_of(&self, id: u32) -> Option<&str> {
        self.inner.token(id)
    }

    /// id → token string, for the ids the model uses (unused ids are absent).
    fn id_to_token(&self) -> Vec<(u32, String)> {
        (0..self.inner.tokens.len() as u32)
            .filter_map(|id| self.inner.token(id).map(|t| (id, t.to_string())))
            .collect()
    }
}

impl PyModel {
    /// `encode` of a short text (no dropout) holding the GIL, or `None` for a long text or
    /// a failure, which the general path then encodes again and reports. Neither result
    /// carries a `PyErr`: a `PyResult` is about 70 bytes, copied through every caller on
    /// the way out, which cost several percent of a one-line call
    /// (docs/performance.md#short-calls-results-in-a-register).
    #[inline]
    pub(super) fn encode_short<'py>(
        &self,
        py: Python<'py>,
        text: &str,
        specials: Option<&Specials>,
        forbidden: Option<&Specials>,
    ) -> Option<Bound<'py, PyList>> {
        if text.len() >= DETACH_MIN_BYTES {
            return None;
        }
        with_scratch(|ids| {
            if let Some(forbidden) = forbidden {
                forbidden.inner.refuse_in(text).ok()?;
            }
            (self
                .inner
                .encode_into(text, specials.map(|s| &s.inner), ids))
            .ok()?;
            self.id_list(py, ids).ok()
        })
    }

    /// `encode_to_numpy`'s `encode_short`: a plain array with a copy of the ids. Written
    /// out twice on purpose: one generic helper for both (the list or the array made by a
    /// closure) cost 4% more per one-word array call, 230-238 -> 242-249 ns (three
    /// interleaved pairs, 2026-11-26), as a shared helper did before this one.
    #[inline]
    pub(super) fn encode_short_to_numpy<'py>(
        &self,
        py: Python<'py>,
        text: &str,
        specials: Option<&Specials>,
        forbidden: Option<&Specials>,
    ) -> Option<Bound<'py, PyArray1<u32>>> {
        if text.len() >= DETACH_MIN_BYTES {
            return None;
        }
        with_scratch(|ids| {
            if let Some(forbidden) = forbidden {
                forbidden.inner.refuse_in(text).ok()?;
            }
            (self
                .inner
                .encode_into(text, specials.map(|s| &s.inner), ids))
            .ok()?;
            super::arrays::u32_array(py, ids).ok()
        })
    }

    /// The bytes of the ids given to decode (each checked: `ids::ids_in`).
    fn decoded(&self, ids: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
        let ids = ids_in(ids, self.inner.tokens.len())?;
        self.inner.decode_bytes(&ids).map_err(to_py_err)
    }

    /// `decode_bytes` as a str, decoded by Python's UTF-8 codec with the `errors` handler
    /// (what `bytes.decode` does), without the bytes object. `None` for an `errors` that
    /// is not a C string (the caller's general path reports it).
    pub(super) fn decode_str<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'py, PyAny>,
        errors: &str,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let errors = match errors {
            "replace" => std::borrow::Cow::Borrowed(c"replace"),
            other => match std::ffi::CString::new(other) {
                Ok(name) => std::borrow::Cow::Owned(name),
                Err(_) => return Ok(None),
            },
        };
        let bytes = self.decoded(ids)?;
        let len = isize::try_from(bytes.len()).map_err(|_| invalid_input("too many bytes"))?;
        // SAFETY: `bytes` is valid for `len` bytes and `errors` is a C string; the call
        // returns a new str or NULL with an error set.
        unsafe {
            let text = pyo3::ffi::PyUnicode_DecodeUTF8(bytes.as_ptr().cast(), len, errors.as_ptr());
            Bound::from_owned_ptr_or_err(py, text).map(Some)
        }
    }

    /// The Python object of a built model, with the int of every id made once.
    fn wrap(py: Python<'_>, model: Tokenizer) -> PyResult<Self> {
        let ints = (0..model.tokens.len() as u32)
            .map(|id| Ok(id.into_pyobject(py)?.into_any().unbind()))
            .collect::<PyResult<_>>()?;
        Ok(PyModel { inner: model, ints })
    }

    /// A batch's lists, made (holding the GIL) as soon as each run of texts is encoded.
    /// Making lists is serial work: the helpers encode, and this thread makes the lists of
    /// finished runs and, whenever none is waiting, encodes a run itself, so both cores
    /// stay busy whichever of the two costs more on this text.
    fn lists_while_encoding<'py>(
        &self,
        py: Python<'py>,
        texts: &[&str],
        matcher: Option<&SpecialMatcher>,
        forbidden: Option<&SpecialMatcher>,
        helpers: &Helpers,
    ) -> PyResult<Bound<'py, PyList>> {
        type Encoded = crate::error::Result<(Vec<u32>, Vec<u64>)>;
        let threads = team_size(Some(helpers));
        let n = texts.len();
        // Short runs: the first lists can be made early, and the last run is short.
        let runs = Runs::for_threads(texts, threads, 32);
        let list = new_list(py, n)?;
        let (sender, mut receiver) = std::sync::mpsc::channel::<(usize, Encoded)>();
        let (inner, shared) = (&self.inner, &runs);
        let mut failed: Option<(usize, crate::error::Error)> = None;
        let mut filled = 0usize;
        let mut take = |part: usize, result: Encoded| -> PyResult<()> {
            match result {
                // Each text is in exactly one run.
                Ok((ids, ends)) => {
                    self.set_lists(py, &list, runs.first(part), &ids, &ends)?;
                    filled += ends.len();
                    give_back_run(ids);
                }
                // The earliest text's error, whichever run finished first.
                Err(e) => {
                    if failed.as_ref().is_none_or(|(first, _)| part < *first) {
                        failed = Some((part, e));
                    }
                }
            }
            Ok(())
        };
        helpers.scope(|scope| -> PyResult<()> {
            for _ in 1..threads {
                let sender = sender.clone();
                scope.spawn(move |_| {
                    while let Some(part) = shared.claim() {
                        let encoded = inner.encode_part(shared, part, matcher, forbidden);
                        // The receiver outlives this scope: sending cannot fail.
                        let _ = sender.send((part, encoded));
                    }
                });
            }
            drop(sender);
            loop {
                // A finished run of the pool's; else a run encoded here; else wait for one.
                let (part, encoded) = match receiver.try_recv() {
                    Ok(message) => message,
                    // Every run was claimed and the pool's are all here.
                    Err(TryRecvError::Disconnected) => return Ok(()),
                    Err(TryRecvError::Empty) => match shared.claim() {
                        Some(part) => (
                            part,
                            py.detach(|| inner.encode_part(shared, part, matcher, forbidden)),
                        ),
                        None => {
                            // Waiting without the GIL: other Python threads may run.
                            let (back, message) = py.detach(move || {
                                let message = receiver.recv();
                                (receiver, message)
                            });
                            receiver = back;
                            match message {
                                Ok(message) => message,
                                Err(_) => return Ok(()),
                            }
                        }
                    },
                };
                take(part, encoded)?;
            }
        })?;
        if let Some((_, e)) = failed {
            return Err(to_py_err(e));
        }
        if filled != n {
            return Err(invalid_input("a batch's runs went missing"));
        }
        // SAFETY: a list made by PyList_New.
        Ok(unsafe { list.cast_into_unchecked() })
    }

    /// Puts the lists of texts `first..` into `list`'s slots `first..`: text k's ids are
    /// `ids[ends[k - 1]..ends[k]]` (from 0 for the first).
    fn set_lists(
        &self,
        py: Python<'_>,
        list: &Bound<'_, PyAny>,
        first: usize,
        ids: &[u32],
        ends: &[u64],
    ) -> PyResult<()> {
        let mut start = 0;
        for (k, &end) in ends.iter().enumerate() {
            let item = self.id_list(py, &ids[start..end as usize])?;
            start = end as usize;
            // SAFETY: the caller's list has a slot for every text, `first + k` is a text's
            // index and each is set once; SetItem steals `item`.
            if unsafe {
                pyo3::ffi::PyList_SetItem(list.as_ptr(), (first + k) as isize, item.into_ptr())
            } != 0
            {
                return Err(PyErr::fetch(py));
            }
        }
        Ok(())
    }

    /// `ids` as a Python list of ints, sharing the ints made when the model was built.
    fn id_list<'py>(&self, py: Python<'py>, ids: &[u32]) -> PyResult<Bound<'py, PyList>> {
        // SAFETY: `id_list` returns a list.
        lists::id_list(py, &self.ints, ids).map(|list| unsafe { list.cast_into_unchecked() })
    }
}

thread_local! {
    /// The ids of a short text, reused call after call: no allocation per call.
    static SCRATCH: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` with this thread's emptied scratch buffer (a fresh one if it is in use, should a
/// call ever nest).
fn with_scratch<T>(f: impl FnOnce(&mut Vec<u32>) -> T) -> T {
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut ids) => {
            ids.clear();
            let out = f(&mut ids);
            // A huge result is not kept for the rest of the thread's life.
            if ids.capacity() > 1 << 16 {
                *ids = Vec::new();
            }
            out
        }
        Err(_) => f(&mut Vec::new()),
    })
}

/// Texts shorter than this are encoded holding the GIL: releasing and taking it back costs
/// about as much as encoding a short line, and other threads gain nothing in that time.
const DETACH_MIN_BYTES: usize = 2048;

/// Runs `work` on `text` without the GIL when the text is long enough to be worth it.
pub(super) fn detached_if_long<T: Send>(
    py: Python<'_>,
    text: &str,
    work: impl FnOnce() -> T + Send,
) -> T {
    if text.len() < DETACH_MIN_BYTES {
        work()
    } else {
        py.detach(work)
    }
}

/// Where the merge that builds each token of a ranked byte vocabulary, (token, rank)
/// pairs, cuts it (the left part's length; 0 for no merge).
#[pyfunction]
pub(super) fn recover_merge_cuts(py: Python<'_>, tokens: Vec<(Vec<u8>, u32)>) -> Vec<usize> {
    let refs: Vec<(&[u8], u32)> = tokens.iter().map(|(t, r)| (t.as_slice(), *r)).collect();
    py.detach(|| crate::algorithms::ranks::recover_merge_cuts(&refs))
}

/// The (token bytes, rank) pairs of a `.tiktoken` file's bytes, in file order; `specials`
/// may not reuse a rank. `path` names the file in errors.
#[pyfunction]
pub(super) fn read_tiktoken_ranks<'py>(
    py: Python<'py>,
    data: &[u8],
    path: &str,
    specials: Vec<(String, u32)>,
) -> PyResult<Vec<(Bound<'py, PyBytes>, u32)>> {
    let ranks = py
        .detach(|| tiktoken::read_ranks(data, path, &specials))
        .map_err(to_py_err)?;
    Ok(ranks
        .iter()
        .map(|(token, rank)| (PyBytes::new(py, token), rank))
        .collect())
}

/// A SentencePiece `.model` file as plain data: (pieces as (text, score, type), settings).
/// The settings dict holds byte_fallback, unk_surface, and the normalizer's name,
/// precompiled_charsmap, add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub(super) fn read_sentencepiece<'py>(
    py: Python<'py>,
    data: &[u8],
    path: &str,
) -> PyResult<(Vec<(String, f32, &'static str)>, Bound<'py, PyDict>)> {
    let model = py
        .detach(|| sentencepiece::read_model(data, path))
        .map_err(to_py_err)?;
    let settings = PyDict::new(py);
    settings.set_item("byte_fallback", model.byte_fallback)?;
    settings.set_item("unk_surface", &model.unk_surface)?;
    let n = &model.normalizer;
    settings.set_item("name", &n.name)?;
    settings.set_item("precompiled_charsmap", PyBytes::new(py, &n.charsmap))?;
    settings.set_item("add_dummy_prefix", n.add_dummy_prefix)?;
    settings.set_item("remove_extra_whitespaces", n.remove_extra_whitespaces)?;
    settings.set_item("escape_whitespaces", n.escape_whitespaces)?;
    let pieces = model
        .pieces
        .into_iter()
        .map(|p| (p.text, p.score, p.kind.name()))
        .collect();
    Ok((pieces, settings))
}

/// A model that does not hold together (a piece twice, no unknown piece) names its file.
fn in_file(path: &str, err: crate::error::Error) -> crate::error::Error {
    crate::error::Error::format(
        format!("{path}: {}", err.message),
        crate::error::Location {
            path: Some(path.to_string()),
            ..Default::default()
        },
    )
}
