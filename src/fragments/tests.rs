use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;

/// An `n`×`n`×`n` lattice of spacing `s` with its corner at `corner`.
fn block(corner: [f32; 3], n: usize, s: f32) -> Vec<[f32; 3]> {
    let mut out = Vec::new();
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                out.push([corner[0] + i as f32 * s, corner[1] + j as f32 * s, corner[2] + k as f32 * s]);
            }
        }
    }
    out
}

#[test]
fn two_blocks_apart_are_two_pieces_with_their_shares() {
    // Spacing 0.1, link 0.15: the lattice neighbours (0.1) link, the gap between the blocks
    // (0.5 − 0.2 = 0.3) does not.
    let mut points = block([0.0; 3], 3, 0.1);
    points.extend(block([0.5, 0.0, 0.0], 2, 0.1));
    let f = find_fragments(&points, None, 0.15).unwrap();
    assert_eq!(f.count(), 2);
    assert_eq!(f.sizes(), &[27, 8]);
    // Shares are counts over 35, to f64 rounding.
    assert!((f.shares()[0] - 27.0 / 35.0).abs() < 1e-15 && (f.shares()[1] - 8.0 / 35.0).abs() < 1e-15);
    assert_eq!(f.largest_share(), f.shares()[0]);
    // Moving the small block to within 0.14 of the big one (its face at x = 0.2) joins them.
    let mut joined = block([0.0; 3], 3, 0.1);
    joined.extend(block([0.34, 0.0, 0.0], 2, 0.1));
    assert_eq!(find_fragments(&joined, None, 0.15).unwrap().sizes(), &[35]);
}

#[test]
fn the_link_is_strictly_shorter_than_the_distance() {
    // A chain of 10 points: steps of 0.99 link form one piece, steps of 1.01 link ten.
    let chain = |step: f32| -> Vec<[f32; 3]> { (0..10).map(|i| [0.3 + i as f32 * step, 0.2, 0.1]).collect() };
    assert_eq!(find_fragments(&chain(0.099), None, 0.1).unwrap().count(), 1);
    assert_eq!(find_fragments(&chain(0.101), None, 0.1).unwrap().count(), 10);
}

#[test]
fn neighbours_across_a_cell_corner_are_found() {
    // Cells of edge 1: the two points sit in cells (0,0,0) and (1,1,1), 0.3·√3 ≈ 0.52 apart.
    let points = [[0.85, 0.85, 0.85], [1.15, 1.15, 1.15]];
    assert_eq!(find_fragments(&points, None, 1.0).unwrap().count(), 1);
    // And across negative coordinates, where the cell index is floor, not truncation.
    let points = [[-0.1, -0.1, -0.1], [0.1, 0.1, 0.1]];
    assert_eq!(find_fragments(&points, None, 1.0).unwrap().count(), 1);
}

#[test]
fn masses_weight_the_shares() {
    let points = [[0.0, 0.0, 0.0], [0.05, 0.0, 0.0], [1.0, 0.0, 0.0]];
    // The lone particle weighs 3, the pair 1 + 1: shares 3/5 and 2/5.
    let f = find_fragments(&points, Some(&[1.0, 1.0, 3.0]), 0.1).unwrap();
    assert_eq!(f.sizes(), &[1, 2]);
    assert!((f.shares()[0] - 0.6).abs() < 1e-15 && (f.shares()[1] - 0.4).abs() < 1e-15);
}

#[test]
fn chunks_are_pieces_of_at_least_half_a_percent() {
    // One block of 1000, three of 8 (8/1029 ≈ 0.78 % each) and five single crumbs (0.097 %).
    let mut points = block([0.0; 3], 10, 0.1);
    for b in 0..3 {
        points.extend(block([2.0 + b as f32, 0.0, 0.0], 2, 0.1));
    }
    for c in 0..5 {
        points.push([0.0, 3.0 + c as f32, 0.0]);
    }
    let f = find_fragments(&points, None, 0.15).unwrap();
    assert_eq!(f.count(), 9);
    assert_eq!(f.significant(), 4);
    assert_eq!(f.at_least(0.5), 1);
    assert!((f.largest_share() - 1000.0 / 1029.0).abs() < 1e-15);
    assert!((f.shares().iter().sum::<f64>() - 1.0).abs() < 1e-12);
}

#[test]
fn agrees_with_all_pairs_on_random_clouds() {
    // 600 points in a unit box at a link near the percolation threshold (many pieces of many
    // sizes): the cell hash must find exactly the pairs the O(n²) search finds.
    let mut rng = StdRng::seed_from_u64(7);
    for link in [0.06, 0.08, 0.1] {
        let points: Vec<[f32; 3]> = (0..600).map(|_| [rng.random(), rng.random(), rng.random()]).collect();
        let mut sets = UnionFind::<u32>::new(points.len());
        for a in 0..points.len() {
            for b in a + 1..points.len() {
                let d: f64 = (0..3).map(|k| (points[a][k] as f64 - points[b][k] as f64).powi(2)).sum();
                if d < link * link {
                    sets.union(a as u32, b as u32);
                }
            }
        }
        let labels = sets.into_labeling();
        let mut sizes: HashMap<u32, usize> = HashMap::new();
        for l in labels {
            *sizes.entry(l).or_default() += 1;
        }
        let mut want: Vec<usize> = sizes.into_values().collect();
        want.sort_unstable_by(|a, b| b.cmp(a));
        let got = find_fragments(&points, None, link).unwrap();
        assert!(got.count() > 5 && got.largest_share() < 1.0, "link {link}: a cloud of one piece tests little");
        assert_eq!(got.sizes(), &want[..], "link {link}");
    }
}

#[test]
fn bad_input_is_refused_and_odd_input_counted() {
    assert_eq!(find_fragments(&[[0.0; 3]], None, 0.0), Err(FragmentError::LinkDistance(0.0)));
    assert!(find_fragments(&[[0.0; 3]], None, f64::NAN).is_err());
    assert!(find_fragments(&[[0.0; 3]], Some(&[1.0, 2.0]), 1.0).is_err());
    assert!(find_fragments(&[[0.0; 3]], Some(&[-1.0]), 1.0).is_err());
    let empty = find_fragments(&[], None, 1.0).unwrap();
    assert_eq!((empty.count(), empty.largest_share()), (0, 0.0));
    // A non-finite position is a piece of its own, next to a finite pair.
    let f = find_fragments(&[[f32::NAN, 0.0, 0.0], [0.0; 3], [0.01, 0.0, 0.0]], None, 0.1).unwrap();
    assert_eq!(f.sizes(), &[2, 1]);
}
