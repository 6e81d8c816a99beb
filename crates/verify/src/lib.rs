//! warpkit's verification kit. [`regress`] runs regression plans, sharded over Slurm job
//! arrays or Kubernetes Indexed Jobs, and merges the shards' JUnit and JSON Lines results.

pub mod regress;
