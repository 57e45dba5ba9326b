//! Results as NumPy arrays: a short one's data allocated here, a longer one's left in the
//! encoder's buffer (`owned_u32_array`).
//!
//! NumPy allocates a new array's data through the memory handler of the current context
//! (NEP 49, NumPy 1.22 on): a context-variable lookup and a capsule-name check before the
//! `malloc`. A short text's array is made here instead: its data from `malloc`, and this
//! module's handler given to the array, which NumPy keeps with each array and calls to
//! resize or free its data, as for a handler of its own (docs/performance.md, "Short
//! arrays: their data allocated here"). The handler's field is not in NumPy's documented
//! API, so where it sits is checked once, on an array NumPy made; where the check fails,
//! NumPy makes the arrays as before.

use std::ffi::c_void;

use numpy::npyffi::{self, npy_intp, NpyTypes, NPY_ARRAY_CARRAY, NPY_ARRAY_OWNDATA, PY_ARRAY_API};
use numpy::{Element, PyArray1, PyArrayDescrMethods};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyCapsule;

/// NumPy's `PyDataMemAllocator` (version 1).
#[repr(C)]
struct Allocator {
    ctx: *mut c_void,
    malloc: unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void,
    calloc: unsafe extern "C" fn(*mut c_void, usize, usize) -> *mut c_void,
    realloc: unsafe extern "C" fn(*mut c_void, *mut c_void, usize) -> *mut c_void,
    free: unsafe extern "C" fn(*mut c_void, *mut c_void, usize),
}

/// NumPy's `PyDataMem_Handler`.
#[repr(C)]
struct Handler {
    name: [u8; 127],
    version: u8,
    allocator: Allocator,
}

// SAFETY: the handler is immutable and its context pointer is null.
unsafe impl Sync for Handler {}

// NumPy calls these only for arrays made here, to resize or free their data. The C
// allocator rather than Python's: freeing a batch of results then leaves the memory to be
// reused, where Python's gives its emptied arenas back and takes page faults again.
unsafe extern "C" fn malloc(_: *mut c_void, size: usize) -> *mut c_void {
    // SAFETY: plain C allocation.
    unsafe { libc::malloc(size) }
}

unsafe extern "C" fn calloc(_: *mut c_void, n: usize, size: usize) -> *mut c_void {
    // SAFETY: as `malloc`.
    unsafe { libc::calloc(n, size) }
}

unsafe extern "C" fn realloc(_: *mut c_void, ptr: *mut c_void, size: usize) -> *mut c_void {
    // SAFETY: as `malloc`; `ptr` came from this allocator.
    unsafe { libc::realloc(ptr, size) }
}

unsafe extern "C" fn free(_: *mut c_void, ptr: *mut c_void, _: usize) {
    // SAFETY: as `malloc`; `ptr` came from this allocator.
    unsafe { libc::free(ptr) }
}

const fn handler_name() -> [u8; 127] {
    let text = b"subword_small_arrays";
    let mut name = [0u8; 127];
    let mut i = 0;
    while i < text.len() {
        name[i] = text[i];
        i += 1;
    }
    name
}

static HANDLER: Handler = Handler {
    name: handler_name(),
    version: 1,
    allocator: Allocator {
        ctx: std::ptr::null_mut(),
        malloc,
        calloc,
        realloc,
        free,
    },
};

/// NumPy's array object up to the handler (`PyArrayObject_fields`, NumPy 1.22 on): the
/// numpy crate's declaration, then the two fields it leaves out.
#[repr(C)]
struct ArrayFields {
    head: npyffi::PyArrayObject,
    buffer_info: *mut c_void,
    mem_handler: *mut ffi::PyObject,
}

/// The capsule NumPy takes as a handler (named as NumPy checks), or `None` where the array
/// layout is not the one above.
static CAPSULE: PyOnceLock<Option<Py<PyCapsule>>> = PyOnceLock::new();

fn capsule(py: Python<'_>) -> Option<&Py<PyCapsule>> {
    CAPSULE
        .get_or_init(py, || checked_capsule(py).ok().flatten())
        .as_ref()
}

/// The handler's capsule, after checking on an array NumPy made that its handler sits
/// where `ArrayFields` puts it.
fn checked_capsule(py: Python<'_>) -> PyResult<Option<Py<PyCapsule>>> {
    const NPY_1_22_API_VERSION: u32 = 0x0f;
    // SAFETY: NumPy's C API is loaded by the first call through `PY_ARRAY_API`.
    if unsafe { PY_ARRAY_API.PyArray_GetNDArrayCFeatureVersion(py) } < NPY_1_22_API_VERSION {
        return Ok(None);
    }
    let probe = PyArray1::<u32>::zeros(py, 4, false);
    let size: usize = probe.get_type().getattr("__basicsize__")?.extract()?;
    if size < std::mem::size_of::<ArrayFields>() {
        return Ok(None);
    }
    // SAFETY: the object is at least as large as `ArrayFields`.
    let fields = unsafe { &*probe.as_ptr().cast::<ArrayFields>() };
    let owns = fields.head.fields.flags & NPY_ARRAY_OWNDATA != 0;
    // SAFETY: a pointer-sized read inside the object; `PyCapsule_IsValid` accepts any
    // object and checks its type before its name.
    let is_handler = !fields.mem_handler.is_null()
        && unsafe { ffi::PyCapsule_IsValid(fields.mem_handler, c"mem_handler".as_ptr()) } == 1;
    if !owns || !is_handler || fields.head.fields.nd != 1 {
        return Ok(None);
    }
    // SAFETY: the handler is a static, never written (NumPy only reads it).
    let capsule = unsafe {
        PyCapsule::new_with_pointer(py, std::ptr::NonNull::from(&HANDLER).cast(), c"mem_handler")
    }?;
    Ok(Some(capsule.unbind()))
}

/// A uint32 array holding a copy of `ids`: its data allocated here when the layout check
/// passed, by NumPy otherwise.
pub(super) fn u32_array<'py>(py: Python<'py>, ids: &[u32]) -> PyResult<Bound<'py, PyArray1<u32>>> {
    let Some(capsule) = capsule(py) else {
        return Ok(PyArray1::from_slice(py, ids));
    };
    let bytes = std::mem::size_of_val(ids).max(1);
    // SAFETY: plain C allocation.
    let data = unsafe { libc::malloc(bytes) };
    if data.is_null() {
        return Err(pyo3::exceptions::PyMemoryError::new_err(
            "no memory for an array of ids",
        ));
    }
    // SAFETY: `data` has room for the ids.
    unsafe { std::ptr::copy_nonoverlapping(ids.as_ptr(), data.cast::<u32>(), ids.len()) };
    // SAFETY: `data` holds the ids until the array owns it (below) or it is freed here.
    let array = unsafe { array_over(py, data, ids.len()) };
    if array.is_null() {
        // SAFETY: `data` is not owned by anything else.
        unsafe { libc::free(data) };
        return Err(PyErr::fetch(py));
    }
    // SAFETY: the check above found NumPy's arrays laid out as `ArrayFields`; the new
    // array owns `data` from here, freed through the handler it now holds.
    unsafe {
        let fields = &mut *array.cast::<ArrayFields>();
        fields.head.fields.flags |= NPY_ARRAY_OWNDATA;
        fields.mem_handler = capsule.clone_ref(py).into_ptr();
        Ok(Bound::from_owned_ptr(py, array).cast_into_unchecked())
    }
}

/// Holds a result's ids under its NumPy array, and gives their buffer back for the next
/// large text when the array goes (`pages::give_back_result`).
#[pyclass(frozen, module = "subword._core")]
struct IdsOwner {
    ids: Vec<u32>,
}

impl Drop for IdsOwner {
    fn drop(&mut self) {
        crate::pages::give_back_result(std::mem::take(&mut self.ids));
    }
}

/// A uint32 array over `ids` (no copy), whose base object owns them.
pub(super) fn owned_u32_array(py: Python<'_>, ids: Vec<u32>) -> PyResult<Bound<'_, PyArray1<u32>>> {
    let len = ids.len();
    // A Vec's pointer is never null (dangling but aligned when it has no room).
    let data = ids.as_ptr().cast_mut().cast::<c_void>();
    let owner = Bound::new(py, IdsOwner { ids })?;
    // SAFETY: the owner's ids do not move while it lives (a Vec's heap buffer stays put
    // when the Vec is moved), and it lives as long as the array (below).
    let array = unsafe { array_over(py, data, len) };
    if array.is_null() {
        return Err(PyErr::fetch(py));
    }
    // SAFETY: `array` is a new array object; SetBaseObject takes the owner's reference
    // (and lets go of it on failure), so the owner lives exactly as long as the array.
    unsafe {
        let array = Bound::from_owned_ptr(py, array);
        if PY_ARRAY_API.PyArray_SetBaseObject(py, array.as_ptr().cast(), owner.into_ptr()) < 0 {
            return Err(PyErr::fetch(py));
        }
        Ok(array.cast_into_unchecked())
    }
}

/// A new 1-d C-contiguous uint32 array over the `len` ids at `data`, which it neither owns
/// nor frees; null with Python's error set on failure.
///
/// # Safety
/// `data` holds `len` ids for as long as the array may read them.
unsafe fn array_over(py: Python<'_>, data: *mut c_void, len: usize) -> *mut ffi::PyObject {
    let mut dims = [len as npy_intp];
    // SAFETY: per the contract; NumPy takes the dtype's reference.
    unsafe {
        PY_ARRAY_API.PyArray_NewFromDescr(
            py,
            npyffi::get_type_object(py, NpyTypes::PyArray_Type),
            u32::get_dtype(py).into_dtype_ptr(),
            1,
            dims.as_mut_ptr(),
            std::ptr::null_mut(),
            data,
            NPY_ARRAY_CARRAY,
            std::ptr::null_mut(),
        )
    }
}
