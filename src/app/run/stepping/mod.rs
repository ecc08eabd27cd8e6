//! How much simulated time each frame advances, and running those substeps without holding up
//! the UI: real time within a budget, a fixed number of substeps, or one scene frame per frame
//! (see [`StepMode`]).
//!
//! A *frame* of the simulation (a scene frame, a real-time chunk, or N substeps) no longer has to
//! fit in one UI frame. Each UI frame the stepper looks at the batch of substeps it last submitted
//! (without waiting, or waiting only for the part of its budget the batch is expected to need),
//! and submits the next batch only once that one is done: at most as many substeps as the
//! simulation budget holds at the measured cost per substep (`policy::batch_substeps`), and at least one
//! in a UI frame's first batch so that the simulation always moves. The frame's substeps carry on
//! across batches on the GPU's clock ([`Solver::submit_batch`]), so a frame split over many UI
//! frames simulates exactly what one uninterrupted frame would. A UI frame thus never blocks on
//! more than its budget, however long the simulation takes; Pause, Reset and the settings act at
//! the next UI frame (a batch already running finishes first: the GPU cannot stop it).
//!
//! A per-frame budget rather than a simulation thread: wgpu's device is driven from the UI
//! thread either way, and a thread would add locking around the solver without freeing the queue.
//! On a software driver, where one substep can take longer than a whole UI frame, the app gives
//! the simulation a device (and queue) of its own ([`crate::app::run::shown`]), so the window's drawing is
//! not queued behind it.

//!
//! [`policy`] holds the rules (batch sizes, waits, the real-time rate, the motion bound),
//! [`frame`] a simulation frame in progress, [`stepper`] the [`stepper::Stepper`] and its
//! settings, `batches.rs` the submitting and collecting of batches.

mod batches;
pub mod frame;
pub mod policy;
pub mod stepper;
