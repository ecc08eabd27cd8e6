//! The command line's subcommands, each in its own file with its arguments; `main.rs` parses the
//! command line and hands each subcommand its arguments. `common.rs` holds what several share.

pub mod adapters;
pub mod bake;
pub mod bench;
pub mod common;
