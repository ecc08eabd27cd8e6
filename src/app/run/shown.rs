//! The simulation's device, and the particles the 3D view draws.
//!
//! On a GPU the simulation and the window share one device: the renderer draws the solver's own
//! buffers, and the per-UI-frame simulation budget ([`crate::app::run::stepping`]) bounds how much
//! simulation work the window's drawing is queued behind.
//!
//! A software driver (lavapipe) runs a queue's submissions one after another on the CPU, and one
//! substep of a modest scene there takes longer than a whole UI frame may (the default scene's
//! grid of 64: a few hundred milliseconds). Drawing queued behind such a substep would wait for
//! it, whatever the budget. So on a software adapter the simulation gets a device of its own on
//! the same adapter ([`simulation_gpu`]): its own queue, whose work runs beside the window's. The
//! window then draws a copy of the three particle streams the renderer reads (position, velocity,
//! plastic state; 48 bytes a particle): each batch of substeps ends with a copy of them into a
//! staging buffer ([`Shown::record_copy`]), mapped once the batch is done, and its bytes are written
//! to buffers of the window's device ([`Shown::poll`]). A software driver's device memory is host
//! memory, so this is a memory copy. After anything else that changes the particles (a reset, a
//! new scene or grid) the copy is made on its own ([`Shown::sync`]).

use powder::gpu::{Gpu, PendingRead};
use powder::sim::Solver;
use powder::sim::particles::{ParticleBuffers, STREAMS};

/// The device the simulation runs on: `window`'s own, or on a software adapter a second device of
/// the same adapter (see the module docs). Returns it and whether it is a device of its own.
pub fn simulation_gpu(window: &Gpu) -> (Gpu, bool) {
    if window.info.device_type != wgpu::DeviceType::Cpu {
        return (window.clone(), false);
    }
    match Gpu::from_adapter(window.instance.clone(), window.adapter.clone()) {
        Ok(gpu) => (gpu, true),
        Err(e) => {
            log::warn!("no second device for the simulation ({e}); the window's drawing waits for its substeps");
            (window.clone(), false)
        }
    }
}

/// The particles the 3D view draws: the solver's, or copies on the window's device.
pub struct Shown {
    mirror: Option<Mirror>,
}

/// Copies on the window's device of the streams the renderer reads, page by page.
struct Mirror {
    window: Gpu,
    pages: Vec<ParticleBuffers>,
    /// Stands in for the streams the renderer does not read.
    unused: wgpu::Buffer,
    /// The copy on its way: its read and the particle count of each page.
    pending: Option<(PendingRead, Vec<u32>)>,
    /// The particles changed since the last copy was recorded.
    stale: bool,
    /// A copy was taken over since the last [`Shown::poll`].
    arrived: bool,
}

/// Streams copied: position, velocity, plastic state ([`STREAMS`] indices).
const COPIED: [usize; 3] = [0, 1, 4];

impl Shown {
    /// What the window on `window` draws when the simulation runs on a device of its own
    /// (`separate`), or the solver's buffers where it shares the window's.
    pub fn new(window: &Gpu, separate: bool) -> Self {
        let mirror = separate.then(|| Mirror {
            window: window.clone(),
            pages: Vec::new(),
            unused: window.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("app.shown.unused"),
                size: 64,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            }),
            pending: None,
            stale: true,
            arrived: false,
        });
        Self { mirror }
    }

    /// Whether the view draws copies (the simulation has a device of its own).
    pub fn copies(&self) -> bool {
        self.mirror.is_some()
    }

    /// The particles changed outside a batch (an event): a copy is made on its own at the next
    /// [`Shown::sync`].
    pub fn invalidate(&mut self) {
        if let Some(mirror) = &mut self.mirror {
            mirror.stale = true;
        }
    }

    /// Records the copy of `solver`'s particles into `encoder` (on the simulation's device `sim`),
    /// the last of a batch; returns the read to start once it is submitted. Nothing where the
    /// window draws the solver's buffers.
    pub fn record_copy(
        &mut self,
        sim: &Gpu,
        solver: &Solver,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Option<PendingRead> {
        let mirror = self.mirror.as_mut()?;
        // The last batch's copy, if it is back, before this one takes its place.
        mirror.take_over();
        let pages = solver.particle_pages();
        let buffers: Vec<&wgpu::Buffer> = pages.iter().flat_map(|p| [&p.position, &p.velocity, &p.plastic]).collect();
        let read = sim.record_read(encoder, &buffers);
        mirror.pending = Some((read.clone(), pages.iter().map(|p| p.count).collect()));
        mirror.stale = false;
        Some(read)
    }

    /// Copies the particles on their own if they changed outside a batch, unless a copy is on its
    /// way or the simulation is `busy` (the next batch copies them).
    pub fn sync(&mut self, sim: &Gpu, solver: &Solver, busy: bool) {
        let Some(mirror) = &self.mirror else { return };
        if !mirror.stale || mirror.pending.is_some() || busy {
            return;
        }
        let mut encoder =
            sim.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("app.shown.copy") });
        let read = self.record_copy(sim, solver, &mut encoder);
        sim.queue.submit([encoder.finish()]);
        if let Some(read) = read {
            read.start();
        }
    }

    /// Takes a finished copy over to the window's device (polling the simulation's device without
    /// waiting). Returns whether the drawn particles changed since the last call.
    pub fn poll(&mut self, sim: &Gpu) -> bool {
        let Some(mirror) = &mut self.mirror else { return false };
        if let Some((read, _)) = &mirror.pending {
            read.start(); // a no-op where the batch already asked for the mapping
            if !read.ready() {
                sim.poll(None, None);
            }
        }
        mirror.take_over();
        std::mem::take(&mut mirror.arrived)
    }

    /// Whether the drawn particles are those of the solver's latest finished work (no copy on its
    /// way or due).
    pub fn current(&self) -> bool {
        self.mirror.as_ref().is_none_or(|m| m.pending.is_none() && !m.stale)
    }

    /// The pages to draw and their particle count.
    pub fn pages<'a>(&'a self, solver: &'a Solver) -> (Vec<&'a ParticleBuffers>, u32) {
        match &self.mirror {
            None => (solver.particle_pages(), solver.particle_count()),
            Some(mirror) => (mirror.pages.iter().collect(), mirror.pages.iter().map(|p| p.count).sum()),
        }
    }
}

impl Mirror {
    /// Takes the copy on its way over to the window's device if it is back.
    fn take_over(&mut self) {
        let Some((read, counts)) = &self.pending else { return };
        let Some(result) = read.take() else { return };
        let counts = counts.clone();
        self.pending = None;
        match result {
            Ok(parts) => {
                self.upload(&counts, &parts);
                self.arrived = true;
            }
            Err(e) => {
                log::warn!("copying the particles for drawing failed: {e}");
                self.stale = true;
            }
        }
    }

    /// Writes the streams read back (three per page) into the window's buffers, made anew where a
    /// page's count changed.
    fn upload(&mut self, counts: &[u32], parts: &[Vec<u8>]) {
        let device = &self.window.device;
        if self.pages.len() != counts.len() || self.pages.iter().zip(counts).any(|(p, &n)| p.count != n) {
            let stream = |k: usize, count: u32| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(STREAMS[k].0),
                    size: STREAMS[k].1 * count.max(1) as u64,
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            };
            self.pages = counts
                .iter()
                .map(|&count| ParticleBuffers {
                    position: stream(COPIED[0], count),
                    velocity: stream(COPIED[1], count),
                    affine: self.unused.clone(),
                    deformation: self.unused.clone(),
                    plastic: stream(COPIED[2], count),
                    stress: self.unused.clone(),
                    id: self.unused.clone(),
                    count,
                })
                .collect();
        }
        for (page, streams) in self.pages.iter().zip(parts.chunks(COPIED.len())) {
            for (buffer, bytes) in [&page.position, &page.velocity, &page.plastic].into_iter().zip(streams) {
                let n = (bytes.len() as u64).min(buffer.size()) as usize;
                self.window.queue.write_buffer(buffer, 0, &bytes[..n]);
            }
        }
    }
}
