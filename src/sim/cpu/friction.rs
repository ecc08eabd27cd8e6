//! Coulomb friction at a contact, shared by the walls ([`super::grid_update`]) and the colliders
//! ([`super::colliders`]), which is why it lives in neither.

use nalgebra::Vector3;

/// Coulomb friction on the tangential velocity `vt` of a contact whose normal velocity is `vn`
/// (relative to the wall or collider, along its inward normal: negative when approaching).
///
/// Friction acts only in contact (Stomakhin et al. 2013, §8): the normal impulse per unit mass is
/// the approach speed `max(−vn, 0)`, so a node moving away from the surface (`vn ≥ 0`) keeps its
/// tangential velocity. Otherwise `vt` stops if `|vt| ≤ μ·(−vn)` and loses `μ·(−vn)` of its length
/// if not.
pub fn coulomb_friction(vt: Vector3<f64>, vn: f64, friction: f64) -> Vector3<f64> {
    let vt_len = vt.norm();
    let loss = friction * (-vn).max(0.0);
    if vt_len <= loss { Vector3::zeros() } else { vt - loss * vt / vt_len }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn friction_acts_only_while_approaching() {
        let vt = Vector3::new(1.0, -2.0, 0.0);
        // Separating or grazing: no normal impulse, so no friction, whatever μ.
        assert_eq!(coulomb_friction(vt, 0.5, 0.3), vt);
        assert_eq!(coulomb_friction(vt, 0.0, 10.0), vt);
        // Approaching at 2 m/s with μ = 0.5: |vt| = √5 loses 1 m/s.
        let slowed = coulomb_friction(vt, -2.0, 0.5);
        assert!((slowed - vt * (1.0 - 1.0 / 5f64.sqrt())).norm() < 1e-12, "{slowed}");
        // Approaching fast enough: static friction stops it.
        assert_eq!(coulomb_friction(vt, -5.0, 0.5), Vector3::zeros());
    }
}
