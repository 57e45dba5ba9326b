//! A batch's texts, borrowed from Python without copying any of them.
//!
//! Each str gets a reference of its own, taken in the same pass that borrows its UTF-8 and
//! given back when the batch is done: the caller's list may change while the GIL is
//! released, but no str the batch reads can be freed. The strs of a large batch are far
//! from the core, so each pass asks for a str's header some items before it reaches it
//! (why: docs/performance.md#batches-texts-in-one-pass).

use std::ptr::NonNull;

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::errors::{invalid_input, to_py_err};
use super::lists;
use crate::pages::prefetch;
use crate::pipeline::{Arriving, SpecialMatcher, Tokenizer};
use crate::threads::{team_size, Helpers};

/// How many items ahead a pass asks for a str's header: far enough to cover a miss to
/// memory at a few nanoseconds an item.
const AHEAD: usize = 32;

pub(super) struct Texts<'py> {
    py: Python<'py>,
    /// One reference to each str, given back on drop.
    held: Vec<NonNull<ffi::PyObject>>,
    /// Each text's UTF-8. `'static` stands for "as long as `held`": the only way out is
    /// `strs`, whose borrow of `self` ties them to it.
    utf8: Vec<&'static str>,
}

impl<'py> Texts<'py> {
    /// The strs of `texts` (any sequence of str). A str itself is refused (it would be a
    /// batch of its characters), and so is any item that is not a str, naming its position;
    /// a str with a lone surrogate raises Python's UnicodeEncodeError.
    pub(super) fn new(texts: &Bound<'py, PyAny>) -> PyResult<Self> {
        let py = texts.py();
        // SAFETY: a live object; the checks only read its type's flags.
        let (is_str, is_list, is_tuple) = unsafe {
            let p = texts.as_ptr();
            (
                ffi::PyUnicode_Check(p) != 0,
                ffi::PyList_CheckExact(p) != 0,
                ffi::PyTuple_CheckExact(p) != 0,
            )
        };
        if is_str {
            return Err(PyTypeError::new_err(
                "a batch is a list of str, not one str: wrap it as [text]",
            ));
        }
        if is_list {
            // SAFETY: checked to be a list just above.
            let list = unsafe { texts.cast_unchecked::<PyList>() };
            // SAFETY: no Python code runs while `items` is used: `take` only reads strs
            // (and a refused item's type name), and the loop stops at the first error.
            if let Some(items) = unsafe { lists::items(list) } {
                let mut out = Texts::with_capacity(py, items.len());
                out.take_items(items, |_| ())?;
                return Ok(out);
            }
        }
        // A list or tuple is read in place; any other sequence is made a tuple first.
        let seq = if is_list || is_tuple {
            texts.clone()
        } else {
            // SAFETY: PySequence_Tuple returns a new reference, or NULL with an error set.
            unsafe { Bound::from_owned_ptr_or_err(py, ffi::PySequence_Tuple(texts.as_ptr())) }?
        };
        let get = if is_list {
            ffi::PyList_GetItem
        } else {
            ffi::PyTuple_GetItem
        };
        // SAFETY: a live list or tuple.
        let n = unsafe { ffi::PyObject_Size(seq.as_ptr()) };
        if n < 0 {
            return Err(PyErr::fetch(py));
        }
        let mut out = Texts::with_capacity(py, n as usize);
        for i in 0..n {
            // SAFETY: a borrowed item of a live list or tuple, or NULL with an error set
            // (which `take` reports).
            let item = unsafe { get(seq.as_ptr(), i) };
            out.take(i as usize, item)?;
        }
        Ok(out)
    }

    /// Takes `items` (a list's, read in place), handing each text to `each` as soon as it
    /// is borrowed; stops at the first item that is not a str. The texts taken before it
    /// stay held, so that threads given them can finish with them.
    fn take_items(
        &mut self,
        items: &[*mut ffi::PyObject],
        mut each: impl FnMut(&'static str),
    ) -> PyResult<()> {
        for (i, &item) in items.iter().enumerate() {
            if let Some(&ahead) = items.get(i + AHEAD) {
                prefetch(ahead);
            }
            each(self.take(i, item)?);
        }
        Ok(())
    }

    /// No texts yet, room for `n`. Made before the first is taken, so that an error part
    /// way gives back the references already taken (on drop).
    fn with_capacity(py: Python<'py>, n: usize) -> Self {
        Texts {
            py,
            held: Vec::with_capacity(n),
            utf8: Vec::with_capacity(n),
        }
    }

    /// Borrows the UTF-8 of `item`, text `i` of the batch, and takes a reference to it;
    /// `item` NULL is the error the sequence has set. The text is `'static` as the field
    /// `utf8` is: it lives as long as `self`.
    #[inline(always)]
    fn take(&mut self, i: usize, item: *mut ffi::PyObject) -> PyResult<&'static str> {
        let py = self.py;
        let Some(object) = NonNull::new(item) else {
            return Err(PyErr::fetch(py));
        };
        // SAFETY: a live object, borrowed from the batch's sequence; the exact test is a
        // pointer compare, the subclass test reads its type's flags.
        let is_str =
            unsafe { ffi::PyUnicode_CheckExact(item) != 0 || ffi::PyUnicode_Check(item) != 0 };
        if !is_str {
            // SAFETY: as above.
            let item = unsafe { Bound::from_borrowed_ptr(py, item) };
            let kind = item.get_type().name()?;
            return Err(PyTypeError::new_err(format!(
                "text {i} of the batch is {kind}, not str"
            )));
        }
        let mut size: ffi::Py_ssize_t = 0;
        // SAFETY: a str; the UTF-8 buffer it returns lives as long as the str; NULL comes
        // with an error set (a lone surrogate).
        let ptr = unsafe { ffi::PyUnicode_AsUTF8AndSize(item, &mut size) };
        if ptr.is_null() {
            return Err(PyErr::fetch(py));
        }
        // SAFETY: a live str; `drop` gives the reference back.
        unsafe { ffi::Py_IncRef(item) };
        self.held.push(object);
        // SAFETY: `size` bytes of valid UTF-8 at `ptr` (CPython's own encoding of the str),
        // alive while the str is, which `held` keeps; see the field's note on `'static`.
        let text = unsafe {
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                ptr.cast::<u8>(),
                size as usize,
            ))
        };
        self.utf8.push(text);
        Ok(text)
    }

    /// The texts, borrowed for as long as `self` lives.
    pub(super) fn strs(&self) -> &[&str] {
        &self.utf8
    }
}

impl Drop for Texts<'_> {
    /// Gives back each str's reference. The GIL is held: `Texts` holds a `Python` token,
    /// which never leaves the thread that holds the GIL.
    fn drop(&mut self) {
        self.utf8.clear();
        for (i, item) in self.held.iter().enumerate() {
            if let Some(ahead) = self.held.get(i + AHEAD) {
                prefetch(ahead.as_ptr());
            }
            // SAFETY: the reference `take` took for this str.
            unsafe { ffi::Py_DecRef(item.as_ptr()) };
        }
    }
}

/// Lists of at least this many texts are encoded while they are borrowed (`encode_arriving`):
/// below it, borrowing them all takes less than waking a helper.
const ARRIVING_MIN_TEXTS: usize = 4096;

/// A batch given as a list of at least `ARRIVING_MIN_TEXTS` items, encoded by `helpers`
/// while this thread borrows its texts, then by this thread too without the GIL
/// (docs/performance.md#batches-texts-encoded-as-they-arrive); its flat ids and offsets as
/// `Tokenizer::encode_batch_flat` gives them. `None` when the batch is not such a list:
/// the caller takes the usual path.
pub(super) fn encode_arriving(
    texts: &Bound<'_, PyAny>,
    tokenizer: &Tokenizer,
    specials: Option<&SpecialMatcher>,
    forbidden: Option<&SpecialMatcher>,
    helpers: &Helpers,
) -> Option<PyResult<(Vec<u32>, Vec<u64>)>> {
    let py = texts.py();
    // SAFETY: the exact test reads the object's type.
    if unsafe { ffi::PyList_CheckExact(texts.as_ptr()) } == 0 {
        return None;
    }
    // SAFETY: checked to be a list just above.
    let list = unsafe { texts.cast_unchecked::<PyList>() };
    // SAFETY: no Python code runs while `items` is used: taking the texts only reads strs
    // (and a refused item's type name); the GIL is released only after the last is taken.
    let items = unsafe { lists::items(list) }?;
    if items.len() < ARRIVING_MIN_TEXTS {
        return None;
    }
    let threads = team_size(Some(helpers));
    // Declared before `arriving`, so dropped after it: the texts outlive every use.
    let mut held = Texts::with_capacity(py, items.len());
    let arriving = Arriving::new(items.len(), threads);
    let taken = helpers.scope(|scope| {
        for _ in 1..threads {
            scope.spawn(|_| tokenizer.encode_arrived(&arriving, specials, forbidden));
        }
        let taken = match arriving.feeder() {
            Some(mut feeder) => held.take_items(items, |text| {
                // Room for every item: the capacity is the list's length.
                feeder.push(text);
            }),
            None => Err(invalid_input("a batch's texts were fed twice")),
        };
        // The feeder is dropped: the batch is closed, whatever happened.
        py.detach(|| {
            tokenizer.encode_arrived(&arriving, specials, forbidden);
            arriving.wait_for_team();
        });
        taken
    });
    let encoded = taken
        .and_then(|()| {
            py.detach(|| arriving.finish(Some(helpers)))
                .map_err(to_py_err)
        })
        .and_then(|(flat, offsets)| {
            if offsets.len() == items.len() + 1 {
                Ok((flat, offsets))
            } else {
                // Not expected: the feeder has room for every item.
                Err(invalid_input("a batch's texts went missing"))
            }
        });
    Some(encoded)
}
