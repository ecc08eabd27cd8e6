//! The open window and its frame loop. Nothing here waits for the simulation longer than its
//! budget per frame, except events that read its state back, which are held (the frame goes on
//! being drawn) until its batch in flight is done.
//!
//! [`state`] holds the window's state ([`state::Running`]); `frame.rs` runs one frame, `apply.rs`
//! applies events, `actions.rs` the file commands (save, dialogs, recording).

mod actions;
mod apply;
mod frame;
pub mod state;
