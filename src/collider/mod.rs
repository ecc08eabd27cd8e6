//! Colliders: solid shapes the snow meets, as signed distance fields sampled on the simulation grid.
