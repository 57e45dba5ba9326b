//! The options dicts of `_core.Model`, `_core.WordCounter` and `_core.train`, read in this
//! one place. Keys are the Python configuration's names; a missing key takes its default,
//! an unknown key is an error naming it, and a value of the wrong type is an error naming
//! its key.

use pyo3::conversion::FromPyObjectOwned;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::errors::{invalid_input, to_py_err};
use crate::algorithms::bpe::MergeRule;
use crate::algorithms::{AlgorithmConfig, Unknown};
use crate::normalize::{Form, Normalizer};
use crate::pipeline::TokenizerConfig;
use crate::pretokenize::PreTokenizer;
use crate::symbols::{EndOfWord, Kind, SymbolRules};
use crate::train::{TieBreak, TrainConfig};

/// An options dict (None: all defaults) whose keys were checked against `known`.
struct Options<'a, 'py> {
    dict: Option<&'a Bound<'py, PyDict>>,
    what: &'static str,
}

impl<'a, 'py> Options<'a, 'py> {
    fn new(
        dict: Option<&'a Bound<'py, PyDict>>,
        what: &'static str,
        known: &[&str],
    ) -> PyResult<Self> {
        if let Some(dict) = dict {
            for key in dict.keys() {
                let name: String = key.str()?.extract()?;
                if !known.contains(&name.as_str()) {
                    return Err(invalid_input(format!(
                        "{what}: unknown option {name:?}; the options are {}",
                        known.join(", ")
                    )));
                }
            }
        }
        Ok(Options { dict, what })
    }

    /// The value of `key`, or `default` when it is absent.
    fn get<T: FromPyObjectOwned<'py>>(&self, key: &str, default: T) -> PyResult<T> {
        let Some(value) = self.dict.map(|d| d.get_item(key)).transpose()?.flatten() else {
            return Ok(default);
        };
        value.extract::<T>().map_err(|e| {
            let e: PyErr = e.into();
            invalid_input(format!("{}: option {key:?}: {e}", self.what))
        })
    }
}

const MODEL_KEYS: &[&str] = &[
    "kind",
    "end_of_word",
    "end_of_word_symbol",
    "normalization",
    "lowercase",
    "pre_tokenizer",
    "merge_rule",
    "ignore_merges",
    "unk_id",
    "algorithm",
    "continuation_prefix",
    "specials_in_pattern",
];

/// `_core.Model`'s options as the tokenizer's configuration.
pub(super) fn model_config(options: Option<&Bound<'_, PyDict>>) -> PyResult<TokenizerConfig> {
    let o = Options::new(options, "Model options", MODEL_KEYS)?;
    let normalization: Option<String> = o.get("normalization", None)?;
    let pre_tokenizer: Option<String> = o.get("pre_tokenizer", None)?;
    let kind: String = o.get("kind", "classic".into())?;
    let end_of_word: String = o.get("end_of_word", "separate".into())?;
    let end_of_word_symbol: String = o.get("end_of_word_symbol", "</w>".into())?;
    let merge_rule = match o.get::<String>("merge_rule", "merges".into())?.as_str() {
        "merges" => MergeRule::Merges,
        "ranks" => MergeRule::Ranks,
        other => return Err(invalid_input(format!("unknown merge_rule {other:?}"))),
    };
    let algorithm = match o.get::<String>("algorithm", "bpe".into())?.as_str() {
        "bpe" => AlgorithmConfig::Bpe { merge_rule },
        "greedy" => AlgorithmConfig::Greedy {
            prefix: o.get("continuation_prefix", "##".into())?,
        },
        other => {
            return Err(invalid_input(format!(
                "unknown algorithm {other:?}: use bpe or greedy"
            )))
        }
    };
    let unk_id: Option<u32> = o.get("unk_id", None)?;
    Ok(TokenizerConfig {
        normalizer: normalizer(normalization.as_deref(), o.get("lowercase", false)?)?,
        pre_tokenizer: pre_tokenizer_of(pre_tokenizer.as_deref())?,
        rules: symbol_rules_of(kind_of(&kind)?, &end_of_word, &end_of_word_symbol)?,
        ignore_merges: o.get("ignore_merges", false)?,
        unknown: unk_id.map_or(Unknown::Error, Unknown::Unk),
        algorithm,
        specials_in_pattern: o.get("specials_in_pattern", false)?,
    })
}

/// `_core.WordCounter`'s options: what counting needs of the pipeline.
pub(super) fn counter_stages(
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<(Normalizer, PreTokenizer)> {
    let o = Options::new(
        options,
        "WordCounter options",
        &["normalization", "lowercase", "pre_tokenizer"],
    )?;
    let normalization: Option<String> = o.get("normalization", None)?;
    let pre_tokenizer: Option<String> = o.get("pre_tokenizer", None)?;
    Ok((
        normalizer(normalization.as_deref(), o.get("lowercase", false)?)?,
        pre_tokenizer_of(pre_tokenizer.as_deref())?,
    ))
}

const TRAIN_KEYS: &[&str] = &[
    "kind",
    "end_of_word",
    "end_of_word_symbol",
    "num_merges",
    "vocab_size",
    "min_frequency",
    "tie_break",
    "reserved",
    "show_progress",
];

/// `_core.train`'s options: the training configuration, and whether to show progress.
pub(super) fn train_config(options: Option<&Bound<'_, PyDict>>) -> PyResult<(TrainConfig, bool)> {
    let o = Options::new(options, "train options", TRAIN_KEYS)?;
    let kind: String = o.get("kind", "classic".into())?;
    let end_of_word: String = o.get("end_of_word", "separate".into())?;
    let end_of_word_symbol: String = o.get("end_of_word_symbol", "</w>".into())?;
    let tie_break: String = o.get("tie_break", "lexicographic".into())?;
    let config = TrainConfig {
        rules: symbol_rules_of(kind_of(&kind)?, &end_of_word, &end_of_word_symbol)?,
        num_merges: o.get("num_merges", None)?,
        vocab_size: o.get("vocab_size", None)?,
        min_frequency: o.get("min_frequency", 2)?,
        tie_break: TieBreak::parse(&tie_break).map_err(to_py_err)?,
        reserved: o.get("reserved", 0)?,
    };
    Ok((config, o.get("show_progress", false)?))
}

/// A model `kind` parsed.
fn kind_of(kind: &str) -> PyResult<Kind> {
    match kind {
        "classic" => Ok(Kind::Classic),
        "byte" => Ok(Kind::Byte),
        other => Err(invalid_input(format!(
            "unknown kind {other:?}: use classic or byte"
        ))),
    }
}

pub(super) fn normalizer(normalization: Option<&str>, lowercase: bool) -> PyResult<Normalizer> {
    let form = normalization
        .map(Form::parse)
        .transpose()
        .map_err(to_py_err)?;
    Ok(Normalizer {
        form,
        lowercase,
        ..Normalizer::default()
    })
}

/// The pre-tokenizer for a resolved regex, or whitespace splitting for None.
pub(super) fn pre_tokenizer_of(pre_tokenizer: Option<&str>) -> PyResult<PreTokenizer> {
    match pre_tokenizer {
        None => Ok(PreTokenizer::Whitespace),
        Some(p) => PreTokenizer::regex(p).map_err(to_py_err),
    }
}

fn symbol_rules_of(
    kind: Kind,
    end_of_word: &str,
    end_of_word_symbol: &str,
) -> PyResult<SymbolRules> {
    Ok(SymbolRules {
        kind,
        end_of_word: EndOfWord::parse(end_of_word).map_err(to_py_err)?,
        end_of_word_symbol: end_of_word_symbol.to_string(),
    })
}
