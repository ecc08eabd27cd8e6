//! The f64 CPU twin of the pressure solve: the Poisson operator on the liquid cells
//! ([`operator`]), the preconditioners ([`precond`], [`multigrid`]) and conjugate gradients
//! ([`pcg`]). It is the reference the GPU solve is checked against, and small enough to read.

pub mod multigrid;
pub mod operator;
pub mod pcg;
pub mod precond;
