//! A batch's texts, borrowed from Python without copying any of them.
//!
//! The sequence is first made a tuple (one C call, which holds a reference to each str),
//! and each str's UTF-8 is borrowed from it: a tuple cannot be changed by other Python code
//! while the GIL is released, as a list could, and no reference is taken per text here.

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

pub(super) struct Texts<'py> {
    /// Keeps every str, hence every borrowed UTF-8 buffer, alive.
    _held: Bound<'py, PyTuple>,
    /// Each text's UTF-8. `'static` stands for "as long as `_held`": the only way out is
    /// `strs`, whose borrow of `self` ties them to it.
    utf8: Vec<&'static str>,
}

impl<'py> Texts<'py> {
    /// The strs of `texts` (any sequence of str). A str itself is refused (it would be a
    /// batch of its characters), and so is any item that is not a str, naming its position;
    /// a str with a lone surrogate raises Python's UnicodeEncodeError.
    pub(super) fn new(texts: &Bound<'py, PyAny>) -> PyResult<Self> {
        let py = texts.py();
        // SAFETY: a live object; PyUnicode_Check only reads its type's flags.
        if unsafe { ffi::PyUnicode_Check(texts.as_ptr()) } != 0 {
            return Err(PyTypeError::new_err(
                "a batch is a list of str, not one str: wrap it as [text]",
            ));
        }
        // SAFETY: PySequence_Tuple returns a new reference, or NULL with an error set.
        let held =
            unsafe { Bound::from_owned_ptr_or_err(py, ffi::PySequence_Tuple(texts.as_ptr())) }?;
        // SAFETY: PySequence_Tuple returns a tuple.
        let held: Bound<'py, PyTuple> = unsafe { held.cast_into_unchecked() };
        let n = held.len();
        let mut utf8 = Vec::with_capacity(n);
        for i in 0..n {
            // SAFETY: `i` is below the tuple's length; the item is borrowed from the tuple,
            // which outlives its use here.
            let item = unsafe { ffi::PyTuple_GetItem(held.as_ptr(), i as ffi::Py_ssize_t) };
            if item.is_null() {
                return Err(PyErr::fetch(py));
            }
            // SAFETY: a live object (above); the exact test is a pointer compare, the
            // subclass test reads its type's flags.
            let is_str =
                unsafe { ffi::PyUnicode_CheckExact(item) != 0 || ffi::PyUnicode_Check(item) != 0 };
            if !is_str {
                // SAFETY: a live object borrowed from the tuple.
                let item = unsafe { Bound::from_borrowed_ptr(py, item) };
                let kind = item.get_type().name()?;
                return Err(PyTypeError::new_err(format!(
                    "text {i} of the batch is {kind}, not str"
                )));
            }
            let mut size: ffi::Py_ssize_t = 0;
            // SAFETY: a str; the UTF-8 buffer it returns lives as long as the str, which the
            // tuple holds; NULL comes with an error set (a lone surrogate).
            let ptr = unsafe { ffi::PyUnicode_AsUTF8AndSize(item, &mut size) };
            if ptr.is_null() {
                return Err(PyErr::fetch(py));
            }
            // SAFETY: `size` bytes of valid UTF-8 at `ptr` (CPython's own encoding of the
            // str), alive while `_held` is; see the field's note on `'static`.
            let text = unsafe {
                std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                    ptr.cast::<u8>(),
                    size as usize,
                ))
            };
            utf8.push(text);
        }
        Ok(Texts { _held: held, utf8 })
    }

    /// The texts, borrowed for as long as `self` lives.
    pub(super) fn strs(&self) -> &[&str] {
        &self.utf8
    }
}
