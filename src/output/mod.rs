//! What is done with a built site: `publish` (to a git branch) and `serve` (over HTTP, rebuilding
//! on change with `--watch`). Writing the site is the pipeline's (`pipeline::write`).

pub(crate) mod publish;
pub(crate) mod serve;
