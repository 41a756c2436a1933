//! `collect --launcher torchrun`: the local launcher's steps with torchrun's c10d
//! rendezvous (`--nnodes --node-rank --rdzv-backend c10d --rdzv-endpoint --rdzv-id`) in
//! place of `--standalone`, for clusters without Slurm. Pure: it only rewrites [`Step`]s.
//!
//! Decisions: the rendezvous id is the run id (every node is given the same `--run-id`);
//! only `--nnodes 1` is accepted for now: a run of several nodes needs their folders
//! assembled on one node, which `--launcher slurm` does (see the README).

use crate::collect::plan::Step;
use anyhow::{bail, Result};

/// The rendezvous every node of a `--launcher torchrun` collect is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendezvous {
    pub nnodes: u32,
    pub node_rank: u32,
    /// `HOST:PORT` of the c10d store (node 0).
    pub endpoint: String,
}

impl Rendezvous {
    /// Refuses what this launcher cannot run, before anything is created.
    pub fn check(&self) -> Result<()> {
        if self.nnodes != 1 {
            bail!(
                "--launcher torchrun runs --nnodes 1 only for now ({} asked): use --launcher slurm for several nodes",
                self.nnodes
            );
        }
        if self.node_rank >= self.nnodes {
            bail!("--node-rank {} is not below --nnodes {}", self.node_rank, self.nnodes);
        }
        match self.endpoint.rsplit_once(':') {
            Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok() => Ok(()),
            _ => bail!("--rdzv-endpoint {:?} is not HOST:PORT", self.endpoint),
        }
    }

    /// The manifest's launcher entries.
    pub fn manifest_entries(&self) -> Vec<(String, String)> {
        vec![
            ("launcher".to_string(), "torchrun".to_string()),
            ("nodes".to_string(), self.nnodes.to_string()),
            ("rdzv_endpoint".to_string(), self.endpoint.clone()),
        ]
    }

    /// `step` with `--standalone` replaced by this rendezvous (`--rdzv-id` = `run_id`);
    /// a step that is not a standalone torchrun is returned unchanged.
    pub fn apply(&self, step: &Step, run_id: &str) -> Step {
        let mut step = step.clone();
        if let Some(i) = step.args.iter().position(|a| a == "--standalone") {
            let rendezvous = [
                format!("--nnodes={}", self.nnodes),
                format!("--node-rank={}", self.node_rank),
                "--rdzv-backend=c10d".to_string(),
                format!("--rdzv-endpoint={}", self.endpoint),
                format!("--rdzv-id={run_id}"),
            ];
            step.args.splice(i..=i, rendezvous);
        }
        step
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::plan::{cases, torch_step, WorkerSettings};
    use std::path::PathBuf;

    fn rendezvous(nnodes: u32, endpoint: &str) -> Rendezvous {
        Rendezvous { nnodes, node_rank: 0, endpoint: endpoint.to_string() }
    }

    #[test]
    fn standalone_becomes_the_rendezvous() {
        let settings = WorkerSettings {
            worker: PathBuf::from("/w.py"),
            cycles: 2,
            warmups: 3,
            decode_collectives: 160,
            cpu_affinity: "0".to_string(),
        };
        let local = torch_step(&cases(&[1])[0], &settings);
        let step = rendezvous(1, "127.0.0.1:29400").apply(&local, "r1");
        assert_eq!(
            step.args[..7].join(" "),
            "--nnodes=1 --node-rank=0 --rdzv-backend=c10d --rdzv-endpoint=127.0.0.1:29400 --rdzv-id=r1 \
             --nproc_per_node=1 /w.py"
        );
        assert_eq!(step.args[7..], local.args[3..]);
        assert_eq!((step.env, step.outputs), (local.env, local.outputs));
    }

    #[test]
    fn checks() {
        assert!(rendezvous(1, "node1:29400").check().is_ok());
        assert!(rendezvous(2, "node1:29400").check().unwrap_err().to_string().contains("use --launcher slurm"));
        assert!(rendezvous(1, "node1").check().unwrap_err().to_string().contains("is not HOST:PORT"));
        assert!(rendezvous(1, ":29400").check().is_err());
    }
}
