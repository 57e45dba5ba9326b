//! The PyO3 layer: converts between Python objects and the core's types, maps errors to
//! Python exceptions (`errors`), reads option dicts (`options`), releases the GIL around
//! long work. No algorithm lives here. One file per Python class or group of functions:
//!
//! - `_core.Normalizer` (`normalizer`), `_core.WordCounter` (`counter`), `_core.train`
//!   (`train`), `_core.Specials` (`specials`), `_core.Model` and `recover_merge_cuts`
//!   (`model`), `_core.TokenizerBase`, the base of Python's `Tokenizer` (`tokenizer`),
//!   `_core.compress`/`decompress` (`compress`), the subword-nmt classes (`nmt`);
//! - lists of ids made for Python (`lists`), short texts' arrays of ids (`arrays`); ids
//!   given to decode (`ids`); a batch's texts borrowed from Python (`texts`);
//! - `_core._testing`: hooks used only by tests (`testing`);
//! - `parallel` (`pool`): how work that may use the rayon pool runs, also in forked processes.

mod arrays;
mod calls;
mod compress;
mod counter;
mod errors;
mod ids;
mod lists;
mod model;
mod nmt;
mod normalizer;
mod options;
mod pool;
mod progress;
mod specials;
mod testing;
mod texts;
mod tokenizer;
mod train;

use pyo3::prelude::*;

// What `nmt.rs` takes from here.
use counter::WordCounter;
pub(crate) use errors::to_py_err;
pub(crate) use pool::parallel;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // How this extension was built: "pgo" from scripts/build_wheel_pgo.sh, else "release"
    // (the benchmark records it with its figures).
    m.add("_build", option_env!("SUBWORD_BUILD").unwrap_or("release"))?;
    m.add_class::<normalizer::PyNormalizer>()?;
    m.add_class::<WordCounter>()?;
    m.add_class::<specials::Specials>()?;
    m.add_class::<model::PyModel>()?;
    m.add_class::<tokenizer::TokenizerBase>()?;
    m.add_function(wrap_pyfunction!(train::train, m)?)?;
    m.add_function(wrap_pyfunction!(model::recover_merge_cuts, m)?)?;
    m.add_function(wrap_pyfunction!(model::read_tiktoken_ranks, m)?)?;
    m.add_function(wrap_pyfunction!(model::read_sentencepiece, m)?)?;
    calls::register(m)?;
    compress::register(m)?;
    nmt::register(m)?;
    testing::register(m)?;
    Ok(())
}
