//! What each panel parameter does to the snow, shown when the pointer rests on its name or
//! slider. Each says what the number is physically and what raising it does.

/// Young's modulus E.
pub const YOUNGS_MODULUS: &str = "Young's modulus E: how stiff fresh snow is against being squeezed or bent. Higher: \
     the snow keeps its shape and bounces more; it also shortens the stable time step (more substeps per second).";
/// Poisson's ratio ν.
pub const POISSON_RATIO: &str = "Poisson's ratio ν: how much the snow bulges sideways when squeezed. Higher: it \
     resists changes of volume more than changes of shape (0.45 is nearly incompressible, 0 bulges not at all).";
/// Hardening ξ.
pub const HARDENING: &str = "hardening ξ: how much stiffer snow gets as it is compacted. Higher: packed snow \
     resists more and breaks in harder chunks; 0: compaction never stiffens it (slushy).";
/// Critical compression θc.
pub const CRITICAL_COMPRESSION: &str = "critical compression θc: how far snow can be squeezed before it deforms \
     permanently (packs down). Higher: springier snow that takes more load before it packs; lower: it packs \
     and crumbles sooner.";
/// The kind of material.
pub const KIND: &str = "kind: how the material yields. Snow packs and cracks (Stomakhin et al. 2013); sand \
     yields as a granular solid (Drucker–Prager on the Hencky strain, Klár et al. 2016): it flows under shear, \
     piles up and carries no tension; a liquid has no shear stiffness and a pressure from its volume alone.";
/// A liquid's bulk modulus.
pub const BULK_MODULUS: &str = "bulk modulus K: how hard the liquid resists being compressed (pressure \
     −K (J − 1)). Higher: less compressible, shorter steps; lower: bouncier, springy water.";
/// A visco-plastic fluid's yield stress.
pub const YIELD_STRESS: &str = "yield stress τy: the shear stress below which the fluid holds like a solid. \
     Higher: mud that stands in heaps and stops on slopes; 0: a plain viscous fluid such as honey.";
/// A visco-plastic fluid's viscosity.
pub const VISCOSITY: &str = "viscosity η: how hard the fluid resists flowing once past its yield stress. \
     Higher: slower, thicker flow (honey 2–10 Pa·s); lower: runnier.";
/// Which material the section edits.
pub const EDITS: &str = "which material the controls below edit: the scene's, which every emitter without \
     its own is made of, or one emitter's own";
/// An emitter's own material switch.
pub const OWN_MATERIAL: &str = "on: this emitter's particles are made of a material of its own (starting \
     as a copy of the scene's); off: of the scene's material";
/// Sand's friction angle φ.
pub const FRICTION_ANGLE: &str = "friction angle φ: how steep a pile of the sand stands. Higher: steeper piles \
     that flow less; lower: the sand runs out further.";
/// The right click's action.
pub const DROP: &str = "what a right click in the view does: grab the snow (drag to throw it), or drop a ball \
     of a material preset where it points. A dropped ball joins the scene as an emitter with its own material: \
     Reset puts it back where it was dropped, at time zero, and Save writes it.";
/// Sand's cohesion c.
pub const COHESION: &str = "cohesion c: how much the grains stick together, as the water between them makes wet \
     sand do. 0: dry sand that runs; higher: steeper walls and clumps that hold.";
/// The elastic law.
pub const ELASTICITY: &str = "elastic law: fixed corotated (the snow paper's) or neo-Hookean (rubber's). Both \
     respond alike to small strains; neo-Hookean resists being crushed ever harder and keeps its volume.";
/// Critical stretch θs.
pub const CRITICAL_STRETCH: &str = "critical stretch θs: how far snow can be pulled apart before it gives way \
     permanently. Higher: stickier snow that stretches and holds together; lower: brittle snow that fractures \
     into pieces.";
/// Tensile strength σF.
pub const TENSILE_STRENGTH: &str = "tensile strength σF: the pulling stress at which the snow cracks open. Higher: \
     chunks hold together under more pull; 0 turns cracking off (the paper's model, snow only yields).";
/// Density ρ.
pub const DENSITY: &str = "density ρ: mass per volume of the snow as spawned (fresh powder about 100, packed about 400, \
     ice about 900 kg/m³). Higher: heavier particles with more momentum in a hit; applies at the next reset.";
/// Grid resolution.
pub const GRID_RESOLUTION: &str = "grid resolution: cells along the longest edge of the domain. Higher: finer \
     detail (smaller clumps and cracks), but cost grows about with its fourth power (cells × substeps). The \
     particles are moved onto the new grid when you press Apply.";
/// Time step dt.
pub const DT: &str = "dt: the simulated seconds one substep advances while auto dt is off. Higher: fewer substeps \
     per second (faster), but past the stable dt the simulation blows up.";
/// Auto dt.
pub const AUTO_DT: &str = "auto dt: take the largest time step that stays stable for the snow's current speed and \
     stiffness, measured each frame. Off: the fixed dt below.";
/// Substeps per frame.
pub const SUBSTEPS: &str = "substeps per displayed frame in fixed-substeps mode. Higher: more simulated time per \
     frame (faster motion on screen), slower frames.";
/// Simulation budget.
pub const BUDGET: &str = "wall-clock milliseconds of each window frame the simulation may use. Higher: more \
     simulated time per frame, a less responsive window.";
/// Gravity.
pub const GRAVITY: &str = "gravity along z (up): −9.81 m/s² on Earth. More negative: snow falls and packs harder; \
     positive pulls it up.";
/// PB-MPM iterations.
pub const ITERATIONS: &str = "PB-MPM iterations per step: constraint iterations, or conjugate-gradient iterations \
     of the newton solve. Higher: more accurate snow (constraints: stiffer, closer to its moduli), slower steps.";
/// PB-MPM solve.
pub const SOLVER: &str = "How a PB-MPM step is solved. constraints: each particle steps toward its stress in \
     turn; cheap, softer than the material the finer the grid. newton: one Newton step solved by multilevel \
     conjugate gradients; the material's stiffness at any grid resolution, costs more per iteration \
     (dense grids only; docs/pbmpm.md).";
/// PB-MPM longest step.
pub const LONGEST_STEP: &str = "PB-MPM longest step: the largest simulated time one step may advance (steps are \
     also limited by how far the snow moves). Higher: fewer steps (faster); too high and fast snow tunnels.";
/// PB-MPM Newton steps.
pub const NEWTON_STEPS: &str = "Newton steps per PB-MPM step in a scene with sand, honey or mud: their stress is \
     returned to its yield surface inside the solve, which linearises again this many times. Higher: they flow \
     closer to their friction angle or viscosity, slower steps; 1 leaves sand nearly rigid. Other scenes take one.";
/// PB-MPM yield time.
pub const YIELD_TIME: &str = "yield time: how long plastic flow takes to relax the snow towards its yield limits. \
     Higher: snow stays springy longer before it packs or tears; 0 yields at once as the explicit integrator does.";
/// Particle size.
pub const PARTICLE_SIZE: &str = "particle size: drawn radius of each particle, as a multiple of half the particle \
     spacing. Larger closes the gaps between particles; the simulation is unchanged.";
/// Exposure.
pub const EXPOSURE: &str = "exposure: brightness of the final image. Higher: brighter.";
/// Volume density.
pub const VOLUME_DENSITY: &str = "volume density: how opaque the volume view draws a given amount of snow. Higher: \
     thin snow looks solid.";
/// Speed colour scale.
pub const SPEED_SCALE: &str = "speed shown at the top (brightest) of the speed colour scale. Lower: slow motion \
     stands out.";
/// View resolution.
pub const VIEW_RESOLUTION: &str = "view resolution: fraction of the window's pixels the 3D view renders (then \
     scaled up). Lower: faster drawing on slow GPUs, blurrier; screenshots and recordings are always full size.";
/// Tool radius.
pub const TOOL_RADIUS: &str = "tool radius: the sphere of snow the grab or repel tool acts on, drawn as a circle \
     while you hold it. Larger: grabs or pushes more snow at once.";
/// Tool strength.
pub const TOOL_STRENGTH: &str = "tool strength: how fast the snow in the sphere takes the cursor's velocity (per \
     second). Higher: the snow follows the cursor tightly; lower: it lags and stretches.";
/// Repel speed.
pub const REPEL_SPEED: &str = "repel speed: outward speed the repel tool gives the snow in its sphere. Higher: \
     a harder blast.";
/// Stepping mode.
pub const STEPPING: &str = "stepping: how much simulated time each window frame advances. Real time follows the \
     wall clock as far as the budget allows; fixed substeps runs the same number every frame; one scene frame \
     per frame shows every frame `powder run` would write.";
/// Render mode.
pub const RENDER_MODE: &str = "mode: surface draws the snow's surface, rebuilt from the particles every frame; \
     particles draws each particle as a small sphere; volume draws the snow's density as a cloud; both draws \
     particles and volume together. The simulation is unchanged.";
/// Colour field.
pub const COLOUR: &str = "colour: what the snow's colour shows (in every mode). snow: shaded white; speed: how fast each \
     particle moves (scale below); plastic Jp: compressed (below 1) or stretched (above 1) snow; material id: the emitter that \
     made it, a colour each.";
/// Repel toggle.
pub const REPEL: &str = "right drag pushes snow away from the cursor instead of grabbing it (Ctrl + right drag \
     always repels).";
/// Water's transfer.
pub const TRANSFER: &str = "transfer: how particle velocities reach the grid and come back. APIC keeps each particle's \
     local rotation and shear (smooth, little noise); PIC/FLIP blends the grid's velocity change into the particle's own \
     (livelier splashes, some noise).";
/// The FLIP share of the PIC/FLIP blend.
pub const FLIP_RATIO: &str = "FLIP share: how much of the grid's velocity change is added to each particle's own velocity \
     (1: pure FLIP, lively and noisy; 0: PIC, smooth and viscous-looking).";
/// The pressure solve's preconditioner.
pub const PRECONDITIONER: &str = "preconditioner of the pressure solve's conjugate gradients. multigrid converges in the \
     fewest iterations and is the fastest on large grids; incomplete_poisson and jacobi are cheap per iteration but need \
     many; mic0 needs few iterations but runs as wavefronts, slow on a GPU; none for comparison (docs/water.md).";
/// The pressure solve's tolerance.
pub const TOLERANCE: &str = "tolerance: the pressure solve stops once its relative residual is this small. Smaller keeps \
     the water closer to incompressible at more iterations a step.";
/// The pressure solve's iteration cap.
pub const ITERATION_CAP: &str = "iteration cap: the most conjugate-gradient iterations a pressure solve takes, converged or \
     not. The Stats panel shows what the last frame's solves took.";
/// The volume correction.
pub const VOLUME_CORRECTION: &str = "volume correction: after each step, particles crowded together are pushed apart (a \
     second solve), so the water keeps its volume over long sloshing. Off: a little volume is lost over seconds.";
