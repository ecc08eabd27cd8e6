//! The command line's subcommands, each in its own file; `main.rs` parses the arguments and
//! hands them over.

pub mod bake;
pub mod bench;
