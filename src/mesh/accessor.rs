//! Checked reading of glTF accessors.
//!
//! The `gltf` crate's readers assume a valid file: an accessor of an unexpected component type
//! reaches an `unreachable!()`, a count of 0 underflows, and a byte stride shorter than the element
//! trips a debug assertion. A collider file comes from the user, so every accessor is checked here
//! against what its use needs before the crate reads it, and a bad one becomes an error message.

use glam::Vec3;
use gltf::accessor::{Accessor, DataType, Dimensions, Item, Iter};
use gltf::buffer::{Data, View};

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
    let (count, element) = (accessor.count(), accessor.size());
    if let Some(view) = accessor.view() {
        span(&name, count, accessor.offset(), element, &view, buffers)?;
    }
    if let Some(sparse) = accessor.sparse() {
        if sparse.count() > count {
            return Err(format!("{name} has {count} elements but {} sparse ones", sparse.count()));
        }
        let (indices, values) = (sparse.indices(), sparse.values());
        let index_size = indices.index_type().size();
        span(
            &format!("{name} sparse indices"),
            sparse.count(),
            indices.offset(),
            index_size,
            &indices.view(),
            buffers,
        )?;
        span(&format!("{name} sparse values"), sparse.count(), values.offset(), element, &values.view(), buffers)?;
    }
    Ok(())
}

/// Checks that `count` elements of `element` bytes from byte `offset` of `view` lie inside it, and
/// the view inside its buffer, with the arithmetic checked (the crate's readers do it unchecked).
fn span(name: &str, count: usize, offset: usize, element: usize, view: &View, buffers: &[Data]) -> Result<(), String> {
    let stride = view.stride().unwrap_or(element);
    if stride < element {
        return Err(format!("{name}: byte stride {stride} is shorter than its {element}-byte elements"));
    }
    let end = (count.saturating_sub(1).checked_mul(stride))
        .and_then(|bytes| bytes.checked_add(element))
        .and_then(|bytes| bytes.checked_add(offset));
    if end.is_none_or(|end| end > view.length()) {
        return Err(format!(
            "{name}: {count} elements from byte {offset} reach past the end of buffer view {} ({} bytes)",
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
    Ok(())
}

/// The component types a POSITION accessor may have: f32, and the integers KHR_mesh_quantization
/// adds (as gltfpack writes), normalised or not.
pub(crate) const POSITION_TYPES: &[DataType] =
    &[DataType::F32, DataType::I8, DataType::U8, DataType::I16, DataType::U16];

/// Reads a VEC3 accessor of one of [`POSITION_TYPES`] as f32 vectors, `None` where its data lies
/// outside its buffer or its type is another. Normalised integers map to [0, 1] (unsigned) or
/// [−1, 1] (signed) as glTF 2.0 section 3.11 says; others keep their integer value, which the
/// node transforms of a quantized file scale back.
pub(crate) fn read_vec3(accessor: &Accessor, buffers: &[Data]) -> Option<Vec<Vec3>> {
    fn read<T: Item + Copy>(accessor: &Accessor, buffers: &[Data], f: impl Fn(T) -> f32) -> Option<Vec<Vec3>> {
        let items = Iter::<[T; 3]>::new(accessor.clone(), buffer_source(buffers))?;
        Some(items.map(|[x, y, z]| Vec3::new(f(x), f(y), f(z))).collect())
    }
    // Signed normalised values clamp at −1: the most negative integer is one step past it.
    let (normalized, signed) = (accessor.normalized(), |c: f32, max: f32| (c / max).max(-1.0));
    match accessor.data_type() {
        DataType::F32 => read(accessor, buffers, |c: f32| c),
        DataType::I8 if normalized => read(accessor, buffers, |c: i8| signed(f32::from(c), 127.0)),
        DataType::U8 if normalized => read(accessor, buffers, |c: u8| f32::from(c) / 255.0),
        DataType::I16 if normalized => read(accessor, buffers, |c: i16| signed(f32::from(c), 32767.0)),
        DataType::U16 if normalized => read(accessor, buffers, |c: u16| f32::from(c) / 65535.0),
        DataType::I8 => read(accessor, buffers, |c: i8| f32::from(c)),
        DataType::U8 => read(accessor, buffers, |c: u8| f32::from(c)),
        DataType::I16 => read(accessor, buffers, |c: i16| f32::from(c)),
        DataType::U16 => read(accessor, buffers, |c: u16| f32::from(c)),
        DataType::U32 => None,
    }
}

/// The error for a reader that found no data although [`check`] passed (a sparse accessor whose
/// index or value view lies outside its buffer).
pub(crate) fn unreadable(accessor: &Accessor) -> String {
    format!("{} cannot be read from its buffer", label("accessor", accessor.index(), accessor.name()))
}
