//! Python lists of ids. Through the stable ABI, filling a list costs two C-API calls per
//! item (`Py_IncRef`, `PyList_SetItem`), about half the time of a list result. CPython's
//! list object and reference count have had one layout in every version that loads this
//! module (3.10 on, builds with the GIL), but the stable ABI does not promise it; so it is
//! checked once, on live objects, and a list is filled by writing its slots directly (and
//! a list given to decode, or a batch's texts, read from them: `items`) only when the
//! check passed. Anywhere else the C-API calls are used.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

use pyo3::types::PyList;

use super::errors::invalid_input;

/// The largest int CPython keeps one shared object for (immortal from 3.12).
const SHARED_SMALL_INT_MAX: u32 = 256;

/// How lists of ids are filled in this process (checked once).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fill {
    /// Through the C API.
    Calls,
    /// Slots written directly, each int's count raised in place: the shared small ints are
    /// counted like any other (CPython before 3.12).
    Counted,
    /// Slots written directly; the shared small ints are immortal (3.12 on), so their
    /// count is left alone, as `Py_INCREF` leaves it.
    SmallImmortal,
}

// PyOnceLock: the check runs Python code, which may let another thread in meanwhile.
static FILL: PyOnceLock<Fill> = PyOnceLock::new();

fn fill(py: Python<'_>) -> Fill {
    *FILL.get_or_init(py, || layout_checked(py).unwrap_or(Fill::Calls))
}

/// Whether new lists can be filled by writing their slots (checked once per process).
pub(super) fn direct(py: Python<'_>) -> bool {
    fill(py) != Fill::Calls
}

/// The items of `list`, read from its slot array when the layout check passed (`None`
/// otherwise): no call per item.
///
/// # Safety
/// The caller runs no Python code while it holds the slice (which could change the list).
pub(super) unsafe fn items<'a>(list: &'a Bound<'_, PyList>) -> Option<&'a [*mut ffi::PyObject]> {
    if !direct(list.py()) {
        return None;
    }
    let len = list.len();
    if len == 0 {
        return Some(&[]);
    }
    // SAFETY: `fill` checked the layout; a list of `len` items has `len` filled slots,
    // valid while the list is unchanged, which the caller promises.
    unsafe { Some(std::slice::from_raw_parts(slot_array(list.as_ptr()), len)) }
}

/// The slot array of a list object.
///
/// # Safety
/// `list` is a list, and `fill` found lists laid out as CPython's: the slot array is the
/// pointer after the `PyVarObject` header.
#[inline(always)]
unsafe fn slot_array(list: *mut ffi::PyObject) -> *mut *mut ffi::PyObject {
    // SAFETY: per the contract.
    unsafe {
        *list
            .cast::<u8>()
            .add(std::mem::size_of::<ffi::PyVarObject>())
            .cast::<*mut *mut ffi::PyObject>()
    }
}

/// A list of `n` empty slots, to be filled before it is returned to Python (a list dropped
/// on an error with slots still empty is valid: empty slots are skipped).
pub(super) fn new_list(py: Python<'_>, n: usize) -> PyResult<Bound<'_, PyAny>> {
    let len = isize::try_from(n).map_err(|_| invalid_input("too many items for one list"))?;
    // SAFETY: PyList_New returns a new list of `len` empty slots, or NULL with an error set.
    unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(len)) }
}

/// A list of the ints of `ids`, `ints[id]` being the shared int of each id (ids past its end
/// get a new int).
pub(super) fn id_list<'py>(
    py: Python<'py>,
    ints: &[Py<PyAny>],
    ids: &[u32],
) -> PyResult<Bound<'py, PyAny>> {
    let list = new_list(py, ids.len())?;
    let fill = fill(py);
    if fill != Fill::Calls {
        let immortal = fill == Fill::SmallImmortal;
        // Where an immortal small int's increment goes instead of its count.
        let mut sink: ffi::Py_ssize_t = 0;
        // SAFETY: `fill` checked that a list's slot array is the pointer after its
        // PyVarObject header, that a count is a plain machine word here, and which ints
        // are counted; the list is new, has `ids.len()` empty slots and is not yet visible
        // to any other code. Each slot is written once with a new strong reference.
        unsafe {
            let slots = slot_array(list.as_ptr());
            // A list of millions of ids: its slots, not yet written, on huge pages too.
            crate::pages::advise_huge_pages(slots, ids.len());
            for (i, &id) in ids.iter().enumerate() {
                let item = match ints.get(id as usize) {
                    Some(int) => {
                        let ptr = int.as_ptr();
                        // No branch on the kind of int: one mispredicted here (small ids
                        // are 10-27% of a text's, in no order) stalled the loads of the
                        // ints around it (docs/performance.md).
                        let count = std::hint::select_unpredictable(
                            immortal && id <= SHARED_SMALL_INT_MAX,
                            &raw mut sink,
                            ptr.cast::<ffi::Py_ssize_t>(),
                        );
                        *count += 1;
                        ptr
                    }
                    None => id.into_pyobject(py)?.into_ptr(),
                };
                *slots.add(i) = item;
            }
        }
        return Ok(list);
    }
    for (i, &id) in ids.iter().enumerate() {
        let item = match ints.get(id as usize) {
            Some(int) => int.clone_ref(py).into_ptr(),
            None => id.into_pyobject(py)?.into_ptr(),
        };
        // SAFETY: `i` is below the list's length; SetItem steals `item`.
        if unsafe { ffi::PyList_SetItem(list.as_ptr(), i as isize, item) } != 0 {
            return Err(PyErr::fetch(py));
        }
    }
    Ok(list)
}

/// Whether this interpreter is a CPython whose lists and counts have the layout `id_list`
/// writes, and whether its shared small ints are counted: checked on a real list and real
/// ints, not on a version number.
fn layout_checked(py: Python<'_>) -> PyResult<Fill> {
    let sys = py.import("sys")?;
    let name: String = sys.getattr("implementation")?.getattr("name")?.extract()?;
    // A debug build also keeps a total of all counts, which a direct write would skip.
    if name != "cpython" || sys.hasattr("gettotalrefcount")? {
        return Ok(Fill::Calls);
    }
    // Two distinct ints that are not shared small ints, and a list holding them.
    let first = 1_000_003u32.into_pyobject(py)?.into_any();
    let second = 1_000_033u32.into_pyobject(py)?.into_any();
    let list = new_list(py, 2)?;
    // SAFETY: slots 0 and 1 exist; SetItem steals the new references given to it.
    unsafe {
        if ffi::PyList_SetItem(list.as_ptr(), 0, first.clone().into_ptr()) != 0
            || ffi::PyList_SetItem(list.as_ptr(), 1, second.clone().into_ptr()) != 0
        {
            return Err(PyErr::fetch(py));
        }
    }
    // SAFETY: reads inside the list object's header (a PyVarObject, then a pointer, on
    // every CPython) and inside its slot array only after the slots are found to hold the
    // two ints, i.e. after the layout is confirmed; the int is read at its count, the
    // first word of every object.
    unsafe {
        let head = list.as_ptr().cast::<u8>();
        let size = *head
            .add(std::mem::size_of::<ffi::PyObject>())
            .cast::<ffi::Py_ssize_t>();
        if size != 2 {
            return Ok(Fill::Calls);
        }
        let slots = *head
            .add(std::mem::size_of::<ffi::PyVarObject>())
            .cast::<*const *mut ffi::PyObject>();
        if slots.is_null() || *slots != first.as_ptr() || *slots.add(1) != second.as_ptr() {
            return Ok(Fill::Calls);
        }
        // What Py_IncRef and Py_DecRef do to an int's count: (before, raised, after).
        let counts = |obj: &Bound<'_, PyAny>| {
            let count = || *obj.as_ptr().cast::<ffi::Py_ssize_t>();
            let before = count();
            ffi::Py_IncRef(obj.as_ptr());
            let raised = count();
            ffi::Py_DecRef(obj.as_ptr());
            (before, raised, count())
        };
        let (before, raised, after) = counts(&first);
        if !(before > 0 && before < 1 << 20 && raised == before + 1 && after == before) {
            return Ok(Fill::Calls);
        }
        // A shared small int: counted as any int, or immortal (its count never moves).
        let small = 7u32.into_pyobject(py)?.into_any();
        let (before, raised, after) = counts(&small);
        Ok(if raised == before + 1 && after == before {
            Fill::Counted
        } else if raised == before && after == before {
            Fill::SmallImmortal
        } else {
            Fill::Calls
        })
    }
}
