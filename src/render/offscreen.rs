//! Rendering into a texture instead of a window, and reading the pixels back (PNG output, tests). Being written.
