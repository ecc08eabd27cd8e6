//! naga helpers shared by the GPU-free shader tests: validate a module, read a struct's layout.

use wgpu::naga;

/// Parses and validates `source`, panicking with naga's message (naming `label`) on failure.
pub fn validate(label: &str, source: &str) -> naga::Module {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{label} does not parse:\n{}", e.emit_to_string(source)));
    powder::sim::pipelines::validator()
        .validate(&module)
        .unwrap_or_else(|e| panic!("{label} does not validate:\n{}", e.emit_to_string(source)));
    module
}

/// Member offsets of the WGSL struct `name` (padding members excluded) and its size.
pub fn wgsl_layout(module: &naga::Module, name: &str) -> (Vec<(String, u32)>, u32) {
    let (_, ty) = module
        .types
        .iter()
        .find(|(_, ty)| ty.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("struct {name} not found"));
    match &ty.inner {
        naga::TypeInner::Struct { members, span } => (
            members
                .iter()
                .filter_map(|m| {
                    let n = m.name.clone().unwrap_or_default();
                    (!n.starts_with("_pad")).then_some((n, m.offset))
                })
                .collect(),
            *span,
        ),
        other => panic!("{name} is not a struct: {other:?}"),
    }
}

/// The value of the u32 constant or override `name` in `module` (its literal initialiser).
pub fn u32_named(module: &naga::Module, name: &str) -> u32 {
    match literal_named(module, name) {
        naga::Literal::U32(v) => v,
        other => panic!("{name} is not a u32 literal: {other:?}"),
    }
}

/// The value of the f32 constant or override `name` in `module`.
pub fn f32_named(module: &naga::Module, name: &str) -> f32 {
    match literal_named(module, name) {
        naga::Literal::F32(v) => v,
        other => panic!("{name} is not an f32 literal: {other:?}"),
    }
}

/// The literal a constant (or an override's default) of `module` named `name` is set to.
pub fn literal_named(module: &naga::Module, name: &str) -> naga::Literal {
    let init = module
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some(name))
        .map(|(_, c)| c.init)
        .or_else(|| module.overrides.iter().find(|(_, o)| o.name.as_deref() == Some(name)).and_then(|(_, o)| o.init))
        .unwrap_or_else(|| panic!("no constant or override {name}"));
    match module.global_expressions[init] {
        naga::Expression::Literal(literal) => literal,
        ref e => panic!("{name} is not a literal: {e:?}"),
    }
}

/// Member offsets (by field name) and size of a Rust struct, in the shape `wgsl_layout` returns.
// Only the shader-layout test binaries use it; the GPU tests that share `common` do not.
#[allow(unused_macros)]
macro_rules! rust_layout {
    ($ty:ty, [$($field:ident),* $(,)?]) => {
        (
            vec![$((stringify!($field).to_string(), std::mem::offset_of!($ty, $field) as u32)),*],
            std::mem::size_of::<$ty>() as u32,
        )
    };
}

#[allow(unused_imports)]
pub(crate) use rust_layout;
