//! `collect --launcher torchrun`: the local launcher's steps with torchrun's c10d
//! rendezvous (`--nnodes --node-rank --rdzv-backend c10d --rdzv-endpoint --rdzv-id`) in
//! place of `--standalone`, for clusters without Slurm. Rewrites [`Step`]s; the gathering of
//! several nodes' folders is in [`crate::collect::gather`].
//!
//! Decisions: the rendezvous id is the run id (every node is given the same `--run-id`).
//! With several nodes, `--world-sizes` are per node (clamped to each node's GPUs) and a case
//! is named by its whole world: `world8_full` for 2 nodes x 4; node R writes the CSVs of
//! global ranks R*w .. R*w+w-1.

use crate::collect::plan::Step;
use anyhow::{bail, Result};
use std::path::PathBuf;
use std::time::Duration;

/// The rendezvous every node of a `--launcher torchrun` collect is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendezvous {
    pub nnodes: u32,
    pub node_rank: u32,
    /// `HOST:PORT` of the c10d store (node 0).
    pub endpoint: String,
    /// The run id every node shares, set when a node collects into its staging folder under
    /// another id; `None`: the run's own id.
    pub rdzv_id: Option<String>,
    /// How long node 0 waits for the other nodes' folders after its own collect.
    pub node_timeout: Duration,
}

impl Rendezvous {
    /// Refuses what this launcher cannot run, before anything is created.
    pub fn check(&self) -> Result<()> {
        if self.nnodes == 0 {
            bail!("--nnodes must be at least 1");
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

    /// `step` with `--standalone` replaced by this rendezvous (`--rdzv-id` = `run_id` unless
    /// [`Self::rdzv_id`] says otherwise) and, with several nodes, named by the whole world and
    /// expecting this node's ranks; a step that is not a standalone torchrun is unchanged.
    pub fn apply(&self, step: &Step, run_id: &str) -> Step {
        let mut step = step.clone();
        if let Some(i) = step.args.iter().position(|a| a == "--standalone") {
            let run_id = self.rdzv_id.as_deref().unwrap_or(run_id);
            let rendezvous = [
                format!("--nnodes={}", self.nnodes),
                format!("--node-rank={}", self.node_rank),
                "--rdzv-backend=c10d".to_string(),
                format!("--rdzv-endpoint={}", self.endpoint),
                format!("--rdzv-id={run_id}"),
            ];
            step.args.splice(i..=i, rendezvous);
            if self.nnodes > 1 {
                self.name_by_whole_world(&mut step);
            }
        }
        step
    }

    /// `world<w>_` -> `world<N*w>_` everywhere in the step, and `rank<r>_` outputs -> the
    /// global ranks of this node.
    fn name_by_whole_world(&self, step: &mut Step) {
        let per_node: u32 =
            step.args.iter().find_map(|a| a.strip_prefix("--nproc_per_node=")?.parse().ok()).unwrap_or(1);
        let (from, to) = (format!("world{per_node}_"), format!("world{}_", per_node * self.nnodes));
        let rename = |text: &str| text.replacen(&from, &to, 1);
        step.label = rename(&step.label);
        step.args = step.args.iter().map(|a| rename(a)).collect();
        step.env = step.env.iter().map(|(k, v)| (k.clone(), rename(v))).collect();
        step.stdout = rename(&step.stdout.display().to_string()).into();
        step.dirs = step.dirs.iter().map(|d| rename(&d.display().to_string()).into()).collect();
        let first_rank = u64::from(self.node_rank * per_node);
        step.outputs =
            step.outputs.iter().map(|p| global_rank(&rename(&p.display().to_string()), first_rank)).collect();
    }
}

/// `.../rank<r>_<section>.csv` -> `.../rank<first + r>_<section>.csv`.
fn global_rank(path: &str, first: u64) -> PathBuf {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let local = name.strip_prefix("rank").and_then(|rest| rest.split_once('_'));
    match local.and_then(|(rank, rest)| Some((rank.parse::<u64>().ok()?, rest))) {
        Some((rank, rest)) => PathBuf::from(format!("{dir}/rank{}_{rest}", first + rank)),
        None => PathBuf::from(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::plan::{cases, torch_step, WorkerSettings};
    use std::path::PathBuf;
    use std::time::Duration;

    fn rendezvous(nnodes: u32, endpoint: &str) -> Rendezvous {
        Rendezvous { nnodes, node_rank: 0, endpoint: endpoint.to_string(), rdzv_id: None, node_timeout: Duration::ZERO }
    }

    #[test]
    fn standalone_becomes_the_rendezvous() {
        let settings = WorkerSettings {
            worker: PathBuf::from("/w.py"),
            cycles: 2,
            warmups: 3,
            decode_collectives: 160,
            cpu_affinity: "0".to_string(),
            force: false,
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

        let second = Rendezvous { rdzv_id: Some("run".into()), node_rank: 1, ..rendezvous(2, "n1:1") };
        let local = torch_step(&cases(&[2])[0], &settings);
        let step = second.apply(&local, "node1");
        assert!(
            step.args.contains(&"--rdzv-id=run".to_string()) && step.args.contains(&"--nproc_per_node=2".to_string())
        );
        assert!(step.args.contains(&"raw/results/world4_full".to_string()), "{:?}", step.args);
        assert_eq!(step.label, "world4_full");
        assert_eq!(step.env[2].1, "raw/nccl/world4_full_%h_%p.log");
        assert_eq!(step.outputs[0], PathBuf::from("raw/results/world4_full/rank2_async.csv"));
        assert_eq!(step.outputs.last().unwrap(), &PathBuf::from("raw/results/world4_full/rank3_contracts.csv"));
    }

    #[test]
    fn checks() {
        assert!(rendezvous(1, "node1:29400").check().is_ok());
        assert!(rendezvous(2, "node1:29400").check().is_ok());
        assert!(rendezvous(0, "node1:29400").check().is_err());
        assert!(rendezvous(1, "node1").check().unwrap_err().to_string().contains("is not HOST:PORT"));
        assert!(rendezvous(1, ":29400").check().is_err());
    }
}
