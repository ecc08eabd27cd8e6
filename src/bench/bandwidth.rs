//! The memory-bandwidth floor of `powder bench`: a streaming copy kernel timed on the same device.

use std::time::Instant;

use crate::gpu::Gpu;
use crate::sim::record;

/// WGSL of the bandwidth probe.
pub const COPY_SHADER: &str = include_str!("../../shaders/bench/copy.wgsl");

/// Measures device memory bandwidth (bytes read + written per second) with a compute kernel that
/// copies up to 256 MiB in 16-byte elements, timed like the passes (timestamps where available),
/// best of 10. A compute copy, not `copy_buffer_to_buffer`: on the H100 the transfer path reached
/// only ~0.8 TB/s, far under what compute kernels get, which would have made the floor too lenient.
pub fn memory_bandwidth(gpu: &Gpu) -> f64 {
    let device = &gpu.device;
    let size = (256u64 << 20).min(crate::sim::capacity::max_storage_bytes(device)) / 16 * 16;
    let make = |label, usage| {
        device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false })
    };
    let source = make("bandwidth_source", wgpu::BufferUsages::STORAGE);
    let destination = make("bandwidth_destination", wgpu::BufferUsages::STORAGE);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("bench.copy"),
        source: wgpu::ShaderSource::Wgsl(COPY_SHADER.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("bench.copy"),
        layout: None,
        module: &module,
        entry_point: Some("copy"),
        compilation_options: Default::default(),
        cache: None,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("bench.copy"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: source.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: destination.as_entire_binding() },
        ],
    });
    let (x, y) = record::dispatch_size((size / 16) as u32);
    let runs = 10u32;
    let query_set = gpu.has_timestamps.then(|| {
        device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("bench.copy"),
            ty: wgpu::QueryType::Timestamp,
            count: 2 * runs,
        })
    });
    let record = |encoder: &mut wgpu::CommandEncoder, timestamps: Option<wgpu::ComputePassTimestampWrites>| {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("bench.copy"),
            timestamp_writes: timestamps,
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(x, y, 1);
    };
    let mut seconds = Vec::new();
    if let Some(q) = &query_set {
        let mut encoder = device.create_command_encoder(&Default::default());
        for run in 0..runs {
            record(
                &mut encoder,
                Some(wgpu::ComputePassTimestampWrites {
                    query_set: q,
                    beginning_of_pass_write_index: Some(2 * run),
                    end_of_pass_write_index: Some(2 * run + 1),
                }),
            );
        }
        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("bench.copy.resolve"),
            size: 16 * runs as u64,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        encoder.resolve_query_set(q, 0..2 * runs, &resolve, 0);
        gpu.queue.submit([encoder.finish()]);
        let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&gpu.read_buffer(&resolve).unwrap_or_default());
        let period = gpu.queue.get_timestamp_period() as f64 * 1e-9;
        seconds.extend(ticks.chunks_exact(2).map(|t| t[1].saturating_sub(t[0]) as f64 * period));
    } else {
        for _ in 0..runs {
            let start = Instant::now();
            let mut encoder = device.create_command_encoder(&Default::default());
            record(&mut encoder, None);
            gpu.queue.submit([encoder.finish()]);
            gpu.wait_idle();
            seconds.push(start.elapsed().as_secs_f64());
        }
    }
    // The first run pays for first touches of the memory; the best of the rest is the bandwidth.
    let best = seconds.iter().skip(1).cloned().fold(f64::INFINITY, f64::min);
    2.0 * size as f64 / best
}
