//! Counting the pieces snow has broken into.
//!
//! A piece (fragment) is a connected group of particles: two particles belong to the same piece
//! when a chain of particles joins them in which each step is shorter than the link distance.
//! powder links particles closer than [`LINK_FACTOR`] × the initial particle spacing: freshly
//! emitted snow, jittered by at most ±¼ spacing per axis, has about 14 neighbours within that
//! distance, so undisturbed snow is always one piece, and two pieces are apart once a gap of more
//! than 1.5 spacings (¾ of a cell at 8 particles per cell) opens between them.
//!
//! The count is O(n): particles are hashed into cubic cells of edge equal to the link distance, so
//! only the 27 cells around a particle can hold its neighbours, and the pairs found join sets of a
//! union-find (petgraph's).

use std::collections::HashMap;

use petgraph::unionfind::UnionFind;
use thiserror::Error;

/// Particles closer than this many initial particle spacings belong to the same piece.
pub const LINK_FACTOR: f64 = 1.5;
/// Pieces of at least this share of the snow's mass (0.5 %) count as chunks in
/// [`Fragments::significant`] and in the reports of `powder run` and `powder fragments`.
pub const SIGNIFICANT_SHARE: f64 = 0.005;

/// A refused fragment count.
#[derive(Debug, Error, PartialEq)]
pub enum FragmentError {
    /// The link distance is zero, negative or not finite.
    #[error("the link distance must be a finite number of metres above 0, not {0}")]
    LinkDistance(f64),
    /// The masses do not match the positions, or one is negative or not finite.
    #[error("{0}")]
    Masses(String),
}

/// The pieces of a particle set: each piece's mass share, largest first.
#[derive(Clone, Debug, PartialEq)]
pub struct Fragments {
    /// Mass share of each piece (its mass over the total), in decreasing order; they sum to 1.
    shares: Vec<f64>,
    /// Particles in each piece, in the order of `shares`.
    sizes: Vec<usize>,
}

impl Fragments {
    /// Number of pieces.
    pub fn count(&self) -> usize {
        self.shares.len()
    }

    /// Mass share of every piece, largest first (empty for no particles).
    pub fn shares(&self) -> &[f64] {
        &self.shares
    }

    /// Particles in every piece, in the order of [`Fragments::shares`].
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// Pieces holding at least `min_share` of the mass.
    pub fn at_least(&self, min_share: f64) -> usize {
        self.shares.iter().take_while(|&&s| s >= min_share).count()
    }

    /// Pieces holding at least [`SIGNIFICANT_SHARE`] of the mass: the chunks.
    pub fn significant(&self) -> usize {
        self.at_least(SIGNIFICANT_SHARE)
    }

    /// Share of the largest piece (0 for no particles).
    pub fn largest_share(&self) -> f64 {
        self.shares.first().copied().unwrap_or(0.0)
    }

    /// One line for people: pieces, chunks of ≥ 0.5 %, the largest share and the next few.
    pub fn summary(&self) -> String {
        let top: Vec<String> = self.shares.iter().take(8).map(|s| format!("{:.1}", 100.0 * s)).collect();
        format!(
            "{} pieces, {} of at least {:.1} % of the mass, largest {:.1} %; largest shares (%): {}",
            self.count(),
            self.significant(),
            100.0 * SIGNIFICANT_SHARE,
            100.0 * self.largest_share(),
            top.join(" ")
        )
    }
}

/// The pieces of the particles at `positions` (metres), linked when closer than `link` metres.
/// `masses`, one per particle, weight the shares; `None` counts every particle alike (what a PLY
/// frame allows, and exact for a scene's snow, whose particles all have one mass). A particle
/// whose position is not finite is a piece of its own.
pub fn find_fragments(positions: &[[f32; 3]], masses: Option<&[f32]>, link: f64) -> Result<Fragments, FragmentError> {
    if !(link.is_finite() && link > 0.0) {
        return Err(FragmentError::LinkDistance(link));
    }
    if let Some(m) = masses {
        if m.len() != positions.len() {
            return Err(FragmentError::Masses(format!("{} masses for {} particles", m.len(), positions.len())));
        }
        if let Some((i, bad)) = m.iter().enumerate().find(|(_, m)| !(m.is_finite() && **m >= 0.0)) {
            return Err(FragmentError::Masses(format!("particle {i} has mass {bad}; masses must be finite and ≥ 0")));
        }
    }
    let cell_of = |p: &[f32; 3]| -> Option<[i64; 3]> {
        let c = p.map(|x| (x as f64 / link).floor());
        // Beyond ±2⁵³ cells the floor is no longer exact; such a position is not snow in a domain.
        c.iter().all(|x| x.abs() < 9.0e15).then(|| c.map(|x| x as i64))
    };
    let mut cells: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
    for (i, p) in positions.iter().enumerate() {
        if let Some(c) = cell_of(p) {
            cells.entry(c).or_default().push(i as u32);
        }
    }
    let mut sets = UnionFind::<u32>::new(positions.len());
    let link2 = link * link;
    let close = |a: u32, b: u32| {
        let (p, q) = (positions[a as usize], positions[b as usize]);
        let d: f64 = (0..3).map(|k| (p[k] as f64 - q[k] as f64).powi(2)).sum();
        d < link2
    };
    for (cell, members) in &cells {
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let other = [cell[0] + dx, cell[1] + dy, cell[2] + dz];
                    // Each pair of cells once: the cell itself, and neighbours that sort after it.
                    if other < *cell {
                        continue;
                    }
                    let Some(neighbours) = cells.get(&other) else { continue };
                    for (ia, &a) in members.iter().enumerate() {
                        let start = if other == *cell { ia + 1 } else { 0 };
                        for &b in &neighbours[start..] {
                            if close(a, b) {
                                sets.union(a, b);
                            }
                        }
                    }
                }
            }
        }
    }
    let labels = sets.into_labeling();
    let mut pieces: HashMap<u32, (f64, usize)> = HashMap::new();
    for (i, &root) in labels.iter().enumerate() {
        let entry = pieces.entry(root).or_default();
        entry.0 += masses.map_or(1.0, |m| m[i] as f64);
        entry.1 += 1;
    }
    let total: f64 = pieces.values().map(|p| p.0).sum();
    let mut list: Vec<(f64, usize)> = pieces.into_values().collect();
    list.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
    let share = |m: f64| if total > 0.0 { m / total } else { 0.0 };
    Ok(Fragments { shares: list.iter().map(|p| share(p.0)).collect(), sizes: list.iter().map(|p| p.1).collect() })
}

/// The table `powder fragments` prints: a header, then one row per frame file with its pieces,
/// chunks (pieces of at least [`SIGNIFICANT_SHARE`]), the largest share and the eight largest
/// shares, particles linked when closer than [`LINK_FACTOR`] × `spacing` (the scene's initial
/// particle spacing, metres). Every particle counts alike: PLY frames carry no mass, and a
/// scene's particles all have one.
pub fn frame_table(files: &[std::path::PathBuf], spacing: f64) -> Result<String, FrameTableError> {
    let mut out = String::from("file\tpieces\tchunks\tlargest_%\tlargest_shares_%\n");
    for file in files {
        let points = crate::export::read_ply(file)?;
        let positions: Vec<[f32; 3]> = points.iter().map(|p| p.position).collect();
        let f = find_fragments(&positions, None, LINK_FACTOR * spacing)
            .map_err(|source| FrameTableError::Spacing { spacing, source })?;
        let top: Vec<String> = f.shares().iter().take(8).map(|s| format!("{:.1}", 100.0 * s)).collect();
        out += &format!(
            "{}\t{}\t{}\t{:.1}\t{}\n",
            file.display(),
            f.count(),
            f.significant(),
            100.0 * f.largest_share(),
            top.join(" ")
        );
    }
    Ok(out)
}

/// Why [`frame_table`] failed.
#[derive(Debug, Error)]
pub enum FrameTableError {
    /// A frame file could not be read.
    #[error(transparent)]
    Read(#[from] crate::export::ExportError),
    /// `--spacing` is not a positive number of metres.
    #[error("--spacing {spacing}: {source}")]
    Spacing {
        /// The spacing given.
        spacing: f64,
        /// What is wrong with the link distance it makes.
        source: FragmentError,
    },
}

#[cfg(test)]
mod tests;
