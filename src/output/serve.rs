//! `nccl-report serve`: the built site on 127.0.0.1, with `404.html` for missing pages, and
//! optional rebuilds when anything under the runs folder changes (polled once a second: sizes
//! and modification times of every file; each rebuild takes the output folder's lock like any
//! build). A small HTTP/1.1 server on std's sockets, one request per connection:
//! - each connection is answered on its own thread (small stack), at most `MAX_CONNECTIONS`
//!   at once; one more gets 503 at once, so clients that send nothing or read nothing hold
//!   only their own thread and never keep others waiting;
//! - files are streamed in `CHUNK` pieces, never held whole in memory;
//! - `--send-timeout` is a deadline per response, from the connection's accept to its last
//!   byte (reading the request included): each read and write waits at most for what is left
//!   of it, and a client still not done by then is dropped, however slowly it reads;
//! - `GET` and `HEAD` are answered, any other method gets 405 with `Allow: GET, HEAD`.

use crate::pipeline::{build, BuildOptions};
use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};
use walkdir::WalkDir;

pub(crate) struct ServeOptions {
    pub out: PathBuf,
    pub port: u16,
    pub watch: Option<BuildOptions>,
    /// The longest one response may take (request read, answer sent).
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
    let listener = TcpListener::bind(("127.0.0.1", options.port))
        .map_err(|e| anyhow::anyhow!("cannot listen on 127.0.0.1:{}: {e}", options.port))?;
    let port = listener.local_addr().map_or(options.port, |a| a.port());
    eprintln!("serving {} at http://127.0.0.1:{port}/ (Ctrl-C to stop)", options.out.display());
    answer_all(&listener, &options.out, options.send_timeout);
    Ok(())
}

/// Connections answered at once; one more is answered 503 at once.
const MAX_CONNECTIONS: usize = 256;
/// The stack of a connection's thread (it holds one `CHUNK` buffer on the heap).
const THREAD_STACK: usize = 128 << 10;
/// The piece of a file sent at a time.
const CHUNK: usize = 64 << 10;
/// The longest request head read (request line and headers).
const MAX_HEAD: usize = 16 << 10;

/// Answers every connection `listener` accepts, each on its own thread (see the module header).
pub(crate) fn answer_all(listener: &TcpListener, root: &Path, deadline: Duration) {
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let due = Instant::now() + deadline;
        if open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            open.fetch_sub(1, Ordering::SeqCst);
            busy(stream);
            continue;
        }
        let (root, counter) = (root.to_path_buf(), Arc::clone(&open));
        let spawned = std::thread::Builder::new().stack_size(THREAD_STACK).spawn(move || {
            let _ = answer(stream, &root, due);
            counter.fetch_sub(1, Ordering::SeqCst);
        });
        if spawned.is_err() {
            open.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// 503 without waiting for the client (a short answer fits the socket's buffer).
fn busy(mut stream: TcpStream) {
    let _ = stream.set_nonblocking(true);
    let _ =
        stream.write_all(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 5\r\nConnection: close\r\n\r\nbusy\n");
}

/// What is left until `deadline`, or a timed-out error when nothing is.
fn left(deadline: Instant) -> io::Result<Duration> {
    deadline
        .checked_duration_since(Instant::now())
        .filter(|d| !d.is_zero())
        .ok_or_else(|| io::Error::new(io::ErrorKind::TimedOut, "the response's deadline passed"))
}

/// Reads the request head (up to the blank line), each read waiting at most until `deadline`.
fn read_head(stream: &mut TcpStream, deadline: Instant) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(1024);
    let mut buffer = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && !head.windows(2).any(|w| w == b"\n\n") {
        if head.len() > MAX_HEAD {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "request head too long"));
        }
        stream.set_read_timeout(Some(left(deadline)?))?;
        let n = stream.read(&mut buffer)?;
        if n == 0 {
            return Err(io::Error::from(io::ErrorKind::UnexpectedEof));
        }
        head.extend_from_slice(&buffer[..n]);
    }
    Ok(head)
}

/// Writes all of `bytes`, each write waiting at most until `deadline`.
fn send(stream: &mut TcpStream, mut bytes: &[u8], deadline: Instant) -> io::Result<()> {
    while !bytes.is_empty() {
        stream.set_write_timeout(Some(left(deadline)?))?;
        match stream.write(bytes) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Answers one request on `stream`, all of it before `deadline`.
fn answer(mut stream: TcpStream, root: &Path, deadline: Instant) -> io::Result<()> {
    let head = read_head(&mut stream, deadline)?;
    let line = String::from_utf8_lossy(head.split(|&b| b == b'\n').next().unwrap_or_default()).into_owned();
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    if method != "GET" && method != "HEAD" {
        let body = b"method not allowed\n";
        let header = format!(
            "HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        send(&mut stream, header.as_bytes(), deadline)?;
        return send(&mut stream, body, deadline);
    }
    let (status, path) = resolve(root, target);
    let Ok(mut file) = std::fs::File::open(&path) else {
        let header = "HTTP/1.1 404 Not Found\r\nContent-Length: 10\r\nConnection: close\r\n\r\n";
        send(&mut stream, header.as_bytes(), deadline)?;
        return send(&mut stream, if method == "GET" { b"not found\n" } else { b"" }, deadline);
    };
    let len = file.metadata()?.len();
    let reason = if status == 200 { "OK" } else { "Not Found" };
    let header = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {}\r\nX-Content-Type-Options: nosniff\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n",
        content_type(&path)
    );
    send(&mut stream, header.as_bytes(), deadline)?;
    if method == "HEAD" {
        return Ok(());
    }
    let mut buffer = vec![0u8; CHUNK];
    let mut sent = 0u64;
    while sent < len {
        let want = usize::try_from(len - sent).map_or(CHUNK, |rest| rest.min(CHUNK));
        let n = file.read(&mut buffer[..want])?;
        if n == 0 {
            break;
        }
        send(&mut stream, &buffer[..n], deadline)?;
        sent += n as u64;
    }
    Ok(())
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

    /// A site with `index.html` and a 64 MiB `big.bin`, served on a free port with `deadline`.
    fn server(deadline: Duration) -> (tempfile::TempDir, std::net::SocketAddr) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("index.html"), "<p>index</p>").unwrap();
        std::fs::File::create(dir.path().join("big.bin")).unwrap().set_len(64 << 20).unwrap();
        let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let address = listener.local_addr().unwrap();
        let root = dir.path().to_path_buf();
        std::thread::spawn(move || answer_all(&listener, &root, deadline));
        (dir, address)
    }

    /// Sends `request` and reads the whole answer (the test fails rather than hangs: 60 s).
    fn fetch(address: std::net::SocketAddr, request: &str) -> Vec<u8> {
        let mut stream = TcpStream::connect(address).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        answer
    }

    fn rss_kib() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }

    #[test]
    fn seventy_silent_clients_do_not_keep_others_waiting() {
        let (_dir, address) = server(Duration::from_secs(120));
        let before = rss_kib();
        // 70 clients ask for 64 MiB and never read; 30 more connect and never send anything.
        let mut silent = Vec::new();
        for i in 0..100 {
            let mut stream = TcpStream::connect(address).unwrap();
            if i < 70 {
                stream.write_all(b"GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
            }
            silent.push(stream);
        }
        let mut latencies = Vec::new();
        for _ in 0..20 {
            let asked = Instant::now();
            let answer = fetch(address, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
            latencies.push(asked.elapsed());
            let text = String::from_utf8_lossy(&answer);
            assert!(text.starts_with("HTTP/1.1 200 OK") && text.ends_with("<p>index</p>"), "{text}");
            // A page from a run is never sniffed into another type than the one it is sent as.
            assert!(text.contains("\r\nX-Content-Type-Options: nosniff\r\n"), "{text}");
        }
        latencies.sort();
        let growth = rss_kib().saturating_sub(before);
        eprintln!(
            "serve under 70 silent readers + 30 silent senders: median {:?}, max {:?}, RSS growth {growth} KiB",
            latencies[latencies.len() / 2],
            latencies[latencies.len() - 1]
        );
        // Streaming: 70 answers of 64 MiB never sit in memory (4.4 GiB if they did).
        assert!(growth < 512 << 10, "RSS grew by {growth} KiB");
        drop(silent);
    }

    #[test]
    fn a_client_that_does_not_read_is_cut_at_the_deadline() {
        let (_dir, address) = server(Duration::from_secs(1));
        let mut stream = TcpStream::connect(address).unwrap();
        stream.write_all(b"GET /big.bin HTTP/1.1\r\n\r\n").unwrap();
        std::thread::sleep(Duration::from_secs(3));
        stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        let mut received = Vec::new();
        let _ = stream.read_to_end(&mut received);
        assert!(received.len() < 64 << 20, "the whole file was sent after the deadline");
    }

    #[test]
    fn methods_other_than_get_and_head_get_405() {
        let (_dir, address) = server(Duration::from_secs(30));
        for method in ["POST", "PUT", "DELETE", "PATCH"] {
            let answer = fetch(address, &format!("{method} /index.html HTTP/1.1\r\nContent-Length: 0\r\n\r\n"));
            let text = String::from_utf8_lossy(&answer);
            assert!(text.starts_with("HTTP/1.1 405") && text.contains("Allow: GET, HEAD"), "{method}: {text}");
        }
        let head = String::from_utf8_lossy(&fetch(address, "HEAD /big.bin HTTP/1.1\r\n\r\n")).into_owned();
        assert!(head.contains("Content-Length: 67108864") && head.ends_with("\r\n\r\n"), "{head}");
        let missing = String::from_utf8_lossy(&fetch(address, "GET /nope HTTP/1.1\r\n\r\n")).into_owned();
        assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");
    }

    #[test]
    fn resolves_inside_root_only() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("site");
        std::fs::create_dir_all(dir.join("runs/a b")).unwrap();
        std::fs::write(dir.join("runs/a b/index.html"), "x").unwrap();
        std::fs::write(dir.join("index.html"), "i").unwrap();
        // A file beside the root, which a path climbing out of it would reach.
        std::fs::write(top.path().join("secret.txt"), "s").unwrap();
        assert_eq!(resolve(&dir, "/"), (200, dir.join("index.html")));
        assert_eq!(resolve(&dir, "/runs/a%20b/"), (200, dir.join("runs/a b/index.html")));
        for escape in
            ["/../secret.txt", "/%2e%2e/secret.txt", "/runs/%2e%2e/%2e%2e/secret.txt", "/runs/../../secret.txt"]
        {
            assert_eq!(resolve(&dir, escape).0, 404, "{escape}");
        }
        assert_eq!(resolve(&dir, "/missing.html").0, 404);
    }
}
