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

use super::lists;
use crate::pages::prefetch;

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
                for (i, &item) in items.iter().enumerate() {
                    if let Some(&ahead) = items.get(i + AHEAD) {
                        prefetch(ahead);
                    }
                    out.take(i, item)?;
                }
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
    /// `item` NULL is the error the sequence has set.
    #[inline(always)]
    fn take(&mut self, i: usize, item: *mut ffi::PyObject) -> PyResult<()> {
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
        Ok(())
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
