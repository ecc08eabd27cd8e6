//! Checked reading of glTF accessors.
//!
//! The `gltf` crate's readers assume a valid file: an accessor of an unexpected component type
//! reaches an `unreachable!()`, a count of 0 underflows, and a byte stride shorter than the element
//! trips a debug assertion. A collider file comes from the user, so every accessor is checked here
//! against what its use needs before the crate reads it, and a bad one becomes an error message.

use gltf::accessor::{Accessor, DataType, Dimensions};
use gltf::buffer::Data;

use super::error::label;

/// The closure the `gltf` crate's readers use to find a buffer's bytes.
pub(crate) fn buffer_source<'a, 's>(buffers: &'s [Data]) -> impl Clone + Fn(gltf::Buffer<'a>) -> Option<&'s [u8]> {
    move |buffer| buffers.get(buffer.index()).map(|data| data.0.as_slice())
}

/// Checks that `accessor` holds `dimensions` elements of one of `data_types`, has at least one
/// element, and lies inside its buffer view and buffer. The error names the accessor and says what
/// was expected; callers prefix where the accessor is used.
pub(crate) fn check(
    accessor: &Accessor,
    dimensions: Dimensions,
    data_types: &[DataType],
    buffers: &[Data],
) -> Result<(), String> {
    let name = label("accessor", accessor.index(), accessor.name());
    if accessor.dimensions() != dimensions || !data_types.contains(&accessor.data_type()) {
        return Err(format!(
            "{name} holds {:?} of {:?}; expected {dimensions:?} of {}",
            accessor.dimensions(),
            accessor.data_type(),
            data_types.iter().map(|t| format!("{t:?}")).collect::<Vec<_>>().join(" or ")
        ));
    }
    // The crate computes `count - 1` for both dense and sparse data.
    if accessor.count() == 0 || accessor.sparse().is_some_and(|sparse| sparse.count() == 0) {
        return Err(format!("{name} has no elements"));
    }
    if let Some(view) = accessor.view() {
        let element = accessor.size();
        let stride = view.stride().unwrap_or(element);
        if stride < element {
            return Err(format!("{name}: byte stride {stride} is shorter than its {element}-byte elements"));
        }
        let end = (accessor.count() - 1)
            .checked_mul(stride)
            .and_then(|bytes| bytes.checked_add(element))
            .and_then(|bytes| bytes.checked_add(accessor.offset()));
        if end.is_none_or(|end| end > view.length()) {
            return Err(format!(
                "{name}: {} elements from byte {} reach past the end of buffer view {} ({} bytes)",
                accessor.count(),
                accessor.offset(),
                view.index(),
                view.length()
            ));
        }
        let buffer_length = buffers.get(view.buffer().index()).map_or(0, |data| data.0.len());
        if view.offset().checked_add(view.length()).is_none_or(|end| end > buffer_length) {
            return Err(format!(
                "buffer view {} (bytes {}..+{}) reaches past the end of buffer {} ({buffer_length} bytes)",
                view.index(),
                view.offset(),
                view.length(),
                view.buffer().index()
            ));
        }
    }
    Ok(())
}

/// The error for a reader that found no data although [`check`] passed (a sparse accessor whose
/// index or value view lies outside its buffer).
pub(crate) fn unreadable(accessor: &Accessor) -> String {
    format!("{} cannot be read from its buffer", label("accessor", accessor.index(), accessor.name()))
}
