//! Ids given to decode: a list read in place, a NumPy integer array read as numbers, any
//! other iterable item by item. Each id is checked here (an int that fits in u32; bools
//! refused), so that a negative, huge or non-integer id is an error naming it and its
//! position, not an overflow. Converting was most of a decode's time: an item of a list
//! fetched through Python's iterator, and a NumPy array's elements each made a Python
//! scalar (docs/performance.md#decoding).

use numpy::{PyArray1, PyArrayMethods};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyList};

use super::calls::numpy_imported;
use super::errors::invalid_input;
use super::lists;

/// The ids of `ids`, for a model of `size` ids (named in messages).
pub(super) fn ids_in(ids: &Bound<'_, PyAny>, size: usize) -> PyResult<Vec<u32>> {
    if let Ok(list) = ids.cast::<PyList>() {
        return list_ids(list, size);
    }
    if let Some(out) = array_ids(ids, size)? {
        return Ok(out);
    }
    let mut out = Vec::new();
    for (i, item) in ids.try_iter()?.enumerate() {
        out.push(id_at(&item?, i, size)?);
    }
    Ok(out)
}

fn list_ids(list: &Bound<'_, PyList>, size: usize) -> PyResult<Vec<u32>> {
    let mut out = Vec::new();
    crate::pages::reserve(&mut out, list.len());
    // SAFETY: no Python code runs while `items` is read, so the list cannot change under
    // the loop: reading an exact int that fits runs none, and one that does not (whose
    // error, made and cleared, could start a garbage collection) ends the loop.
    if let Some(items) = unsafe { lists::items(list) } {
        for &item in items {
            // SAFETY: `item` is a live object held by the list.
            match unsafe { exact_int(item) } {
                Some(id) => out.push(id),
                None => break,
            }
        }
    }
    // The rest (everything when the list cannot be read in place), one checked item at a
    // time: an item's conversion may run Python code, which may change the list.
    let mut i = out.len();
    while i < list.len() {
        out.push(id_at(&list.get_item(i)?, i, size)?);
        i += 1;
    }
    Ok(out)
}

/// An exact int that fits in u32, read without running Python code; `None` otherwise.
///
/// # Safety
/// `item` must point to a live object, and the GIL be held.
#[inline]
unsafe fn exact_int(item: *mut ffi::PyObject) -> Option<u32> {
    // SAFETY: per the contract; PyLong_AsLong of an int only reads it (an overflow sets an
    // error, cleared here, and the general path then reports the id).
    unsafe {
        if ffi::Py_TYPE(item) != &raw mut ffi::PyLong_Type {
            return None;
        }
        let value = ffi::PyLong_AsLong(item);
        if value == -1 && !ffi::PyErr_Occurred().is_null() {
            ffi::PyErr_Clear();
            return None;
        }
        u32::try_from(value).ok()
    }
}

/// A one-dimensional NumPy array of integers, read as numbers (any strides); `None` for
/// anything else. NumPy is looked for only when it is imported (an array means it is).
fn array_ids(ids: &Bound<'_, PyAny>, size: usize) -> PyResult<Option<Vec<u32>>> {
    if !numpy_imported(ids.py()) {
        return Ok(None);
    }
    macro_rules! try_dtype {
        ($($t:ty),*) => {$(
            if let Ok(array) = ids.cast::<PyArray1<$t>>() {
                let array = array.try_readonly().map_err(|e| invalid_input(e.to_string()))?;
                return array
                    .as_array()
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| {
                        u32::try_from(v).map_err(|_| out_of_range(&v.to_string(), i, size))
                    })
                    .collect::<PyResult<Vec<u32>>>()
                    .map(Some);
            }
        )*};
    }
    try_dtype!(u32, i64, i32, u64, u16, i16, u8, i8);
    Ok(None)
}

fn out_of_range(shown: &str, position: usize, size: usize) -> PyErr {
    invalid_input(format!(
        "id {shown} at position {position} is not in the vocabulary (ids go up to {})",
        size.saturating_sub(1)
    ))
}

/// The id `item` at `position`: an int (or an object with `__index__`, as NumPy's
/// integers) that fits in u32; bools are refused (True is not id 1). Ids past the
/// vocabulary are left to the core, which names them the same way.
fn id_at(item: &Bound<'_, PyAny>, position: usize, size: usize) -> PyResult<u32> {
    // Fast path: exact ints that fit, which is nearly every id.
    if item.is_exact_instance_of::<PyInt>() {
        if let Ok(id) = item.extract::<u32>() {
            return Ok(id);
        }
    } else if item.is_instance_of::<PyBool>() {
        return Err(invalid_input(format!(
            "id {} at position {position} is a bool, not an integer id",
            shown(item)
        )));
    } else if let Ok(id) = item.extract::<u32>() {
        return Ok(id);
    }
    // An integer that does not fit, or something that is not one (an array of two ints
    // has `__index__` too, which then fails).
    if item.is_instance_of::<PyInt>() || item.call_method0("__index__").is_ok() {
        return Err(out_of_range(&shown(item), position, size));
    }
    Err(invalid_input(format!(
        "id {} at position {position} is not an integer (ids are ints from 0 to {})",
        shown(item),
        size.saturating_sub(1)
    )))
}

/// `item`'s repr for a message, cut short (a huge int's digits, a long string).
fn shown(item: &Bound<'_, PyAny>) -> String {
    let text = item
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "(an int too long to show)".to_string());
    if text.chars().count() > 40 {
        format!("{}...", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}
