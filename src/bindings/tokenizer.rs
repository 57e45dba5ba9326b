//! `_core.TokenizerBase`: the base class of Python's `Tokenizer`. Its `encode`,
//! `encode_ordinary` and `encode_to_numpy` take the common call (a str, tiktoken's default
//! special-token arguments or `disallowed_special=()`, a model the core encodes alone)
//! straight to `_core.Model`, and so does `decode` (a model the core encodes alone, not
//! SentencePiece); every other call goes to the Python methods `_encode`,
//! `_encode_ordinary`, `_encode_to_numpy` and `_decode`, which hold the rules.

use std::sync::OnceLock;

use numpy::PyArray1;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString, PyTuple};

use super::errors::invalid_input;
use super::model::PyModel;
use super::specials::Specials;

/// What the common call needs, set once by `_direct` when the model is built.
struct Direct {
    model: Py<PyModel>,
    /// The default plan: special tokens encoded as themselves, and those refused.
    matcher: Option<Py<Specials>>,
    forbidden: Option<Py<Specials>>,
}

type Plan<'a> = (&'a PyModel, Option<&'a Specials>, Option<&'a Specials>);

#[pyclass(module = "subword._core", subclass, frozen, name = "TokenizerBase")]
pub(super) struct TokenizerBase {
    direct: OnceLock<Direct>,
}

impl TokenizerBase {
    /// The model and `errors` name when decoding can run in the core: a model the core
    /// encodes alone (no pre-tokenizer in Python to rejoin pieces), not SentencePiece
    /// (whose decode rules are in Python), and `errors` a str without NUL (Python's path
    /// reports any other).
    fn core_decode<'a>(
        &'a self,
        errors: Option<&'a Bound<'_, PyAny>>,
    ) -> Option<(&'a PyModel, &'a str)> {
        let model = self.direct.get()?.model.get();
        let errors = match errors {
            None => "replace",
            Some(e) => e.cast::<PyString>().ok()?.to_str().ok()?,
        };
        (!model.is_sentencepiece() && !errors.contains('\0')).then_some((model, errors))
    }

    /// The model and special-token plan when the core alone can take a call with these
    /// arguments (`None`: not given); `None` sends the call to the Python method.
    fn plan<'a>(
        &'a self,
        allowed: Option<&Bound<'_, PyAny>>,
        disallowed: Option<&Bound<'_, PyAny>>,
    ) -> Option<Plan<'a>> {
        let direct = self.direct.get()?;
        let model = direct.model.get();
        // An empty `allowed_special` is the default; a set that cannot say whether it is
        // empty is left to Python, which reports it.
        if allowed.is_some_and(|a| !matches!(a.is_truthy(), Ok(false))) {
            return None;
        }
        let default = (
            model,
            direct.matcher.as_ref().map(Py::get),
            direct.forbidden.as_ref().map(Py::get),
        );
        match disallowed {
            None => Some(default),
            Some(d) => match d.is_truthy() {
                Ok(false) => Some((model, None, None)), // disallowed_special=(): all ordinary text
                Ok(true) if is_all(d) => Some(default),
                _ => None,
            },
        }
    }
}

/// Whether `value` is the string "all" (a literal "all" in Python code is the interned
/// string, found by identity).
fn is_all(value: &Bound<'_, PyAny>) -> bool {
    value.is(intern!(value.py(), "all"))
        || value
            .cast::<PyString>()
            .is_ok_and(|s| s.to_str().is_ok_and(|s| s == "all"))
}

/// `text` as UTF-8 when it is a str that has it (a lone surrogate has none: Python's
/// method replaces it, as tiktoken does).
fn utf8<'a>(text: &'a Bound<'_, PyAny>) -> Option<&'a str> {
    text.cast::<PyString>().ok()?.to_str().ok()
}

#[pymethods]
impl TokenizerBase {
    /// Python's `Tokenizer.__init__` takes the arguments; they pass through here unused.
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> Self {
        TokenizerBase {
            direct: OnceLock::new(),
        }
    }

    /// Sends the common calls straight to `model`, with `matcher` and `forbidden` as the
    /// default special-token plan. Set once, when the model is built.
    fn _direct(
        &self,
        model: Py<PyModel>,
        matcher: Option<Py<Specials>>,
        forbidden: Option<Py<Specials>>,
    ) -> PyResult<()> {
        self.direct
            .set(Direct {
                model,
                matcher,
                forbidden,
            })
            .map_err(|_| invalid_input("this tokenizer's model is already set"))
    }

    /// Token ids of `text`. Special tokens follow tiktoken's rules: those in
    /// `allowed_special` are encoded as themselves; finding one of `disallowed_special`
    /// (by default every special token not allowed) raises InvalidInputError.
    ///
    /// dropout: BPE-dropout — each merge is skipped with this probability when its turn
    /// comes; reproducible for a given `seed`. 0 gives plain encoding, 1 the initial
    /// symbols. max_tokens: at most this many ids, the first ones (`encode(text)[:N]`).
    #[pyo3(
        signature = (text, *, allowed_special=None, disallowed_special=None, dropout=None, seed=None, max_tokens=None),
        text_signature = "(self, text, *, allowed_special=(), disallowed_special='all', dropout=None, seed=0, max_tokens=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn encode<'py>(
        slf: &Bound<'py, Self>,
        text: &Bound<'py, PyAny>,
        allowed_special: Option<&Bound<'py, PyAny>>,
        disallowed_special: Option<&Bound<'py, PyAny>>,
        dropout: Option<&Bound<'py, PyAny>>,
        seed: Option<&Bound<'py, PyAny>>,
        max_tokens: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        if dropout.is_none() && max_tokens.is_none() {
            if let (Some((model, matcher, forbidden)), Some(text)) = (
                slf.get().plan(allowed_special, disallowed_special),
                utf8(text),
            ) {
                if let Some(ids) = model.encode_short(py, text, matcher, forbidden) {
                    return Ok(ids.into_any());
                }
                return Ok(model
                    .encode(py, text, matcher, forbidden, None, 0)?
                    .into_any());
            }
        }
        slf.call_method1(
            intern!(py, "_encode"),
            (
                text,
                allowed_special,
                disallowed_special,
                dropout,
                seed,
                max_tokens,
            ),
        )
    }

    /// Token ids of `text`, with special tokens treated as ordinary text.
    #[pyo3(text_signature = "(self, text)")]
    fn encode_ordinary<'py>(
        slf: &Bound<'py, Self>,
        text: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        if let (Some(direct), Some(text)) = (slf.get().direct.get(), utf8(text)) {
            let model = direct.model.get();
            if let Some(ids) = model.encode_short(py, text, None, None) {
                return Ok(ids.into_any());
            }
            let ids: Bound<'py, PyList> = model.encode(py, text, None, None, None, 0)?;
            return Ok(ids.into_any());
        }
        slf.call_method1(intern!(py, "_encode_ordinary"), (text,))
    }

    /// `encode` as a NumPy `uint32` array (no Python list is built).
    #[pyo3(
        signature = (text, *, allowed_special=None, disallowed_special=None),
        text_signature = "(self, text, *, allowed_special=(), disallowed_special='all')"
    )]
    fn encode_to_numpy<'py>(
        slf: &Bound<'py, Self>,
        text: &Bound<'py, PyAny>,
        allowed_special: Option<&Bound<'py, PyAny>>,
        disallowed_special: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        if let (Some((model, matcher, forbidden)), Some(text)) = (
            slf.get().plan(allowed_special, disallowed_special),
            utf8(text),
        ) {
            if let Some(ids) = model.encode_short_to_numpy(py, text, matcher, forbidden) {
                return Ok(ids.into_any());
            }
            let ids: Bound<'py, PyArray1<u32>> =
                model.encode_to_numpy(py, text, matcher, forbidden)?;
            return Ok(ids.into_any());
        }
        slf.call_method1(
            intern!(py, "_encode_to_numpy"),
            (text, allowed_special, disallowed_special),
        )
    }

    /// The text of `ids`. Byte-level ids that split a UTF-8 sequence follow `errors`
    /// (as `bytes.decode`). Classic models give the words separated by single spaces.
    /// A pre-tokenizer that runs in Python may rebuild the text from its pieces (the
    /// Korean one restores the spacing from its word-start marks); `join=False` gives
    /// the pieces as the core decodes them instead.
    #[pyo3(
        signature = (ids, errors=None, *, join=None),
        text_signature = "(self, ids, errors='replace', *, join=True)"
    )]
    fn decode<'py>(
        slf: &Bound<'py, Self>,
        ids: &Bound<'py, PyAny>,
        errors: Option<&Bound<'py, PyAny>>,
        join: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        if let Some((model, errors)) = slf.get().core_decode(errors) {
            if let Some(text) = model.decode_str(py, ids, errors)? {
                return Ok(text);
            }
        }
        let (errors, join) = decode_defaults(py, errors, join);
        slf.call_method1(intern!(py, "_decode"), (ids, errors, join))
    }

    /// The text of each id list of `batch` (`decode` of each). With `offsets`, `batch` is
    /// one flat array of ids and text i is `batch[offsets[i]:offsets[i + 1]]` (what
    /// `encode_batch_to_numpy` returns).
    #[pyo3(
        signature = (batch, errors=None, *, join=None, offsets=None),
        text_signature = "(self, batch, errors='replace', *, join=True, offsets=None)"
    )]
    fn decode_batch<'py>(
        slf: &Bound<'py, Self>,
        batch: &Bound<'py, PyAny>,
        errors: Option<&Bound<'py, PyAny>>,
        join: Option<&Bound<'py, PyAny>>,
        offsets: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        // `decode`'s core path for each list, with no Python call per list (`join` changes
        // nothing for a model with no pre-tokenizer in Python).
        if let (None, Some((model, errors))) = (offsets, slf.get().core_decode(errors)) {
            let texts = PyList::empty(py);
            for ids in batch.try_iter()? {
                let text = model.decode_str(py, &ids?, errors)?;
                texts.append(text.ok_or_else(|| invalid_input("errors: a name without NUL"))?)?;
            }
            return Ok(texts.into_any());
        }
        let (errors, join) = decode_defaults(py, errors, join);
        let kwargs = PyDict::new(py);
        kwargs.set_item(intern!(py, "join"), join)?;
        kwargs.set_item(intern!(py, "offsets"), offsets)?;
        slf.call_method(intern!(py, "_decode_batch"), (batch, errors), Some(&kwargs))
    }
}

/// `errors` and `join` as the Python methods take them, their defaults where not given.
fn decode_defaults<'py>(
    py: Python<'py>,
    errors: Option<&Bound<'py, PyAny>>,
    join: Option<&Bound<'py, PyAny>>,
) -> (Bound<'py, PyAny>, Bound<'py, PyAny>) {
    let errors = errors.map_or_else(|| intern!(py, "replace").clone().into_any(), Clone::clone);
    let join = join.map_or_else(|| PyBool::new(py, true).to_owned().into_any(), Clone::clone);
    (errors, join)
}
