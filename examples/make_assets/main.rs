//! Writes the glTF assets powder ships: `cargo run --example make_assets [-- OUT_DIR]`.
//!
//! OUT_DIR defaults to `assets/`. The files are glTF 2.0 binaries in glTF's frame (Y up, metres);
//! `assets/README.md` describes each one. Output is byte-identical on every run, and
//! `tests/assets.rs` checks that the shipped files are exactly what this program writes.

mod figure;
mod generate;
mod glb;
mod shapes;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = std::env::args_os().nth(1).map_or_else(|| PathBuf::from("assets"), PathBuf::from);
    match generate::write_all(&dir) {
        Ok(paths) => {
            for path in paths {
                println!("wrote {}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("make_assets: cannot write into {}: {error}", dir.display());
            ExitCode::FAILURE
        }
    }
}
