//! `nccl-report serve`: the built site on 127.0.0.1 through tiny_http, with `404.html` for
//! missing pages, and optional rebuilds when anything under the runs folder changes
//! (polled once a second: sizes and modification times of every file; each rebuild takes the
//! output folder's lock like any build). Each request is answered on its own thread, so a
//! client that stops reading holds only its own thread, and only for `send_timeout`: the
//! listening socket's `SO_SNDTIMEO`, which Linux copies to every accepted connection, makes a
//! write that sends nothing for that long fail, and the connection is dropped. At most
//! `MAX_IN_FLIGHT` answers are in progress, further requests get 503 until one finishes.
//! (A client reading a few bytes at a time within the timeout is not bounded.)

use crate::pipeline::{build, BuildOptions};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use walkdir::WalkDir;

pub(crate) struct ServeOptions {
    pub out: PathBuf,
    pub port: u16,
    pub watch: Option<BuildOptions>,
    /// How long one write to a client may wait for it to read.
    pub send_timeout: Duration,
}

pub(crate) fn serve(options: &ServeOptions) -> anyhow::Result<()> {
    if let Some(build_options) = &options.watch {
        rebuild(build_options);
        let build_options = build_options.clone();
        std::thread::spawn(move || watch(build_options));
    }
    if !options.out.join("index.html").is_file() {
        anyhow::bail!("{} has no index.html: run `nccl-report build` first (or serve --watch)", options.out.display());
    }
    let listen_error = |e: &dyn std::fmt::Display| anyhow::anyhow!("cannot listen on 127.0.0.1:{}: {e}", options.port);
    let listener = std::net::TcpListener::bind(("127.0.0.1", options.port)).map_err(|e| listen_error(&e))?;
    set_send_timeout(&listener, options.send_timeout).map_err(|e| listen_error(&e))?;
    let server = tiny_http::Server::from_listener(listener, None).map_err(|e| listen_error(&e))?;
    eprintln!("serving {} at http://127.0.0.1:{}/ (Ctrl-C to stop)", options.out.display(), options.port);
    let in_flight = Arc::new(AtomicUsize::new(0));
    for request in server.incoming_requests() {
        if in_flight.fetch_add(1, Ordering::SeqCst) >= MAX_IN_FLIGHT {
            in_flight.fetch_sub(1, Ordering::SeqCst);
            let _ = request.respond(tiny_http::Response::from_data(b"busy".to_vec()).with_status_code(503));
            continue;
        }
        let (root, in_flight) = (options.out.clone(), Arc::clone(&in_flight));
        std::thread::spawn(move || {
            answer(&root, request);
            in_flight.fetch_sub(1, Ordering::SeqCst);
        });
    }
    Ok(())
}

/// Sets `SO_SNDTIMEO` on the listening socket (accepted connections inherit it on Linux).
fn set_send_timeout(listener: &std::net::TcpListener, timeout: Duration) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let value = libc::timeval {
        tv_sec: timeout.as_secs().try_into().unwrap_or(libc::time_t::MAX),
        tv_usec: timeout.subsec_micros().into(),
    };
    // SAFETY: a valid socket descriptor and a `timeval` that outlives the call, with its size.
    let rc = unsafe {
        libc::setsockopt(
            listener.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_SNDTIMEO,
            (&value as *const libc::timeval).cast(),
            std::mem::size_of::<libc::timeval>() as libc::socklen_t,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Answers being written at once (each on its own thread).
const MAX_IN_FLIGHT: usize = 64;

fn answer(root: &Path, request: tiny_http::Request) {
    let (status, path) = resolve(root, request.url());
    let response = match std::fs::read(&path) {
        Ok(bytes) => tiny_http::Response::from_data(bytes).with_status_code(status),
        Err(_) => tiny_http::Response::from_data(b"not found".to_vec()).with_status_code(404),
    };
    let header = tiny_http::Header::from_bytes("Content-Type", content_type(&path)).expect("static header");
    let _ = request.respond(response.with_header(header));
}

/// Maps a request URL to a file under `root`: percent-decoded, no `..`, directories to their
/// `index.html`, anything missing to `404.html` with status 404.
pub(crate) fn resolve(root: &Path, url: &str) -> (u16, PathBuf) {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let decoded = percent_decode(path);
    let relative = Path::new(decoded.trim_start_matches('/'));
    let safe = relative.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if safe {
        let mut candidate = root.join(relative);
        if candidate.is_dir() {
            candidate = candidate.join("index.html");
        }
        if candidate.is_file() {
            return (200, candidate);
        }
    }
    (404, root.join("404.html"))
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Some(byte) =
                std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        Some("csv") => "text/csv; charset=utf-8",
        Some("md") | Some("txt") => "text/plain; charset=utf-8",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    }
}

fn rebuild(options: &BuildOptions) {
    match build(options) {
        Ok(report) => eprintln!("{}", report.summary_line(&options.out)),
        Err(error) => eprintln!("error: {error:#}"),
    }
}

/// Fingerprint of the runs folder: every path with its size and modification time.
fn fingerprint(root: &Path) -> Vec<(PathBuf, u64, Option<SystemTime>)> {
    WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|e| e.metadata().ok().map(|m| (e.path().to_path_buf(), m.len(), m.modified().ok())))
        .collect()
}

fn watch(options: BuildOptions) {
    let mut last = fingerprint(&options.runs);
    loop {
        std::thread::sleep(Duration::from_secs(1));
        let now = fingerprint(&options.runs);
        if now != last {
            eprintln!("runs changed; rebuilding");
            rebuild(&options);
            last = now;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_inside_root_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("runs/a b")).unwrap();
        std::fs::write(dir.path().join("runs/a b/index.html"), "x").unwrap();
        std::fs::write(dir.path().join("index.html"), "i").unwrap();
        assert_eq!(resolve(dir.path(), "/"), (200, dir.path().join("index.html")));
        assert_eq!(resolve(dir.path(), "/runs/a%20b/"), (200, dir.path().join("runs/a b/index.html")));
        assert_eq!(resolve(dir.path(), "/../etc/passwd").0, 404);
        assert_eq!(resolve(dir.path(), "/runs/%2e%2e/%2e%2e/x").0, 404);
        assert_eq!(resolve(dir.path(), "/missing.html").0, 404);
    }
}
