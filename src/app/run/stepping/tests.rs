//! The stepper's batching, waiting, rates and motion bounds, and a small scene stepped on the GPU.

use super::*;
use crate::app::events::{AppEvent, StepMode};
use crate::app::run::messages::Messages;
use powder::gpu::Gpu;
use powder::sim::Solver;
use std::time::{Duration, Instant};

#[test]
fn the_motion_bound_is_the_distance_at_the_largest_reachable_speed() {
    // 8 m/s for 1 ms under 9.81 m/s²: (8 + 0.00981) · 0.001 m.
    let bound = motion_bound(1e-3, Some(8.0), -9.81).expect("known");
    assert!((bound - 8.00981e-3).abs() < 1e-12, "{bound}");
    // The exact free-fall distance from rest, g·t²/2, is within it.
    let t: f64 = 0.05;
    assert!(motion_bound(t, Some(0.0), 9.81).expect("known") >= 0.5 * 9.81 * t * t);
    assert_eq!(motion_bound(0.0, None, 9.81), Some(0.0));
    assert_eq!(motion_bound(1e-3, None, 9.81), None);
    assert_eq!(motion_bound(1e-3, Some(f64::INFINITY), 9.81), None);
}

#[test]
fn a_batch_is_what_the_budget_holds_and_at_least_one_substep_per_ui_frame() {
    // 2 ms substeps in 20 ms: ten, or what the frame still needs.
    assert_eq!(batch_substeps(20.0, true, Some(2.0), 100), 10);
    assert_eq!(batch_substeps(20.0, true, Some(2.0), 3), 3);
    // A substep far slower than the budget (300 ms in 20): one per UI frame, never more...
    assert_eq!(batch_substeps(20.0, true, Some(300.0), 100), 1);
    // ...and a later batch in the same UI frame gets none.
    assert_eq!(batch_substeps(20.0 - 300.0, false, Some(300.0), 100), 0);
    assert_eq!(batch_substeps(5.0, false, Some(2.0), 100), 2);
    assert_eq!(batch_substeps(1.0, false, Some(2.0), 100), 0);
    // Not yet measured: one, to measure it.
    assert_eq!(batch_substeps(20.0, true, None, 100), 1);
    // A frame with nothing left gets nothing.
    assert_eq!(batch_substeps(20.0, true, Some(2.0), 0), 0);
    // Nothing is free: a zero or broken cost counts as unmeasured.
    assert_eq!(batch_substeps(20.0, true, Some(0.0), 100), 1);
    assert_eq!(batch_substeps(20.0, true, Some(f64::NAN), 100), 1);
}

#[test]
fn a_ui_frame_waits_only_for_a_batch_expected_within_its_budget() {
    // Expected in 5 ms of 15 left: wait up to the 15 (the wait ends when the batch does).
    assert_eq!(batch_wait(15.0, Some(5.0)), Duration::from_millis(15));
    // Expected in 280 ms: no wait, the batch is looked at again next UI frame.
    assert_eq!(batch_wait(15.0, Some(280.0)), Duration::ZERO);
    // Unknown cost, or no budget left: no wait.
    assert_eq!(batch_wait(15.0, None), Duration::ZERO);
    assert_eq!(batch_wait(-3.0, Some(-10.0)), Duration::ZERO);
    // Overdue (expected in the past): wait what is left, it should be about to end.
    assert_eq!(batch_wait(10.0, Some(-4.0)), Duration::from_millis(10));
}

#[test]
fn the_coarser_grid_aims_at_real_time() {
    // 0.06× at 64 cells: 64 · 0.06^¼ = 31.7 → 32.
    assert_eq!(coarser_resolution(64, 0.06), Some(32));
    // Nearly real time: one step of 8 coarser.
    assert_eq!(coarser_resolution(64, 0.85), Some(56));
    // Far behind: half the resolution at a time, never below 8.
    assert_eq!(coarser_resolution(64, 1e-6), Some(32));
    assert_eq!(coarser_resolution(16, 1e-6), Some(8));
    // Nothing coarser to offer, or no need.
    assert_eq!(coarser_resolution(8, 0.01), None);
    assert_eq!(coarser_resolution(64, 1.2), None);
    assert_eq!(coarser_resolution(64, f64::NAN), None);
    assert_eq!(coarser_resolution(12, 0.5), Some(8));
}

/// The default scene on the GPU, with a budget of 1 ms per UI frame: on lavapipe a substep
/// takes hundreds of milliseconds. Each UI frame submits at most one batch, of one substep once
/// one is known to cost more than the budget, and returns without waiting for it; the scene
/// frame carries over; Pause stops the submissions at the very next UI frame, Play resumes them.
#[test]
fn a_slow_simulation_gets_one_substep_per_ui_frame_and_pause_stops_it_at_once() {
    let gpu = Gpu::new_headless().expect("a Vulkan adapter");
    let scene = powder::scene::Scene::builtin_default();
    let mut solver = powder::runner::build_solver(&gpu, &scene, "default").expect("solver");
    let mut stepper = Stepper::new(&gpu, StepMode::SceneFrames, true, solver.params().dt);
    stepper.apply(&AppEvent::SetRealTimeBudget(1.0));
    let time = SceneTime { cfl: scene.time.cfl, frame_duration: scene.frame_duration() };
    let mut messages = Messages::default();
    let mut ui_frame = |stepper: &mut Stepper, solver: &mut Solver| {
        let measured = stepper.substep_ms();
        stepper.advance(&gpu, solver, time, 1.0 / 60.0, false, &mut messages, |_, _| Ok(()), &mut |_, _| None);
        // The rest of a UI frame (drawing).
        std::thread::sleep(Duration::from_millis(5));
        (stepper.ui_frame(), measured)
    };
    let (mut collected, mut frames) = (0, 0);
    while collected < 3 {
        let (ui, measured) = ui_frame(&mut stepper, &mut solver);
        assert!(ui.batches <= 1, "UI frame {frames}: {ui:?}");
        if measured.is_none_or(|ms| ms > 1.0) {
            assert!(ui.substeps <= 1, "UI frame {frames}: {ui:?} at {measured:?} ms a substep");
        }
        collected += ui.collected;
        frames += 1;
        assert!(frames < 100_000, "no batch came back");
    }
    eprintln!("{frames} UI frames for 3 batches, {:?} ms a substep", stepper.substep_ms());
    assert!(frames > 3, "the UI frames waited for the batches");
    let (done, span) = stepper.frame_progress().expect("the scene frame carries over");
    assert!(done > 0.0 && done < span, "{done} of {span} s");
    // Pause: from the next UI frame on, nothing is submitted; the batch in flight is looked at.
    stepper.apply(&AppEvent::TogglePause);
    let mut paused_frames = 0;
    while stepper.busy() || paused_frames < 3 {
        let (ui, _) = ui_frame(&mut stepper, &mut solver);
        assert_eq!(ui.batches, 0, "a batch was submitted while paused: {ui:?}");
        paused_frames += 1;
        assert!(paused_frames < 100_000, "the batch in flight never came back");
    }
    assert!(stepper.settled());
    let progress = stepper.frame_progress();
    assert_eq!(ui_frame(&mut stepper, &mut solver).0.batches, 0);
    assert_eq!(stepper.frame_progress(), progress, "the paused frame moved");
    // Play: the same frame goes on at the next UI frame.
    stepper.apply(&AppEvent::TogglePause);
    assert_eq!(ui_frame(&mut stepper, &mut solver).0.batches, 1);
    assert_eq!(stepper.frame_progress().map(|p| p.1), progress.map(|p| p.1));
    while stepper.busy() {
        ui_frame(&mut stepper, &mut solver);
    }
}

#[test]
fn the_rate_is_simulated_time_over_the_recent_wall_time() {
    let mut meter = RateMeter::default();
    let t0 = Instant::now();
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    meter.sample(at(0), 0.0);
    meter.sample(at(500), 0.001);
    assert_eq!(meter.ratio(), None, "half a second is too little to tell");
    for k in 2..=20 {
        meter.sample(at(500 * k), 0.001 * k as f64);
    }
    // 1 ms per 500 ms: 0.002×, over the last three seconds only.
    let ratio = meter.ratio().expect("measured");
    assert!((ratio - 0.002).abs() < 1e-9, "{ratio}");
    assert!(meter.samples.len() <= 8, "{}", meter.samples.len());
    meter.clear();
    assert_eq!(meter.ratio(), None);
}
