//! How long things take: GPU timestamps of the four passes of the first batch of substeps each
//! frame (where the adapter has timestamp queries), averaged per substep, wall-clock frame rate,
//! and the UI's frame times (the intervals between presented frames) with their percentiles.

use std::time::{Duration, Instant};

use powder::gpu::Gpu;
use powder::sim::explicit::substep::SubstepTimer;
use powder::sim::record::PassTimestamps;

/// Two queries (begin, end) per stage of a substep (`SolverPath::stage_names`: four on every path).
const QUERIES_PER_SUBSTEP: u32 = 8;
/// Substeps timed per frame at most (one command buffer's worth).
pub const MAX_TIMED_SUBSTEPS: u32 = 64;
const QUERIES: u32 = QUERIES_PER_SUBSTEP * MAX_TIMED_SUBSTEPS;
const QUERY_BYTES: u64 = QUERIES as u64 * 8;

/// Timestamp queries around the passes of up to [`MAX_TIMED_SUBSTEPS`] substeps.
pub struct PassTimer {
    query_set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    period_ns: f64,
}

impl PassTimer {
    /// A timer, or `None` where the device has no timestamp queries.
    pub fn new(gpu: &Gpu) -> Option<Self> {
        if !gpu.has_timestamps {
            return None;
        }
        let query_set = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("app.pass_timer"),
            ty: wgpu::QueryType::Timestamp,
            count: QUERIES,
        });
        let buffer = |label, usage| {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: QUERY_BYTES,
                usage,
                mapped_at_creation: false,
            })
        };
        let resolve =
            buffer("app.pass_timer.resolve", wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC);
        let readback = buffer("app.pass_timer.readback", wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
        Some(Self { query_set, resolve, readback, period_ns: gpu.queue.get_timestamp_period() as f64 })
    }

    /// Mean milliseconds per substep of each pass over the `substeps` timed substeps, once the
    /// recorded work has finished (blocks until it has).
    pub fn read(&self, gpu: &Gpu, substeps: u32) -> Option<[f64; 4]> {
        let substeps = substeps.clamp(1, MAX_TIMED_SUBSTEPS) as usize;
        let slice = self.readback.slice(..);
        let (sender, receiver) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = sender.send(r);
        });
        gpu.wait_idle();
        receiver.recv().ok()?.ok()?;
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&slice.get_mapped_range().ok()?);
        self.readback.unmap();
        let mut ms = [0.0; 4];
        for substep in ticks.chunks_exact(QUERIES_PER_SUBSTEP as usize).take(substeps) {
            for (k, out) in ms.iter_mut().enumerate() {
                *out += substep[2 * k + 1].saturating_sub(substep[2 * k]) as f64 * self.period_ns * 1e-6;
            }
        }
        Some(ms.map(|total| total / substeps as f64))
    }
}

/// Frames not counted in [`FrameClock::mean_fps`]: the first ones compile pipelines and fill caches.
const WARM_UP_FRAMES: u64 = 5;

/// Frames per second and milliseconds per frame, averaged over about half a second.
pub struct FrameClock {
    /// When the first frame after the warm-up frames started.
    warm_start: Option<Instant>,
    frames: u64,
    last: Instant,
    window_start: Instant,
    frames_in_window: u32,
    /// Frames per second over the last window.
    pub fps: f64,
    /// Mean wall-clock milliseconds per frame over the last window.
    pub frame_ms: f64,
}

impl Default for FrameClock {
    fn default() -> Self {
        let now = Instant::now();
        Self { warm_start: None, frames: 0, last: now, window_start: now, frames_in_window: 0, fps: 0.0, frame_ms: 0.0 }
    }
}

impl FrameClock {
    /// Marks the start of a frame; returns the wall-clock time since the previous one.
    pub fn tick(&mut self) -> Duration {
        let now = Instant::now();
        self.frames += 1;
        if self.frames == WARM_UP_FRAMES + 1 {
            self.warm_start = Some(now);
        }
        let since = now - self.last;
        self.last = now;
        self.frames_in_window += 1;
        let window = now - self.window_start;
        if window >= Duration::from_millis(500) {
            self.fps = self.frames_in_window as f64 / window.as_secs_f64();
            self.frame_ms = 1e3 / self.fps;
            self.frames_in_window = 0;
            self.window_start = now;
        }
        since
    }

    /// When the latest frame started.
    pub fn last_tick(&self) -> Instant {
        self.last
    }

    /// Forgets the time spent while no frames were drawn (minimised), so it is not simulated.
    pub fn restart(&mut self) {
        *self = Self {
            warm_start: self.warm_start,
            frames: self.frames,
            fps: self.fps,
            frame_ms: self.frame_ms,
            ..Self::default()
        };
    }

    /// Frames per second from the start of the first frame after the warm-up frames to the start
    /// of the latest one (time spent minimised included); 0 until there are such frames.
    pub fn mean_fps(&self) -> f64 {
        let Some(start) = self.warm_start else { return 0.0 };
        let seconds = (self.last - start).as_secs_f64();
        let intervals = self.frames.saturating_sub(WARM_UP_FRAMES + 1);
        if seconds > 0.0 { intervals as f64 / seconds } else { 0.0 }
    }
}

/// Frame intervals kept at most (4 MiB; hours of frames): later ones are not recorded.
const MAX_FRAME_SAMPLES: usize = 1 << 20;
/// Frames the Stats panel's percentiles cover: the most recent this many.
pub const RECENT_FRAMES: usize = 300;

/// The UI's frame times: the wall-clock interval between one presented frame and the next, which
/// is what the user sees (event handling, the egui pass, the simulation's share and the draw
/// together). The intervals that follow the first [`WARM_UP_FRAMES`] presents (pipelines compile
/// then) are kept, and so is none across a time without frames (minimised).
#[derive(Default)]
pub struct FrameTimes {
    last: Option<Instant>,
    presents: u64,
    ms: Vec<f32>,
}

/// Percentiles of frame times, milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct FrameTimeSummary {
    /// Intervals summarised.
    pub frames: usize,
    /// Median.
    pub p50_ms: f64,
    /// 99th percentile (nearest rank).
    pub p99_ms: f64,
    /// Longest.
    pub max_ms: f64,
    /// Mean.
    pub mean_ms: f64,
}

impl FrameTimes {
    /// A frame was presented at `now`.
    pub fn presented(&mut self, now: Instant) {
        self.presents += 1;
        if let Some(last) = self.last.replace(now)
            && self.presents > WARM_UP_FRAMES + 1
            && self.ms.len() < MAX_FRAME_SAMPLES
        {
            self.ms.push((now - last).as_secs_f32() * 1e3);
        }
    }

    /// The next present starts a new interval (nothing was drawn meanwhile: minimised).
    pub fn restart(&mut self) {
        self.last = None;
    }

    /// Percentiles of every interval recorded; `None` before the first.
    pub fn summary(&self) -> Option<FrameTimeSummary> {
        summarise_ms(&self.ms)
    }

    /// Percentiles of the last `n` intervals; `None` before the first.
    pub fn recent(&self, n: usize) -> Option<FrameTimeSummary> {
        summarise_ms(&self.ms[self.ms.len().saturating_sub(n)..])
    }
}

/// Median, 99th percentile (nearest rank: the smallest sample at or above 99% of them), longest and
/// mean of `ms`; `None` when empty.
pub fn summarise_ms(ms: &[f32]) -> Option<FrameTimeSummary> {
    if ms.is_empty() {
        return None;
    }
    let mut sorted = ms.to_vec();
    sorted.sort_by(f32::total_cmp);
    let rank = |q: f64| sorted[((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1] as f64;
    Some(FrameTimeSummary {
        frames: sorted.len(),
        p50_ms: rank(0.5),
        p99_ms: rank(0.99),
        max_ms: sorted[sorted.len() - 1] as f64,
        mean_ms: sorted.iter().map(|&v| v as f64).sum::<f64>() / sorted.len() as f64,
    })
}

impl SubstepTimer for PassTimer {
    /// Where substep `index` (below [`MAX_TIMED_SUBSTEPS`]) writes its timestamps.
    fn timestamps(&self, index: u32) -> PassTimestamps<'_> {
        PassTimestamps { query_set: &self.query_set, first: QUERIES_PER_SUBSTEP * index.min(MAX_TIMED_SUBSTEPS - 1) }
    }

    /// Records the copy of the first `substeps` substeps' timestamps into the readback buffer.
    fn resolve(&self, encoder: &mut wgpu::CommandEncoder, substeps: u32) {
        let queries = QUERIES_PER_SUBSTEP * substeps.clamp(1, MAX_TIMED_SUBSTEPS);
        encoder.resolve_query_set(&self.query_set, 0..queries, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, queries as u64 * 8);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        assert_eq!(summarise_ms(&[]), None);
        let ms: Vec<f32> = (1..=100).rev().map(|v| v as f32).collect();
        let s = summarise_ms(&ms).expect("samples");
        assert_eq!((s.frames, s.p50_ms, s.p99_ms, s.max_ms, s.mean_ms), (100, 50.0, 99.0, 100.0, 50.5));
        // One slow frame in 1000 is above the 99th percentile; eleven are not.
        let mut ms = vec![20.0; 1000];
        ms[3] = 900.0;
        assert_eq!(summarise_ms(&ms).expect("samples").p99_ms, 20.0);
        ms[10..21].fill(500.0);
        assert_eq!(summarise_ms(&ms).expect("samples").p99_ms, 500.0);
    }

    #[test]
    fn frame_times_skip_the_warm_up_and_gaps() {
        let mut times = FrameTimes::default();
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        for k in 0..=WARM_UP_FRAMES {
            times.presented(at(1000 * k)); // compiling: seconds apart, not recorded
        }
        assert_eq!(times.summary(), None);
        let base = 1000 * WARM_UP_FRAMES;
        times.presented(at(base + 10));
        times.presented(at(base + 40));
        times.restart(); // minimised for a minute
        times.presented(at(base + 60_000));
        times.presented(at(base + 60_020));
        let s = times.summary().expect("samples");
        assert_eq!((s.frames, s.max_ms.round(), s.p50_ms.round()), (3, 30.0, 20.0));
        assert_eq!(times.recent(1).expect("samples").max_ms.round(), 20.0);
    }
}
